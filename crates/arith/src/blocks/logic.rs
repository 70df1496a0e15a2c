//! Bitwise logic, select, min and max, on blocks and on bits: one table per block (or per
//! bit) on top of a comparison.

use encint_core::circuit::{Builder, NodeId};

use super::compare::compare;
use super::{block_max, fresh_node, table};

/// `f(Xᵢ, Yᵢ)` per block (bitwise logic): one bootstrap of `m·Xᵢ + Yᵢ` each (quadratic
/// weight 17). Where one block is a known constant, `f` is a function of the other
/// alone: that block itself, its complement or a constant (no bootstrap) when the
/// function is one of those, else one bootstrap of that block.
pub fn bitwise_blocks(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
    f: fn(i64, i64) -> i64,
) -> Vec<NodeId> {
    (0..bits.div_ceil(2))
        .map(|i| {
            let max = block_max(bits, i);
            let m = max + 1;
            if let Some(k) = b.const_value(y[i]) {
                return unary(b, x[i], max, move |v| f(v, k));
            }
            if let Some(k) = b.const_value(x[i]) {
                return unary(b, y[i], max, move |v| f(k, v));
            }
            let s = b.linear(&[(x[i], m), (y[i], 1)], 0);
            table(b, s, 0, m * m - 1, move |v| f(v / m, v % m))
        })
        .collect()
}

/// `g(v)` for a block `v` in `0..=max` as a fresh block: `g(0) ± v` or `g(0)` when `g`
/// is one of those and `v` is fresh (no bootstrap), else one bootstrap of `v`.
fn unary(b: &mut Builder, v: NodeId, max: i64, g: impl Fn(i64) -> i64) -> NodeId {
    let (c, slope) = (g(0), g(1) - g(0));
    let affine = (0..=max).all(|u| g(u) == c + slope * u);
    if affine && slope.abs() <= 1 && (slope == 0 || b.qweight(v) <= 1) {
        return b.linear(&[(v, slope)], c);
    }
    table(b, v, 0, max, g)
}

/// `!x` on blocks: `(m − 1) − Xᵢ`, linear (no bootstrap).
pub fn not_blocks(b: &mut Builder, x: &[NodeId], bits: usize) -> Vec<NodeId> {
    x.iter()
        .enumerate()
        .map(|(i, &xi)| b.linear(&[(xi, -1)], block_max(bits, i)))
        .collect()
}

/// `c ? x : y` on bit vectors of one width for a fresh bit `c`: one bootstrap per bit,
/// the table of `4c + 2xᵢ + yᵢ` (8 values, quadratic weight 21 on fresh bits; a noisier
/// bit is refreshed first). The results are fresh bits.
pub fn select_bits(b: &mut Builder, c: NodeId, x: &[NodeId], y: &[NodeId]) -> Vec<NodeId> {
    let c = fresh_node(b, c, 1);
    x.iter()
        .zip(y)
        .map(|(&xi, &yi)| {
            let (xi, yi) = (fresh_node(b, xi, 1), fresh_node(b, yi, 1));
            let sel = b.linear(&[(c, 4), (xi, 2), (yi, 1)], 0);
            table(b, sel, 0, 7, |v| if v >= 4 { (v >> 1) & 1 } else { v & 1 })
        })
        .collect()
}

/// The scale of a block select's condition: `0` or `SELECT_SCALE` (at least `2·3 + 1`, so
/// that `SELECT_SCALE·c + (X − Y)` keeps the two conditions apart, 14 values).
pub const SELECT_SCALE: i64 = 7;

/// `c ? x : y` on blocks for a fresh bit `c`: `c` scaled to `SELECT_SCALE·c` (one
/// bootstrap), then [`min_max_blocks`] (two per block): `2k + 1` bootstraps for `k`
/// blocks.
pub fn select_blocks(
    b: &mut Builder,
    c: NodeId,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
) -> Vec<NodeId> {
    let scaled = table(b, c, 0, 1, |v| SELECT_SCALE * v);
    min_max_blocks(b, scaled, x, y, bits, true)
}

/// `max(x, 0)` (with `max`) or `min(x, 0)` of a signed `bits`-bit `x` on fresh blocks:
/// the sign is the top bit, so each block is one table of itself and the top block
/// (`4·T + Xᵢ`, quadratic weight 17), kept or zeroed: one bootstrap per block and one
/// level, where a comparison with zero and a select take several. The results are fresh.
pub fn max_min_zero_blocks(b: &mut Builder, x: &[NodeId], bits: usize, max: bool) -> Vec<NodeId> {
    let k = bits.div_ceil(2).min(x.len());
    if k == 0 {
        return Vec::new();
    }
    let top = x[k - 1];
    let top_max = block_max(bits, k - 1);
    // The sign bit's place in the top block: its high bit, or the block itself when it
    // holds one bit.
    let negative = move |t: i64| if top_max == 1 { t == 1 } else { t >= 2 };
    let keep = move |t: i64| negative(t) != max;
    (0..k)
        .map(|i| {
            if i + 1 == k {
                return unary(b, top, top_max, move |t| if keep(t) { t } else { 0 });
            }
            let s = b.linear(&[(top, 4), (x[i], 1)], 0);
            let hi = 4 * top_max + block_max(bits, i);
            table(b, s, 0, hi, move |v| if keep(v / 4) { v % 4 } else { 0 })
        })
        .collect()
}

/// `c ? x : y` (`max`) or `c ? y : x` on blocks, for a fresh condition `c` of value `0` or
/// [`SELECT_SCALE`] (as [`super::compare_blocks`] gives it): per block, one table
/// of `SELECT_SCALE·c + (Xᵢ − Yᵢ)` (quadratic weight 3) reads `[c]·(Xᵢ − Yᵢ)`, and
/// `Yᵢ + [c]·(Xᵢ − Yᵢ)` or `Xᵢ − [c]·(Xᵢ − Yᵢ)` is refreshed: two bootstraps per block.
/// With `c = SELECT_SCALE·[x ≥ y]` these are the maximum and the minimum; both on one pair
/// (a sorting network's compare-exchange) share the first table: three per block.
pub fn min_max_blocks(
    b: &mut Builder,
    c: NodeId,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
    max: bool,
) -> Vec<NodeId> {
    (0..bits.div_ceil(2))
        .map(|i| {
            let m = block_max(bits, i) + 1;
            let sel = b.linear(&[(c, 1), (x[i], 1), (y[i], -1)], 0);
            let half = SELECT_SCALE / 2;
            let picked = table(b, sel, 1 - m, SELECT_SCALE + m - 1, move |v| {
                if v > half {
                    v - SELECT_SCALE
                } else {
                    0
                }
            });
            let out = if max {
                b.linear(&[(y[i], 1), (picked, 1)], 0)
            } else {
                b.linear(&[(x[i], 1), (picked, -1)], 0)
            };
            table(b, out, 0, m - 1, |v| v)
        })
        .collect()
}

/// `min` or `max` of bit vectors of one width (unsigned, or two's complement with
/// `signed`): `[x ≥ y]` by [`compare`], then [`select_bits`] (one more level).
pub fn min_max_bits(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    signed: bool,
    max: bool,
) -> Vec<NodeId> {
    let ge = compare(b, x, y, signed, |s| s >= 0);
    if max {
        select_bits(b, ge, x, y)
    } else {
        select_bits(b, ge, y, x)
    }
}
