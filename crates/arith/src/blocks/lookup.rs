//! A function of an encrypted integer given as a clear table of matches (TFHE-rs'
//! `match_value`): the output for an input that matches one of the table's inputs, a
//! default for any other.
//!
//! The blocks pair into nibbles (the selector `X₀ + 4X₁`, 16 values). One table per
//! nibble and value met among the inputs reads `[N = v]`; an input's match is the AND of
//! its nibbles' indicators (one table on their sum, sixteen at a time). At most one input
//! matches, so each output block is the default's block plus a linear sum of the matches
//! weighted by the difference of their block to the default's: sums within the noise
//! budget are refreshed (values in `-3..=3`), and the refreshed partial sums summed again.
//!
//! ```
//! use encint_arith::blocks;
//! use encint_core::{circuit::Builder, clear};
//! let mut b = Builder::new();
//! let x: Vec<_> = (0..4).map(|_| b.input()).collect();
//! // 7 -> 70, 200 -> 3, anything else -> 9, as a u8; and whether it matched.
//! let (out, found) = blocks::match_blocks(&mut b, &x, 8, &[(7, 70), (200, 3)], 9, 8, 25);
//! let c = b.finish([out, vec![found]].concat());
//! for (v, want, hit) in [(7u32, 70, 1), (200, 3, 1), (8, 9, 0)] {
//!     let inputs: Vec<i64> = (0..4).map(|i| i64::from((v >> (2 * i)) & 3)).collect();
//!     let (o, _) = clear::run(&c, &inputs).unwrap();
//!     let value = o[..4].iter().rev().fold(0, |acc, &d| 4 * acc + d);
//!     assert_eq!((value, o[4]), (want, hit));
//! }
//! ```

use std::collections::HashMap;

use encint_core::circuit::{Builder, NodeId};

use super::compare::and_all;
use super::{block_max, exclusive_sum, fresh_node, table};

/// The blocks of the table's output for `x` (fresh radix-4 blocks of a `bits`-bit pattern)
/// and the flag that it matched: `pairs` are (input, output) patterns (inputs distinct,
/// read modulo `2^bits`; outputs modulo `2^out_bits`), `default` the output of an input
/// that matches none. Returns the `⌈out_bits/2⌉` fresh output blocks and the fresh match
/// flag. Sums read by one table stay within `budget` (quadratic weight).
pub fn match_blocks(
    b: &mut Builder,
    x: &[NodeId],
    bits: usize,
    pairs: &[(u128, u128)],
    default: u128,
    out_bits: usize,
    budget: u64,
) -> (Vec<NodeId>, NodeId) {
    let k = bits.div_ceil(2);
    let blocks: Vec<(NodeId, i64)> = (0..k)
        .map(|i| {
            let node = x.get(i).copied().unwrap_or_else(|| b.constant(0));
            (node, block_max(bits, i))
        })
        .collect();
    // Nibble selectors: two blocks each (the last may be one), with their largest value.
    let nibbles: Vec<(NodeId, i64)> = blocks
        .chunks(2)
        .map(|pair| match *pair {
            [(lo, ml), (hi, mh)] => (b.linear(&[(lo, 1), (hi, ml + 1)], 0), ml + (ml + 1) * mh),
            [one] => one,
            _ => unreachable!("chunks of two"),
        })
        .collect();
    let input_mask = mask(bits);
    let mut indicators: HashMap<(usize, i64), NodeId> = HashMap::new();
    let matches: Vec<NodeId> = pairs
        .iter()
        .map(|&(input, _)| {
            let input = input & input_mask;
            let flags: Vec<NodeId> = nibbles
                .iter()
                .enumerate()
                .map(|(t, &(sel, hi))| {
                    let v = ((input >> (4 * t)) & 0xf) as i64;
                    *indicators
                        .entry((t, v))
                        .or_insert_with(|| table(b, sel, 0, hi, move |s| i64::from(s == v)))
                })
                .collect();
            and_all(b, flags)
        })
        .collect();
    let out_mask = mask(out_bits);
    let default = default & out_mask;
    let out = (0..out_bits.div_ceil(2))
        .map(|j| {
            let block = |p: u128| ((p >> (2 * j)) & 3) as i64;
            let d = block(default);
            let terms: Vec<(NodeId, i64)> = matches
                .iter()
                .zip(pairs)
                .map(|(&m, &(_, out))| (m, block(out & out_mask) - d))
                .filter(|&(_, w)| w != 0)
                .collect();
            let sum = exclusive_sum(b, &terms, 3, budget);
            let with_default = b.linear(&[(sum, 1)], d);
            fresh_node(b, with_default, 3)
        })
        .collect();
    let ones: Vec<(NodeId, i64)> = matches.iter().map(|&m| (m, 1)).collect();
    let found = exclusive_sum(b, &ones, 1, budget);
    (out, fresh_node(b, found, 1))
}

/// The low `bits` bits set.
fn mask(bits: usize) -> u128 {
    match bits {
        0 => 0,
        128.. => u128::MAX,
        _ => (1u128 << bits) - 1,
    }
}
