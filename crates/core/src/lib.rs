//! # encint-core
//!
//! The foundation of encint: signed binary representations and recodings,
//! free-doubling addition-subtraction chains, the circuit IR over encrypted
//! 5-bit digits, the clear executor and the cost model.
//!
//! Algorithms (in `encint-arith`) build [`circuit::Circuit`]s with a
//! [`circuit::Builder`]; executors (backends of the level walker in [`exec`]) run them. Nothing here touches cryptography.
#![deny(missing_docs)]

pub mod bits;
pub mod chains;
pub mod circuit;
mod error;
pub mod exec;
pub mod lut;
pub mod recode;
pub mod signed;

pub use error::CoreError;
pub use exec::clear;
