//! # encint-core
//!
//! The foundation of encint: signed binary representations and recodings,
//! free-doubling addition-subtraction chains, the circuit IR over encrypted
//! 5-bit digits, the clear executor and the cost model.
//!
//! Algorithms (in `encint-arith`) build [`circuit::Circuit`]s with a
//! [`circuit::Builder`]; executors (backends of the level walker in [`exec`]) run them. Nothing here touches cryptography.
#![deny(missing_docs)]

/// Declares a node index of a circuit: a `u32` newtype, ordered and hashable, with
/// `index()` giving it as `usize`.
macro_rules! node_index {
    ($(#[doc = $doc:literal])* $name:ident) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            /// The index as `usize`.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

pub mod bits;
pub mod chains;
pub mod circuit;
mod error;
pub mod exec;
mod ids;
pub mod lut;
pub mod memo;
pub mod recode;
pub mod signed;

pub use error::CoreError;
pub use exec::clear;
