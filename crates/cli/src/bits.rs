//! `encint bits`: boolean circuits on TFHE (Trifan, Nicolau and Veidenbaum, "Enhancing the
//! Privacy of Machine Learning via faster arithmetic over Torus FHE"; Chen, Feng, Liu and
//! Wu, "Faster Binary Arithmetic Operations on Encrypted Integers"): cost rows from the clear
//! cost model, and benchmarks on real ciphertexts beside TFHE-rs `FheUint8/16/32`.

use clap::{Args, Subcommand};
use encint::arith::bits::BitKernel;
use encint::bit_circuits::run_bit_circuit;
use encint::circuit::bits::{fv, lower};
use encint::{ClientKey, Op, Server};
use rand::{Rng, SeedableRng};

use crate::error::{mismatch, usage};
use crate::ops_arg::OpsArg;
use crate::peer::uint::{time_peer_dot, time_peer_uint};
use crate::peer::PeerError;
use crate::progress::spinner;
use crate::timing::print_json;
use crate::CliResult;

/// `encint bits ...`.
#[derive(Subcommand)]
pub enum BitsCommand {
    /// Bootstraps and depth on TFHE, ciphertext products and multiplicative depth on FV,
    /// of each benchmark row, from the clear cost model (no keys, seconds). Rows
    /// (`--ops`): add, sub, mul, mul_full, dot, conv_v1, conv_v2, div, rem.
    Cost(CostArgs),
    /// Time the rows on real ciphertexts beside TFHE-rs FheUint8/16/32 (same process, same
    /// threads) and the 64-thread figures of Trifan, Nicolau and Veidenbaum. Rows
    /// (`--ops`): add, sub, mul, mul_full, dot, conv_v1, conv_v2, div, rem.
    Bench(BenchArgs),
}

/// Row selection shared by `cost` and `bench`: the circuits add, sub, mul, mul_full, dot,
/// conv_v1, conv_v2, div and rem.
#[derive(Args)]
pub struct Select {
    #[command(flatten)]
    ops: OpsArg,
    /// Widths in bits: only the rows of these widths run (the rows have 8, 16, 32, 64).
    #[arg(long, value_delimiter = ',', value_parser = row_width)]
    bits: Option<Vec<usize>>,
    /// Sizes `n` (vector length of `dot`, kernel or map side of `conv_v1` / `conv_v2`;
    /// the rows have 1, 5, 7, 16, 32, 64).
    #[arg(long, value_delimiter = ',', value_parser = row_size)]
    n: Option<Vec<usize>>,
    /// Print a JSON array instead of a table.
    #[arg(long)]
    json: bool,
}

/// `encint bits cost`.
#[derive(Args)]
pub struct CostArgs {
    #[command(flatten)]
    select: Select,
}

/// `encint bits bench`.
#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    select: Select,
    /// Threads for both encint and TFHE-rs (default: all cores; at most 4 per core).
    #[arg(long, default_value_t = crate::all_cores(), value_parser = crate::arg_values::threads)]
    threads: usize,
    /// Skip TFHE-rs.
    #[arg(long)]
    no_peer: bool,
    #[command(flatten)]
    params: crate::backend::ParamArgs,
}

/// One benchmark row: operation, width, size, the paper's 64-thread time (Trifan et
/// al., Tables I, III, V, VI; CSA+ternary / parallel CSA) where it has one.
#[derive(Clone, Copy)]
struct Row {
    op: BitKernel,
    bits: usize,
    n: usize,
    paper_ms: Option<f64>,
}

const fn row(op: BitKernel, bits: usize, n: usize, paper_ms: Option<f64>) -> Row {
    Row {
        op,
        bits,
        n,
        paper_ms,
    }
}

/// The benchmark rows: mul 8/16/32 (n-bit), add, dot of 16-bit vectors of length 16/32/64,
/// convolution V1 5x5 and 7x7 and V2 16x16 (single channel, 16-bit), division 8/16.
const ROWS: [Row; 22] = [
    row(BitKernel::Add, 8, 1, None),
    row(BitKernel::Add, 16, 1, None),
    row(BitKernel::Add, 32, 1, None),
    row(BitKernel::Sub, 16, 1, None),
    row(BitKernel::Mul, 8, 1, Some(630.0)),
    row(BitKernel::Mul, 16, 1, Some(1420.0)),
    row(BitKernel::Mul, 32, 1, Some(7140.0)),
    row(BitKernel::MulFull, 8, 1, None),
    row(BitKernel::MulFull, 16, 1, None),
    row(BitKernel::Dot, 16, 16, Some(11220.0)),
    row(BitKernel::Dot, 16, 32, Some(20630.0)),
    row(BitKernel::Dot, 16, 64, Some(47140.0)),
    row(BitKernel::Dot, 32, 16, Some(38070.0)),
    row(BitKernel::ConvV1, 16, 5, Some(24340.0)),
    row(BitKernel::ConvV1, 16, 7, Some(40610.0)),
    row(BitKernel::ConvV2, 16, 16, Some(211720.0)),
    row(BitKernel::Div, 8, 1, None),
    row(BitKernel::Div, 16, 1, None),
    row(BitKernel::Rem, 8, 1, None),
    row(BitKernel::Rem, 16, 1, None),
    row(BitKernel::Div, 32, 1, None),
    row(BitKernel::Mul, 64, 1, None),
];

/// The widths of the rows (`--bits`).
fn row_width(s: &str) -> Result<usize, String> {
    let mut widths: Vec<usize> = ROWS.iter().map(|r| r.bits).collect();
    widths.sort_unstable();
    widths.dedup();
    crate::arg_values::width_in(s, &widths, "the rows' widths")
}

/// The sizes of the rows (`--n`).
fn row_size(s: &str) -> Result<usize, String> {
    let mut sizes: Vec<usize> = ROWS.iter().map(|r| r.n).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let n = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a whole number"))?;
    if sizes.contains(&n) {
        return Ok(n);
    }
    let list: Vec<String> = sizes.iter().map(ToString::to_string).collect();
    Err(format!("size {n}: the rows' sizes are {}", list.join(", ")))
}

/// The rows `s` selects; none is an error naming the selection and the rows of the
/// operations asked for.
fn selected(s: &Select) -> Result<Vec<Row>, crate::error::CliError> {
    for name in &s.ops.ops {
        BitKernel::parse(name)?;
    }
    let rows: Vec<Row> = ROWS
        .iter()
        .copied()
        .filter(|r| s.ops.wants(r.op.name()))
        .filter(|r| s.bits.as_ref().is_none_or(|b| b.contains(&r.bits)))
        .filter(|r| s.n.as_ref().is_none_or(|n| n.contains(&r.n)))
        .collect();
    if rows.is_empty() {
        let list = |v: &[usize]| {
            let v: Vec<String> = v.iter().map(ToString::to_string).collect();
            v.join(",")
        };
        let mut asked = Vec::new();
        if !s.ops.ops.is_empty() {
            asked.push(format!("--ops {}", s.ops.ops.join(",")));
        }
        if let Some(b) = &s.bits {
            asked.push(format!("--bits {}", list(b)));
        }
        if let Some(n) = &s.n {
            asked.push(format!("--n {}", list(n)));
        }
        let have: Vec<String> = ROWS
            .iter()
            .filter(|r| s.ops.wants(r.op.name()))
            .map(|r| format!("{} {}-bit n={}", r.op.name(), r.bits, r.n))
            .collect();
        return Err(usage(format!(
            "no row matches {}; the rows of these operations: {}",
            asked.join(" "),
            have.join(", ")
        )));
    }
    Ok(rows)
}

/// Runs `encint bits ...`.
pub fn run(cmd: BitsCommand) -> CliResult {
    match cmd {
        BitsCommand::Cost(a) => cost(a),
        BitsCommand::Bench(a) => bench(a),
    }
}

fn cost(a: CostArgs) -> CliResult {
    let rows = selected(&a.select)?;
    let mut out = Vec::new();
    if !a.select.json {
        println!(
            "{:<9} {:>4} {:>4} {:>8} {:>6} {:>9} {:>10} {:>8}",
            "op", "bits", "n", "pbs", "depth", "bool_pbs", "fv_prod", "fv_depth"
        );
    }
    for r in rows {
        let c = r.op.circuit(r.bits, r.n)?;
        let tfhe = r.op.digit_circuit(r.bits, r.n)?.cost();
        let boolean = lower(&c)?.cost();
        let f = fv::cost(&c);
        if a.select.json {
            out.push(serde_json::json!({
                "op": r.op.name(), "bits": r.bits, "n": r.n,
                "pbs": tfhe.bootstraps, "depth": tfhe.depth,
                "bool_pbs": boolean.bootstraps, "bool_depth": boolean.depth,
                "fv_products": f.products, "fv_depth": f.depth,
            }));
        } else {
            println!(
                "{:<9} {:>4} {:>4} {:>8} {:>6} {:>9} {:>10} {:>8}",
                r.op.name(),
                r.bits,
                r.n,
                tfhe.bootstraps,
                tfhe.depth,
                boolean.bootstraps,
                f.products,
                f.depth
            );
        }
    }
    if a.select.json {
        print_json(&out)?;
    }
    Ok(())
}

/// TFHE-rs' time of a row (`n` terms for a dot product, `n²` for a `conv_v1` kernel), or
/// `None` where the row has no TFHE-rs counterpart.
fn time_peer_row(op: BitKernel, bits: u32, n: usize) -> Option<Result<f64, PeerError>> {
    let one = |op| Some(time_peer_uint(op, bits));
    match op {
        BitKernel::Add => one(Op::Add),
        BitKernel::Sub => one(Op::Sub),
        BitKernel::Mul => one(Op::Mul),
        BitKernel::Div => one(Op::Div),
        BitKernel::Rem => one(Op::Rem),
        BitKernel::Dot => Some(time_peer_dot(bits, n)),
        BitKernel::ConvV1 => Some(time_peer_dot(bits, n * n)),
        _ => None,
    }
}

fn bench(a: BenchArgs) -> CliResult {
    let rows = selected(&a.select)?;
    let params = a.params.resolve(None)?;
    let pool = crate::timing::pool(Some(a.threads))?;
    let pb = spinner("generating keys");
    let (client, key) = ClientKey::generate(params);
    let server = Server::with_threads(key, a.threads)?;
    if !a.no_peer {
        pool.install(crate::peer::init_peer_keys);
    }
    pb.finish_and_clear();
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut out = Vec::new();
    if !a.select.json {
        crate::peer::print_params(params);
        println!(
            "{:<9} {:>4} {:>4} {:>7} {:>11} {:>11} {:>6} {:>11} {:>7} {:>6} {:>5}",
            "op",
            "bits",
            "n",
            "threads",
            "ours ms",
            "TFHE-rs ms",
            "ratio",
            "paper ms",
            "ratio",
            "pbs",
            "depth"
        );
    }
    for r in rows {
        let pb = spinner(&format!("{} {}-bit n={}", r.op.name(), r.bits, r.n));
        let circuit = r.op.circuit(r.bits, r.n)?;
        let digits = r.op.digit_circuit(r.bits, r.n)?;
        let words = r.op.input_words(r.n);
        let m = if r.bits >= 128 {
            u128::MAX
        } else {
            (1u128 << r.bits) - 1
        };
        let values: Vec<u128> = (0..words).map(|_| rng.gen::<u128>() & m).collect();
        let run = run_bit_circuit(&client, &server, &digits, &values, r.bits)?;
        let (ours_ms, cost) = (run.seconds * 1e3, run.cost);
        // Check the result against the clear run of the same circuit.
        let clear_in: Vec<bool> = values
            .iter()
            .flat_map(|&v| encint::arith::bits::to_bits(v, r.bits))
            .collect();
        // Bit by bit: conv_v2's result is wider than 128 bits.
        let want = circuit.eval(&clear_in)?;
        if want != run.bits {
            return Err(mismatch(format!(
                "{} {}-bit: wrong result",
                r.op.name(),
                r.bits
            )));
        }
        let peer_ms = if !a.no_peer && matches!(r.bits, 8 | 16 | 32) {
            pool.install(|| time_peer_row(r.op, r.bits as u32, r.n))
                .transpose()?
        } else {
            None
        };
        pb.finish_and_clear();
        let ratio = |x: Option<f64>| x.map(|p| ours_ms / p);
        if a.select.json {
            out.push(serde_json::json!({
                "op": r.op.name(), "bits": r.bits, "n": r.n, "threads": a.threads,
                "ours_ms": ours_ms, "peer_ms": peer_ms, "paper_ms": r.paper_ms,
                "pbs": cost.bootstraps, "depth": cost.depth,
                "params": params.id(), "peer_params": crate::peer::peer_params().name(),
            }));
        } else {
            let f = |x: Option<f64>, p: usize| {
                x.map(|v| format!("{v:.p$}")).unwrap_or_else(|| "-".into())
            };
            println!(
                "{:<9} {:>4} {:>4} {:>7} {:>11.1} {:>11} {:>6} {:>11} {:>7} {:>6} {:>5}",
                r.op.name(),
                r.bits,
                r.n,
                a.threads,
                ours_ms,
                f(peer_ms, 1),
                f(ratio(peer_ms), 2),
                f(r.paper_ms, 0),
                f(ratio(r.paper_ms), 3),
                cost.bootstraps,
                cost.depth
            );
        }
    }
    if a.select.json {
        print_json(&out)?;
    }
    Ok(())
}
