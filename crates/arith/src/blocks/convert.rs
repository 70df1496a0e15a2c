//! Conversions between bits and blocks, and casts of block patterns to other widths.

use encint_core::circuit::{Builder, NodeId};

use super::shift::gather_blocks;
use super::{block_max, blocks_of, fresh, table};

/// The blocks `x₂ᵢ + 2x₂ᵢ₊₁` of fresh bits as linear sums, no bootstrap: each at quadratic
/// weight 5 (a lone last bit: 1), for circuits whose tables read a block at that weight
/// (an addition reads two blocks and a carry at weight 11).
pub fn paired_bits(b: &mut Builder, bits: &[NodeId]) -> Vec<NodeId> {
    blocks_of(b, bits, bits.len().div_ceil(2))
        .into_iter()
        .map(|d| d.node)
        .collect()
}

/// Fresh blocks of a bit vector: each pair `x₂ᵢ + 2x₂ᵢ₊₁` refreshed by one identity
/// bootstrap (a lone last bit as it is, when fresh).
pub fn blocks_from_bits(b: &mut Builder, bits: &[NodeId]) -> Vec<NodeId> {
    blocks_of(b, bits, bits.len().div_ceil(2))
        .into_iter()
        .map(|d| fresh(b, d).node)
        .collect()
}

/// The bits of `bits`-bit blocks (the low bit and the high bit of each block one
/// bootstrap each; a one-bit block is its bit).
pub fn bits_from_blocks(b: &mut Builder, x: &[NodeId], bits: usize) -> Vec<NodeId> {
    let mut out = Vec::with_capacity(bits);
    for (i, &xi) in x.iter().enumerate().take(bits.div_ceil(2)) {
        if block_max(bits, i) == 1 && b.qweight(xi) <= 1 {
            out.push(xi);
            continue;
        }
        out.push(table(b, xi, 0, 3, |v| v & 1));
        if 2 * i + 1 < bits {
            out.push(table(b, xi, 0, 3, |v| v >> 1));
        }
    }
    out
}

/// The fresh blocks of a `bits`-bit pattern (unsigned, or two's complement with
/// `signed`) cast to `to` bits: truncated, or extended with zeros or copies of the sign
/// bit. Whole blocks are kept as they are; a one-bit top block of an odd `to` is one
/// table, and the sign fill one table shared by every block it fills.
pub fn cast_blocks(
    b: &mut Builder,
    x: &[NodeId],
    bits: usize,
    signed: bool,
    to: usize,
) -> Vec<NodeId> {
    gather_blocks(b, x, bits, to, |p| match p {
        p if p < bits => Some(p),
        _ if signed => Some(bits - 1),
        _ => None,
    })
}
