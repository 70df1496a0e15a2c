//! Exact products of signed-binary integers on balanced radix-4 blocks.
//!
//! An `n`-digit signed-binary integer `x = Σ dᵢ 2^i` (digits -1, 0, 1, any
//! representative) is recoded in balanced radix 4 by a ripple over digit pairs
//! ([`balanced_blocks`]): `s = d₂ₖ + 2d₂ₖ₊₁ + cₖ` (the carry `cₖ` in {-1, 0, 1}, `s` in
//! `-4..=4`) gives the block `Bₖ = ((s + 2) mod 4) − 2` in {-2, -1, 0, 1} and the next
//! carry `(s + 2) div 4`, one bootstrap each; the last carry is the top block. So
//! `x = Σ Bₖ 4^k` exactly, with no offset, in `n` bootstraps (`n + 1` for odd `n`: a zero
//! digit completes the last pair).
//!
//! A product of two blocks, `Bᵢ·Cⱼ` in `-2..=4`, is one bootstrap of the selector
//! `4(Bᵢ + 2) + (Cⱼ + 2)`: the digit `Bᵢ·Cⱼ + 2` in `0..=6` joins column `i + j` (column
//! `c` weighs `4^c`) whole, and `−2` the column's constant. (Unsigned blocks, `0..=3`,
//! give products in `0..=9`, which need a second bootstrap for the high radix-4 digit
//! or pack worse into the column sums.) The columns are then reduced as in
//! [`super::mul`] to the bits of the product modulo `2^(n+m+1)`, in two's complement.

use encint_core::circuit::{Builder, NodeId};

use super::columns::{reduce_columns, Grouping};
use super::{table, Digit, Out};

/// A node with its least and largest values.
#[derive(Debug, Clone, Copy)]
struct Ranged {
    node: NodeId,
    lo: i64,
    hi: i64,
}

/// One bootstrap of `f` on `s` (values in `lo..=hi`), or a constant when `s` is known;
/// with the range of `f` on `lo..=hi`.
fn read(b: &mut Builder, s: NodeId, lo: i64, hi: i64, f: impl Fn(i64) -> i64) -> Ranged {
    let (flo, fhi) = (lo..=hi)
        .map(&f)
        .fold((i64::MAX, i64::MIN), |(l, h), v| (l.min(v), h.max(v)));
    let node = match b.const_value(s) {
        Some(v) => b.constant(f(v)),
        None => table(b, s, lo, hi, f),
    };
    Ranged {
        node,
        lo: flo,
        hi: fhi,
    }
}

/// The balanced radix-4 blocks of the signed-binary integer `digits` (least significant
/// first, each -1, 0 or 1): fresh digits `Bₖ` in {-2, -1, 0, 1} with `x = Σ Bₖ 4^k`, the
/// last one the final carry in {-1, 0, 1}. One bootstrap per digit (and one more for an
/// odd count); `⌈n/2⌉ + 1` blocks.
fn balanced(b: &mut Builder, digits: &[NodeId]) -> Vec<Ranged> {
    let zero = b.constant(0);
    let mut carry = Ranged {
        node: zero,
        lo: 0,
        hi: 0,
    };
    let mut out = Vec::with_capacity(digits.len() / 2 + 2);
    for pair in digits.chunks(2) {
        let hi_digit = pair.get(1).copied().unwrap_or(zero);
        let hw = if pair.len() == 2 { 2 } else { 0 };
        let s = b.linear(&[(pair[0], 1), (hi_digit, hw), (carry.node, 1)], 0);
        let (lo, hi) = (carry.lo - 1 - hw, carry.hi + 1 + hw);
        out.push(read(b, s, lo, hi, |v| (v + 2).rem_euclid(4) - 2));
        carry = read(b, s, lo, hi, |v| (v + 2).div_euclid(4));
    }
    out.push(carry);
    out
}

/// The balanced radix-4 blocks of `digits` (`balanced`'s recoding): `x = Σ Bₖ 4^k`
/// with every block in {-2, -1, 0, 1} and the last one in {-1, 0, 1}.
pub fn balanced_blocks(b: &mut Builder, digits: &[NodeId]) -> Vec<NodeId> {
    balanced(b, digits).into_iter().map(|r| r.node).collect()
}

/// `times` copies of the digit `A·C − lo` (in `0..=hi − lo`, one bootstrap of the
/// selector `m(A − A.lo) + (C − C.lo)`, `m` the size of `C`'s range) into column `col`,
/// `times · lo` into its constant; `lo`, `hi` the product's least and largest values.
fn product_into(
    b: &mut Builder,
    x: Ranged,
    y: Ranged,
    col: usize,
    times: usize,
    cols: &mut [Vec<Digit>],
    offsets: &mut [i64],
) {
    // The side with the smaller range takes weight 1.
    let (a, c) = if x.hi - x.lo >= y.hi - y.lo {
        (x, y)
    } else {
        (y, x)
    };
    let corners = [(a.lo, c.lo), (a.lo, c.hi), (a.hi, c.lo), (a.hi, c.hi)];
    let plo = corners.iter().map(|&(p, q)| p * q).min().unwrap_or(0);
    let known = |r: Ranged| b.const_value(r.node).or((r.lo == r.hi).then_some(r.lo));
    if let Some((k, other)) = known(a).map(|k| (k, c)).or(known(c).map(|k| (k, a))) {
        // A known factor: the product is linear in the other block (a constant when
        // both are known, nothing when the factor is 0).
        if let Some(v) = known(other) {
            offsets[col] += times as i64 * k * v;
        } else if k != 0 {
            let (lo, hi) = (
                (k * other.lo).min(k * other.hi),
                (k * other.lo).max(k * other.hi),
            );
            offsets[col] += times as i64 * lo;
            let d = b.linear(&[(other.node, k)], -lo);
            for _ in 0..times {
                cols[col].push(Digit::new(d, hi - lo));
            }
        }
        return;
    }
    let m = c.hi - c.lo + 1;
    let sel = b.linear(&[(a.node, m), (c.node, 1)], -(m * a.lo + c.lo));
    let top = (a.hi - a.lo) * m + (c.hi - c.lo);
    let (alo, clo) = (a.lo, c.lo);
    let d = read(b, sel, 0, top, move |s| (s / m + alo) * (s % m + clo) - plo);
    offsets[col] += times as i64 * plo;
    for _ in 0..times {
        cols[col].push(Digit::new(d.node, d.hi));
    }
}

/// Column constants (possibly negative) brought to `0..4` by borrowing from the next
/// column; the top column's taken modulo its `2^(width − 2·top)`.
fn normalise(offsets: &mut [i64], width: usize) {
    let ncols = offsets.len();
    for c in 0..ncols {
        if c + 1 < ncols {
            let q = offsets[c].div_euclid(4);
            offsets[c] -= 4 * q;
            offsets[c + 1] += q;
        } else {
            offsets[c] = offsets[c].rem_euclid(1 << (width - 2 * c));
        }
    }
}

/// The exact product of two signed-binary integers (digits -1, 0 or 1, least
/// significant first) as `|x| + |y| + 1` signed-binary digits: the two's-complement
/// bits of the product, the top one negated. Empty when an operand is. `budget` is the
/// quadratic-weight budget at a bootstrap input (at least 25).
///
/// Both operands in balanced radix 4 ([`balanced_blocks`]), each block product one
/// bootstrap into its column, the columns reduced to the bits of the product modulo
/// `2^(n+m+1)` (it lies in `(−2^(n+m), 2^(n+m))`).
pub fn mul_signed_digits(b: &mut Builder, x: &[NodeId], y: &[NodeId], budget: u64) -> Vec<NodeId> {
    let (n, m) = (x.len(), y.len());
    if n == 0 || m == 0 {
        return Vec::new();
    }
    let width = n + m + 1;
    let ncols = width.div_ceil(2);
    let u = balanced(b, x);
    let v = balanced(b, y);
    let mut cols: Vec<Vec<Digit>> = vec![Vec::new(); ncols];
    let mut offsets = vec![0i64; ncols];
    for (i, &ui) in u.iter().enumerate().take(ncols) {
        for (j, &vj) in v.iter().enumerate().take(ncols - i) {
            product_into(b, ui, vj, i + j, 1, &mut cols, &mut offsets);
        }
    }
    normalise(&mut offsets, width);
    let bits = reduce_columns(b, cols, offsets, width, budget, Out::Bits, Grouping::Oldest);
    encint_core::bits::bits_to_signed_digits(b, &bits, true)
}

/// The exact square of a signed-binary integer as `2|x|` digits (its unsigned bits).
/// Empty when `x` is. `budget` as in [`mul_signed_digits`]. The block products of
/// [`mul_signed_digits`] on one operand: `Bᵢ²` from one table of the block, each
/// `Bᵢ·Bⱼ` (`i < j`) once, counted twice.
pub fn square_signed_digits(b: &mut Builder, x: &[NodeId], budget: u64) -> Vec<NodeId> {
    let n = x.len();
    if n == 0 {
        return Vec::new();
    }
    let width = 2 * n;
    let ncols = width.div_ceil(2);
    let u = balanced(b, x);
    let mut cols: Vec<Vec<Digit>> = vec![Vec::new(); ncols];
    let mut offsets = vec![0i64; ncols];
    for (i, &ui) in u.iter().enumerate().take(ncols) {
        if 2 * i < ncols {
            let d = read(b, ui.node, ui.lo, ui.hi, |s| s * s);
            match b.const_value(d.node) {
                Some(v) => offsets[2 * i] += v,
                None => cols[2 * i].push(Digit::new(d.node, d.hi)),
            }
        }
        for (j, &uj) in u.iter().enumerate().take(ncols - i).skip(i + 1) {
            product_into(b, ui, uj, i + j, 2, &mut cols, &mut offsets);
        }
    }
    normalise(&mut offsets, width);
    reduce_columns(b, cols, offsets, width, budget, Out::Bits, Grouping::Oldest)
}
