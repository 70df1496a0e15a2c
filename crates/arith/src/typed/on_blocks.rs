//! The Blocks algorithm: the radix-4 block circuits of [`crate::blocks`], on radix-4
//! operands (results radix-4) or on bits paired into blocks (results as bits; additions
//! and subtractions as radix-4 blocks).

use encint_core::circuit::{Builder, NodeId};

use super::forms::{condition_scaled, operand_forms, to_bits, to_blocks, to_paired_blocks, Form};
use super::operands::Operands;
use crate::op::{Algorithm, IntType, Op, TypedError};
use crate::{Arith, SInt};

/// Additions, subtractions, products, comparisons, min / max, division and shifts by an
/// encrypted amount on radix-4 blocks of the operands' bits ([`crate::blocks`]), or, when
/// an operand is radix-4, every operation [`build_radix4`] has.
pub(super) fn build_blocks(
    ar: &Arith,
    b: &mut Builder,
    operands: Operands,
) -> Result<SInt, TypedError> {
    let Operands { op, ty, x, forms } = operands;
    let budget = ar
        .config()
        .max_qweight
        .min(encint_core::bits::QWEIGHT_BUDGET);
    if operand_forms(op, forms).contains(&Form::Radix4) {
        return build_radix4(b, operands, budget);
    }
    let n = ty.bits;
    if matches!(op, Op::Add | Op::Sub) {
        // The bits paired into blocks linearly (no bootstrap) and added by the ripple of
        // block carries: 2k − 1 bootstraps for k blocks, the result in radix-4 blocks
        // (against 3 bootstraps per two bits for a result in bits).
        let xs = to_paired_blocks(b, &x[0], ty, forms[0]);
        let ys = to_paired_blocks(b, &x[1], ty, forms[1]);
        return Ok(SInt {
            digits: crate::blocks::add_blocks(b, &xs, &ys, n, op == Op::Sub),
        });
    }
    let xs = to_bits(b, &x[0], n, ty.signed, forms[0]);
    let out = match op {
        Op::Mul => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            crate::blocks::mul(b, &xs, &ys, n, budget)
        }
        Op::Square => crate::blocks::mul(b, &xs, &xs, n, budget),
        Op::EQ | Op::NE | Op::LT | Op::LE | Op::GT | Op::GE => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            let bit = match op {
                Op::EQ => crate::blocks::eq(b, &xs, &ys),
                Op::NE => {
                    let e = crate::blocks::eq(b, &xs, &ys);
                    b.linear(&[(e, -1)], 1)
                }
                Op::LT => crate::blocks::compare(b, &xs, &ys, ty.signed, |s| s < 0),
                Op::LE => crate::blocks::compare(b, &xs, &ys, ty.signed, |s| s <= 0),
                Op::GT => crate::blocks::compare(b, &xs, &ys, ty.signed, |s| s > 0),
                _ => crate::blocks::compare(b, &xs, &ys, ty.signed, |s| s >= 0),
            };
            vec![bit]
        }
        Op::ShlVar | Op::ShrVar | Op::RotlVar | Op::RotrVar => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            crate::blocks::shift_var_bits(b, &xs, &ys, n, shift_kind(op, ty), budget)
        }
        Op::Min | Op::Max => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            crate::blocks::min_max_bits(b, &xs, &ys, ty.signed, op == Op::Max)
        }
        Op::Div | Op::Rem => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            if ty.signed {
                let (xb, yb) = (
                    crate::blocks::blocks_from_bits(b, &xs),
                    crate::blocks::blocks_from_bits(b, &ys),
                );
                let rem = op == Op::Rem;
                let out = crate::blocks::divide_blocks(b, &xb, &yb, n, true, rem, budget);
                crate::blocks::bits_from_blocks(b, &out, n)
            } else {
                crate::blocks::divide_unsigned_bits(b, &xs, &ys, op == Op::Rem, budget)
            }
        }
        _ => return Err(TypedError::Unsupported(op, Algorithm::Blocks)),
    };
    let out_signed = op.result_type(ty).signed;
    Ok(SInt {
        digits: encint_core::bits::bits_to_signed_digits(b, &out, out_signed),
    })
}

/// Operations on radix-4 blocks ([`crate::blocks`]), for operands of which at least one
/// is radix-4: results in radix-4 form (comparisons: one canonical bit).
fn build_radix4(b: &mut Builder, operands: Operands, budget: u64) -> Result<SInt, TypedError> {
    let Operands { op, ty, x, forms } = operands;
    use crate::blocks as bl;
    let n = ty.bits;
    let first = usize::from(op == Op::Select);
    let ops: Vec<Vec<NodeId>> = x[first..]
        .iter()
        .zip(&forms[first..])
        .map(|(s, &f)| match (op, f) {
            // A sum reads a block of paired bits as it is (quadratic weight 5): no refresh.
            (Op::Add | Op::Sub, Form::Canonical | Form::Lazy) => to_paired_blocks(b, s, ty, f),
            _ => to_blocks(b, s, ty, f),
        })
        .collect();
    let xs = &ops[0];
    let ys = ops.get(1).unwrap_or(xs);
    let compare = |b: &mut Builder, p: &[NodeId], q: &[NodeId], pred: fn(i64) -> bool| {
        bl::compare_blocks(b, p, q, n, ty.signed, pred, 1)
    };
    let digits = match op {
        Op::Add => bl::add_blocks(b, xs, ys, n, false),
        Op::Sub => bl::add_blocks(b, xs, ys, n, true),
        Op::Neg => bl::add_blocks(b, &[], xs, n, true),
        Op::And => bl::bitwise_blocks(b, xs, ys, n, |p, q| p & q),
        Op::Or => bl::bitwise_blocks(b, xs, ys, n, |p, q| p | q),
        Op::Xor => bl::bitwise_blocks(b, xs, ys, n, |p, q| p ^ q),
        Op::Not => bl::not_blocks(b, xs, n),
        Op::Mul => bl::mul_blocks(b, xs, ys, n, budget),
        Op::Square => bl::mul_blocks(b, xs, xs, n, budget),
        Op::EQ => vec![bl::eq_blocks(b, xs, ys)],
        Op::NE => {
            let e = bl::eq_blocks(b, xs, ys);
            vec![b.linear(&[(e, -1)], 1)]
        }
        // a > b and a <= b compare (b, a).
        Op::LT => vec![compare(b, xs, ys, |s| s < 0)],
        Op::GE => vec![compare(b, xs, ys, |s| s >= 0)],
        Op::GT => vec![compare(b, ys, xs, |s| s < 0)],
        Op::LE => vec![compare(b, ys, xs, |s| s >= 0)],
        // A signed value against a known zero (a ReLU): its sign bit decides.
        Op::Max | Op::Min if ty.signed && ys.iter().all(|&d| b.const_value(d) == Some(0)) => {
            bl::max_min_zero_blocks(b, xs, n, op == Op::Max)
        }
        Op::Max | Op::Min => {
            let ge = bl::compare_blocks(b, xs, ys, n, ty.signed, |s| s >= 0, bl::SELECT_SCALE);
            bl::min_max_blocks(b, ge, xs, ys, n, op == Op::Max)
        }
        Op::Select => {
            let c = condition_scaled(b, &x[0], forms[0], bl::SELECT_SCALE);
            bl::min_max_blocks(b, c, xs, ys, n, true)
        }
        Op::ScalarMul(k) => {
            let k = IntType {
                bits: n,
                signed: false,
            }
            .wrap(k) as u128;
            bl::scalar_mul_blocks(b, xs, n, k, budget)
        }
        Op::Shl(k) | Op::Shr(k) | Op::Rotl(k) | Op::Rotr(k) => {
            bl::shift_blocks(b, xs, n, shift_kind(op, ty), k.into())
        }
        Op::ShlVar | Op::ShrVar | Op::RotlVar | Op::RotrVar => {
            bl::shift_var_blocks(b, xs, ys, n, shift_kind(op, ty), budget)
        }
        Op::Cast(to) => bl::cast_blocks(b, xs, n, ty.signed, to.bits),
        Op::CountOnes | Op::CountZeros => {
            let w = op.result_type(ty).bits;
            bl::count_ones_blocks(b, xs, n, op == Op::CountZeros, w, budget)
        }
        Op::LeadingZeros | Op::LeadingOnes | Op::TrailingZeros | Op::TrailingOnes => {
            let w = op.result_type(ty).bits;
            let ones = matches!(op, Op::LeadingOnes | Op::TrailingOnes);
            let end = match op {
                Op::LeadingZeros | Op::LeadingOnes => bl::End::Top,
                _ => bl::End::Bottom,
            };
            let counted = bl::end_zeros_blocks(b, xs, n, end, ones, w, budget);
            counted.ok_or(TypedError::Unsupported(op, Algorithm::Blocks))?
        }
        Op::Div | Op::Rem => bl::divide_blocks(b, xs, ys, n, ty.signed, op == Op::Rem, budget),
        _ => return Err(TypedError::Unsupported(op, Algorithm::Blocks)),
    };
    Ok(SInt { digits })
}

/// The block shift of a shift or rotation operation (arithmetic right shifts for signed
/// types).
fn shift_kind(op: Op, ty: IntType) -> crate::blocks::Shift {
    use crate::blocks::Shift;
    match op {
        Op::Shl(_) | Op::ShlVar => Shift::Left,
        Op::Shr(_) | Op::ShrVar if ty.signed => Shift::RightArith,
        Op::Shr(_) | Op::ShrVar => Shift::Right,
        Op::Rotl(_) | Op::RotlVar => Shift::RotateLeft,
        _ => Shift::RotateRight,
    }
}
