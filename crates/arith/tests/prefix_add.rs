//! Block additions and subtractions by a parallel prefix of carry states, against plain
//! u128 arithmetic on the clear executor at every width 2..=128 (random and edge operands,
//! exhaustive at small widths); their depth is logarithmic; and `add_blocks` chooses
//! between them and the ripple by the builder's estimate (the ripple at 2 threads, the
//! prefix where lanes or a level latency make depth cost).

use encint_arith::blocks::{add_blocks, prefix_add, ripple_add};
use encint_core::circuit::{Builder, Circuit, NodeId};
use encint_core::clear;
use rand::rngs::StdRng;
use rand::SeedableRng;

#[path = "common/blocks.rs"]
mod common;
use common::*;

type Adder = fn(&mut Builder, &[NodeId], &[NodeId], usize, bool) -> Vec<NodeId>;

/// `x ± y` (`-y` with `neg`) on `w`-bit blocks built by `adder` on a builder `b`.
fn circuit(mut b: Builder, adder: Adder, w: usize, subtract: bool, neg: bool) -> Circuit {
    let k = w.div_ceil(2);
    let x: Vec<NodeId> = (0..k).map(|_| b.input()).collect();
    let y: Vec<NodeId> = (0..k).map(|_| b.input()).collect();
    let out = adder(&mut b, if neg { &[] } else { &x }, &y, w, subtract);
    b.finish(out)
}

fn check(c: &Circuit, w: usize, subtract: bool, neg: bool, x: u128, y: u128) {
    let inputs: Vec<i64> = pattern_blocks(x, w)
        .into_iter()
        .chain(pattern_blocks(y, w))
        .collect();
    let (out, cost) = clear::run(c, &inputs).unwrap();
    assert!(
        cost.max_qweight <= BUDGET,
        "w {w}: weight {}",
        cost.max_qweight
    );
    let x = if neg { 0 } else { x };
    let want = if subtract {
        x.wrapping_sub(y)
    } else {
        x.wrapping_add(y)
    } & mask(w);
    assert_eq!(
        blocks_value(&out),
        want,
        "w {w} sub {subtract} neg {neg}: {x} {y}"
    );
}

#[test]
fn prefix_additions_match_u128_at_every_width() {
    let mut rng = StdRng::seed_from_u64(0x9e3779b9);
    for w in 2..=128 {
        for (subtract, neg) in [(false, false), (true, false), (true, true)] {
            let c = circuit(Builder::new(), prefix_add, w, subtract, neg);
            // Edges: carries through every block (all ones plus one), none, the top bit.
            let m = mask(w);
            let edges = [
                (m, 1),
                (1, m),
                (0, 0),
                (m, m),
                (1 << (w - 1), 1 << (w - 1)),
                (0, 1),
            ];
            for (x, y) in edges {
                check(&c, w, subtract, neg, x, y);
            }
            check_random(&c, w, subtract, neg, &mut rng, 12);
        }
    }
}

/// [`check`] on `n` random pairs of operands.
fn check_random(c: &Circuit, w: usize, subtract: bool, neg: bool, rng: &mut StdRng, n: usize) {
    for _ in 0..n {
        let (x, y) = (operand(rng, w), operand(rng, w));
        check(c, w, subtract, neg, x, y);
    }
}

#[test]
fn prefix_additions_exhaustive_at_small_widths() {
    for w in 2..=6 {
        for (subtract, neg) in [(false, false), (true, false), (true, true)] {
            let c = circuit(Builder::new(), prefix_add, w, subtract, neg);
            for x in 0..=mask(w) {
                for y in 0..=mask(w) {
                    check(&c, w, subtract, neg, x, y);
                }
            }
        }
    }
}

/// ⌈log₂ n⌉.
fn log2_ceil(n: usize) -> u32 {
    usize::BITS - n.saturating_sub(1).leading_zeros()
}

#[test]
fn the_prefix_is_logarithmic_and_chosen_by_the_estimate() {
    for w in [8, 16, 32, 64, 128] {
        let k = w / 2;
        let prefix = circuit(Builder::new(), prefix_add, w, false, false).cost();
        let ripple = circuit(Builder::new(), ripple_add, w, false, false).cost();
        assert_eq!(ripple.depth as usize, k, "w {w}");
        assert!(
            prefix.depth <= log2_ceil(k - 1) + 2,
            "w {w}: depth {}",
            prefix.depth
        );
        let planned = |threads: usize, latency: u64| {
            let mut b = Builder::new();
            b.set_threads(threads);
            b.set_level_latency(latency);
            b.set_prefix_adders(true);
            circuit(b, add_blocks, w, false, false).cost()
        };
        // Unplanned, at 2 threads, and without prefix adders (a traced function): the
        // ripple, as before.
        let mut traced = Builder::new();
        traced.set_threads(125);
        assert_eq!(circuit(traced, add_blocks, w, false, false).cost(), ripple);
        assert_eq!(
            circuit(Builder::new(), add_blocks, w, false, false).cost(),
            ripple
        );
        assert_eq!(planned(2, 0), ripple, "w {w} at 2 threads");
        // 125 lanes, or 16 threads with a GPU's level latency: the prefix from 16 bits.
        if w >= 16 {
            assert_eq!(planned(125, 1), prefix, "w {w} on a GPU");
            assert_eq!(planned(16, 8), prefix, "w {w} at 16 lanes");
        }
    }
    // What is chosen is still an adder (a planned builder on random operands).
    let mut rng = StdRng::seed_from_u64(7);
    for w in [2, 5, 16, 33, 64, 127] {
        for threads in [1, 2, 16, 125] {
            let mut b = Builder::new();
            b.set_threads(threads);
            b.set_prefix_adders(true);
            let c = circuit(b, add_blocks, w, true, false);
            check_random(&c, w, true, false, &mut rng, 8);
        }
    }
}
