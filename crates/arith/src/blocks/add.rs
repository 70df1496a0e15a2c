//! Addition and subtraction of blocks by a ripple of carries, and the ripple itself
//! (shared with division).

use encint_core::circuit::{Builder, NodeId};

use super::{block_max, table, Out};

/// `x + y` (or `x − y` with `subtract`) modulo `2^bits` on blocks, by a ripple of carries:
/// block `i` reads `t = Xᵢ ± Yᵢ + cᵢ` (in `0..=7`, quadratic weight 3) in two tables, its
/// block `t mod 4` and its carry `[t ≥ 4]`: `2k − 1` bootstraps for `k` blocks, depth
/// `k`. An empty `x` is 0 (so `x − y` with an empty `x` is `−y`).
pub fn add_blocks(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
    subtract: bool,
) -> Vec<NodeId> {
    // Subtraction adds the complement `(m − 1) − Yᵢ` of each block and a carry-in of 1.
    let carry_in = b.constant(i64::from(subtract));
    ripple(b, bits.div_ceil(2), Some(carry_in), Out::Blocks, |_, i| {
        let m = block_max(bits, i) + 1;
        let mut terms = Vec::new();
        let mut constant = 0;
        if let Some(&xi) = x.get(i) {
            terms.push((xi, 1));
        }
        if let Some(&yi) = y.get(i) {
            if subtract {
                terms.push((yi, -1));
                constant += m - 1;
            } else {
                terms.push((yi, 1));
            }
        } else if subtract {
            constant += m - 1;
        }
        RippleBlock {
            terms,
            constant,
            hi: 2 * m - 1,
            m,
        }
    })
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
