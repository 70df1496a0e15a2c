//! encint-isa: an 8-bit processor over encrypted nibbles, after Trama, Clet, Boudguiga and
//! Sirdey, "Designing a General-Purpose 8-bit (T)FHE Processor Abstraction".
//!
//! A byte is two nibbles (most significant first), each one encrypted digit holding a value
//! in `0..16`. Every instruction is a circuit in the IR of `encint-core`: univariate tables
//! are plain bootstraps ([`encint_core::circuit::Builder::lut`], `SimpleBoot`), bivariate
//! ones tree LUTs ([`encint_core::circuit::Builder::tree`], `LUTeval`/`MVLUTeval`), plus
//! free linear operations. The clear executor runs them exactly as the encrypted one does,
//! so a program's result and cost are known before any encryption.
#![deny(missing_docs)]

pub mod asm;
pub mod instr;
pub mod vm;

use encint_core::circuit::NodeId;

/// An 8-bit value as two nibbles: `16·hi + lo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Byte {
    /// Most significant nibble.
    pub hi: NodeId,
    /// Least significant nibble.
    pub lo: NodeId,
}

/// A 16-bit fixed-point value (Trama et al. §5.2): `int + frac / 256`, where `int` is an
/// unsigned or two's complement byte and `frac` an unsigned byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fixed {
    /// Integer part.
    pub int: Byte,
    /// Fractional part, in 256ths.
    pub frac: Byte,
}

/// Errors of the instruction set, assembler and VM.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IsaError {
    /// Unknown instruction mnemonic.
    #[error("unknown instruction `{0}`")]
    UnknownInstruction(String),
    /// Operands do not match the instruction's signature.
    #[error("instruction `{name}`: {message}")]
    BadOperands {
        /// The mnemonic.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// An error from the circuit layer.
    #[error(transparent)]
    Core(#[from] encint_core::CoreError),
    /// The circuit builder carries no noise budget (instructions choose their refreshes by
    /// the parameter set's budget).
    #[error(
        "the circuit builder has no noise budget: make it with \
         Builder::with_budget(parameters.max_quadratic_weight())"
    )]
    NoBudget,
}
