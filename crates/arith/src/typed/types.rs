//! The typed vocabulary: integer types, operations, algorithms and errors.

use std::fmt;

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

impl IntOp {
    /// Every operation with a sample scalar (for tables and tests).
    pub fn all_samples() -> Vec<IntOp> {
        NAMED_SAMPLES.iter().map(|&(op, _)| op).collect()
    }

    /// The operation's name without its scalar (`shl`, `div_scalar`, `cast`, ...).
    pub fn name(self) -> &'static str {
        let kind = std::mem::discriminant(&self);
        match self {
            IntOp::Cast(_) => "cast",
            _ => NAMED_SAMPLES
                .iter()
                .find(|(op, _)| std::mem::discriminant(op) == kind)
                .map(|&(_, name)| name)
                .expect("every operation but a cast has a sample"),
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

/// Every operation but [`IntOp::Cast`] once, with a sample scalar, and its name.
const NAMED_SAMPLES: [(IntOp, &str); 31] = {
    use IntOp::*;
    [
        (WrappingAdd, "add"),
        (WrappingSub, "sub"),
        (WrappingNeg, "neg"),
        (WrappingMul, "mul"),
        (WrappingSquare, "squ"),
        (WrappingScalarMul(805), "scalar_mul"),
        (And, "and"),
        (Or, "or"),
        (Xor, "xor"),
        (Not, "not"),
        (Shl(3), "shl"),
        (Shr(3), "shr"),
        (Rotl(3), "rotl"),
        (Rotr(3), "rotr"),
        (ShlVar, "shl_var"),
        (ShrVar, "shr_var"),
        (RotlVar, "rotl_var"),
        (RotrVar, "rotr_var"),
        (Select, "select"),
        (Min, "min"),
        (Max, "max"),
        (Lt, "lt"),
        (Le, "le"),
        (Gt, "gt"),
        (Ge, "ge"),
        (Eq, "eq"),
        (Ne, "ne"),
        (Div, "div"),
        (Rem, "rem"),
        (DivScalar(7), "div_scalar"),
        (RemScalar(7), "rem_scalar"),
    ]
};

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

/// Errors of the typed operations (all found before anything runs).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TypedError {
    /// A width outside 1..=[`MAX_TYPED_BITS`].
    #[error("width {0} outside 1..={max}", max = MAX_TYPED_BITS)]
    Width(usize),
    /// Wrong number of operands.
    #[error("operation takes {expected} operand(s), got {found}")]
    Arity {
        /// Operands the operation takes.
        expected: usize,
        /// Operands given.
        found: usize,
    },
    /// Division or remainder by the scalar 0.
    #[error("division by the scalar 0")]
    DivisionByZero,
    /// A scalar that is not a value of the operand type.
    #[error("scalar {0} is not a value of the type")]
    ScalarRange(i128),
    /// The algorithm does not implement the operation.
    #[error("{0} has no {1:?} algorithm")]
    Unsupported(IntOp, Algorithm),
}
