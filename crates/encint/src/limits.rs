//! Resource limits checked before a circuit is built, and before an array's ciphertexts
//! are allocated ([`MAX_CIPHERTEXT_BYTES`]).
//!
//! Building a circuit costs memory (a few hundred bytes per node) and time before
//! anything runs, so every entry point checks an *estimate* first: the output width in
//! digits (at most [`MAX_DIGITS`]) and the circuit nodes an operation
//! adds (the total at most the server's node limit). The estimates here are upper bounds
//! of what the builders of `encint-arith` create (measured, then checked by this crate's
//! tests on random shapes), in overflow-safe (saturating) arithmetic: an operation that
//! would pass a limit is refused with [`Error::LimitExceeded`] before any node exists.
//!
//! [`Server::apply`](crate::Server::apply) and the traced mode ([`crate::Tracer`]: each
//! recorded operation, with the running node count) use them, and so do the Python
//! package's operators and traces.

use crate::keys::DigitParameters;
use crate::{Error, Op, Result};
use encint_arith::typed::{Form, IntType};

/// Most digits an [`EncInt`](crate::EncInt) may have: checked on encryption, on decoding and on every
/// operation's output before it runs (so the server never writes a ciphertext that the
/// client cannot read back).
pub const MAX_DIGITS: usize = 4096;

/// Default largest circuit a [`Server`](crate::Server) builds or runs, in nodes (about 2·10⁶: a
/// 512 × 512-digit product has 0.63·10⁶ nodes; each node costs a few hundred bytes while
/// building). Raise it with [`Server::set_max_nodes`](crate::Server::set_max_nodes).
pub const DEFAULT_MAX_NODES: u64 = encint_core::circuit::DEFAULT_MAX_NODES;

/// Most memory, in bytes, that the ciphertexts of one array may take where an array is
/// made from clear values (an array's encryption, an encrypted value combined with a clear
/// array): 4 GiB, 65,536 values of 8 bits in radix-4 blocks (4 digits of 16 KiB each with
/// the default parameters). Larger requests are refused by [`check_ciphertexts`] before
/// anything is allocated; encrypt such data in parts.
pub const MAX_CIPHERTEXT_BYTES: u64 = 1 << 32;

/// The element count of an array of `shape` (the product of its dimensions);
/// [`Error::LimitExceeded`] where the product passes `usize::MAX`.
///
/// # Examples
///
/// ```
/// use encint::limits::element_count;
///
/// assert_eq!(element_count(&[4, 3, 2])?, 24);
/// assert_eq!(element_count(&[])?, 1); // a single value
/// assert!(matches!(
///     element_count(&[1 << 32, 1 << 32, 1 << 32]),
///     Err(encint::Error::LimitExceeded(_))
/// ));
/// # Ok::<(), encint::Error>(())
/// ```
pub fn element_count(shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| {
            Error::LimitExceeded(format!(
                "an array of shape {shape:?} has more than {} elements",
                usize::MAX
            ))
        })
}

/// Bytes of the ciphertexts of `count` values of `ty` in `form` with the parameters
/// `params` (their digits times [`DigitParameters::digit_bytes`], saturating).
pub fn ciphertext_bytes(count: u64, ty: IntType, form: Form, params: &DigitParameters) -> u64 {
    count
        .saturating_mul(u(form.digits(ty)))
        .saturating_mul(params.digit_bytes())
}

/// Errors ([`Error::LimitExceeded`], naming `what`) if `count` values of `ty` in `form`
/// would take more than [`MAX_CIPHERTEXT_BYTES`] of ciphertexts with `params`.
pub fn check_ciphertexts(
    what: &str,
    count: u64,
    ty: IntType,
    form: Form,
    params: &DigitParameters,
) -> Result<()> {
    let bytes = ciphertext_bytes(count, ty, form, params);
    if bytes > MAX_CIPHERTEXT_BYTES {
        return Err(Error::LimitExceeded(format!(
            "{what}: {count} values of {ty} would take {bytes} bytes of ciphertexts, more than \
             the {MAX_CIPHERTEXT_BYTES} allowed (encint::limits::MAX_CIPHERTEXT_BYTES); \
             encrypt in parts"
        )));
    }
    Ok(())
}

/// An upper bound on what one operation builds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Estimate {
    /// Digits of its output.
    pub width: u64,
    /// Circuit nodes it adds (its inputs not counted).
    pub nodes: u64,
}

impl Estimate {
    /// An estimate of `width` output digits and `nodes` nodes.
    pub fn new(width: u64, nodes: u64) -> Self {
        Estimate { width, nodes }
    }

    /// The estimate of `self` followed by `next` (the width of `next`, the nodes of both).
    pub fn then(self, next: Estimate) -> Estimate {
        Estimate {
            width: next.width,
            nodes: self.nodes.saturating_add(next.nodes),
        }
    }

    /// `self` with `nodes` more nodes.
    pub fn plus_nodes(self, nodes: u64) -> Estimate {
        Estimate {
            width: self.width,
            nodes: self.nodes.saturating_add(nodes),
        }
    }
}

/// The limits an operation is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most digits of a value ([`MAX_DIGITS`] by default).
    pub max_digits: u64,
    /// Most nodes of a circuit ([`DEFAULT_MAX_NODES`] by
    /// default).
    pub max_nodes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_digits: MAX_DIGITS as u64,
            max_nodes: DEFAULT_MAX_NODES,
        }
    }
}

impl Limits {
    /// Errors ([`Error::LimitExceeded`], naming `what`) if an operation of estimate `est`,
    /// added to a circuit of `nodes_so_far` nodes, passes a limit.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::limits::{self, Limits};
    /// use encint::Op;
    ///
    /// let limits = Limits::default();
    /// // A product of two 16-digit integers is far within the limits...
    /// limits.check("a product", limits::op(Op::Mul, 16, 16), 0)?;
    /// // ...one of two 4096-digit integers would have more digits than any value may.
    /// let est = limits::op(Op::Mul, 4096, 4096);
    /// assert!(est.width > encint::MAX_DIGITS as u64);
    /// assert!(limits.check("a product", est, 0).is_err());
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn check(&self, what: &str, est: Estimate, nodes_so_far: u64) -> Result<()> {
        if est.width > self.max_digits {
            return Err(Error::LimitExceeded(format!(
                "{what} would give an output of up to {} digits, more than the {} allowed",
                est.width, self.max_digits
            )));
        }
        let total = nodes_so_far.saturating_add(est.nodes);
        if total > self.max_nodes {
            return Err(Error::LimitExceeded(format!(
                "{what} would bring the circuit to about {total} nodes, more than the {} \
                 allowed",
                self.max_nodes
            )));
        }
        Ok(())
    }
}

fn u(x: usize) -> u64 {
    u64::try_from(x).unwrap_or(u64::MAX)
}

/// Bits of `x` (0 for 0).
fn bit_len(x: u64) -> u64 {
    u64::from(u64::BITS - x.leading_zeros())
}

/// `a · x + c`, saturating.
fn lin(a: u64, x: u64, c: u64) -> u64 {
    a.saturating_mul(x).saturating_add(c)
}

/// The estimate of [`Arith::apply`](crate::Arith::apply) on operands of `n` and `m` digits (`m` unused by the
/// one-operand operations).
pub fn op(op: Op, n: usize, m: usize) -> Estimate {
    let (n, m) = (u(n), u(m));
    let hi = n.max(m);
    let both = n.saturating_add(m);
    match op {
        Op::Add | Op::Sub => Estimate::new(hi.saturating_add(1), lin(6, both, 32)),
        Op::Neg => Estimate::new(n, n),
        Op::Mul => Estimate::new(
            both.saturating_add(bit_len(n.min(m))).saturating_add(1),
            lin(7, n.saturating_mul(m), lin(16, both, 64)),
        ),
        Op::MulLow => Estimate::new(hi, lin(7, n.saturating_mul(m), lin(16, both, 64))),
        Op::Square => Estimate::new(
            lin(2, n, bit_len(n).saturating_add(1)),
            lin(7, n.saturating_mul(n), lin(16, n, 64)),
        ),
        Op::ScalarMul(k) => {
            let kb = u64::from(u128::BITS - k.unsigned_abs().leading_zeros());
            // At most one sum term per two scalar bits (signed digits: one more bit),
            // summed as a balanced tree.
            let terms = kb / 2 + 2;
            let width = n
                .saturating_add(kb)
                .saturating_add(bit_len(terms))
                .saturating_add(2);
            Estimate::new(width, lin(5 * terms, width, 64))
        }
        Op::Signum => Estimate::new(1, lin(2, n, 8)),
        Op::Max | Op::Min => Estimate::new(hi, lin(12, both, 48)),
        Op::Abs => Estimate::new(n, lin(3, n, 16)),
        Op::Round(_) => Estimate::new(n.saturating_add(1), lin(5, n, 16)),
        Op::Cmp(_) => Estimate::new(1, lin(8, both, 32)),
        Op::And | Op::Or | Op::Xor | Op::FloorDiv | Op::Mod => bitwise(op, n, m),
        Op::Shl(k) => shift_left(n as usize, k as usize),
        Op::Shr(_) => {
            let w = n.saturating_add(1);
            Estimate::new(
                w,
                conversions(n as usize, w as usize)
                    .saturating_add(word(WordOp::ShiftConst, w as usize)),
            )
        }
        // A one-digit condition (see `op_on` for wider ones).
        Op::Select => select(1, n as usize, m as usize),
        // Not built on exact integers (refused before anything is built).
        _ => Estimate::new(0, 0),
    }
}

/// The estimate of `op` on exact operands of these widths in digits (a selection's
/// condition first).
pub fn op_on(op: Op, widths: &[usize]) -> Estimate {
    let at = |i: usize| widths.get(i).copied().unwrap_or(0);
    match op {
        Op::Select => select(at(0), at(1), at(2)),
        _ => self::op(op, at(0), at(1)),
    }
}

/// The estimate of `b + c·(a - b)` on `c`, `a`, `b` of these widths.
fn select(c: usize, a: usize, b: usize) -> Estimate {
    let d = op(Op::Sub, a, b);
    let dw = usize::try_from(d.width).unwrap_or(usize::MAX);
    let p = op(Op::Mul, c, dw);
    let pw = usize::try_from(p.width).unwrap_or(usize::MAX);
    d.then(p).then(op(Op::Add, b, pw))
}

/// The estimate of one of Python's bit operators `& | ^ // %` on exact integers of `n`
/// and `m` digits (through two's complement of `max(n, m) + 2` bits).
fn bitwise(op: Op, n: u64, m: u64) -> Estimate {
    let w = n.max(m).saturating_add(2);
    let nodes = conversions(n as usize, w as usize)
        .saturating_add(conversions(m as usize, w as usize))
        .saturating_add(word_op(op, true, w as usize));
    Estimate::new(w, nodes)
}

/// Nodes of one of Python's bit operators (`& | ^ // % << >>`) on words of `w` bits, a
/// signed floor division with its sign fix.
pub fn word_op(op: Op, signed: bool, w: usize) -> u64 {
    let kind = match op {
        Op::And | Op::Or | Op::Xor => WordOp::Bitwise,
        Op::FloorDiv | Op::Mod => WordOp::DivRem,
        _ => WordOp::ShiftVar,
    };
    let main = word(kind, w);
    if signed && matches!(op, Op::FloorDiv | Op::Mod) {
        // any, two sign bits, sub, add, two selects
        [
            WordOp::Any,
            WordOp::Sub,
            WordOp::Add,
            WordOp::Select,
            WordOp::Select,
        ]
        .iter()
        .fold(main, |acc, &k| acc.saturating_add(word(k, w)))
        .saturating_add(16)
    } else {
        main
    }
}

/// The estimate of a boolean stage of `w`-bit words computing `op` (its constants
/// included).
pub fn stage(op: WordOp, w: usize, out_width: usize) -> Estimate {
    Estimate::new(
        out_width as u64,
        word(op, w).saturating_add(w as u64).saturating_add(8),
    )
}

/// The estimate of a balanced sum of `count` terms of at most `width` digits.
///
/// # Examples
///
/// ```
/// use encint::limits;
///
/// // A sum of 16 values below 2^8 in size stays below 16 · 2^8 = 2^12: the estimate's
/// // width is an upper bound, so at least 12 digits.
/// let est = limits::sum(16, 8);
/// assert!(est.width >= 12);
/// assert!(est.nodes > 0);
/// ```
pub fn sum(count: usize, width: usize) -> Estimate {
    let w = u(width).saturating_add(bit_len(u(count))).saturating_add(1);
    let adds = u(count).saturating_sub(1);
    Estimate::new(
        w,
        adds.saturating_mul(op(Op::Add, w as usize, w as usize).nodes),
    )
}

/// A word operation of the boolean layer (`encint_arith::bits`), lowered to digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordOp {
    /// `and`, `or`, `xor` of two words.
    Bitwise,
    /// `not`.
    Not,
    /// Addition.
    Add,
    /// Subtraction.
    Sub,
    /// Negation.
    Neg,
    /// Absolute value.
    Abs,
    /// Product (wrapping).
    Mul,
    /// Quotient and remainder (signed or unsigned).
    DivRem,
    /// Shift or rotation by an encrypted amount.
    ShiftVar,
    /// Shift by a known amount (wiring only).
    ShiftConst,
    /// An ordering comparison (`<`, signed or unsigned).
    Compare,
    /// Equality.
    Eq,
    /// Whether any bit is set.
    Any,
    /// A selection between two words by a bit.
    Select,
}

/// Nodes a [`WordOp`] on words of `width` bits adds once lowered into a digit circuit.
pub fn word(op: WordOp, width: usize) -> u64 {
    let w = u(width);
    match op {
        WordOp::Bitwise | WordOp::Add => lin(2, w, 8),
        WordOp::Not | WordOp::ShiftConst => lin(1, w, 8),
        WordOp::Sub | WordOp::Neg | WordOp::Compare | WordOp::Any => lin(3, w, 8),
        WordOp::Abs | WordOp::Eq | WordOp::Select => lin(4, w, 8),
        WordOp::Mul => lin(2, w.saturating_mul(w), lin(8, w, 8)),
        WordOp::DivRem => lin(6, w.saturating_mul(w), lin(32, w, 16)),
        WordOp::ShiftVar => lin(3 * (bit_len(w) + 2), w, 16),
    }
}

/// Nodes of the conversion of `digits` signed binary digits into `width` bits of two's
/// complement, and of those bits back into digits.
pub fn conversions(digits: usize, width: usize) -> u64 {
    lin(8, u(digits).saturating_add(u(width)), 16)
}

/// The estimate of `x << k` on `n` digits as a chain of products by `2^s`, `s ≤ 62` (a
/// product by a power of two only moves digits: `n + k` output digits).
pub fn shift_left(n: usize, k: usize) -> Estimate {
    let width = u(n).saturating_add(u(k));
    let steps = u(k).div_ceil(62);
    Estimate::new(width, steps.saturating_mul(lin(1, width, 8)))
}
