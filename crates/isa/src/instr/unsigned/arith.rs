//! Addition, subtraction, bitwise operations and multiplication of unsigned bytes.

use encint_core::circuit::Builder;

use super::super::common::{flag, mod16, refresh, tree, unit_flag};
use crate::{Byte, IsaError};

/// `x ± y`: the low sum is reduced by one step bootstrap while a half-step bootstrap of the
/// same sum gives the unit carry (borrow); the high sum plus it is reduced by one more. Three
/// plain bootstraps, depth 2, no tree.
fn add_sub(b: &mut Builder, x: Byte, y: Byte, sign: i64) -> Result<Byte, IsaError> {
    let s = b.linear(&[(x.lo, 1), (y.lo, sign)], 0);
    let lo = mod16(b, s)?;
    let c = unit_flag(b, s)?;
    let z = b.linear(&[(x.hi, 1), (y.hi, sign), (c, sign)], 0);
    let hi = mod16(b, z)?;
    Ok(Byte {
        hi: refresh(b, hi),
        lo: refresh(b, lo),
    })
}

pub(super) fn add(b: &mut Builder, x: Byte, y: Byte) -> Result<Byte, IsaError> {
    add_sub(b, x, y, 1)
}

pub(super) fn sub(b: &mut Builder, x: Byte, y: Byte) -> Result<Byte, IsaError> {
    add_sub(b, x, y, -1)
}

pub(super) fn bitwise(
    b: &mut Builder,
    x: Byte,
    y: Byte,
    f: fn(u8, u8) -> u8,
) -> Result<Byte, IsaError> {
    Ok(Byte {
        hi: tree(b, x.hi, y.hi, f)?,
        lo: tree(b, x.lo, y.lo, f)?,
    })
}

fn mul_lo(h: u8, l: u8) -> u8 {
    (h * l) & 15
}
fn mul_hi(h: u8, l: u8) -> u8 {
    (h * l) >> 4
}

pub(super) fn mul(b: &mut Builder, x: Byte, y: Byte) -> Result<Byte, IsaError> {
    let lo = tree(b, x.lo, y.lo, mul_lo)?;
    let a1 = tree(b, x.lo, y.lo, mul_hi)?;
    let b0 = tree(b, y.lo, x.hi, mul_lo)?;
    let c0 = tree(b, x.lo, y.hi, mul_lo)?;
    let s = b.linear(&[(a1, 1), (b0, 1), (c0, 1)], 0);
    let hi = mod16(b, s)?;
    Ok(Byte {
        hi: refresh(b, hi),
        lo,
    })
}

pub(super) fn mulm(b: &mut Builder, x: Byte, y: Byte) -> Result<Byte, IsaError> {
    // x·y = A + 16(B + C) + 256 D with A = xl·yl, B = xh·yl, C = xl·yh, D = xh·yh.
    let a1 = tree(b, x.lo, y.lo, mul_hi)?;
    let b0 = tree(b, y.lo, x.hi, mul_lo)?;
    let b1 = tree(b, y.lo, x.hi, mul_hi)?;
    let c0 = tree(b, x.lo, y.hi, mul_lo)?;
    let c1 = tree(b, x.lo, y.hi, mul_hi)?;
    let d0 = tree(b, x.hi, y.hi, mul_lo)?;
    let d1 = tree(b, x.hi, y.hi, mul_hi)?;
    // κ = ⌊(a1 + b0 + c0) / 16⌋ ∈ {0, 1, 2}, as 2κ.
    let e1 = b.add(b0, c0);
    let r1 = mod16(b, e1)?;
    let f1 = flag(b, e1, 1)?;
    let g = b.add(a1, r1);
    let g2 = flag(b, g, 1)?;
    let kappa2 = b.add(f1, g2);
    // Result = 16 d1 + d0 + b1 + c1 + κ.
    let e2 = b.add(b1, c1);
    let r2 = mod16(b, e2)?;
    let f2 = flag(b, e2, 1)?;
    let h = b.add(d0, r2);
    let r3 = mod16(b, h)?;
    let f3 = flag(b, h, 1)?;
    let lo = tree(b, kappa2, r3, |k2, l| (l + k2 / 2) & 15)?;
    let c4 = tree(b, kappa2, r3, |k2, l| 2 * ((l + k2 / 2) >> 4))?;
    let sel = b.linear(&[(f2, 1), (f3, 1), (c4, 1)], 0);
    let hi = tree(b, sel, d1, |s2, l| (l + s2 / 2) & 15)?;
    Ok(Byte { hi, lo })
}
