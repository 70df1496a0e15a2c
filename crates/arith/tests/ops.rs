//! Property tests of every operation against i128 / BigInt arithmetic, run by the
//! clear executor in every configuration the library ships: Parmesan's form
//! (`Config::PARMESAN`) and the budgeted form the `Server` builds for the default
//! parameters (`Config::BUDGET_25`, quadratic weight 25; `encint`'s `real.rs` checks
//! that the server's configuration is this one). Every circuit is checked against its
//! configuration's budget, so in the budgeted runs the budget assertion can fail.
//! Outputs are decoded with folds written here, not with the library's `value_of`.

use encint_arith::{Arith, Config, MulPlan, SInt, SquarePlan};
use encint_core::circuit::Builder;
use encint_core::clear;
use num_bigint::BigInt;
use proptest::prelude::*;
use proptest::test_runner::Config as PtConfig;

/// Every configuration the library ships.
const CONFIGS: [Config; 2] = [Config::PARMESAN, Config::BUDGET_25];

/// The edge vectors of width `len`: zero, all -1 (the minimum, `-(2^len - 1)`), all 1
/// (the maximum), the canonical two's-complement extremes `-2^(len-1)` and
/// `2^(len-1) - 1` (`i64::MIN` / `i64::MAX` at 64 digits), and `(-1, ..., -1, 1)` = 1.
fn edge(len: usize, kind: u8) -> Vec<i8> {
    match kind {
        0 => vec![0; len],
        1 => vec![-1; len],
        2 => vec![1; len],
        3 => (0..len)
            .map(|i| if i + 1 == len { -1 } else { 0 })
            .collect(),
        4 => (0..len).map(|i| if i + 1 == len { 0 } else { 1 }).collect(),
        _ => (0..len)
            .map(|i| if i + 1 == len { 1 } else { -1 })
            .collect(),
    }
}

/// A signed binary vector of exactly `len` digits: random (non-canonical in general),
/// or one of the edge vectors.
fn digits(len: usize) -> impl Strategy<Value = Vec<i8>> {
    prop_oneof![
        6 => prop::collection::vec(
            prop_oneof![4 => -1i8..=1, 1 => Just(-1i8), 1 => Just(0i8)],
            len..=len,
        ),
        1 => (0u8..6).prop_map(move |k| edge(len, k)),
    ]
}

/// A width in 1..=64, with the extremes 1 and 64 drawn often.
fn width() -> impl Strategy<Value = usize> {
    prop_oneof![4 => 1usize..=64, 1 => Just(1usize), 1 => Just(64usize)]
}

/// Two operands of random (possibly unequal) widths in 1..=64.
fn two_operands() -> impl Strategy<Value = (Vec<i8>, Vec<i8>)> {
    (width(), width()).prop_flat_map(|(a, b)| (digits(a), digits(b)))
}

fn one_operand() -> impl Strategy<Value = Vec<i8>> {
    width().prop_flat_map(digits)
}

/// Scalars: random, small, and the edges 0, ±1, ±2^m, i64::MIN, i64::MAX, i64::MIN + 1.
fn scalar() -> impl Strategy<Value = i64> {
    prop_oneof![
        2 => any::<i64>(),
        2 => -5000i64..5000,
        1 => any::<i64>().prop_map(|k| k >> 40),
        1 => prop::sample::select(vec![0i64, 1, -1, i64::MIN, i64::MAX, i64::MIN + 1]),
        1 => (0u32..63, any::<bool>()).prop_map(|(m, neg)| if neg { -(1i64 << m) } else { 1i64 << m }),
    ]
}

/// Value of an input vector (test-side fold, i128 is wide enough for 64 digits).
fn value(d: &[i8]) -> i128 {
    d.iter().rev().fold(0i128, |a, &x| a * 2 + i128::from(x))
}

/// Builds `op` on fresh inputs shaped like the operands, checks the circuit against the
/// configuration's noise budget, runs it in the clear on their digits and returns the
/// output digits.
fn run(
    config: Config,
    operands: &[&[i8]],
    op: impl FnOnce(&Arith, &mut Builder, &[SInt]) -> Vec<encint_core::circuit::NodeId>,
) -> Vec<i64> {
    let ar = Arith::new(config);
    let mut b = Builder::new();
    let ins = SInt::inputs(&mut b, operands.iter().map(|o| o.len()));
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

/// [`run`] under every configuration of [`CONFIGS`]: each one's output digits.
fn run_each(
    operands: &[&[i8]],
    op: impl Fn(&Arith, &mut Builder, &[SInt]) -> Vec<encint_core::circuit::NodeId>,
) -> Vec<Vec<i64>> {
    CONFIGS.iter().map(|&c| run(c, operands, &op)).collect()
}

fn check_range(out: &[i64]) {
    assert!(
        out.iter().all(|d| (-1..=1).contains(d)),
        "digits out of range: {out:?}"
    );
}

/// Exact value of output digits (products of 64-digit operands exceed i128).
fn as_big(out: &[i64]) -> BigInt {
    check_range(out);
    out.iter().rev().fold(BigInt::from(0), |a, &d| a * 2 + d)
}

/// Value of output digits as i128 (a test-side fold; panics if it does not fit).
fn as_int(out: &[i64]) -> i128 {
    check_range(out);
    out.iter().rev().fold(0i128, |a, &d| {
        a.checked_mul(2)
            .and_then(|a| a.checked_add(i128::from(d)))
            .expect("output fits in i128")
    })
}

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
        for out in run_each(&[&x, &y], |a, b, i| a.add(b, &i[0], &i[1]).digits) {
            prop_assert_eq!(as_int(&out), value(&x) + value(&y));
        }
    }

    #[test]
    fn sub((x, y) in two_operands()) {
        for out in run_each(&[&x, &y], |a, b, i| a.sub(b, &i[0], &i[1]).digits) {
            prop_assert_eq!(as_int(&out), value(&x) - value(&y));
        }
    }

    /// `x ± 2^k·x`: both operands carry the same input noises (the shared-noise branch
    /// of the addition in budgeted forms).
    #[test]
    fn add_shared_noise(x in one_operand(), k in 0usize..6) {
        for c in CONFIGS {
            let out = run(c, &[&x], |a, b, i| {
                let s = i[0].shl(b, k);
                a.add(b, &i[0], &s).digits
            });
            prop_assert_eq!(as_int(&out), value(&x) + (value(&x) << k));
            let out = run(c, &[&x], |a, b, i| {
                let s = i[0].shl(b, k);
                a.sub(b, &s, &i[0]).digits
            });
            prop_assert_eq!(as_int(&out), (value(&x) << k) - value(&x));
        }
    }

    #[test]
    fn neg_and_shl(x in one_operand(), k in 0usize..20) {
        for out in run_each(&[&x], |_, b, i| {
            let n = i[0].neg(b);
            n.shl(b, k).digits
        }) {
            prop_assert_eq!(as_int(&out), -value(&x) << k);
        }
    }

    #[test]
    fn shr(x in one_operand(), k in 0usize..70) {
        for out in run_each(&[&x], |a, b, i| a.shr(b, &i[0], k).digits) {
            prop_assert_eq!(as_int(&out), value(&x).div_euclid(1i128 << k));
        }
    }

    #[test]
    fn scalar_mul(x in one_operand(), k in scalar()) {
        for out in run_each(&[&x], |a, b, i| a.scalar_mul(b, &i[0], k).digits) {
            prop_assert_eq!(as_int(&out), value(&x) * i128::from(k));
        }
    }

    #[test]
    fn signum(x in one_operand()) {
        for out in run_each(&[&x], |a, b, i| vec![a.signum(b, &i[0])]) {
            prop_assert_eq!(i128::from(out[0]), value(&x).signum());
        }
    }

    #[test]
    fn comparisons((x, y) in two_operands()) {
        for out in run_each(&[&x, &y], |a, b, i| vec![
            a.lt(b, &i[0], &i[1]), a.le(b, &i[0], &i[1]), a.gt(b, &i[0], &i[1]),
            a.ge(b, &i[0], &i[1]), a.eq(b, &i[0], &i[1]), a.ne(b, &i[0], &i[1]),
        ]) {
            let (vx, vy) = (value(&x), value(&y));
            let want = [vx < vy, vx <= vy, vx > vy, vx >= vy, vx == vy, vx != vy].map(i64::from);
            prop_assert_eq!(out, want.to_vec());
        }
    }

    #[test]
    fn max_min((x, y) in two_operands()) {
        for c in CONFIGS {
            let mx = run(c, &[&x, &y], |a, b, i| a.max(b, &i[0], &i[1]).digits);
            let mn = run(c, &[&x, &y], |a, b, i| a.min(b, &i[0], &i[1]).digits);
            prop_assert_eq!(as_int(&mx), value(&x).max(value(&y)));
            prop_assert_eq!(as_int(&mn), value(&x).min(value(&y)));
        }
    }

    #[test]
    fn abs(x in one_operand()) {
        for out in run_each(&[&x], |a, b, i| a.abs(b, &i[0]).digits) {
            prop_assert_eq!(as_int(&out), value(&x).abs());
        }
    }

    #[test]
    fn round(x in one_operand(), i in 0usize..70) {
        for out in run_each(&[&x], |a, b, ins| a.round_at(b, &ins[0], i).digits) {
            let v = value(&x);
            let want = if i == 0 { v } else { (v + (1i128 << (i - 1))).div_euclid(1i128 << i) << i };
            prop_assert_eq!(as_int(&out), want);
        }
    }
}

proptest! {
    // Products of up to 64-digit operands are large circuits; every width 1..=64 is
    // reached across cases (and by the exhaustive tests below).
    #![proptest_config(cases(500))]

    #[test]
    fn mul((x, y) in two_operands()) {
        for out in run_each(&[&x, &y], |a, b, i| a.mul(b, &i[0], &i[1]).digits) {
            prop_assert_eq!(as_big(&out), BigInt::from(value(&x)) * value(&y));
        }
    }

    #[test]
    fn mul_low((x, y) in two_operands()) {
        let n = x.len().max(y.len());
        for out in run_each(&[&x, &y], |a, b, i| a.mul_low(b, &i[0], &i[1], n).digits) {
            prop_assert!(out.len() <= n);
            let modulus = BigInt::from(1) << n;
            let got = as_big(&out);
            let want = BigInt::from(value(&x)) * value(&y);
            prop_assert_eq!(((got - want) % &modulus + &modulus) % &modulus, BigInt::from(0));
        }
    }

    #[test]
    fn square(x in one_operand()) {
        for out in run_each(&[&x], |a, b, i| a.square(b, &i[0]).digits) {
            prop_assert_eq!(as_big(&out), BigInt::from(value(&x)) * value(&x));
        }
    }
}

/// The multiplication plans a product of these lengths can take: both schoolbook
/// summations, the block product, and Karatsuba at the splits the cost model considers
/// (`n/2`, `⌈n/2⌉`) plus a random split in `1..n`.
fn mul_plans(n: usize, m: usize, split: usize) -> Vec<MulPlan> {
    let mut plans = vec![
        MulPlan::Schoolbook { tree: false },
        MulPlan::Schoolbook { tree: true },
        MulPlan::Blocks,
    ];
    if n >= 2 {
        for low in [n / 2, n.div_ceil(2), 1 + split % (n - 1)] {
            if low < n.max(m) && !plans.contains(&MulPlan::Karatsuba { low }) {
                plans.push(MulPlan::Karatsuba { low });
            }
        }
    }
    plans
}

/// The squaring plans of a length: direct (up to 3 digits), symmetric, the block
/// square, and divide and conquer at `n/2`, `⌈n/2⌉` and a random split.
fn square_plans(n: usize, split: usize) -> Vec<SquarePlan> {
    let mut plans = vec![SquarePlan::Symmetric, SquarePlan::Blocks];
    if n <= 3 {
        plans.push(SquarePlan::Direct);
    }
    if n >= 2 {
        for low in [n / 2, n.div_ceil(2), 1 + split % (n - 1)] {
            if (1..n).contains(&low) && !plans.contains(&SquarePlan::DivideAndConquer { low }) {
                plans.push(SquarePlan::DivideAndConquer { low });
            }
        }
    }
    plans
}

proptest! {
    // Every plan, called directly (the cost model picks only one per length).
    #![proptest_config(cases(200))]

    #[test]
    fn every_mul_plan((x, y) in two_operands(), split in any::<usize>()) {
        let want = BigInt::from(value(&x)) * value(&y);
        for plan in mul_plans(x.len(), y.len(), split) {
            for c in CONFIGS {
                let out = run(c, &[&x, &y], |a, b, i| match plan {
                    MulPlan::Schoolbook { tree } => a.mul_schoolbook(b, &i[0], &i[1], tree),
                    MulPlan::Karatsuba { low } => a.mul_karatsuba(b, &i[0], &i[1], low),
                    MulPlan::Blocks => a.mul_blocks(b, &i[0], &i[1]),
                }.digits);
                prop_assert_eq!(as_big(&out), want.clone(), "{:?} {:?}", plan, c);
            }
        }
    }

    #[test]
    fn every_square_plan(x in one_operand(), split in any::<usize>()) {
        let want = BigInt::from(value(&x)) * value(&x);
        for plan in square_plans(x.len(), split) {
            for c in CONFIGS {
                let out = run(c, &[&x], |a, b, i| match plan {
                    SquarePlan::Direct => a.square_direct(b, &i[0]),
                    SquarePlan::Symmetric => a.square_symmetric(b, &i[0]),
                    SquarePlan::DivideAndConquer { low } => a.square_dnc(b, &i[0], low),
                    SquarePlan::Blocks => a.square_blocks(b, &i[0]),
                }.digits);
                prop_assert_eq!(as_big(&out), want.clone(), "{:?} {:?}", plan, c);
            }
        }
    }
}

/// The plans the cost model picks are among those tested above, for every length pair.
#[test]
fn chosen_plans_are_tested_plans() {
    for c in CONFIGS {
        let ar = Arith::new(c);
        for n in 1..=64usize {
            for m in [1, n.div_ceil(2), n] {
                let p = ar.mul_plan(n, m);
                assert!(
                    match p {
                        MulPlan::Schoolbook { .. } | MulPlan::Blocks => true,
                        MulPlan::Karatsuba { low } => low == n / 2 || low == n.div_ceil(2),
                    },
                    "{n}x{m}: {p:?}"
                );
            }
            let s = ar.square_plan(n);
            assert!(square_plans(n, 0).contains(&s), "{n}: {s:?}");
        }
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
    // Every pair of 3-digit signed binary vectors (27 x 27) and every 3-digit vector
    // against every 2-digit one (27 x 9, unequal lengths), in every configuration.
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
    for c in CONFIGS {
        for x in all(3) {
            for y in all(3).into_iter().chain(all(2)) {
                check_all(c, &x, &y);
            }
        }
    }
}
