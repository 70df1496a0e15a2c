//! `typed::dot`, the sum of products as one block circuit, on the clear executor against
//! plain wrapping arithmetic: several widths, signed and unsigned, canonical and lazy
//! operands (random signed-binary representatives), one to six pairs; every bootstrap
//! input within the noise budget.

use encint_arith::typed::{dot, dot_widening, Form, IntType};
use encint_arith::{Arith, Config, SInt};
use encint_core::circuit::Builder;
use encint_core::clear;
use rand::{Rng, SeedableRng};

#[path = "common/plain.rs"]
mod plain;
use plain::{value, wrap};

#[test]
fn sums_of_products_match_wrapping_arithmetic() {
    let ar = Arith::new(Config { max_qweight: 25 });
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    for (bits, signed) in [
        (1, false),
        (5, false),
        (8, true),
        (8, false),
        (11, true),
        (16, true),
    ] {
        let ty = IntType::new(bits, signed).unwrap();
        for pairs in [1usize, 3, 6] {
            for form in [Form::Canonical, Form::Lazy] {
                let mut b = Builder::new();
                let mut inputs = Vec::new();
                let mut operands = Vec::new();
                let mut values = Vec::new();
                for _ in 0..2 * pairs {
                    let digits: Vec<i64> = match form {
                        Form::Lazy => (0..bits).map(|_| rng.gen_range(-1..=1)).collect(),
                        _ => {
                            let v = rng.gen_range(ty.min()..=ty.max());
                            Form::Canonical.encode(ty, v)
                        }
                    };
                    values.push(value(ty, &digits));
                    inputs.extend(&digits);
                    operands.push(SInt::input(&mut b, bits));
                }
                let (xs, ys) = operands.split_at(pairs);
                let wx: Vec<(&SInt, Form)> = xs.iter().map(|s| (s, form)).collect();
                let wy: Vec<(&SInt, Form)> = ys.iter().map(|s| (s, form)).collect();
                let (out, out_form) = dot(&ar, &mut b, ty, &wx, &wy).unwrap();
                assert_eq!(out_form, Form::Canonical, "bits in, canonical digits out");
                let c = b.finish(out.digits);
                assert!(c.cost().max_qweight <= 25, "noise budget at {ty}");
                let (digits, _) = clear::run(&c, &inputs).unwrap();
                let want =
                    (0..pairs).fold(0i128, |s, i| wrap(ty, s + values[i] * values[pairs + i]));
                assert_eq!(value(ty, &digits), want, "{pairs} pairs of {ty}, {form:?}");
            }
        }
    }
    // Lists of different lengths are refused.
    let mut b = Builder::new();
    let x = SInt::input(&mut b, 8);
    let ty = IntType::new(8, false).unwrap();
    assert!(dot(&ar, &mut b, ty, &[(&x, Form::Canonical)], &[]).is_none());
}

/// Sums of squares `Σ xᵢ²` (each value paired with itself) by the block circuit and by the
/// counter tree of `dot_widening`, against plain wrapping arithmetic: random values and
/// the edge values, canonical and lazy, and values of half the width zero-extended (their
/// top digits known zeros, as a cast gives them).
#[test]
fn sums_of_squares_match_wrapping_arithmetic() {
    let ar = Arith::new(Config { max_qweight: 25 });
    let mut rng = rand::rngs::StdRng::seed_from_u64(12);
    for (bits, signed) in [(5, false), (8, true), (8, false), (16, true), (32, false)] {
        let ty = IntType::new(bits, signed).unwrap();
        for count in [1usize, 3, 5] {
            for case in 0..5 {
                // 0, 1: random canonical and lazy; 2, 3: all max, all min; 4: zero-extended.
                let form = if case == 1 {
                    Form::Lazy
                } else {
                    Form::Canonical
                };
                let half = bits / 2;
                let values: Vec<i128> = (0..count)
                    .map(|_| match case {
                        2 => ty.max(),
                        3 => ty.min(),
                        4 => rng.gen_range(0..1i128 << half),
                        _ => rng.gen_range(ty.min()..=ty.max()),
                    })
                    .collect();
                for widening in [false, true] {
                    let mut b = Builder::new();
                    let mut inputs = Vec::new();
                    let mut operands = Vec::new();
                    for &v in &values {
                        let digits: Vec<i64> = match form {
                            Form::Lazy => {
                                // The pattern's bits with some `1, 0` pairs as `-1, 1`.
                                let u = (v as u128) & ((1u128 << bits) - 1);
                                let mut d: Vec<i64> =
                                    (0..bits).map(|k| ((u >> k) & 1) as i64).collect();
                                for k in 0..bits - 1 {
                                    if d[k] == 1 && d[k + 1] == 0 && rng.gen_bool(0.5) {
                                        d[k] = -1;
                                        d[k + 1] = 1;
                                    }
                                }
                                d
                            }
                            _ => Form::Canonical.encode(ty, v),
                        };
                        let nodes = digits
                            .iter()
                            .enumerate()
                            .map(|(k, &d)| {
                                if case == 4 && k >= half {
                                    b.constant(d)
                                } else {
                                    inputs.push(d);
                                    b.input()
                                }
                            })
                            .collect();
                        operands.push(SInt { digits: nodes });
                    }
                    let out = if widening {
                        let xs: Vec<_> = operands.iter().map(|s| (s, form, ty)).collect();
                        dot_widening(&mut b, ty, &xs, &xs, &[]).unwrap()
                    } else {
                        let xs: Vec<_> = operands.iter().map(|s| (s, form)).collect();
                        dot(&ar, &mut b, ty, &xs, &xs).unwrap().0
                    };
                    let c = b.finish(out.digits);
                    assert!(c.cost().max_qweight <= 25, "noise budget at {ty}");
                    let (digits, _) = clear::run(&c, &inputs).unwrap();
                    let want = values.iter().fold(0, |s, &v| wrap(ty, s + v * v));
                    assert_eq!(
                        value(ty, &digits),
                        want,
                        "squares of {values:?} of {ty}, {form:?}, widening {widening}"
                    );
                }
            }
        }
    }
}
