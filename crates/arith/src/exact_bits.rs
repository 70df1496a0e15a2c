//! Python's bit operators on exact integers, through two's complement: `& | ^`, floor
//! division and remainder (`//`, `%`: the divisor's sign), shifts by a known amount and a
//! selection, each as a boolean stage lowered inside a digit circuit. [`Arith::apply`]
//! reaches them through [`Op::And`], [`Op::Or`], [`Op::Xor`], [`Op::FloorDiv`],
//! [`Op::Mod`], [`Op::Shl`], [`Op::Shr`] and [`Op::Select`].

use encint_core::bits::{bits_to_signed_digits, lower_into, signed_digits_to_bits, BitBuilder};
use encint_core::circuit::{Builder, NodeId};

use crate::bits::{self as ops, Word};
use crate::op::Op;
use crate::{Arith, SInt};

/// `(x // y, x % y)` with Python's floor semantics (the remainder has the divisor's
/// sign), from the truncating two's-complement division.
fn floor_div_rem(bb: &mut BitBuilder, x: &Word, y: &Word) -> (Word, Word) {
    let (q, r) = ops::div_rem_signed(bb, x, y);
    let nz = ops::any(bb, &r.bits);
    let sr = r.msb(bb);
    let sy = y.msb(bb);
    let differ = bb.xor(sr, sy);
    let fix = bb.and(nz, differ);
    let one = Word::constant(bb, 1, q.width());
    let qm = ops::sub(bb, &q, &one);
    let rp = ops::add(bb, &r, y);
    (ops::select(bb, fix, &qm, &q), ops::select(bb, fix, &rp, &r))
}

/// A boolean stage inside a digit circuit: `inputs` are bit nodes (0/1 digits) grouped in
/// words, `f` records the boolean operations, the result is lowered into `b`.
pub fn bit_stage(
    b: &mut Builder,
    inputs: &[Vec<NodeId>],
    f: impl FnOnce(&mut BitBuilder, &[Word]) -> Vec<Word>,
) -> Vec<Vec<NodeId>> {
    let mut bb = BitBuilder::new();
    let words: Vec<Word> = inputs
        .iter()
        .map(|w| Word::input(&mut bb, w.len()))
        .collect();
    let outs = f(&mut bb, &words);
    let lens: Vec<usize> = outs.iter().map(Word::width).collect();
    let circuit = bb.finish(outs.into_iter().flat_map(|w| w.bits).collect());
    let flat: Vec<NodeId> = inputs.iter().flatten().copied().collect();
    let lowered = lower_into(b, &circuit, &flat).expect("one input node per input bit");
    let mut it = lowered.into_iter();
    lens.into_iter()
        .map(|n| it.by_ref().take(n).collect())
        .collect()
}

/// A [`bit_stage`] of one output word, whose bits are the digits of the result.
pub fn word_stage(
    b: &mut Builder,
    inputs: &[Vec<NodeId>],
    f: impl FnOnce(&mut BitBuilder, &[Word]) -> Word,
) -> SInt {
    let mut out = bit_stage(b, inputs, |bb, ws| vec![f(bb, ws)]);
    SInt {
        digits: out.pop().expect("one output word"),
    }
}

/// Whether `op` is one of Python's binary bit operators on words (`& | ^ // % << >>`:
/// [`Op::And`], [`Op::Or`], [`Op::Xor`], [`Op::FloorDiv`], [`Op::Mod`], [`Op::ShlVar`],
/// [`Op::ShrVar`]).
pub fn is_word_op(op: Op) -> bool {
    matches!(
        op,
        Op::And | Op::Or | Op::Xor | Op::FloorDiv | Op::Mod | Op::ShlVar | Op::ShrVar
    )
}

/// The boolean form of one of Python's bit operators ([`is_word_op`]) on two words of one
/// width; `None` for another operation.
pub fn word_op(bb: &mut BitBuilder, op: Op, signed: bool, x: &Word, y: &Word) -> Option<Word> {
    Some(match op {
        Op::And => ops::and(bb, x, y),
        Op::Or => ops::or(bb, x, y),
        Op::Xor => ops::xor(bb, x, y),
        Op::FloorDiv if signed => floor_div_rem(bb, x, y).0,
        Op::Mod if signed => floor_div_rem(bb, x, y).1,
        Op::FloorDiv => ops::div_rem_unsigned(bb, x, y).0,
        Op::Mod => ops::div_rem_unsigned(bb, x, y).1,
        Op::ShlVar => ops::shl_var(bb, x, y),
        Op::ShrVar if signed => ops::sar_var(bb, x, y),
        Op::ShrVar => ops::shr_var(bb, x, y),
        _ => return None,
    })
}

impl Arith {
    /// `x op y` on exact integers for `op` one of `& | ^ // %` ([`Op::And`], [`Op::Or`],
    /// [`Op::Xor`], [`Op::FloorDiv`], [`Op::Mod`]): both in two's complement of a width
    /// that holds them and the exact result (`n + 2` bits for `n` digits), one boolean
    /// stage, back to digits. Division and remainder follow Python (floor); by an encrypted
    /// 0 the quotient is the boolean layer's and the remainder is `x`. `None` for another
    /// operation.
    pub fn bitwise(&self, b: &mut Builder, op: Op, x: &SInt, y: &SInt) -> Option<SInt> {
        if !matches!(op, Op::And | Op::Or | Op::Xor | Op::FloorDiv | Op::Mod) {
            return None;
        }
        let w = x.len().max(y.len()) + 2;
        let xs = signed_digits_to_bits(b, &x.digits, w);
        let ys = signed_digits_to_bits(b, &y.digits, w);
        let out = word_stage(b, &[xs, ys], |bb, ws| {
            word_op(bb, op, true, &ws[0], &ws[1]).expect("a bit operator, checked above")
        });
        Some(SInt {
            digits: bits_to_signed_digits(b, &out.digits, true),
        })
    }

    /// `x << k` (exact: a product by `2^k`) or `x >> k` (floor, through two's
    /// complement).
    pub fn shift(&self, b: &mut Builder, x: &SInt, k: usize, left: bool) -> SInt {
        if left {
            let mut y = x.clone();
            let mut left_over = k;
            while left_over > 0 {
                let s = left_over.min(62);
                y = self.scalar_mul(b, &y, 1i64 << s);
                left_over -= s;
            }
            y
        } else {
            let w = x.len() + 1;
            let xs = signed_digits_to_bits(b, &x.digits, w);
            let out = word_stage(b, &[xs], |bb, ws| ops::sar(bb, &ws[0], k.min(w)));
            SInt {
                digits: bits_to_signed_digits(b, &out.digits, true),
            }
        }
    }

    /// `b + c·(a - b)`: `a` where `c` is 1, `b` where it is 0 (on exact integers the
    /// condition must be 0 or 1: a comparison's result).
    pub fn select(&self, bld: &mut Builder, c: &SInt, a: &SInt, b: &SInt) -> SInt {
        let d = self.sub(bld, a, b);
        let p = self.mul(bld, c, &d);
        self.add(bld, b, &p)
    }
}
