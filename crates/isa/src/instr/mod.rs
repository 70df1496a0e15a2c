//! The instruction set: every instruction is a function that records its circuit in a
//! [`Builder`]. [`emit`] dispatches by mnemonic (case-insensitive) and [`signatures`] lists
//! every instruction with its operand kinds, for the assembler and `--help`.
//!
//! Noise discipline: every operand nibble may carry quadratic weight up to [`MAX_OPERAND_QWEIGHT`]
//! and every result nibble has at most that weight (instructions refresh a result with an
//! identity bootstrap only when it would exceed it), so instructions compose without any
//! bootstrap input exceeding the budget. The budget is the parameter set's: instructions
//! read it from the builder ([`Builder::with_budget`]) and refuse a builder without one.

use std::sync::Arc;

use encint_core::circuit::{Builder, NodeId};

use crate::{Byte, Fixed, IsaError};

pub mod bits;
pub mod common;
pub mod fixed;
mod operands;
pub mod signed;
pub mod unsigned;

/// Largest quadratic weight of an operand or result nibble.
pub const MAX_OPERAND_QWEIGHT: u64 = 4;

/// Kind of an operand or result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// An encrypted byte (booleans are bytes holding 0 or 1).
    Byte,
    /// An encrypted 16-bit fixed-point value.
    Fixed,
    /// A clear immediate (a byte value; signed instructions accept -128..=127).
    Imm,
    /// A clear user table of 256 entries (XOP: bytes, XOPN: nibbles).
    Table,
    /// Eight encrypted bits (least significant first), from bit decomposition.
    Bits,
}

/// An operand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// An encrypted byte.
    Byte(Byte),
    /// An encrypted fixed-point value.
    Fixed(Fixed),
    /// A clear immediate.
    Imm(i64),
    /// A clear table of 256 entries.
    Table(Arc<[u16; 256]>),
    /// Eight encrypted bits, least significant first.
    Bits(Vec<NodeId>),
}

/// A result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// An encrypted byte.
    Byte(Byte),
    /// An encrypted fixed-point value.
    Fixed(Fixed),
    /// Eight encrypted bits, least significant first.
    Bits(Vec<NodeId>),
}

/// The signature of an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    /// Mnemonic, upper case (e.g. `"ADDI"`).
    pub name: &'static str,
    /// Operand kinds, in order.
    pub args: &'static [Kind],
    /// Result kind.
    pub result: Kind,
    /// One-line description.
    pub doc: &'static str,
}

impl Signature {
    /// A signature from its parts.
    pub const fn new(
        name: &'static str,
        args: &'static [Kind],
        result: Kind,
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            args,
            result,
            doc,
        }
    }
}

/// Every instruction.
pub fn signatures() -> Vec<Signature> {
    let mut all = Vec::new();
    all.extend_from_slice(unsigned::SIGNATURES);
    all.extend_from_slice(signed::SIGNATURES);
    all.extend_from_slice(fixed::SIGNATURES);
    all.extend_from_slice(bits::SIGNATURES);
    all
}

/// The signature of `name` (case-insensitive).
pub fn signature(name: &str) -> Option<Signature> {
    let upper = name.to_ascii_uppercase();
    signatures().into_iter().find(|s| s.name == upper)
}

/// Records instruction `name` on `args` and returns its result.
pub fn emit(b: &mut Builder, name: &str, args: &[Arg]) -> Result<Value, IsaError> {
    let sig = signature(name).ok_or_else(|| IsaError::UnknownInstruction(name.to_string()))?;
    if args.len() != sig.args.len() || args.iter().zip(sig.args).any(|(a, k)| kind_of(a) != *k) {
        return Err(IsaError::BadOperands {
            name: sig.name.to_string(),
            message: format!("expected operands {:?}", sig.args),
        });
    }
    let emitted = unsigned::emit(b, sig.name, args)
        .or_else(|| signed::emit(b, sig.name, args))
        .or_else(|| fixed::emit(b, sig.name, args))
        .or_else(|| bits::emit(b, sig.name, args));
    emitted.unwrap_or_else(|| Err(IsaError::UnknownInstruction(sig.name.to_string())))
}

/// The kind of an operand.
pub fn kind_of(a: &Arg) -> Kind {
    match a {
        Arg::Byte(_) => Kind::Byte,
        Arg::Fixed(_) => Kind::Fixed,
        Arg::Imm(_) => Kind::Imm,
        Arg::Table(_) => Kind::Table,
        Arg::Bits(_) => Kind::Bits,
    }
}
