//! Block circuits with clear weights and known blocks: products by clear values and
//! linear combinations (both recodings of the weights), bitwise logic against known
//! blocks, and the maximum or minimum of a signed value and zero, against plain integers.

use encint_arith::blocks;
use encint_core::circuit::{Builder, NodeId};
use encint_core::clear;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[path = "common/blocks.rs"]
mod common;
use common::*;

/// Products by clear values and linear combinations with clear weights, planned for a
/// thread count (where the weights' recoding of least column mass, with digits `±2`,
/// may be kept) and unplanned, against u128 wrapping arithmetic; outputs fresh, within
/// the budget, and planned by an estimate that is the circuit's own time at that count
/// (checked against its schedule).
#[test]
fn clear_weights_planned_for_a_thread_count_match_u128_and_are_planned_by_their_time() {
    let mut rng = StdRng::seed_from_u64(47);
    // Weights with runs of digits 2 and 3 (where the two recodings differ), and random.
    let fixed = [
        0x9E37u128,
        0xAAAA_AAAA,
        0xBBBB_BBBB,
        0x2222_2222,
        0xE6E6_E6E6,
        0x7FFF_FFFD,
    ];
    let mut recoded = 0;
    for w in (1..=12usize).chain([16, 24, 31, 32, 33, 48, 64]) {
        let k = w.div_ceil(2);
        for (n, &fixed_weight) in fixed.iter().enumerate() {
            let weights = [fixed_weight, rng.gen::<u128>(), operand(&mut rng, w)];
            let c = if n == 0 { 0 } else { rng.gen::<u128>() };
            // The product (`part` 0) or the combination (1), each circuit alone: the
            // recoding is chosen per circuit, by its own estimate.
            let build = |threads: Option<usize>, part: usize| {
                let mut b = builder_for(threads);
                let x: Vec<NodeId> = (0..k).map(|_| b.input()).collect();
                let y: Vec<NodeId> = (0..k).map(|_| b.input()).collect();
                let outs = if part == 0 {
                    blocks::scalar_mul_blocks(&mut b, &x, w, weights[0], BUDGET)
                } else {
                    let terms = [(&x[..], weights[1]), (&y[..], weights[2])];
                    blocks::scaled_sum_blocks(&mut b, &terms, c, w, BUDGET)
                };
                assert!(outs.iter().all(|&d| b.qweight(d) <= 1), "w{w}: fresh");
                finish_for(b, outs, threads, &format!("w{w} {weights:?} part {part}"))
            };
            for threads in [None, Some(1), Some(2), Some(16)] {
                let circuits = [build(threads, 0), build(threads, 1)];
                for circuit in &circuits {
                    assert!(
                        circuit.budget_violations(BUDGET).is_empty(),
                        "w{w} {threads:?}"
                    );
                }
                for _ in 0..4 {
                    let (u, v) = (operand(&mut rng, w), operand(&mut rng, w));
                    let mut ins = pattern_blocks(u, w);
                    ins.extend(pattern_blocks(v, w));
                    let (p, _) = clear::run(&circuits[0], &ins).unwrap();
                    let (s, _) = clear::run(&circuits[1], &ins).unwrap();
                    assert_eq!(
                        blocks_value(&p),
                        u.wrapping_mul(weights[0]) & mask(w),
                        "w{w} {threads:?} {u}·{:#x}",
                        weights[0]
                    );
                    let want = u
                        .wrapping_mul(weights[1])
                        .wrapping_add(v.wrapping_mul(weights[2]))
                        .wrapping_add(c);
                    assert_eq!(
                        blocks_value(&s),
                        want & mask(w),
                        "w{w} {threads:?} {u} {v} {weights:?} {c}"
                    );
                }
                if threads.is_none() {
                    continue;
                }
                for (part, circuit) in circuits.iter().enumerate() {
                    recoded += fewer_bootstraps(circuit, &build(None, part));
                }
            }
        }
    }
    // The recoding of least mass is kept somewhere (few threads, wide weights).
    assert!(recoded > 0);
}

/// Every product by a clear value at widths 1 to 8, for every value, planned for one
/// thread (the recoding of least column mass where it is faster) and unplanned.
#[test]
fn clear_products_exhaustive_at_small_widths() {
    for w in 1..=8usize {
        let k = w.div_ceil(2);
        for threads in [None, Some(1)] {
            for weight in 0..1u128 << w {
                let mut b = builder_for(threads);
                let x: Vec<NodeId> = (0..k).map(|_| b.input()).collect();
                let outs = blocks::scalar_mul_blocks(&mut b, &x, w, weight, BUDGET);
                let circuit = b.finish(outs);
                assert!(
                    circuit.budget_violations(BUDGET).is_empty(),
                    "w{w} {weight}"
                );
                for u in 0..1u128 << w {
                    let (out, _) = clear::run(&circuit, &pattern_blocks(u, w)).unwrap();
                    assert_eq!(
                        blocks_value(&out),
                        (u * weight) & mask(w),
                        "w{w} {threads:?} {u}·{weight}"
                    );
                }
            }
        }
    }
}

/// Bitwise logic on blocks where some blocks of one operand are known constants (as a
/// shift or a narrow cast leaves them): every operand at widths 1 to 7 against plain
/// integers, outputs fresh, and a block against a known one never costs more than one
/// bootstrap (none for `x ^ 0`, `x & 3`, `x | 0`, `x ^ 3`, `x & 0`, `x | 3`).
#[test]
fn bitwise_logic_with_known_blocks_matches_plain_integers() {
    type Ops = (fn(i64, i64) -> i64, fn(u128, u128) -> u128);
    let ops: [Ops; 3] = [
        (|p, q| p & q, |u, v| u & v),
        (|p, q| p | q, |u, v| u | v),
        (|p, q| p ^ q, |u, v| u ^ v),
    ];
    for w in 1..=7usize {
        let k = w.div_ceil(2);
        // Which blocks of `y` are known, and their values (every pattern at once: the
        // known value of block `i` is bit pair `i` of `known`).
        for mask_known in 0..1usize << k {
            for known in 0..1u128 << w {
                for (n, &(f, g)) in ops.iter().enumerate() {
                    for swap in [false, true] {
                        let mut b = Builder::new();
                        let x: Vec<NodeId> = (0..k).map(|_| b.input()).collect();
                        let y: Vec<NodeId> = (0..k)
                            .map(|i| {
                                if mask_known >> i & 1 == 1 {
                                    b.constant(((known >> (2 * i)) & 3) as i64)
                                } else {
                                    b.input()
                                }
                            })
                            .collect();
                        let (p, q) = if swap { (&y, &x) } else { (&x, &y) };
                        let out = blocks::bitwise_blocks(&mut b, p, q, w, f);
                        assert!(out.iter().all(|&d| b.qweight(d) <= 1), "fresh");
                        let circuit = b.finish(out);
                        let unknown = k - mask_known.count_ones() as usize;
                        // One bootstrap per pair of unknown blocks, at most one per block
                        // against a known one.
                        assert!(circuit.cost().bootstraps as usize <= k, "w{w}");
                        let tables = (0..k)
                            .filter(|&i| mask_known >> i & 1 == 1)
                            .filter(|&i| {
                                let c = ((known >> (2 * i)) & 3) as i64;
                                let top = if 2 * i + 1 == w { 1 } else { 3 };
                                // Identity, complement or constant: no bootstrap.
                                c != 0 && c != top
                            })
                            .count();
                        assert!(
                            circuit.cost().bootstraps as usize <= unknown + tables,
                            "w{w} op{n} known {mask_known:b} {known:#x}"
                        );
                        for u in 0..1u128 << w {
                            let mut v = u.wrapping_mul(0x9E37) & mask(w);
                            for i in 0..k {
                                if mask_known >> i & 1 == 1 {
                                    v = (v & !(3 << (2 * i))) | (known & (3 << (2 * i)));
                                }
                            }
                            v &= mask(w);
                            let mut ins = pattern_blocks(u, w);
                            let ys = pattern_blocks(v, w);
                            ins.extend((0..k).filter(|&i| mask_known >> i & 1 == 0).map(|i| ys[i]));
                            let (out, _) = clear::run(&circuit, &ins).unwrap();
                            let want = if swap { g(v, u) } else { g(u, v) } & mask(w);
                            assert_eq!(
                                blocks_value(&out),
                                want,
                                "w{w} op{n} swap {swap} {u:#x} {v:#x} known {mask_known:b}"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// `max(x, 0)` and `min(x, 0)` of every signed value at widths 1 to 12 on blocks, against
/// plain integers: fresh outputs, one bootstrap per block at most, one level.
#[test]
fn max_and_min_with_zero_exhaustive_at_small_widths() {
    for w in 1..=12usize {
        let k = w.div_ceil(2);
        for max in [true, false] {
            let mut b = Builder::new();
            let x: Vec<NodeId> = (0..k).map(|_| b.input()).collect();
            let out = blocks::max_min_zero_blocks(&mut b, &x, w, max);
            assert!(out.iter().all(|&d| b.qweight(d) <= 1), "w{w}: fresh");
            let circuit = b.finish(out);
            assert!(circuit.budget_violations(BUDGET).is_empty(), "w{w}");
            let cost = circuit.cost();
            assert!(
                cost.bootstraps as usize <= k && cost.depth <= 1,
                "w{w}: {cost:?}"
            );
            for u in 0..1u128 << w {
                let (out, _) = clear::run(&circuit, &pattern_blocks(u, w)).unwrap();
                let v = pattern_value(u, w, true);
                let want = if max { v.max(0) } else { v.min(0) };
                assert_eq!(
                    blocks_value(&out),
                    (want as u128) & mask(w),
                    "w{w} max {max}: {v}"
                );
            }
        }
    }
}
