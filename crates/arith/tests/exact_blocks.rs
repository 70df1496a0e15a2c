//! The exact block product and square of signed-binary integers
//! (`encint_arith::blocks::{mul_signed_digits, square_signed_digits}`, `Arith::mul_blocks`,
//! `Arith::square_blocks`), run by the clear executor on digit strings of many lengths
//! (every representative of small lengths, random non-canonical strings, the edges)
//! against `BigInt` products computed here; every circuit is checked against the noise
//! budget of 25.

use encint_arith::{blocks, Arith, Config, MulPlan, SInt, SquarePlan};
use encint_core::circuit::{Builder, Circuit};
use encint_core::clear;
use num_bigint::BigInt;
use rand::{Rng, SeedableRng};

const BUDGET: u64 = 25;

/// Value of digits (a test-side fold).
fn value(d: &[i64]) -> BigInt {
    d.iter().rev().fold(BigInt::from(0), |a, &x| a * 2 + x)
}

/// The product circuit on inputs of lengths `n` and `m` (a square when `m` is `None`).
fn circuit(n: usize, m: Option<usize>) -> Circuit {
    circuit_planned(n, m, None)
}

/// [`circuit`] built for `threads` threads when given ([`Builder::set_threads`]).
fn circuit_planned(n: usize, m: Option<usize>, threads: Option<usize>) -> Circuit {
    let mut b = Builder::new();
    if let Some(t) = threads {
        b.set_threads(t);
    }
    let x: Vec<_> = (0..n).map(|_| b.input()).collect();
    let out = match m {
        Some(m) => {
            let y: Vec<_> = (0..m).map(|_| b.input()).collect();
            blocks::mul_signed_digits(&mut b, &x, &y, BUDGET)
        }
        None => blocks::square_signed_digits(&mut b, &x, BUDGET),
    };
    let c = b.finish(out);
    assert!(
        c.cost().max_qweight <= BUDGET,
        "{n}x{m:?}: quadratic weight {}",
        c.cost().max_qweight
    );
    c
}

/// Runs `c` on the digits and checks the outputs are digits of the wanted value.
fn check(c: &Circuit, inputs: &[&[i64]], want: BigInt) {
    let flat: Vec<i64> = inputs.iter().flat_map(|d| d.iter().copied()).collect();
    let (out, _) = clear::run(c, &flat).unwrap();
    assert!(
        out.iter().all(|d| (-1..=1).contains(d)),
        "digits out of range: {out:?}"
    );
    assert_eq!(value(&out), want, "inputs {inputs:?}");
}

/// Every digit string of length `len` (3^len of them).
fn all_strings(len: usize) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for _ in 0..len {
        out = out
            .into_iter()
            .flat_map(|v| {
                (-1..=1).map(move |d| {
                    let mut w = v.clone();
                    w.push(d);
                    w
                })
            })
            .collect();
    }
    out
}

/// Random non-canonical digits, and the edges: all -1, all 1, zero, `2^(len-1)` as
/// `(-1, …, -1, 1)`-style strings.
fn samples(rng: &mut impl Rng, len: usize, count: usize) -> Vec<Vec<i64>> {
    let mut v = vec![
        vec![-1; len],
        vec![1; len],
        vec![0; len],
        (0..len)
            .map(|i| if i + 1 == len { 1 } else { -1 })
            .collect(),
        (0..len)
            .map(|i| if i + 1 == len { -1 } else { 1 })
            .collect(),
    ];
    v.extend((0..count).map(|_| (0..len).map(|_| rng.gen_range(-1..=1)).collect()));
    v
}

#[test]
fn products_of_every_short_string() {
    for n in 1..=4 {
        for m in 1..=4 {
            let c = circuit(n, Some(m));
            for x in all_strings(n) {
                for y in all_strings(m) {
                    check(&c, &[&x, &y], value(&x) * value(&y));
                }
            }
        }
    }
}

#[test]
fn squares_of_every_short_string() {
    for n in 1..=7 {
        let c = circuit(n, None);
        for x in all_strings(n) {
            check(&c, &[&x], value(&x) * value(&x));
        }
    }
}

#[test]
fn products_of_random_strings() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed_b10c);
    let mut lens: Vec<(usize, usize)> = (1..=20).flat_map(|n| [(n, n), (n, 21 - n)]).collect();
    lens.extend([
        (16, 16),
        (16, 5),
        (1, 16),
        (16, 1),
        (33, 17),
        (40, 40),
        (64, 64),
        (130, 4),
        (4, 130),
    ]);
    for (n, m) in lens {
        let c = circuit(n, Some(m));
        for (x, y) in samples(&mut rng, n, 20)
            .iter()
            .zip(samples(&mut rng, m, 20))
        {
            check(&c, &[x, &y], value(x) * value(&y));
        }
    }
}

#[test]
fn squares_of_random_strings() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed_5a4e);
    for n in (8..=40).chain([64]) {
        let c = circuit(n, None);
        for x in samples(&mut rng, n, 20) {
            check(&c, &[&x], value(&x) * value(&x));
        }
    }
}

#[test]
fn empty_operands_give_zero() {
    let mut b = Builder::new();
    let x: Vec<_> = (0..5).map(|_| b.input()).collect();
    assert!(blocks::mul_signed_digits(&mut b, &x, &[], BUDGET).is_empty());
    assert!(blocks::mul_signed_digits(&mut b, &[], &x, BUDGET).is_empty());
    assert!(blocks::square_signed_digits(&mut b, &[], BUDGET).is_empty());
}

/// The balanced recoding costs one table per digit (one more for an odd count), in
/// `max(n − 1, 1)` blind rotations, and gives blocks in {-2, -1, 0, 1} (the last in
/// {-1, 0, 1}) holding the value.
#[test]
fn balanced_blocks_hold_the_value() {
    for n in 1..=7usize {
        let mut b = Builder::new();
        let x: Vec<_> = (0..n).map(|_| b.input()).collect();
        let u = blocks::balanced_blocks(&mut b, &x);
        let c = b.finish(u);
        assert_eq!(
            c.unpack_many().cost().bootstraps,
            (n + n % 2) as u64,
            "{n} digits"
        );
        // Tables on one selector of a small range share a blind rotation.
        assert_eq!(
            c.cost().bootstraps,
            n.saturating_sub(1).max(1) as u64,
            "{n} digits"
        );
        for x in all_strings(n) {
            let (out, _) = clear::run(&c, &x).unwrap();
            let (top, low) = out.split_last().unwrap();
            assert!(low.iter().all(|d| (-2..=1).contains(d)), "{out:?}");
            assert!((-1..=1).contains(top), "{out:?}");
            let got = out
                .iter()
                .rev()
                .fold(BigInt::from(0), |a, &blk| a * 4 + blk);
            assert_eq!(got, value(&x), "{x:?}");
        }
    }
}

/// The default product and square of `Arith` take the block circuits where they are
/// cheaper (16 digits: at most 260 bootstraps), and stay within the budget.
#[test]
fn default_products_take_the_cheaper_circuit() {
    for config in [Config::PARMESAN, Config::BUDGET_25] {
        let ar = Arith::new(config);
        assert_eq!(ar.mul_plan(16, 16), MulPlan::Blocks);
        assert_eq!(ar.square_plan(16), SquarePlan::Blocks);
        let mut b = Builder::new();
        let x = SInt::input(&mut b, 16);
        let y = SInt::input(&mut b, 16);
        let p = ar.mul(&mut b, &x, &y);
        let cost = b.finish(p.digits).cost();
        assert!(cost.bootstraps <= 260, "{cost:?}");
        assert!(cost.max_qweight <= BUDGET, "{cost:?}");
    }
}

/// A configuration below the budget of 25 keeps Parmesan's circuits.
#[test]
fn small_budgets_keep_parmesans_circuits() {
    let ar = Arith::new(Config { max_qweight: 21 });
    assert_ne!(ar.mul_plan(16, 16), MulPlan::Blocks);
    assert_ne!(ar.square_plan(16), SquarePlan::Blocks);
}

/// The circuit of `product` on `n` input digits and the known digits `y` (constant nodes).
fn times_known(
    n: usize,
    y: &[i64],
    product: impl FnOnce(&mut Builder, &SInt, &SInt) -> SInt,
) -> Circuit {
    let mut b = Builder::new();
    let xs = SInt::input(&mut b, n);
    let ys = SInt {
        digits: y.iter().map(|&d| b.constant(d)).collect(),
    };
    let out = product(&mut b, &xs, &ys);
    b.finish(out.digits)
}

/// A product with one operand known (its digits constant nodes, as a clear operand of the
/// Python package is): the same value as with both encrypted.
#[test]
fn products_with_a_known_operand() {
    let ar = encint_arith::Arith::new(encint_arith::Config {
        max_qweight: BUDGET,
    });
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xc0_57);
    for (n, m) in [(130usize, 4usize), (4, 130), (16, 16), (12, 40)] {
        for (x, y) in samples(&mut rng, n, 5).iter().zip(samples(&mut rng, m, 5)) {
            let c = times_known(n, &y, |b, xs, ys| ar.mul(b, xs, ys));
            check(&c, &[x], value(x) * value(&y));
            let c = times_known(n, &y, |b, xs, ys| ar.mul(b, ys, xs));
            check(&c, &[x], value(x) * value(&y));
        }
    }
}

/// Every short string times every short known string (a known block of 0 adds nothing to
/// its column), through the block circuit itself.
#[test]
fn block_products_with_every_short_known_operand() {
    let ar = encint_arith::Arith::new(encint_arith::Config {
        max_qweight: BUDGET,
    });
    for n in 1..=6 {
        for m in 1..=4 {
            for x in all_strings(n) {
                for y in all_strings(m) {
                    let c = times_known(n, &y, |b, xs, ys| ar.mul_blocks(b, xs, ys));
                    let (o, _) = clear::run(&c, &x).unwrap();
                    assert_eq!(value(&o), value(&x) * value(&y), "{x:?} times known {y:?}");
                }
            }
        }
    }
}

/// An exact product or square is the same circuit whatever thread count it is planned
/// for: what `encint cost` prints for it (unplanned) is what a server runs (planned for
/// its threads), bootstrap for bootstrap, so progress totals match the cost.
#[test]
fn exact_products_are_planned_alike_for_every_thread_count() {
    for n in 1..=24 {
        for m in [None, Some(n), Some(n / 2 + 1)] {
            let plain = circuit(n, m).cost();
            for t in [1, 2, 16] {
                let planned = circuit_planned(n, m, Some(t)).cost();
                assert_eq!(
                    (planned.bootstraps, planned.depth),
                    (plain.bootstraps, plain.depth),
                    "{n}x{m:?} at {t} threads"
                );
            }
        }
    }
}
