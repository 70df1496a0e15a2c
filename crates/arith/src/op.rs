//! The vocabulary of the library: the operations ([`Op`], one enum for exact and typed
//! integers, the command line, Python and the backends), the integer types, the
//! algorithms of the typed planner and their errors.

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

impl IntType {
    /// The type named `name`, the inverse of its [`Display`](fmt::Display) name: `bool`,
    /// or `u<N>` / `i<N>` with `N` in decimal digits, 1..=[`MAX_TYPED_BITS`].
    ///
    /// `u1` is refused ([`TypedError::Argument`], naming `bool`): the one-bit unsigned
    /// type is [`IntType::BOOL`], whose casts give `x != 0` where every other `u<N>`
    /// keeps the low `N` bits, so a name that reads as an integer would mislead. `i1` is
    /// the one-bit signed integer (values `-1` and `0`; a cast to it keeps the low bit,
    /// as Rust's `as` does). A width outside the range is [`TypedError::Width`].
    ///
    /// ```
    /// use encint_arith::typed::IntType;
    /// assert_eq!(IntType::parse("i16"), IntType::new(16, true));
    /// assert_eq!(IntType::parse("bool"), Ok(IntType::BOOL));
    /// assert_eq!(IntType::BOOL.to_string(), "bool");
    /// assert!(IntType::parse("u1").unwrap_err().to_string().contains("`bool`"));
    /// ```
    pub fn parse(name: &str) -> Result<IntType, TypedError> {
        if name == "bool" {
            return Ok(IntType::BOOL);
        }
        let unknown = || {
            TypedError::Argument(format!(
                "unknown type `{name}` (bool, u<N> or i<N> with N from 1 to {MAX_TYPED_BITS}, \
                 e.g. u8, i32)"
            ))
        };
        let (signed, digits) = match name.as_bytes().first() {
            Some(b'u') => (false, &name[1..]),
            Some(b'i') => (true, &name[1..]),
            _ => return Err(unknown()),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(unknown());
        }
        let bits: usize = digits.parse().map_err(|_| {
            TypedError::Argument(format!("type `{name}`: width outside 1..={MAX_TYPED_BITS}"))
        })?;
        let ty = IntType::new(bits, signed)?;
        if ty == IntType::BOOL {
            return Err(TypedError::Argument(format!(
                "`{name}` is not a type name: the one-bit unsigned type is `bool` (a cast to it \
                 gives x != 0, not the low bit); name it `bool`, or take the low bit with x & 1"
            )));
        }
        Ok(ty)
    }
}

/// `bool` for [`IntType::BOOL`], else `u<N>` or `i<N>` (the names [`IntType::parse`]
/// reads).
impl fmt::Display for IntType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == IntType::BOOL {
            return f.write_str("bool");
        }
        write!(f, "{}{}", if self.signed { "i" } else { "u" }, self.bits)
    }
}

/// A relation between two integers: the comparisons of [`Op::Cmp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relation {
    /// `x < y`.
    Lt,
    /// `x <= y`.
    Le,
    /// `x > y`.
    Gt,
    /// `x >= y`.
    Ge,
    /// `x == y`.
    Eq,
    /// `x != y`.
    Ne,
}

impl Relation {
    /// Every relation, in the order `lt, le, gt, ge, eq, ne`.
    pub const ALL: [Relation; 6] = [
        Relation::Lt,
        Relation::Le,
        Relation::Gt,
        Relation::Ge,
        Relation::Eq,
        Relation::Ne,
    ];

    /// The relation's name (`lt`, `le`, `gt`, `ge`, `eq`, `ne`).
    pub fn name(self) -> &'static str {
        match self {
            Relation::Lt => "lt",
            Relation::Le => "le",
            Relation::Gt => "gt",
            Relation::Ge => "ge",
            Relation::Eq => "eq",
            Relation::Ne => "ne",
        }
    }

    /// Whether the relation holds between `x` and `y`.
    pub fn holds<T: PartialOrd>(self, x: T, y: T) -> bool {
        match self {
            Relation::Lt => x < y,
            Relation::Le => x <= y,
            Relation::Gt => x > y,
            Relation::Ge => x >= y,
            Relation::Eq => x == y,
            Relation::Ne => x != y,
        }
    }
}

/// An operation of the library: one vocabulary for the exact integers, the typed
/// integers, the command line, Python and the backends.
///
/// What an operation means follows its operands' type. On typed integers ([`IntType`])
/// results are modulo `2^n`, as in TFHE-rs: shift amounts (scalar or encrypted) at or
/// above the width give 0 (right shifts of a signed value: all sign bits); rotations take
/// the amount modulo the width; an encrypted amount is read as the unsigned `n`-bit
/// pattern of its operand; division truncates (`MIN / -1 = MIN`); division by an
/// encrypted 0 gives all ones unsigned, `-1` (dividend ≥ 0) or `1` (dividend < 0)
/// signed, and the remainder is the dividend. On exact integers results never wrap:
/// [`Op::Mul`] is the whole product, [`Op::MulLow`] its low part. Comparisons return
/// 0 or 1 ([`IntType::BOOL`] on typed values). [`Op::Select`] takes `(c, a, b)` and
/// returns `a` when `c` is odd, else `b`.
///
/// Not every operation exists on every kind of integer: [`Op::on_typed`] and
/// [`Op::on_exact`] say where each one is built; elsewhere it is a typed error.
///
/// ```
/// use encint_arith::{Op, Relation};
/// assert_eq!(Op::parse("mul", None), Ok(Op::Mul));
/// assert_eq!(Op::parse("mul", Some(3)), Ok(Op::ScalarMul(3)));
/// assert_eq!(Op::parse("shl", Some(2)), Ok(Op::Shl(2)));
/// assert_eq!(Op::parse("shl", None), Ok(Op::ShlVar));
/// assert_eq!(Op::parse("le", None), Ok(Op::Cmp(Relation::Le)));
/// assert_eq!(Op::Shl(2).to_string(), "shl(2)");
/// assert!(Op::parse("pow", None).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `-a`
    Neg,
    /// `a · b`
    Mul,
    /// `a · b mod 2^n`, `n` the longer operand's length, on exact integers (what
    /// [`Op::Mul`] is on typed ones)
    MulLow,
    /// `a²`
    Square,
    /// `k · a` for a clear `k` (any `k`; on typed values only `k mod 2^n` matters)
    ScalarMul(i128),
    /// `a / b`, truncating
    Div,
    /// `a % b`, the dividend's sign
    Rem,
    /// `a / k` for a clear `k` of the type, not 0
    DivScalar(i128),
    /// `a % k` for a clear `k` of the type, not 0
    RemScalar(i128),
    /// `a // b`, flooring (Python's and NumPy's division)
    FloorDiv,
    /// `a % b` with the divisor's sign (Python's and NumPy's remainder)
    Mod,
    /// `|a|`
    Abs,
    /// `sgn(a)` in {-1, 0, 1}
    Signum,
    /// `a` rounded at bit `i`, half up
    Round(usize),
    /// `min(a, b)`
    Min,
    /// `max(a, b)`
    Max,
    /// `[a R b]`, 0 or 1
    Cmp(Relation),
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
    /// The value converted to another type (truncated, or zero/sign-extended by the
    /// source's signedness), like Rust's `as`.
    Cast(IntType),
    /// The number of one bits of the two's-complement pattern, a `u32` (Rust's
    /// `count_ones`).
    CountOnes,
    /// The number of zero bits of the pattern, a `u32`.
    CountZeros,
    /// The number of zero bits above the highest one bit, a `u32` (the width for 0).
    LeadingZeros,
    /// The number of one bits above the highest zero bit, a `u32`.
    LeadingOnes,
    /// The number of zero bits below the lowest one bit, a `u32` (the width for 0).
    TrailingZeros,
    /// The number of one bits below the lowest zero bit, a `u32`.
    TrailingOnes,
    /// The position of the highest one bit of the pattern, a `u32`: `⌊log2 a⌋` for
    /// `a > 0`, 0 for 0, the width minus one for a negative value (Rust's `ilog2`
    /// panics where this has no meaning; `checked_ilog2` pairs it with `a > 0`).
    Ilog2,
    /// The pattern's bits in reverse order (Rust's `reverse_bits`).
    ReverseBits,
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::ScalarMul(k) => write!(f, "scalar_mul({k})"),
            Op::Shl(k) => write!(f, "shl({k})"),
            Op::Shr(k) => write!(f, "shr({k})"),
            Op::Rotl(k) => write!(f, "rotl({k})"),
            Op::Rotr(k) => write!(f, "rotr({k})"),
            Op::DivScalar(k) => write!(f, "div({k})"),
            Op::RemScalar(k) => write!(f, "rem({k})"),
            Op::Round(i) => write!(f, "round({i})"),
            Op::Cast(t) => write!(f, "cast({t})"),
            other => write!(f, "{}", other.name()),
        }
    }
}

impl Op {
    /// `[a < b]`.
    pub const LT: Op = Op::Cmp(Relation::Lt);
    /// `[a <= b]`.
    pub const LE: Op = Op::Cmp(Relation::Le);
    /// `[a > b]`.
    pub const GT: Op = Op::Cmp(Relation::Gt);
    /// `[a >= b]`.
    pub const GE: Op = Op::Cmp(Relation::Ge);
    /// `[a == b]`.
    pub const EQ: Op = Op::Cmp(Relation::Eq);
    /// `[a != b]`.
    pub const NE: Op = Op::Cmp(Relation::Ne);

    /// Every operation of the typed integers with a sample scalar (for tables and tests).
    pub fn typed_samples() -> Vec<Op> {
        Op::samples().filter(|op| op.on_typed()).collect()
    }

    /// Every operation of the exact integers with a sample scalar (for tables and tests).
    pub fn exact_samples() -> Vec<Op> {
        Op::samples().filter(|op| op.on_exact()).collect()
    }

    /// Every operation but a cast, with a sample scalar.
    fn samples() -> impl Iterator<Item = Op> {
        let named = NAMED_SAMPLES.iter().map(|&(op, _)| op);
        named.chain(Relation::ALL.into_iter().map(Op::Cmp))
    }

    /// The operation's name without its scalar (`shl`, `div_scalar`, `cast`, ...).
    pub fn name(self) -> &'static str {
        let kind = std::mem::discriminant(&self);
        match self {
            Op::Cast(_) => "cast",
            Op::Cmp(r) => r.name(),
            _ => NAMED_SAMPLES
                .iter()
                .find(|(op, _)| std::mem::discriminant(op) == kind)
                .map_or("?", |&(_, name)| name),
        }
    }

    /// The operation called `name` (`add`, `sub`, `neg`, `mul`, `mul_low`, `squ` or
    /// `square`, `scalar_mul`, `div`, `rem`, `floordiv`, `mod`, `abs`, `sgn` or `signum`,
    /// `round`, `min`, `max`, `lt`, `le`, `gt`, `ge`, `eq`, `ne`, `and`, `or`, `xor`,
    /// `not`, `shl`, `shr`, `rotl`, `rotr`, `select`, `count_ones`, `count_zeros`,
    /// `leading_zeros`, `leading_ones`, `trailing_zeros`, `trailing_ones`, `ilog2`,
    /// `reverse_bits`), with `arg` its clear scalar where
    /// it takes one: `mul`, `div` and `rem` with a scalar are [`Op::ScalarMul`],
    /// [`Op::DivScalar`] and [`Op::RemScalar`]; the shifts and rotations without one take
    /// an encrypted amount; `round` needs its bit position. A cast needs a type: build
    /// [`Op::Cast`] directly.
    pub fn parse(name: &str, arg: Option<i128>) -> Result<Op, TypedError> {
        let need = |what: &str| TypedError::Argument(format!("operation `{name}` needs {what}"));
        let no_arg = |op: Op| match arg {
            None => Ok(op),
            Some(_) => Err(TypedError::Argument(format!(
                "operation `{name}` takes no scalar"
            ))),
        };
        let amount = |k: i128| {
            u32::try_from(k).map_err(|_| {
                TypedError::Argument(format!("shift amount {k} is negative or too large"))
            })
        };
        if let Some(r) = Relation::ALL.into_iter().find(|r| r.name() == name) {
            return no_arg(Op::Cmp(r));
        }
        match (name, arg) {
            ("mul", Some(k)) | ("scalar_mul", Some(k)) => Ok(Op::ScalarMul(k)),
            ("scalar_mul", None) => Err(need("a scalar")),
            ("div" | "div_scalar", Some(k)) => Ok(Op::DivScalar(k)),
            ("rem" | "rem_scalar", Some(k)) => Ok(Op::RemScalar(k)),
            ("div_scalar" | "rem_scalar", None) => Err(need("a scalar")),
            ("shl", Some(k)) => Ok(Op::Shl(amount(k)?)),
            ("shr", Some(k)) => Ok(Op::Shr(amount(k)?)),
            ("rotl", Some(k)) => Ok(Op::Rotl(amount(k)?)),
            ("rotr", Some(k)) => Ok(Op::Rotr(amount(k)?)),
            ("shl", None) => Ok(Op::ShlVar),
            ("shr", None) => Ok(Op::ShrVar),
            ("rotl", None) => Ok(Op::RotlVar),
            ("rotr", None) => Ok(Op::RotrVar),
            ("round", Some(i)) => usize::try_from(i)
                .map(Op::Round)
                .map_err(|_| need("a non-negative bit position")),
            ("round", None) => Err(need("a bit position")),
            ("square", _) => no_arg(Op::Square),
            ("signum", _) => no_arg(Op::Signum),
            ("cast", _) => Err(need("a target type")),
            _ => match NAMED_SAMPLES.iter().find(|(_, n)| *n == name) {
                Some(&(op, _)) if op.scalar().is_none() => no_arg(op),
                _ => Err(TypedError::Argument(format!("unknown operation `{name}`"))),
            },
        }
    }

    /// The operation's clear scalar, if it has one (a shift amount, a bit position, a
    /// factor or a divisor).
    pub fn scalar(self) -> Option<i128> {
        match self {
            Op::ScalarMul(k) | Op::DivScalar(k) | Op::RemScalar(k) => Some(k),
            Op::Shl(k) | Op::Shr(k) | Op::Rotl(k) | Op::Rotr(k) => Some(i128::from(k)),
            Op::Round(i) => i128::try_from(i).ok(),
            _ => None,
        }
    }

    /// The operation with `b`, a clear scalar, as its second operand, where one exists
    /// (`a + b` has none: the scalar is a constant operand).
    pub fn with_scalar(self, b: i128) -> Option<Op> {
        let amount = u32::try_from(b).ok();
        Some(match self {
            Op::Mul => Op::ScalarMul(b),
            Op::Div => Op::DivScalar(b),
            Op::Rem => Op::RemScalar(b),
            Op::ShlVar => Op::Shl(amount?),
            Op::ShrVar => Op::Shr(amount?),
            Op::RotlVar => Op::Rotl(amount?),
            Op::RotrVar => Op::Rotr(amount?),
            _ => return None,
        })
    }

    /// Number of operands.
    pub fn arity(self) -> usize {
        use Op::*;
        match self {
            Neg | Square | ScalarMul(_) | Abs | Signum | Round(_) | Not | Shl(_) | Shr(_)
            | Rotl(_) | Rotr(_) | DivScalar(_) | RemScalar(_) | Cast(_) | ReverseBits => 1,
            CountOnes | CountZeros | LeadingZeros | LeadingOnes | TrailingZeros | TrailingOnes
            | Ilog2 => 1,
            Select => 3,
            _ => 2,
        }
    }

    /// Whether `a op b == b op a` for every `a` and `b`.
    pub fn commutes(self) -> bool {
        use Op::*;
        matches!(
            self,
            Add | Mul | MulLow | And | Or | Xor | Min | Max | Cmp(Relation::Eq | Relation::Ne)
        )
    }

    /// Whether the operation is a comparison.
    pub fn is_comparison(self) -> bool {
        matches!(self, Op::Cmp(_))
    }

    /// The type of the result for typed operands of type `ty`.
    pub fn result_type(self, ty: IntType) -> IntType {
        match self {
            Op::Cmp(_) => IntType::BOOL,
            Op::Cast(t) => t,
            op if op.is_bit_count() => IntType {
                bits: 32,
                signed: false,
            },
            _ => ty,
        }
    }

    /// Whether the operation counts bits of its operand ([`Op::CountOnes`] to
    /// [`Op::Ilog2`]): its result is a `u32` whatever the operand's type, as in Rust and
    /// TFHE-rs.
    pub fn is_bit_count(self) -> bool {
        use Op::*;
        matches!(
            self,
            CountOnes
                | CountZeros
                | LeadingZeros
                | LeadingOnes
                | TrailingZeros
                | TrailingOnes
                | Ilog2
        )
    }

    /// Whether the typed planner builds the operation (`abs`, `floordiv` and `mod` of
    /// typed values are compositions of these, made by the typed family).
    pub fn on_typed(self) -> bool {
        !self.algorithms().is_empty()
    }

    /// Whether the exact integers' circuits build the operation.
    pub fn on_exact(self) -> bool {
        use Op::*;
        matches!(
            self,
            Add | Sub
                | Neg
                | Mul
                | MulLow
                | ScalarMul(_)
                | Square
                | Signum
                | Max
                | Min
                | Abs
                | Round(_)
                | Cmp(_)
                | And
                | Or
                | Xor
                | FloorDiv
                | Mod
                | Shl(_)
                | Shr(_)
                | Select
        )
    }

    /// `Ok` when the exact integers' circuits build the operation on `operands` operands;
    /// else the error that says which of the two is wrong.
    ///
    /// ```
    /// use encint_arith::Op;
    /// assert!(Op::Add.check_exact(2).is_ok());
    /// assert!(Op::Add.check_exact(1).is_err());
    /// assert!(Op::Not.check_exact(1).is_err());
    /// ```
    pub fn check_exact(self, operands: usize) -> Result<(), TypedError> {
        if !self.on_exact() {
            return Err(TypedError::NotAnOperation {
                op: self,
                on: "exact integers",
            });
        }
        if operands != self.arity() {
            return Err(TypedError::Arity {
                expected: self.arity(),
                found: operands,
            });
        }
        Ok(())
    }

    /// The algorithms of the typed planner that implement the operation (none: the
    /// typed planner does not build it).
    pub fn algorithms(self) -> &'static [Algorithm] {
        use Op::*;
        match self {
            Mul | Square | Add | Sub | Neg | Not | Select | ScalarMul(_) | Shl(_) => {
                &[Algorithm::Digits, Algorithm::Bits, Algorithm::Blocks]
            }
            Cmp(_) | And | Or | Xor | Min | Max => &[Algorithm::Bits, Algorithm::Blocks],
            Shr(_) | Rotl(_) | Rotr(_) | ShlVar | ShrVar | RotlVar | RotrVar | Cast(_) => {
                &[Algorithm::Bits, Algorithm::Blocks]
            }
            DivScalar(_) | RemScalar(_) => &[Algorithm::Bits, Algorithm::Magic],
            Div | Rem => &[Algorithm::Bits, Algorithm::Blocks],
            CountOnes | CountZeros | LeadingZeros | LeadingOnes | TrailingZeros | TrailingOnes => {
                &[Algorithm::Bits, Algorithm::Blocks]
            }
            Ilog2 | ReverseBits => &[Algorithm::Bits],
            MulLow | FloorDiv | Mod | Abs | Signum | Round(_) => &[],
        }
    }
}

/// Every operation but [`Op::Cast`] and the comparisons once, with a sample scalar, and
/// its name.
const NAMED_SAMPLES: [(Op, &str); 39] = {
    use Op::*;
    [
        (Add, "add"),
        (Sub, "sub"),
        (Neg, "neg"),
        (Mul, "mul"),
        (MulLow, "mul_low"),
        (Square, "squ"),
        (ScalarMul(805), "scalar_mul"),
        (Div, "div"),
        (Rem, "rem"),
        (DivScalar(7), "div_scalar"),
        (RemScalar(7), "rem_scalar"),
        (FloorDiv, "floordiv"),
        (Mod, "mod"),
        (Abs, "abs"),
        (Signum, "sgn"),
        (Round(2), "round"),
        (Min, "min"),
        (Max, "max"),
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
        (CountOnes, "count_ones"),
        (CountZeros, "count_zeros"),
        (LeadingZeros, "leading_zeros"),
        (LeadingOnes, "leading_ones"),
        (TrailingZeros, "trailing_zeros"),
        (TrailingOnes, "trailing_ones"),
        (Ilog2, "ilog2"),
        (ReverseBits, "reverse_bits"),
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
    /// (the radix-4 block circuits); the result as bits.
    Blocks,
    /// Division and remainder by a clear scalar only: conversion to bits, then a
    /// multiplication by a precomputed reciprocal ("magic number") and a shift, the
    /// remainder as `x - k·q` (widths up to 64 bits).
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
    Unsupported(Op, Algorithm),
    /// The operation does not exist on this kind of integer.
    #[error("`{op}` is not an operation of {on}")]
    NotAnOperation {
        /// The operation.
        op: Op,
        /// Where it was asked for (`typed integers`, `exact integers`).
        on: &'static str,
    },
    /// An operation name or argument that does not parse.
    #[error("{0}")]
    Argument(String),
}
