//! Radix-4 block circuits on the digit IR (TFHE): two bits per bootstrap input instead
//! of one.
//!
//! A bit vector's bits pair up into blocks `A = a₀ + 2a₁` (values `0..=3`; a linear
//! combination, no bootstrap). One bootstrap of a selector such as `4A + B` (16 values,
//! quadratic weight 21 within the default budget of 25) reads any function of two blocks,
//! so a block product, a block comparison or a block of a shifted value costs one
//! bootstrap where bits need several gates. This is the radix-4 decomposition of
//! TFHE-rs' 2-bit blocks, built from the same digit tables as the rest of the crate.
//!
//! A `bits`-bit pattern (unsigned, or two's complement read as its unsigned pattern) is
//! held as `⌈bits/2⌉` blocks `Xᵢ = x₂ᵢ + 2x₂ᵢ₊₁` in `0..=3`, the last one a single bit
//! when `bits` is odd ([`crate::typed::Form::Radix4`]). The circuits take fresh blocks
//! (quadratic weight 1, as encrypted or as a bootstrap gives them) and give fresh blocks;
//! the `_bits` circuits and [`mul`], [`eq`], [`compare`] work on bits, pairing them into
//! blocks inside.
//!
//! - products: [`mul`], [`mul_sum`], [`sum_products`], [`mul_blocks`], [`sum_products_blocks`],
//!   [`scalar_mul_blocks`], [`scaled_sum_blocks`] (block products summed in columns of
//!   radix-4 digits), and
//!   multi-operand sums [`sum_blocks`] (the same columns without products);
//! - exact products of signed-binary integers: [`mul_signed_digits`],
//!   [`square_signed_digits`] (on the balanced radix-4 blocks of [`balanced_blocks`]);
//! - comparisons: [`eq`], [`compare`], [`eq_blocks`], [`compare_blocks`] (differences of
//!   block pairs merged in a tree);
//! - [`add_blocks`] (a ripple of carries, [`ripple_add`], or a parallel prefix of carry
//!   states, [`prefix_add`], the faster where planned), [`bitwise_blocks`], [`not_blocks`],
//!   [`select_bits`], [`select_blocks`], [`min_max_bits`], [`min_max_blocks`],
//!   [`max_min_zero_blocks`];
//! - shifts and rotations: [`shift_blocks`] (by a constant), [`shift_var_blocks`] and
//!   [`shift_var_bits`] (by an encrypted amount), and [`cast_blocks`];
//! - [`divide_blocks`] and [`divide_unsigned_bits`] (non-restoring division with the
//!   partial remainder in blocks);
//! - counts of bits: [`count_ones_blocks`] and [`end_zeros_blocks`] (leading or trailing,
//!   per-nibble tables and zero flags, no conversion to bits);
//! - a clear table of matches: [`match_blocks`] (nibble indicators, their ANDs, weighted
//!   sums of the matches);
//! - the conversions [`blocks_from_bits`] and [`bits_from_blocks`].
//!
//! Bootstraps and depth of each circuit per width: `docs/CIRCUITS.md`.
//!
//! ```
//! use encint_arith::blocks;
//! use encint_core::{circuit::Builder, clear};
//! let mut b = Builder::new();
//! let x: Vec<_> = (0..16).map(|_| b.input()).collect();
//! let y: Vec<_> = (0..16).map(|_| b.input()).collect();
//! let p = blocks::mul(&mut b, &x, &y, 16, 25);
//! let c = b.finish(p);
//! let bits = |v: u32| (0..16).map(move |k| i64::from((v >> k) & 1));
//! let inputs: Vec<i64> = bits(1234).chain(bits(567)).collect();
//! let (out, cost) = clear::run(&c, &inputs).unwrap();
//! let value = out.iter().enumerate().fold(0u32, |acc, (k, &d)| acc | ((d as u32) << k));
//! assert_eq!(value, (1234 * 567) % 65536);
//! assert!(cost.bootstraps <= 120);
//! ```

mod add;
mod columns;
mod compare;
mod convert;
mod count;
mod divide;
mod exact;
mod logic;
mod lookup;
mod merge;
mod product;
mod shift;
mod shift_var;
mod stages;

use encint_core::circuit::{Builder, NodeId};
use encint_core::lut::NegacyclicLut;

pub use add::{add_blocks, prefix_add, ripple_add};
pub use compare::{compare, compare_blocks, eq, eq_blocks};
pub use convert::{bits_from_blocks, blocks_from_bits, cast_blocks, paired_bits};
pub use count::{count_ones_blocks, end_zeros_blocks, End};
pub use divide::{divide_blocks, divide_unsigned_bits};
pub use exact::{balanced_blocks, mul_signed_digits, square_signed_digits};
pub use logic::{
    bitwise_blocks, max_min_zero_blocks, min_max_bits, min_max_blocks, not_blocks, select_bits,
    select_blocks, SELECT_SCALE,
};
pub use lookup::match_blocks;
pub use product::{
    mul, mul_blocks, mul_sum, scalar_mul_blocks, scaled_sum_blocks, sum_blocks, sum_products,
    sum_products_blocks,
};
pub use shift::{shift_blocks, Shift};
pub use shift_var::{shift_var_bits, shift_var_blocks};

/// Largest span of a bootstrap selector: 16 consecutive values (one negacyclic
/// half-period of the 5-bit digit space).
const MAX_SPAN: i64 = 15;

/// A digit node whose value lies in `0..=max`.
#[derive(Debug, Clone, Copy)]
struct Digit {
    node: NodeId,
    max: i64,
    /// For a table output: its selector, the selector's largest value (from 0), and the
    /// digit's value at each selector value; so a column left with this digit alone reads
    /// its bits from the selector directly.
    origin: Option<(NodeId, i64, [i8; 16])>,
}

impl Digit {
    fn new(node: NodeId, max: i64) -> Digit {
        Digit {
            node,
            max,
            origin: None,
        }
    }
}

/// What a column reduction or a ripple of carries gives: the result's bits, or its
/// radix-4 blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Out {
    Bits,
    Blocks,
}

/// One bootstrap of `f` on `node`, whose values lie in `lo..=hi`.
pub(crate) fn table(
    b: &mut Builder,
    node: NodeId,
    lo: i64,
    hi: i64,
    f: impl Fn(i64) -> i64,
) -> NodeId {
    let lut =
        NegacyclicLut::from_fn(lo..=hi, f).expect("selectors span at most 16 consecutive values");
    b.lut_in(node, lo, hi, &lut)
}

/// The blocks `bits[2i] + 2·bits[2i+1]` of a bit vector (the last one a single bit when
/// the length is odd), at most `count` of them.
fn blocks_of(b: &mut Builder, bits: &[NodeId], count: usize) -> Vec<Digit> {
    bits.chunks(2)
        .take(count)
        .map(|pair| match *pair {
            [lo, hi] => Digit::new(b.linear(&[(lo, 1), (hi, 2)], 0), 3),
            [lo] => Digit::new(lo, 1),
            _ => unreachable!("chunks of two"),
        })
        .collect()
}

/// `d` with the noise of a fresh digit: itself when it already has it (or is a
/// constant), else one identity bootstrap.
fn fresh(b: &mut Builder, d: Digit) -> Digit {
    let node = fresh_node(b, d.node, d.max);
    if node == d.node {
        d
    } else {
        Digit::new(node, d.max)
    }
}

/// `node` (values in `0..=max`) with the noise of a fresh digit: itself when it already
/// has it (quadratic weight at most 1, or a constant), else one identity bootstrap.
pub(crate) fn fresh_node(b: &mut Builder, node: NodeId, max: i64) -> NodeId {
    if b.const_value(node).is_some() || b.qweight(node) <= 1 {
        node
    } else {
        table(b, node, 0, max, |x| x)
    }
}

/// The largest value of block `i` of a `bits`-bit pattern: 3, or 1 for the last block
/// of an odd width.
pub fn block_max(bits: usize, i: usize) -> i64 {
    if 2 * i + 1 == bits {
        1
    } else {
        3
    }
}

/// The blocks of `x` (a `bits`-bit pattern) as digits with their largest values.
fn block_digits(x: &[NodeId], bits: usize) -> Vec<Digit> {
    x.iter()
        .enumerate()
        .map(|(i, &node)| Digit::new(node, block_max(bits, i)))
        .collect()
}

/// `Σ wᵢ·flagᵢ` for fresh 0/1 flags of which at most one is set and weights in
/// `-max..=max`: partial sums of quadratic weight at most `budget` refreshed (their values
/// in `-max..=max`), then summed again, until one sum is left (linear, not refreshed).
fn exclusive_sum(b: &mut Builder, terms: &[(NodeId, i64)], max: i64, budget: u64) -> NodeId {
    let mut level: Vec<(NodeId, i64)> = terms.to_vec();
    loop {
        let mut chunks: Vec<Vec<(NodeId, i64)>> = Vec::new();
        let (mut chunk, mut weight) = (Vec::new(), 0u64);
        for &(n, w) in &level {
            let q = (w * w) as u64;
            if weight + q > budget && !chunk.is_empty() {
                chunks.push(std::mem::take(&mut chunk));
                weight = 0;
            }
            weight += q;
            chunk.push((n, w));
        }
        if chunks.is_empty() {
            return b.linear(&chunk, 0);
        }
        chunks.push(chunk);
        level = chunks
            .iter()
            .map(|c| match c.as_slice() {
                [(n, 1)] => (*n, 1),
                _ => {
                    let s = b.linear(c, 0);
                    (table(b, s, -max, max, |v| v), 1)
                }
            })
            .collect();
    }
}
