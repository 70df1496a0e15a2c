//! encint-tfhe: the crypto layer of encint.
//!
//! Exact arithmetic on encrypted integers is built from signed-binary digits in `Z_32`
//! (Parmesan-style). This crate provides the TFHE primitives on top of TFHE-rs `core_crypto`:
//!
//! * [`DigitParameters`] / [`DEFAULT_PARAMETERS`]: the parameter set and the `Δ = 2^59`
//!   encoding without padding bit (module [`params`]);
//! * [`ClientKey`] (secret, zeroized on drop) and [`ServerKey`] (bootstrapping and keyswitching
//!   keys, cheap to clone);
//! * [`Digit`]: an LWE ciphertext of one digit under the big (GLWE-derived) key, with linear
//!   operations that need no bootstrap;
//! * [`NegacyclicLut`] and [`ServerKey::bootstrap`] / [`ServerKey::bootstrap_batch`]: keyswitch
//!   followed by a programmable bootstrap evaluating a negacyclic table;
//! * [`envelope`]: versioned, checked, bounded serialization of keys and ciphertexts;
//! * [`io`]: seeded input of digits and nibbles (seeded LWE lists) and packed output
//!   (packed, modulus-switched GLWE);
//! * [`public`]: public-key encryption (a compact public key, digits encrypted as one
//!   compact list);
//! * [`compressed`]: server keys with seeded masks (half the bootstrapping key, a
//!   keyswitching key of bodies only), decompressed on load;
//! * [`roles`]: which key a key envelope holds (server, tree or packing key, also in the
//!   files of earlier releases).
//!
//! # Threads
//!
//! [`ServerKey::bootstrap_batch`] runs on the *current* rayon pool: call it inside
//! `rayon::ThreadPool::install` to choose the thread count. Every thread keeps its own
//! bootstrap scratch memory (thread-local, allocated on the first bootstrap of that thread and
//! reused afterwards).
#![deny(missing_docs)]

/// Declares a type that serde reads through a checked twin: `$name` with its serialized
/// fields (and, last, the fields serde skips), and `$wire`, a private struct of the same
/// serialized fields that serde decodes before `TryFrom<$wire> for $name` checks it. The
/// attributes (docs, derives, `#[serde(try_from = "...")]`) go to `$name`; with `debug
/// params_id` the `Debug` of `$name` shows its parameter set only. With `checked by f` (a
/// type without skipped fields) the `TryFrom` is written here: `f(&wire)` accepts or
/// refuses the decoded fields, which then move into `$name` as they are.
macro_rules! checked_wire {
    (@try_from $name:ident $wire:ident [] $($field:ident)+) => {};
    (@try_from $name:ident $wire:ident [$check:ident] $($field:ident)+) => {
        impl TryFrom<$wire> for $name {
            type Error = String;

            fn try_from(w: $wire) -> Result<Self, String> {
                $check(&w)?;
                Ok($name { $($field: w.$field,)+ })
            }
        }
    };
    (
        $(#[$attr:meta])*
        pub struct $name:ident via $wire:ident {
            $($field:ident: $ty:ty,)+
            $(#[serde(skip)] $skip:ident: $skip_ty:ty,)*
        }
        $(checked by $check:ident)?
        $(debug $params:ident)?
    ) => {
        $(#[$attr])*
        pub struct $name {
            $($field: $ty,)+
            $(#[serde(skip)] $skip: $skip_ty,)*
        }

        #[derive(serde::Deserialize)]
        struct $wire {
            $($field: $ty,)+
        }

        checked_wire!(@try_from $name $wire [$($check)?] $($field)+);

        $(
            impl std::fmt::Debug for $name {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.debug_struct(stringify!($name))
                        .field("params", &self.$params)
                        .finish_non_exhaustive()
                }
            }
        )?
    };
}

mod bootstrap;
pub mod compressed;
mod digit;
pub mod envelope;
pub mod io;
mod keys;
mod memory;
pub mod params;
pub mod public;
mod random;
pub mod roles;
mod scratch;
mod tree;

pub use bootstrap::{test_polynomial, Reading};
pub use compressed::CompressedServerKey;
pub use digit::{signed_rep, Digit, NegacyclicLut};
pub use envelope::{EnvelopeError, Kind, Validate};
pub use io::{IoError, PackedNibbles, PackingKey, SeededDigits, SeededNibbles, Upload};
pub use keys::{ClientKey, KeySetId, ServerKey};
pub use memory::retain_freed_memory;
pub use params::{DigitParameters, Keyswitch, DEFAULT_PARAMETERS, KS64_PARAMETERS};
pub use public::{CompactDigits, PublicKey};
pub use roles::{
    key_kind, open_packing_key, open_server_key, open_tree_key, seal_packing_key, seal_tree_key,
};
pub use tree::{
    Accumulator, Table256, TreeKey, FIRST_LEVEL_QWEIGHT_BOUND, PACKING_BASE_LOG, PACKING_LEVEL,
    PRECISE_PBS_BASE_LOG, PRECISE_PBS_LEVEL, SECOND_LEVEL_QWEIGHT_BOUND,
};

/// Errors of the crypto layer (other than serialization, see [`EnvelopeError`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TfheError {
    /// A ciphertext does not have the LWE dimension of the key or of the other operand
    /// (it belongs to another parameter set).
    #[error("ciphertext has LWE dimension {found}, expected {expected}")]
    DimensionMismatch {
        /// The LWE dimension required.
        expected: usize,
        /// The LWE dimension found.
        found: usize,
    },
    /// A linear combination without any ciphertext term (its dimension is unknown).
    #[error("a linear combination needs at least one ciphertext term")]
    EmptyLinearCombination,
    /// [`ServerKey::bootstrap_many`] was given an unsupported number of tables.
    #[error("bootstrap_many supports 1 or 2 tables, got {0}")]
    UnsupportedLutCount(usize),
    /// A read offset of [`ServerKey::try_bootstrap_offsets_batch`] is not below 32.
    #[error("a table read offset must be below 32, got {0}")]
    OffsetOutOfRange(u8),
    /// Two argument lists that must have the same length do not (e.g. the inputs and tables of
    /// [`TreeKey::mv_lut_eval`]).
    #[error("argument list has length {found}, expected {expected}")]
    LengthMismatch {
        /// The length required.
        expected: usize,
        /// The length found.
        found: usize,
    },
    /// A half-step table ([`ServerKey::try_bootstrap_half_batch`]) has an even value.
    #[error("half-step table value {0} is even (half-step values are odd multiples of Δ/2)")]
    EvenHalfStep(i64),
    /// Compressed input/output was given bad input (module [`io`]).
    #[error("io: {0}")]
    Io(io::IoError),
}
