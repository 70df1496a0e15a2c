//! Property tests of every operation against i128 arithmetic, run by the clear
//! executor, in Parmesan's form and within the 25 noise budget.

use encint_arith::{value_of, Arith, Config, SInt};
use encint_core::circuit::Builder;
use encint_core::clear;
use num_bigint::BigInt;
use proptest::prelude::*;
use proptest::test_runner::Config as PtConfig;

/// A random signed binary vector of exactly `len` digits (non-canonical in general).
fn digits(len: usize) -> impl Strategy<Value = Vec<i8>> {
    prop::collection::vec(
        prop_oneof![4 => -1i8..=1, 1 => Just(-1i8), 1 => Just(0i8)],
        len..=len,
    )
}

/// Two operands of random (possibly unequal) widths in 1..=64.
fn two_operands() -> impl Strategy<Value = (Vec<i8>, Vec<i8>)> {
    (1usize..=64, 1usize..=64).prop_flat_map(|(a, b)| (digits(a), digits(b)))
}

fn one_operand() -> impl Strategy<Value = Vec<i8>> {
    (1usize..=64).prop_flat_map(digits)
}

fn value(d: &[i8]) -> i128 {
    d.iter().rev().fold(0i128, |a, &x| a * 2 + i128::from(x))
}

/// Builds `op` on fresh inputs shaped like the operands, runs it in the clear on
/// their digits, checks digits stay in {-1,0,1} and returns the output value(s).
fn run(
    config: Config,
    operands: &[&[i8]],
    op: impl FnOnce(&Arith, &mut Builder, &[SInt]) -> Vec<encint_core::circuit::NodeId>,
) -> Vec<i64> {
    let ar = Arith::new(config);
    let mut b = Builder::new();
    let ins: Vec<SInt> = operands
        .iter()
        .map(|o| SInt::input(&mut b, o.len()))
        .collect();
    let outs = op(&ar, &mut b, &ins);
    let circuit = b.finish(outs);
    let cost = circuit.cost();
    assert!(
        cost.max_qweight <= config.max_qweight,
        "budget {} exceeded: {}",
        config.max_qweight,
        cost.max_qweight
    );
    let inputs: Vec<i64> = operands
        .iter()
        .flat_map(|o| o.iter().map(|&d| i64::from(d)))
        .collect();
    let (out, _) = clear::run(&circuit, &inputs).unwrap();
    out
}

/// Exact value of output digits (products of 64-digit operands exceed i128).
fn as_big(out: &[i64]) -> BigInt {
    assert!(
        out.iter().all(|d| (-1..=1).contains(d)),
        "digits out of range: {out:?}"
    );
    out.iter().rev().fold(BigInt::from(0), |a, &d| a * 2 + d)
}

fn as_int(out: &[i64]) -> i128 {
    assert!(
        out.iter().all(|d| (-1..=1).contains(d)),
        "digits out of range: {out:?}"
    );
    value_of(out).unwrap()
}

const CONFIGS: [Config; 2] = [Config::PARMESAN, Config::BUDGET_25];

fn cases(n: u32) -> PtConfig {
    PtConfig {
        cases: n,
        ..PtConfig::default()
    }
}

proptest! {
    #![proptest_config(cases(1000))]

    #[test]
    fn add((x, y) in two_operands()) {
        let out = run(Config::PARMESAN, &[&x, &y], |a, b, i| a.add(b, &i[0], &i[1]).digits);
        prop_assert_eq!(as_int(&out), value(&x) + value(&y));
    }

    #[test]
    fn sub((x, y) in two_operands()) {
        let out = run(Config::PARMESAN, &[&x, &y], |a, b, i| a.sub(b, &i[0], &i[1]).digits);
        prop_assert_eq!(as_int(&out), value(&x) - value(&y));
    }

    #[test]
    fn neg_and_shl(x in one_operand(), k in 0usize..20) {
        let out = run(Config::PARMESAN, &[&x], |_, b, i| {
            let n = i[0].neg(b);
            n.shl(b, k).digits
        });
        prop_assert_eq!(as_int(&out), -value(&x) << k);
    }

    #[test]
    fn shr(x in one_operand(), k in 0usize..70, c in 0usize..2) {
        let out = run(CONFIGS[c], &[&x], |a, b, i| a.shr(b, &i[0], k).digits);
        prop_assert_eq!(as_int(&out), value(&x).div_euclid(1i128 << k));
    }

    #[test]
    fn scalar_mul(x in one_operand(), k in any::<i64>(), small in -5000i64..5000, pick in 0u8..3) {
        let k = match pick { 0 => k, 1 => small, _ => k >> 40 };
        let out = run(Config::PARMESAN, &[&x], |a, b, i| a.scalar_mul(b, &i[0], k).digits);
        prop_assert_eq!(as_int(&out), value(&x) * i128::from(k));
    }

    #[test]
    fn signum(x in one_operand(), c in 0usize..2) {
        let out = run(CONFIGS[c], &[&x], |a, b, i| vec![a.signum(b, &i[0])]);
        prop_assert_eq!(i128::from(out[0]), value(&x).signum());
    }

    #[test]
    fn comparisons((x, y) in two_operands(), c in 0usize..2) {
        let out = run(CONFIGS[c], &[&x, &y], |a, b, i| vec![
            a.lt(b, &i[0], &i[1]), a.le(b, &i[0], &i[1]), a.gt(b, &i[0], &i[1]),
            a.ge(b, &i[0], &i[1]), a.eq(b, &i[0], &i[1]), a.ne(b, &i[0], &i[1]),
        ]);
        let (vx, vy) = (value(&x), value(&y));
        let want = [vx < vy, vx <= vy, vx > vy, vx >= vy, vx == vy, vx != vy].map(i64::from);
        prop_assert_eq!(out, want.to_vec());
    }

    #[test]
    fn max_min((x, y) in two_operands(), c in 0usize..2) {
        let mx = run(CONFIGS[c], &[&x, &y], |a, b, i| a.max(b, &i[0], &i[1]).digits);
        let mn = run(CONFIGS[c], &[&x, &y], |a, b, i| a.min(b, &i[0], &i[1]).digits);
        prop_assert_eq!(as_int(&mx), value(&x).max(value(&y)));
        prop_assert_eq!(as_int(&mn), value(&x).min(value(&y)));
    }

    #[test]
    fn abs(x in one_operand(), c in 0usize..2) {
        let out = run(CONFIGS[c], &[&x], |a, b, i| a.abs(b, &i[0]).digits);
        prop_assert_eq!(as_int(&out), value(&x).abs());
    }

    #[test]
    fn round(x in one_operand(), i in 0usize..70, c in 0usize..2) {
        let out = run(CONFIGS[c], &[&x], |a, b, ins| a.round_at(b, &ins[0], i).digits);
        let v = value(&x);
        let want = if i == 0 { v } else { (v + (1i128 << (i - 1))).div_euclid(1i128 << i) << i };
        prop_assert_eq!(as_int(&out), want);
    }
}

proptest! {
    // Products of 64-digit operands are large circuits: fewer cases per run, but
    // every width 1..=64 is reached across cases (and by the exhaustive tests below).
    #![proptest_config(cases(1000))]

    #[test]
    fn mul((x, y) in (1usize..=64, 1usize..=64).prop_flat_map(|(a, b)| (digits(a), digits(b)))) {
        let out = run(Config::PARMESAN, &[&x, &y], |a, b, i| a.mul(b, &i[0], &i[1]).digits);
        prop_assert_eq!(as_big(&out), BigInt::from(value(&x)) * value(&y));
    }

    #[test]
    fn mul_low((x, y) in two_operands()) {
        let n = x.len().max(y.len());
        let out = run(Config::BUDGET_25, &[&x, &y], |a, b, i| a.mul_low(b, &i[0], &i[1], n).digits);
        prop_assert!(out.len() <= n);
        let modulus = BigInt::from(1) << n;
        let got = as_big(&out);
        let want = BigInt::from(value(&x)) * value(&y);
        prop_assert_eq!(((got - want) % &modulus + &modulus) % &modulus, BigInt::from(0));
    }

    #[test]
    fn square(x in one_operand()) {
        let out = run(Config::PARMESAN, &[&x], |a, b, i| a.square(b, &i[0]).digits);
        prop_assert_eq!(as_big(&out), BigInt::from(value(&x)) * value(&x));
    }
}

/// Every operation on one pair of operands, checked against i128.
fn check_all(c: Config, x: &[i8], y: &[i8]) {
    let (vx, vy) = (value(x), value(y));
    let n = x.len();
    let int = |o: Vec<i64>| as_int(&o);
    assert_eq!(
        int(run(c, &[x, y], |a, b, i| a.add(b, &i[0], &i[1]).digits)),
        vx + vy
    );
    assert_eq!(
        int(run(c, &[x, y], |a, b, i| a.sub(b, &i[0], &i[1]).digits)),
        vx - vy
    );
    assert_eq!(
        int(run(c, &[x, y], |a, b, i| a.mul(b, &i[0], &i[1]).digits)),
        vx * vy
    );
    assert_eq!(
        int(run(c, &[x], |a, b, i| a.square(b, &i[0]).digits)),
        vx * vx
    );
    assert_eq!(
        int(run(c, &[x, y], |a, b, i| a.max(b, &i[0], &i[1]).digits)),
        vx.max(vy)
    );
    assert_eq!(
        int(run(c, &[x, y], |a, b, i| a.min(b, &i[0], &i[1]).digits)),
        vx.min(vy)
    );
    assert_eq!(
        int(run(c, &[x], |a, b, i| a.abs(b, &i[0]).digits)),
        vx.abs()
    );
    assert_eq!(
        int(run(c, &[x], |a, b, i| a.scalar_mul(b, &i[0], -805).digits)),
        vx * -805
    );
    let k = n / 2 + 1;
    assert_eq!(
        int(run(c, &[x], |a, b, i| a.round_at(b, &i[0], k).digits)),
        (vx + (1i128 << (k - 1))).div_euclid(1i128 << k) << k
    );
    assert_eq!(
        i128::from(run(c, &[x], |a, b, i| vec![a.signum(b, &i[0])])[0]),
        vx.signum()
    );
    let cmp = run(c, &[x, y], |a, b, i| {
        vec![
            a.lt(b, &i[0], &i[1]),
            a.eq(b, &i[0], &i[1]),
            a.ge(b, &i[0], &i[1]),
        ]
    });
    assert_eq!(
        cmp,
        vec![i64::from(vx < vy), i64::from(vx == vy), i64::from(vx >= vy)]
    );
}

#[test]
fn edge_cases_all_ops() {
    // Zero, all -1 digits, all 1 digits, alternating (non-canonical) and
    // (-1, ..., -1, 1) = 1, at several widths, including unequal lengths.
    let pattern = |n: usize, p: usize| -> Vec<i8> {
        match p {
            0 => vec![0; n],
            1 => vec![-1; n],
            2 => vec![1; n],
            3 => (0..n).map(|i| if i % 2 == 0 { 1 } else { -1 }).collect(),
            _ => (0..n).map(|i| if i + 1 == n { 1 } else { -1 }).collect(),
        }
    };
    for (n, m) in [
        (1usize, 1usize),
        (2, 2),
        (3, 1),
        (4, 4),
        (5, 9),
        (8, 8),
        (16, 3),
        (33, 33),
    ] {
        for p in 0..5 {
            for q in 0..5 {
                for c in CONFIGS {
                    check_all(c, &pattern(n, p), &pattern(m, q));
                }
            }
        }
    }
}

#[test]
fn exhaustive_small_widths() {
    // Every pair of 3-digit signed binary vectors (27 x 27), unequal lengths too.
    let all = |n: usize| -> Vec<Vec<i8>> {
        (0..3usize.pow(n as u32))
            .map(|mut v| {
                (0..n)
                    .map(|_| {
                        let d = (v % 3) as i8 - 1;
                        v /= 3;
                        d
                    })
                    .collect()
            })
            .collect()
    };
    for x in all(3) {
        for y in all(2) {
            check_all(Config::BUDGET_25, &x, &y);
        }
    }
}
