//! Addition and subtraction of blocks, by a ripple of carries or a parallel prefix of
//! carry states, and the ripple itself (shared with division).

use encint_core::circuit::{Builder, NodeId};

use super::columns::keep_fastest;
use super::{block_max, table, Out};

/// `x + y` (or `x − y` with `subtract`) modulo `2^bits` on blocks. On a builder planned for
/// a thread count ([`Builder::set_threads`]) that allows prefix adders
/// ([`Builder::set_prefix_adders`]), with more than two blocks, the faster there of
/// the ripple ([`ripple_add`]) and the parallel prefix ([`prefix_add`]) by the builder's
/// estimate ([`Builder::estimate_since`]; the ripple on a tie); otherwise the ripple. An
/// empty `x` is 0 (so `x − y` with an empty `x` is `−y`).
pub fn add_blocks(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
    subtract: bool,
) -> Vec<NodeId> {
    let threads = b
        .threads()
        .filter(|_| b.prefix_adders() && bits.div_ceil(2) > 2);
    if threads.is_none() {
        return ripple_add(b, x, y, bits, subtract);
    }
    keep_fastest(b, 2, threads, |b, k| match k {
        0 => ripple_add(b, x, y, bits, subtract),
        _ => prefix_add(b, x, y, bits, subtract),
    })
}

/// [`add_blocks`] by a ripple of carries: block `i` reads `t = Xᵢ ± Yᵢ + cᵢ` (in `0..=7`,
/// quadratic weight 3) in two tables, its block `t mod 4` and its carry `[t ≥ 4]`:
/// `2k − 1` bootstraps for `k` blocks, depth `k`.
pub fn ripple_add(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
    subtract: bool,
) -> Vec<NodeId> {
    // Subtraction adds the complement `(m − 1) − Yᵢ` of each block and a carry-in of 1.
    let carry_in = b.constant(i64::from(subtract));
    ripple(b, bits.div_ceil(2), Some(carry_in), Out::Blocks, |_, i| {
        let (terms, constant, m) = block_sum(x, y, i, bits, subtract);
        RippleBlock {
            terms,
            constant,
            hi: 2 * m - 1,
            m,
        }
    })
}

/// Block `i`'s sum without its carry, `Xᵢ ± Yᵢ` (a subtraction adds the complement
/// `(m − 1) − Yᵢ`), as terms and a constant, with the block's modulus `m`.
fn block_sum(
    x: &[NodeId],
    y: &[NodeId],
    i: usize,
    bits: usize,
    subtract: bool,
) -> (Vec<(NodeId, i64)>, i64, i64) {
    let m = block_max(bits, i) + 1;
    let mut terms = Vec::new();
    let mut constant = 0;
    if let Some(&xi) = x.get(i) {
        terms.push((xi, 1));
    }
    match (y.get(i), subtract) {
        (Some(&yi), true) => {
            terms.push((yi, -1));
            constant += m - 1;
        }
        (Some(&yi), false) => terms.push((yi, 1)),
        (None, true) => constant += m - 1,
        (None, false) => {}
    }
    (terms, constant, m)
}

/// A block's carry state in [`prefix_add`]: no carry out, a carry out, or the carry in
/// passed on.
const NONE: i64 = 0;
const CARRY: i64 = 1;
const PASS: i64 = 2;

/// [`add_blocks`] by a parallel prefix of carry states (Sklansky's tree, as in the
/// carry-lookahead adders of Brent and Kung, "A Regular Layout for Parallel Adders"):
/// block `i`'s sum `sᵢ = Xᵢ ± Yᵢ` (block 0 with the carry in) gives its state (carry out,
/// none, or the carry in passed on when `sᵢ = m − 1`) in one table; the states of blocks
/// `0..=i` merge in `⌈log₂ k⌉` levels of one table each on `3·high + low` (quadratic
/// weight 10), the state of a block that passes taking the lower one's; block `i` is then
/// `(sᵢ + cᵢ) mod m` with `cᵢ` the merged state of the blocks below. Depth
/// `⌈log₂(k − 1)⌉ + 2` for `k` blocks, about `k·log₂ k / 2 + 2k` bootstraps.
pub fn prefix_add(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
    subtract: bool,
) -> Vec<NodeId> {
    let k = bits.div_ceil(2);
    // Each block's sum (block 0 with the carry in) and its largest value.
    let sums: Vec<(NodeId, i64, i64)> = (0..k)
        .map(|i| {
            let (terms, mut constant, m) = block_sum(x, y, i, bits, subtract);
            let mut hi = 2 * m - 2;
            if i == 0 && subtract {
                constant += 1;
                hi += 1;
            }
            (b.linear(&terms, constant), hi, m)
        })
        .collect();
    // The states of blocks 0..k−1 (the top block's carry goes nowhere); block 0's is
    // resolved (nothing enters it but the carry in, already in its sum).
    let mut state: Vec<NodeId> = sums[..k - 1]
        .iter()
        .enumerate()
        .map(|(i, &(s, hi, m))| {
            table(b, s, 0, hi, move |v| match v {
                v if v >= m => CARRY,
                v if v == m - 1 && i > 0 => PASS,
                _ => NONE,
            })
        })
        .collect();
    // Sklansky: at span 2^d, each block whose bit d is set merges with the last block
    // of the span below it; after every level, state i covers blocks 0..=i.
    let mut span = 1;
    while span < state.len() {
        let before = state.clone();
        for (i, slot) in state.iter_mut().enumerate() {
            if i & span == 0 {
                continue;
            }
            let low = before[(i & !(span - 1)) - 1];
            let sel = b.linear(&[(before[i], 3), (low, 1)], 0);
            *slot = table(b, sel, 0, 8, |v| match (v / 3, v % 3) {
                (PASS, low) => low,
                (high, _) => high,
            });
        }
        span *= 2;
    }
    sums.iter()
        .enumerate()
        .map(|(i, &(s, hi, m))| match i {
            0 => table(b, s, 0, hi, move |v| v % m),
            _ => {
                let t = b.linear(&[(s, 1), (state[i - 1], 1)], 0);
                table(b, t, 0, hi + 1, move |v| v % m)
            }
        })
        .collect()
}

/// Block `i` of a [`ripple`]: its terms (besides the carry in), their constant, the
/// largest value of the sum with the carry, and the block's modulus.
pub(super) struct RippleBlock {
    pub(super) terms: Vec<(NodeId, i64)>,
    pub(super) constant: i64,
    pub(super) hi: i64,
    pub(super) m: i64,
}

/// A ripple of carries over `k` blocks: block `i` reads `t = cᵢ + Σ termsᵢ + constantᵢ`
/// (`c₀ = carry_in`, none when `None`) in a table for its result (`t mod m`, or with
/// [`Out::Bits`] its one or two bits) and, below the top block, one for its carry
/// `t div m`.
pub(super) fn ripple(
    b: &mut Builder,
    k: usize,
    carry_in: Option<NodeId>,
    out: Out,
    mut block: impl FnMut(&mut Builder, usize) -> RippleBlock,
) -> Vec<NodeId> {
    let mut result = Vec::with_capacity(2 * k);
    let mut carry = carry_in;
    for i in 0..k {
        let RippleBlock {
            mut terms,
            constant,
            hi,
            m,
        } = block(b, i);
        terms.extend(carry.map(|c| (c, 1)));
        let t = b.linear(&terms, constant);
        match out {
            Out::Blocks => result.push(table(b, t, 0, hi, move |v| v % m)),
            Out::Bits => {
                result.push(table(b, t, 0, hi, |v| v & 1));
                if m == 4 {
                    result.push(table(b, t, 0, hi, |v| (v >> 1) & 1));
                }
            }
        }
        if i + 1 < k {
            carry = Some(table(b, t, 0, hi, move |v| v / m));
        }
    }
    result
}
