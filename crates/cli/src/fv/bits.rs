//! `encint fv bits bench`: the rows of Chen, Feng, Liu and Wu, "Faster Binary Arithmetic
//! Operations on Encrypted Integers" (bit-sliced binary arithmetic on FV, every
//! slot one integer) timed at the 128-bit set the circuit's depth picks, beside the
//! paper's figures and HElib's measured here (docs/BENCHMARKS.md). Results go to stdout,
//! progress to stderr.

use std::collections::HashMap;
use std::time::Instant;

use encint::arith::bits::{leveled, leveled::Adder, Word};
use encint::circuit::bits::{BitBuilder, BitCircuit};
use encint::fv::FvError;
use encint::fv_bits::{choose_set, FvBitsClientKey, FvBitsError, FvBitsServerKey, FvProgram};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::ops_arg::OpsArg;

/// `encint fv bits` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum BitsCommand {
    /// Time the rows of Chen, Feng, Liu and Wu (add 16 ripple/prefix, add 64, sub 16/64,
    /// mul 8/16, div 4/8/16)
    /// on full random batches; each result is decrypted and checked against u64
    /// arithmetic (not timed). Rows deeper than every 128-bit set are listed as refused.
    /// Operations (`--ops`): add, sub, mul, div.
    Bench(BitsBenchArgs),
}

/// Arguments of `encint fv bits bench`.
#[derive(clap::Args, Debug)]
pub struct BitsBenchArgs {
    /// Print a JSON array (keys op, bits, adder, slots, threads, ms, ms_per_slot, depth,
    /// products, set, paper_ms_per_slot, helib_ms_per_slot, status) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Rayon threads for the products of a level (default: all cores; at most 4 per core).
    #[arg(long, value_parser = crate::arg_values::threads)]
    pub threads: Option<usize>,
    /// Which operations (`--ops add,div`: add, sub, mul, div; default: all).
    #[command(flatten)]
    pub ops: OpsArg,
    /// Widths to run, comma-separated, of the rows' 4, 8, 16, 64 (default: every row).
    #[arg(long, value_delimiter = ',', value_parser = row_width)]
    pub bits: Vec<usize>,
    /// Integers per batch (default: every slot of the chosen set; at least 1).
    #[arg(long, value_parser = crate::arg_values::count)]
    pub slots: Option<usize>,
}

/// One row.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BitsRow {
    /// add, sub, mul, div.
    pub op: String,
    /// Width.
    pub bits: usize,
    /// ripple or sklansky (the adder inside the circuit).
    pub adder: String,
    /// Integers in the batch.
    pub slots: usize,
    /// Rayon threads.
    pub threads: usize,
    /// Wall-clock milliseconds of the homomorphic evaluation of the batch (keys,
    /// encryption and decryption excluded).
    pub ms: Option<f64>,
    /// `ms / slots`.
    pub ms_per_slot: Option<f64>,
    /// CPU time of the whole process (all threads) during the evaluation, in ms: on a
    /// shared, loaded machine `cpu_ms / threads` is what the wall clock would show alone.
    pub cpu_ms: Option<f64>,
    /// Multiplicative depth.
    pub depth: u32,
    /// Ciphertext products (each with relinearisation).
    pub products: u64,
    /// 128-bit FV set chosen from the depth (empty when refused).
    pub set: String,
    /// Chen, Feng, Liu and Wu (HElib, 8 threads, lambda = 80), ms per slot, where the paper
    /// has the row.
    pub paper_ms_per_slot: Option<f64>,
    /// HElib 2.2.0 measured here (2 threads), ms per slot (ANCHORS.md), where it exists.
    pub helib_ms_per_slot: Option<f64>,
    /// `ok` (run and checked) or why it was not run.
    pub status: String,
}

struct Spec {
    op: &'static str,
    bits: usize,
    adder: Adder,
    paper: Option<f64>,
    helib: Option<f64>,
}

fn specs() -> Vec<Spec> {
    let s = |op, bits, adder, paper, helib| Spec {
        op,
        bits,
        adder,
        paper,
        helib,
    };
    vec![
        // Paper: 1.16 s / 504 slots; HElib here: 11.6 s / 504.
        s("add", 16, Adder::Ripple, Some(1160.0 / 504.0), Some(22.9)),
        // Paper (CLA): 2.05 s / 150 slots.
        s("add", 16, Adder::Sklansky, Some(2050.0 / 150.0), Some(22.9)),
        // Paper (CLA): 24.36 s / 600; HElib here: 194 s / 600.
        s(
            "add",
            64,
            Adder::Sklansky,
            Some(24360.0 / 600.0),
            Some(323.0),
        ),
        s("sub", 16, Adder::Sklansky, None, None),
        s("sub", 64, Adder::Sklansky, None, None),
        // Paper: 2.63 s / 630; HElib here: 9.0 s / 630.
        s("mul", 8, Adder::Sklansky, Some(2630.0 / 630.0), Some(14.3)),
        // Paper: 29.34 s / 504; HElib here: 81 s / 504.
        s(
            "mul",
            16,
            Adder::Sklansky,
            Some(29340.0 / 504.0),
            Some(161.0),
        ),
        // Paper: 7.74 s / 720 (HElib has no division).
        s("div", 4, Adder::Sklansky, Some(7740.0 / 720.0), None),
        s("div", 8, Adder::Sklansky, None, None),
        s("div", 16, Adder::Sklansky, None, None),
    ]
}

/// A width of `--bits`: one of the rows' widths.
fn row_width(s: &str) -> Result<usize, String> {
    let mut widths: Vec<usize> = specs().iter().map(|r| r.bits).collect();
    widths.sort_unstable();
    widths.dedup();
    crate::arg_values::width_in(s, &widths, "the rows' widths")
}

/// The rows `args` selects (every name and width checked, and at least one row), before
/// any key exists.
fn selected(args: &BitsBenchArgs) -> Result<Vec<Spec>, FvError> {
    if let Some(o) = args.ops.unknown(&["add", "sub", "mul", "div"]) {
        return Err(FvError::UnknownName {
            kind: "operation (add, sub, mul, div)",
            name: o.to_string(),
        });
    }
    if let Some(b) = args.bits.iter().find(|&&b| !(1..=64).contains(&b)) {
        return Err(FvError::InvalidParameters(format!(
            "width {b} outside 1..=64"
        )));
    }
    if args.slots == Some(0) {
        return Err(FvError::InvalidParameters(
            "--slots must be at least 1".into(),
        ));
    }
    let wanted = |s: &Spec| args.ops.wants(s.op);
    let rows: Vec<Spec> = specs()
        .into_iter()
        .filter(|s| wanted(s) && (args.bits.is_empty() || args.bits.contains(&s.bits)))
        .collect();
    if rows.is_empty() {
        let mut have: Vec<String> = specs()
            .iter()
            .filter(|s| wanted(s))
            .map(|s| format!("{} {}", s.op, s.bits))
            .collect();
        have.dedup();
        let bits: Vec<String> = args.bits.iter().map(ToString::to_string).collect();
        let ops = match args.ops.ops.is_empty() {
            true => "any operation".to_string(),
            false => args.ops.ops.join(" or "),
        };
        return Err(FvError::InvalidParameters(format!(
            "no row is {ops} of {} bits; the rows of these operations: {}",
            bits.join(" or "),
            have.join(", ")
        )));
    }
    Ok(rows)
}

fn mask(w: usize) -> u64 {
    if w == 64 {
        u64::MAX
    } else {
        (1 << w) - 1
    }
}

fn build(spec: &Spec) -> BitCircuit {
    let mut b = BitBuilder::new();
    let (x, y) = (
        Word::input(&mut b, spec.bits),
        Word::input(&mut b, spec.bits),
    );
    let out = match spec.op {
        "add" => spec.adder.add(&mut b, &x, &y, None),
        "sub" => leveled::sub(&mut b, spec.adder, &x, &y),
        "mul" => leveled::mul(&mut b, spec.adder, &x, &y),
        _ => leveled::div_rem_unsigned(&mut b, &x, &y).0,
    };
    b.finish(out.bits)
}

fn reference(op: &str, w: usize, x: u64, y: u64) -> u64 {
    let m = mask(w);
    match op {
        "add" => x.wrapping_add(y) & m,
        "sub" => x.wrapping_sub(y) & m,
        "mul" => x.wrapping_mul(y) & m,
        _ => x.checked_div(y).unwrap_or(m),
    }
}

/// CPU time of the process (user + system, all threads), in milliseconds.
#[allow(unsafe_code)]
fn process_cpu_ms() -> Option<f64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: getrusage writes into the given, valid, zero-initialised struct.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
        if r == 0 {
            let tv = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
            return Some(tv(ru.ru_utime) + tv(ru.ru_stime));
        }
    }
    None
}

fn err(e: FvBitsError) -> FvError {
    match e {
        FvBitsError::Fv(e) => e,
        other => FvError::InvalidParameters(other.to_string()),
    }
}

/// Runs the selected rows.
pub fn bench(args: &BitsBenchArgs) -> Result<Vec<BitsRow>, FvError> {
    let rows_asked = selected(args)?;
    let threads = match args.threads {
        Some(t) => {
            encint::check_threads(t).map_err(|e| FvError::InvalidParameters(e.to_string()))?
        }
        None => crate::all_cores(),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| FvError::Io(e.to_string()))?;
    let mut keys: HashMap<String, (FvBitsClientKey, FvBitsServerKey)> = HashMap::new();
    let mut rng = ChaCha20Rng::from_entropy();
    let mut rows = Vec::new();
    for spec in rows_asked {
        let circuit = build(&spec);
        let program = FvProgram::compile(&circuit).map_err(err)?;
        let mut row = BitsRow {
            op: spec.op.into(),
            bits: spec.bits,
            adder: spec.adder.name().into(),
            slots: 0,
            threads,
            ms: None,
            ms_per_slot: None,
            cpu_ms: None,
            depth: program.depth(),
            products: program.products(),
            set: String::new(),
            paper_ms_per_slot: spec.paper,
            helib_ms_per_slot: spec.helib,
            status: String::new(),
        };
        let set = match choose_set(program.depth()) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("[fv bits] {} {} bits: {e}", spec.op, spec.bits);
                row.status = format!("refused: {e}");
                rows.push(row);
                continue;
            }
        };
        row.set = set.name().to_string();
        let n = args.slots.unwrap_or(set.slots());
        if n > set.slots() {
            return Err(FvError::InvalidParameters(format!(
                "--slots {n} exceeds the {} slots of set {}",
                set.slots(),
                set.name()
            )));
        }
        row.slots = n;
        if !keys.contains_key(set.name()) {
            eprintln!("[fv bits] keys for set {}", set.name());
            let k = pool
                .install(|| FvBitsClientKey::generate(&set))
                .map_err(err)?;
            keys.insert(set.name().to_string(), k);
        }
        let (client, server) = &keys[set.name()];
        let m = mask(spec.bits);
        let xs: Vec<u64> = (0..n).map(|_| rng.gen::<u64>() & m).collect();
        let ys: Vec<u64> = (0..n).map(|_| rng.gen::<u64>() & m).collect();
        let (a, b) = pool
            .install(|| {
                Ok::<_, FvBitsError>((
                    client.encrypt(&xs, spec.bits, false)?,
                    client.encrypt(&ys, spec.bits, false)?,
                ))
            })
            .map_err(err)?;
        eprintln!(
            "[fv bits] {} {} bits ({}): depth {}, {} products, set {}, {n} slots, {threads} threads",
            spec.op,
            spec.bits,
            spec.adder.name(),
            program.depth(),
            program.products(),
            set.name()
        );
        let c0 = process_cpu_ms();
        let t0 = Instant::now();
        let (out, _) = pool
            .install(|| server.run_program(&program, &[&a, &b]))
            .map_err(err)?;
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        row.cpu_ms = match (c0, process_cpu_ms()) {
            (Some(a), Some(b)) => Some(b - a),
            _ => None,
        };
        let got = pool.install(|| client.decrypt(&out)).map_err(err)?;
        let bad = (0..n)
            .filter(|&i| got[i] != reference(spec.op, spec.bits, xs[i], ys[i]))
            .count();
        row.ms = Some(ms);
        row.ms_per_slot = Some(ms / n as f64);
        row.status = if bad == 0 {
            "ok".into()
        } else {
            format!("WRONG in {bad} slots")
        };
        eprintln!(
            "[fv bits]   {ms:.0} ms (cpu {:.0} ms), {:.4} ms per slot, {}",
            row.cpu_ms.unwrap_or(f64::NAN),
            ms / n as f64,
            row.status
        );
        rows.push(row);
    }
    Ok(rows)
}

/// Runs a `fv bits` command.
pub fn run(cmd: BitsCommand) -> Result<(), FvError> {
    match cmd {
        BitsCommand::Bench(a) => {
            let rows = bench(&a)?;
            if a.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&rows).map_err(|e| FvError::Io(e.to_string()))?
                );
            } else {
                println!(
                    "{:<4} {:>4} {:<9} {:>6} {:>3} {:>10} {:>10} {:>10} {:>5} {:>8} {:<10} {:>9} {:>9}  status",
                    "op", "bits", "adder", "slots", "thr", "ms", "cpu_ms", "ms/slot", "depth",
                    "products", "set", "paper", "helib"
                );
                let f = |v: Option<f64>, p: usize| v.map_or("-".into(), |x| format!("{x:.p$}"));
                for r in &rows {
                    println!(
                        "{:<4} {:>4} {:<9} {:>6} {:>3} {:>10} {:>10} {:>10} {:>5} {:>8} {:<10} {:>9} {:>9}  {}",
                        r.op,
                        r.bits,
                        r.adder,
                        r.slots,
                        r.threads,
                        f(r.ms, 0),
                        f(r.cpu_ms, 0),
                        f(r.ms_per_slot, 4),
                        r.depth,
                        r.products,
                        r.set,
                        f(r.paper_ms_per_slot, 2),
                        f(r.helib_ms_per_slot, 1),
                        r.status
                    );
                }
            }
            if rows.iter().any(|r| r.status.starts_with("WRONG")) {
                return Err(FvError::InvalidParameters(
                    "a bit-sliced result did not match u64 arithmetic".into(),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_refusals_without_keys() {
        // Only the division rows beyond 4 bits are refused, by depth.
        for s in specs() {
            let p = FvProgram::compile(&build(&s)).unwrap();
            let chosen = choose_set(p.depth());
            assert_eq!(
                chosen.is_err(),
                s.op == "div" && s.bits > 4,
                "{} {}",
                s.op,
                s.bits
            );
        }
        let bad = BitsBenchArgs {
            json: false,
            threads: Some(1),
            ops: crate::ops_arg::OpsArg {
                ops: vec!["pow".into()],
            },
            bits: vec![],
            slots: None,
        };
        assert!(bench(&bad).is_err());
    }
}
