//! `encint bench --workloads`: whole programs (a sum, a dot product, a polynomial, a
//! sorting network, statistics, a hash, a matrix product, a dense layer) timed on encint,
//! each compiled into one circuit, beside the same program on TFHE-rs' high-level API in
//! the same process, on the same rayon pool and the same seeded random inputs. Both
//! results are decrypted and checked against plain Rust arithmetic; a mismatch is an
//! error, never a row.

mod ours;
mod plain;

use super::{timing_cells, timing_header, BenchArgs};
use crate::error::{mismatch, usage};
use crate::peer::workloads::{self as peer, PeerRun};
use crate::peer::PeerError;
use crate::progress::spinner;
use crate::timing::{median, print_json, print_json_rows};
use crate::CliResult;
use plain::Workload;

/// The seed of the inputs of the first workload (the n-th one's is this plus n).
const SEED: u64 = 17;

/// One measured workload.
struct Row {
    workload: Workload,
    ours_ms: f64,
    peer_ms: f64,
    pbs: u64,
    depth: u32,
}

/// Runs the workloads `names` (`all`: every one).
pub fn run(
    a: &BenchArgs,
    names: &[String],
    params: &'static encint::keys::DigitParameters,
) -> CliResult {
    let list = Workload::parse_list(names).map_err(usage)?;
    let (threads, runs, json) = (a.threads, a.runs, a.json);
    let (pool, client, server) = super::keys_and_pool(params, threads)?;
    let mut rows = Vec::new();
    for w in list {
        let pb = spinner(&format!("{w}: compiling, then ours and TFHE-rs"));
        let index = Workload::ALL.iter().position(|&v| v == w).unwrap_or(0) as u64;
        let inputs = w.inputs(SEED + index);
        let want = w.reference(&inputs);
        let program = pool.install(|| ours::compile(w, None))?;
        let cost = program.cost();
        let flat: Vec<i128> = inputs.iter().flatten().map(|&v| i128::from(v)).collect();
        let (times, got) = program.time(&server, &client, &flat, runs)?;
        if got != want {
            return Err(mismatch(format!(
                "{w}: encint gives {got:?}, plain arithmetic {want:?}"
            )));
        }
        let p = pool
            .install(|| run_peer(w, &inputs, runs))
            .map_err(|e| e.about(&w.to_string()))?;
        if p.outputs != want {
            return Err(mismatch(format!(
                "{w}: TFHE-rs gives {:?}, plain arithmetic {want:?}",
                p.outputs
            )));
        }
        pb.finish_and_clear();
        let row = Row {
            workload: w,
            ours_ms: median(times),
            peer_ms: median(p.times_ms),
            pbs: cost.bootstraps,
            depth: cost.depth,
        };
        if !json {
            if rows.is_empty() {
                crate::peer::print_params(params);
                println!(
                    "p-fail per bootstrap: ours 2^{:.1}, TFHE-rs 2^{:.1}; {runs} run(s), medians",
                    params.log2_p_fail,
                    peer::log2_p_fail()
                );
                println!("{:<15} {}", "workload", timing_header());
            }
            let ratio = format!("{:.2}", row.ours_ms / row.peer_ms);
            println!(
                "{:<15} {}",
                w.name(),
                timing_cells(
                    threads,
                    (row.ours_ms, Some(row.peer_ms)),
                    &ratio,
                    (row.pbs, row.depth)
                )
            );
        }
        rows.push(row);
    }
    if json {
        print_json_rows(&rows, |r| {
            serde_json::json!({
                "workload": r.workload.name(), "threads": threads, "runs": runs,
                "ours_ms": r.ours_ms, "peer_ms": r.peer_ms,
                "ratio": r.ours_ms / r.peer_ms, "pbs": r.pbs, "depth": r.depth,
                "params": params.id(), "log2_p_fail": params.log2_p_fail,
                "peer_params": crate::peer::peer_params().name(),
                "peer_log2_p_fail": peer::log2_p_fail(),
            })
        })?;
    }
    Ok(())
}

/// `encint cost --workloads`: each workload of `names` (`all`, or none: every one)
/// compiled for `threads` threads, its bootstraps, depth and estimated rounds traced
/// operation by operation (before) and as compiled (after). No keys are needed.
pub fn print_costs(
    names: &[String],
    threads: usize,
    machine: Option<&encint::Machine>,
    json: bool,
) -> CliResult {
    let list = if names.is_empty() {
        Workload::ALL.to_vec()
    } else {
        Workload::parse_list(names).map_err(usage)?
    };
    // Planned for `threads` without starting them.
    let target = machine.map_or_else(
        || encint::Machine::cpu(threads),
        |m| m.with_plan_threads(threads),
    );
    let mut rows = Vec::new();
    for w in list {
        let program = ours::compile(w, Some(&target))?;
        let (before, before_rounds) = program.unoptimised();
        let after = program.cost();
        let after_rounds = program.rounds(threads);
        let mut row = serde_json::json!({
            "workload": w.name(), "threads": threads,
            "pbs_before": before.bootstraps, "depth_before": before.depth,
            "rounds_before": before_rounds,
            "pbs_after": after.bootstraps, "depth_after": after.depth,
            "rounds_after": after_rounds,
        });
        if let Some(m) = machine {
            row["machine"] = m.name.clone().into();
            row["ms_after"] = (program.seconds(m) * 1e3).into();
        }
        rows.push(row);
    }
    if json {
        return print_json(&rows);
    }
    let ms_head = machine.map(|m| format!(" {:>10}", format!("ms {}", m.name)));
    println!(
        "{:<15} {:>10} {:>7} {:>8} | {:>10} {:>7} {:>8}{}",
        "workload",
        "pbs before",
        "depth",
        "rounds",
        "pbs after",
        "depth",
        "rounds",
        ms_head.as_deref().unwrap_or("")
    );
    let cell = |r: &serde_json::Value, k: &str| r[k].as_u64().unwrap_or_default();
    for r in &rows {
        let ms = r["ms_after"]
            .as_f64()
            .map(|ms| format!(" {ms:>10.1}"))
            .unwrap_or_default();
        println!(
            "{:<15} {:>10} {:>7} {:>8} | {:>10} {:>7} {:>8}{ms}",
            r["workload"].as_str().unwrap_or_default(),
            cell(r, "pbs_before"),
            cell(r, "depth_before"),
            cell(r, "rounds_before"),
            cell(r, "pbs_after"),
            cell(r, "depth_after"),
            cell(r, "rounds_after")
        );
    }
    println!(
        "\nbefore: the program traced operation by operation, each result normalised; after: \
         compiled, chains of linear operations and products feeding sums reduced at once. \
         rounds = estimated time at {threads} thread(s), the sum over levels of \
         ceil(bootstraps in the level / threads)."
    );
    if let Some(m) = machine {
        println!(
            "ms {}: the compiled circuit's estimated time on that profile (a level costs the \
             profile's latency plus one round per lane-full of its bootstraps).",
            m.name
        );
    }
    Ok(())
}

/// The workload on TFHE-rs, on the current rayon pool.
fn run_peer(w: Workload, x: &[Vec<u64>], runs: usize) -> Result<PeerRun, PeerError> {
    let u8s = |i: usize| x[i].iter().map(|&v| v as u8).collect::<Vec<u8>>();
    let u16s = |i: usize| x[i].iter().map(|&v| v as u16).collect::<Vec<u16>>();
    match w {
        Workload::Sum16U16 => peer::sum16_u16(&u16s(0), runs),
        Workload::Dot32U16 => peer::dot32_u16(&u16s(0), &u16s(1), runs),
        Workload::HornerU16 => peer::horner_u16(u16s(0)[0], runs),
        Workload::Sort8U8 => peer::sort8_u8(&u8s(0), runs),
        Workload::MeanVar16U16 => peer::mean_var16_u16(&u16s(0), runs),
        Workload::HashU32 => peer::hash_u32(
            x[0][0] as u32,
            x[1][0] as u32,
            plain::HASH_MUL,
            plain::HASH_ROUNDS,
            runs,
        ),
        Workload::Matmul4U8 => peer::matmul4_u8(&u8s(0), &u8s(1), runs),
        Workload::MlpU8 => peer::mlp_u8(&u8s(0), &u8s(1), runs),
    }
}
