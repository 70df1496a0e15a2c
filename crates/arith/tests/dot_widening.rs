//! `typed::dot_clear` (clear weights folded into one counter tree) and
//! `typed::dot_widening` (narrow operands of their own types summed into a wider type) on
//! the clear executor against plain arithmetic modulo `2^n`: signed and unsigned operands
//! of several widths, known (constant) digits among them, lazy operands, and negative
//! weights.

use encint_arith::typed::{dot_clear, dot_widening, Form, IntType};
use encint_arith::SInt;
use encint_core::circuit::Builder;
use encint_core::clear;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[path = "common/plain.rs"]
mod plain;
use plain::{value, wrap};

/// A random operand of `ty`: its digits as circuit inputs (or constants when `known`),
/// the digits fed to the clear run, its value and form.
struct Operand {
    digits: SInt,
    form: Form,
    ty: IntType,
    value: i128,
}

fn operand(
    b: &mut Builder,
    inputs: &mut Vec<i64>,
    rng: &mut StdRng,
    ty: IntType,
    known: bool,
    lazy: bool,
) -> Operand {
    let v = rng.gen_range(ty.min()..=ty.max());
    let (digits, form) = if lazy {
        let d: Vec<i64> = (0..ty.bits).map(|_| rng.gen_range(-1..=1)).collect();
        (d, Form::Lazy)
    } else {
        (Form::Canonical.encode(ty, v), Form::Canonical)
    };
    let value = value(ty, &digits);
    let nodes = if known {
        SInt {
            digits: digits.iter().map(|&d| b.constant(d)).collect(),
        }
    } else {
        inputs.extend(&digits);
        SInt::input(b, ty.bits)
    };
    Operand {
        digits: nodes,
        form,
        ty,
        value,
    }
}

fn view(o: &Operand) -> (&SInt, Form, IntType) {
    (&o.digits, o.form, o.ty)
}

fn run(b: Builder, out: SInt, inputs: &[i64], ty: IntType) -> i128 {
    let c = b.finish(out.digits);
    let (digits, cost) = clear::run(&c, inputs).expect("within the noise budget");
    assert!(
        cost.max_qweight <= 25,
        "quadratic weight {}",
        cost.max_qweight
    );
    value(ty, &digits)
}

#[test]
fn widening_sums_of_products_match_plain_arithmetic() {
    let mut rng = StdRng::seed_from_u64(7);
    let ty = |bits, signed| IntType::new(bits, signed).unwrap();
    let shapes = [
        (ty(2, false), ty(4, true), ty(5, true), ty(10, true)),
        (ty(3, false), ty(3, false), ty(2, false), ty(8, false)),
        (ty(4, true), ty(5, true), ty(6, true), ty(12, true)),
        (ty(1, false), ty(2, true), ty(3, true), ty(4, true)),
        (ty(6, true), ty(6, true), ty(6, true), ty(6, true)),
    ];
    for (xt, yt, ct, out) in shapes {
        for pairs in [1usize, 4, 9] {
            for trial in 0..6 {
                let mut b = Builder::new();
                let mut inputs = Vec::new();
                let (mut xs, mut ys) = (Vec::new(), Vec::new());
                for i in 0..pairs {
                    let known = trial % 3 == 1 && i % 2 == 0;
                    let lazy = trial % 3 == 2 && i % 2 == 1;
                    xs.push(operand(&mut b, &mut inputs, &mut rng, xt, known, lazy));
                    ys.push(operand(&mut b, &mut inputs, &mut rng, yt, false, false));
                }
                let c = operand(&mut b, &mut inputs, &mut rng, ct, false, trial == 5);
                let want = wrap(
                    out,
                    xs.iter()
                        .zip(&ys)
                        .map(|(x, y)| x.value * y.value)
                        .sum::<i128>()
                        + c.value,
                );
                let xv: Vec<_> = xs.iter().map(view).collect();
                let yv: Vec<_> = ys.iter().map(view).collect();
                let s = dot_widening(&mut b, out, &xv, &yv, &[view(&c)]).unwrap();
                assert_eq!(
                    run(b, s, &inputs, out),
                    want,
                    "{xt} x {yt} + {ct} into {out}"
                );
            }
        }
    }
}

#[test]
fn clear_weight_sums_match_plain_arithmetic() {
    let mut rng = StdRng::seed_from_u64(8);
    for (bits, signed) in [(4, true), (9, true), (8, false), (13, true)] {
        let ty = IntType::new(bits, signed).unwrap();
        for n in [1usize, 5, 17] {
            for trial in 0..4 {
                let mut b = Builder::new();
                let mut inputs = Vec::new();
                let xs: Vec<Operand> = (0..n)
                    .map(|i| {
                        let known = trial == 1 && i % 3 == 0;
                        let lazy = trial == 2 && i % 2 == 0;
                        operand(&mut b, &mut inputs, &mut rng, ty, known, lazy)
                    })
                    .collect();
                let ws: Vec<i128> = (0..n).map(|_| rng.gen_range(-40..=40)).collect();
                let c: i128 = rng.gen_range(-100..=100);
                let want = wrap(
                    ty,
                    xs.iter().zip(&ws).map(|(x, w)| x.value * w).sum::<i128>() + c,
                );
                let view: Vec<_> = xs.iter().map(|o| (&o.digits, o.form)).collect();
                let s = dot_clear(&mut b, ty, &view, &ws, c).unwrap();
                assert_eq!(run(b, s, &inputs, ty), want, "{ty}, {n} weights {ws:?}");
            }
        }
    }
}
