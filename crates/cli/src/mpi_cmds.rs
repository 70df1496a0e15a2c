//! `--backend mpi` for `eval`, `bench` and `asm run` (with the cargo feature `mpi`), and
//! the scale model of `encint cost --nodes K` (always built). See docs/MPI.md.

use clap::Args;

use crate::CliResult;

/// The scale model's options of `encint cost`.
#[derive(Args, Clone, Debug)]
pub struct ScaleArgs {
    /// Estimate the time of one operation on K nodes (the scale model; see docs/MPI.md).
    #[arg(long, value_name = "K")]
    pub nodes: Option<u32>,
    /// With --nodes: the operation (add, sub, mul, squ, max, ...).
    #[arg(long, default_value = "mul", requires = "nodes")]
    pub op: String,
    /// With --nodes: one bootstrap on one thread, in ms (default: measured here, see
    /// docs/MPI.md).
    #[arg(long = "pbs-ms", default_value_t = DEFAULT_PBS_MS, requires = "nodes")]
    pub pbs_ms: f64,
    /// With --nodes: network bandwidth at rank 0, in Gbit/s.
    #[arg(long = "gbps", default_value_t = 10.0, requires = "nodes")]
    pub gbps: f64,
    /// With --nodes: one-way latency of a message, in µs.
    #[arg(long = "latency-us", default_value_t = 20.0, requires = "nodes")]
    pub latency_us: f64,
}

/// One bootstrap of the default parameters on one thread of this machine, ms: the 16-bit
/// exact product at 1 thread in docs/BENCHMARKS.md, 12082 ms for 725 bootstraps (linear
/// work included).
pub const DEFAULT_PBS_MS: f64 = 16.7;

/// Bytes on the wire per bootstrap: the input digit out, the output digit back (an LWE
/// ciphertext of dimension 2048: 2049 u64 plus a header), and the 16-entry table.
pub const BYTES_PER_BOOTSTRAP: f64 = 2.0 * (2049.0 * 8.0 + 64.0) + 128.0;

/// The scale model's estimate of one operation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScaleRow {
    /// Nodes.
    pub nodes: u32,
    /// Estimated seconds.
    pub total_s: f64,
    /// Of which computing.
    pub compute_s: f64,
    /// Of which communicating.
    pub comm_s: f64,
}

/// The scale model: levels run one after another; a level of `w` blind rotations on `k`
/// nodes of `n` threads takes `ceil(ceil(w/k)/n)` bootstrap times, plus (k > 1) rank 0
/// sending and receiving the other nodes' share, `2·(k-1)/k·w` ciphertexts through its
/// link, and `2·(k-1)` message latencies (rank 0 talks to the nodes one after another).
pub fn scale_model(
    widths: &[u64],
    nodes: u32,
    threads: u32,
    pbs_s: f64,
    bytes_per_s: f64,
    latency_s: f64,
) -> ScaleRow {
    let (k, n) = (u64::from(nodes.max(1)), u64::from(threads.max(1)));
    let mut compute = 0.0;
    let mut comm = 0.0;
    for &w in widths {
        if w == 0 {
            continue;
        }
        let per_node = w.div_ceil(k);
        compute += per_node.div_ceil(n) as f64 * pbs_s;
        if k > 1 {
            let busy = (k - 1).min(w); // nodes other than rank 0 with work
            let shipped = (w - per_node.min(w)) as f64;
            comm += shipped * BYTES_PER_BOOTSTRAP / bytes_per_s + 2.0 * busy as f64 * latency_s;
        }
    }
    ScaleRow {
        nodes,
        total_s: compute + comm,
        compute_s: compute,
        comm_s: comm,
    }
}

/// The blind rotations of each level of `op` on two operands of `bits` digits.
pub fn level_widths(op: &str, bits: usize) -> Result<Vec<u64>, Box<dyn std::error::Error>> {
    use encint_arith::{Arith, Config, SInt};
    use encint_core::circuit::Builder;
    if !(1..=512).contains(&bits) {
        return Err("--bits must be between 1 and 512".into());
    }
    let op = encint::Op::parse(op, Some(805))?;
    let ar = Arith::new(Config::BUDGET_25);
    let mut b = Builder::new();
    let x: Vec<SInt> = (0..op.arity()).map(|_| SInt::input(&mut b, bits)).collect();
    let out = op.build(&ar, &mut b, &x);
    let c = b.finish(out.digits);
    let plan = c.plan();
    Ok(plan
        .levels()
        .iter()
        .map(|l| c.level_rotations(&l.level).0)
        .collect())
}

/// `encint cost --nodes K`: the scale model's table for 1, 4, 16, 64 nodes and K, at
/// `node_threads` threads per node, for one `op_bits`-bit operation.
pub fn scale(a: &ScaleArgs, node_threads: usize, op_bits: usize, json: bool) -> CliResult {
    let k = a.nodes.ok_or("--nodes is needed")?;
    let node_threads = u32::try_from(node_threads).unwrap_or(u32::MAX);
    if k == 0 || k > 1 << 20 || node_threads == 0 || node_threads > 1 << 16 {
        return Err("--nodes and --threads must be between 1 and 2^20 (threads 2^16)".into());
    }
    let finite = a.pbs_ms.is_finite() && a.gbps.is_finite() && a.latency_us.is_finite();
    if !(finite && a.pbs_ms > 0.0 && a.gbps > 0.0 && a.latency_us >= 0.0) {
        return Err("--pbs-ms and --gbps must be positive, --latency-us not negative".into());
    }
    let widths = level_widths(&a.op, op_bits)?;
    let total: u64 = widths.iter().sum();
    let mut nodes = vec![1, 4, 16, 64];
    if !nodes.contains(&k) {
        nodes.push(k);
        nodes.sort_unstable();
    }
    let rows: Vec<ScaleRow> = nodes
        .iter()
        .map(|&k| {
            scale_model(
                &widths,
                k,
                node_threads,
                a.pbs_ms / 1e3,
                a.gbps * 1e9 / 8.0,
                a.latency_us / 1e6,
            )
        })
        .collect();
    let one = rows[0].total_s;
    if json {
        let arr: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "op": a.op, "bits": op_bits, "nodes": r.nodes, "threads": node_threads,
                    "total_s": r.total_s, "compute_s": r.compute_s, "comm_s": r.comm_s,
                    "speedup": one / r.total_s, "pbs": total, "levels": widths.len(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&arr)?);
        return Ok(());
    }
    println!(
        "{} {} bits: {} blind rotations in {} levels (widest {}); {} thread(s) per node, \
         {} ms per bootstrap and thread, {} Gbit/s, {} µs latency",
        a.op,
        op_bits,
        total,
        widths.len(),
        widths.iter().max().copied().unwrap_or(0),
        node_threads,
        a.pbs_ms,
        a.gbps,
        a.latency_us
    );
    println!(
        "{:>6} {:>10} {:>10} {:>10} {:>8} {:>10}",
        "nodes", "total s", "compute s", "comm s", "speedup", "comm/comp"
    );
    for r in &rows {
        println!(
            "{:>6} {:>10.3} {:>10.3} {:>10.3} {:>8.2} {:>10.3}",
            r.nodes,
            r.total_s,
            r.compute_s,
            r.comm_s,
            one / r.total_s,
            r.comm_s / r.compute_s.max(f64::MIN_POSITIVE)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_by_hand() {
        // Levels of 10 and 3 rotations, 1 s per bootstrap, 1 byte/s, 1 s latency.
        let one = scale_model(&[10, 3], 1, 1, 1.0, 1.0, 1.0);
        assert_eq!((one.compute_s, one.comm_s), (13.0, 0.0));
        let two = scale_model(&[10, 3], 2, 2, 1.0, 1e12, 0.0);
        // ceil(ceil(10/2)/2) + ceil(ceil(3/2)/2) = 3 + 1.
        assert_eq!(two.compute_s, 4.0);
        // 5 + 1 bootstraps shipped at BYTES_PER_BOOTSTRAP each.
        let four = scale_model(&[10, 3], 4, 1, 1.0, 1.0, 1.0);
        // per node ceil(10/4) = 3 and 1; shipped 7 and 2; 3 busy nodes each level.
        assert_eq!(four.compute_s, 4.0);
        assert_eq!(four.comm_s, 9.0 * BYTES_PER_BOOTSTRAP + 2.0 * 3.0 * 2.0);
        assert!(two.comm_s > 0.0 && two.comm_s < 1e-6);
    }

    #[test]
    fn a_32_bit_product_is_2617_rotations() {
        // Seed 000's count (the figure): our 32-bit exact product.
        let w = level_widths("mul", 32).unwrap();
        assert_eq!(w.iter().sum::<u64>(), 2617);
        let r = scale_model(&w, 1, 1, 0.01, 1e9, 0.0);
        assert!((r.total_s - 26.17).abs() < 1e-9);
    }
}

#[cfg(feature = "mpi")]
pub use with_mpi::{asm_run, bench, eval};

#[cfg(not(feature = "mpi"))]
mod without_mpi {
    use crate::CliResult;
    fn unbuilt() -> CliResult {
        Err("this encint was built without the `mpi` feature".into())
    }
    pub fn eval(_: &crate::crypto_cmds::EvalArgs, _: encint::Op) -> CliResult {
        unbuilt()
    }
    pub fn bench(
        _: &crate::bench::BenchArgs,
        _: &'static encint_tfhe::DigitParameters,
    ) -> CliResult {
        unbuilt()
    }
    pub fn asm_run(_: &crate::asm_cmds::RunArgs) -> CliResult {
        unbuilt()
    }
}
#[cfg(not(feature = "mpi"))]
pub use without_mpi::{asm_run, bench, eval};

#[cfg(feature = "mpi")]
mod with_mpi {
    use std::collections::HashMap;
    use std::time::{Duration, Instant};

    use encint::mpi::{Cluster, MpiStats};
    use encint::processor::{ProcessorKeys, Program, SealedProcessorKeys};
    use encint::{decrypt, encrypt, ClientKey, EncInt, Op, Server, DEFAULT_PARAMETERS};
    use encint_tfhe::envelope::{self, Kind};
    use rand::{Rng, SeedableRng};

    use crate::backend_args::BackendArgs;
    use crate::CliResult;

    type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

    /// Rank 0 only: when the MPI runtime ends the job because another rank died (Open MPI's
    /// mpirun sends SIGTERM to the survivors), say so on standard error before exiting.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn report_termination() {
        extern "C" fn on_term(_: libc::c_int) {
            const MSG: &[u8] = b"error: cluster: the MPI runtime is ending the job (a rank died \
or was killed); rank 0 stops without a result\n";
            // SAFETY: write(2) and _exit(2) are async-signal-safe; MSG is static.
            unsafe {
                libc::write(2, MSG.as_ptr().cast(), MSG.len());
                libc::_exit(4);
            }
        }
        // SAFETY: installs a handler that only calls async-signal-safe functions.
        unsafe {
            libc::signal(libc::SIGTERM, on_term as *const () as libc::sighandler_t);
        }
    }

    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    fn report_termination() {}

    fn cluster(b: &BackendArgs) -> AnyResult<Cluster> {
        let mut c = Cluster::init()?;
        if c.is_root() {
            report_termination();
        }
        c.set_timeout(Duration::from_secs(b.mpi_timeout.clamp(1, 86_400)));
        let fault = b.mpi_fault.as_deref().map(str::parse).transpose()?;
        c.set_fault(fault);
        Ok(c)
    }

    /// Runs `f` on every rank; an error on any rank is printed with the rank and ends the
    /// whole job (MPI_Abort), so no rank waits forever for a peer that gave up.
    fn guarded(c: &Cluster, f: impl FnOnce() -> CliResult) -> CliResult {
        match f() {
            Ok(()) => Ok(()),
            Err(e) => {
                if c.is_root() {
                    eprintln!("error: {e}");
                } else {
                    eprintln!("error on rank {}: {e}", c.rank());
                }
                c.abort(1)
            }
        }
    }

    fn stats_line(c: &Cluster, threads: usize, s: &MpiStats) -> String {
        format!(
            "mpi: {} rank(s) x {} thread(s); {} levels; rotations rank 0 {} others {}; sent \
             {:.1} MiB, received {:.1} MiB; rank 0 send {:.3} s, own share {:.3} s, wait \
             {:.3} s; communication/compute {:.4}",
            c.size(),
            threads,
            s.levels,
            s.rotations_root,
            s.rotations_workers,
            s.bytes_sent as f64 / 1048576.0,
            s.bytes_received as f64 / 1048576.0,
            s.send_s,
            s.compute_s,
            s.wait_s,
            s.comm_ratio()
        )
    }

    /// `mpirun -n K encint eval --backend mpi ...`: every rank loads the server key file;
    /// rank 0 reads the inputs and writes the output.
    pub fn eval(a: &crate::crypto_cmds::EvalArgs, op: Op) -> CliResult {
        let c = cluster(&a.backend)?;
        guarded(&c, || {
            let key = crate::crypto_cmds::load_server(&a.server_key)?;
            let pool = crate::asm_run::pool(a.threads)?;
            if !c.is_root() {
                return Ok(c.serve(&key, None, &pool)?);
            }
            let ins = a
                .inputs
                .iter()
                .map(|p| crate::crypto_cmds::load_ct(p))
                .collect::<AnyResult<Vec<EncInt>>>()?;
            let mut server = Server::new(key);
            if let Some(n) = a.max_nodes {
                server.set_max_nodes(n);
            }
            let backend = c.connect(server.key(), None, &pool)?;
            let start = Instant::now();
            let refs: Vec<&EncInt> = ins.iter().collect();
            let (out, cost) = server.apply_on(&backend, op, &refs)?;
            let elapsed = start.elapsed();
            c.stop_workers()?;
            let bytes = out.to_bytes(server.key().params())?;
            encint::files::write_one(&a.out, &bytes, encint::files::Mode::Public, a.force)?;
            println!(
                "{} done in {:.1} ms: {} bootstraps, depth {}, {} output digits -> {}",
                a.op,
                elapsed.as_secs_f64() * 1e3,
                cost.bootstraps,
                cost.depth,
                out.len(),
                a.out.display()
            );
            println!(
                "{}",
                stats_line(&c, pool.current_num_threads(), &backend.stats())
            );
            Ok(())
        })
    }

    /// Rank 0 seals a server key and sends it to every rank; returns it opened.
    fn share_key(c: &Cluster, key: Option<encint::ServerKey>) -> AnyResult<encint::ServerKey> {
        let id = DEFAULT_PARAMETERS.id();
        let bytes = match &key {
            Some(k) => Some(envelope::seal(Kind::ServerKey, id, k)?),
            None => None,
        };
        let bytes = c.broadcast(bytes);
        match key {
            Some(k) => Ok(k),
            None => Ok(envelope::open(&bytes, Kind::ServerKey, id)?),
        }
    }

    /// `mpirun -n K encint bench --backend mpi`: rank 0 generates the keys and sends the
    /// server key to every rank; each row is timed on the whole job and checked against
    /// plain arithmetic.
    pub fn bench(
        a: &crate::bench::BenchArgs,
        params: &'static encint_tfhe::DigitParameters,
    ) -> CliResult {
        let c = cluster(&a.backend)?;
        guarded(&c, || {
            if a.runs == 0 {
                return Err("--runs must be at least 1".into());
            }
            let pool = crate::asm_run::pool(Some(a.threads))?;
            let client_key = if c.is_root() {
                Some(ClientKey::generate(params))
            } else {
                None
            };
            let (client, key) = match client_key {
                Some((client, key)) => (Some(client), Some(key)),
                None => (None, None),
            };
            let key = share_key(&c, key)?;
            if !c.is_root() {
                return Ok(c.serve(&key, None, &pool)?);
            }
            let client = client.ok_or("rank 0 holds the client key")?;
            let server = Server::new(key);
            let backend = c.connect(server.key(), None, &pool)?;
            let mut rng = rand::rngs::StdRng::seed_from_u64(7);
            let mut rows = Vec::new();
            for &bits in &a.bits {
                if !(2..=64).contains(&bits) {
                    return Err(
                        format!("--bits {bits}: between 2 and 64 with --backend mpi").into(),
                    );
                }
                for name in &a.ops {
                    let op = match name.as_str() {
                        "scalar_mul" => Op::ScalarMul(a.scalars.first().copied().unwrap_or(805)),
                        "round" => Op::Round(5),
                        other => Op::parse(other, None)?,
                    };
                    let half = 1i128 << (bits - 1);
                    let x: i128 = rng.gen_range(-half..half);
                    let y: i128 = rng.gen_range(-half..half);
                    let ex = encrypt(&client, x, bits as usize)?;
                    let ey = encrypt(&client, y, bits as usize)?;
                    let args: Vec<&EncInt> = if op.arity() == 1 {
                        vec![&ex]
                    } else {
                        vec![&ex, &ey]
                    };
                    let before = backend.stats();
                    let mut times = Vec::new();
                    let mut cost = None;
                    for _ in 0..a.runs {
                        let t = Instant::now();
                        let (out, co) = server.apply_on(&backend, op, &args)?;
                        times.push(t.elapsed().as_secs_f64() * 1e3);
                        let got = decrypt(&client, &out)?;
                        let want = expected(op, x, y, bits as usize);
                        if got != want {
                            return Err(format!(
                                "{name} {bits} bits: decrypted {got}, expected {want}"
                            )
                            .into());
                        }
                        cost = Some(co);
                    }
                    times.sort_by(f64::total_cmp);
                    let after = backend.stats();
                    let ratio = ((after.send_s - before.send_s) + (after.wait_s - before.wait_s))
                        / (after.compute_s - before.compute_s).max(1e-9);
                    let cost = cost.ok_or("no run")?;
                    rows.push(serde_json::json!({
                        "op": name, "bits": bits, "ranks": c.size(), "threads": pool.current_num_threads(),
                        "ms": times[times.len() / 2], "pbs": cost.bootstraps, "depth": cost.depth,
                        "comm_compute": ratio,
                        "bytes_per_run": (after.bytes_sent + after.bytes_received - before.bytes_sent - before.bytes_received) / a.runs as u64,
                    }));
                }
            }
            c.stop_workers()?;
            if a.json {
                println!("{}", serde_json::to_string_pretty(&rows)?);
            } else {
                println!(
                    "{:<10} {:>4} {:>5} {:>7} {:>10} {:>6} {:>6} {:>10} {:>10}",
                    "op", "bits", "ranks", "threads", "ms", "pbs", "depth", "comm/comp", "MiB/run"
                );
                for r in &rows {
                    println!(
                        "{:<10} {:>4} {:>5} {:>7} {:>10.1} {:>6} {:>6} {:>10.4} {:>10.1}",
                        r["op"].as_str().unwrap_or(""),
                        r["bits"],
                        r["ranks"],
                        r["threads"],
                        r["ms"].as_f64().unwrap_or(0.0),
                        r["pbs"],
                        r["depth"],
                        r["comm_compute"].as_f64().unwrap_or(0.0),
                        r["bytes_per_run"].as_f64().unwrap_or(0.0) / 1048576.0
                    );
                }
                println!("every result decrypted to the plain-arithmetic value");
            }
            Ok(())
        })
    }

    /// Plain arithmetic of the bench's operations.
    fn expected(op: Op, x: i128, y: i128, bits: usize) -> i128 {
        let wrap = |v: i128| {
            let m = 1i128 << bits;
            let r = v.rem_euclid(m);
            if r >= m / 2 {
                r - m
            } else {
                r
            }
        };
        match op {
            Op::Add => x + y,
            Op::Sub => x - y,
            Op::Neg => -x,
            Op::Mul => x * y,
            Op::MulLow => wrap(x * y),
            Op::ScalarMul(k) => i128::from(k) * x,
            Op::Square => x * x,
            Op::Signum => x.signum(),
            Op::Max => x.max(y),
            Op::Min => x.min(y),
            Op::Abs => x.abs(),
            Op::Round(i) => (x + (1 << (i - 1))).div_euclid(1 << i) * (1 << i),
            Op::Lt => i128::from(x < y),
            Op::Le => i128::from(x <= y),
            Op::Gt => i128::from(x > y),
            Op::Ge => i128::from(x >= y),
            Op::Eq => i128::from(x == y),
            Op::Ne => i128::from(x != y),
        }
    }

    fn seal_parts(s: &SealedProcessorKeys) -> Vec<u8> {
        let mut out = Vec::new();
        for part in [&s.server, &s.tree, &s.packing] {
            out.extend_from_slice(&(part.len() as u64).to_le_bytes());
            out.extend_from_slice(part);
        }
        out
    }

    fn unseal_parts(mut b: &[u8]) -> AnyResult<SealedProcessorKeys> {
        let mut parts = Vec::new();
        for _ in 0..3 {
            let (len, rest) = b.split_at_checked(8).ok_or("truncated key message")?;
            let len = u64::from_le_bytes(len.try_into()?) as usize;
            let (part, rest) = rest.split_at_checked(len).ok_or("truncated key message")?;
            parts.push(part.to_vec());
            b = rest;
        }
        let packing = parts.pop().ok_or("key message")?;
        let tree = parts.pop().ok_or("key message")?;
        let server = parts.pop().ok_or("key message")?;
        Ok(SealedProcessorKeys {
            server,
            tree,
            packing,
        })
    }

    /// `mpirun -n K encint asm run PROGRAM --backend mpi`: rank 0 generates the keys,
    /// sends the server-side keys to every rank once, runs the program's circuit over the
    /// ranks, and checks the decrypted outputs against the clear run.
    pub fn asm_run(a: &crate::asm_cmds::RunArgs) -> CliResult {
        let c = cluster(&a.backend)?;
        guarded(&c, || {
            if a.server_key.is_some() {
                return Err("--backend mpi runs with fresh keys (without --server-key)".into());
            }
            let pool = crate::asm_run::pool(a.threads)?;
            if !c.is_root() {
                let keys = ProcessorKeys::open(&unseal_parts(&c.broadcast(None))?)?;
                return Ok(c.serve(&keys.server, Some(&keys.tree), &pool)?);
            }
            let compiled = crate::asm_run::load(&a.file)?;
            let data: HashMap<_, _> =
                crate::asm_run::inputs_from_args(&compiled, &a.inputs, a.seed)?;
            let program = Program::from_compiled(compiled);
            let (clear_out, cost) = program.run_clear(&data)?;
            println!("{}:", a.file.display());
            for (name, _) in &program.compiled().inputs {
                println!("  in  {name} = {}", data[name]);
            }
            println!(
                "  cost: {} blind rotations, {} bootstrap nodes, depth {}",
                cost.blind_rotations, cost.bootstraps, cost.depth
            );
            let (client, keys) = ProcessorKeys::generate(&DEFAULT_PARAMETERS);
            c.broadcast(Some(seal_parts(&keys.seal()?)));
            let backend = c.connect(&keys.server, Some(&keys.tree), &pool)?;
            let uplink = program.encrypt_inputs(&client, &data)?;
            let t = Instant::now();
            let downlink = program.run_on(&backend, &keys, &uplink)?;
            let eval_s = t.elapsed().as_secs_f64();
            c.stop_workers()?;
            let out = program.decrypt_outputs(&client, &downlink)?;
            for (name, d) in &out {
                println!("  out {name} = {d}");
            }
            println!(
                "  encrypted run over {} rank(s): evaluate {eval_s:.2} s",
                c.size()
            );
            println!(
                "  {}",
                stats_line(&c, pool.current_num_threads(), &backend.stats())
            );
            if out != clear_out {
                return Err("encrypted result differs from the clear run".into());
            }
            println!("  matches the clear run");
            Ok(())
        })
    }
}
