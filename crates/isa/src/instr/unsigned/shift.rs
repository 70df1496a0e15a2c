//! Shifts and rotations of unsigned bytes by encrypted amounts.

use encint_core::circuit::{Builder, NodeId};

use super::super::common::tree;
use crate::{Byte, IsaError};

/// Shift by an encrypted byte amount: `s = min(k, 8)` by one tree, then three trees on `s`.
pub(super) fn shift(b: &mut Builder, x: Byte, k: Byte, left: bool) -> Result<Byte, IsaError> {
    let s = tree(b, k.hi, k.lo, |h, l| if h == 0 { l.min(8) } else { 8 })?;
    // same: a nibble's contribution to its own position; cross: to the other one.
    let same = move |s: u8, n: u8| match (s < 4, left) {
        (true, true) => (n << s) & 15,
        (true, false) => n >> s,
        (false, _) => 0,
    };
    let cross = move |s: u8, n: u8| match (s, left) {
        (0..=3, true) => n >> (4 - s),
        (0..=3, false) => (n << (4 - s)) & 15,
        (4..=7, true) => (n << (s - 4)) & 15,
        (4..=7, false) => n >> (s - 4),
        _ => 0,
    };
    let (src_same_to_out, src_cross, keep) = if left {
        (x.hi, x.lo, x.lo)
    } else {
        (x.lo, x.hi, x.hi)
    };
    // Left: hi = same(hi) + cross(lo), lo = same(lo). Right: lo = same(lo) + cross(hi),
    // hi = same(hi).
    let a = tree(b, s, src_same_to_out, same)?;
    let c = tree(b, s, src_cross, cross)?;
    let two = b.add(a, c);
    let one = tree(b, s, keep, same)?;
    Ok(if left {
        Byte { hi: two, lo: one }
    } else {
        Byte { hi: one, lo: two }
    })
}

/// Rotation by `k mod 8` (`k` the amount's low nibble): four trees on `k`, two tables.
pub(super) fn rotate(b: &mut Builder, x: Byte, k: NodeId, left: bool) -> Result<Byte, IsaError> {
    let amount = move |kl: u8| {
        let r = kl & 7;
        if left {
            r
        } else {
            (8 - r) & 7
        }
    };
    let same = move |kl: u8, n: u8| {
        let r = amount(kl);
        if r < 4 {
            (n << r) & 15
        } else {
            n >> (8 - r)
        }
    };
    let cross = move |kl: u8, n: u8| {
        let r = amount(kl);
        if r < 4 {
            n >> (4 - r)
        } else {
            (n << (r - 4)) & 15
        }
    };
    let hh = tree(b, k, x.hi, same)?;
    let lh = tree(b, k, x.lo, cross)?;
    let ll = tree(b, k, x.lo, same)?;
    let hl = tree(b, k, x.hi, cross)?;
    Ok(Byte {
        hi: b.add(hh, lh),
        lo: b.add(ll, hl),
    })
}
