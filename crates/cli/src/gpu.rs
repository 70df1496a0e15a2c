//! `--backend cpu|gpu` and `encint gpu ...`: the GPU backend from the command line.
//!
//! Without the `gpu` cargo feature every GPU request is a typed error
//! ([`encint::GpuError::NotBuilt`]); with it and no usable device, [`encint::GpuError::NoDevice`].
//! Both are reported before any key is generated. Every subcommand takes `--json` (one
//! JSON object instead of the text: [`report`]).

mod report;

use std::time::Instant;

use clap::{Args, Subcommand};
use encint::{BackendKind, ClientKey, EncInt, Op, Server, KS64_PARAMETERS};
use rand::{Rng, SeedableRng};
use serde_json::json;

use crate::error::{internal, mismatch};
use crate::oracle::{self, operands};
use crate::progress::spinner;
use crate::timing::{median, ms_or_dash, ms_since};
use crate::{AnyResult, CliResult};
use report::Report;

/// `encint gpu`.
#[derive(Subcommand)]
pub enum GpuCommand {
    /// Whether this build has the GPU backend, and the device it sees.
    Info(InfoArgs),
    /// On the GPU: checks every digit-level node kind (all 32 digit values through plain and
    /// half-step tables, linear nodes) and every digit operation at 8 to 64 bits against the
    /// clear executor and plain i128 arithmetic; exits non-zero on any mismatch.
    Selftest(SelftestArgs),
    /// Bootstraps per second of one level of N independent bootstraps, GPU against CPU.
    Throughput(ThroughputArgs),
    /// Add, wrapping mul, ge and max at 8 to 64 bits on the GPU backend beside TFHE-rs' GPU
    /// integer API (FheUint with a CUDA server key), same process, same card: on exact
    /// integers, or with `--typed` on the unsigned typed integers (FheUint8..FheUint64).
    Bench(GpuBenchArgs),
}

/// Arguments of `encint gpu info`.
#[derive(Args)]
pub struct InfoArgs {
    /// Print one JSON object (feature, devices, sms) instead of the lines.
    #[arg(long)]
    json: bool,
}

/// Arguments of `encint gpu selftest`.
#[derive(Args)]
pub struct SelftestArgs {
    /// Seed of the operands and tables.
    #[arg(long, default_value_t = 14)]
    seed: u64,
    /// Widths in bits (signed digits) of the operation checks, each from 2 to 126.
    #[arg(long, value_delimiter = ',', default_value = "8,16,32,64",
          value_parser = |s: &str| crate::arg_values::in_range(s, 2, 126))]
    bits: Vec<usize>,
    /// Random operand pairs per operation and width (edge values are always checked too).
    #[arg(long, default_value_t = 2)]
    cases: usize,
    /// Print one JSON object (the digit level's counts, a row per operation check, the
    /// totals) instead of the table.
    #[arg(long)]
    json: bool,
}

/// Arguments of `encint gpu throughput`.
#[derive(Args)]
pub struct ThroughputArgs {
    /// Bootstraps in the level (1 to 4096).
    #[arg(long, default_value_t = 4096,
          value_parser = |s: &str| crate::arg_values::in_range(s, 1, encint::MAX_DIGITS))]
    width: usize,
    /// CPU threads for the comparison (default: all cores; at most 4 per core).
    #[arg(long, default_value_t = crate::all_cores(), value_parser = crate::arg_values::threads)]
    threads: usize,
    /// Skip the CPU run (GPU figures only).
    #[arg(long = "no-cpu")]
    no_cpu: bool,
    /// Timed runs (median; at least 1).
    #[arg(long, default_value_t = 3, value_parser = crate::arg_values::count)]
    runs: usize,
    /// Print one JSON object (width, GPU and CPU milliseconds and bootstraps per second)
    /// instead of the lines.
    #[arg(long)]
    json: bool,
}

/// Arguments of `encint gpu bench`.
#[derive(Args)]
pub struct GpuBenchArgs {
    /// Widths in bits (8, 16, 32, 64: TFHE-rs' FheUint8..FheUint64).
    #[arg(long, value_delimiter = ',', default_value = "8,16,32,64", value_parser = gpu_width)]
    bits: Vec<u32>,
    /// Timed runs per row (median; at least 1).
    #[arg(long, default_value_t = 5, value_parser = crate::arg_values::count)]
    runs: usize,
    /// Skip TFHE-rs.
    #[arg(long)]
    no_peer: bool,
    /// Time the unsigned typed integers (FheUint8..FheUint64, wrapping, in the form
    /// encryption gives them: radix-4 blocks) instead of exact integers (signed digits, never wrap): the
    /// same types and semantics as the TFHE-rs rows beside them.
    #[arg(long)]
    typed: bool,
    /// Print one JSON object (runs, a row per operation and width) instead of the table.
    #[arg(long)]
    json: bool,
}

/// A width of `gpu bench --bits`: one of TFHE-rs' FheUint8..FheUint64.
fn gpu_width(s: &str) -> Result<u32, String> {
    let n = crate::arg_values::width_in(s, &[8, 16, 32, 64], "TFHE-rs' FheUint widths")?;
    u32::try_from(n).map_err(|e| e.to_string())
}

/// Runs `encint gpu`.
pub fn run(cmd: GpuCommand) -> CliResult {
    match cmd {
        GpuCommand::Info(a) => info(a),
        GpuCommand::Selftest(a) => selftest(a),
        GpuCommand::Throughput(a) => throughput(a),
        GpuCommand::Bench(a) => bench(a),
    }
}

fn info(a: InfoArgs) -> CliResult {
    let mut r = Report::new(a.json);
    let built = cfg!(feature = "gpu");
    r.line(format!(
        "gpu feature: {}",
        if built { "built in" } else { "not built" }
    ));
    r.field("feature", built);
    let i = encint::backend::gpu::probe()?;
    r.line(format!(
        "CUDA devices: {} (device 0: {} SMs)",
        i.devices, i.sms
    ));
    r.field("devices", i.devices);
    r.field("sms", i.sms);
    r.finish()
}

fn gpu_server() -> AnyResult<(ClientKey, Server)> {
    encint::backend::gpu::check_backend(BackendKind::Gpu)?;
    let sp = spinner("generating keys and uploading the server key to the GPU");
    let (client, key) = ClientKey::generate(&KS64_PARAMETERS);
    let server = Server::new(key).with_backend(BackendKind::Gpu)?;
    sp.finish_and_clear();
    Ok((client, server))
}

/// Every operation of the eager API (with two scalars and two rounding positions).
fn all_ops() -> AnyResult<Vec<Op>> {
    const NAMES: &[(&str, Option<i64>)] = &[
        ("add", None),
        ("sub", None),
        ("neg", None),
        ("mul", None),
        ("mul_low", None),
        ("scalar_mul", Some(805)),
        ("scalar_mul", Some(-4097)),
        ("squ", None),
        ("sgn", None),
        ("max", None),
        ("min", None),
        ("abs", None),
        ("round", Some(1)),
        ("round", Some(5)),
        ("lt", None),
        ("le", None),
        ("gt", None),
        ("ge", None),
        ("eq", None),
        ("ne", None),
    ];
    Ok(NAMES
        .iter()
        .map(|&(name, arg)| Op::parse(name, arg.map(i128::from)))
        .collect::<Result<_, _>>()?)
}

/// Runs `op` on the clear executor with the digits the ciphertexts hold.
fn clear_result(server: &Server, client: &ClientKey, op: Op, args: &[&EncInt]) -> AnyResult<i128> {
    let mut b = encint::circuit::Builder::new();
    let ins: Vec<encint::SInt> = args
        .iter()
        .map(|x| encint::SInt::input(&mut b, x.len()))
        .collect();
    let out = server.arith().apply(&mut b, op, &ins)?;
    let circuit = b.finish(out.digits);
    let inputs: Vec<i64> = args
        .iter()
        .flat_map(|x| x.digits().iter().map(|d| client.decrypt_digit(d)))
        .collect();
    let (digits, _) = encint::circuit::clear::run(&circuit, &inputs)?;
    encint::arith::value_of(&digits).ok_or_else(|| internal("clear result overflows i128"))
}

fn selftest(a: SelftestArgs) -> CliResult {
    let (client, server) = gpu_server()?;
    let mut r = Report::new(a.json);
    let mut rng = rand::rngs::StdRng::seed_from_u64(a.seed);
    let mut failures = 0usize;
    let mut checks = 0usize;
    failures += digit_level(&mut r, &client, &server, &mut rng, &mut checks)?;
    r.line(format!(
        "{:<14} {:>4} {:>22} {:>22} {:>22} {:>6} result",
        "operation", "bits", "x", "y", "gpu", "pbs"
    ));
    for &bits in &a.bits {
        let lim = (1i128 << (bits - 1)) - 1;
        let mut pairs = vec![(lim, -lim), (-lim, lim), (0, lim), (lim, lim)];
        for _ in 0..a.cases {
            pairs.push((rng.gen_range(-lim..=lim), rng.gen_range(-lim..=lim)));
        }
        for op in all_ops()? {
            for &(x, y) in &pairs {
                let ex = encint::encrypt(&client, x, bits)?;
                let ey = encint::encrypt(&client, y, bits)?;
                let args = operands(op, &ex, &ey);
                let (out, cost) = server.apply(op, &args)?;
                let got = encint::decrypt(&client, &out)?;
                let want_clear = clear_result(&server, &client, op, &args)?;
                let want = oracle::plain(op, x, y, bits);
                let ok = got == want_clear && oracle::agrees(op, got, x, y, bits);
                checks += 1;
                if !ok {
                    failures += 1;
                }
                let row = json!({
                    "op": format!("{op:?}"), "bits": bits, "x": x.to_string(),
                    "y": y.to_string(), "gpu": got.to_string(),
                    "clear": want_clear.to_string(), "plain": want.map(|w| w.to_string()),
                    "bootstraps": cost.bootstraps, "depth": cost.depth, "ok": ok,
                });
                r.row(row, || {
                    format!(
                        "{:<14} {:>4} {:>22} {:>22} {:>22} {:>6} {}",
                        format!("{op:?}"),
                        bits,
                        x,
                        y,
                        got,
                        cost.bootstraps,
                        if ok {
                            "ok".to_string()
                        } else {
                            format!("MISMATCH (clear {want_clear}, plain {want:?})")
                        }
                    )
                });
            }
        }
    }
    r.line("byte processor: not run (tree LUTs are not on the GPU backend yet; see docs/GPU.md)");
    r.field("checks", checks);
    r.field("failures", failures);
    if failures > 0 {
        r.finish()?;
        return Err(mismatch(format!(
            "{failures} of {checks} GPU checks failed"
        )));
    }
    r.line(format!(
        "all {checks} GPU checks match the clear executor (and plain arithmetic)"
    ));
    r.finish()
}

/// Every digit value through random plain and half-step tables, and linear nodes, in one
/// circuit on the GPU, against the clear executor. Returns the number of mismatches.
fn digit_level(
    r: &mut Report,
    client: &ClientKey,
    server: &Server,
    rng: &mut rand::rngs::StdRng,
    checks: &mut usize,
) -> AnyResult<usize> {
    use encint::circuit::NegacyclicLut;
    let mut b = encint::circuit::Builder::new();
    let xs: Vec<_> = (0..32).map(|_| b.input()).collect();
    let mut outs = Vec::new();
    let tables: Vec<NegacyclicLut> = (0..4)
        .map(|_| NegacyclicLut {
            table: std::array::from_fn(|_| rng.gen_range(-16i8..16)),
        })
        .collect();
    let halves: Vec<NegacyclicLut> = (0..2)
        .map(|_| NegacyclicLut {
            table: std::array::from_fn(|_| 2 * rng.gen_range(-8i8..8) + 1),
        })
        .collect();
    for &x in &xs {
        for t in &tables {
            outs.push(b.lut(x, t));
        }
        for h in &halves {
            outs.push(b.half_lut(x, h)?);
        }
    }
    // Linear nodes on bootstrap outputs (quadratic weight 4² + 3² = 25), then a second level.
    let mut second = Vec::new();
    for w in outs.chunks(2) {
        let s = b.linear(&[(w[0], 4), (w[1], -3)], 7);
        second.push(s);
        second.push(b.lut(s, &tables[0]));
    }
    outs.extend(second);
    let circuit = b.finish(outs);
    let values: Vec<i64> = (-16..16).collect();
    let digits: Vec<encint::keys::Digit> =
        values.iter().map(|&m| client.encrypt_digit(m)).collect();
    let refs: Vec<&encint::keys::Digit> = digits.iter().collect();
    let (want, cost) = encint::circuit::clear::run(&circuit, &values)?;
    let got = server.run_circuit(&circuit, &refs)?;
    let mut bad = 0;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let g = client.decrypt_digit(g);
        if (g - w).rem_euclid(32) != 0 {
            bad += 1;
            if bad <= 10 {
                r.line(format!("digit level: output {i}: gpu {g}, clear {w}"));
            }
        }
    }
    *checks += want.len();
    r.field(
        "digit_level",
        json!({
            "outputs": want.len(), "bootstraps": cost.bootstraps, "depth": cost.depth,
            "tables": tables.len(), "half_step_tables": halves.len(), "mismatches": bad,
        }),
    );
    r.line(format!(
        "digit level: {} outputs ({} bootstraps, depth {}: 32 digit values x {} tables, {} \
         half-step tables, linear nodes): {}",
        want.len(),
        cost.bootstraps,
        cost.depth,
        tables.len(),
        halves.len(),
        if bad == 0 {
            "all match the clear executor".to_string()
        } else {
            format!("{bad} MISMATCH(ES)")
        }
    ));
    Ok(bad)
}

fn throughput(a: ThroughputArgs) -> CliResult {
    let (client, server) = gpu_server()?;
    let mut r = Report::new(a.json);
    // The identity on [0, 16) (a negacyclic table gives -f(x) at x + 16, so -1 ≡ 31 maps
    // to -15): inputs 0, 1, 2.
    let table = encint::circuit::NegacyclicLut::identity();
    let digits: Vec<encint::keys::Digit> = (0..a.width)
        .map(|i| client.encrypt_digit((i % 3) as i64))
        .collect();
    let x = EncInt::from_digits(digits, client.key_set());
    let level = |s: &Server| -> AnyResult<f64> {
        let t = Instant::now();
        let (out, cost) = s.eval(&[&x], |_, b, ins| {
            vec![encint::SInt {
                digits: ins[0].digits.iter().map(|&d| b.lut(d, &table)).collect(),
            }]
        })?;
        let secs = t.elapsed().as_secs_f64();
        if cost.bootstraps != a.width as u64 || cost.depth != 1 {
            return Err(mismatch(format!(
                "expected one level of {} bootstraps",
                a.width
            )));
        }
        let wrong: Vec<usize> = out[0]
            .digits()
            .iter()
            .enumerate()
            .filter(|(i, d)| client.decrypt_digit(d) != (i % 3) as i64)
            .map(|(i, _)| i)
            .collect();
        if let Some(first) = wrong.first() {
            return Err(mismatch(format!(
                "{} of {} bootstraps decrypt wrong (the first: bootstrap {first})",
                wrong.len(),
                a.width
            )));
        }
        Ok(secs)
    };
    level(&server)?; // warm-up (PBS scratch, caches)
    let gpu = median(
        (0..a.runs)
            .map(|_| level(&server))
            .collect::<Result<_, _>>()?,
    );
    r.line(format!(
        "gpu: one level of {} bootstraps in {:.1} ms (upload, keyswitch, PBS, download): {:.0} \
         bootstraps/s",
        a.width,
        gpu * 1e3,
        a.width as f64 / gpu
    ));
    r.field("width", a.width);
    r.field("runs", a.runs);
    r.field("gpu_ms", gpu * 1e3);
    r.field("gpu_bootstraps_per_s", a.width as f64 / gpu);
    if !a.no_cpu {
        let cpu_server = Server::with_threads(server.key().clone(), a.threads)?;
        let cpu = median(
            (0..a.runs.min(2))
                .map(|_| level(&cpu_server))
                .collect::<Result<_, _>>()?,
        );
        r.line(format!(
            "cpu ({} threads): {:.1} ms: {:.0} bootstraps/s; gpu/cpu throughput {:.1}x",
            a.threads,
            cpu * 1e3,
            a.width as f64 / cpu,
            cpu / gpu
        ));
        r.field("cpu_threads", a.threads);
        r.field("cpu_ms", cpu * 1e3);
        r.field("cpu_bootstraps_per_s", a.width as f64 / cpu);
        r.field("gpu_over_cpu", cpu / gpu);
    }
    r.finish()
}

fn bench(a: GpuBenchArgs) -> CliResult {
    let (client, server) = gpu_server()?;
    #[cfg(feature = "gpu")]
    let peer = if a.no_peer {
        None
    } else {
        let sp = spinner("generating TFHE-rs keys and its CUDA server key");
        let k = peer_gpu::Peer::new();
        sp.finish_and_clear();
        Some(k)
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(64);
    let mut r = Report::new(a.json);
    r.field("runs", a.runs);
    r.line(format!(
        "{:<8} {:>4} {:>12} {:>14} {:>8} {:>6} (ms, median of {}, incl. upload/download and \
         decryption)",
        "op", "bits", "encint gpu", "TFHE-rs gpu", "ratio", "pbs", a.runs
    ));
    r.field("integers", if a.typed { "typed" } else { "exact" });
    for &bits in &a.bits {
        for (name, op) in [
            ("add", Op::Add),
            ("mul", if a.typed { Op::Mul } else { Op::MulLow }),
            ("ge", Op::GE),
            ("max", Op::Max),
        ] {
            let (ours, pbs, depth) =
                time_op(&client, &server, op, bits, a.typed, a.runs, &mut rng)?;
            #[cfg(feature = "gpu")]
            let theirs = match &peer {
                Some(p) => Some(p.time(name, bits, a.runs)?),
                None => None,
            };
            #[cfg(not(feature = "gpu"))]
            let theirs: Option<f64> = None;
            let row = json!({
                "op": name, "bits": bits, "ours_ms": ours, "peer_ms": theirs,
                "ratio": theirs.map(|t| ours / t), "bootstraps": pbs, "depth": depth,
            });
            r.row(row, || {
                format!(
                    "{:<8} {:>4} {:>12.1} {:>14} {:>8} {:>6}",
                    name,
                    bits,
                    ours,
                    ms_or_dash(theirs),
                    theirs.map_or("-".into(), |t| format!("{:.2}", ours / t)),
                    pbs
                )
            });
        }
    }
    r.finish()
}

/// Median milliseconds (encryption excluded; the operation, upload, download and
/// decryption included), bootstraps and depth of `op` on two random operands of `bits`
/// bits: exact integers, checked against plain i128 arithmetic, or (`typed`) the unsigned
/// typed integer of that width (wrapping, as TFHE-rs' FheUint; operands in the form
/// encryption gives), checked against plain `u128` arithmetic modulo `2^bits`. Every run's
/// result is checked.
fn time_op(
    client: &ClientKey,
    server: &Server,
    op: Op,
    bits: u32,
    typed: bool,
    runs: usize,
    rng: &mut impl Rng,
) -> AnyResult<(f64, u64, u32)> {
    type Run<'a> = Box<dyn Fn() -> AnyResult<(i128, encint::Cost)> + 'a>;
    let n = bits as usize;
    let (want, run): (i128, Run<'_>) = if typed {
        use encint::typed::{decrypt_typed, encrypt_typed_as, Form, IntType};
        let ty = IntType::new(n, false)?;
        let mask = (1u128 << bits) - 1;
        let (x, y) = (rng.gen::<u128>() & mask, rng.gen::<u128>() & mask);
        let want = match op {
            Op::Add => x.wrapping_add(y) & mask,
            Op::Mul => x.wrapping_mul(y) & mask,
            Op::Max => x.max(y),
            _ => u128::from(x >= y),
        };
        let ex = encrypt_typed_as(client, x as i128, ty, Form::DEFAULT)?;
        let ey = encrypt_typed_as(client, y as i128, ty, Form::DEFAULT)?;
        let run = move || -> AnyResult<_> {
            let (out, cost) = server.typed_apply(op, &[&ex, &ey])?;
            Ok((decrypt_typed(client, &out)?, cost))
        };
        (want as i128, Box::new(run))
    } else {
        let lim = (1i128 << (n - 1)) - 1;
        let (x, y) = (rng.gen_range(-lim..=lim), rng.gen_range(-lim..=lim));
        let want = oracle::plain(op, x, y, n)
            .ok_or_else(|| internal("not an operation of exact integers"))?;
        let ex = encint::encrypt(client, x, n)?;
        let ey = encint::encrypt(client, y, n)?;
        let run = move || -> AnyResult<_> {
            let (out, cost) = server.apply(op, &[&ex, &ey])?;
            let v = encint::decrypt(client, &out)?;
            // A wrapping product's digits hold any value congruent to it.
            let v = if op == Op::MulLow {
                v.rem_euclid(1i128 << n)
            } else {
                v
            };
            Ok((v, cost))
        };
        (want, Box::new(run))
    };
    timed_runs(runs, || {
        let (v, cost) = run()?;
        if v != want {
            return Err(mismatch(format!(
                "{op:?} at {bits} bits: gpu gave {v}, expected {want}"
            )));
        }
        Ok(cost)
    })
}

/// Runs `f` once to warm up and `runs` times timed: the median milliseconds and the last
/// run's bootstraps and depth.
fn timed_runs(
    runs: usize,
    mut f: impl FnMut() -> AnyResult<encint::Cost>,
) -> AnyResult<(f64, u64, u32)> {
    f()?;
    let mut times = Vec::with_capacity(runs);
    let mut cost = encint::Cost::default();
    for _ in 0..runs {
        let t = Instant::now();
        cost = f()?;
        times.push(ms_since(t));
    }
    Ok((median(times), cost.bootstraps, cost.depth))
}

#[cfg(feature = "gpu")]
mod peer_gpu {
    //! TFHE-rs' GPU integer API (the `gpu` feature of tfhe): `FheUint` operations with a
    //! `CudaServerKey` from `ConfigBuilder::default()`, which with that feature is TFHE-rs'
    //! GPU set `PARAM_GPU_MULTI_BIT_GROUP_4_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128`
    //! (multi-bit bootstrapping), each result decrypted and checked.

    use std::time::Instant;

    use rand::Rng;
    use tfhe::prelude::*;

    use crate::error::{mismatch, usage};
    use tfhe::{CompressedServerKey, ConfigBuilder, FheUint16, FheUint32, FheUint64, FheUint8};

    pub struct Peer {
        ck: tfhe::ClientKey,
    }

    macro_rules! time_gpu {
        ($ck:expr, $fhe:ty, $clear:ty, $name:expr, $runs:expr) => {{
            let mut rng = rand::thread_rng();
            let (x, y): ($clear, $clear) = (rng.gen(), rng.gen());
            let mut a = <$fhe>::encrypt(x, $ck);
            let mut b = <$fhe>::encrypt(y, $ck);
            a.move_to_current_device();
            b.move_to_current_device();
            let mut times = Vec::new();
            for _ in 0..=$runs {
                let t = Instant::now();
                let (got, want): ($clear, $clear) = match $name {
                    "add" => ((&a + &b).decrypt($ck), x.wrapping_add(y)),
                    "mul" => ((&a * &b).decrypt($ck), x.wrapping_mul(y)),
                    "ge" => {
                        let r: bool = a.ge(&b).decrypt($ck);
                        (r as $clear, (x >= y) as $clear)
                    }
                    "max" => (a.max(&b).decrypt($ck), x.max(y)),
                    other => return Err(usage(format!("no peer for {other}"))),
                };
                times.push(t.elapsed().as_secs_f64() * 1e3);
                if got != want {
                    return Err(mismatch(format!(
                        "TFHE-rs gpu {} gave {got}, expected {want}",
                        $name
                    )));
                }
            }
            times.remove(0);
            times.sort_by(|p, q| p.total_cmp(q));
            Ok(times[times.len() / 2])
        }};
    }

    impl Peer {
        pub fn new() -> Peer {
            let ck = tfhe::ClientKey::generate(ConfigBuilder::default().build());
            let sk = CompressedServerKey::new(&ck).decompress_to_gpu();
            tfhe::set_server_key(sk);
            Peer { ck }
        }

        pub fn time(
            &self,
            name: &str,
            bits: u32,
            runs: usize,
        ) -> Result<f64, crate::error::CliError> {
            let ck = &self.ck;
            match bits {
                8 => time_gpu!(ck, FheUint8, u8, name, runs),
                16 => time_gpu!(ck, FheUint16, u16, name, runs),
                32 => time_gpu!(ck, FheUint32, u32, name, runs),
                64 => time_gpu!(ck, FheUint64, u64, name, runs),
                _ => Err(usage(format!("no FheUint{bits}"))),
            }
        }
    }
}
