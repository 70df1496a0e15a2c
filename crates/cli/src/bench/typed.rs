//! `encint bench --typed OPS`: the typed (TFHE-rs-like) operations on real ciphertexts
//! (fresh operands in the form of `--form`, by default radix-4 blocks as encryption gives
//! them, like TFHE-rs' fresh ones) beside TFHE-rs' `FheInt` /
//! `FheUint` of the same width, same process, same threads, same clear inputs. Both results
//! are decrypted and checked against each other (casts: against plain arithmetic); a
//! mismatch is an error, never a row.

use encint::typed::{decrypt_typed, encrypt_typed_as, EncTyped, Form, IntType, Op};
use rand::{Rng, SeedableRng};

use super::row::Row;
use super::{timing_cells, timing_header, BenchArgs, HEAVY_BOOTSTRAPS};
use crate::error::{internal, mismatch, usage};
use crate::peer::typed::{time_typed_peer, Inputs};
use crate::progress::spinner;
use crate::timing::{median, print_json_rows, timed_runs};
use crate::{AnyResult, CliResult};

/// Names accepted by `--typed` (`all` for every one).
pub const TYPED_NAMES: &str = "add, sub, neg, mul, squ, scalar_mul (805 and 4095), and, or, \
xor, not, shl, shr, rotl, rotr (by 3), shl_var, shr_var, rotl_var, rotr_var, select, min, max, \
lt, le, gt, ge, eq, ne, div, rem, div_scalar, rem_scalar (by 7), count_ones, count_zeros, \
leading_zeros, leading_ones, trailing_zeros, trailing_ones, ilog2 (of a positive value), \
reverse_bits, cast (to the next width); overflowing_add, overflowing_sub, overflowing_mul, div_rem, \
match_value (a table of four entries; unsigned types)";

/// The operations named `name` (several for `all` and `scalar_mul`).
fn ops_named(name: &str, ty: IntType) -> AnyResult<Vec<Op>> {
    if name == "all" {
        let mut v: Vec<Op> = Op::typed_samples();
        v.insert(6, Op::ScalarMul(4095));
        v.push(cast_op(ty));
        return Ok(v);
    }
    if name == "scalar_mul" {
        return Ok(vec![Op::ScalarMul(805), Op::ScalarMul(4095)]);
    }
    if name == "cast" {
        return Ok(vec![cast_op(ty)]);
    }
    Op::typed_samples()
        .into_iter()
        .find(|op| op.name() == name)
        .map(|op| vec![op])
        .ok_or_else(|| {
            usage(format!(
                "unknown typed operation `{name}` (known: {TYPED_NAMES}, all)"
            ))
        })
}

fn cast_op(ty: IntType) -> Op {
    Op::Cast(IntType {
        bits: (ty.bits * 2).min(128),
        signed: ty.signed,
    })
}

/// Runs the typed rows.
pub fn run(a: &BenchArgs, params: &'static encint::keys::DigitParameters) -> CliResult {
    let (names, types, bits, form) = (&a.typed, &a.types, &a.bits, a.form.as_str());
    let (threads, runs, json) = (a.threads, a.runs, a.json);
    let forms: Vec<Form> = match form {
        "auto" => vec![Form::Canonical, Form::Radix4],
        name => vec![Form::from_name(name)
            .filter(|&f| f != Form::Lazy)
            .ok_or_else(|| usage(format!("unknown form `{name}` (auto, canonical, radix4)")))?],
    };
    super::check_widths(bits, &[8, 16, 32, 64], "the typed rows' widths")?;
    let mut tys = Vec::new();
    for &b in bits {
        for t in types {
            let signed = match t.as_str() {
                "i" => true,
                "u" => false,
                other => return Err(usage(format!("unknown type kind `{other}` (i or u)"))),
            };
            tys.push(IntType::new(b as usize, signed)?);
        }
    }
    // Every row is known before any key exists.
    for name in names {
        for &ty in &tys {
            if super::pairs::is_pair(name) {
                super::pairs::check(name, ty)?;
            } else {
                ops_named(name, ty)?;
            }
        }
    }
    let (pool, client, server) = super::keys_and_pool(params, threads)?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(17);
    let mut rows = Vec::new();
    for &ty in &tys {
        for name in names {
            if super::pairs::is_pair(name) {
                let pb = spinner(&format!("{name} {ty}"));
                let b = rng.gen_range(ty.min()..=ty.max());
                let x = Inputs {
                    a: rng.gen_range(ty.min()..=ty.max()),
                    b: if b == 0 { 1 } else { b },
                    s: 0,
                    c: false,
                };
                let row = super::pairs::row(name, ty, x, runs, (&pool, &client, &server))?;
                pb.finish_and_clear();
                if !json {
                    if rows.is_empty() {
                        crate::peer::print_params(params);
                    }
                    print_row(&row, threads, rows.is_empty());
                }
                rows.push(row);
                continue;
            }
            for op in ops_named(name, ty)? {
                let pb = spinner(&format!("{op} {ty}"));
                let mut b = rng.gen_range(ty.min()..=ty.max());
                if b == 0 {
                    b = 1;
                }
                // A logarithm's operand is positive (TFHE-rs' has no meaning otherwise).
                let low = if op == Op::Ilog2 { 1 } else { ty.min() };
                let x = Inputs {
                    a: rng.gen_range(low..=ty.max()),
                    b,
                    s: rng.gen_range(0..ty.bits as u32),
                    c: rng.gen(),
                };
                // The operands in each candidate form; the planner's fastest is timed.
                let mut best: Option<(Form, encint::typed::Plan, Vec<EncTyped>)> = None;
                for &f in &forms {
                    let enc = |v: i128, t: IntType| encrypt_typed_as(&client, v, t, f);
                    let (ea, eb) = (enc(x.a, ty)?, enc(x.b, ty)?);
                    let es = enc(i128::from(x.s), ty)?;
                    let ec = enc(i128::from(x.c), IntType::BOOL)?;
                    let args = match op {
                        Op::ShlVar | Op::ShrVar | Op::RotlVar | Op::RotrVar => {
                            vec![ea, es]
                        }
                        Op::Select => vec![ec, ea, eb],
                        _ if op.arity() == 1 => vec![ea],
                        _ => vec![ea, eb],
                    };
                    let refs: Vec<&EncTyped> = args.iter().collect();
                    let plan = server.typed_plan(op, &refs)?;
                    let key =
                        |p: &encint::typed::Plan| (p.chosen().rounds, p.chosen().cost.bootstraps);
                    if best.as_ref().is_none_or(|(_, b, _)| key(&plan) < key(b)) {
                        best = Some((f, plan, args));
                    }
                }
                let (in_form, plan, owned) =
                    best.ok_or_else(|| internal("no operand form to time"))?;
                let args: Vec<&EncTyped> = owned.iter().collect();
                let (times, (r, _)) = timed_runs(
                    runs,
                    || Ok(server.typed_apply(op, &args)?),
                    |(_, cost)| Ok(cost.bootstraps > HEAVY_BOOTSTRAPS),
                )?;
                let n = times.len();
                let ours_ms = median(times);
                let ours = decrypt_typed(&client, &r)?;
                let peer_ms = match op {
                    Op::Cast(to) => {
                        if ours != to.wrap(x.a) {
                            return Err(mismatch(format!("{op} {ty} on {x:?}: ours {ours}")));
                        }
                        None
                    }
                    _ => {
                        let p = pool
                            .install(|| time_typed_peer(op, ty, x, n))
                            .map_err(|e| e.about(&format!("{op} {ty}")))?;
                        let peer = op.result_type(ty).wrap(p.value);
                        if ours != peer {
                            return Err(mismatch(format!(
                                "{op} {ty} on {x:?}: ours {ours}, TFHE-rs {peer}"
                            )));
                        }
                        Some(p.median_ms)
                    }
                };
                pb.finish_and_clear();
                let chosen = plan.chosen();
                let row = Row {
                    op: op.to_string(),
                    ty,
                    form: in_form,
                    algorithm: format!("{:?}", chosen.algorithm).to_lowercase(),
                    ours_ms,
                    peer_ms,
                    pbs: chosen.cost.bootstraps,
                    depth: chosen.cost.depth,
                    rounds: chosen.rounds,
                };
                if !json {
                    if rows.is_empty() {
                        crate::peer::print_params(params);
                    }
                    print_row(&row, threads, rows.is_empty());
                }
                rows.push(row);
            }
        }
    }
    if json {
        print_json_rows(&rows, |r| {
            serde_json::json!({
                "op": r.op, "type": r.ty.to_string(), "threads": threads,
                "form": r.form.name(),
                "algorithm": r.algorithm, "ours_ms": r.ours_ms, "peer_ms": r.peer_ms,
                "ratio": r.ratio(), "pbs": r.pbs, "depth": r.depth, "rounds": r.rounds,
                "params": params.id(), "peer_params": crate::peer::peer_params().name(),
            })
        })?;
    }
    Ok(())
}

fn print_row(r: &Row, threads: usize, header: bool) {
    if header {
        let timing = timing_header();
        println!(
            "{:<16} {:>4} {:<9} {:<6} {timing} {:>6}",
            "op", "type", "form", "algo", "rounds"
        );
    }
    let ratio = match (r.peer_ms, r.ratio()) {
        (None, _) => "-".to_string(),
        (Some(_), None) => "<1ms".to_string(),
        (Some(_), Some(x)) => format!("{x:.2}"),
    };
    println!(
        "{:<16} {:>4} {:<9} {:<6} {} {:>6}",
        r.op,
        r.ty.to_string(),
        r.form.name(),
        r.algorithm,
        timing_cells(threads, (r.ours_ms, r.peer_ms), &ratio, (r.pbs, r.depth)),
        r.rounds
    );
}
