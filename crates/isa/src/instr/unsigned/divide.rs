//! Division and remainder of unsigned bytes, by a byte and by a nibble.

use encint_core::circuit::{Builder, NodeId};

use super::super::common::{flag, lut_on, mod16, refresh, refresh_byte, sign_lut, tree};
use super::planner::{nibbles, univariate};
use crate::{Byte, IsaError};

/// Restoring division of bytes: for `i = 7..0`, `R ≥ (y << i)` (and no overflow) decides
/// `q_i` and `R ← R − (y << i)`. The shifted divisors, zeroed when they overflow (so the
/// step leaves `R` unchanged), are univariate functions of `y` evaluated in the first
/// level. One step: signs and differences of the nibbles (2 blind rotations), then the
/// selector `sel = 2σ_h + σ_l + 3 + 8·borrow ∈ [0, 15)` drives the tree LUTs that pick
/// `R` or `R − (y << i)` (borrow included) and the quotient bit.
pub(super) fn divmod(b: &mut Builder, x: Byte, y: Byte, want_q: bool) -> Result<Byte, IsaError> {
    let mut shifted = Vec::with_capacity(8);
    let ov = |i: usize, v: u8| i > 0 && u32::from(v) >= (256 >> i);
    for i in 0..8usize {
        shifted.push(univariate(
            b,
            y,
            move |v| if ov(i, v) { 0 } else { v << i },
        )?);
    }
    let mut r = x;
    let mut q_hi = Vec::new();
    let mut q_lo = Vec::new();
    for i in (0..8usize).rev() {
        let yi = shifted[i];
        let dl = b.linear(&[(r.lo, 1), (yi.lo, -1)], 0);
        let dh = b.linear(&[(r.hi, 1), (yi.hi, -1)], 0);
        // Low nibble of the shifted divisor known to be 0 (i ≥ 4): R.lo is unchanged and
        // the comparison is decided by the high nibbles.
        let lo_zero = b.const_value(yi.lo) == Some(0);
        let sl = if lo_zero {
            b.constant(0)
        } else {
            sign_lut(b, dl)?
        };
        let sh = sign_lut(b, dh)?;
        let weight = 1u8 << (i % 4);
        let last = i == 0;
        if last && want_q {
            let t = b.linear(&[(sh, 2), (sl, 1)], 3);
            q_lo.push(lut_on(b, t, 0..=6, |u| if u >= 3 { 1 } else { 0 })?);
            break;
        }
        let (dlo, borrow) = if lo_zero {
            (r.lo, b.constant(0))
        } else {
            (mod16(b, dl)?, flag(b, dl, 4)?)
        };
        let w = mod16(b, dh)?;
        // When the comparison uses only σ_h (sel ∈ {1, 3, 5}), the overflow flag of the
        // quotient bit fits in the selector as +8, and the bit is a plain table of it.
        let folded = lo_zero && want_q && i > 0;
        let mut terms = vec![(sh, 2), (sl, 1), (borrow, 1)];
        if folded {
            let ov8 = nibbles(b, y, &[&move |h, l| 8 * ov(i, 16 * h + l) as u8])?[0];
            terms.push((ov8, 1));
        }
        let sel = b.linear(&terms, 3);
        let ge = move |h: u8| {
            if folded {
                (3..8).contains(&h)
            } else {
                (h & 7) >= 3
            }
        };
        let keep_hi = tree(b, sel, r.hi, move |h, l| if ge(h) { 0 } else { l })?;
        let (keep_lo, new_lo) = if lo_zero {
            (r.lo, dlo)
        } else {
            (
                tree(b, sel, r.lo, move |h, l| if ge(h) { 0 } else { l })?,
                tree(b, sel, dlo, move |h, l| if ge(h) { l } else { 0 })?,
            )
        };
        let new_hi = tree(b, sel, w, move |h, l| {
            if ge(h) {
                (l + 16 - (h >= 8 && !folded) as u8) & 15
            } else {
                0
            }
        })?;
        if want_q {
            let bit = if folded {
                lut_on(
                    b,
                    sel,
                    0..=15,
                    |h| if ge(h as u8) { weight.into() } else { 0 },
                )?
            } else {
                let ovn = nibbles(b, y, &[&move |h, l| ov(i, 16 * h + l) as u8])?[0];
                tree(
                    b,
                    sel,
                    ovn,
                    move |h, l| if ge(h) && l == 0 { weight } else { 0 },
                )?
            };
            if i >= 4 {
                q_hi.push(bit);
            } else {
                q_lo.push(bit);
            }
        }
        r = Byte {
            hi: b.add(keep_hi, new_hi),
            lo: if lo_zero {
                r.lo
            } else {
                b.add(keep_lo, new_lo)
            },
        };
    }
    if !want_q {
        return Ok(r);
    }
    let sum = |b: &mut Builder, v: &[NodeId]| {
        let terms: Vec<(NodeId, i64)> = v.iter().map(|&n| (n, 1)).collect();
        b.linear(&terms, 0)
    };
    let hi = sum(b, &q_hi);
    let lo = sum(b, &q_lo);
    Ok(refresh_byte(b, Byte { hi, lo }))
}

/// `x / d` for an encrypted nibble `d`: with `x = 16 xh + xl`, `xh = d·qh + r`,
/// `16 r = d·a + y` and `xl = d·b + u`, the quotient is `16 qh + a + b + [u ≥ d − y]`.
pub(super) fn div4(b: &mut Builder, x: Byte, d: NodeId) -> Result<Byte, IsaError> {
    let div = |d: u8, n: u8| n.checked_div(d).unwrap_or(15);
    let qh = tree(b, d, x.hi, div)?;
    let bq = tree(b, d, x.lo, div)?;
    let a = tree(b, d, x.hi, |d, n| {
        (16 * n.checked_rem(d).unwrap_or(0))
            .checked_div(d)
            .unwrap_or(0)
    })?;
    let (_, f8) = low_remainder(b, x, d, 1, |_| 0)?;
    let ab = b.add(a, bq);
    let lo = tree(b, f8, ab, |h, l| (l + (h == 0) as u8) & 15)?;
    Ok(Byte { hi: qh, lo })
}

/// `x % d` for an encrypted nibble `d`: `e = u − (d − y)`, result `e + d·[e < 0]`.
pub(super) fn mod4(b: &mut Builder, x: Byte, d: NodeId) -> Result<Byte, IsaError> {
    let hi = tree(b, d, x.hi, |d, n| if d == 0 { n } else { 0 })?;
    let (e, f8) = low_remainder(b, x, d, 0, |n| n)?;
    let m = tree(b, f8, d, |h, l| if h == 8 { l } else { 0 })?;
    let lo = b.add(e, m);
    Ok(Byte {
        hi,
        lo: refresh(b, lo),
    })
}

/// The last comparison of both nibble divisions: with `16 (xh mod d) = d·a + y` and
/// `u = xl mod d`, `e = u − (d − y)` and `f8 = 8·[e < 0]`. For `d = 0`, `d − y` is
/// `gap_at_0` and `u` is `u_at_0(xl)`.
fn low_remainder(
    b: &mut Builder,
    x: Byte,
    d: NodeId,
    gap_at_0: u8,
    u_at_0: fn(u8) -> u8,
) -> Result<(NodeId, NodeId), IsaError> {
    let gap = tree(b, d, x.hi, move |d, n| {
        if d == 0 {
            gap_at_0
        } else {
            d - (16 * (n % d)) % d
        }
    })?;
    let u = tree(
        b,
        d,
        x.lo,
        move |d, n| if d == 0 { u_at_0(n) } else { n % d },
    )?;
    let e = b.linear(&[(u, 1), (gap, -1)], 0);
    let f8 = flag(b, e, 4)?;
    Ok((e, f8))
}
