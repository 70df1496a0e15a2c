//! `typed::dot`, the sum of products as one block circuit, on the clear executor against
//! plain wrapping arithmetic: several widths, signed and unsigned, canonical and lazy
//! operands (random signed-binary representatives), one to six pairs; every bootstrap
//! input within the noise budget.

use encint_arith::typed::{dot, Form, IntType};
use encint_arith::{Arith, Config, SInt};
use encint_core::circuit::Builder;
use encint_core::clear;
use rand::{Rng, SeedableRng};

/// `v` modulo `2^bits`, read as a value of `ty` (plain arithmetic).
fn wrap(ty: IntType, v: i128) -> i128 {
    let m = 1i128 << ty.bits;
    let u = v.rem_euclid(m);
    if ty.signed && u >= m / 2 {
        u - m
    } else {
        u
    }
}

/// The value of `ty` that signed-binary digits represent.
fn value(ty: IntType, digits: &[i64]) -> i128 {
    wrap(
        ty,
        digits
            .iter()
            .rev()
            .fold(0i128, |a, &d| 2 * a + i128::from(d)),
    )
}

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
                let out = dot(&ar, &mut b, ty, &wx, &wy).unwrap();
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
