//! Building blocks shared by the instruction modules: nibble tables as tree LUTs and
//! bootstraps, constants, refreshes.

use encint_core::circuit::{Builder, NodeId};
use encint_core::lut::{NegacyclicLut, Table256};

use super::MAX_OPERAND_QWEIGHT;
use crate::{Byte, IsaError};

/// The byte constant `v`.
pub fn const_byte(b: &mut Builder, v: u8) -> Byte {
    Byte {
        hi: b.constant((v >> 4) as i64),
        lo: b.constant((v & 15) as i64),
    }
}

/// A boolean byte: `(0, bit)`.
pub fn bool_byte(b: &mut Builder, bit: NodeId) -> Byte {
    Byte {
        hi: b.constant(0),
        lo: bit,
    }
}

/// `SimpleBoot`: one bootstrap of the nibble `x` through `f: 0..16 → 0..16`.
pub fn nibble_lut(b: &mut Builder, x: NodeId, f: impl Fn(u8) -> u8) -> NodeId {
    let mut table = [0i8; 16];
    for (i, t) in table.iter_mut().enumerate() {
        *t = (f(i as u8) & 15) as i8;
    }
    b.lut(x, &NegacyclicLut { table })
}

/// `LUTeval`: the tree LUT `f(hi, lo)` on two nibbles (outputs taken mod 16).
pub fn tree(
    b: &mut Builder,
    hi: NodeId,
    lo: NodeId,
    f: impl Fn(u8, u8) -> u8,
) -> Result<NodeId, IsaError> {
    let t = Table256::from_fn(|h, l| (f(h, l) & 15) as i64)?;
    Ok(b.tree(hi, lo, &t)?)
}

/// Seed 004 eq. (1): a univariate byte function by `MVLUTeval(c0; c1, c1; msn, lsn)`.
pub fn byte_fn(b: &mut Builder, x: Byte, f: impl Fn(u8) -> u8) -> Result<Byte, IsaError> {
    let hi = tree(b, x.hi, x.lo, |h, l| f(16 * h + l) >> 4)?;
    let lo = tree(b, x.hi, x.lo, |h, l| f(16 * h + l) & 15)?;
    Ok(Byte { hi, lo })
}

/// A byte predicate (result nibble 0/1) by one `LUTeval`.
pub fn byte_pred(b: &mut Builder, x: Byte, f: impl Fn(u8) -> bool) -> Result<NodeId, IsaError> {
    tree(b, x.hi, x.lo, |h, l| f(16 * h + l) as u8)
}

/// `x` itself if its quadratic weight is at most [`MAX_OPERAND_QWEIGHT`], else an identity
/// bootstrap of it (`x` must be a nibble).
pub fn refresh(b: &mut Builder, x: NodeId) -> NodeId {
    if b.qweight(x) <= MAX_OPERAND_QWEIGHT {
        x
    } else {
        nibble_lut(b, x, |v| v)
    }
}

/// [`refresh`] of both nibbles.
pub fn refresh_byte(b: &mut Builder, x: Byte) -> Byte {
    Byte {
        hi: refresh(b, x.hi),
        lo: refresh(b, x.lo),
    }
}

/// The noise budget the builder was made for (the parameter set's largest bootstrap-input
/// quadratic weight, [`Builder::with_budget`]).
pub(crate) fn budget_of(b: &Builder) -> Result<u64, IsaError> {
    b.budget().ok_or(IsaError::NoBudget)
}
