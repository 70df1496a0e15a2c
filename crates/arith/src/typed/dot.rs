//! Sums of products of typed values in one block circuit: every product's block digits
//! join the same columns, reduced once (instead of one product circuit per pair and an
//! addition tree over them).

use encint_core::bits::{bits_to_signed_digits, lower_into, Bit, BitBuilder};
use encint_core::circuit::{Builder, NodeId};

use super::forms::{to_bits, Form};
use crate::op::IntType;
use crate::{Arith, SInt};

/// `Σ xᵢ·yᵢ` modulo `2^n` over values of `ty` (each with its form), and the form of the
/// result: one block circuit over all the pairs, as [`dot_plus`] builds it; a pair of one
/// value twice is a square (each cross product of blocks built once, counted twice).
/// `None` if the lists differ in length.
pub fn dot(
    ar: &Arith,
    b: &mut Builder,
    ty: IntType,
    xs: &[(&SInt, Form)],
    ys: &[(&SInt, Form)],
) -> Option<(SInt, Form)> {
    dot_plus(ar, b, ty, xs, ys, &[], 0)
}

/// `Σ xᵢ·yᵢ + Σ zⱼ + c` modulo `2^n`, and the form of the result: the addends' digits and
/// the constant's join the product block columns as they are (linear, no bootstrap of
/// their own), so a sum of products and values costs one reduction. Operands all stored
/// as radix-4 blocks stay blocks ([`crate::blocks::sum_products_blocks`], radix-4 blocks
/// out); otherwise every operand is read as its two's-complement bits (free for canonical
/// operands), the bits paired into blocks ([`crate::blocks::sum_products`]), and the
/// result is canonical. `None` if `xs` and `ys` differ in length.
pub fn dot_plus(
    ar: &Arith,
    b: &mut Builder,
    ty: IntType,
    xs: &[(&SInt, Form)],
    ys: &[(&SInt, Form)],
    addends: &[(&SInt, Form)],
    c: i128,
) -> Option<(SInt, Form)> {
    if xs.len() != ys.len() {
        return None;
    }
    let n = ty.bits;
    let budget = ar.config().max_qweight;
    let mut all = xs.iter().chain(ys).chain(addends);
    if all.all(|&(_, f)| f == Form::Radix4) {
        // A pair of one value twice is a square: the same slice twice.
        let pairs: Vec<(&[NodeId], &[NodeId])> = xs
            .iter()
            .zip(ys)
            .map(|(x, y)| {
                let xd = x.0.digits.as_slice();
                (xd, if x == y { xd } else { y.0.digits.as_slice() })
            })
            .collect();
        let zs: Vec<&[NodeId]> = addends.iter().map(|z| z.0.digits.as_slice()).collect();
        let digits = crate::blocks::sum_products_blocks(b, &pairs, &zs, c as u128, n, budget);
        return Some((SInt { digits }, Form::Radix4));
    }
    // A pair of one value twice is a square: its bits converted once, and the same slice
    // twice (the block circuit then builds each cross product once).
    let square: Vec<bool> = xs.iter().zip(ys).map(|(x, y)| x == y).collect();
    let xb: Vec<Vec<_>> = xs
        .iter()
        .map(|&(s, f)| to_bits(b, s, n, ty.signed, f))
        .collect();
    let yb: Vec<Option<Vec<_>>> = ys
        .iter()
        .zip(&square)
        .map(|(&(s, f), &sq)| (!sq).then(|| to_bits(b, s, n, ty.signed, f)))
        .collect();
    let pairs: Vec<(&[_], &[_])> = xb
        .iter()
        .zip(&yb)
        .map(|(x, y)| (x.as_slice(), y.as_deref().unwrap_or(x)))
        .collect();
    let mut zb: Vec<Vec<_>> = addends
        .iter()
        .map(|&(s, f)| to_bits(b, s, n, ty.signed, f))
        .collect();
    let c = (c as u128) & (u128::MAX >> (128 - n));
    if c != 0 {
        zb.push((0..n).map(|k| b.constant(((c >> k) & 1) as i64)).collect());
    }
    let zs: Vec<&[_]> = zb.iter().map(Vec::as_slice).collect();
    let out = crate::blocks::sum_products(b, &pairs, &zs, n, budget);
    let digits = bits_to_signed_digits(b, &out, ty.signed);
    Some((SInt { digits }, Form::Canonical))
}

/// `Σ xᵢ·wᵢ + c` modulo `2^n` over values of `ty` (each with its form) and clear weights
/// `ws` and constant `c`, as canonical digits: the two's-complement bits of every operand
/// (free for canonical operands; bits known at build time, such as a cast's zero
/// extension, are folded), each weight written in non-adjacent form so that every
/// non-zero signed digit `±2^s` of `wᵢ` puts the bits of `xᵢ` (negated for `-`, with the
/// constant that balances it) `s` columns up, and all the columns reduced by one counter
/// tree ([`crate::bits::sum_columns`]). A product by a clear weight costs no bootstrap of
/// its own: only the reduction does. `None` if the lists differ in length.
pub fn dot_clear(
    b: &mut Builder,
    ty: IntType,
    xs: &[(&SInt, Form)],
    ws: &[i128],
    c: i128,
) -> Option<SInt> {
    if xs.len() != ws.len() {
        return None;
    }
    let n = ty.bits;
    let mut bb = BitBuilder::new();
    let mut inputs: Vec<NodeId> = Vec::new();
    let mut cols = Columns::new(n);
    cols.offset = (c as u128) & cols.mask;
    for (&(s, f), &w) in xs.iter().zip(ws) {
        let digits = naf(w, n);
        if digits.is_empty() {
            continue;
        }
        let bits = to_bits(b, s, n, ty.signed, f);
        for (j, &d) in bits.iter().enumerate() {
            let known = b.const_value(d);
            let mut bit = None;
            for &(shift, sign) in &digits {
                let k = shift + j;
                if k >= n {
                    continue;
                }
                match known {
                    Some(0) => {}
                    Some(_) => cols.add_const(k, sign < 0),
                    None => {
                        let x = *bit.get_or_insert_with(|| {
                            inputs.push(d);
                            bb.input()
                        });
                        cols.add_bit(&mut bb, x, k, sign < 0);
                    }
                }
            }
        }
    }
    let out = cols.finish(&mut bb);
    let circuit = bb.finish(out.bits);
    let bits = lower_into(b, &circuit, &inputs).ok()?;
    Some(SInt {
        digits: bits_to_signed_digits(b, &bits, ty.signed),
    })
}

/// [`dot_clear`] on operands stored as radix-4 blocks ([`Form::Radix4`]), as radix-4
/// blocks: each weight spread over the block columns and every column reduced at once
/// ([`crate::blocks::scaled_sum_blocks`]), with no conversion to bits. `None` if the lists
/// differ in length or an operand is in another form.
pub fn dot_clear_blocks(
    b: &mut Builder,
    ty: IntType,
    xs: &[(&SInt, Form)],
    ws: &[i128],
    c: i128,
    budget: u64,
) -> Option<SInt> {
    if xs.len() != ws.len() || xs.iter().any(|&(_, f)| f != Form::Radix4) {
        return None;
    }
    let terms: Vec<(&[NodeId], u128)> = xs
        .iter()
        .zip(ws)
        .map(|(&(s, _), &w)| (s.digits.as_slice(), w as u128))
        .collect();
    let digits = crate::blocks::scaled_sum_blocks(b, &terms, c as u128, ty.bits, budget);
    Some(SInt { digits })
}

/// The non-adjacent form of `w` modulo `2^n`: `(position, ±1)` of each non-zero digit
/// below `n`, read from `w` as a signed value (so a small negative weight has few digits).
fn naf(w: i128, n: usize) -> Vec<(usize, i8)> {
    let mut out = Vec::new();
    let mut v = w;
    let mut k = 0;
    while v != 0 && k < n {
        if v & 1 == 1 {
            // v mod 4 == 1 -> +1, v mod 4 == 3 -> -1
            let d: i8 = if v & 3 == 1 { 1 } else { -1 };
            out.push((k, d));
            v -= i128::from(d);
        }
        v >>= 1;
        k += 1;
    }
    out
}

/// An operand of [`dot_widening`]: its digits, their form and its own type.
pub type Operand<'a> = (&'a SInt, Form, IntType);

/// Columns of bits (column `k` weighs `2^k`) below `n`, and a constant, that a sum of
/// signed terms `±bit·2^k` builds into: a negative term `-x·2^k` is `(1 - x)·2^k - 2^k`.
pub(super) struct Columns {
    n: usize,
    mask: u128,
    cols: Vec<Vec<Bit>>,
    offset: u128,
}

impl Columns {
    pub(super) fn new(n: usize) -> Columns {
        Columns {
            n,
            mask: if n >= 128 {
                u128::MAX
            } else {
                (1u128 << n) - 1
            },
            cols: vec![Vec::new(); n],
            offset: 0,
        }
    }

    pub(super) fn add_const(&mut self, k: usize, negative: bool) {
        if k < self.n {
            let unit = 1u128 << k;
            self.offset = if negative {
                self.offset.wrapping_sub(unit)
            } else {
                self.offset.wrapping_add(unit)
            } & self.mask;
        }
    }

    pub(super) fn add_bit(&mut self, bb: &mut BitBuilder, x: Bit, k: usize, negative: bool) {
        if k >= self.n {
            return;
        }
        match bb.const_value(x) {
            Some(true) => self.add_const(k, negative),
            Some(false) => {}
            None if negative => {
                let nx = bb.not(x);
                self.cols[k].push(nx);
                self.add_const(k, true);
            }
            None => self.cols[k].push(x),
        }
    }

    /// The low `n` bits of the sum, one counter tree.
    pub(super) fn finish(mut self, bb: &mut BitBuilder) -> crate::bits::Word {
        for k in 0..self.n {
            if (self.offset >> k) & 1 == 1 {
                let one = bb.constant(true);
                self.cols[k].push(one);
            }
        }
        crate::bits::sum_columns(bb, self.cols, self.n)
    }
}

/// The bits of an operand as bits of a bit circuit (known digits as constants), each with
/// its sign: the top bit of a signed type weighs `-2^(m-1)`.
fn operand_bits(
    b: &mut Builder,
    bb: &mut BitBuilder,
    inputs: &mut Vec<NodeId>,
    (s, f, ty): Operand<'_>,
) -> Vec<(Bit, bool)> {
    let m = ty.bits;
    to_bits(b, s, m, ty.signed, f)
        .into_iter()
        .enumerate()
        .map(|(j, d)| {
            let bit = match b.const_value(d) {
                Some(v) => bb.constant(v != 0),
                None => {
                    inputs.push(d);
                    bb.input()
                }
            };
            (bit, ty.signed && j + 1 == m)
        })
        .collect()
}

/// `Σ xᵢ·yᵢ + Σ cⱼ` modulo `2^n` of `out`, each operand a value of its own (narrower)
/// type, as canonical digits of `out`: every product exact from the operands' own bits
/// (one partial product per pair of bits, the top bit of a signed operand counted
/// negative, as in Baugh and Wooley's two's-complement multiplier), every addend
/// sign- or zero-extended (a pair of one value twice is a square: each cross product of
/// bits once, counted twice), and all of them reduced by one counter tree
/// ([`crate::bits::sum_columns`]; the lowering fuses partial products into the counters
/// where the noise budget allows). `None` if the lists differ in length.
pub fn dot_widening(
    b: &mut Builder,
    out: IntType,
    xs: &[Operand<'_>],
    ys: &[Operand<'_>],
    addends: &[Operand<'_>],
) -> Option<SInt> {
    if xs.len() != ys.len() {
        return None;
    }
    let mut bb = BitBuilder::new();
    let mut inputs: Vec<NodeId> = Vec::new();
    let mut cols = Columns::new(out.bits);
    for (&x, &y) in xs.iter().zip(ys) {
        let xb = operand_bits(b, &mut bb, &mut inputs, x);
        if x == y {
            // x² = Σ xᵢ·4^i + 2·Σ_{i<j} xᵢxⱼ·2^(i+j) (the sign of the top bit squared away).
            for (i, &(p, pn)) in xb.iter().enumerate() {
                cols.add_bit(&mut bb, p, 2 * i, false);
                for (j, &(q, qn)) in xb.iter().enumerate().skip(i + 1) {
                    if i + j + 1 < out.bits {
                        let pq = bb.and(p, q);
                        cols.add_bit(&mut bb, pq, i + j + 1, pn != qn);
                    }
                }
            }
            continue;
        }
        let yb = operand_bits(b, &mut bb, &mut inputs, y);
        for (i, &(p, pn)) in xb.iter().enumerate() {
            for (j, &(q, qn)) in yb.iter().enumerate() {
                if i + j < out.bits {
                    let pq = bb.and(p, q);
                    cols.add_bit(&mut bb, pq, i + j, pn != qn);
                }
            }
        }
    }
    for &c in addends {
        let bits = operand_bits(b, &mut bb, &mut inputs, c);
        for (k, (bit, negative)) in bits.into_iter().enumerate() {
            cols.add_bit(&mut bb, bit, k, negative);
        }
    }
    let sum = cols.finish(&mut bb);
    let circuit = bb.finish(sum.bits);
    let bits = lower_into(b, &circuit, &inputs).ok()?;
    Some(SInt {
        digits: bits_to_signed_digits(b, &bits, out.signed),
    })
}

#[cfg(test)]
mod tests {
    use super::naf;

    #[test]
    fn naf_digits_sum_to_the_weight() {
        for w in -300i128..=300 {
            let digits = naf(w, 64);
            let v: i128 = digits.iter().map(|&(k, d)| i128::from(d) << k).sum();
            assert_eq!(v, w, "{w}: {digits:?}");
            for pair in digits.windows(2) {
                assert!(pair[1].0 > pair[0].0 + 1, "{w}: adjacent digits {digits:?}");
            }
        }
    }
}
