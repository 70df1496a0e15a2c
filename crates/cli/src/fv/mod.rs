//! The `encint fv` commands: `bench` (single-threaded timings of every variant), `depth`
//! (practical multiplicative depth) and `bits` (bit-sliced binary arithmetic, in `bits`).
//! Results go to stdout, progress to stderr.

mod bits;

use encint::fv::plain_mul;
use encint::fv::FvError;
use encint::fv::{FvContext, FvParameters, Plaintext, SecretKey, Variant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::time::Instant;

/// `encint fv` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum FvCommand {
    /// Time encrypt, decrypt, mul, relin and mul_relin (one thread, medians).
    Bench(BenchArgs),
    /// Practical multiplicative depth: square a fresh ciphertext until decryption fails.
    Depth(DepthArgs),
    /// Bit-sliced binary arithmetic (Chen, Feng, Liu and Wu): one bit of a different
    /// integer per slot.
    Bits {
        /// What to run.
        #[command(subcommand)]
        command: bits::BitsCommand,
    },
}

/// Arguments of `encint fv bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Parameter set: A, B, C, D, 128-8192, 128-16384, 128-32768, or all (A to D).
    #[arg(long, default_value = "A")]
    pub set: String,
    /// Variant: behz, hps, hpr or all.
    #[arg(long, default_value = "all")]
    pub variant: String,
    /// Runs per operation (the median is reported; at least 1).
    #[arg(long, default_value_t = 5, value_parser = crate::arg_values::count)]
    pub runs: usize,
}

/// Arguments of `encint fv depth`.
#[derive(clap::Args, Debug)]
pub struct DepthArgs {
    /// Parameter set (as for bench; `all` means A to D).
    #[arg(long, default_value = "A")]
    pub set: String,
    /// Variant: behz, hps, hpr or all.
    #[arg(long, default_value = "all")]
    pub variant: String,
    /// Fresh ciphertexts squared per variant (at least 1); the smallest depth is reported.
    #[arg(long, default_value_t = 1, value_parser = crate::arg_values::count)]
    pub trials: usize,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// One timing.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BenchRow {
    /// Parameter set name.
    pub set: String,
    /// Variant name.
    pub variant: String,
    /// Operation: encrypt, decrypt, mul, relin, mul_relin.
    pub op: String,
    /// Median wall-clock time in milliseconds.
    pub ms: f64,
    /// Median CPU time of the (single) thread in milliseconds: robust to other processes
    /// sharing the machine.
    pub cpu_ms: f64,
    /// Ring degree.
    pub n: usize,
    /// Bits of `q`.
    pub log_q: u32,
}

fn sets(name: &str) -> Result<Vec<FvParameters>, FvError> {
    if name.eq_ignore_ascii_case("all") {
        Ok(vec![
            FvParameters::set_a(),
            FvParameters::set_b(),
            FvParameters::set_c(),
            FvParameters::set_d(),
        ])
    } else {
        Ok(vec![FvParameters::by_name(name)?])
    }
}

fn variants(name: &str) -> Result<Vec<Variant>, FvError> {
    if name.eq_ignore_ascii_case("all") {
        Ok(Variant::ALL.to_vec())
    } else {
        Ok(vec![Variant::parse(name)?])
    }
}

/// CPU time of the calling thread, in milliseconds (wall clock where unavailable).
#[allow(unsafe_code)]
fn thread_cpu_ms() -> Option<f64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes into the given, valid timespec.
        let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        if r == 0 {
            return Some(ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6);
        }
    }
    None
}

/// Median wall-clock and median thread-CPU times of `runs` calls (at least 1: the
/// argument parser refuses 0).
fn median<F: FnMut() -> Result<(), FvError>>(runs: usize, mut f: F) -> Result<(f64, f64), FvError> {
    let mut v = Vec::with_capacity(runs);
    let mut c = Vec::with_capacity(runs);
    for _ in 0..runs {
        let c0 = thread_cpu_ms();
        let t0 = Instant::now();
        f()?;
        let wall = t0.elapsed().as_secs_f64() * 1e3;
        v.push(wall);
        c.push(match (c0, thread_cpu_ms()) {
            (Some(a), Some(b)) => b - a,
            _ => wall,
        });
    }
    v.sort_by(|a, b| a.total_cmp(b));
    c.sort_by(|a, b| a.total_cmp(b));
    Ok((v[v.len() / 2], c[c.len() / 2]))
}

/// The variants and parameter sets named by `--variant` and `--set`, once the count
/// given as `flag` (`--runs`, `--trials`) is found to be at least 1: the arguments the
/// benchmark and the depth measurement share, refused in that order before any work.
fn selection(
    count: usize,
    flag: &str,
    variant: &str,
    set: &str,
) -> Result<(Vec<Variant>, Vec<FvParameters>), FvError> {
    if count == 0 {
        return Err(FvError::InvalidParameters(format!(
            "{flag} must be at least 1"
        )));
    }
    Ok((variants(variant)?, sets(set)?))
}

fn random_pt(ctx: &FvContext, rng: &mut ChaCha20Rng) -> Result<Plaintext, FvError> {
    let p = ctx.parameters();
    Plaintext::new(ctx, (0..p.n).map(|_| rng.gen_range(0..p.t)).collect())
}

/// Runs the benchmark and returns its rows.
pub fn bench(args: &BenchArgs) -> Result<Vec<BenchRow>, FvError> {
    let (vs, sets) = selection(args.runs, "--runs", &args.variant, &args.set)?;
    let mut rows = Vec::new();
    for params in sets {
        let name = params.name.clone();
        let (n, log_q) = (params.n, params.log_q());
        eprintln!("[fv bench] set {name}: building context (n = {n}, log q = {log_q})");
        let ctx = FvContext::new(params)?;
        let mut rng = ChaCha20Rng::from_entropy();
        let sk = SecretKey::generate(&ctx, &mut rng);
        for &v in &vs {
            eprintln!("[fv bench] set {name}, {}: keys", v.name());
            let pk = ctx.generate_public_key(&sk, v, &mut rng)?;
            let rlk = ctx.generate_relin_key(&sk, v, &mut rng)?;
            let m1 = random_pt(&ctx, &mut rng)?;
            let m2 = random_pt(&ctx, &mut rng)?;
            let c1 = ctx.encrypt(&pk, &m1, &mut rng)?;
            let c2 = ctx.encrypt(&pk, &m2, &mut rng)?;
            let c3 = ctx.mul(&c1, &c2)?;
            let mut push = |op: &str, (ms, cpu_ms): (f64, f64)| {
                eprintln!(
                    "[fv bench] set {name}, {}: {op} {ms:.3} ms (cpu {cpu_ms:.3} ms)",
                    v.name()
                );
                rows.push(BenchRow {
                    set: name.clone(),
                    variant: v.name().into(),
                    op: op.into(),
                    ms,
                    cpu_ms,
                    n,
                    log_q,
                });
            };
            let r = args.runs;
            push(
                "encrypt",
                median(r, || ctx.encrypt(&pk, &m1, &mut rng).map(drop))?,
            );
            push("decrypt", median(r, || ctx.decrypt(&sk, &c1).map(drop))?);
            push("mul", median(r, || ctx.mul(&c1, &c2).map(drop))?);
            push("relin", median(r, || ctx.relinearize(&c3, &rlk).map(drop))?);
            push(
                "mul_relin",
                median(r, || ctx.mul_relin(&c1, &c2, &rlk).map(drop))?,
            );
        }
    }
    Ok(rows)
}

/// One depth result.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DepthRow {
    /// Parameter set.
    pub set: String,
    /// Variant.
    pub variant: String,
    /// Number of successive squarings that still decrypted correctly (minimum over trials).
    pub depth: usize,
    /// Trials whose first failing squaring decryption refused with a noise error.
    pub refused: usize,
    /// Trials whose first failing squaring decrypted to a wrong value without an error
    /// (the noise check missed it; expected 0).
    pub silent: usize,
}

/// Measures the practical depth of each variant.
pub fn depth(args: &DepthArgs) -> Result<Vec<DepthRow>, FvError> {
    let (vs, sets) = selection(args.trials, "--trials", &args.variant, &args.set)?;
    let mut rows = Vec::new();
    for params in sets {
        let name = params.name.clone();
        let t = params.t;
        eprintln!("[fv depth] set {name}: building context");
        // Measure past the set's recorded depth: products are not refused here.
        let ctx = FvContext::new(FvParameters {
            max_depth: None,
            ..params
        })?;
        let mut rng = ChaCha20Rng::from_entropy();
        let sk = SecretKey::generate(&ctx, &mut rng);
        for &v in &vs {
            let pk = ctx.generate_public_key(&sk, v, &mut rng)?;
            let rlk = ctx.generate_relin_key(&sk, v, &mut rng)?;
            let mut best = usize::MAX;
            let (mut refused, mut silent) = (0, 0);
            for _ in 0..args.trials {
                let m = random_pt(&ctx, &mut rng)?;
                let mut expect = m.coefficients().to_vec();
                let mut c = ctx.encrypt(&pk, &m, &mut rng)?;
                let mut d = 0;
                loop {
                    expect = plain_mul(&expect, &expect, t)?;
                    c = ctx.mul_relin(&c, &c, &rlk)?;
                    match ctx.decrypt(&sk, &c) {
                        Err(FvError::NoiseBudgetExhausted { .. }) => {
                            refused += 1;
                            break;
                        }
                        Err(e) => return Err(e),
                        Ok(p) if p.coefficients() != expect.as_slice() => {
                            silent += 1;
                            break;
                        }
                        Ok(_) => {}
                    }
                    d += 1;
                    eprintln!("[fv depth] set {name}, {}: depth {d} ok", v.name());
                    if d > 1000 {
                        break;
                    }
                }
                best = best.min(d);
            }
            rows.push(DepthRow {
                set: name.clone(),
                variant: v.name().into(),
                depth: best,
                refused,
                silent,
            });
        }
    }
    Ok(rows)
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String, FvError> {
    serde_json::to_string_pretty(v).map_err(|e| FvError::Io(e.to_string()))
}

/// Keeps freed memory in the process heap (glibc): the scheme allocates and frees
/// buffers of several MiB per operation, and by default glibc returns them to the kernel,
/// so that every operation pays for page faults and page zeroing (about a quarter of the
/// time of set D). Only the `fv` commands call this; the library itself never does.
#[allow(unsafe_code)]
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes glibc allocator thresholds; called before any
    // multi-threaded use by these commands.
    unsafe {
        // 32 MiB is the largest value glibc accepts on 64-bit targets.
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

/// Prints `rows` as JSON, or as a table under `header`.
fn print_rows<T: serde::Serialize>(
    json: bool,
    rows: &[T],
    header: String,
    line: impl Fn(&T) -> String,
) -> Result<(), FvError> {
    if json {
        println!("{}", to_json(&rows)?);
    } else {
        println!("{header}");
        for r in rows {
            println!("{}", line(r));
        }
    }
    Ok(())
}

/// Runs a command, printing a table or JSON to stdout.
pub fn run(cmd: FvCommand) -> Result<(), FvError> {
    tune_allocator();
    match cmd {
        FvCommand::Bench(a) => print_rows(
            a.json,
            &bench(&a)?,
            format!(
                "{:<10} {:<6} {:<10} {:>12} {:>12} {:>7} {:>6}",
                "set", "variant", "op", "ms", "cpu_ms", "n", "log_q"
            ),
            |r| {
                format!(
                    "{:<10} {:<6} {:<10} {:>12.3} {:>12.3} {:>7} {:>6}",
                    r.set, r.variant, r.op, r.ms, r.cpu_ms, r.n, r.log_q
                )
            },
        )?,
        FvCommand::Bits { command } => bits::run(command)?,
        FvCommand::Depth(a) => print_rows(
            a.json,
            &depth(&a)?,
            format!(
                "{:<10} {:<7} {:>6} {:>8} {:>7}",
                "set", "variant", "depth", "refused", "silent"
            ),
            |r| {
                format!(
                    "{:<10} {:<7} {:>6} {:>8} {:>7}",
                    r.set, r.variant, r.depth, r.refused, r.silent
                )
            },
        )?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(sets("E").is_err());
        assert!(variants("foo").is_err());
        assert_eq!(sets("all").unwrap().len(), 4);
        assert_eq!(variants("all").unwrap().len(), 3);
    }
}
