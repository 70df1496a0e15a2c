//! Comparisons, minimum and maximum, and conditional assignments of unsigned bytes.

use encint_core::circuit::{Builder, NodeId};
use encint_core::lut::NegacyclicLut;

use super::super::common::{lut_on, sign_lut, tree};
use super::super::MAX_OPERAND_QWEIGHT;
use crate::{Byte, IsaError};

/// `2·sign(x.hi − y.hi) + sign(x.lo − y.lo) ∈ [−3, 3]`: its sign is that of `x − y`.
fn cmp_t(b: &mut Builder, x: Byte, y: Byte) -> Result<NodeId, IsaError> {
    let dh = b.linear(&[(x.hi, 1), (y.hi, -1)], 0);
    let dl = b.linear(&[(x.lo, 1), (y.lo, -1)], 0);
    let sh = sign_lut(b, dh)?;
    let sl = sign_lut(b, dl)?;
    Ok(b.linear(&[(sh, 2), (sl, 1)], 0))
}

pub(super) fn compare(
    b: &mut Builder,
    x: Byte,
    y: Byte,
    pred: fn(i64) -> bool,
    eq: bool,
) -> Result<Byte, IsaError> {
    let r = if eq {
        let dh = b.linear(&[(x.hi, 1), (y.hi, -1)], 0);
        let dl = b.linear(&[(x.lo, 1), (y.lo, -1)], 0);
        let sh = sign_lut(b, dh)?;
        let sl = sign_lut(b, dl)?;
        let t = b.linear(&[(sh, 3), (sl, 1)], 0);
        lut_on(b, t, -4..=4, |t| pred(t) as i64)?
    } else {
        let t = cmp_t(b, x, y)?;
        lut_on(b, t, -3..=3, |t| pred(t) as i64)?
    };
    Ok(Byte {
        hi: b.constant(0),
        lo: r,
    })
}

pub(super) fn minmax(b: &mut Builder, x: Byte, y: Byte, min: bool) -> Result<Byte, IsaError> {
    let t = cmp_t(b, x, y)?;
    let u = b.linear(&[(t, 1)], 3);
    // u < 3 ⟺ x < y: MIN takes x there, MAX takes y.
    let take_x = move |h: u8| (h < 3) == min;
    let mut pick = |p: NodeId, q: NodeId| -> Result<NodeId, IsaError> {
        let a = tree(b, u, p, |h, l| if take_x(h) { l } else { 0 })?;
        let c = tree(b, u, q, |h, l| if take_x(h) { 0 } else { l })?;
        Ok(b.add(a, c))
    };
    Ok(Byte {
        hi: pick(x.hi, y.hi)?,
        lo: pick(x.lo, y.lo)?,
    })
}

pub(super) fn cdup(b: &mut Builder, c: NodeId, x: Byte, when: bool) -> Result<Byte, IsaError> {
    let sel = move |h: u8, l: u8| if (h == 1) == when { l } else { 0 };
    Ok(Byte {
        hi: tree(b, c, x.hi, sel)?,
        lo: tree(b, c, x.lo, sel)?,
    })
}

pub(super) fn csel(b: &mut Builder, c: NodeId, x: Byte, y: Byte) -> Result<Byte, IsaError> {
    let p = cdup(b, c, x, true)?;
    let q = cdup(b, c, y, false)?;
    Ok(Byte {
        hi: b.add(p.hi, q.hi),
        lo: b.add(p.lo, q.lo),
    })
}

pub(super) fn cond_imm(b: &mut Builder, c: NodeId, t: u8, f: u8) -> Byte {
    let mut nib = |nt: u8, nf: u8| {
        let diff = i64::from(nt) - i64::from(nf);
        if (diff * diff) as u64 * b.qweight(c) <= MAX_OPERAND_QWEIGHT {
            b.linear(&[(c, diff)], i64::from(nf))
        } else {
            let mut table = [nt as i8; 16];
            table[0] = nf as i8;
            b.lut(c, &NegacyclicLut { table })
        }
    };
    Byte {
        hi: nib(t >> 4, f >> 4),
        lo: nib(t & 15, f & 15),
    }
}
