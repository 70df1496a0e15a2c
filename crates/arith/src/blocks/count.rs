//! Counting bits on radix-4 blocks: the ones, and the leading or trailing zeros (or ones),
//! without converting the blocks to bits.
//!
//! - The ones: one table per two blocks (the selector `X₀ + 4X₁` spans 16 values) reads
//!   the ones of those four bits, and the counts are summed in one digit column
//!   ([`reduce_columns`]).
//! - Leading (trailing) zeros: the blocks pair, from the end counted from, into nibbles
//!   `N₀, N₁, …`. The count is `4c + r`, where `c` is the number of nibbles that are zero
//!   before the first one that is not and `r` the zeros of that nibble at the counted end.
//!   The flags `Pⱼ = [N₀ … Nⱼ₋₁ all zero]` are zero tests of sums of at most 15 units
//!   (four blocks and a flag for what lies before them), in a tree; `c = Σ Pⱼ`, read by one
//!   table per result block while at most 15 flags are summed. `r = Σ Pⱼ·f(Nⱼ)` (`f` the
//!   nibble's zeros at the counted end, 0 for a zero nibble): one table of each nibble, one
//!   table of each product (at most one of them is not zero), one identity table of the sum.
//!   An odd number of blocks is padded at the far end by a constant block of ones, which
//!   leaves the count of a value that is not zero as it is and makes that of zero the width;
//!   counted from the bottom, so is the missing bit of a single-bit top block (counted from
//!   the top, an odd width has no circuit here).
//!
//! The circuits take the fresh blocks of a `bits`-bit pattern ([`crate::typed::Form::Radix4`])
//! and give the fresh blocks of the count as a `width`-bit value.
//!
//! ```
//! use encint_arith::blocks;
//! use encint_core::{circuit::Builder, clear};
//! let mut b = Builder::new();
//! let x: Vec<_> = (0..8).map(|_| b.input()).collect();
//! let lz = blocks::end_zeros_blocks(&mut b, &x, 16, blocks::End::Top, false, 32, 25).unwrap();
//! let c = b.finish(lz);
//! let v: u16 = 0x0123;
//! let inputs: Vec<i64> = (0..8).map(|i| i64::from((v >> (2 * i)) & 3)).collect();
//! let (out, cost) = clear::run(&c, &inputs).unwrap();
//! let count = out.iter().rev().fold(0, |acc, &d| 4 * acc + d);
//! assert_eq!(count, 7);
//! assert!(cost.bootstraps <= 20, "{cost:?}");
//! ```

use encint_core::circuit::{Builder, NodeId};

use super::columns::{push_digit, reduce_columns, Grouping};
use super::{block_max, exclusive_sum, fresh_node, table, Digit, Out};

/// The largest sum a zero test reads besides the flag of what comes before it.
const GROUP_SPAN: i64 = 14;

/// The number of one bits (`ones == false`) or zero bits (`ones == true`) of the
/// `bits`-bit pattern whose fresh radix-4 blocks are `x`, as the `⌈width/2⌉` fresh blocks
/// of a `width`-bit value.
pub fn count_ones_blocks(
    b: &mut Builder,
    x: &[NodeId],
    bits: usize,
    zeros: bool,
    width: usize,
    budget: u64,
) -> Vec<NodeId> {
    let xs = units(b, x, bits, zeros);
    let mut digits = Vec::with_capacity(xs.len().div_ceil(2));
    for pair in xs.chunks(2) {
        let (sel, hi) = match *pair {
            [(lo, ml), (up, mu)] => (b.linear(&[(lo, 1), (up, ml + 1)], 0), ml + (ml + 1) * mu),
            [(one, m)] => (one, m),
            _ => unreachable!("chunks of two"),
        };
        let ones = |s: i64| i64::from(s.count_ones() as u8);
        digits.push(if hi <= 1 {
            // A single bit is its own count.
            Digit::new(sel, hi)
        } else {
            let max = (0..=hi).map(ones).max().unwrap_or(0);
            let node = table(b, sel, 0, hi, ones);
            let mut d = Digit::new(node, max);
            if max <= 3 {
                let mut values = [0i8; 16];
                for (s, v) in values.iter_mut().enumerate().take(hi as usize + 1) {
                    *v = ones(s as i64) as i8;
                }
                d.origin = Some((sel, hi, values));
            }
            d
        });
    }
    sum_column(b, digits, width, budget)
}

/// `Σ digits` (one digit column of weight 1) as the `⌈width/2⌉` fresh blocks of a
/// `width`-bit value ([`reduce_columns`]).
fn sum_column(b: &mut Builder, digits: Vec<Digit>, width: usize, budget: u64) -> Vec<NodeId> {
    let ncols = width.div_ceil(2).max(1);
    let mut cols: Vec<Vec<Digit>> = vec![Vec::new(); ncols];
    let mut offsets = vec![0i64; ncols];
    for d in digits {
        push_digit(b, &mut cols[0], &mut offsets[0], d);
    }
    let (out, grouping) = (Out::Blocks, Grouping::Oldest);
    reduce_columns(b, cols, offsets, width, budget, out, grouping)
}

/// The end of a pattern a count starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The most significant bit: leading zeros or ones.
    Top,
    /// The least significant bit: trailing zeros or ones.
    Bottom,
}

/// The number of zero bits (`ones == false`) or one bits (`ones == true`) of the
/// `bits`-bit pattern whose fresh radix-4 blocks are `x`, from its `end` to its first one
/// (zero) bit, as the `⌈width/2⌉` fresh blocks of a `width`-bit value: the width for a
/// pattern without any. `None` from the top of an odd `bits` (its top block is a single
/// bit).
pub fn end_zeros_blocks(
    b: &mut Builder,
    x: &[NodeId],
    bits: usize,
    end: End,
    ones: bool,
    width: usize,
    budget: u64,
) -> Option<Vec<NodeId>> {
    let from_top = end == End::Top;
    if bits == 0 || (from_top && bits % 2 == 1) {
        return None;
    }
    let mut xs = units(b, x, bits, ones);
    if let Some(top) = xs.last_mut().filter(|_| bits % 2 == 1) {
        // Counted from the bottom, the missing top bit of a single-bit block is a one.
        *top = (b.linear(&[(top.0, 1)], 2), 3);
    }
    if from_top {
        xs.reverse();
    }
    if xs.len() % 2 == 1 {
        // Two bits of ones past the far end.
        xs.push((b.constant(3), 3));
    }
    let nibbles = xs.len() / 2;
    // The nibble read from the counted end: the first block of the pair is the nearer.
    let zeros_at_end = move |v: i64| -> i64 {
        let v = v as u32;
        match (v, from_top) {
            (0, _) => 0,
            (_, true) => v.leading_zeros() as i64 - 28,
            (_, false) => v.trailing_zeros() as i64,
        }
    };
    let points: Vec<usize> = (1..=nibbles).map(|j| 2 * j).collect();
    let flags = none_before(b, &xs, &points);
    // r: the zeros of the first nibble that is not zero.
    let mut terms = Vec::with_capacity(nibbles);
    for j in 0..nibbles {
        let ((first, _), (second, _)) = (xs[2 * j], xs[2 * j + 1]);
        let sel = if from_top {
            b.linear(&[(first, 4), (second, 1)], 0)
        } else {
            b.linear(&[(first, 1), (second, 4)], 0)
        };
        let f = table(b, sel, 0, 15, zeros_at_end);
        let term = match j {
            0 => f,
            _ => {
                // f while every nibble before is zero, else 0.
                let gate = b.linear(&[(f, 1), (flags[j - 1], -4)], 4);
                table(b, gate, 0, 7, |v| if v < 4 { v } else { 0 })
            }
        };
        terms.push(term);
    }
    let weighted: Vec<(NodeId, i64)> = terms.iter().map(|&t| (t, 1)).collect();
    let r = exclusive_sum(b, &weighted, 3, budget);
    let r = fresh_node(b, r, 3);
    // c: the nibbles that are zero before the first that is not.
    let c_width = width.saturating_sub(2);
    let c_blocks = flag_count(b, &flags, c_width, budget);
    let mut out = Vec::with_capacity(width.div_ceil(2));
    out.push(r);
    out.extend(c_blocks);
    out.truncate(width.div_ceil(2));
    while out.len() < width.div_ceil(2) {
        let zero = b.constant(0);
        out.push(zero);
    }
    Some(out)
}

/// The blocks of `x` (a `bits`-bit pattern) with their largest values, complemented
/// (`3 − X`, linear) when `complement`.
fn units(b: &mut Builder, x: &[NodeId], bits: usize, complement: bool) -> Vec<(NodeId, i64)> {
    (0..bits.div_ceil(2))
        .map(|i| {
            let max = block_max(bits, i);
            let node = x.get(i).copied().unwrap_or_else(|| b.constant(0));
            let node = if complement {
                b.linear(&[(node, -1)], max)
            } else {
                node
            };
            (node, max)
        })
        .collect()
}

/// For each `p` of `points` (increasing, at most `items.len()`), the fresh flag
/// `[Σ items[..p] == 0]` (each item a digit in `0..=max`): zero tests of sums of at most
/// [`GROUP_SPAN`] plus the flag of the groups before, in a tree over groups.
fn none_before(b: &mut Builder, items: &[(NodeId, i64)], points: &[usize]) -> Vec<NodeId> {
    // Consecutive items in groups of a sum of at most GROUP_SPAN.
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let (mut start, mut span) = (0, 0);
    for (i, &(_, max)) in items.iter().enumerate() {
        if span + max > GROUP_SPAN && i > start {
            groups.push((start, i));
            (start, span) = (i, 0);
        }
        span += max;
    }
    groups.push((start, items.len()));
    // before[g]: no item in the groups before g is set (g up to groups.len()).
    let before: Vec<NodeId> = if groups.len() == 1 {
        vec![b.constant(1)]
    } else {
        let any: Vec<(NodeId, i64)> = groups
            .iter()
            .map(|&(s, e)| match items[s..e] {
                // A lone fresh bit is its own flag.
                [(node, 1)] if b.qweight(node) <= 1 => (node, 1),
                _ => {
                    let zero = zero_test(b, &items[s..e], None);
                    (flag_not(b, zero), 1)
                }
            })
            .collect();
        let at: Vec<usize> = (0..=groups.len()).collect();
        none_before(b, &any, &at)
    };
    points
        .iter()
        .map(|&p| {
            // The group p falls in (p == a group's end counts in the next one).
            let g = groups
                .iter()
                .position(|&(s, e)| p >= s && p < e)
                .unwrap_or(groups.len());
            match g {
                _ if g == groups.len() && groups.len() == 1 => zero_test(b, items, None),
                _ if g == groups.len() => before[g],
                _ if p == groups[g].0 => before[g],
                _ => zero_test(b, &items[groups[g].0..p], Some(before[g])),
            }
        })
        .collect()
}

/// The fresh flag `[Σ items == 0]`, and that also `before` (a fresh flag) is set: one
/// table on the sum (none when it is known).
fn zero_test(b: &mut Builder, items: &[(NodeId, i64)], before: Option<NodeId>) -> NodeId {
    let mut terms: Vec<(NodeId, i64)> = items.iter().map(|&(n, _)| (n, 1)).collect();
    let mut hi: i64 = items.iter().map(|&(_, m)| m).sum();
    let mut constant = 0;
    if let Some(flag) = before {
        // 1 − before joins the sum.
        terms.push((flag, -1));
        constant = 1;
        hi += 1;
    }
    let sum = b.linear(&terms, constant);
    if let Some(v) = b.const_value(sum) {
        return b.constant(i64::from(v == 0));
    }
    table(b, sum, 0, hi, |v| i64::from(v == 0))
}

/// `1 − flag`, linear.
fn flag_not(b: &mut Builder, flag: NodeId) -> NodeId {
    b.linear(&[(flag, -1)], 1)
}

/// The number of set `flags` (fresh 0/1 digits) as the `⌈width/2⌉` fresh blocks of a
/// `width`-bit value: one table per block on their sum while at most 15 are summed, else
/// their column reduction.
fn flag_count(b: &mut Builder, flags: &[NodeId], width: usize, budget: u64) -> Vec<NodeId> {
    let live: Vec<NodeId> = flags
        .iter()
        .copied()
        .filter(|&f| b.const_value(f) != Some(0))
        .collect();
    let nblocks = width.div_ceil(2);
    if live.len() <= 15 {
        let max = live.len() as i64;
        let s = b.linear(&live.iter().map(|&f| (f, 1)).collect::<Vec<_>>(), 0);
        return (0..nblocks)
            .map(|i| {
                let shift = 2 * i as u32;
                let mask = if 2 * i + 1 == width { 1 } else { 3 };
                if (max >> shift.min(62)) == 0 {
                    b.constant(0)
                } else if max <= 1 && i == 0 {
                    s
                } else {
                    table(b, s, 0, max, move |v| (v >> shift) & mask)
                }
            })
            .collect();
    }
    let digits = live.iter().map(|&f| Digit::new(f, 1)).collect();
    sum_column(b, digits, width, budget)
}
