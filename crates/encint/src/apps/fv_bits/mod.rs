//! Bit-sliced binary arithmetic on FV: the boolean circuits of
//! [`encint_arith::bits`] run on FV ciphertexts whose slots each hold one bit of a
//! different integer.
//!
//! Layout: bit `i` of integer `r` is slot `r` of ciphertext `i` (little-endian two's
//! complement), so one [`FvWord`] of width `w` is `w` ciphertexts and holds up to `n`
//! integers (`n` = ring degree: 8192, 16384 or 32768 slots). Over `Z_t` with the batching
//! prime `t = 65537` (`t = 1 mod 2n` up to `n = 2^15`): AND = `ab` (one product and a
//! relinearisation), XOR = `a + b - 2ab`, OR = `a + b - ab`, MUX = `o + s(t - o)`,
//! NOT = `1 - a`, constants are plaintexts added to a ciphertext. A full adder
//! (XOR3 and MAJ of the same bits) costs two products: `ab` and `(a ⊕ b)c`. With
//! `t = 2` the power-of-two ring `X^n + 1` has a single slot (`X^n + 1 = (X + 1)^n` mod 2),
//! which is why the slots need a large prime `t` and every bit holds 0 or 1 of `Z_t`.
//!
//! The executor ([`FvBitsServerKey::run`]) compiles a circuit into products and linear
//! combinations ([`FvProgram`]), knows its multiplicative depth before running, and runs
//! it level by level: all products of a level are independent and run in parallel on
//! rayon's threads, values are freed after their last use.
//!
//! Parameter choice ([`choose_set`]): the smallest 128-bit set (HomomorphicEncryption.org
//! table, see [`FvBitSet`]) whose measured practical depth covers the circuit's depth, or
//! [`FvBitsError::DepthTooLarge`] naming the depth needed and the largest available, before
//! any key exists.
//!
//! After J. Chen, Y. Feng, Y. Liu and W. Wu, *Faster Binary Arithmetic Operations on
//! Encrypted Integers*.
//!
//! Files: `sets` (parameter sets), `program` (circuit → products and linear combinations),
//! `keys` (keys, words, encryption), `ints` (integers in slots and polynomials of them), `run` (the level-by-level executor and eager
//! operations), `wire` (serialization).
//!
//! ```no_run
//! use encint::fv_bits::{choose_set, FvBitsClientKey, FvProgram};
//! use encint_arith::bits::{leveled, Word};
//! use encint_core::bits::BitBuilder;
//!
//! // The circuit first, then the parameter set, then the keys.
//! let mut b = BitBuilder::new();
//! let (x, y) = (Word::input(&mut b, 16), Word::input(&mut b, 16));
//! let s = leveled::add_sklansky(&mut b, &x, &y, None);
//! let circuit = b.finish(s.bits);
//! let depth = FvProgram::compile(&circuit).unwrap().depth();
//! let set = choose_set(depth).unwrap();
//! let (client, server) = FvBitsClientKey::generate(&set).unwrap();
//! let a = client.encrypt(&[1, 2, 60000], 16, false).unwrap();
//! let c = client.encrypt(&[5, 7, 10000], 16, false).unwrap();
//! let sum = server.add(&a, &c).unwrap();
//! assert_eq!(client.decrypt(&sum).unwrap(), vec![6, 9, 4464]);
//! ```

mod ints;
mod keys;
mod program;
mod run;
mod sets;
mod wire;

use encint_fv::bfv::Variant;
pub(crate) use ints::centre;
pub use ints::{FvInts, SlotPoly, SLOT_MODULUS};
pub use keys::{FvBitsClientKey, FvBitsServerKey, FvWord};
pub use program::FvProgram;
pub use run::RunStats;
pub use sets::{choose_set, plan_adder, sets, FvBitSet};

use encint_fv::FvError;
use encint_tfhe::EnvelopeError;

/// The FV variant the bit executor uses: HPS, the fastest multiplication with
/// relinearisation at sets A and B (`n = 2^13, 2^14`, the sizes of the first two 128-bit
/// sets) in docs/FV.md; the 128-bit sets themselves were not benchmarked per variant.
pub const VARIANT: Variant = Variant::Hps;

/// Errors of the bit-sliced FV layer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FvBitsError {
    /// No 128-bit parameter set covers the circuit's multiplicative depth.
    #[error("the circuit needs multiplicative depth {needed}; the largest 128-bit set ({set}) covers {largest}")]
    DepthTooLarge {
        /// Depth the circuit needs (plus the depth its inputs already used).
        needed: u32,
        /// Usable depth of the largest set.
        largest: u32,
        /// Name of the largest set.
        set: String,
    },
    /// The keys' parameter set does not cover the circuit's depth.
    #[error("the circuit needs multiplicative depth {needed} (inputs at level {input_level}); set {set} covers {available}")]
    DepthExceedsKeys {
        /// Depth of the circuit.
        needed: u32,
        /// Depth already used by the inputs.
        input_level: u32,
        /// Usable depth of the keys' set.
        available: u32,
        /// Set name.
        set: String,
    },
    /// A word of another key set (or parameter set) was given.
    #[error("word of key set {found:#018x}, expected {expected:#018x}")]
    WrongKeySet {
        /// This key's id.
        expected: u64,
        /// The word's key id.
        found: u64,
    },
    /// A slot decrypted to something other than 0 or 1 (noise overflow or a foreign word).
    #[error("bit {bit} of slot {slot} decrypted to {value}, not 0 or 1")]
    NotABit {
        /// Bit position.
        bit: usize,
        /// Slot.
        slot: usize,
        /// Decrypted value.
        value: u64,
    },
    /// A value, width or shape is out of range.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// The FV layer refused an operation.
    #[error(transparent)]
    Fv(#[from] FvError),
    /// Serialized bytes could not be read or written (wrong kind, set or version, or
    /// malformed).
    #[error("serialization: {0}")]
    Envelope(#[from] EnvelopeError),
}

/// Result of this module.
pub type Result<T> = std::result::Result<T, FvBitsError>;
