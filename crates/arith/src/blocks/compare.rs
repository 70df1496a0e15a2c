//! Equality and comparisons of bit vectors and of blocks: differences of two bits (or
//! one block) at a time, their zero indicators ANDed, or their signs merged in a tree
//! ([`super::merge`]).

use encint_core::circuit::{Builder, NodeId};
use encint_core::lut::NegacyclicLut;

use super::merge::{merge_signs, SignSource};
use super::{block_max, table, MAX_SPAN};

/// `[x == y]` for bit vectors of one width (each node a digit 0 or 1), as a bit: one
/// bootstrap per two bits (`[(x₀ − y₀) + 2(x₁ − y₁) = 0]`), then the indicators ANDed
/// sixteen at a time: fewer by a table of their sum, sixteen by one half-step table of
/// their count of zeros (17 values, `0..=16`).
pub fn eq(b: &mut Builder, x: &[NodeId], y: &[NodeId]) -> NodeId {
    let diffs = pair_differences(b, x, y, false);
    all_zero(b, diffs)
}

/// `[x == y]` on blocks: one indicator per block difference `Xᵢ − Yᵢ`, ANDed.
pub fn eq_blocks(b: &mut Builder, x: &[NodeId], y: &[NodeId]) -> NodeId {
    let diffs = x
        .iter()
        .zip(y)
        .map(|(&xi, &yi)| b.linear(&[(xi, 1), (yi, -1)], 0))
        .collect();
    all_zero(b, diffs)
}

/// `pred(sign(x − y))` for bit vectors of one width (unsigned, or two's complement with
/// `signed`), as a bit: the sign of each pair's difference in one bootstrap, then merged
/// in a tree of the least depth.
pub fn compare(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    signed: bool,
    pred: fn(i64) -> bool,
) -> NodeId {
    let diffs = pair_differences(b, x, y, signed);
    let sources = diffs.into_iter().map(SignSource::Difference).collect();
    merge_signs(b, sources, pred, 1)
}

/// `scale · pred(sign(x − y))` on blocks (two's complement with `signed`): the sign of
/// each block difference, the top block of a signed pattern by one table of `4X + Y` (a
/// two-bit block is then `−2·x₁ + x₀`), then merged as in [`compare`]. The last table gives
/// `0` or `scale` (a fresh digit, `scale` in `-16..16`): 1 for a bit, or
/// [`super::SELECT_SCALE`], the condition [`super::min_max_blocks`] selects with, at no
/// extra bootstrap.
pub fn compare_blocks(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
    signed: bool,
    pred: fn(i64) -> bool,
    scale: i64,
) -> NodeId {
    let k = bits.div_ceil(2);
    let sources = (0..k)
        .map(|i| {
            let top = signed && i + 1 == k;
            match (top, block_max(bits, i)) {
                // A one-bit sign block weighs −1: the sign of Y − X.
                (true, 1) => SignSource::Difference(b.linear(&[(x[i], -1), (y[i], 1)], 0)),
                (true, _) => {
                    let sx = |v: i64| if v >= 2 { v - 4 } else { v };
                    SignSource::Table {
                        node: b.linear(&[(x[i], 4), (y[i], 1)], 0),
                        lo: 0,
                        sign: (0..16).map(|s| (sx(s / 4) - sx(s % 4)).signum()).collect(),
                    }
                }
                _ => SignSource::Difference(b.linear(&[(x[i], 1), (y[i], -1)], 0)),
            }
        })
        .collect();
    merge_signs(b, sources, pred, scale)
}

/// Differences of two bit vectors of one width, two bits at a time: `(x₀ − y₀) +
/// 2(x₁ − y₁)` in `-3..=3` (linear; quadratic weight 10 on fresh bits), least
/// significant pair first; zero exactly when the pair is equal, and of the sign of the
/// pair's comparison. With `signed`, the top bit weighs negatively (two's complement).
fn pair_differences(b: &mut Builder, x: &[NodeId], y: &[NodeId], signed: bool) -> Vec<NodeId> {
    let n = x.len().min(y.len());
    (0..n)
        .step_by(2)
        .map(|i| {
            let mut terms = Vec::with_capacity(4);
            for (k, w) in [(i, 1), (i + 1, 2)] {
                if k < n {
                    let w = if signed && k == n - 1 { -w } else { w };
                    terms.push((x[k], w));
                    terms.push((y[k], -w));
                }
            }
            b.linear(&terms, 0)
        })
        .collect()
}

/// `[every difference is 0]` for differences in `-3..=3`: one indicator bootstrap each,
/// then ANDed sixteen at a time ([`and_all`]).
fn all_zero(b: &mut Builder, diffs: Vec<NodeId>) -> NodeId {
    let ind: Vec<NodeId> = diffs
        .into_iter()
        .map(|d| table(b, d, -3, 3, |v| i64::from(v == 0)))
        .collect();
    and_all(b, ind)
}

/// `[every block is 0]` for fresh blocks (values `0..=max`): sums of up to
/// [`MAX_SPAN`] in value, one indicator bootstrap each, then ANDed.
pub(super) fn blocks_all_zero(b: &mut Builder, blocks: &[(NodeId, i64)], budget: u64) -> NodeId {
    let mut ind = Vec::new();
    let mut group: Vec<(NodeId, i64)> = Vec::new();
    let mut span = 0;
    let flush = |b: &mut Builder, group: &mut Vec<(NodeId, i64)>, span: i64, ind: &mut Vec<_>| {
        if !group.is_empty() {
            let s = b.linear(group, 0);
            ind.push(table(b, s, 0, span, |v| i64::from(v == 0)));
            group.clear();
        }
    };
    for &(node, max) in blocks {
        let mut trial = group.clone();
        trial.push((node, 1));
        if span + max > MAX_SPAN || b.linear_qweight(&trial) > budget {
            flush(b, &mut group, span, &mut ind);
            span = 0;
        }
        group.push((node, 1));
        span += max;
    }
    flush(b, &mut group, span, &mut ind);
    and_all(b, ind)
}

/// The AND of fresh bits, sixteen at a time: each group's count of zeros `k − Σ e` read
/// as `[count = 0]`, by a table for fewer than sixteen and for sixteen (a count in
/// `0..=16`, one more value than a table reads) by a half-step table ([`all_counted`]);
/// 1 for none.
pub(super) fn and_all(b: &mut Builder, mut ind: Vec<NodeId>) -> NodeId {
    while ind.len() > 1 {
        ind = ind
            .chunks(AND_WIDTH)
            .map(|g| {
                let k = g.len() as i64;
                let terms: Vec<(NodeId, i64)> = g.iter().map(|&e| (e, -1)).collect();
                let zeros = b.linear(&terms, k);
                if g.len() == AND_WIDTH {
                    all_counted(b, zeros)
                } else {
                    table(b, zeros, 0, k, |v| i64::from(v == 0))
                }
            })
            .collect();
    }
    ind.pop().unwrap_or_else(|| b.constant(1))
}

/// How many fresh bits [`and_all`] reads in one bootstrap.
const AND_WIDTH: usize = MAX_SPAN as usize + 1;

/// `[z = 0]` for `z` in `0..=16` by one half-step bootstrap: half values `+1` at 0 and
/// `−1` on `1..16`, so `z = 16` reads the negated `+1` of 0, that is `0` as well.
fn all_counted(b: &mut Builder, zeros: NodeId) -> NodeId {
    let mut table = [-1; 16];
    table[0] = 1;
    b.half_lut(zeros, &NegacyclicLut { table })
        .expect("the half-step table holds odd values only")
}
