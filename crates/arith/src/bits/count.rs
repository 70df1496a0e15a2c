//! Counting bits of a word: the ones, the leading and trailing zeros or ones, the position
//! of the highest one bit, and the reversal.
//!
//! The ones are one column reduced by counters ([`sum_columns`]). The other counts are
//! counts of a *monotone* sequence of bits (ones, then zeros): "the bits at `i` and above
//! hold a one" falls from 1 to 0 as `i` rises. Such a count `c` needs no adder: `c ≥ t`
//! exactly when the sequence's bit `t − 1` is set, so bit `k` of `c` is the parity of the
//! sequence's bits `2^k − 1, 2·2^k − 1, 3·2^k − 1, …`, one counter per 15 of them. The
//! monotone sequences themselves are wide ORs over suffixes (or prefixes) of the word, each
//! one counter bootstrap, in blocks of 14 bits so that a block's ORs also take the OR of
//! every block above: three levels up to 210 bits.
//!
//! ```
//! use encint_arith::bits::{self, Word};
//! use encint_core::bits::BitBuilder;
//! let mut b = BitBuilder::new();
//! let x = Word::input(&mut b, 32);
//! let lz = bits::leading_zeros(&mut b, &x, 32);
//! let c = b.finish(lz.bits.clone());
//! let v: u32 = 0x0001_2345;
//! assert_eq!(bits::from_bits(&c.eval(&bits::to_bits(v.into(), 32)).unwrap()), 15);
//! let cost = encint_core::bits::lower(&c).unwrap().cost();
//! assert!(cost.bootstraps < 64 && cost.depth <= 5, "{cost:?}");
//! ```

use std::collections::HashMap;

use encint_core::bits::{Bit, BitBuilder, MAX_COUNT_SPAN};

use super::{sum_columns, Word};

/// The number of one bits of `x`, as a `width`-bit word.
pub fn count_ones(b: &mut BitBuilder, x: &Word, width: usize) -> Word {
    sum_columns(b, vec![x.bits.clone()], width)
}

/// The number of zero bits of `x` above its highest one bit (`x`'s width when `x` is 0),
/// as a `width`-bit word.
pub fn leading_zeros(b: &mut BitBuilder, x: &Word, width: usize) -> Word {
    // Bit i of the sequence: no one bit at or above position n − 1 − i.
    let held = suffix_any(b, &x.bits);
    let clear: Vec<Bit> = held.iter().rev().map(|&h| b.not(h)).collect();
    monotone_count(b, &clear, width)
}

/// The number of zero bits of `x` below its lowest one bit (`x`'s width when `x` is 0),
/// as a `width`-bit word.
pub fn trailing_zeros(b: &mut BitBuilder, x: &Word, width: usize) -> Word {
    // Bit i of the sequence: no one bit at or below position i.
    let held = prefix_any(b, &x.bits);
    let clear: Vec<Bit> = held.iter().map(|&h| b.not(h)).collect();
    monotone_count(b, &clear, width)
}

/// The position of the highest one bit of `x` (0 when `x` is 0), as a `width`-bit word.
pub fn highest_one(b: &mut BitBuilder, x: &Word, width: usize) -> Word {
    // Bit i of the sequence: a one bit at or above position i + 1.
    let held = suffix_any(b, &x.bits);
    monotone_count(b, held.get(1..).unwrap_or_default(), width)
}

/// `x` with its bits in reverse order (no gates).
pub fn reverse_bits(x: &Word) -> Word {
    Word {
        bits: x.bits.iter().rev().copied().collect(),
    }
}

/// Bit `i` of the result: whether any of `bits[i..]` is 1.
fn suffix_any(b: &mut BitBuilder, bits: &[Bit]) -> Vec<Bit> {
    let n = bits.len();
    let block = MAX_COUNT_SPAN as usize - 1;
    if n <= block + 1 {
        return (0..n).map(|i| wide_or(b, &bits[i..])).collect();
    }
    let starts: Vec<usize> = (0..n).step_by(block).collect();
    let totals: Vec<Bit> = starts
        .iter()
        .map(|&s| wide_or(b, &bits[s..(s + block).min(n)]))
        .collect();
    // above[j]: any one bit in the blocks after block j.
    let above = suffix_any(b, &totals);
    let mut out = Vec::with_capacity(n);
    for (j, &s) in starts.iter().enumerate() {
        let end = (s + block).min(n);
        for i in s..end {
            let mut group = bits[i..end].to_vec();
            if let Some(&a) = above.get(j + 1) {
                group.push(a);
            }
            out.push(wide_or(b, &group));
        }
    }
    out
}

/// Bit `i` of the result: whether any of `bits[..=i]` is 1.
fn prefix_any(b: &mut BitBuilder, bits: &[Bit]) -> Vec<Bit> {
    let reversed: Vec<Bit> = bits.iter().rev().copied().collect();
    let mut out = suffix_any(b, &reversed);
    out.reverse();
    out
}

/// The OR of at most 15 bits: one counter bootstrap (none for a single bit).
fn wide_or(b: &mut BitBuilder, bits: &[Bit]) -> Bit {
    debug_assert!(bits.len() <= MAX_COUNT_SPAN as usize);
    super::any(b, bits)
}

/// The number of ones of `seq`, a monotone sequence (every one before every zero), as a
/// `width`-bit word: bit `k` is the parity of `seq[t − 1]` over the multiples `t` of `2^k`.
fn monotone_count(b: &mut BitBuilder, seq: &[Bit], width: usize) -> Word {
    let bits = (0..width)
        .map(|k| {
            let step = 1usize.checked_shl(k as u32).unwrap_or(usize::MAX);
            let picked: Vec<Bit> = (1..)
                .map_while(|j: usize| j.checked_mul(step).filter(|&t| t <= seq.len()))
                .map(|t| seq[t - 1])
                .collect();
            parity(b, &picked)
        })
        .collect();
    Word { bits }
}

/// The XOR of `bits`: a bit met twice cancels, constants fold, then counters of up to 15
/// bits (their low output bit) in a tree.
fn parity(b: &mut BitBuilder, bits: &[Bit]) -> Bit {
    let mut flip = false;
    let mut odd: HashMap<Bit, bool> = HashMap::new();
    for &x in bits {
        match b.const_value(x) {
            Some(c) => flip ^= c,
            None => *odd.entry(x).or_insert(false) ^= true,
        }
    }
    let mut level: Vec<Bit> = odd
        .into_iter()
        .filter(|&(_, o)| o)
        .map(|(x, _)| x)
        .collect();
    level.sort();
    let mut acc = b.constant(false);
    while !level.is_empty() {
        if level.len() == 1 {
            acc = level[0];
            break;
        }
        level = level
            .chunks(MAX_COUNT_SPAN as usize)
            .map(|c| match c {
                [x] => *x,
                _ => {
                    let terms: Vec<(Bit, u32)> = c.iter().map(|&x| (x, 1)).collect();
                    b.count(&terms, 0).expect("at most 15 unit bits")[0]
                }
            })
            .collect();
    }
    if flip {
        b.not(acc)
    } else {
        acc
    }
}
