//! Bitwise logic, select, min and max, on blocks and on bits: one table per block (or per
//! bit) on top of a comparison.

use encint_core::circuit::{Builder, NodeId};

use super::compare::compare;
use super::{block_max, fresh_node, table};

/// `f(Xᵢ, Yᵢ)` per block (bitwise logic): one bootstrap of `m·Xᵢ + Yᵢ` each (quadratic
/// weight 17).
pub fn bitwise_blocks(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
    f: fn(i64, i64) -> i64,
) -> Vec<NodeId> {
    (0..bits.div_ceil(2))
        .map(|i| {
            let m = block_max(bits, i) + 1;
            let s = b.linear(&[(x[i], m), (y[i], 1)], 0);
            table(b, s, 0, m * m - 1, move |v| f(v / m, v % m))
        })
        .collect()
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

/// `c ? x : y` on blocks for a fresh bit `c`: per block, the tables `c·Xᵢ` of `m·c + Xᵢ`
/// and `(1 − c)·Yᵢ` of `m·c + Yᵢ`, summed and refreshed: three bootstraps per block.
pub fn select_blocks(
    b: &mut Builder,
    c: NodeId,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
) -> Vec<NodeId> {
    // The maximum of a pair given `[x ≥ y]` is exactly this select.
    min_max_blocks(b, c, x, y, bits, true)
}

/// The two tables of a block select: `c·X` and `(1 − c)·Y` for blocks below `m`.
fn select_halves(b: &mut Builder, c: NodeId, x: NodeId, y: NodeId, m: i64) -> (NodeId, NodeId) {
    let sx = b.linear(&[(c, m), (x, 1)], 0);
    let sy = b.linear(&[(c, m), (y, 1)], 0);
    let tx = table(b, sx, 0, 2 * m - 1, move |v| if v >= m { v - m } else { 0 });
    let ty = table(b, sy, 0, 2 * m - 1, move |v| if v >= m { 0 } else { v });
    (tx, ty)
}

/// `max(x, y)` (`max`) or `min(x, y)` on blocks, given the fresh bit `ge = [x ≥ y]`: the
/// maximum is [`select_blocks`]`(ge, x, y)`, the minimum `Xᵢ + Yᵢ − maxᵢ` block by block
/// (exact: the pair's blocks are the two values' blocks in some order), refreshed, on the
/// same two tables. Either alone costs three bootstraps per block; both on one pair (a
/// sorting network's compare-exchange) cost four, the tables shared.
pub fn min_max_blocks(
    b: &mut Builder,
    ge: NodeId,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
    max: bool,
) -> Vec<NodeId> {
    (0..bits.div_ceil(2))
        .map(|i| {
            let m = block_max(bits, i) + 1;
            let (tx, ty) = select_halves(b, ge, x[i], y[i], m);
            let sum = if max {
                b.add(tx, ty)
            } else {
                b.linear(&[(x[i], 1), (y[i], 1), (tx, -1), (ty, -1)], 0)
            };
            table(b, sum, 0, m - 1, |v| v)
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
