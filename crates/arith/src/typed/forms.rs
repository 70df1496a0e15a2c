//! The forms a typed value's digits take, and the conversions between them that the
//! builders need (bits, blocks, the select condition's bit).

use encint_core::circuit::{Builder, NodeId};

use crate::op::{Algorithm, IntType, Op};
use crate::SInt;

/// The representation of a typed value's digits.
///
/// Conversions: canonical to lazy is free (a canonical value is a representative);
/// lazy to canonical is a circuit ([`encint_core::bits::signed_digits_to_bits`],
/// `⌈3n/2⌉ − 1` bootstraps for `n` digits), which the Bits algorithm pays on every lazy
/// operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    /// Two's-complement digits: exactly `n` digits, bit `i` of the canonical value as
    /// digit `i`, the top one negated for a signed type (`v = Σ b_i 2^i - b_{n-1} 2^n`
    /// for signed). Its bits are free: a fresh encryption, and every Bits result, has
    /// this form.
    Canonical,
    /// Any signed-binary digits (each -1, 0 or 1) whose value is congruent to the value
    /// modulo `2^n`: Parmesan's wrapping results (no normalisation).
    Lazy,
    /// Radix-4 blocks (like TFHE-rs' 2-bit blocks): `⌈n/2⌉` fresh digits, digit `i` the
    /// block `b₂ᵢ + 2b₂ᵢ₊₁` (0..=3) of the value's unsigned `n`-bit pattern, the last one a
    /// single bit when `n` is odd; the value is `Σ dᵢ 4^i` read modulo `2^n`. Addition,
    /// subtraction, bitwise logic, products, scalar products, shifts and rotations (by a
    /// constant or an encrypted amount), casts, comparisons, min/max and select run on
    /// the blocks ([`Algorithm::Blocks`], results in this form; comparisons give a
    /// canonical bit), and so do division, remainder and the counts of ones and of
    /// leading and trailing zeros or ones; the Bits and Digits algorithms
    /// convert the blocks to bits first (one bootstrap per two-bit block, its two bits
    /// read from one blind rotation, none for a one-bit top block).
    Radix4,
}

impl Form {
    /// The form the integer family's encryption gives when none is named: radix-4
    /// blocks. Half the digits of canonical bits (half the bytes to upload), one
    /// bootstrap per block for bitwise logic (canonical bits pay one per bit), and the
    /// block algorithms for additions, products and comparisons, as TFHE-rs' radix
    /// ciphertexts have; a circuit that does better on bits converts the blocks first
    /// (the planner and `compile` weigh that conversion).
    pub const DEFAULT: Form = Form::Radix4;

    /// Digits a value of `ty` holds in this form.
    pub fn digits(self, ty: IntType) -> usize {
        match self {
            Form::Radix4 => ty.bits.div_ceil(2),
            Form::Canonical | Form::Lazy => ty.bits,
        }
    }

    /// The form's name (`canonical`, `lazy`, `radix4`).
    pub fn name(self) -> &'static str {
        match self {
            Form::Canonical => "canonical",
            Form::Lazy => "lazy",
            Form::Radix4 => "radix4",
        }
    }

    /// The form of a name given by [`Form::name`].
    pub fn from_name(name: &str) -> Option<Form> {
        [Form::Canonical, Form::Lazy, Form::Radix4]
            .into_iter()
            .find(|f| f.name() == name)
    }

    /// The value of type `ty` that digits `d` of this form hold (`None` if a digit is out
    /// of the form's range or a canonical/radix-4 value has the wrong length).
    pub fn value(self, ty: IntType, d: &[i64]) -> Option<i128> {
        match self {
            Form::Radix4 => {
                if d.len() != ty.bits.div_ceil(2) {
                    return None;
                }
                let mut acc: u128 = 0;
                for (i, &v) in d.iter().enumerate().rev() {
                    if !(0..=crate::blocks::block_max(ty.bits, i)).contains(&v) {
                        return None;
                    }
                    acc = (acc << 2) | v as u128;
                }
                Some(ty.wrap(acc as i128))
            }
            Form::Canonical | Form::Lazy => {
                let mut acc: i128 = 0;
                for &v in d.iter().rev() {
                    if !(-1..=1).contains(&v) {
                        return None;
                    }
                    acc = acc.wrapping_mul(2).wrapping_add(v as i128);
                }
                Some(ty.wrap(acc))
            }
        }
    }

    /// The digits of `v` (a value of `ty`) in this form (lazy: the canonical digits).
    pub fn encode(self, ty: IntType, v: i128) -> Vec<i64> {
        let u = v as u128;
        let n = ty.bits;
        match self {
            Form::Radix4 => (0..n.div_ceil(2))
                .map(|i| ((u >> (2 * i)) & if 2 * i + 1 == n { 1 } else { 3 }) as i64)
                .collect(),
            Form::Canonical | Form::Lazy => (0..n)
                .map(|k| {
                    let bit = ((u >> k) & 1) as i64;
                    if ty.signed && k == n - 1 {
                        -bit
                    } else {
                        bit
                    }
                })
                .collect(),
        }
    }
}

/// The operand forms of `op` (the select condition left out).
pub(super) fn operand_forms(op: Op, forms: &[Form]) -> &[Form] {
    let first = usize::from(op == Op::Select).min(forms.len());
    &forms[first..]
}

/// The form of `op`'s result with `algorithm` on operands of forms `forms`:
/// - Digits: lazy, except a select of canonical (or radix-4) values, which is canonical;
/// - Bits, Magic: canonical;
/// - Blocks: radix-4 when an operand is radix-4 (a comparison: a canonical bit), else
///   canonical.
pub fn result_form(op: Op, algorithm: Algorithm, forms: &[Form]) -> Form {
    let operands = operand_forms(op, forms);
    let comparison = matches!(op, Op::EQ | Op::NE | Op::LT | Op::LE | Op::GT | Op::GE);
    match algorithm {
        Algorithm::Digits if op == Op::Select && operands.iter().all(|&f| f != Form::Lazy) => {
            Form::Canonical
        }
        Algorithm::Digits => Form::Lazy,
        Algorithm::Bits | Algorithm::Magic => Form::Canonical,
        Algorithm::Blocks if !comparison && operands.contains(&Form::Radix4) => Form::Radix4,
        // Additions on bits paired into blocks give blocks.
        Algorithm::Blocks if matches!(op, Op::Add | Op::Sub) => Form::Radix4,
        Algorithm::Blocks => Form::Canonical,
    }
}

/// The select condition's bit 0 as a fresh bit: free for a canonical condition (a 0/1
/// digit); one bootstrap for a radix-4 block (its parity); the lazy conversion
/// otherwise.
pub(super) fn condition_bit(b: &mut Builder, c: &SInt, form: Form) -> NodeId {
    let bit = match (form, c.digits.first()) {
        (_, None) => return b.constant(0),
        (Form::Radix4, Some(&d)) => crate::blocks::table(b, d, 0, 3, |v| v & 1),
        _ => to_bits(b, c, 1, false, form)[0],
    };
    crate::blocks::fresh_node(b, bit, 1)
}

/// The select condition's bit 0 times `scale`, as a fresh digit: one bootstrap (the
/// parity of a radix-4 block read scaled, or the fresh bit of [`condition_bit`] scaled).
pub(super) fn condition_scaled(b: &mut Builder, c: &SInt, form: Form, scale: i64) -> NodeId {
    match (form, c.digits.first()) {
        (_, None) => b.constant(0),
        (Form::Radix4, Some(&d)) => crate::blocks::table(b, d, 0, 3, move |v| scale * (v & 1)),
        _ => {
            let bit = condition_bit(b, c, form);
            crate::blocks::table(b, bit, 0, 1, move |v| scale * v)
        }
    }
}

/// Two's-complement bits of `x` modulo `2^n`: free for a canonical `x` of `n` digits
/// (the top digit negated back when `signed`), one bootstrap per two-bit block of a
/// radix-4 `x` (both bits from one blind rotation), else a circuit (`⌈3n/2⌉ − 1` bootstraps).
pub fn to_bits(b: &mut Builder, x: &SInt, n: usize, signed: bool, form: Form) -> Vec<NodeId> {
    if form == Form::Radix4 {
        let mut bits = crate::blocks::bits_from_blocks(b, &x.digits, n);
        while bits.len() < n {
            let zero = b.constant(0);
            bits.push(zero);
        }
        return bits;
    }
    if form == Form::Canonical && x.len() == n {
        let mut bits = x.digits.clone();
        if signed {
            let top = b.neg(bits[n - 1]);
            bits[n - 1] = top;
        }
        return bits;
    }
    encint_core::bits::signed_digits_to_bits(b, &x.digits, n)
}

/// The canonical digits of `x` (a value of `ty` in `form`): its bits ([`to_bits`]) with
/// the top one negated for a signed type. What a radix-4 or lazy value costs to read as
/// canonical bits.
pub fn to_canonical(b: &mut Builder, x: &SInt, ty: IntType, form: Form) -> SInt {
    let bits = to_bits(b, x, ty.bits, ty.signed, form);
    SInt {
        digits: encint_core::bits::bits_to_signed_digits(b, &bits, ty.signed),
    }
}

/// The blocks of a binary-form operand of `ty` (canonical or lazy) as linear sums of its
/// bits ([`crate::blocks::paired_bits`]: no bootstrap beyond the bits' own, quadratic
/// weight 5), for the sums of additions and subtractions.
pub(super) fn to_paired_blocks(b: &mut Builder, x: &SInt, ty: IntType, form: Form) -> Vec<NodeId> {
    let bits = to_bits(b, x, ty.bits, ty.signed, form);
    crate::blocks::paired_bits(b, &bits)
}

/// The fresh radix-4 blocks of an operand of `ty` in `form`: its digits as they are for a
/// radix-4 operand, else its bits paired and refreshed (one bootstrap per two bits).
pub(super) fn to_blocks(b: &mut Builder, x: &SInt, ty: IntType, form: Form) -> Vec<NodeId> {
    if form != Form::Radix4 {
        let bits = to_bits(b, x, ty.bits, ty.signed, form);
        return crate::blocks::blocks_from_bits(b, &bits);
    }
    (0..ty.bits.div_ceil(2))
        .map(|i| match x.digits.get(i) {
            Some(&d) => crate::blocks::fresh_node(b, d, 3),
            None => b.constant(0),
        })
        .collect()
}
