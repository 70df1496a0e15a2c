//! The Blocks algorithm: the radix-4 block circuits of [`crate::blocks`], on radix-4
//! operands (results radix-4) or on bits paired into blocks (results as bits).

use encint_core::circuit::{Builder, NodeId};

use super::forms::{condition_bit, operand_forms, to_bits, to_blocks, Form};
use super::operands::Operands;
use super::types::{Algorithm, IntOp, IntType, TypedError};
use crate::{Arith, SInt};

/// Products, comparisons, min / max, division and shifts by an encrypted amount on
/// radix-4 blocks of the operands' bits ([`crate::blocks`]), or, when an operand is
/// radix-4, every operation [`build_radix4`] has.
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
    let xs = to_bits(b, &x[0], n, ty.signed, forms[0]);
    let out = match op {
        IntOp::WrappingMul => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            crate::blocks::mul(b, &xs, &ys, n, budget)
        }
        IntOp::WrappingSquare => crate::blocks::mul(b, &xs, &xs, n, budget),
        IntOp::Eq | IntOp::Ne | IntOp::Lt | IntOp::Le | IntOp::Gt | IntOp::Ge => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            let bit = match op {
                IntOp::Eq => crate::blocks::eq(b, &xs, &ys),
                IntOp::Ne => {
                    let e = crate::blocks::eq(b, &xs, &ys);
                    b.linear(&[(e, -1)], 1)
                }
                IntOp::Lt => crate::blocks::compare(b, &xs, &ys, ty.signed, |s| s < 0),
                IntOp::Le => crate::blocks::compare(b, &xs, &ys, ty.signed, |s| s <= 0),
                IntOp::Gt => crate::blocks::compare(b, &xs, &ys, ty.signed, |s| s > 0),
                _ => crate::blocks::compare(b, &xs, &ys, ty.signed, |s| s >= 0),
            };
            vec![bit]
        }
        IntOp::ShlVar | IntOp::ShrVar | IntOp::RotlVar | IntOp::RotrVar => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            crate::blocks::shift_var_bits(b, &xs, &ys, n, shift_kind(op, ty), budget)
        }
        IntOp::Min | IntOp::Max => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            crate::blocks::min_max_bits(b, &xs, &ys, ty.signed, op == IntOp::Max)
        }
        IntOp::Div | IntOp::Rem => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            if ty.signed {
                let (xb, yb) = (
                    crate::blocks::blocks_from_bits(b, &xs),
                    crate::blocks::blocks_from_bits(b, &ys),
                );
                let rem = op == IntOp::Rem;
                let out = crate::blocks::divide_blocks(b, &xb, &yb, n, true, rem, budget);
                crate::blocks::bits_from_blocks(b, &out, n)
            } else {
                crate::blocks::divide_unsigned_bits(b, &xs, &ys, op == IntOp::Rem, budget)
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
    let first = usize::from(op == IntOp::Select);
    let ops: Vec<Vec<NodeId>> = x[first..]
        .iter()
        .zip(&forms[first..])
        .map(|(s, &f)| to_blocks(b, s, ty, f))
        .collect();
    let xs = &ops[0];
    let ys = ops.get(1).unwrap_or(xs);
    let compare = |b: &mut Builder, p: &[NodeId], q: &[NodeId], pred: fn(i64) -> bool| {
        bl::compare_blocks(b, p, q, n, ty.signed, pred)
    };
    let digits = match op {
        IntOp::WrappingAdd => bl::add_blocks(b, xs, ys, n, false),
        IntOp::WrappingSub => bl::add_blocks(b, xs, ys, n, true),
        IntOp::WrappingNeg => bl::add_blocks(b, &[], xs, n, true),
        IntOp::And => bl::bitwise_blocks(b, xs, ys, n, |p, q| p & q),
        IntOp::Or => bl::bitwise_blocks(b, xs, ys, n, |p, q| p | q),
        IntOp::Xor => bl::bitwise_blocks(b, xs, ys, n, |p, q| p ^ q),
        IntOp::Not => bl::not_blocks(b, xs, n),
        IntOp::WrappingMul => bl::mul_blocks(b, xs, ys, n, budget),
        IntOp::WrappingSquare => bl::mul_blocks(b, xs, xs, n, budget),
        IntOp::Eq => vec![bl::eq_blocks(b, xs, ys)],
        IntOp::Ne => {
            let e = bl::eq_blocks(b, xs, ys);
            vec![b.linear(&[(e, -1)], 1)]
        }
        // a > b and a <= b compare (b, a).
        IntOp::Lt => vec![compare(b, xs, ys, |s| s < 0)],
        IntOp::Ge => vec![compare(b, xs, ys, |s| s >= 0)],
        IntOp::Gt => vec![compare(b, ys, xs, |s| s < 0)],
        IntOp::Le => vec![compare(b, ys, xs, |s| s >= 0)],
        IntOp::Max | IntOp::Min => {
            let ge = compare(b, xs, ys, |s| s >= 0);
            if op == IntOp::Max {
                bl::select_blocks(b, ge, xs, ys, n)
            } else {
                bl::select_blocks(b, ge, ys, xs, n)
            }
        }
        IntOp::Select => {
            let c = condition_bit(b, &x[0], forms[0]);
            bl::select_blocks(b, c, xs, ys, n)
        }
        IntOp::WrappingScalarMul(k) => {
            let k = IntType {
                bits: n,
                signed: false,
            }
            .wrap(k) as u128;
            bl::scalar_mul_blocks(b, xs, n, k, budget)
        }
        IntOp::Shl(k) | IntOp::Shr(k) | IntOp::Rotl(k) | IntOp::Rotr(k) => {
            bl::shift_blocks(b, xs, n, shift_kind(op, ty), k.into())
        }
        IntOp::ShlVar | IntOp::ShrVar | IntOp::RotlVar | IntOp::RotrVar => {
            bl::shift_var_blocks(b, xs, ys, n, shift_kind(op, ty), budget)
        }
        IntOp::Cast(to) => bl::cast_blocks(b, xs, n, ty.signed, to.bits),
        IntOp::Div | IntOp::Rem => {
            bl::divide_blocks(b, xs, ys, n, ty.signed, op == IntOp::Rem, budget)
        }
        _ => return Err(TypedError::Unsupported(op, Algorithm::Blocks)),
    };
    Ok(SInt { digits })
}

/// The block shift of a shift or rotation operation (arithmetic right shifts for signed
/// types).
fn shift_kind(op: IntOp, ty: IntType) -> crate::blocks::Shift {
    use crate::blocks::Shift;
    match op {
        IntOp::Shl(_) | IntOp::ShlVar => Shift::Left,
        IntOp::Shr(_) | IntOp::ShrVar if ty.signed => Shift::RightArith,
        IntOp::Shr(_) | IntOp::ShrVar => Shift::Right,
        IntOp::Rotl(_) | IntOp::RotlVar => Shift::RotateLeft,
        _ => Shift::RotateRight,
    }
}
