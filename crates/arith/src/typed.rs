//! Typed integers with the operations of TFHE-rs' `FheInt` / `FheUint`: `n`-bit signed
//! or unsigned values, results modulo `2^n` (wrapping), each operation available in one
//! or more **algorithms** (forms), and a **planner** that picks the one with the lowest
//! estimated time on a given thread count.
//!
//! A value of an [`IntType`] is held as digits (an [`SInt`]) in one of three [`Form`]s:
//! radix-4 blocks of two bits per digit ([`Form::Radix4`], like TFHE-rs' radix
//! ciphertexts; additions, bitwise logic, products, comparisons, min/max and select run on
//! the blocks, [`crate::blocks`]), or signed-binary digits, canonical (two's-complement bits as digits, the top one negated when
//! signed: what encryption and every boolean-layer result give, bits for free) or lazy,
//! *any* representative of the integer modulo `2^n` (no normalisation): wrapping
//! addition, subtraction, negation, multiplication and left shifts keep working on
//! representatives (Parmesan's digit circuits, truncated to `n` digits, so digits `≥ n`
//! are never built), and the operations that need the canonical value (comparisons,
//! division, bitwise logic, right shifts, rotations, casts) take the bits of canonical
//! operands as they are and convert lazy ones ([`encint_core::bits::signed_digits_to_bits`],
//! `⌈3n/2⌉ − 1` bootstraps for `n` digits), then run a boolean circuit of
//! [`crate::bits`]. Their results are canonical. The client reads either form with
//! [`IntType::wrap`].
//!
//! Several operations have more than one algorithm:
//! - [`Algorithm::Digits`]: Parmesan's signed-binary circuits (seed 000) on
//!   representatives: parallel carry-free addition, `mul_low`, addition chains, free
//!   shifts; a select by two table lookups per digit.
//! - [`Algorithm::Bits`]: conversion to bits, then the boolean layer: products summed as
//!   partial-product columns and reduced with counters (one bootstrap removes several
//!   bits), non-restoring division, carry chains of counters.
//! - [`Algorithm::Blocks`]: on radix-4 operands, the block circuits of [`crate::blocks`]
//!   (results radix-4); on bit operands (products, comparisons, min / max, division and
//!   remainder), conversion to bits paired into radix-4 blocks, one bootstrap per digit of
//!   a block product, columns of digits reduced five at a time; comparisons one bootstrap
//!   per pair of bits, then a tree; min / max that comparison and one select table per
//!   bit; division non-restoring with the partial remainder in blocks
//!   ([`crate::blocks::divide_blocks`]).
//! - [`Algorithm::Magic`], for division and remainder by a clear scalar only: the
//!   quotient as the high bits of the dividend times a precomputed reciprocal, one column
//!   sum (Granlund-Montgomery; [`crate::bits::div_rem_const`]), the remainder as
//!   `x - k·q` on its low bits. Widths up to 64 bits; wider types keep the Bits divider.
//!
//! [`plan`] builds every algorithm's circuit for the operation, width and operand forms,
//! and picks the one whose estimated time ([`crate::bits::makespan`]: the sum over levels of
//! `⌈level width / threads⌉` bootstrap times) is lowest, ties going to fewer bootstraps.
//!
//! ```
//! use encint_arith::typed::{plan, Form, IntOp, IntType};
//! use encint_arith::{Arith, Config};
//! let ar = Arith::new(Config { max_qweight: 25 });
//! let ty = IntType::new(16, false).unwrap();
//! let fresh = [Form::Canonical, Form::Canonical];
//! let p = plan(&ar, IntOp::WrappingMul, ty, &fresh, 2).unwrap();
//! // Columns of partial products reduced by counters beat Parmesan's mul_low here.
//! assert!(p.chosen().cost.bootstraps < 376);
//! ```

use std::fmt;

use encint_core::bits::{lower_into, Bit, BitBuilder};
use encint_core::circuit::{Builder, Circuit, Cost, NodeId};
use encint_core::lut::NegacyclicLut;

use crate::bits::{self as ops, Word};
use crate::{Arith, SInt};

/// Widest [`IntType`] (bits).
pub const MAX_TYPED_BITS: usize = 128;

/// An integer type: `bits` wide (1..=128), two's complement (`signed`) or unsigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IntType {
    /// Width in bits.
    pub bits: usize,
    /// Two's complement when true.
    pub signed: bool,
}

impl IntType {
    /// A type of `bits` bits; errors outside 1..=[`MAX_TYPED_BITS`].
    pub fn new(bits: usize, signed: bool) -> Result<Self, TypedError> {
        if (1..=MAX_TYPED_BITS).contains(&bits) {
            Ok(IntType { bits, signed })
        } else {
            Err(TypedError::Width(bits))
        }
    }

    /// The 1-bit unsigned type of comparison results.
    pub const BOOL: IntType = IntType {
        bits: 1,
        signed: false,
    };

    /// Smallest value.
    pub fn min(self) -> i128 {
        if !self.signed {
            0
        } else if self.bits == 128 {
            i128::MIN
        } else {
            -(1i128 << (self.bits - 1))
        }
    }

    /// Largest value (`i128::MAX` for the unsigned 127- and 128-bit types, whose larger
    /// values an `i128` cannot hold).
    pub fn max(self) -> i128 {
        match (self.signed, self.bits) {
            (true, 128) | (false, 127..) => i128::MAX,
            (true, n) => (1i128 << (n - 1)) - 1,
            (false, n) => (1i128 << n) - 1,
        }
    }

    /// The value of type `self` congruent to `v` modulo `2^bits` (for unsigned 128-bit,
    /// values past `i128::MAX` come out negative: the caller reads them as `u128`).
    pub fn wrap(self, v: i128) -> i128 {
        if self.bits >= 128 {
            return v;
        }
        let u = v.rem_euclid(1i128 << self.bits);
        if self.signed && u >= 1i128 << (self.bits - 1) {
            u - (1i128 << self.bits)
        } else {
            u
        }
    }

    /// Whether `v` is a value of the type.
    pub fn contains(self, v: i128) -> bool {
        self.min() <= v && v <= self.max()
    }
}

impl fmt::Display for IntType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", if self.signed { "i" } else { "u" }, self.bits)
    }
}

/// Errors of the typed operations (all found before anything runs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypedError {
    /// A width outside 1..=[`MAX_TYPED_BITS`].
    Width(usize),
    /// Wrong number of operands.
    Arity {
        /// Operands the operation takes.
        expected: usize,
        /// Operands given.
        found: usize,
    },
    /// Division or remainder by the scalar 0.
    DivisionByZero,
    /// A scalar that is not a value of the operand type.
    ScalarRange(i128),
    /// The algorithm does not implement the operation.
    Unsupported(IntOp, Algorithm),
}

impl fmt::Display for TypedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypedError::Width(w) => write!(f, "width {w} outside 1..={MAX_TYPED_BITS}"),
            TypedError::Arity { expected, found } => {
                write!(f, "operation takes {expected} operand(s), got {found}")
            }
            TypedError::DivisionByZero => write!(f, "division by the scalar 0"),
            TypedError::ScalarRange(k) => write!(f, "scalar {k} is not a value of the type"),
            TypedError::Unsupported(op, a) => write!(f, "{op} has no {a:?} algorithm"),
        }
    }
}

impl std::error::Error for TypedError {}

/// An operation on [`IntType`] values, with TFHE-rs semantics: results modulo `2^n`.
///
/// Shift amounts (scalar or encrypted) at or above the width give 0 (right shifts of a
/// signed value: all sign bits), as Rust's `checked_shl(..).unwrap_or(0)`; rotations take
/// the amount modulo the width. An encrypted amount is read as the unsigned `n`-bit
/// pattern of its operand. Division truncates (`MIN / -1 = MIN`); division by an
/// encrypted 0 gives all ones unsigned, `-1` (dividend ≥ 0) or `1` (dividend < 0)
/// signed, and the remainder is the dividend (see [`crate::bits::div_rem_unsigned`]).
/// Comparisons return [`IntType::BOOL`] (0 or 1). [`IntOp::Select`] takes `(c, a, b)`
/// and returns `a` when `c` is odd, else `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntOp {
    /// `a + b` mod `2^n`
    WrappingAdd,
    /// `a - b` mod `2^n`
    WrappingSub,
    /// `-a` mod `2^n`
    WrappingNeg,
    /// `a · b` mod `2^n`
    WrappingMul,
    /// `a · a` mod `2^n`
    WrappingSquare,
    /// `k · a` mod `2^n` (any `k`; only `k mod 2^n` matters)
    WrappingScalarMul(i128),
    /// `a & b`
    And,
    /// `a | b`
    Or,
    /// `a ^ b`
    Xor,
    /// `!a`
    Not,
    /// `a << k`
    Shl(u32),
    /// `a >> k` (arithmetic for signed types)
    Shr(u32),
    /// `a` rotated left by `k mod n`
    Rotl(u32),
    /// `a` rotated right by `k mod n`
    Rotr(u32),
    /// `a << b`
    ShlVar,
    /// `a >> b`
    ShrVar,
    /// `a` rotated left by `b mod n`
    RotlVar,
    /// `a` rotated right by `b mod n`
    RotrVar,
    /// `c ? a : b` (`c` odd)
    Select,
    /// `min(a, b)`
    Min,
    /// `max(a, b)`
    Max,
    /// `[a < b]`
    Lt,
    /// `[a <= b]`
    Le,
    /// `[a > b]`
    Gt,
    /// `[a >= b]`
    Ge,
    /// `[a == b]`
    Eq,
    /// `[a != b]`
    Ne,
    /// `a / b`
    Div,
    /// `a % b`
    Rem,
    /// `a / k` for a scalar `k` of the type, not 0
    DivScalar(i128),
    /// `a % k` for a scalar `k` of the type, not 0
    RemScalar(i128),
    /// The value converted to another type (truncated, or zero/sign-extended by the
    /// source's signedness), like Rust's `as`.
    Cast(IntType),
}

impl fmt::Display for IntOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntOp::WrappingScalarMul(k) => write!(f, "scalar_mul({k})"),
            IntOp::Shl(k) => write!(f, "shl({k})"),
            IntOp::Shr(k) => write!(f, "shr({k})"),
            IntOp::Rotl(k) => write!(f, "rotl({k})"),
            IntOp::Rotr(k) => write!(f, "rotr({k})"),
            IntOp::DivScalar(k) => write!(f, "div({k})"),
            IntOp::RemScalar(k) => write!(f, "rem({k})"),
            IntOp::Cast(t) => write!(f, "cast({t})"),
            other => write!(f, "{}", other.name()),
        }
    }
}

/// How an operation is computed (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Parmesan's signed-binary digit circuits on representatives.
    Digits,
    /// Conversion to two's-complement bits and a boolean circuit.
    Bits,
    /// Conversion to two's-complement bits, paired into radix-4 blocks whose products
    /// are one bootstrap per digit, and compared two bits per bootstrap
    /// ([`crate::blocks`]); the result as bits.
    Blocks,
    /// Division and remainder by a clear scalar only: conversion to bits, then a
    /// multiplication by a precomputed reciprocal ("magic number") and a shift, the
    /// remainder as `x - k·q` ([`crate::bits::div_rem_const`]; widths up to 64 bits).
    Magic,
}

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
    /// canonical bit), and so do division and remainder; the Bits and Digits algorithms
    /// convert the blocks to bits first (two bootstraps per two-bit block, none for a
    /// one-bit top block).
    Radix4,
}

impl Form {
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

impl IntOp {
    /// Every operation with a sample scalar (for tables and tests).
    pub fn all_samples() -> Vec<IntOp> {
        use IntOp::*;
        vec![
            WrappingAdd,
            WrappingSub,
            WrappingNeg,
            WrappingMul,
            WrappingSquare,
            WrappingScalarMul(805),
            And,
            Or,
            Xor,
            Not,
            Shl(3),
            Shr(3),
            Rotl(3),
            Rotr(3),
            ShlVar,
            ShrVar,
            RotlVar,
            RotrVar,
            Select,
            Min,
            Max,
            Lt,
            Le,
            Gt,
            Ge,
            Eq,
            Ne,
            Div,
            Rem,
            DivScalar(7),
            RemScalar(7),
        ]
    }

    /// The operation's name without its scalar (`shl`, `div_scalar`, `cast`, ...).
    pub fn name(self) -> &'static str {
        use IntOp::*;
        match self {
            WrappingAdd => "add",
            WrappingSub => "sub",
            WrappingNeg => "neg",
            WrappingMul => "mul",
            WrappingSquare => "squ",
            WrappingScalarMul(_) => "scalar_mul",
            And => "and",
            Or => "or",
            Xor => "xor",
            Not => "not",
            Shl(_) => "shl",
            Shr(_) => "shr",
            Rotl(_) => "rotl",
            Rotr(_) => "rotr",
            ShlVar => "shl_var",
            ShrVar => "shr_var",
            RotlVar => "rotl_var",
            RotrVar => "rotr_var",
            Select => "select",
            Min => "min",
            Max => "max",
            Lt => "lt",
            Le => "le",
            Gt => "gt",
            Ge => "ge",
            Eq => "eq",
            Ne => "ne",
            Div => "div",
            Rem => "rem",
            DivScalar(_) => "div_scalar",
            RemScalar(_) => "rem_scalar",
            Cast(_) => "cast",
        }
    }

    /// Number of operands.
    pub fn arity(self) -> usize {
        use IntOp::*;
        match self {
            WrappingNeg | WrappingSquare | WrappingScalarMul(_) | Not | Shl(_) | Shr(_)
            | Rotl(_) | Rotr(_) | DivScalar(_) | RemScalar(_) | Cast(_) => 1,
            Select => 3,
            _ => 2,
        }
    }

    /// The type of the result for operands of type `ty`.
    pub fn result_type(self, ty: IntType) -> IntType {
        use IntOp::*;
        match self {
            Lt | Le | Gt | Ge | Eq | Ne => IntType::BOOL,
            Cast(t) => t,
            _ => ty,
        }
    }

    /// The algorithms that implement the operation.
    pub fn algorithms(self) -> &'static [Algorithm] {
        use IntOp::*;
        match self {
            WrappingMul | WrappingSquare => {
                &[Algorithm::Digits, Algorithm::Bits, Algorithm::Blocks]
            }
            Eq | Ne | Lt | Le | Gt | Ge | And | Or | Xor | Min | Max => {
                &[Algorithm::Bits, Algorithm::Blocks]
            }
            WrappingAdd | WrappingSub | WrappingNeg | Not | Select => {
                &[Algorithm::Digits, Algorithm::Bits, Algorithm::Blocks]
            }
            WrappingScalarMul(_) | Shl(_) => {
                &[Algorithm::Digits, Algorithm::Bits, Algorithm::Blocks]
            }
            Shr(_) | Rotl(_) | Rotr(_) | ShlVar | ShrVar | RotlVar | RotrVar | Cast(_) => {
                &[Algorithm::Bits, Algorithm::Blocks]
            }
            DivScalar(_) | RemScalar(_) => &[Algorithm::Bits, Algorithm::Magic],
            Div | Rem => &[Algorithm::Bits, Algorithm::Blocks],
        }
    }
}

fn truncated(x: SInt, n: usize) -> SInt {
    SInt {
        digits: x.digits.into_iter().take(n).collect(),
    }
}

/// Records `op` on operands `x` of forms `forms` (each a value of `ty`; the condition
/// of [`IntOp::Select`] any integer, canonical if it is a 1-digit [`IntType::BOOL`])
/// with `algorithm`; returns the result's digits (a value of `op.result_type(ty)`, at
/// most that many digits) and their form ([`result_form`]).
pub fn build(
    ar: &Arith,
    b: &mut Builder,
    op: IntOp,
    ty: IntType,
    algorithm: Algorithm,
    x: &[SInt],
    forms: &[Form],
) -> Result<(SInt, Form), TypedError> {
    if x.len() != op.arity() || forms.len() != op.arity() {
        return Err(TypedError::Arity {
            expected: op.arity(),
            found: x.len().min(forms.len()),
        });
    }
    check_type(op, ty)?;
    let out = match algorithm {
        Algorithm::Digits => {
            // Radix-4 operands become canonical digits first.
            let x: Vec<SInt> = x
                .iter()
                .zip(forms)
                .enumerate()
                .map(|(i, (s, &f))| match f {
                    Form::Radix4 if op == IntOp::Select && i == 0 => SInt {
                        digits: vec![condition_bit(b, s, f)],
                    },
                    Form::Radix4 => {
                        let bits = to_bits(b, s, ty.bits, ty.signed, f);
                        SInt {
                            digits: encint_core::bits::bits_to_signed_digits(b, &bits, ty.signed),
                        }
                    }
                    _ => s.clone(),
                })
                .collect();
            build_digits(ar, b, op, ty, &x)?
        }
        Algorithm::Bits | Algorithm::Magic => build_bits(b, op, ty, x, forms, algorithm)?,
        Algorithm::Blocks => build_blocks(ar, b, op, ty, x, forms)?,
    };
    Ok((out, result_form(op, algorithm, forms)))
}

/// The operand forms of `op` (the select condition left out).
fn operand_forms(op: IntOp, forms: &[Form]) -> &[Form] {
    let first = usize::from(op == IntOp::Select).min(forms.len());
    &forms[first..]
}

/// The form of `op`'s result with `algorithm` on operands of forms `forms`:
/// - Digits: lazy, except a select of canonical (or radix-4) values, which is canonical;
/// - Bits, Magic: canonical;
/// - Blocks: radix-4 when an operand is radix-4 (a comparison: a canonical bit), else
///   canonical.
pub fn result_form(op: IntOp, algorithm: Algorithm, forms: &[Form]) -> Form {
    let operands = operand_forms(op, forms);
    let comparison = matches!(
        op,
        IntOp::Eq | IntOp::Ne | IntOp::Lt | IntOp::Le | IntOp::Gt | IntOp::Ge
    );
    match algorithm {
        Algorithm::Digits if op == IntOp::Select && operands.iter().all(|&f| f != Form::Lazy) => {
            Form::Canonical
        }
        Algorithm::Digits => Form::Lazy,
        Algorithm::Bits | Algorithm::Magic => Form::Canonical,
        Algorithm::Blocks if !comparison && operands.contains(&Form::Radix4) => Form::Radix4,
        Algorithm::Blocks => Form::Canonical,
    }
}

/// The select condition's bit 0 as a fresh bit: free for a canonical condition (a 0/1
/// digit); one bootstrap for a radix-4 block (its parity); the lazy conversion
/// otherwise.
fn condition_bit(b: &mut Builder, c: &SInt, form: Form) -> NodeId {
    let bit = match (form, c.digits.first()) {
        (_, None) => return b.constant(0),
        (Form::Radix4, Some(&d)) => crate::blocks::table(b, d, 0, 3, |v| v & 1),
        _ => to_bits(b, c, 1, false, form)[0],
    };
    crate::blocks::fresh_node(b, bit, 1)
}

/// The fresh radix-4 blocks of an operand of `ty` in `form`: its digits as they are for a
/// radix-4 operand, else its bits paired and refreshed (one bootstrap per two bits).
fn to_blocks(b: &mut Builder, x: &SInt, ty: IntType, form: Form) -> Vec<NodeId> {
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

/// Operations on radix-4 blocks ([`crate::blocks`]), for operands of which at least one
/// is radix-4: results in radix-4 form (comparisons: one canonical bit).
fn build_radix4(
    b: &mut Builder,
    op: IntOp,
    ty: IntType,
    x: &[SInt],
    forms: &[Form],
    budget: u64,
) -> Result<SInt, TypedError> {
    use crate::blocks as bl;
    let n = ty.bits;
    let first = usize::from(op == IntOp::Select);
    let ops: Vec<Vec<NodeId>> = x[first..]
        .iter()
        .zip(&forms[first..])
        .map(|(s, &f)| to_blocks(b, s, ty, f))
        .collect();
    let xs = &ops[0];
    let ys = ops.get(1).unwrap_or(xs);
    let compare = |b: &mut Builder, p: &[NodeId], q: &[NodeId], pred: fn(i64) -> bool| {
        bl::compare_blocks(b, p, q, n, ty.signed, pred)
    };
    let digits = match op {
        IntOp::WrappingAdd => bl::add_blocks(b, xs, ys, n, false),
        IntOp::WrappingSub => bl::add_blocks(b, xs, ys, n, true),
        IntOp::WrappingNeg => bl::add_blocks(b, &[], xs, n, true),
        IntOp::And => bl::bitwise_blocks(b, xs, ys, n, |p, q| p & q),
        IntOp::Or => bl::bitwise_blocks(b, xs, ys, n, |p, q| p | q),
        IntOp::Xor => bl::bitwise_blocks(b, xs, ys, n, |p, q| p ^ q),
        IntOp::Not => bl::not_blocks(b, xs, n),
        IntOp::WrappingMul => bl::mul_blocks(b, xs, ys, n, budget),
        IntOp::WrappingSquare => bl::mul_blocks(b, xs, xs, n, budget),
        IntOp::Eq => vec![bl::eq_blocks(b, xs, ys)],
        IntOp::Ne => {
            let e = bl::eq_blocks(b, xs, ys);
            vec![b.linear(&[(e, -1)], 1)]
        }
        // a > b and a <= b compare (b, a).
        IntOp::Lt => vec![compare(b, xs, ys, |s| s < 0)],
        IntOp::Ge => vec![compare(b, xs, ys, |s| s >= 0)],
        IntOp::Gt => vec![compare(b, ys, xs, |s| s < 0)],
        IntOp::Le => vec![compare(b, ys, xs, |s| s >= 0)],
        IntOp::Max | IntOp::Min => {
            let ge = compare(b, xs, ys, |s| s >= 0);
            if op == IntOp::Max {
                bl::select_blocks(b, ge, xs, ys, n)
            } else {
                bl::select_blocks(b, ge, ys, xs, n)
            }
        }
        IntOp::Select => {
            let c = condition_bit(b, &x[0], forms[0]);
            bl::select_blocks(b, c, xs, ys, n)
        }
        IntOp::WrappingScalarMul(k) => {
            let k = IntType {
                bits: n,
                signed: false,
            }
            .wrap(k) as u128;
            bl::scalar_mul_blocks(b, xs, n, k, budget)
        }
        IntOp::Shl(k) | IntOp::Shr(k) | IntOp::Rotl(k) | IntOp::Rotr(k) => {
            bl::shift_blocks(b, xs, n, shift_kind(op, ty), k.into())
        }
        IntOp::ShlVar | IntOp::ShrVar | IntOp::RotlVar | IntOp::RotrVar => {
            bl::shift_var_blocks(b, xs, ys, n, shift_kind(op, ty), budget)
        }
        IntOp::Cast(to) => bl::cast_blocks(b, xs, n, ty.signed, to.bits),
        IntOp::Div | IntOp::Rem => {
            bl::divide_blocks(b, xs, ys, n, ty.signed, op == IntOp::Rem, budget)
        }
        _ => return Err(TypedError::Unsupported(op, Algorithm::Blocks)),
    };
    Ok(SInt { digits })
}

/// The block shift of a shift or rotation operation (arithmetic right shifts for signed
/// types).
fn shift_kind(op: IntOp, ty: IntType) -> crate::blocks::Shift {
    use crate::blocks::Shift;
    match op {
        IntOp::Shl(_) | IntOp::ShlVar => Shift::Left,
        IntOp::Shr(_) | IntOp::ShrVar if ty.signed => Shift::RightArith,
        IntOp::Shr(_) | IntOp::ShrVar => Shift::Right,
        IntOp::Rotl(_) | IntOp::RotlVar => Shift::RotateLeft,
        _ => Shift::RotateRight,
    }
}

/// Products, comparisons, min / max, division and shifts by an encrypted amount on
/// radix-4 blocks of the operands' bits ([`crate::blocks`]), or, when an operand is
/// radix-4, every operation [`build_radix4`] has.
fn build_blocks(
    ar: &Arith,
    b: &mut Builder,
    op: IntOp,
    ty: IntType,
    x: &[SInt],
    forms: &[Form],
) -> Result<SInt, TypedError> {
    let budget = ar
        .config()
        .max_qweight
        .min(encint_core::bits::QWEIGHT_BUDGET);
    if operand_forms(op, forms).contains(&Form::Radix4) {
        return build_radix4(b, op, ty, x, forms, budget);
    }
    let n = ty.bits;
    let xs = to_bits(b, &x[0], n, ty.signed, forms[0]);
    let out = match op {
        IntOp::WrappingMul => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            crate::blocks::mul(b, &xs, &ys, n, budget)
        }
        IntOp::WrappingSquare => crate::blocks::mul(b, &xs, &xs, n, budget),
        IntOp::Eq | IntOp::Ne | IntOp::Lt | IntOp::Le | IntOp::Gt | IntOp::Ge => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            let bit = match op {
                IntOp::Eq => crate::blocks::eq(b, &xs, &ys),
                IntOp::Ne => {
                    let e = crate::blocks::eq(b, &xs, &ys);
                    b.linear(&[(e, -1)], 1)
                }
                IntOp::Lt => crate::blocks::compare(b, &xs, &ys, ty.signed, |s| s < 0),
                IntOp::Le => crate::blocks::compare(b, &xs, &ys, ty.signed, |s| s <= 0),
                IntOp::Gt => crate::blocks::compare(b, &xs, &ys, ty.signed, |s| s > 0),
                _ => crate::blocks::compare(b, &xs, &ys, ty.signed, |s| s >= 0),
            };
            vec![bit]
        }
        IntOp::ShlVar | IntOp::ShrVar | IntOp::RotlVar | IntOp::RotrVar => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            crate::blocks::shift_var_bits(b, &xs, &ys, n, shift_kind(op, ty), budget)
        }
        IntOp::Min | IntOp::Max => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            crate::blocks::min_max_bits(b, &xs, &ys, ty.signed, op == IntOp::Max)
        }
        IntOp::Div | IntOp::Rem => {
            let ys = to_bits(b, &x[1], n, ty.signed, forms[1]);
            if ty.signed {
                let (xb, yb) = (
                    crate::blocks::blocks_from_bits(b, &xs),
                    crate::blocks::blocks_from_bits(b, &ys),
                );
                let rem = op == IntOp::Rem;
                let out = crate::blocks::divide_blocks(b, &xb, &yb, n, true, rem, budget);
                crate::blocks::bits_from_blocks(b, &out, n)
            } else {
                crate::blocks::divide_unsigned_bits(b, &xs, &ys, op == IntOp::Rem, budget)
            }
        }
        _ => return Err(TypedError::Unsupported(op, Algorithm::Blocks)),
    };
    let out_signed = op.result_type(ty).signed;
    Ok(SInt {
        digits: encint_core::bits::bits_to_signed_digits(b, &out, out_signed),
    })
}

fn check_type(op: IntOp, ty: IntType) -> Result<(), TypedError> {
    IntType::new(ty.bits, ty.signed)?;
    if let IntOp::Cast(to) = op {
        IntType::new(to.bits, to.signed)?;
    }
    match op {
        IntOp::DivScalar(0) | IntOp::RemScalar(0) => Err(TypedError::DivisionByZero),
        IntOp::DivScalar(k) | IntOp::RemScalar(k) if !ty.contains(k) => {
            Err(TypedError::ScalarRange(k))
        }
        _ => Ok(()),
    }
}

/// `k mod 2^n` as the signed representative of least magnitude (fits `i64` for
/// `n ≤ 64`), or `None` when it does not fit an `i64`.
fn centred_scalar(k: i128, n: usize) -> Option<i64> {
    let w = IntType {
        bits: n,
        signed: true,
    }
    .wrap(k);
    i64::try_from(w).ok()
}

fn build_digits(
    ar: &Arith,
    b: &mut Builder,
    op: IntOp,
    ty: IntType,
    x: &[SInt],
) -> Result<SInt, TypedError> {
    let n = ty.bits;
    let low = |s: &SInt| truncated(s.clone(), n);
    Ok(match op {
        IntOp::WrappingAdd => truncated(ar.add(b, &low(&x[0]), &low(&x[1])), n),
        IntOp::WrappingSub => truncated(ar.sub(b, &low(&x[0]), &low(&x[1])), n),
        IntOp::WrappingNeg => low(&x[0]).neg(b),
        IntOp::WrappingMul => ar.mul_low(b, &low(&x[0]), &low(&x[1]), n),
        IntOp::WrappingSquare => truncated(ar.square(b, &low(&x[0])), n),
        IntOp::WrappingScalarMul(k) => {
            let k = centred_scalar(k, n).ok_or(TypedError::Unsupported(op, Algorithm::Digits))?;
            truncated(ar.scalar_mul(b, &low(&x[0]), k), n)
        }
        // ¬a = -a - 1 (mod 2^n).
        IntOp::Not => {
            let neg = low(&x[0]).neg(b);
            let minus_one = SInt::constant(b, -1);
            truncated(ar.add(b, &neg, &minus_one), n)
        }
        IntOp::Shl(k) => {
            let k = k as usize;
            if k >= n {
                SInt::default()
            } else {
                truncated(low(&x[0]).shl(b, k), n)
            }
        }
        IntOp::Select => {
            // Per digit: |c0|·a_i + (1-|c0|)·b_i, each one table lookup of 3·c0 + digit.
            let Some(&c) = x[0].digits.first() else {
                return Ok(low(&x[2]));
            };
            let take = NegacyclicLut::from_fn(-4..=4, |s| {
                let c = (s + 4) / 3 - 1;
                if c != 0 {
                    s - 3 * c
                } else {
                    0
                }
            })
            .expect("odd table");
            let keep = NegacyclicLut::from_fn(-4..=4, |s| {
                let c = (s + 4) / 3 - 1;
                if c == 0 {
                    s
                } else {
                    0
                }
            })
            .expect("odd table");
            let (a, e) = (low(&x[1]), low(&x[2]));
            let zero = b.constant(0);
            let digits = (0..n.max(1))
                .filter(|&i| i < a.len() || i < e.len())
                .map(|i| {
                    let ai = a.digits.get(i).copied().unwrap_or(zero);
                    let ei = e.digits.get(i).copied().unwrap_or(zero);
                    let sa = b.linear(&[(c, 3), (ai, 1)], 0);
                    let se = b.linear(&[(c, 3), (ei, 1)], 0);
                    let ta = b.lut(sa, &take);
                    let te = b.lut(se, &keep);
                    let sum = b.add(ta, te);
                    let id = crate::luts::identity();
                    b.lut(sum, &id)
                })
                .collect();
            SInt { digits }
        }
        other => return Err(TypedError::Unsupported(other, Algorithm::Digits)),
    })
}

/// Two's-complement bits of `x` modulo `2^n`: free for a canonical `x` of `n` digits
/// (the top digit negated back when `signed`), two bootstraps per two-bit block of a
/// radix-4 `x`, else a circuit (`⌈3n/2⌉ − 1` bootstraps).
fn to_bits(b: &mut Builder, x: &SInt, n: usize, signed: bool, form: Form) -> Vec<NodeId> {
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

fn build_bits(
    b: &mut Builder,
    op: IntOp,
    ty: IntType,
    x: &[SInt],
    forms: &[Form],
    algorithm: Algorithm,
) -> Result<SInt, TypedError> {
    let n = ty.bits;
    let magic = algorithm == Algorithm::Magic;
    if magic && !matches!(op, IntOp::DivScalar(_) | IntOp::RemScalar(_)) {
        return Err(TypedError::Unsupported(op, algorithm));
    }
    let mut bb = BitBuilder::new();
    // Bit inputs: every operand converted to n bits (the select condition to 1 bit).
    let mut digit_bits: Vec<NodeId> = Vec::new();
    let words: Vec<Word> = x
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (w, signed) = if op == IntOp::Select && i == 0 {
                (1, false)
            } else {
                (n, ty.signed)
            };
            if op == IntOp::Select && i == 0 && forms[i] == Form::Radix4 {
                digit_bits.push(condition_bit(b, s, forms[i]));
            } else {
                digit_bits.extend(to_bits(b, s, w, signed, forms[i]));
            }
            Word::input(&mut bb, w)
        })
        .collect();
    let signed = ty.signed;
    let word = |v: Vec<Bit>| Word { bits: v };
    let scalar = |bb: &mut BitBuilder, k: i128| Word::constant(bb, k as u128, n);
    let out_signed = op.result_type(ty).signed;
    let out: Word = match op {
        IntOp::WrappingAdd => ops::add(&mut bb, &words[0], &words[1]),
        IntOp::WrappingSub => ops::sub(&mut bb, &words[0], &words[1]),
        IntOp::WrappingNeg => ops::neg(&mut bb, &words[0]),
        IntOp::WrappingMul => ops::mul(&mut bb, &words[0], &words[1]),
        IntOp::WrappingSquare => ops::mul(&mut bb, &words[0], &words[0]),
        IntOp::WrappingScalarMul(k) => {
            // Columns of the shifted copies of a for the set bits of k mod 2^n, reduced
            // by counters.
            let ku = IntType {
                bits: n,
                signed: false,
            }
            .wrap(k) as u128;
            let mut cols: Vec<Vec<Bit>> = vec![Vec::new(); n];
            for s in (0..n).filter(|&s| s < 128 && (ku >> s) & 1 == 1) {
                for (j, &bit) in words[0].bits.iter().enumerate() {
                    if s + j < n {
                        cols[s + j].push(bit);
                    }
                }
            }
            ops::sum_columns(&mut bb, cols, n)
        }
        IntOp::And => ops::and(&mut bb, &words[0], &words[1]),
        IntOp::Or => ops::or(&mut bb, &words[0], &words[1]),
        IntOp::Xor => ops::xor(&mut bb, &words[0], &words[1]),
        IntOp::Not => ops::not(&mut bb, &words[0]),
        IntOp::Shl(k) => ops::shl(&mut bb, &words[0], k as usize),
        IntOp::Shr(k) if signed => ops::sar(&mut bb, &words[0], k as usize),
        IntOp::Shr(k) => ops::shr(&mut bb, &words[0], k as usize),
        IntOp::Rotl(k) => ops::rotl(&words[0], k as usize),
        IntOp::Rotr(k) => ops::rotr(&words[0], k as usize),
        IntOp::ShlVar => ops::shl_var(&mut bb, &words[0], &words[1]),
        IntOp::ShrVar if signed => ops::sar_var(&mut bb, &words[0], &words[1]),
        IntOp::ShrVar => ops::shr_var(&mut bb, &words[0], &words[1]),
        IntOp::RotlVar => ops::rotl_var(&mut bb, &words[0], &words[1]),
        IntOp::RotrVar => ops::rotr_var(&mut bb, &words[0], &words[1]),
        IntOp::Select => ops::select(&mut bb, words[0].bits[0], &words[1], &words[2]),
        IntOp::Min | IntOp::Max => {
            let ge = if signed {
                ops::ge_signed(&mut bb, &words[0], &words[1])
            } else {
                ops::ge_unsigned(&mut bb, &words[0], &words[1])
            };
            if op == IntOp::Max {
                ops::select(&mut bb, ge, &words[0], &words[1])
            } else {
                ops::select(&mut bb, ge, &words[1], &words[0])
            }
        }
        IntOp::Lt | IntOp::Ge | IntOp::Gt | IntOp::Le => {
            // a < b and a >= b compare (a, b); a > b and a <= b compare (b, a).
            let (p, q) = match op {
                IntOp::Lt | IntOp::Ge => (&words[0], &words[1]),
                _ => (&words[1], &words[0]),
            };
            let ge = if signed {
                ops::ge_signed(&mut bb, p, q)
            } else {
                ops::ge_unsigned(&mut bb, p, q)
            };
            let r = if matches!(op, IntOp::Ge | IntOp::Le) {
                ge
            } else {
                bb.not(ge)
            };
            word(vec![r])
        }
        IntOp::Eq | IntOp::Ne => {
            let e = ops::eq(&mut bb, &words[0], &words[1]);
            word(vec![if op == IntOp::Eq { e } else { bb.not(e) }])
        }
        IntOp::DivScalar(k) | IntOp::RemScalar(k) if magic => {
            let want_q = matches!(op, IntOp::DivScalar(_));
            let (q, r) = ops::div_rem_const(&mut bb, &words[0], k, signed, want_q, !want_q)
                .ok_or(TypedError::Unsupported(op, algorithm))?;
            q.or(r).expect("the requested result is built")
        }
        IntOp::Div | IntOp::Rem | IntOp::DivScalar(_) | IntOp::RemScalar(_) => {
            let d = match op {
                IntOp::DivScalar(k) | IntOp::RemScalar(k) => scalar(&mut bb, k),
                _ => words[1].clone(),
            };
            let (q, r) = if signed {
                ops::div_rem_signed(&mut bb, &words[0], &d)
            } else {
                ops::div_rem_unsigned(&mut bb, &words[0], &d)
            };
            if matches!(op, IntOp::Div | IntOp::DivScalar(_)) {
                q
            } else {
                r
            }
        }
        IntOp::Cast(to) => words[0].resize(&mut bb, to.bits, signed),
    };
    let circuit = bb.finish(out.bits.clone());
    let lowered = lower_into(b, &circuit, &digit_bits).expect("input count matches");
    Ok(SInt {
        digits: encint_core::bits::bits_to_signed_digits(b, &lowered, out_signed),
    })
}

/// The circuit of `op` on `ty` with `algorithm`, on operands of `ty.bits` digits each
/// (the select condition: one digit) of forms `forms`, outputs made fresh (an identity
/// table on any output digit of quadratic weight above 1, as the servers do).
pub fn circuit(
    ar: &Arith,
    op: IntOp,
    ty: IntType,
    algorithm: Algorithm,
    forms: &[Form],
) -> Result<Circuit, TypedError> {
    let mut b = Builder::new();
    let inputs: Vec<SInt> = (0..op.arity())
        .map(|i| {
            let len = match forms.get(i) {
                _ if op == IntOp::Select && i == 0 => 1,
                Some(&f) => f.digits(ty),
                None => ty.bits,
            };
            SInt::input(&mut b, len)
        })
        .collect();
    let (out, _) = build(ar, &mut b, op, ty, algorithm, &inputs, forms)?;
    let id = crate::luts::identity();
    let outs = out
        .digits
        .iter()
        .map(|&d| if b.qweight(d) > 1 { b.lut(d, &id) } else { d })
        .collect();
    Ok(b.finish(outs))
}

/// One algorithm's estimate for an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Its circuit's cost.
    pub cost: Cost,
    /// The result's form.
    pub form: Form,
    /// Estimated time in bootstrap rounds at the plan's thread count: the sum over levels
    /// of `⌈bootstraps in the level / threads⌉`.
    pub rounds: u64,
}

/// The planner's answer: every algorithm's estimate, the chosen one first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The operation.
    pub op: IntOp,
    /// The operand type.
    pub ty: IntType,
    /// The operands' forms.
    pub forms: Vec<Form>,
    /// Threads the estimate assumes.
    pub threads: usize,
    /// Estimates, the chosen (fewest rounds, then fewest bootstraps, then, for radix-4
    /// operands, a radix-4 result) first.
    pub estimates: Vec<Estimate>,
}

impl Plan {
    /// The chosen algorithm's estimate.
    pub fn chosen(&self) -> &Estimate {
        &self.estimates[0]
    }
}

/// Plans `op` on `ty` with operands of forms `forms` for `threads` threads: builds each
/// algorithm's circuit and orders them by estimated time ([`crate::bits::makespan`]),
/// then bootstraps, then (radix-4 operands) whether the result stays radix-4.
pub fn plan(
    ar: &Arith,
    op: IntOp,
    ty: IntType,
    forms: &[Form],
    threads: usize,
) -> Result<Plan, TypedError> {
    check_type(op, ty)?;
    let mut estimates = Vec::new();
    for &algorithm in op.algorithms() {
        let c = match circuit(ar, op, ty, algorithm, forms) {
            Ok(c) => c,
            Err(TypedError::Unsupported(..)) => continue,
            Err(e) => return Err(e),
        };
        let form = result_form(op, algorithm, forms);
        estimates.push(Estimate {
            algorithm,
            cost: c.cost(),
            form,
            rounds: ops::makespan(&c, threads),
        });
    }
    if estimates.is_empty() {
        return Err(TypedError::Unsupported(op, Algorithm::Bits));
    }
    // Ties keep radix-4 operands' results in radix-4 form (no conversion for the next
    // block operation).
    let radix4 = operand_forms(op, forms).contains(&Form::Radix4);
    estimates.sort_by_key(|e| {
        (
            e.rounds,
            e.cost.bootstraps,
            radix4 && e.form != Form::Radix4,
        )
    });
    Ok(Plan {
        op,
        ty,
        forms: forms.to_vec(),
        threads,
        estimates,
    })
}
