//! Shifts and rotations of blocks by a constant: each result block reads its (at most
//! two) source blocks in one table, or is a source block as it is.

use encint_core::circuit::{Builder, NodeId};

use super::{block_max, table};

/// A shift or rotation of a `bits`-bit pattern, by an amount given apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shift {
    /// `x << t` (zeros in; `t ≥ bits` gives 0).
    Left,
    /// `x >> t`, logical (zeros in; `t ≥ bits` gives 0).
    Right,
    /// `x >> t`, arithmetic (copies of bit `bits − 1` in).
    RightArith,
    /// `x` rotated left by `t mod bits`.
    RotateLeft,
    /// `x` rotated right by `t mod bits`.
    RotateRight,
}

impl Shift {
    /// The input bit that result bit `p` of a `bits`-bit pattern copies after a shift by
    /// `t` (`None`: a zero).
    pub fn source(self, bits: usize, t: u128, p: usize) -> Option<usize> {
        let (p128, n) = (p as u128, bits as u128);
        match self {
            Shift::Left => p128.checked_sub(t).map(|q| q as usize),
            Shift::Right => p128.checked_add(t).filter(|&q| q < n).map(|q| q as usize),
            Shift::RightArith => Some(p128.saturating_add(t).min(n - 1) as usize),
            Shift::RotateLeft => Some(((p128 + n - t % n) % n) as usize),
            Shift::RotateRight => Some(((p128 + t % n) % n) as usize),
        }
    }

    pub(super) fn rotates(self) -> bool {
        matches!(self, Shift::RotateLeft | Shift::RotateRight)
    }
}

/// `x` shifted or rotated by a constant `t` on fresh blocks: a result block that is an
/// input block as it is costs nothing (every block, for an even `t` on an even width);
/// any other reads its (at most two) source blocks in one bootstrap of `m·Xₐ + X_b`
/// (quadratic weight 17). Equal tables (the sign fill of an arithmetic shift) are built
/// once.
pub fn shift_blocks(
    b: &mut Builder,
    x: &[NodeId],
    bits: usize,
    kind: Shift,
    t: u128,
) -> Vec<NodeId> {
    gather_blocks(b, x, bits, bits, |p| kind.source(bits, t, p))
}

/// The `out_bits`-bit pattern whose bit `p` is bit `src(p)` of the `in_bits`-bit pattern
/// held in the fresh blocks `x` (`None`: 0), as fresh blocks (see [`shift_blocks`]).
pub(super) fn gather_blocks(
    b: &mut Builder,
    x: &[NodeId],
    in_bits: usize,
    out_bits: usize,
    src: impl Fn(usize) -> Option<usize> + Copy,
) -> Vec<NodeId> {
    let size = |m: usize| block_max(in_bits, m) + 1;
    let mut memo: std::collections::HashMap<(Vec<usize>, Vec<i64>), NodeId> =
        std::collections::HashMap::new();
    (0..out_bits.div_ceil(2))
        .map(|i| {
            let ms = source_blocks(out_bits, i, src);
            let (sel, radix) = match *ms.as_slice() {
                [] => return b.constant(0),
                [m] => (x[m], size(m)),
                [lo, hi] => (b.linear(&[(x[hi], size(lo)), (x[lo], 1)], 0), size(lo)),
                _ => unreachable!("a block has two bits"),
            };
            let hi_value = ms.iter().map(|&m| size(m)).product::<i64>() - 1;
            let f = |s: i64| match *ms.as_slice() {
                [m] => part(out_bits, i, m, s, src),
                [lo, hi] => {
                    part(out_bits, i, lo, s % radix, src) | part(out_bits, i, hi, s / radix, src)
                }
                _ => 0,
            };
            let values: Vec<i64> = (0..=hi_value).map(f).collect();
            if let [m] = *ms.as_slice() {
                let identity = values.iter().enumerate().all(|(v, &f)| f == v as i64);
                if identity && size(m) == block_max(out_bits, i) + 1 {
                    return x[m];
                }
            }
            *memo
                .entry((ms.clone(), values.clone()))
                .or_insert_with(|| table(b, sel, 0, hi_value, |s| values[s as usize]))
        })
        .collect()
}

/// The source blocks of result block `i` when result bit `p` copies input bit
/// `src(p)`: sorted, without repeats.
pub(super) fn source_blocks(
    bits: usize,
    i: usize,
    src: impl Fn(usize) -> Option<usize>,
) -> Vec<usize> {
    let mut ms: Vec<usize> = (2 * i..(2 * i + 2).min(bits))
        .filter_map(|p| src(p).map(|q| q / 2))
        .collect();
    ms.sort_unstable();
    ms.dedup();
    ms
}

/// The bits of source block `m` (holding `v`) that `src` sends to result block `i`, in
/// their places there.
pub(super) fn part(
    bits: usize,
    i: usize,
    m: usize,
    v: i64,
    src: impl Fn(usize) -> Option<usize>,
) -> i64 {
    (2 * i..(2 * i + 2).min(bits))
        .filter_map(|p| src(p).filter(|q| q / 2 == m).map(|q| (p, q)))
        .fold(0, |acc, (p, q)| acc | (((v >> (q % 2)) & 1) << (p - 2 * i)))
}
