//! `encint bench` of the digit operations, on the backend `--backend` names. Every result is
//! decrypted and checked against plain arithmetic. Here (CPU, GPU) each row is timed beside
//! TFHE-rs' `FheInt8/16/32`; under MPI each row reports the job's traffic instead.

use encint::{encrypt, ClientKey, Op, Server};
use rand::{Rng, SeedableRng};
use serde_json::json;

use super::{timing_cells, timing_header, BenchArgs, HEAVY_BOOTSTRAPS};
use crate::backend::{with_digits, BackendKind, DigitSetup, Exec, Traffic};
use crate::error::{internal, mismatch, usage};
use crate::peer::int::{init_peer_keys, time_peer};
use crate::progress::spinner;
use crate::timing::{median, pool, print_json, timed_runs};
use crate::{oracle, AnyResult, CliResult};

/// One operation of a row: ours, its argument, TFHE-rs' counterpart and what is compared.
struct Case {
    op: Op,
    arg: Option<i64>,
    peer: Option<Op>,
    compare: &'static str,
}

const EXACT: &str = "ours exact, peer wrapping";
const PRODUCT: &str = "ours exact 2n-bit product, peer wrapping n-bit";
const LOW: &str = "both wrapping n-bit products";
const SQUARE: &str = "ours exact, peer wrapping a*a";

/// `--ops` names: our operation, TFHE-rs' counterpart, what the comparison is.
const OPS: &[(&str, Op, Option<Op>, &str)] = &[
    ("add", Op::Add, Some(Op::Add), EXACT),
    ("sub", Op::Sub, Some(Op::Sub), EXACT),
    ("mul", Op::Mul, Some(Op::Mul), PRODUCT),
    ("mul_low", Op::MulLow, Some(Op::Mul), LOW),
    ("squ", Op::Square, Some(Op::Square), SQUARE),
    ("sgn", Op::Signum, Some(Op::Signum), "peer: (a>0)-(a<0)"),
    ("max", Op::Max, Some(Op::Max), "same result"),
    ("round", Op::Round(5), None, "no TFHE-rs equivalent"),
];

/// The operations `name` stands for: one per scalar for `scalar_mul`. Under MPI (no peer)
/// every operation `encint eval` knows, `scalar_mul` with the first scalar.
fn cases(name: &str, scalars: &[i64], mpi: bool) -> AnyResult<Vec<Case>> {
    let peerless = |op| Case {
        op,
        arg: None,
        peer: None,
        compare: "",
    };
    if name == "scalar_mul" {
        if mpi {
            return Ok(vec![peerless(Op::ScalarMul(
                scalars.first().copied().unwrap_or(805).into(),
            ))]);
        }
        return Ok(scalars
            .iter()
            .map(|&k| Case {
                op: Op::ScalarMul(k.into()),
                arg: Some(k),
                peer: Some(Op::ScalarMul(k.into())),
                compare: EXACT,
            })
            .collect());
    }
    match OPS.iter().find(|r| r.0 == name) {
        Some(&(_, op, peer, compare)) => Ok(vec![Case {
            op,
            arg: match op {
                Op::Round(i) => i64::try_from(i).ok(),
                _ => None,
            },
            peer,
            compare,
        }]),
        None if mpi => Ok(vec![peerless(Op::parse(name, None)?)]),
        None => {
            let known: Vec<&str> = OPS.iter().map(|r| r.0).collect();
            Err(usage(format!(
                "unknown operation `{name}` (known: {}, scalar_mul)",
                known.join(", ")
            )))
        }
    }
}

/// One timed row.
struct Row {
    op: String,
    bits: u32,
    arg: Option<i64>,
    ours_ms: f64,
    peer_ms: Option<f64>,
    pbs: u64,
    depth: u32,
    compare: &'static str,
    /// Under MPI: communication over compute, and bytes per run.
    traffic: Option<(f64, u64)>,
}

/// `encint bench` without `--typed`.
pub fn run(a: &BenchArgs, params: &'static encint::keys::DigitParameters) -> CliResult {
    let mpi = a.backend.backend == BackendKind::Mpi;
    if !mpi {
        super::check_widths(
            &a.bits,
            &[8, 16, 32],
            "the widths of TFHE-rs' FheInt8/16/32",
        )?;
    }
    // Every row is known before any key exists.
    for name in &a.ops {
        cases(name, &a.scalars, mpi)?;
    }
    let setup = DigitSetup::fresh(params, Some(a.threads));
    with_digits(&a.backend, setup, |server, client, exec| {
        let client = client.ok_or_else(|| internal("fresh keys come with a client key"))?;
        let rows = rows(a, params, server, client, exec, mpi)?;
        if mpi {
            print_traffic_rows(a, &rows, exec.traffic().unwrap_or_default())
        } else if a.json {
            print_json(
                &rows
                    .iter()
                    .map(|r| peer_json(a, params, r))
                    .collect::<Vec<_>>(),
            )
        } else {
            Ok(())
        }
    })
}

fn rows(
    a: &BenchArgs,
    params: &encint::keys::DigitParameters,
    server: &Server,
    client: &ClientKey,
    exec: &dyn Exec,
    mpi: bool,
) -> AnyResult<Vec<Row>> {
    let pool = pool(Some(a.threads))?;
    if !mpi {
        let pb = spinner("generating TFHE-rs keys");
        pool.install(init_peer_keys);
        pb.finish_and_clear();
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut rows: Vec<Row> = Vec::new();
    for &bits in &a.bits {
        let lim = (1i128 << (bits - 1)) - 1;
        for name in &a.ops {
            for case in cases(name, &a.scalars, mpi)? {
                let pb = spinner(&format!(
                    "{name} {bits}-bit {}",
                    case.arg.map(|v| v.to_string()).unwrap_or_default()
                ));
                let (x, y) = (rng.gen_range(-lim..=lim), rng.gen_range(-lim..=lim));
                let ex = encrypt(client, x, bits as usize)?;
                let ey = encrypt(client, y, bits as usize)?;
                let args = oracle::operands(case.op, &ex, &ey);
                let before = exec.traffic();
                let (times, (_, cost)) = timed_runs(
                    a.runs,
                    || Ok(exec.apply(server, case.op, &args)?),
                    |(out, cost)| {
                        let got = encint::decrypt(client, out)?;
                        if !oracle::agrees(case.op, got, x, y, bits as usize) {
                            let want = oracle::plain(case.op, x, y, bits as usize);
                            return Err(mismatch(format!(
                                "{name} {bits} bits: decrypted {got}, expected {want:?}"
                            )));
                        }
                        Ok(cost.bootstraps > HEAVY_BOOTSTRAPS)
                    },
                )?;
                let runs = times.len();
                let traffic = before.zip(exec.traffic()).map(|(b, e)| per_run(b, e, runs));
                let peer_ms = match case.peer {
                    Some(p) if !mpi => Some(pool.install(|| time_peer(p, bits, runs))?.median_ms),
                    _ => None,
                };
                pb.finish_and_clear();
                let row = Row {
                    op: name.clone(),
                    bits,
                    arg: case.arg,
                    ours_ms: median(times),
                    peer_ms,
                    pbs: cost.bootstraps,
                    depth: cost.depth,
                    compare: case.compare,
                    traffic,
                };
                if !a.json && !mpi {
                    if rows.is_empty() {
                        crate::peer::print_params(params);
                    }
                    print_peer_row(&row, a.threads, rows.is_empty());
                }
                rows.push(row);
            }
        }
    }
    Ok(rows)
}

/// Communication over compute between two snapshots, and bytes per run.
fn per_run(before: Traffic, after: Traffic, runs: usize) -> (f64, u64) {
    let ratio = (after.comm_s - before.comm_s) / (after.compute_s - before.compute_s).max(1e-9);
    (ratio, (after.bytes - before.bytes) / runs as u64)
}

fn peer_json(a: &BenchArgs, params: &encint::keys::DigitParameters, r: &Row) -> serde_json::Value {
    json!({
        "op": r.op, "bits": r.bits, "arg": r.arg, "threads": a.threads,
        "ours_ms": r.ours_ms, "peer_ms": r.peer_ms,
        "ratio": r.peer_ms.map(|p| r.ours_ms / p),
        "pbs": r.pbs, "depth": r.depth, "compare": r.compare,
        "params": params.id(), "peer_params": crate::peer::peer_params().name(),
    })
}

fn print_peer_row(r: &Row, threads: usize, header: bool) {
    if header {
        let timing = timing_header();
        println!("{:<10} {:>4} {:>6} {timing}  compared", "op", "bits", "arg");
    }
    let ratio = r
        .peer_ms
        .map_or_else(|| "-".into(), |p| format!("{:.2}", r.ours_ms / p));
    println!(
        "{:<10} {:>4} {:>6} {}  {}",
        r.op,
        r.bits,
        r.arg.map(|v| v.to_string()).unwrap_or_default(),
        timing_cells(threads, (r.ours_ms, r.peer_ms), &ratio, (r.pbs, r.depth)),
        r.compare
    );
}

/// The rows of an MPI job: time on the whole job and its traffic.
fn print_traffic_rows(a: &BenchArgs, rows: &[Row], job: Traffic) -> CliResult {
    let json: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let (ratio, bytes) = r.traffic.unwrap_or_default();
            json!({
                "op": r.op, "bits": r.bits, "ranks": job.ranks, "threads": job.threads,
                "ms": r.ours_ms, "pbs": r.pbs, "depth": r.depth,
                "comm_compute": ratio, "bytes_per_run": bytes,
            })
        })
        .collect();
    if a.json {
        return print_json(&json);
    }
    println!(
        "{:<10} {:>4} {:>5} {:>7} {:>10} {:>6} {:>6} {:>10} {:>10}",
        "op", "bits", "ranks", "threads", "ms", "pbs", "depth", "comm/comp", "MiB/run"
    );
    for r in rows {
        let (ratio, bytes) = r.traffic.unwrap_or_default();
        println!(
            "{:<10} {:>4} {:>5} {:>7} {:>10.1} {:>6} {:>6} {:>10.4} {:>10.1}",
            r.op,
            r.bits,
            job.ranks,
            job.threads,
            r.ours_ms,
            r.pbs,
            r.depth,
            ratio,
            bytes as f64 / 1048576.0
        );
    }
    println!("every result decrypted to the plain-arithmetic value");
    Ok(())
}
