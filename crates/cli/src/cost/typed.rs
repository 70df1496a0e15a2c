//! `encint cost --threads N [--lazy | --radix4]`: the planner's table for the typed
//! (TFHE-rs-like) operations on canonical (or, with `--lazy`, lazy; with `--radix4`,
//! radix-4) operands.
//! For each operation, type and form: bootstraps, depth, widest level, largest LUT-input
//! quadratic weight and the estimated time in bootstrap rounds at N threads (the sum over
//! levels of `⌈level width / N⌉`); the chosen form first, marked `*`. Beside them,
//! TFHE-rs 1.8.2's bootstrap counts where they were measured (its `pbs-stats`
//! counter, 2 threads; FheInt for add/sub/mul/squ/scalar_mul/ge/max, FheUint for
//! div/rem/and/shl_var). With `--machine P`, each row's estimated time on that profile
//! ([`encint::Machine::seconds`] of the row's circuit), and the chosen form is the one
//! with the least such time.

use encint::typed::{plan_on, Form, IntType, Op};
use encint::{Arith, Config, Machine};

use crate::error::usage;
use crate::CliResult;

/// TFHE-rs 1.8.2 bootstraps (its `pbs-stats` counter) for `op` on `ty`, if measured.
fn tfhe_rs_pbs(op: Op, ty: IntType) -> Option<u64> {
    let i = match ty.bits {
        8 => 0,
        16 => 1,
        32 => 2,
        _ => return None,
    };
    let n = ty.bits as u64;
    let row: [u64; 3] = match (op, ty.signed) {
        (Op::Add | Op::Sub, true) => return Some(n),
        (Op::Mul | Op::Square, true) => [28, 111, 440],
        (Op::ScalarMul(805), true) => [10, 33, 73],
        (Op::ScalarMul(4095), true) => [20, 62, 150],
        (Op::GE, true) => [6, 11, 23],
        (Op::Max, true) => [18, 35, 71],
        (Op::Div | Op::Rem, false) => [164, 518, 1789],
        (Op::And, false) => [4, 8, 16],
        (Op::ShlVar, false) => [21, 50, 119],
        _ => return None,
    };
    Some(row[i])
}

/// Prints the planner's table (or JSON), planned whole before the first line.
pub fn print(
    threads: usize,
    bits: &[usize],
    form: Form,
    machine: Option<&Machine>,
    json: bool,
) -> CliResult {
    let ar = Arith::new(Config { max_qweight: 25 });
    let mut ops = Op::typed_samples();
    ops.insert(6, Op::ScalarMul(4095));
    let target = machine.map_or_else(|| Machine::cpu(threads), |m| m.with_plan_threads(threads));
    let mut plans = Vec::new();
    for &b in bits {
        for signed in [true, false] {
            let ty = IntType::new(b, signed)?;
            for &op in &ops {
                let mut forms = vec![form; op.arity()];
                if op == Op::Select {
                    // The condition: a comparison's canonical bit.
                    forms[0] = Form::Canonical;
                }
                // Ranked by the machine's estimated time, the circuits built for `threads`.
                let p = plan_on(&ar, op, ty, &forms, &target)
                    .map_err(|e| usage(format!("{op} on {ty}: {e}")))?;
                let ms: Vec<f64> = match machine {
                    Some(_) => p.estimates.iter().map(|e| e.micros as f64 / 1e3).collect(),
                    None => Vec::new(),
                };
                plans.push((op, ty, p, ms));
            }
        }
    }
    let mut out = Vec::new();
    let ms_head = machine.map(|m| format!(" {:>10}", format!("ms {}", m.name)));
    if !json {
        println!(
            "{:<16} {:>4} {:<7} {:>7} {:>6} {:>6} {:>8} {:>7}{} | {:>7}",
            "op",
            "type",
            "form",
            "pbs",
            "depth",
            "width",
            "qweight",
            "rounds",
            ms_head.as_deref().unwrap_or(""),
            "TFHE-rs"
        );
    }
    for (op, ty, p, ms) in plans {
        for (k, e) in p.estimates.iter().enumerate() {
            let row_ms = ms.get(k).copied();
            let peer = tfhe_rs_pbs(op, ty);
            let form =
                format!("{}{:?}", if k == 0 { "*" } else { " " }, e.algorithm).to_lowercase();
            if json {
                let mut row = serde_json::json!({
                    "op": op.to_string(), "type": ty.to_string(), "threads": threads,
                    "form": format!("{:?}", e.algorithm).to_lowercase(),
                    "chosen": k == 0, "pbs": e.cost.bootstraps,
                    "depth": e.cost.depth, "width": e.cost.width,
                    "qweight": e.cost.max_qweight, "rounds": e.rounds,
                    "tfhe_rs_pbs": if k == 0 { peer } else { None },
                });
                if let (Some(m), Some(t)) = (machine, row_ms) {
                    row["machine"] = m.name.clone().into();
                    row["ms"] = t.into();
                }
                out.push(row);
            } else {
                println!(
                    "{:<16} {:>4} {:<7} {:>7} {:>6} {:>6} {:>8} {:>7}{} | {:>7}",
                    op.to_string(),
                    ty.to_string(),
                    form,
                    e.cost.bootstraps,
                    e.cost.depth,
                    e.cost.width,
                    e.cost.max_qweight,
                    e.rounds,
                    row_ms.map(|t| format!(" {t:>10.1}")).unwrap_or_default(),
                    match (k, peer) {
                        (0, Some(p)) => p.to_string(),
                        _ => String::new(),
                    }
                );
            }
        }
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!(
            "\nrounds = estimated time in bootstrap times at {threads} thread(s): the sum over \
levels of ceil(bootstraps in the level / {threads}). * = the planner's choice (fewest \
rounds, then fewest bootstraps). Operands: {}.\nTFHE-rs = bootstraps of TFHE-rs 1.8.2 (pbs-stats), \
where measured.{}",
            match form {
                Form::Lazy => "lazy (wrapping results, any representative: bits cost a conversion)",
                Form::Radix4 =>
                    "radix4 (two-bit blocks, as encryption gives them; the select \
condition a canonical bit)",
                Form::Canonical =>
                    "canonical (one bit per digit, and boolean-layer results: bits for free)",
            },
            match machine {
                Some(m) => format!(
                    "\nms {} = estimated milliseconds on that profile: per level {:.1} ms plus \
{:.3} ms per round of up to {} bootstrap(s).",
                    m.name,
                    m.latency_s * 1e3,
                    m.round_s * 1e3,
                    m.lanes
                ),
                None => String::new(),
            }
        );
    }
    Ok(())
}
