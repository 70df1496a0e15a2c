//! The stages of the block shifter: a move selected by one amount bit (binary stage), by
//! a whole amount block, or by the lowest amount bit with every result block made fresh.

use encint_core::circuit::{Builder, NodeId};

use super::shift::{part, source_blocks};
use super::{block_max, table, Out};

/// One stage of a shifter: the blocks of `cur` moved as `src(v, ·)` says for the value
/// `v` (in `0..=smax`) of the fresh selector `sel`. Each result block sums, over its
/// source blocks `m`, one bootstrap of `(max + 1)·sel + Curₘ` giving the bits block `m`
/// sends it for that `v` (a noisy `Curₘ` beyond the budget is refreshed first). The
/// results are sums of as many table outputs as they have sources.
pub(super) fn shift_stage(
    b: &mut Builder,
    cur: &mut [NodeId],
    bits: usize,
    sel: NodeId,
    smax: i64,
    src: impl Fn(i64, usize) -> Option<usize>,
    budget: u64,
) -> Vec<NodeId> {
    let mut memo: std::collections::HashMap<(usize, Vec<i64>), NodeId> =
        std::collections::HashMap::new();
    (0..bits.div_ceil(2))
        .map(|i| {
            let mut ms: Vec<usize> = (0..=smax)
                .flat_map(|v| source_blocks(bits, i, |p| src(v, p)))
                .collect();
            ms.sort_unstable();
            ms.dedup();
            let terms: Vec<(NodeId, i64)> = ms
                .into_iter()
                .map(|m| {
                    let radix = block_max(bits, m) + 1;
                    if b.linear_qweight(&[(sel, radix), (cur[m], 1)]) > budget {
                        cur[m] = table(b, cur[m], 0, radix - 1, |v| v);
                    }
                    let hi = (smax + 1) * radix - 1;
                    let values: Vec<i64> = (0..=hi)
                        .map(|s| part(bits, i, m, s % radix, |p| src(s / radix, p)))
                        .collect();
                    let node = *memo.entry((m, values.clone())).or_insert_with(|| {
                        let s = b.linear(&[(sel, radix), (cur[m], 1)], 0);
                        table(b, s, 0, hi, |s| values[s as usize])
                    });
                    (node, 1)
                })
                .collect();
            b.linear(&terms, 0)
        })
        .collect()
}

/// One binary stage of a shifter: the blocks of `cur` moved as `src` says (result bit `p`
/// copies bit `src(p)`, `None`: 0) when bit `bit` of the fresh selector `sel` (values
/// `0..=smax`) is 1, else kept.
///
/// For each source block `m` and each way it is cut for a result block, one bootstrap of
/// `(max + 1)·sel + Curₘ` gives that part when the bit is 1 and 0 otherwise (the selector
/// is an amount block as it is: no bootstrap to read its bit); the part that stays is
/// `Curᵢ` minus its own such table (linear: no bootstrap for the kept value). Aligned
/// moves (whole blocks) cost one bootstrap per block. A result is its block's sum plus
/// two fresh terms (quadratic weight + 2); a block too noisy for the selector is
/// refreshed first.
pub(super) fn binary_stage(
    b: &mut Builder,
    cur: &mut [NodeId],
    bits: usize,
    (sel, smax, bit): (NodeId, i64, u32),
    src: impl Fn(usize) -> Option<usize> + Copy,
    budget: u64,
) -> Vec<NodeId> {
    let k = bits.div_ceil(2);
    refresh_unless(b, cur, bits, |b, node, radix| {
        b.linear_qweight(&[(sel, radix), (node, 1)]) <= budget
    });
    let mut memo: std::collections::HashMap<(usize, Vec<i64>), NodeId> =
        std::collections::HashMap::new();
    // `[bit of sel]·f(Curₘ)` for the values `f` takes on `0..radix`.
    let mut gated = |b: &mut Builder, m: usize, values: Vec<i64>| -> NodeId {
        let radix = block_max(bits, m) + 1;
        let x = cur[m];
        *memo.entry((m, values.clone())).or_insert_with(|| {
            let s = b.linear(&[(sel, radix), (x, 1)], 0);
            table(b, s, 0, (smax + 1) * radix - 1, |v| {
                if ((v / radix) >> bit) & 1 == 1 {
                    values[(v % radix) as usize]
                } else {
                    0
                }
            })
        })
    };
    (0..k)
        .map(|i| {
            let radix = block_max(bits, i) + 1;
            let own = gated(b, i, (0..radix).collect());
            let mut terms = vec![(cur[i], 1), (own, -1)];
            for m in source_blocks(bits, i, src) {
                let values: Vec<i64> = (0..=block_max(bits, m))
                    .map(|v| part(bits, i, m, v, src))
                    .collect();
                terms.push((gated(b, m, values), 1));
            }
            b.linear(&terms, 0)
        })
        .collect()
}

/// One binary stage of a shifter gated by a fresh bit `gate`: the blocks of `cur` moved as
/// `src` says (see [`binary_stage`]) when the bit is 1, else kept.
///
/// For each source block `m`, the tables `[¬gate]·Curₘ` (the block kept) and
/// `[gate]·part` (each cut of it a result block receives) read the selector
/// `(max + 1)·gate + Curₘ`, which spans at most 8 values: two such tables share one blind
/// rotation, so an aligned move (whole blocks) costs one rotation per block, as a
/// [`binary_stage`] does. Every result block is a sum of fresh table outputs (quadratic
/// weight 2 for an aligned move, 3 at most), whatever the noise of `cur`: the stage that
/// would otherwise leave the blocks too noisy for the next selector ends the noise instead
/// of a refresh of every block. A block too noisy for the selector is refreshed first.
pub(super) fn gated_stage(
    b: &mut Builder,
    cur: &mut [NodeId],
    bits: usize,
    gate: NodeId,
    src: impl Fn(usize) -> Option<usize> + Copy,
    budget: u64,
) -> Vec<NodeId> {
    refresh_unless(b, cur, bits, |b, node, radix| {
        b.linear_qweight(&[(gate, radix), (node, 1)]) <= budget
    });
    // `[gate = on]·f(Curₘ)` for the values `f` takes on `0..radix`.
    let gated = |b: &mut Builder, m: usize, on: bool, values: &[i64]| -> NodeId {
        let radix = block_max(bits, m) + 1;
        let s = b.linear(&[(gate, radix), (cur[m], 1)], 0);
        table(b, s, 0, 2 * radix - 1, |v| {
            if (v >= radix) == on {
                values[(v % radix) as usize]
            } else {
                0
            }
        })
    };
    (0..bits.div_ceil(2))
        .map(|i| {
            let radix = block_max(bits, i) + 1;
            let own: Vec<i64> = (0..radix).collect();
            let mut terms = vec![(gated(b, i, false, &own), 1)];
            for m in source_blocks(bits, i, src) {
                let values: Vec<i64> = (0..=block_max(bits, m))
                    .map(|v| part(bits, i, m, v, src))
                    .collect();
                terms.push((gated(b, m, true, &values), 1));
            }
            b.linear(&terms, 0)
        })
        .collect()
}

/// What the last bit stage does for a value of its gate selector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Gate {
    /// Keep the block (a move by 0).
    Off,
    /// Move by one bit.
    On,
    /// Zero (a logical shift past the width).
    Zero,
}

impl Gate {
    /// An amount block: its bit 0.
    pub(super) fn from_low_bit(v: i64) -> Gate {
        if v & 1 == 1 {
            Gate::On
        } else {
            Gate::Off
        }
    }

    /// A three-valued gate: 0 off, 1 on, 2 zero.
    pub(super) fn from_three(v: i64) -> Gate {
        match v {
            0 => Gate::Off,
            1 => Gate::On,
            _ => Gate::Zero,
        }
    }
}

/// The block other than a result block's own that a one-bit move sends bits to it from
/// (`None`: no other block), and the distinct values it sends.
pub(super) type Neighbour = (Option<usize>, Vec<i64>);

/// Result block `i`'s [`Neighbour`] under a one-bit move: at most one other block, and
/// at most two distinct values (one bit); `None` when the move does not fit
/// [`last_bit_stage`].
pub(super) fn other_source(
    bits: usize,
    i: usize,
    src: impl Fn(usize) -> Option<usize> + Copy,
) -> Option<Neighbour> {
    let others: Vec<usize> = source_blocks(bits, i, src)
        .into_iter()
        .filter(|&m| m != i)
        .collect();
    match *others.as_slice() {
        [] => Some((None, vec![0])),
        [o] => {
            let mut values: Vec<i64> = (0..=block_max(bits, o))
                .map(|v| part(bits, i, o, v, src))
                .collect();
            values.sort_unstable();
            values.dedup();
            (values.len() <= 2).then_some((Some(o), values))
        }
        _ => None,
    }
}

/// The last stage of a shifter when it moves by one bit: every result block fresh, in
/// two bootstraps per block and no refresh after.
///
/// - `Tₒ`, one table of `(max + 1)·gate + Curₒ` for the block `o` that sends result block
///   `i` one bit: 0 when the gate is off, `1 + that bit` when on, 3 for zero (blocks with
///   no such neighbour share one table of the gate alone).
/// - Result block `i`: one table of `Curᵢ + (max + 1)·Tₒ` (span 16): `Curᵢ` for 0, 0 for
///   3, else its own bits moved plus the neighbour's bit. With [`Out::Bits`], two tables
///   of the same selector give the block's two bits instead.
///
/// Both selectors weigh 16 beside the block's own noise, so a block above `budget − 16`
/// is refreshed first.
pub(super) fn last_bit_stage(
    b: &mut Builder,
    cur: &mut [NodeId],
    bits: usize,
    (gate, gmax, gate_of): (NodeId, i64, fn(i64) -> Gate),
    (neighbours, src): (&[Neighbour], impl Fn(usize) -> Option<usize> + Copy),
    out: Out,
    budget: u64,
) -> Vec<NodeId> {
    refresh_unless(b, cur, bits, |b, node, radix| {
        b.linear_qweight(&[(gate, radix), (node, 1)]) <= budget
            && b.qweight(node) + (radix * radix) as u64 <= budget
    });
    let code = move |g: i64, sent: Option<usize>| match gate_of(g) {
        Gate::Off => 0,
        Gate::On => 1 + sent.unwrap_or(0) as i64,
        Gate::Zero => 3,
    };
    let mut memo: std::collections::HashMap<(Option<usize>, Vec<i64>), NodeId> =
        std::collections::HashMap::new();
    let mut result = Vec::with_capacity(bits);
    for (i, (o, values)) in neighbours.iter().enumerate() {
        let o = *o;
        // The table's values, which also name it (equal tables are built once).
        let (sel, tv): (NodeId, Vec<i64>) = match o {
            Some(o) => {
                let radix = block_max(bits, o) + 1;
                let tv = (0..(gmax + 1) * radix)
                    .map(|v| {
                        let p = part(bits, i, o, v % radix, src);
                        code(v / radix, values.iter().position(|&x| x == p))
                    })
                    .collect();
                (b.linear(&[(gate, radix), (cur[o], 1)], 0), tv)
            }
            None => (gate, (0..=gmax).map(|g| code(g, None)).collect()),
        };
        let hi = tv.len() as i64 - 1;
        let t = *memo
            .entry((o, tv.clone()))
            .or_insert_with(|| table(b, sel, 0, hi, |v| tv[v as usize]));
        let radix = block_max(bits, i) + 1;
        let s = b.linear(&[(cur[i], 1), (t, radix)], 0);
        let f = |v: i64| {
            let (x, t) = (v % radix, v / radix);
            match t {
                0 => x,
                3 => 0,
                // (A code the gate never gives reads as the first value.)
                _ => part(bits, i, i, x, src) | values.get(t as usize - 1).unwrap_or(&0),
            }
        };
        match out {
            Out::Blocks => result.push(table(b, s, 0, 4 * radix - 1, f)),
            Out::Bits => {
                for j in 0..if radix == 4 { 2 } else { 1 } {
                    result.push(table(b, s, 0, 4 * radix - 1, |v| (f(v) >> j) & 1));
                }
            }
        }
    }
    result
}

/// Refreshes (one identity bootstrap) each block of `cur` for which `fits(b, block,
/// radix)` is false.
fn refresh_unless(
    b: &mut Builder,
    cur: &mut [NodeId],
    bits: usize,
    fits: impl Fn(&Builder, NodeId, i64) -> bool,
) {
    for (m, node) in cur.iter_mut().enumerate() {
        let radix = block_max(bits, m) + 1;
        if !fits(b, *node, radix) {
            *node = table(b, *node, 0, radix - 1, |v| v);
        }
    }
}

/// The fresh block `a` (values `0..=max`) when `keep` is 1, else `max`: one bootstrap.
pub(super) fn clamp_unless(b: &mut Builder, keep: NodeId, a: NodeId, max: i64) -> NodeId {
    let s = keyed(b, keep, a, max);
    table(b, s, 0, 2 * max + 1, move |v| {
        unkeyed(v, max).unwrap_or(max)
    })
}

/// The selector `(max + 1)·keep + a` of a fresh bit `keep` and a digit `a` in `0..=max`
/// (values `0..=2·max + 1`; read back with [`unkeyed`]).
pub(super) fn keyed(b: &mut Builder, keep: NodeId, a: NodeId, max: i64) -> NodeId {
    b.linear(&[(keep, max + 1), (a, 1)], 0)
}

/// `Some(a)` for a value `v` of a [`keyed`] selector with `keep` set, `None` without.
pub(super) fn unkeyed(v: i64, max: i64) -> Option<i64> {
    (v > max).then_some(v - max - 1)
}
