//! Both comparison forms (`CompareForm::Signum`, Parmesan's, and `CompareForm::Carries`)
//! and the maximum / minimum built on the default one, run by the clear executor on
//! digit strings of many (and unequal) lengths, against Rust's comparisons of i128 values
//! (`Relation::holds`); every
//! circuit within the budget of 25.

use encint_arith::{Arith, CompareForm, Config, Relation, SInt};
use encint_core::circuit::{Builder, Circuit};
use encint_core::clear;
use rand::{Rng, SeedableRng};

/// Value of digits (a test-side fold).
fn value(d: &[i64]) -> i128 {
    d.iter().rev().fold(0i128, |a, &x| a * 2 + i128::from(x))
}

fn circuit(
    n: usize,
    m: usize,
    build: impl FnOnce(&Arith, &mut Builder, &SInt, &SInt) -> Vec<encint_core::circuit::NodeId>,
) -> Circuit {
    let ar = Arith::new(Config::BUDGET_25);
    let mut b = Builder::new();
    let x = SInt::input(&mut b, n);
    let y = SInt::input(&mut b, m);
    let out = build(&ar, &mut b, &x, &y);
    let c = b.finish(out);
    assert!(c.cost().max_qweight <= 25, "{n}x{m}: {:?}", c.cost());
    c
}

/// Operand pairs: random non-canonical strings, equal values in different digits, and
/// the edges (all -1, all 1, zero).
fn pairs(rng: &mut impl Rng, n: usize, m: usize) -> Vec<(Vec<i64>, Vec<i64>)> {
    let rand =
        |rng: &mut _, len| -> Vec<i64> { (0..len).map(|_| Rng::gen_range(rng, -1..=1)).collect() };
    let mut out: Vec<(Vec<i64>, Vec<i64>)> = Vec::new();
    for (a, c) in [(-1, -1), (1, 1), (-1, 1), (1, -1), (0, 0)] {
        out.push((vec![a; n], vec![c; m]));
    }
    // 1 as (1) and as (-1, 1), when both fit.
    if n >= 1 && m >= 2 {
        let mut x = vec![0; n];
        x[0] = 1;
        let mut y = vec![0; m];
        y[0] = -1;
        y[1] = 1;
        out.push((x, y));
    }
    for _ in 0..40 {
        out.push((rand(rng, n), rand(rng, m)));
    }
    out
}

#[test]
fn both_forms_compare_exactly() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xc0_4a_2e);
    let mut lens: Vec<(usize, usize)> = (0..=9).flat_map(|n| [(n, n), (n, 9 - n)]).collect();
    lens.extend([(16, 16), (16, 5), (1, 16), (33, 32), (40, 40), (64, 64)]);
    for (n, m) in lens {
        for form in [CompareForm::Signum, CompareForm::Carries] {
            let c = circuit(n, m, |ar, b, x, y| {
                Relation::ALL
                    .iter()
                    .map(|&r| ar.relation(b, x, y, r, form))
                    .collect()
            });
            for (x, y) in pairs(&mut rng, n, m) {
                let inputs: Vec<i64> = x.iter().chain(&y).copied().collect();
                let (out, _) = clear::run(&c, &inputs).unwrap();
                let (vx, vy) = (value(&x), value(&y));
                for (k, &r) in Relation::ALL.iter().enumerate() {
                    assert_eq!(
                        out[k],
                        i64::from(r.holds(vx, vy)),
                        "{form:?} {r:?} {x:?} {y:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn max_and_min_are_exact() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x3a_c5);
    for (n, m) in [(1, 1), (3, 7), (8, 8), (16, 16), (17, 4), (32, 32)] {
        let c = circuit(n, m, |ar, b, x, y| {
            let hi = ar.max(b, x, y);
            let lo = ar.min(b, x, y);
            let mut out = hi.digits.clone();
            out.push(b.constant(9)); // a separator: digits never hold 9
            out.extend(lo.digits);
            out
        });
        for (x, y) in pairs(&mut rng, n, m) {
            let inputs: Vec<i64> = x.iter().chain(&y).copied().collect();
            let (out, _) = clear::run(&c, &inputs).unwrap();
            let sep = out.iter().position(|&d| d == 9).unwrap();
            let (vx, vy) = (value(&x), value(&y));
            assert_eq!(value(&out[..sep]), vx.max(vy), "{x:?} {y:?}");
            assert_eq!(value(&out[sep + 1..]), vx.min(vy), "{x:?} {y:?}");
        }
    }
}

/// The carry form costs one bootstrap per two digits (twice that and one more for
/// equality), fewer than Parmesan's for the strict and wide comparisons; the default
/// operations take the cheaper form.
#[test]
fn carries_cost_less_than_the_signum() {
    let cost = |n: usize, rel: Relation, form: CompareForm| {
        circuit(n, n, |ar, b, x, y| vec![ar.relation(b, x, y, rel, form)])
            .cost()
            .bootstraps
    };
    for n in 1..=64usize {
        for rel in Relation::ALL {
            let carries = cost(n, rel, CompareForm::Carries);
            let strict = n.div_ceil(2) as u64;
            let want = if matches!(rel, Relation::Eq | Relation::Ne) {
                2 * strict + 1
            } else {
                strict
            };
            assert_eq!(carries, want, "{n} {rel:?}");
            let signum = cost(n, rel, CompareForm::Signum);
            if n >= 4 || !matches!(rel, Relation::Eq | Relation::Ne) {
                assert!(carries < signum, "{n} {rel:?}: {carries} vs {signum}");
            }
            let chosen = Arith::new(Config::BUDGET_25).relation_form(rel, n, n);
            let best = if carries <= signum {
                CompareForm::Carries
            } else {
                CompareForm::Signum
            };
            assert_eq!(chosen, best, "{n} {rel:?}");
        }
    }
    let small = Arith::new(Config { max_qweight: 9 });
    assert_eq!(
        small.relation_form(Relation::Lt, 32, 32),
        CompareForm::Signum
    );
}
