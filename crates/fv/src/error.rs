//! The error type of the crate.

use thiserror::Error;

/// Everything a caller of `encint-fv` can get wrong, or that can fail.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FvError {
    /// A modulus is out of the supported range (2 <= q < 2^62) or not invertible where needed.
    #[error("invalid modulus {0}: {1}")]
    InvalidModulus(u64, &'static str),
    /// Not enough NTT-friendly primes of the requested size exist.
    #[error("could not find {count} NTT-friendly primes of {bits} bits for n = {n}")]
    NotEnoughPrimes {
        /// Bit size requested.
        bits: u32,
        /// Ring degree.
        n: usize,
        /// Number of primes requested.
        count: usize,
    },
    /// The ring degree is not a supported power of two.
    #[error("invalid ring degree {0}: must be a power of two between 16 and 2^17")]
    InvalidDegree(usize),
    /// A polynomial or vector has the wrong length.
    #[error("length mismatch: expected {expected}, got {got}")]
    LengthMismatch {
        /// Expected length.
        expected: usize,
        /// Actual length.
        got: usize,
    },
    /// Parameters are inconsistent.
    #[error("invalid parameters: {0}")]
    InvalidParameters(String),
    /// Two objects come from different parameter sets.
    #[error("parameter mismatch: {0}")]
    ParameterMismatch(String),
    /// Operation asked for a variant it does not support, or operands of different variants.
    #[error("variant mismatch: {0}")]
    VariantMismatch(String),
    /// A ciphertext is malformed (wrong number of parts, wrong sizes, unreduced residues).
    #[error("malformed ciphertext: {0}")]
    MalformedCiphertext(String),
    /// A plaintext value is out of range.
    #[error("plaintext value {value} out of range (modulus {modulus})")]
    PlaintextOutOfRange {
        /// Offending value.
        value: u64,
        /// Plaintext modulus.
        modulus: u64,
    },
    /// The plaintext modulus does not allow batching for this ring degree.
    #[error("batching needs a prime t = 1 mod 2n; t = {t}, n = {n}")]
    BatchingUnsupported {
        /// Plaintext modulus.
        t: u64,
        /// Ring degree.
        n: usize,
    },
    /// Unknown name (parameter set, variant) given on the command line.
    #[error("unknown {kind}: {name}")]
    UnknownName {
        /// What kind of name.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// Decryption found the ciphertext's noise at or past the decryption bound: the
    /// plaintext it would return is not reliable (too many products or additions for
    /// the parameter set). Nothing is returned rather than a wrong value.
    #[error(
        "noise budget exhausted: the ciphertext no longer decrypts reliably (rounding \
         distance {distance_permille}/1000, the bound is 250/1000); use fewer products or a \
         larger parameter set"
    )]
    NoiseBudgetExhausted {
        /// The largest distance between a scaled coefficient and its rounded value, in
        /// thousandths (500 is noise that has wrapped around).
        distance_permille: u32,
    },
    /// A product would exceed the multiplicative depth the parameter set decrypts
    /// correctly; refused before any work.
    #[error(
        "depth exceeded: this product has multiplicative depth {depth}, but set {set} \
         decrypts correctly only up to depth {max}; use a larger parameter set"
    )]
    DepthExceeded {
        /// Depth the result would have.
        depth: u32,
        /// Largest depth of the set.
        max: u32,
        /// The parameter set's name.
        set: String,
    },
    /// Output could not be written.
    #[error("i/o error: {0}")]
    Io(String),
}

impl FvError {
    /// `Ok` when a length `got` is the `expected` one, else [`FvError::LengthMismatch`].
    pub(crate) fn check_len(expected: usize, got: usize) -> Result<(), FvError> {
        if got == expected {
            Ok(())
        } else {
            Err(FvError::LengthMismatch { expected, got })
        }
    }
}
