//! Functions shared by the block circuit tests: operands, block patterns and the level
//! estimate of a circuit.
// Each including test uses part of it.
#![allow(dead_code)]

use encint_core::circuit::{Builder, Circuit, NodeId};
use rand::rngs::StdRng;
use rand::Rng;

/// The noise budget (quadratic weight) of the default parameters.
pub const BUDGET: u64 = 25;

/// All ones on the low `w` bits.
pub fn mask(w: usize) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

/// A random operand of `w` bits, biased to edges (0, 1, all ones, top bit alone).
pub fn operand(rng: &mut StdRng, w: usize) -> u128 {
    match rng.gen_range(0..6) {
        0 => 0,
        1 => 1 & mask(w),
        2 => mask(w),
        3 => 1u128 << (w - 1),
        _ => rng.gen::<u128>() & mask(w),
    }
}

/// The value of the `w`-bit pattern `u`: unsigned, or two's complement with `signed`.
pub fn pattern_value(u: u128, w: usize, signed: bool) -> i128 {
    if signed && (u >> (w - 1)) & 1 == 1 {
        u as i128 - (1i128 << w)
    } else {
        u as i128
    }
}

/// The blocks of a `w`-bit pattern `u` (the last one a single bit when `w` is odd).
pub fn pattern_blocks(u: u128, w: usize) -> Vec<i64> {
    (0..w.div_ceil(2))
        .map(|i| ((u >> (2 * i)) & if 2 * i + 1 == w { 1 } else { 3 }) as i64)
        .collect()
}

/// The value of blocks as a pattern.
pub fn blocks_value(d: &[i64]) -> u128 {
    d.iter().enumerate().fold(0u128, |acc, (i, &v)| {
        assert!((0..=3).contains(&v), "output block {v} out of range");
        acc | ((v as u128) << (2 * i))
    })
}

/// A builder planned for `threads` threads where given ([`Builder::set_threads`]), else
/// unplanned.
pub fn builder_for(threads: Option<usize>) -> Builder {
    let mut b = Builder::new();
    if let Some(t) = threads {
        b.set_threads(t);
    }
    b
}

/// `n` operands of `k` fresh input blocks each.
pub fn block_inputs(b: &mut Builder, n: usize, k: usize) -> Vec<Vec<NodeId>> {
    (0..n)
        .map(|_| (0..k).map(|_| b.input()).collect())
        .collect()
}

/// 1 where the circuit planned for a thread count has fewer bootstraps than the
/// unplanned one (a choice the planning made), else 0.
pub fn fewer_bootstraps(planned: &Circuit, plain: &Circuit) -> usize {
    usize::from(planned.cost().bootstraps < plain.cost().bootstraps)
}

/// Estimated rounds at `threads` threads: the sum over levels of `⌈bootstraps / threads⌉`.
pub fn level_rounds(c: &Circuit, threads: u64) -> u64 {
    c.schedule()
        .iter()
        .map(|l| (l.bootstraps.len() as u64).div_ceil(threads))
        .sum()
}

/// The estimate a builder planned `outputs` by at `threads` threads
/// ([`Builder::rounds_since`], what its choices between circuits compare), checked against
/// the finished circuit's schedule ([`level_rounds`], an independent count of its levels):
/// a choice made on an estimate that is not the circuit's time could keep the slower
/// circuit. Returns the finished circuit.
pub fn finish_checked(b: Builder, outputs: Vec<NodeId>, threads: usize, what: &str) -> Circuit {
    let estimate = b.rounds_since(0, &outputs, threads);
    let bootstraps = b.bootstraps_since(0, &outputs);
    let c = b.finish(outputs);
    assert_eq!(
        estimate,
        level_rounds(&c, threads as u64),
        "{what}: estimated rounds at {threads}"
    );
    assert_eq!(
        bootstraps,
        c.cost().bootstraps,
        "{what}: estimated bootstraps"
    );
    c
}

/// `outputs` finished: checked by [`finish_checked`] where the builder was planned for
/// `threads` threads, else as they are.
pub fn finish_for(b: Builder, outputs: Vec<NodeId>, threads: Option<usize>, what: &str) -> Circuit {
    match threads {
        Some(t) => finish_checked(b, outputs, t, what),
        None => b.finish(outputs),
    }
}
