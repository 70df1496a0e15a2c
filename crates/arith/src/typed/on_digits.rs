//! The Digits algorithm: Parmesan's signed-binary circuits on representatives, truncated
//! to the type's width.

use encint_core::circuit::Builder;
use encint_core::lut::NegacyclicLut;

use crate::op::{Algorithm, IntType, Op, TypedError};
use crate::{Arith, SInt};

pub(super) fn build_digits(
    ar: &Arith,
    b: &mut Builder,
    op: Op,
    ty: IntType,
    x: &[SInt],
) -> Result<SInt, TypedError> {
    let n = ty.bits;
    let low = |s: &SInt| truncated(s.clone(), n);
    Ok(match op {
        Op::Add => truncated(ar.add(b, &low(&x[0]), &low(&x[1])), n),
        Op::Sub => truncated(ar.sub(b, &low(&x[0]), &low(&x[1])), n),
        Op::Neg => low(&x[0]).neg(b),
        Op::Mul => ar.mul_low(b, &low(&x[0]), &low(&x[1]), n),
        Op::Square => truncated(ar.square(b, &low(&x[0])), n),
        Op::ScalarMul(k) => {
            let k = centred_scalar(k, n).ok_or(TypedError::Unsupported(op, Algorithm::Digits))?;
            truncated(ar.scalar_mul(b, &low(&x[0]), k), n)
        }
        // ¬a = -a - 1 (mod 2^n).
        Op::Not => {
            let neg = low(&x[0]).neg(b);
            let minus_one = SInt::constant(b, -1);
            truncated(ar.add(b, &neg, &minus_one), n)
        }
        Op::Shl(k) => {
            let k = k as usize;
            if k >= n {
                SInt::default()
            } else {
                truncated(low(&x[0]).shl(b, k), n)
            }
        }
        Op::Select => {
            // Per digit: |c0|·a_i + (1-|c0|)·b_i, each one table lookup of 3·c0 + digit.
            let Some(&c) = x[0].digits.first() else {
                return Ok(low(&x[2]));
            };
            let take = NegacyclicLut::from_fn(-4..=4, |s| {
                let c = (s + 4) / 3 - 1;
                if c != 0 {
                    s - 3 * c
                } else {
                    0
                }
            })
            .expect("odd table");
            let keep = NegacyclicLut::from_fn(-4..=4, |s| {
                let c = (s + 4) / 3 - 1;
                if c == 0 {
                    s
                } else {
                    0
                }
            })
            .expect("odd table");
            let (a, e) = (low(&x[1]), low(&x[2]));
            let zero = b.constant(0);
            let digits = (0..n.max(1))
                .filter(|&i| i < a.len() || i < e.len())
                .map(|i| {
                    let ai = a.digits.get(i).copied().unwrap_or(zero);
                    let ei = e.digits.get(i).copied().unwrap_or(zero);
                    let sa = b.linear(&[(c, 3), (ai, 1)], 0);
                    let se = b.linear(&[(c, 3), (ei, 1)], 0);
                    let ta = b.lut(sa, &take);
                    let te = b.lut(se, &keep);
                    let sum = b.add(ta, te);
                    let id = crate::luts::identity();
                    b.lut(sum, &id)
                })
                .collect();
            SInt { digits }
        }
        other => return Err(TypedError::Unsupported(other, Algorithm::Digits)),
    })
}

fn truncated(x: SInt, n: usize) -> SInt {
    SInt {
        digits: x.digits.into_iter().take(n).collect(),
    }
}

/// `k mod 2^n` as the signed representative of least magnitude (fits `i64` for
/// `n ≤ 64`), or `None` when it does not fit an `i64`.
fn centred_scalar(k: i128, n: usize) -> Option<i64> {
    let w = IntType {
        bits: n,
        signed: true,
    }
    .wrap(k);
    i64::try_from(w).ok()
}
