//! `encint bench`: our operations on real ciphertexts beside the TFHE-rs
//! high-level API (`FheInt8/16/32`), same process, same thread count.

use std::time::Instant;

use crate::peer::{init_peer_keys, time_peer, PeerOp};
use clap::Args;
use encint::{encrypt, ClientKey, EncInt, Op, Server};
use rand::{Rng, SeedableRng};

use crate::crypto_cmds::spinner;
use crate::CliResult;

/// `encint bench`.
#[derive(Args)]
pub struct BenchArgs {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
    /// Threads for both us and TFHE-rs.
    #[arg(long, default_value_t = 2)]
    pub(crate) threads: usize,
    /// Widths in bits (8, 16, 32).
    #[arg(long, value_delimiter = ',', default_value = "8,16,32")]
    pub(crate) bits: Vec<u32>,
    /// Operations: add, sub, mul (ours exact vs TFHE-rs wrapping), mul_low (both
    /// wrapping: like with like), scalar_mul, squ, sgn, max, round.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "add,sub,mul,mul_low,scalar_mul,squ,sgn,max,round"
    )]
    pub(crate) ops: Vec<String>,
    /// Scalars for scalar_mul.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "4095,4097,4096,805,3195",
        allow_hyphen_values = true
    )]
    pub(crate) scalars: Vec<i64>,
    /// Timed runs per row (medians); rows above 1500 bootstraps run once.
    #[arg(long, default_value_t = 3)]
    pub(crate) runs: usize,
    /// Typed (TFHE-rs-like, wrapping) operations instead of --ops, beside TFHE-rs'
    /// FheInt/FheUint of the same width (8, 16, 32, 64), each in the planner's form:
    /// add, sub, neg, mul, squ, scalar_mul, and, or, xor, not, shl, shr, rotl, rotr,
    /// shl_var, shr_var, rotl_var, rotr_var, select, min, max, lt, le, gt, ge, eq, ne,
    /// div, rem, div_scalar, rem_scalar, cast, or all. Rows whose two times are both
    /// below 1 ms get no ratio.
    #[arg(long, value_delimiter = ',')]
    pub(crate) typed: Vec<String>,
    /// With --typed: signed (i: FheInt) and/or unsigned (u: FheUint) types.
    #[arg(long, value_delimiter = ',', default_value = "i,u")]
    pub(crate) types: Vec<String>,
    /// With --typed: the form the operands are encrypted in: canonical (one bit per
    /// digit), radix4 (two-bit blocks, like TFHE-rs' radix ciphertexts), or auto (per
    /// row, the one whose planned circuit has the lowest estimated time at --threads).
    #[arg(long, default_value = "auto", value_parser = ["auto", "canonical", "radix4"])]
    pub(crate) form: String,
    /// Our rows on this backend (TFHE-rs stays on the CPU here; `encint gpu bench` puts
    /// TFHE-rs on the GPU too).
    #[command(flatten)]
    pub(crate) backend: crate::backend_args::BackendArgs,
    #[command(flatten)]
    pub(crate) params: crate::backend_args::ParamArgs,
}

struct Row {
    op: String,
    bits: u32,
    arg: Option<i64>,
    ours_ms: f64,
    peer_ms: Option<f64>,
    pbs: u64,
    depth: u32,
    compare: &'static str,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub fn bench(a: BenchArgs) -> CliResult {
    if !a.typed.is_empty() && a.backend.backend != crate::backend_args::BackendKind::Cpu {
        return Err("--typed runs on the CPU backend only".into());
    }
    let params = a.params.resolve(Some(&a.backend))?;
    if a.backend.wants_mpi()? {
        return crate::mpi_cmds::bench(&a, params);
    }
    if a.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    if !a.typed.is_empty() {
        return crate::typed_bench::run(&a, params);
    }
    encint::check_threads(a.threads)?;
    a.backend.check()?;
    for &b in &a.bits {
        if !matches!(b, 8 | 16 | 32) {
            return Err(format!("unsupported width {b}: TFHE-rs has FheInt8/16/32").into());
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads)
        .build()?;
    let pb = spinner("generating keys (ours and TFHE-rs)");
    let (client, key) = ClientKey::generate(params);
    let server = Server::with_threads(key, a.threads)?.with_backend(a.backend.in_process())?;
    pool.install(init_peer_keys);
    pb.finish_and_clear();
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut rows: Vec<Row> = Vec::new();
    for &bits in &a.bits {
        let lim = (1i128 << (bits - 1)) - 1;
        for name in &a.ops {
            let cases: Vec<(Op, Option<i64>, Option<PeerOp>, &'static str)> = match name.as_str() {
                "add" => vec![(
                    Op::Add,
                    None,
                    Some(PeerOp::Add),
                    "ours exact, peer wrapping",
                )],
                "sub" => vec![(
                    Op::Sub,
                    None,
                    Some(PeerOp::Sub),
                    "ours exact, peer wrapping",
                )],
                "mul" => vec![(
                    Op::Mul,
                    None,
                    Some(PeerOp::Mul),
                    "ours exact 2n-bit product, peer wrapping n-bit",
                )],
                "mul_low" => vec![(
                    Op::MulLow,
                    None,
                    Some(PeerOp::Mul),
                    "both wrapping n-bit products",
                )],
                "scalar_mul" => a
                    .scalars
                    .iter()
                    .map(|&k| {
                        (
                            Op::ScalarMul(k),
                            Some(k),
                            Some(PeerOp::ScalarMul),
                            "ours exact, peer wrapping",
                        )
                    })
                    .collect(),
                "squ" => vec![(
                    Op::Square,
                    None,
                    Some(PeerOp::Square),
                    "ours exact, peer wrapping a*a",
                )],
                "sgn" => vec![(Op::Signum, None, Some(PeerOp::Signum), "peer: (a>0)-(a<0)")],
                "max" => vec![(Op::Max, None, Some(PeerOp::Max), "same result")],
                "round" => vec![(Op::Round(5), Some(5), None, "no TFHE-rs equivalent")],
                other => return Err(format!("unknown operation `{other}`").into()),
            };
            for (op, arg, peer, compare) in cases {
                let pb = spinner(&format!(
                    "{name} {bits}-bit {}",
                    arg.map(|v| v.to_string()).unwrap_or_default()
                ));
                let x = rng.gen_range(-lim..=lim);
                let y = rng.gen_range(-lim..=lim);
                let ex = encrypt(&client, x, bits as usize)?;
                let ey = encrypt(&client, y, bits as usize)?;
                let args: Vec<&EncInt> = if op.arity() == 1 {
                    vec![&ex]
                } else {
                    vec![&ex, &ey]
                };
                let mut times = Vec::new();
                let mut cost = None;
                let mut runs = a.runs;
                let mut i = 0;
                while i < runs {
                    let t = Instant::now();
                    let (_, c) = server.apply(op, &args)?;
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    if c.bootstraps > 1500 {
                        runs = 1;
                    }
                    cost = Some(c);
                    i += 1;
                }
                let cost = cost.expect("at least one run");
                let peer_ms = match peer {
                    Some(p) => {
                        let r = pool.install(|| time_peer(p, bits, arg, runs))?;
                        Some(r.median_ms)
                    }
                    None => None,
                };
                pb.finish_and_clear();
                let row = Row {
                    op: name.clone(),
                    bits,
                    arg,
                    ours_ms: median(times),
                    peer_ms,
                    pbs: cost.bootstraps,
                    depth: cost.depth,
                    compare,
                };
                if !a.json {
                    if rows.is_empty() {
                        crate::peer::print_params(params);
                    }
                    print_row(&row, a.threads, rows.is_empty());
                }
                rows.push(row);
            }
        }
    }
    if a.json {
        let arr: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "op": r.op, "bits": r.bits, "arg": r.arg, "threads": a.threads,
                    "ours_ms": r.ours_ms, "peer_ms": r.peer_ms,
                    "ratio": r.peer_ms.map(|p| r.ours_ms / p),
                    "pbs": r.pbs, "depth": r.depth, "compare": r.compare,
                    "params": params.id(), "peer_params": crate::peer::peer_params().name(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&arr)?);
    }
    Ok(())
}

fn print_row(r: &Row, threads: usize, header: bool) {
    if header {
        println!(
            "{:<10} {:>4} {:>6} {:>7} {:>10} {:>10} {:>7} {:>6} {:>5}  compared",
            "op", "bits", "arg", "threads", "ours ms", "peer ms", "ratio", "pbs", "depth",
        );
    }
    let ratio = r
        .peer_ms
        .map(|p| format!("{:.2}", r.ours_ms / p))
        .unwrap_or_else(|| "-".into());
    println!(
        "{:<10} {:>4} {:>6} {:>7} {:>10.1} {:>10} {:>7} {:>6} {:>5}  {}",
        r.op,
        r.bits,
        r.arg.map(|v| v.to_string()).unwrap_or_default(),
        threads,
        r.ours_ms,
        r.peer_ms
            .map(|p| format!("{p:.1}"))
            .unwrap_or_else(|| "-".into()),
        ratio,
        r.pbs,
        r.depth,
        r.compare
    );
}
