//! Radix-4 block products (`encint_arith::blocks`) against plain u128 arithmetic, run by
//! the clear executor: products, squares and sums of products, widths 1..=64, random and
//! edge operands, exhaustive at small widths; every bootstrap within the noise budget.

use encint_arith::blocks;
use encint_core::circuit::{Builder, Circuit, NodeId};
use encint_core::clear;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[path = "common/blocks.rs"]
mod common;
use common::*;

fn bits(v: u128, w: usize) -> Vec<i64> {
    (0..w).map(|k| ((v >> k) & 1) as i64).collect()
}

fn value(out: &[i64]) -> u128 {
    out.iter().enumerate().fold(0u128, |acc, (k, &d)| {
        assert!(d == 0 || d == 1, "output digit {d} is not a bit");
        acc | ((d as u128) << k)
    })
}

/// The circuit of `Σ x_k·y_k mod 2^width` over `pairs` operands of widths `(wx, wy)`
/// (`square`: one operand per pair, squared).
fn circuit(shapes: &[(usize, usize)], width: usize, square: bool) -> Circuit {
    let mut b = Builder::new();
    let ins: Vec<(Vec<NodeId>, Vec<NodeId>)> = shapes
        .iter()
        .map(|&(wx, wy)| {
            let x: Vec<NodeId> = (0..wx).map(|_| b.input()).collect();
            let y: Vec<NodeId> = if square {
                Vec::new()
            } else {
                (0..wy).map(|_| b.input()).collect()
            };
            (x, y)
        })
        .collect();
    let pairs: Vec<(&[NodeId], &[NodeId])> = ins
        .iter()
        .map(|(x, y)| {
            if square {
                (x.as_slice(), x.as_slice())
            } else {
                (x.as_slice(), y.as_slice())
            }
        })
        .collect();
    let out = blocks::mul_sum(&mut b, &pairs, width, BUDGET);
    assert_eq!(out.len(), width);
    let c = b.finish(out);
    assert!(
        c.budget_violations(BUDGET).is_empty(),
        "{:?}",
        c.budget_violations(BUDGET).first()
    );
    c
}

fn check(
    c: &Circuit,
    operands: &[(u128, u128)],
    shapes: &[(usize, usize)],
    width: usize,
    square: bool,
) {
    let mut inputs = Vec::new();
    let mut expect: u128 = 0;
    for (&(x, y), &(wx, wy)) in operands.iter().zip(shapes) {
        inputs.extend(bits(x, wx));
        let y = if square { x } else { y };
        if !square {
            inputs.extend(bits(y, wy));
        }
        expect = expect.wrapping_add(x.wrapping_mul(y));
    }
    let (out, _) = clear::run(c, &inputs).unwrap();
    assert_eq!(
        value(&out),
        expect & mask(width),
        "operands {operands:?} shapes {shapes:?} width {width} square {square}"
    );
}

#[test]
fn products_match_u128_on_random_operands() {
    let mut rng = StdRng::seed_from_u64(41);
    for w in 1..=64usize {
        for &width in &[w, 2 * w] {
            if width > 128 {
                continue;
            }
            let c = circuit(&[(w, w)], width, false);
            for _ in 0..25 {
                let (x, y) = (operand(&mut rng, w), operand(&mut rng, w));
                check(&c, &[(x, y)], &[(w, w)], width, false);
            }
        }
    }
}

#[test]
fn squares_match_u128_on_random_operands() {
    let mut rng = StdRng::seed_from_u64(42);
    for w in 1..=64usize {
        for &width in &[w, 2 * w] {
            let c = circuit(&[(w, 0)], width, true);
            for _ in 0..25 {
                let x = operand(&mut rng, w);
                check(&c, &[(x, 0)], &[(w, 0)], width, true);
            }
        }
    }
}

#[test]
fn products_exhaustive_at_small_widths() {
    for wx in 1..=5usize {
        for wy in 1..=5usize {
            for width in [1, wx.max(wy), wx + wy] {
                let c = circuit(&[(wx, wy)], width, false);
                for x in 0..(1u128 << wx) {
                    for y in 0..(1u128 << wy) {
                        check(&c, &[(x, y)], &[(wx, wy)], width, false);
                    }
                }
            }
        }
        let c = circuit(&[(wx, 0)], 2 * wx, true);
        for x in 0..(1u128 << wx) {
            check(&c, &[(x, 0)], &[(wx, 0)], 2 * wx, true);
        }
    }
}

#[test]
fn sums_of_products_match_u128() {
    let mut rng = StdRng::seed_from_u64(43);
    for _ in 0..40 {
        let n = rng.gen_range(1..=12usize);
        let shapes: Vec<(usize, usize)> = (0..n)
            .map(|_| (rng.gen_range(1..=24), rng.gen_range(1..=24)))
            .collect();
        let width = rng.gen_range(1..=56usize);
        let c = circuit(&shapes, width, false);
        for _ in 0..25 {
            let ops: Vec<(u128, u128)> = shapes
                .iter()
                .map(|&(wx, wy)| (operand(&mut rng, wx), operand(&mut rng, wy)))
                .collect();
            check(&c, &ops, &shapes, width, false);
        }
    }
}

/// Bootstrap counts of wrapping products and squares (TFHE-rs 1.8.2 `FheUint` mul on
/// 2-bit blocks: 28 / 111 / 440 for 8 / 16 / 32 bits, its `pbs-stats` counter).
#[test]
fn block_products_cost_at_most_tfhe_rs_plus_ten_percent() {
    for (w, peer) in [(8usize, 28u64), (16, 111), (32, 440)] {
        let mul = circuit(&[(w, w)], w, false).cost().bootstraps;
        let squ = circuit(&[(w, 0)], w, true).cost().bootstraps;
        assert!(mul * 10 <= peer * 11, "{w}-bit mul: {mul} bootstraps");
        assert!(squ <= peer, "{w}-bit square: {squ} bootstraps");
    }
}

/// A builder with two `w`-bit operands as its inputs (bits least significant first).
fn two_operands(w: usize) -> (Builder, Vec<NodeId>, Vec<NodeId>) {
    let mut b = Builder::new();
    let x = (0..w).map(|_| b.input()).collect();
    let y = (0..w).map(|_| b.input()).collect();
    (b, x, y)
}

/// A comparison's predicate on the sign of `x − y`, and its reference on the values.
type Predicate = (&'static str, fn(i64) -> bool, fn(i128, i128) -> bool);

/// The four comparisons, and equality read through the same tree (a predicate with no
/// single boundary: the least significant position reports its full sign), named.
const PREDICATES: [Predicate; 6] = [
    ("lt", |s| s < 0, |a, b| a < b),
    ("le", |s| s <= 0, |a, b| a <= b),
    ("gt", |s| s > 0, |a, b| a > b),
    ("ge", |s| s >= 0, |a, b| a >= b),
    ("eq by sign", |s| s == 0, |a, b| a == b),
    ("ne by sign", |s| s != 0, |a, b| a != b),
];

/// `eq` and every comparison, exhaustive over widths 1..=5, signed and unsigned, against
/// i128 comparisons of the two's-complement values.
#[test]
fn comparisons_exhaustive_at_small_widths() {
    let preds = PREDICATES;
    for w in 1..=5usize {
        for signed in [false, true] {
            let value = |u: u128| pattern_value(u, w, signed);
            let (mut b, x, y) = two_operands(w);
            let mut outs = vec![blocks::eq(&mut b, &x, &y)];
            for (_, p, _) in preds {
                outs.push(blocks::compare(&mut b, &x, &y, signed, p));
            }
            let c = b.finish(outs);
            assert!(c.budget_violations(BUDGET).is_empty());
            for u in 0..(1u128 << w) {
                for v in 0..(1u128 << w) {
                    let mut inputs = bits(u, w);
                    inputs.extend(bits(v, w));
                    let (out, _) = clear::run(&c, &inputs).unwrap();
                    let (a, bb) = (value(u), value(v));
                    assert_eq!(out[0], i64::from(a == bb), "eq {a} {bb} w{w}");
                    for (k, (name, _, r)) in preds.iter().enumerate() {
                        assert_eq!(out[k + 1], i64::from(r(a, bb)), "{name} {a} {bb} w{w}");
                    }
                }
            }
        }
    }
}

/// The comparison tree at every width up to 64 (one to thirty-two bit-pair differences:
/// trees of depth 1 to 4, low merges of four inputs) and `eq` (its indicators ANDed by
/// sums of up to fifteen and the half-step count of sixteen): exhaustive at 8 bits,
/// random and edge operands beyond (equal, one bit apart, every bit pair different),
/// against i128 comparisons.
#[test]
fn comparisons_at_wider_widths() {
    let preds = PREDICATES;
    let mut rng = StdRng::seed_from_u64(0xc0a7);
    for w in 6..=64usize {
        for signed in [false, true] {
            let value = |u: u128| pattern_value(u, w, signed);
            let (mut b, x, y) = two_operands(w);
            let mut outs: Vec<NodeId> = preds
                .iter()
                .map(|&(_, p, _)| blocks::compare(&mut b, &x, &y, signed, p))
                .collect();
            outs.push(blocks::eq(&mut b, &x, &y));
            let c = b.finish(outs);
            assert!(c.budget_violations(BUDGET).is_empty(), "w{w}");
            let pairs: Vec<(u128, u128)> = if w == 8 {
                (0..1u128 << 16).map(|p| (p & 0xff, p >> 8)).collect()
            } else {
                (0..300)
                    .map(|k| {
                        let u = operand(&mut rng, w);
                        // Equal high parts often, so the low positions decide.
                        let v = match k % 4 {
                            0 => u ^ (1u128 << rng.gen_range(0..w)),
                            1 => u,
                            // Every bit pair different: each indicator 0.
                            2 => u ^ (((1u128 << w) - 1) & 0x5555_5555_5555_5555_5555),
                            _ => operand(&mut rng, w),
                        };
                        (u, v)
                    })
                    .collect()
            };
            for (u, v) in pairs {
                let mut inputs = bits(u, w);
                inputs.extend(bits(v, w));
                let (out, _) = clear::run(&c, &inputs).unwrap();
                let (a, bb) = (value(u), value(v));
                for (k, (name, _, r)) in preds.iter().enumerate() {
                    assert_eq!(out[k], i64::from(r(a, bb)), "{name} {a} {bb} w{w}");
                }
                assert_eq!(out[preds.len()], i64::from(a == bb), "eq {a} {bb} w{w}");
            }
        }
    }
}

/// An 8-bit comparison of bits is four pair signs and one merge reading `pred` (depth 2),
/// a 16-bit one eleven bootstraps in depth 3: the merge beside the least significant
/// pair reads four positions.
#[test]
fn comparison_costs() {
    for (w, most, depth) in [(8, 5, 2), (16, 11, 3), (32, 22, 4), (64, 46, 4)] {
        let (mut b, x, y) = two_operands(w);
        let lt = blocks::compare(&mut b, &x, &y, false, |s| s < 0);
        let c = b.finish(vec![lt]);
        let cost = c.cost();
        assert!(cost.bootstraps <= most, "w{w}: {cost:?}");
        assert!(cost.depth <= depth, "w{w}: {cost:?}");
    }
}

/// The minimum and the maximum of one pair of stored blocks (`min_max_blocks` on the
/// pair's `SELECT_SCALE·[x ≥ y]`), exhaustive over widths 1..=6, signed and unsigned,
/// against i128 `min` and `max`; the pair costs three bootstraps per block beside the
/// comparison (either alone two), every output a fresh block and every bootstrap within
/// the budget.
#[test]
fn min_and_max_of_one_pair_share_their_tables() {
    for w in 1..=6usize {
        let k = w.div_ceil(2) as u64;
        for signed in [false, true] {
            let mut b = Builder::new();
            let x: Vec<NodeId> = (0..k).map(|_| b.input()).collect();
            let y: Vec<NodeId> = (0..k).map(|_| b.input()).collect();
            let ge =
                blocks::compare_blocks(&mut b, &x, &y, w, signed, |s| s >= 0, blocks::SELECT_SCALE);
            let ge_only = b.clone().finish(vec![ge]).cost().bootstraps;
            let alone = {
                let mut a = b.clone();
                let max = blocks::min_max_blocks(&mut a, ge, &x, &y, w, true);
                a.finish(max).cost().bootstraps
            };
            assert_eq!(alone, ge_only + 2 * k, "max alone, w{w}");
            let max = blocks::min_max_blocks(&mut b, ge, &x, &y, w, true);
            let min = blocks::min_max_blocks(&mut b, ge, &x, &y, w, false);
            let fresh = max.iter().chain(&min).all(|&d| b.qweight(d) <= 1);
            assert!(fresh, "w{w}: outputs are fresh blocks");
            let c = b.finish(max.into_iter().chain(min).collect());
            assert!(c.budget_violations(BUDGET).is_empty());
            assert_eq!(c.cost().bootstraps, ge_only + 3 * k, "w{w} signed {signed}");
            let blocks_of = |u: u128| -> Vec<i64> {
                (0..k)
                    .map(|i| ((u >> (2 * i)) & if 2 * i + 1 == w as u64 { 1 } else { 3 }) as i64)
                    .collect()
            };
            let of_blocks = |d: &[i64]| -> u128 {
                d.iter()
                    .enumerate()
                    .fold(0u128, |acc, (i, &v)| acc | ((v as u128) << (2 * i)))
            };
            for u in 0..(1u128 << w) {
                for v in 0..(1u128 << w) {
                    let mut inputs = blocks_of(u);
                    inputs.extend(blocks_of(v));
                    let (out, _) = clear::run(&c, &inputs).unwrap();
                    let (hi, lo) = out.split_at(k as usize);
                    let (a, bb) = (pattern_value(u, w, signed), pattern_value(v, w, signed));
                    let (got_max, got_min) = (
                        pattern_value(of_blocks(hi), w, signed),
                        pattern_value(of_blocks(lo), w, signed),
                    );
                    assert_eq!(got_max, a.max(bb), "max {a} {bb} w{w}");
                    assert_eq!(got_min, a.min(bb), "min {a} {bb} w{w}");
                }
            }
        }
    }
}

/// Linear combinations with clear weights (`scaled_sum_blocks`) and sums of products
/// with addends and a constant (`sum_products_blocks`) on stored blocks, against u128
/// wrapping arithmetic: widths 1..=64, random and edge operands, weights and constants,
/// every output a fresh block and every bootstrap within the budget.
#[test]
fn block_linear_combinations_and_sums_of_products_match_u128() {
    let mut rng = StdRng::seed_from_u64(41);
    for w in (1..=16usize).chain([24, 31, 32, 33, 48, 64]) {
        let k = w.div_ceil(2);
        for round in 0..4 {
            let mut b = Builder::new();
            let inputs = |b: &mut Builder| -> Vec<NodeId> { (0..k).map(|_| b.input()).collect() };
            let (x, y, z) = (inputs(&mut b), inputs(&mut b), inputs(&mut b));
            let weights = [
                operand(&mut rng, w),
                operand(&mut rng, w),
                rng.gen::<u128>(),
            ];
            let c = if round == 0 { 0 } else { rng.gen::<u128>() };
            let lin = blocks::scaled_sum_blocks(
                &mut b,
                &[(&x, weights[0]), (&y, weights[1]), (&z, weights[2])],
                c,
                w,
                BUDGET,
            );
            let sop =
                blocks::sum_products_blocks(&mut b, &[(&x, &y), (&z, &z)], &[&x], c, w, BUDGET);
            let fresh = lin.iter().chain(&sop).all(|&d| b.qweight(d) <= 1);
            assert!(fresh, "w{w}: outputs are fresh blocks");
            let circuit = b.finish(lin.into_iter().chain(sop).collect());
            assert!(circuit.budget_violations(BUDGET).is_empty(), "w{w}");
            for _ in 0..6 {
                let (u, v, t) = (
                    operand(&mut rng, w),
                    operand(&mut rng, w),
                    operand(&mut rng, w),
                );
                let mut ins = pattern_blocks(u, w);
                ins.extend(pattern_blocks(v, w));
                ins.extend(pattern_blocks(t, w));
                let (out, _) = clear::run(&circuit, &ins).unwrap();
                let want_lin = u
                    .wrapping_mul(weights[0])
                    .wrapping_add(v.wrapping_mul(weights[1]))
                    .wrapping_add(t.wrapping_mul(weights[2]))
                    .wrapping_add(c);
                let want_sop = u
                    .wrapping_mul(v)
                    .wrapping_add(t.wrapping_mul(t))
                    .wrapping_add(u)
                    .wrapping_add(c);
                let (a, s) = out.split_at(k);
                assert_eq!(
                    blocks_value(a),
                    want_lin & mask(w),
                    "linear w{w} {u} {v} {t} {weights:?} {c}"
                );
                assert_eq!(
                    blocks_value(s),
                    want_sop & mask(w),
                    "products w{w} {u} {v} {t} {c}"
                );
            }
        }
    }
}

/// The pairs `x0·x1 + x2² + x3·x4` of the sum of products of
/// [`block_products_planned_for_a_thread_count_match_u128_and_are_planned_by_their_time`].
fn sop_pairs(xs: &[Vec<NodeId>]) -> [(&[NodeId], &[NodeId]); 3] {
    [
        (&xs[0][..], &xs[1][..]),
        (&xs[2][..], &xs[2][..]),
        (&xs[3][..], &xs[4][..]),
    ]
}

/// Sums of products and products planned for a thread count (the wide reading of block
/// products kept where the estimate says it is faster) against u128 arithmetic, planned by
/// an estimate that is the circuit's own time at that count (checked against its schedule).
#[test]
fn block_products_planned_for_a_thread_count_match_u128_and_are_planned_by_their_time() {
    // A builder planned for few threads may read each block product as one wide digit
    // (one bootstrap, fewer digits per column sum); the result must not change, the
    // outputs stay fresh within the budget, and at the planned thread count the circuit
    // is estimated no slower than the unplanned one.
    let mut rng = StdRng::seed_from_u64(43);
    let mut wide_chosen = 0;
    for w in (1..=12usize).chain([16, 24, 31, 32, 48, 64]) {
        let k = w.div_ceil(2);
        for threads in [None, Some(1), Some(2), Some(16)] {
            let mut b = builder_for(threads);
            let xs = block_inputs(&mut b, 5, k);
            let c = rng.gen::<u128>();
            let sop = blocks::sum_products_blocks(&mut b, &sop_pairs(&xs), &[&xs[4]], c, w, BUDGET);
            let product = blocks::mul_blocks(&mut b, &xs[0], &xs[3], w, BUDGET);
            let outs: Vec<NodeId> = sop.iter().chain(&product).copied().collect();
            assert!(
                outs.iter().all(|&d| b.qweight(d) <= 1),
                "w{w} {threads:?}: fresh"
            );
            let circuit = b.finish(outs);
            assert!(
                circuit.budget_violations(BUDGET).is_empty(),
                "w{w} {threads:?}"
            );
            for _ in 0..5 {
                let v: Vec<u128> = (0..5).map(|_| operand(&mut rng, w)).collect();
                let ins: Vec<i64> = v.iter().flat_map(|&u| pattern_blocks(u, w)).collect();
                let (out, _) = clear::run(&circuit, &ins).unwrap();
                let want_sop = v[0]
                    .wrapping_mul(v[1])
                    .wrapping_add(v[2].wrapping_mul(v[2]))
                    .wrapping_add(v[3].wrapping_mul(v[4]))
                    .wrapping_add(v[4])
                    .wrapping_add(c);
                let (s, p) = out.split_at(k);
                assert_eq!(
                    blocks_value(s),
                    want_sop & mask(w),
                    "w{w} {threads:?} {v:?} {c}"
                );
                assert_eq!(
                    blocks_value(p),
                    v[0].wrapping_mul(v[3]) & mask(w),
                    "w{w} {threads:?} {v:?}"
                );
            }
            if threads.is_none() {
                continue;
            }
            // Each part alone (the sum of products, the product), planned for `t` threads
            // (its estimate checked against its schedule) and unplanned: the wide reading
            // is taken where it has fewer bootstraps.
            let part = |threads: Option<usize>, part: usize| {
                let mut u = builder_for(threads);
                let ys = block_inputs(&mut u, 5, k);
                let outs = if part == 0 {
                    blocks::sum_products_blocks(&mut u, &sop_pairs(&ys), &[&ys[4]], c, w, BUDGET)
                } else {
                    blocks::mul_blocks(&mut u, &ys[0], &ys[3], w, BUDGET)
                };
                finish_for(u, outs, threads, &format!("w{w} part {part}"))
            };
            for p in 0..2 {
                wide_chosen += fewer_bootstraps(&part(threads, p), &part(None, p));
            }
        }
    }
    // The wide reading is taken somewhere (few threads, wide operands).
    assert!(wide_chosen > 0);
}

#[test]
fn block_products_exhaustive_at_small_widths_when_planned_for_one_thread() {
    for w in 1..=8usize {
        let k = w.div_ceil(2);
        let mut b = Builder::new();
        b.set_threads(1);
        let x: Vec<NodeId> = (0..k).map(|_| b.input()).collect();
        let y: Vec<NodeId> = (0..k).map(|_| b.input()).collect();
        let mut outs = blocks::mul_blocks(&mut b, &x, &y, w, BUDGET);
        outs.extend(blocks::mul_blocks(&mut b, &x, &x, w, BUDGET));
        let pairs = [
            (&x[..], &y[..]),
            (&y[..], &x[..]),
            (&x[..], &x[..]),
            (&y[..], &y[..]),
        ];
        outs.extend(blocks::sum_products_blocks(
            &mut b,
            &pairs,
            &[&x],
            5,
            w,
            BUDGET,
        ));
        let circuit = b.finish(outs);
        assert!(circuit.budget_violations(BUDGET).is_empty(), "w{w}");
        for u in 0..1u128 << w {
            for v in 0..1u128 << w {
                let mut ins = pattern_blocks(u, w);
                ins.extend(pattern_blocks(v, w));
                let (out, _) = clear::run(&circuit, &ins).unwrap();
                let (p, rest) = out.split_at(k);
                let (s, t) = rest.split_at(k);
                assert_eq!(blocks_value(p), (u * v) & mask(w), "w{w} {u}·{v}");
                assert_eq!(blocks_value(s), (u * u) & mask(w), "w{w} {u}²");
                let want = 2 * u * v + u * u + v * v + u + 5;
                assert_eq!(
                    blocks_value(t),
                    want & mask(w),
                    "w{w} (u+v)² + u + 5, {u} {v}"
                );
            }
        }
    }
}
