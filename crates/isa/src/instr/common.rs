//! Building blocks shared by the instruction modules: nibble tables as tree LUTs and
//! bootstraps, sign and step tables on linear combinations, constants, refreshes.
//!
//! The step tables use the 5-bit digit space `Z_32`: a nibble sum `s` (any value mod 32)
//! is reduced mod 16 by one bootstrap of the negacyclic ±k step `t` (`-k` on `[0, 16)`,
//! `+k` on `[16, 32)`): `s mod 16 = s − t − 8` (k = 8) and `t + k ∈ {0, 2k}` flags the
//! carry. Several such tables on one input share one blind rotation.

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

/// Trama et al., eq. (1): a univariate byte function by `MVLUTeval(c0; c1, c1; msn, lsn)`.
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

/// One plain bootstrap of the linear node `x` through `f` on `domain` (which must fit the
/// negacyclic constraints, else a core error).
pub(crate) fn lut_on(
    b: &mut Builder,
    x: NodeId,
    domain: std::ops::RangeInclusive<i64>,
    f: impl Fn(i64) -> i64,
) -> Result<NodeId, IsaError> {
    let lut = NegacyclicLut::from_fn(domain, f)?;
    Ok(b.lut(x, &lut))
}

/// `sign(x)` in {-1, 0, 1} for `x` in `-15..=15` (negacyclic: one bootstrap).
pub(crate) fn sign_lut(b: &mut Builder, x: NodeId) -> Result<NodeId, IsaError> {
    lut_on(b, x, -15..=15, i64::signum)
}

/// `+1` if `x >= 0` else `-1`, for `x` in `-16..=15` (negacyclic: one bootstrap).
pub(crate) fn pm_ge0_lut(b: &mut Builder, x: NodeId) -> Result<NodeId, IsaError> {
    lut_on(b, x, -16..=15, |v| if v >= 0 { 1 } else { -1 })
}

/// The negacyclic ±`k` step of `s` (any value mod 32): `−k` when `s mod 32 ∈ [0, 16)`,
/// `+k` otherwise.
pub(crate) fn step(b: &mut Builder, s: NodeId, k: i64) -> Result<NodeId, IsaError> {
    lut_on(b, s, 0..=15, |_| -k)
}

/// `s mod 16` for any `s` (one bootstrap, shared with the other steps of `s`).
pub(crate) fn mod16(b: &mut Builder, s: NodeId) -> Result<NodeId, IsaError> {
    let t = step(b, s, 8)?;
    Ok(b.linear(&[(s, 1), (t, -1)], -8))
}

/// `2k · [s mod 32 ≥ 16]` (a carry or borrow flag scaled by `2k`).
pub(crate) fn flag(b: &mut Builder, s: NodeId, k: i64) -> Result<NodeId, IsaError> {
    let t = step(b, s, k)?;
    Ok(b.linear(&[(t, 1)], k))
}

/// `[s mod 32 ≥ 16]` at unit scale: one half-step bootstrap (the carry of a sum in `0..32`,
/// the borrow of a difference in `-16..16`).
pub(crate) fn unit_flag(b: &mut Builder, s: NodeId) -> Result<NodeId, IsaError> {
    Ok(b.half_lut(s, &NegacyclicLut { table: [-1; 16] })?)
}
