//! `typed::sum`, many values summed as one reduction, on the clear executor against plain
//! wrapping arithmetic: every method, several widths (odd ones included), signed and
//! unsigned, canonical, lazy (random signed-binary representatives) and radix-4 operands
//! mixed, random values and the edge values (all zero, all at the type's maximum, all at
//! its minimum); every bootstrap input within the noise budget. And the planner: its
//! choice never slower than a tree of additions the test builds itself.

use encint_arith::typed::{plan_sum, sum, Form, IntType, SumMethod};
use encint_arith::{Arith, Config, SInt};
use encint_core::circuit::Builder;
use encint_core::clear;
use rand::{Rng, SeedableRng};

#[path = "common/plain.rs"]
mod plain;
use plain::wrap;

/// The digits of `v` in `form`, a random representative for a lazy one.
fn digits_of(rng: &mut impl Rng, ty: IntType, form: Form, v: i128) -> Vec<i64> {
    match form {
        Form::Lazy => lazy_representative(rng, ty, v),
        f => f.encode(ty, v),
    }
}

/// A non-canonical signed-binary representative of `v`: the unsigned pattern's bits with
/// some `01` pairs (low digit first: digit k = 1, digit k+1 = 0) rewritten as `-1, 1`.
fn lazy_representative(rng: &mut impl Rng, ty: IntType, v: i128) -> Vec<i64> {
    let u = (v as u128) & ((1u128 << ty.bits) - 1);
    let mut d: Vec<i64> = (0..ty.bits).map(|k| ((u >> k) & 1) as i64).collect();
    for k in 0..ty.bits.saturating_sub(1) {
        if d[k] == 1 && d[k + 1] == 0 && rng.gen_bool(0.5) {
            d[k] = -1;
            d[k + 1] = 1;
        }
    }
    d
}

/// Builds the sum of `values` (of `ty`, operand `i` in form `forms[i]`) by `method`, runs
/// it in the clear and returns its value and the circuit's largest quadratic weight.
fn run(
    ar: &Arith,
    rng: &mut impl Rng,
    ty: IntType,
    forms: &[Form],
    values: &[i128],
    method: SumMethod,
) -> (i128, u64) {
    let mut b = Builder::new();
    let mut inputs = Vec::new();
    let mut operands = Vec::new();
    for (&f, &v) in forms.iter().zip(values) {
        inputs.extend(digits_of(rng, ty, f, v));
        operands.push(SInt::input(&mut b, f.digits(ty)));
    }
    let xs: Vec<(&SInt, Form)> = operands.iter().zip(forms.iter().copied()).collect();
    let (out, form) = sum(ar, &mut b, ty, &xs, method, 2).unwrap();
    let c = b.finish(out.digits);
    let (digits, _) = clear::run(&c, &inputs).unwrap();
    let v = form
        .value(ty, &digits)
        .unwrap_or_else(|| panic!("{method:?} on {ty}: digits {digits:?} of no {form:?} value"));
    (v, c.cost().max_qweight)
}

#[test]
fn sums_match_wrapping_arithmetic() {
    let ar = Arith::new(Config { max_qweight: 25 });
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let all = [Form::Canonical, Form::Lazy, Form::Radix4];
    for (bits, signed) in [
        (1, false),
        (3, true),
        (5, false),
        (8, false),
        (8, true),
        (11, true),
        (16, false),
        (16, true),
        (32, false),
    ] {
        let ty = IntType::new(bits, signed).unwrap();
        for count in [2usize, 3, 5, 16] {
            let mut cases: Vec<Vec<i128>> = (0..3)
                .map(|_| {
                    (0..count)
                        .map(|_| rng.gen_range(ty.min()..=ty.max()))
                        .collect()
                })
                .collect();
            cases.extend([vec![0; count], vec![ty.max(); count], vec![ty.min(); count]]);
            for (i, values) in cases.iter().enumerate() {
                let forms: Vec<Form> = match i % 3 {
                    0 => vec![Form::Canonical; count],
                    1 => vec![all[i % 3 + 1]; count],
                    _ => (0..count).map(|_| all[rng.gen_range(0..3)]).collect(),
                };
                let want = values.iter().fold(0, |s, &v| wrap(ty, s + v));
                for method in SumMethod::ALL {
                    let (got, qw) = run(&ar, &mut rng, ty, &forms, values, method);
                    assert_eq!(got, want, "{method:?}: {values:?} of {ty} in {forms:?}");
                    assert!(qw <= 25, "{method:?} on {ty}: quadratic weight {qw}");
                }
            }
        }
    }
}

#[test]
fn no_operand_is_zero_and_one_is_itself() {
    let ar = Arith::new(Config { max_qweight: 25 });
    let ty = IntType::new(8, true).unwrap();
    for method in SumMethod::ALL {
        let mut b = Builder::new();
        let (out, form) = sum(&ar, &mut b, ty, &[], method, 2).unwrap();
        let c = b.finish(out.digits);
        let (digits, cost) = clear::run(&c, &[]).unwrap();
        assert_eq!(form.value(ty, &digits), Some(0));
        assert_eq!(cost.bootstraps, 0);
        let mut b = Builder::new();
        let x = SInt::input(&mut b, 8);
        let (out, _) = sum(&ar, &mut b, ty, &[(&x, Form::Lazy)], method, 2).unwrap();
        assert_eq!(out, x);
    }
}

/// The sum the planner chooses, built, against a baseline this test builds on its own: a
/// balanced tree of two-operand additions, each the algorithm [`plan`] picks for its
/// operands' forms at the thread count. The chosen sum's circuit is never estimated slower
/// than the baseline at that thread count (rounds, then bootstraps), and the planner's
/// figures for its choice are those of the circuit built. (The planner does not know the
/// baseline: a plan that kept a worse method, or whose estimate drifted from what it
/// builds, fails here.)
#[test]
fn the_planned_sum_is_never_slower_than_a_tree_of_additions() {
    use encint_arith::bits::makespan;
    use encint_arith::typed::{build, plan, Op};
    let ar = Arith::new(Config { max_qweight: 25 });
    let mut beaten = 0;
    for (bits, signed) in [(8, false), (16, false), (16, true), (32, true)] {
        let ty = IntType::new(bits, signed).unwrap();
        for count in [2usize, 4, 16] {
            for form in [Form::Canonical, Form::Lazy, Form::Radix4] {
                for threads in [1, 2, 16] {
                    let forms = vec![form; count];
                    let chosen = plan_sum(&ar, ty, &forms, threads).unwrap()[0];
                    let mut b = Builder::new();
                    b.set_threads(threads);
                    let xs: Vec<SInt> = (0..count)
                        .map(|_| SInt::input(&mut b, form.digits(ty)))
                        .collect();
                    let refs: Vec<(&SInt, Form)> = xs.iter().map(|x| (x, form)).collect();
                    let (out, _) = sum(&ar, &mut b, ty, &refs, chosen.method, threads).unwrap();
                    let planned = b.finish(out.digits);
                    // The baseline: pairs added level by level.
                    let mut t = Builder::new();
                    t.set_threads(threads);
                    let mut level: Vec<(SInt, Form)> = (0..count)
                        .map(|_| (SInt::input(&mut t, form.digits(ty)), form))
                        .collect();
                    while level.len() > 1 {
                        let mut next = Vec::new();
                        for pair in level.chunks(2) {
                            let [(x, fx), (y, fy)] = pair else {
                                next.push(pair[0].clone());
                                continue;
                            };
                            let f = [*fx, *fy];
                            let p = plan(&ar, Op::Add, ty, &f, threads).unwrap();
                            let a = p.chosen().algorithm;
                            next.push(
                                build(&ar, &mut t, Op::Add, ty, a, &[x.clone(), y.clone()], &f)
                                    .unwrap(),
                            );
                        }
                        level = next;
                    }
                    let baseline = t.finish(level.remove(0).0.digits);
                    let what = format!("{count} of {ty} {form:?} at {threads}: {chosen:?}");
                    let key = |c: &encint_core::circuit::Circuit| {
                        (makespan(c, threads), c.cost().bootstraps)
                    };
                    assert!(
                        key(&planned) <= key(&baseline),
                        "{what}: {:?} against {:?}",
                        key(&planned),
                        key(&baseline)
                    );
                    assert_eq!(chosen.cost.bootstraps, planned.cost().bootstraps, "{what}");
                    assert_eq!(chosen.rounds, makespan(&planned, threads), "{what}");
                    beaten += usize::from(key(&planned) < key(&baseline));
                }
            }
        }
    }
    // Sixteen fresh values and more: one reduction beats the additions outright somewhere.
    assert!(beaten > 0);
    let ty = IntType::new(16, false).unwrap();
    let p = plan_sum(&ar, ty, &[Form::Canonical; 16], 2).unwrap();
    assert_ne!(p[0].method, SumMethod::Adders, "{p:?}");
}
