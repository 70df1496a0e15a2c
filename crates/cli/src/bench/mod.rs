//! `encint bench`: our operations on real ciphertexts beside the TFHE-rs high-level API,
//! same process, same thread count: the digit operations (`digit`) or, with `--typed`, the
//! TFHE-rs-like typed ones (`typed`), or whole programs (`workloads`).

mod digit;
mod pairs;
mod row;
mod typed;
mod workloads;

pub use workloads::print_costs as print_workload_costs;

use clap::Args;

use crate::backend::BackendKind;
use crate::error::usage;

/// Rows above this many bootstraps run once (`--runs`).
const HEAVY_BOOTSTRAPS: u64 = 1500;
use crate::CliResult;

/// `encint bench`.
#[derive(Args)]
pub struct BenchArgs {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Threads for both encint and TFHE-rs (default: all cores; at most 4 per core).
    #[arg(long, default_value_t = crate::all_cores(), value_parser = crate::arg_values::threads)]
    pub threads: usize,
    /// Widths in bits: 8, 16, 32 (TFHE-rs' FheInt8/16/32); with --typed also 64; with
    /// --backend mpi (no TFHE-rs rows) any width from 2 to 64.
    #[arg(long, value_delimiter = ',', default_value = "8,16,32", value_parser = width)]
    pub bits: Vec<u32>,
    /// Operations: add, sub, mul (ours exact vs TFHE-rs wrapping), mul_low (both
    /// wrapping: like with like), scalar_mul, squ, sgn, max, round.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "add,sub,mul,mul_low,scalar_mul,squ,sgn,max,round"
    )]
    pub ops: Vec<String>,
    /// Scalars for scalar_mul.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "4095,4097,4096,805,3195",
        allow_hyphen_values = true
    )]
    pub scalars: Vec<i64>,
    /// Timed runs per row (medians, at least 1); rows above 1500 bootstraps run once,
    /// except with --workloads, where every workload runs this many times on each side.
    #[arg(long, default_value_t = 3, value_parser = crate::arg_values::count)]
    pub runs: usize,
    /// Typed (TFHE-rs-like, wrapping) operations instead of --ops, beside TFHE-rs'
    /// FheInt/FheUint of the same width (8, 16, 32, 64), operands in the form of --form:
    /// add, sub, neg, mul, squ, scalar_mul, and, or, xor, not, shl, shr, rotl, rotr,
    /// shl_var, shr_var, rotl_var, rotr_var, select, min, max, lt, le, gt, ge, eq, ne,
    /// div, rem, div_scalar, rem_scalar, count_ones, count_zeros, leading_zeros,
    /// leading_ones, trailing_zeros, trailing_ones, ilog2, reverse_bits, cast, or all; and
    /// the operations of two results (the family's methods, always on radix-4 operands):
    /// overflowing_add, overflowing_sub, overflowing_mul, div_rem, match_value (a table of
    /// four entries; unsigned types, as TFHE-rs has it). Rows whose two times are both
    /// below 1 ms get no ratio.
    #[arg(long, value_delimiter = ',')]
    pub typed: Vec<String>,
    /// With --typed: signed (i: FheInt) and/or unsigned (u: FheUint) types.
    #[arg(long, value_delimiter = ',', default_value = "i,u")]
    pub types: Vec<String>,
    /// Whole programs instead of single operations, each compiled into one circuit and
    /// run beside the same program written with TFHE-rs' high-level API (operators one
    /// after another, its `sum`, rayon over independent operations), on the same random
    /// inputs, both results checked against plain arithmetic: sum16_u16 (a sum of 16
    /// u16), dot32_u16 (a dot product of 32 u16 pairs), horner_u16 (((3x+7)x+11)x+5),
    /// sort8_u8 (8 u8 through an odd-even transposition network of min/max),
    /// mean_var16_u16 (sum and sum of squares of 16 u16 in u32), hash_u32 (8 rounds of
    /// x = ((x ^ (x >> 7)) * 0x9E37 + (x << 3)) ^ key), matmul4_u8 (a 4x4 by 4x4 u8
    /// matrix product), mlp_u8 (a dense layer 16 -> 8, u8 weights and inputs, u16 sums,
    /// ReLU of each sum read as an i16), or all (the default when no list follows). Each prints our time, TFHE-rs'
    /// time, the ratio, and our circuit's bootstraps and depth.
    #[arg(
        long,
        value_delimiter = ',',
        num_args = 0..=1,
        default_missing_value = "all",
        conflicts_with = "typed"
    )]
    pub workloads: Option<Vec<String>>,
    /// With --typed: the form the operands are encrypted in: radix4 (two-bit blocks, like
    /// TFHE-rs' radix ciphertexts: what `encrypt` gives, so the rows time values as a user
    /// holds them), canonical (one bit per digit, `encrypt_as` with `Form::Canonical`), or
    /// auto (per row, the one whose planned circuit has the lowest estimated time at
    /// --threads: a best case, not what freshly encrypted values are in).
    #[arg(long, default_value = "radix4", value_parser = ["auto", "canonical", "radix4"])]
    pub form: String,
    /// Our rows on this backend (TFHE-rs stays on the CPU here; `encint gpu bench` puts
    /// TFHE-rs on the GPU too).
    #[command(flatten)]
    pub backend: crate::backend::BackendArgs,
    #[command(flatten)]
    pub params: crate::backend::ParamArgs,
}

/// A width of `--bits`: 2 to 64 (each mode checks its own set before any key exists).
fn width(s: &str) -> Result<u32, String> {
    let n = crate::arg_values::in_range(s, 2, 64)?;
    u32::try_from(n).map_err(|e| e.to_string())
}

/// Errors unless every width of `bits` is one of `allowed` (`what` names whose they are).
fn check_widths(bits: &[u32], allowed: &[u32], what: &str) -> CliResult {
    match bits.iter().find(|b| !allowed.contains(b)) {
        Some(b) => {
            let list: Vec<String> = allowed.iter().map(ToString::to_string).collect();
            Err(usage(format!("--bits {b}: {what} are {}", list.join(", "))))
        }
        None => Ok(()),
    }
}

/// Runs `encint bench`.
pub fn bench(a: BenchArgs) -> CliResult {
    if (!a.typed.is_empty() || a.workloads.is_some()) && a.backend.backend != BackendKind::Cpu {
        return Err(usage("--typed and --workloads run on the CPU backend only"));
    }
    let params = a.params.resolve(Some(&a.backend))?;
    if let Some(names) = &a.workloads {
        return workloads::run(&a, names, params);
    }
    if !a.typed.is_empty() {
        return typed::run(&a, params);
    }
    digit::run(&a, params)
}

/// The pool of `threads` threads, our keys of `params` with a server on that many threads,
/// and TFHE-rs' keys installed on the pool: what a bench of both libraries runs on.
fn keys_and_pool(
    params: &'static encint::keys::DigitParameters,
    threads: usize,
) -> crate::AnyResult<(rayon::ThreadPool, encint::ClientKey, encint::Server)> {
    let pool = crate::timing::pool(Some(threads))?;
    let pb = crate::progress::spinner("generating keys (ours and TFHE-rs)");
    let (client, key) = encint::ClientKey::generate(params);
    let server = encint::Server::with_threads(key, threads)?;
    pool.install(crate::peer::init_peer_keys);
    pb.finish_and_clear();
    Ok((pool, client, server))
}

/// The header of the columns both bench tables share (see [`timing_cells`]).
fn timing_header() -> String {
    format!(
        "{:>7} {:>10} {:>10} {:>7} {:>6} {:>5}",
        "threads", "ours ms", "peer ms", "ratio", "pbs", "depth"
    )
}

/// The columns both bench tables share: threads, our time, TFHE-rs' time, their ratio,
/// bootstraps and depth.
fn timing_cells(
    threads: usize,
    (ours_ms, peer_ms): (f64, Option<f64>),
    ratio: &str,
    (pbs, depth): (u64, u32),
) -> String {
    format!(
        "{threads:>7} {ours_ms:>10.1} {:>10} {ratio:>7} {pbs:>6} {depth:>5}",
        crate::timing::ms_or_dash(peer_ms)
    )
}
