//! Shifts and rotations by an encrypted amount: a barrel shifter of blocks, one stage per
//! amount bit ([`super::stages`]), with the amount bits past the width folded into one
//! zero test.

use encint_core::circuit::{Builder, NodeId};

use super::compare::blocks_all_zero;
use super::shift::Shift;
use super::stages::{
    binary_stage, clamp_unless, gated_stage, keyed, last_bit_stage, other_source, shift_stage,
    unkeyed, Gate, Neighbour,
};
use super::{block_max, blocks_of, fresh_node, table, Out};

/// `x` shifted or rotated by the fresh blocks `amount` (an unsigned `bits`-bit pattern;
/// a shift by `bits` or more gives 0, or the sign for [`Shift::RightArith`]; a rotation
/// is by the amount modulo `bits`).
///
/// - Each amount bit `d ≥ 2` is one `binary_stage`: the value moves by `2^d` bits when
///   the bit is set, at one bootstrap per block (each reads the amount block as it is).
///   Each stage adds 2 to the blocks' quadratic weight; the stage that would leave them
///   too noisy for the next selector is a `gated_stage` instead, on the amount bit read
///   by one table: the same one blind rotation per block, and the blocks come out
///   quiet (up to 32 bits with the default budget no stage needs it).
/// - Amount block 0 (a move by `0..=3` bits) comes last: its bit 1 one more binary stage
///   and its bit 0 a `last_bit_stage` (two bootstraps per block whose outputs are fresh,
///   from 7 bits on), or one `shift_stage` (three bootstraps per block) and a refresh of
///   every block, whichever is cheaper.
/// - The amount bits worth `bits` or more only decide `over = [any is set]`. A logical
///   shift zeroes the result when `over`, in the table that makes each block fresh
///   anyway; an arithmetic shift sets every other amount bit when `over` (a shift by
///   `bits − 1` or more).
pub fn shift_var_blocks(
    b: &mut Builder,
    x: &[NodeId],
    amount: &[NodeId],
    bits: usize,
    kind: Shift,
    budget: u64,
) -> Vec<NodeId> {
    let k = bits.div_ceil(2);
    let cur = x[..k.min(x.len())].to_vec();
    shift_var(
        b,
        cur,
        Amount::Blocks(amount),
        bits,
        kind,
        Out::Blocks,
        budget,
    )
}

/// [`shift_var_blocks`] on fresh bits (least significant first), as fresh bits: the value's
/// bits pair into blocks linearly, the amount's bits are the stages' selectors as they
/// are, and the last stage reads out bits instead of blocks (one more table per block).
pub fn shift_var_bits(
    b: &mut Builder,
    x: &[NodeId],
    amount: &[NodeId],
    bits: usize,
    kind: Shift,
    budget: u64,
) -> Vec<NodeId> {
    let cur = blocks_of(b, &x[..bits.min(x.len())], bits.div_ceil(2))
        .into_iter()
        .map(|d| d.node)
        .collect();
    shift_var(b, cur, Amount::Bits(amount), bits, kind, Out::Bits, budget)
}

/// An encrypted shift amount: fresh radix-4 blocks or fresh bits.
#[derive(Debug, Clone, Copy)]
enum Amount<'a> {
    Blocks(&'a [NodeId]),
    Bits(&'a [NodeId]),
}

impl Amount<'_> {
    /// Where bit `d` of a `bits`-bit amount lives: its node, the node's largest value, and
    /// the bit's place in it.
    fn bit(self, bits: usize, d: usize) -> Option<(NodeId, i64, u32)> {
        if d >= bits {
            return None;
        }
        match self {
            Amount::Blocks(a) => a
                .get(d / 2)
                .map(|&node| (node, block_max(bits, d / 2), (d % 2) as u32)),
            Amount::Bits(a) => a.get(d).map(|&node| (node, 1, 0)),
        }
    }
}

/// The shifter of [`shift_var_blocks`] and [`shift_var_bits`]: `cur` holds the value's
/// blocks (of any noise within the budget).
///
/// Amount bits 0 and 1 move by 0..=3 bits. Either bit 1 is one more binary stage and bit 0
/// a last stage that makes every block fresh ([`last_bit_stage`]), or both are one
/// [`shift_stage`] followed by a refresh. Both are built as trials on the builder and
/// the cheaper kept: the lesser estimate at the builder's thread count
/// ([`Builder::estimate_since`]), else the fewer bootstraps, then the lesser depth.
fn shift_var(
    b: &mut Builder,
    cur: Vec<NodeId>,
    amount: Amount,
    bits: usize,
    kind: Shift,
    out: Out,
    budget: u64,
) -> Vec<NodeId> {
    let first = b.node_count();
    let threads = b.threads();
    b.keep_best(
        2,
        |b, k| shift_var_with(b, cur.clone(), amount, bits, kind, out, budget, k == 1),
        |t, outputs| {
            let depth = outputs.iter().map(|&o| t.depth(o)).max().unwrap_or(0);
            let bootstraps = t.bootstraps_since(first, outputs);
            let rounds = threads.map_or(0, |n| t.estimate_since(first, outputs, n));
            (rounds, bootstraps, depth)
        },
    )
}

/// [`shift_var`] with amount bit 1 a binary stage and bit 0 a [`last_bit_stage`] (`split`,
/// where the move fits that stage), or both one [`shift_stage`].
#[allow(clippy::too_many_arguments)]
fn shift_var_with(
    b: &mut Builder,
    mut cur: Vec<NodeId>,
    amount: Amount,
    bits: usize,
    kind: Shift,
    out: Out,
    budget: u64,
    split: bool,
) -> Vec<NodeId> {
    let k = bits.div_ceil(2);
    let n = bits as u128;
    // Amount bits d ≥ 2 that move the value: (node, its largest value, the bit's place,
    // the move in bits).
    let mut stages: Vec<(NodeId, i64, u32, u128)> = Vec::new();
    // Amount digits (or the high bits of blocks) worth `bits` or more: (node, largest value).
    let mut over: Vec<(NodeId, i64)> = Vec::new();
    for d in 2..bits {
        let Some((node, max, place)) = amount.bit(bits, d) else {
            break;
        };
        // d ≤ 127: an amount has at most 128 bits.
        let t = 1u128 << d;
        if kind.rotates() {
            if !t.is_multiple_of(n) {
                stages.push((node, max, place, t % n));
            }
        } else if t < n {
            stages.push((node, max, place, t));
        } else if place == 0 {
            // The whole digit is past the width (a block's high bit too).
            over.push((node, max));
        } else if t / 2 < n {
            // Only a block's high bit is past the width.
            over.push((table(b, node, 0, 3, |v| v >> 1), 1));
        }
    }
    let keep = (!over.is_empty()).then(|| blocks_all_zero(b, &over, budget));
    let arith_keep = keep.filter(|_| kind == Shift::RightArith);
    let logical_keep = keep.filter(|_| kind != Shift::RightArith);
    // Each stage reads its amount digit as it is (its bit picked inside the tables); for
    // an arithmetic shift past the width, the digit clamped to all ones first.
    let mut clamped: std::collections::HashMap<NodeId, NodeId> = std::collections::HashMap::new();
    let mut sel_of = |b: &mut Builder, node: NodeId, max: i64| match arith_keep {
        Some(kp) => *clamped
            .entry(node)
            .or_insert_with(|| clamp_unless(b, kp, node, max)),
        None => node,
    };
    // Amount bits 0 and 1: with `split`, bit 1 one more binary stage and bit 0 a last
    // stage that makes every block fresh ([`last_bit_stage`]); else both one
    // [`shift_stage`] followed by a refresh.
    let one_bit = |p| kind.source(bits, 1, p);
    let neighbours: Option<Vec<Neighbour>> =
        (0..k).map(|i| other_source(bits, i, one_bit)).collect();
    let bit0 = amount.bit(bits, 0);
    let bit1 = amount.bit(bits, 1);
    let neighbours = neighbours.filter(|_| split && bit1.is_some() && k >= 4);
    if let (Some(_), Some((node, max, place))) = (&neighbours, bit1) {
        let t1 = if kind.rotates() { 2 % n } else { 2 };
        if t1 != 0 {
            stages.push((node, max, place, t1));
        }
    }
    for (node, max, place, t) in stages {
        let sel = sel_of(b, node, max);
        let src = |p| kind.source(bits, t, p);
        let q = cur.iter().map(|&c| b.qweight(c)).max().unwrap_or(1);
        cur = if gated(q, budget) {
            let bit = if max == 1 {
                sel
            } else {
                table(b, sel, 0, max, move |v| (v >> place) & 1)
            };
            gated_stage(b, &mut cur, bits, bit, src, budget)
        } else {
            binary_stage(b, &mut cur, bits, (sel, max, place), src, budget)
        };
    }
    if let (Some(neighbours), Some((node0, max0, _))) = (neighbours, bit0) {
        // Off (bit 0 clear), on, or zero (a logical shift past the width).
        let gate = match logical_keep {
            Some(kp) => {
                let s = keyed(b, kp, node0, max0);
                let g = table(b, s, 0, 2 * max0 + 1, move |v| {
                    unkeyed(v, max0).map_or(2, |a| a & 1)
                });
                (g, 2, Gate::from_three as fn(i64) -> Gate)
            }
            None => (
                sel_of(b, node0, max0),
                max0,
                Gate::from_low_bit as fn(i64) -> Gate,
            ),
        };
        return last_bit_stage(b, &mut cur, bits, gate, (&neighbours, one_bit), out, budget);
    }
    // Bits 0 and 1 as one digit `0..=3` (a bit alone for a one-bit amount).
    let low = match (amount, bit0, bit1) {
        (Amount::Blocks(_), Some((node, max, _)), _) => Some((sel_of(b, node, max), max)),
        (Amount::Bits(_), Some((b0, _, _)), Some((b1, _, _))) => {
            let s = b.linear(&[(b0, 1), (b1, 2)], 0);
            let a0 = table(b, s, 0, 3, |v| v);
            Some((sel_of(b, a0, 3), 3))
        }
        (Amount::Bits(_), Some((b0, _, _)), None) => Some((sel_of(b, b0, 1), 1)),
        _ => None,
    };
    if let Some((sel, smax)) = low {
        let src = move |v: i64, p: usize| kind.source(bits, v as u128, p);
        cur = shift_stage(b, &mut cur, bits, sel, smax, src, budget);
    }
    let mut result = Vec::with_capacity(bits);
    for (i, &c) in cur.iter().enumerate() {
        let max = block_max(bits, i);
        // The block's value as a selector: `c`, or `c` keyed by `keep` (0 unless keep).
        let (s, hi) = match logical_keep {
            Some(kp) => {
                let mut c = c;
                if b.linear_qweight(&[(kp, max + 1), (c, 1)]) > budget {
                    c = table(b, c, 0, max, |v| v);
                }
                (keyed(b, kp, c, max), 2 * max + 1)
            }
            None => (c, max),
        };
        let keyed_by = logical_keep.is_some();
        let f = move |v: i64| {
            if keyed_by {
                unkeyed(v, max).unwrap_or(0)
            } else {
                v
            }
        };
        match out {
            Out::Blocks if logical_keep.is_none() => result.push(fresh_node(b, c, max)),
            Out::Blocks => result.push(table(b, s, 0, hi, f)),
            Out::Bits => {
                for j in 0..if max == 3 { 2 } else { 1 } {
                    result.push(table(b, s, 0, hi, |v| (f(v) >> j) & 1));
                }
            }
        }
    }
    result
}

/// Whether a binary stage on blocks of quadratic weight `q` is better gated by its amount
/// bit ([`gated_stage`]: one more table, for the bit) than read from the amount digit
/// ([`binary_stage`]): when the stage's results (weight `q + 2`) would be too noisy for
/// the next selector, which reads a block beside 16 for the amount, and so would need a
/// refresh of every block.
fn gated(q: u64, budget: u64) -> bool {
    q + 2 + 16 > budget
}
