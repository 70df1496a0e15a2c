//! The scale model of `encint cost --nodes K`: the estimated time of one operation on K
//! nodes of an MPI job (docs/MPI.md). Built with or without the `mpi` feature.

use clap::Args;

use crate::error::usage;
use crate::CliResult;

/// The scale model's options of `encint cost`.
#[derive(Args, Clone, Debug)]
pub struct ScaleArgs {
    /// Estimate the time of one operation on K nodes (the scale model; see docs/MPI.md),
    /// 1 to 2^20.
    #[arg(long, value_name = "K", value_parser = crate::arg_values::count_u32)]
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

/// One bootstrap of the default parameters on one thread, ms: the 16-bit exact product's
/// time over its bootstraps in docs/bench/tfhe-1thread.json.
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
pub fn level_widths(op: &str, bits: usize) -> Result<Vec<u64>, crate::error::CliError> {
    use encint::arith::{Arith, Config, SInt};
    use encint::circuit::Builder;
    if !(1..=512).contains(&bits) {
        return Err(usage("--bits must be between 1 and 512"));
    }
    // A product by a scalar takes a sample factor.
    let op = encint::Op::parse(op, (op == "scalar_mul").then_some(805))?;
    let ar = Arith::new(Config::BUDGET_25);
    let mut b = Builder::new();
    let x: Vec<SInt> = (0..op.arity()).map(|_| SInt::input(&mut b, bits)).collect();
    let out = ar.apply(&mut b, op, &x)?;
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
    let k = a.nodes.ok_or_else(|| usage("--nodes is needed"))?;
    let node_threads = u32::try_from(node_threads).unwrap_or(u32::MAX);
    if k == 0 || k > 1 << 20 || node_threads == 0 || node_threads > 1 << 16 {
        return Err(usage(
            "--nodes and --threads must be between 1 and 2^20 (threads 2^16)",
        ));
    }
    let finite = a.pbs_ms.is_finite() && a.gbps.is_finite() && a.latency_us.is_finite();
    if !(finite && a.pbs_ms > 0.0 && a.gbps > 0.0 && a.latency_us >= 0.0) {
        return Err(usage(
            "--pbs-ms and --gbps must be positive, --latency-us not negative",
        ));
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
        return crate::timing::print_json_rows(&rows, |r| {
            serde_json::json!({
                "op": a.op, "bits": op_bits, "nodes": r.nodes, "threads": node_threads,
                "total_s": r.total_s, "compute_s": r.compute_s, "comm_s": r.comm_s,
                "speedup": one / r.total_s, "pbs": total, "levels": widths.len(),
            })
        });
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
    fn a_32_bit_product_is_542_rotations() {
        // Our 32-bit exact product (the block product: 707 bootstraps, 542 blind rotations
        // when the tables of one selector share a multi-value first level).
        let w = level_widths("mul", 32).unwrap();
        assert_eq!(w.iter().sum::<u64>(), 542);
        let r = scale_model(&w, 1, 1, 0.01, 1e9, 0.0);
        assert!((r.total_s - 5.42).abs() < 1e-9);
    }
}
