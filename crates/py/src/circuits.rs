//! Boolean circuits inside digit circuits, shared by `EncInt`, `EncBits`, `FvWord` and
//! traced functions: Python's bit operations, floor division and shifts on exact integers
//! (through two's complement), comparisons, and the estimates that bound them.

use encint::arith::bits::{self as ops, Word};
use encint::arith::{Arith, SInt};
use encint::circuit::bits::{
    bits_to_signed_digits, lower_into, signed_digits_to_bits, Bit, BitBuilder,
};
use encint::circuit::{Builder, NodeId};
use encint::limits::{self, Estimate, WordOp};
use encint::Op;

/// Bit operations, floor division and remainder, variable shifts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitOp {
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
    /// `//` (floor for signed operands)
    FloorDiv,
    /// `%` (the divisor's sign for signed operands)
    Mod,
    /// `<<`
    Shl,
    /// `>>` (arithmetic for signed operands)
    Shr,
}

/// The bit of the comparison `op` (one of `Op::Lt`, `Le`, `Gt`, `Ge`, `Eq`, `Ne`), built
/// from a strict less-than and an equality circuit.
pub fn compare_bit(
    bb: &mut BitBuilder,
    op: Op,
    x: &Word,
    y: &Word,
    lt: impl Fn(&mut BitBuilder, &Word, &Word) -> Bit,
    eq: impl Fn(&mut BitBuilder, &Word, &Word) -> Bit,
) -> Bit {
    let (base, negate) = match op {
        Op::Lt => (lt(bb, x, y), false),
        Op::Gt => (lt(bb, y, x), false),
        Op::Le => (lt(bb, y, x), true),
        Op::Ge => (lt(bb, x, y), true),
        Op::Eq => (eq(bb, x, y), false),
        Op::Ne => (eq(bb, x, y), true),
        _ => unreachable!("{op:?} is not a comparison"),
    };
    if negate {
        bb.not(base)
    } else {
        base
    }
}

/// `x < y` on words read as two's complement (`signed`) or unsigned.
pub fn lt(bb: &mut BitBuilder, signed: bool, x: &Word, y: &Word) -> Bit {
    if signed {
        ops::lt_signed(bb, x, y)
    } else {
        ops::lt_unsigned(bb, x, y)
    }
}

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

/// The boolean form of a binary bit operation on two words of one width.
pub fn word_op(bb: &mut BitBuilder, op: BitOp, signed: bool, x: &Word, y: &Word) -> Word {
    match op {
        BitOp::And => ops::and(bb, x, y),
        BitOp::Or => ops::or(bb, x, y),
        BitOp::Xor => ops::xor(bb, x, y),
        BitOp::FloorDiv if signed => floor_div_rem(bb, x, y).0,
        BitOp::Mod if signed => floor_div_rem(bb, x, y).1,
        BitOp::FloorDiv => ops::div_rem_unsigned(bb, x, y).0,
        BitOp::Mod => ops::div_rem_unsigned(bb, x, y).1,
        BitOp::Shl => ops::shl_var(bb, x, y),
        BitOp::Shr if signed => ops::sar_var(bb, x, y),
        BitOp::Shr => ops::shr_var(bb, x, y),
    }
}

/// `x op y` on exact integers: both in two's complement of a width that holds them and
/// the exact result (`n + 2` bits for `n` digits), one boolean stage, back to digits.
/// Division and remainder follow Python (floor; `x // 0` and `x % 0` give the boolean
/// layer's values, see `floor_div_rem`).
pub fn exact_bitwise(b: &mut Builder, op: BitOp, x: &SInt, y: &SInt) -> SInt {
    let w = x.len().max(y.len()) + 2;
    let xs = signed_digits_to_bits(b, &x.digits, w);
    let ys = signed_digits_to_bits(b, &y.digits, w);
    let out = word_stage(b, &[xs, ys], |bb, ws| word_op(bb, op, true, &ws[0], &ws[1]));
    SInt {
        digits: bits_to_signed_digits(b, &out.digits, true),
    }
}

/// `x << k` (exact: a product by `2^k`) or `x >> k` (floor, through two's complement).
pub fn exact_shift(ar: &Arith, b: &mut Builder, x: &SInt, k: usize, left: bool) -> SInt {
    if left {
        let mut y = x.clone();
        let mut left_over = k;
        while left_over > 0 {
            let s = left_over.min(62);
            y = ar.scalar_mul(b, &y, 1i64 << s);
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

/// `b + c·(a - b)`: `a` where the one-digit `c` is 1, `b` where it is 0.
pub fn exact_select(ar: &Arith, bld: &mut Builder, c: &SInt, a: &SInt, b: &SInt) -> SInt {
    let d = ar.sub(bld, a, b);
    let p = ar.mul(bld, c, &d);
    ar.add(bld, b, &p)
}

/// The word operation of a [`BitOp`] (for its estimate).
fn word_kind(op: BitOp) -> WordOp {
    match op {
        BitOp::And | BitOp::Or | BitOp::Xor => WordOp::Bitwise,
        BitOp::FloorDiv | BitOp::Mod => WordOp::DivRem,
        BitOp::Shl | BitOp::Shr => WordOp::ShiftVar,
    }
}

/// Nodes of [`word_op`] on words of `w` bits (a floor division adds its sign fix).
pub fn word_op_nodes(op: BitOp, signed: bool, w: usize) -> u64 {
    let main = limits::word(word_kind(op), w);
    if signed && matches!(op, BitOp::FloorDiv | BitOp::Mod) {
        // any, two sign bits, sub, add, two selects
        [
            WordOp::Any,
            WordOp::Sub,
            WordOp::Add,
            WordOp::Select,
            WordOp::Select,
        ]
        .iter()
        .fold(main, |acc, &k| acc.saturating_add(limits::word(k, w)))
        .saturating_add(16)
    } else {
        main
    }
}

/// The estimate of [`exact_bitwise`] on `n` and `m` digits.
pub fn exact_bitwise_estimate(op: BitOp, n: usize, m: usize) -> Estimate {
    let w = n.max(m).saturating_add(2);
    let nodes = limits::conversions(n, w)
        .saturating_add(limits::conversions(m, w))
        .saturating_add(word_op_nodes(op, true, w));
    Estimate::new(w as u64, nodes)
}

/// The estimate of [`exact_shift`] on `n` digits.
pub fn exact_shift_estimate(n: usize, k: usize, left: bool) -> Estimate {
    if left {
        limits::shift_left(n, k)
    } else {
        let w = n.saturating_add(1);
        Estimate::new(
            w as u64,
            limits::conversions(n, w).saturating_add(limits::word(WordOp::ShiftConst, w)),
        )
    }
}

/// The estimate of [`exact_select`] on `c`, `a`, `b` of these widths.
pub fn exact_select_estimate(c: usize, a: usize, b: usize) -> Estimate {
    let d = limits::op(Op::Sub, a, b);
    let dw = usize::try_from(d.width).unwrap_or(usize::MAX);
    let p = limits::op(Op::Mul, c, dw);
    let pw = usize::try_from(p.width).unwrap_or(usize::MAX);
    d.then(p).then(limits::op(Op::Add, b, pw))
}

/// The estimate of a boolean stage of `w`-bit words computing `op` (its constants
/// included).
pub fn stage_estimate(op: WordOp, w: usize, out_width: usize) -> Estimate {
    Estimate::new(
        out_width as u64,
        limits::word(op, w)
            .saturating_add(w as u64)
            .saturating_add(8),
    )
}
