//! Division and remainder on blocks: non-restoring division with the partial remainder
//! held in radix-4 blocks, so each quotient bit is a ripple over blocks instead of bits.

use encint_core::circuit::{Builder, NodeId};

use super::add::{ripple, RippleBlock};
use super::convert::{bits_from_blocks, blocks_from_bits};
use super::{block_max, table, Out};

/// `x / d` (or `x % d` with `remainder`) of `bits`-bit values on blocks, as blocks, with
/// Rust's `wrapping_div` / `wrapping_rem` semantics: non-restoring division with the
/// partial remainder in radix-4 blocks (about `3·bits/2` bootstraps and depth `bits/2 + 2`
/// per quotient bit, where the bit circuit needs `2·bits` and `bits`); signed values are divided as magnitudes, then the quotient
/// is negated when the signs differ and the remainder takes the dividend's sign
/// (`MIN / −1 = MIN`). Division by zero is defined as in [`crate::bits::div_rem_unsigned`]
/// and [`crate::bits::div_rem_signed`]: `x / 0` is all ones unsigned, `−1` (`x ≥ 0`) or `1`
/// (`x < 0`) signed, and `x % 0 = x`.
///
/// ```
/// use encint_arith::blocks;
/// use encint_core::{circuit::Builder, clear};
/// let mut b = Builder::new();
/// let x: Vec<_> = (0..4).map(|_| b.input()).collect();
/// let d: Vec<_> = (0..4).map(|_| b.input()).collect();
/// let q = blocks::divide_blocks(&mut b, &x, &d, 8, false, false, 25);
/// let c = b.finish(q);
/// let blocks = |v: i64| (0..4).map(move |j| (v >> (2 * j)) & 3);
/// let inputs: Vec<i64> = blocks(200).chain(blocks(7)).collect();
/// let (out, cost) = clear::run(&c, &inputs).unwrap();
/// let value = out.iter().rev().fold(0, |acc, &v| 4 * acc + v);
/// assert_eq!(value, 200 / 7);
/// assert!(cost.bootstraps < 164); // TFHE-rs 1.8.2, FheUint8
/// ```
pub fn divide_blocks(
    b: &mut Builder,
    x: &[NodeId],
    d: &[NodeId],
    bits: usize,
    signed: bool,
    remainder: bool,
    budget: u64,
) -> Vec<NodeId> {
    let rem = remainder.then_some(Out::Blocks);
    if !signed {
        let xbits = bits_from_blocks(b, x, bits);
        let out = div_rem_unsigned_blocks(b, &xbits, d, bits, rem, budget);
        return if remainder {
            out
        } else {
            blocks_from_bits(b, &out)
        };
    }
    let (sx, sd) = (sign_bit(b, x, bits), sign_bit(b, d, bits));
    let ax = cond_neg_blocks(b, x, sx, bits);
    let ad = cond_neg_blocks(b, d, sd, bits);
    let axbits = bits_from_blocks(b, &ax, bits);
    let out = div_rem_unsigned_blocks(b, &axbits, &ad, bits, rem, budget);
    if remainder {
        cond_neg_blocks(b, &out, sx, bits)
    } else {
        let q = blocks_from_bits(b, &out);
        let differ = b.linear(&[(sx, 1), (sd, 1)], 0);
        let differ = table(b, differ, 0, 2, |v| i64::from(v == 1));
        cond_neg_blocks(b, &q, differ, bits)
    }
}

/// [`divide_blocks`] of unsigned values given as fresh bits (the canonical form), as
/// bits: the dividend's bits feed the division directly, the divisor is paired into blocks
/// (one bootstrap per block), and the quotient's and the remainder's bits come out of
/// their tables fresh.
pub fn divide_unsigned_bits(
    b: &mut Builder,
    x: &[NodeId],
    d: &[NodeId],
    remainder: bool,
    budget: u64,
) -> Vec<NodeId> {
    let d = blocks_from_bits(b, d);
    let rem = remainder.then_some(Out::Bits);
    div_rem_unsigned_blocks(b, x, &d, x.len(), rem, budget)
}

/// `(x / d, x % d)` of unsigned `bits`-bit values on blocks, as blocks: non-restoring
/// division (as [`crate::bits::div_rem_unsigned`]) with the partial remainder in radix-4
/// blocks instead of bits.
///
/// The remainder `R` lives in `K = ⌈(bits + 1)/2⌉` two-bit blocks (two's complement mod
/// `4^K`). For each dividend bit `xᵢ` from the top, with `s = [R ≥ 0]`:
/// `R ← 2R + xᵢ − d` if `s`, else `2R + xᵢ + d`, and the quotient bit is the new `[R ≥ 0]`.
/// - `2R` is free: each block doubled (digits up to 6; the ripple below absorbs them).
/// - `±d` is `d` or its complement `~d` plus a carry-in `s`: one table `4s + Dⱼ` per divisor
///   block, and `3s` (linear) for the blocks above the divisor.
/// - A ripple of carries: block `j` reads `Sⱼ = 2Rⱼ + Eⱼ + cⱼ` (`0..=11`, quadratic weight
///   6) in tables for its new block `Sⱼ mod 4`, its carry `Sⱼ div 4` and, at the top, the
///   new sign.
///
/// About `3·bits/2` bootstraps and depth `bits/2 + 2` per quotient bit, where the bit
/// circuit needs `2·bits` and `bits`. At the end a negative remainder gets `d` added back.
/// Division by zero is defined as in the bit circuit: `x / 0` is all ones and `x % 0 = x`.
///
/// Takes the dividend as fresh bits and the divisor as blocks; gives the quotient as fresh
/// bits, or with `rem` the remainder as blocks or bits.
fn div_rem_unsigned_blocks(
    b: &mut Builder,
    xbits: &[NodeId],
    d: &[NodeId],
    bits: usize,
    rem: Option<Out>,
    budget: u64,
) -> Vec<NodeId> {
    let k = bits.div_ceil(2);
    let big = (bits + 1).div_ceil(2);
    let zero = b.constant(0);
    let mut r: Vec<NodeId> = vec![zero; big];
    let mut s = b.constant(1);
    let mut q = vec![zero; bits];
    for i in (0..bits).rev() {
        let mut carry = None;
        let mut next = Vec::with_capacity(big);
        let mut sign = zero;
        for (j, &rj) in r.iter().enumerate() {
            // Eⱼ: the divisor's block, or its complement when subtracting.
            let e = match (d.get(j).filter(|_| j < k), b.const_value(s)) {
                (Some(&dj), Some(c)) if c != 0 => b.linear(&[(dj, -1)], 3),
                (Some(&dj), Some(_)) => dj,
                (Some(&dj), None) => {
                    let sel = b.linear(&[(s, 4), (dj, 1)], 0);
                    table(b, sel, 0, 7, |v| if v >= 4 { 3 - (v - 4) } else { v })
                }
                (None, _) => b.linear(&[(s, 3)], 0),
            };
            let mut terms = vec![(rj, 2), (e, 1)];
            match carry {
                Some(c) => terms.push((c, 1)),
                None => terms.extend([(xbits[i], 1), (s, 1)]),
            }
            let t = b.linear(&terms, 0);
            let block_carry = (j + 1 < big).then(|| table(b, t, 0, 11, |v| v / 4));
            // The last step's blocks, read only by the remainder's correction below, are
            // `Sⱼ − 4cⱼ₊₁` without a bootstrap when the correction's input stays within the
            // budget.
            let linear = match block_carry {
                Some(c) if i == 0 => {
                    let l = b.linear(&[(t, 1), (c, -4)], 0);
                    (b.qweight(l) + 2 <= budget).then_some(l)
                }
                _ => None,
            };
            next.push(linear.unwrap_or_else(|| table(b, t, 0, 11, |v| v % 4)));
            match block_carry {
                Some(c) => carry = Some(c),
                None => sign = table(b, t, 0, 11, |v| i64::from(v % 4 < 2)),
            }
        }
        r = next;
        s = sign;
        q[i] = sign;
    }
    let Some(out) = rem else {
        return q;
    };
    // A negative remainder (s = 0) gets d added back: Fⱼ = Dⱼ if not s, else 0. (The
    // blocks of `r` are full two-bit blocks, so every sum lies in 0..=7.)
    ripple(b, k, None, out, |b, j| {
        let sel = b.linear(&[(s, 4), (d[j], 1)], 0);
        let f = table(b, sel, 0, 7, |v| if v >= 4 { 0 } else { v });
        RippleBlock {
            terms: vec![(r[j], 1), (f, 1)],
            constant: 0,
            hi: 7,
            m: block_max(bits, j) + 1,
        }
    })
}

/// The sign bit (bit `bits − 1`) of a block vector, fresh: the top block itself when it
/// is one bit, else one table.
fn sign_bit(b: &mut Builder, x: &[NodeId], bits: usize) -> NodeId {
    let top = bits.div_ceil(2) - 1;
    if block_max(bits, top) == 1 {
        x[top]
    } else {
        table(b, x[top], 0, 3, |v| v >> 1)
    }
}

/// `−x` mod `2^bits` when the fresh bit `s` is 1, else `x`, on blocks: each block
/// complemented when `s` (one table of `m·s + Xᵢ`), then a ripple adding the carry-in `s`
/// (two tables per block): `3k − 1` bootstraps for `k` blocks.
fn cond_neg_blocks(b: &mut Builder, x: &[NodeId], s: NodeId, bits: usize) -> Vec<NodeId> {
    ripple(b, bits.div_ceil(2), Some(s), Out::Blocks, |b, j| {
        let m = block_max(bits, j) + 1;
        let sel = b.linear(&[(s, m), (x[j], 1)], 0);
        let flipped = table(b, sel, 0, 2 * m - 1, move |v| {
            if v >= m {
                (m - 1) - (v - m)
            } else {
                v
            }
        });
        RippleBlock {
            terms: vec![(flipped, 1)],
            constant: 0,
            hi: m,
            m,
        }
    })
}
