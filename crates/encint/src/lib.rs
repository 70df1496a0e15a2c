//! # encint
//!
//! Exact arithmetic on encrypted integers. An [`EncInt`] is a signed binary
//! integer whose digits (-1, 0, 1) are TFHE ciphertexts of 5-bit messages without
//! padding, after J. Klemsa and M. Önen, *Parmesan: Parallel ARithMETicS over ENcrypted
//! data*. Operations are circuits built by `encint-arith` and run by the [`executor`],
//! level by level, each level's bootstraps as one parallel batch. Results are exact: a
//! product is as long as it needs to be.
//!
//! The byte processor of D. Trama, P.-E. Clet, A. Boudguiga and R. Sirdey, *Designing a
//! General-Purpose 8-bit (T)FHE Processor Abstraction*, runs encrypted programs through
//! [`processor`]; the FV scheme of J.-C. Bajard, J. Eynard, P. Martins, L. Sousa and
//! V. Zucca, *An asymptotically faster version of FV supported on HPR*, is reachable through
//! [`fv`], and bit-sliced binary arithmetic on it through [`fv_bits`].
//!
//! The executors (`src/backend/`) are public under their established names: [`executor`]
//! (digits on this process), [`tree_exec`] (with tree LUTs), `mpi` (feature `mpi`, many
//! processes) and [`gpu`] (feature `gpu`).
//!
//! The layers beneath are reachable through the facade alone: [`circuit`] (the circuit
//! builder, plans, costs, the walker and the clear evaluation), [`arith`] (the algorithms
//! as circuit builders), [`keys`] (the TFHE keys, parameter sets, digits and envelopes),
//! [`processor`] (with the assembler, the instruction set and the VM) and [`fv`].
//!
//! The client side holds the secret [`ClientKey`]; the server side needs only the
//! [`ServerKey`] and never sees the client key.
//!
//! ```no_run
//! use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
//!
//! let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
//! let server = Server::new(server_key);
//! let a = encint::encrypt(&client, -1234, 12).unwrap();
//! let b = encint::encrypt(&client, 567, 12).unwrap();
//! let p = server.mul(&a, &b).unwrap();
//! assert_eq!(encint::decrypt(&client, &p).unwrap(), -1234 * 567);
//! ```
#![deny(missing_docs)]

pub mod arith;
mod backend;
pub mod bits;
pub mod circuit;
pub mod contents;
mod digits;
pub mod fhe;
pub mod files;
pub mod fv;
pub mod fv_bits;
pub mod infer;
mod int;
pub mod keys;
pub mod limits;
pub mod packed;
pub mod processor;
pub mod public;
pub mod reference;
pub mod seeded;
mod server;
mod trace;
pub mod typed;
pub mod watch;
pub mod wire;

pub use backend::digit as executor;
pub use backend::gpu;
#[cfg(feature = "mpi")]
pub use backend::mpi;
pub use backend::tree as tree_exec;

pub use backend::gpu::GpuError;
pub use backend::kind::BackendKind;
pub use encint_arith::{Arith, Config, Op, Relation, SInt};
pub use encint_core::circuit::Cost;
pub use encint_core::CoreError;
pub use encint_tfhe::{ClientKey, KeySetId, ServerKey, DEFAULT_PARAMETERS, KS64_PARAMETERS};
pub use fhe::{
    compile, compile_with, set_server_everywhere, set_server_key, Compiled, FheArray, FheBool,
    FheInt, FheInt128, FheInt16, FheInt32, FheInt64, FheInt8, FheUint, FheUint128, FheUint16,
    FheUint32, FheUint64, FheUint8, Int,
};
pub use int::{decrypt, decrypt_big, encrypt, encrypt_big, EncInt, MAX_DIGITS};
pub use num_bigint::BigInt;
pub use public::{PublicInt, PublicKey, PublicKeyFile, PublicValue};
pub use seeded::{Seeded, SeededArray, SeededInt, SeededTyped};
pub use server::{
    check_threads, set_server, unset_server, Server, DEFAULT_MAX_NODES, MAX_THREADS_PER_CORE,
};
pub use trace::Tracer;

/// Everything that can go wrong in `encint`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A circuit holds a node the chosen backend refuses for noise reasons (many-LUT
    /// bootstraps, tree LUTs on the digit backend). A bootstrap input over the parameter
    /// set's noise budget is [`CoreError::NoiseBudget`] inside [`Error::Core`].
    #[error("noise budget exceeded: {0}")]
    NoiseBudget(String),
    /// An error of the circuit layer: a bootstrap input over the noise budget, a wrong number
    /// of circuit inputs, a bad argument to a circuit builder.
    #[error(transparent)]
    Core(#[from] CoreError),
    /// A value does not fit the requested number of digits, or similar bad input.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A decrypted digit is not -1, 0 or 1 (wrong key, or a corrupted ciphertext).
    #[error("digit {position} decrypts to {value}, not a signed binary digit")]
    DigitOutOfRange {
        /// Position of the digit.
        position: usize,
        /// Its decrypted value in [-16, 16).
        value: i64,
    },
    /// The decrypted value does not fit in an i128.
    #[error("decrypted value does not fit in i128")]
    Overflow,
    /// An error of the crypto layer (e.g. a ciphertext of another parameter set).
    #[error(transparent)]
    Tfhe(#[from] encint_tfhe::TfheError),
    /// Serialization or a malformed envelope.
    #[error(transparent)]
    Envelope(#[from] encint_tfhe::EnvelopeError),
    /// No server is set for operator syntax (see [`set_server`]).
    #[error("no server key is set on this thread: call encint::set_server first")]
    NoServer,
    /// A byte-processor program does not assemble or compile.
    #[error(transparent)]
    Asm(#[from] encint_isa::asm::AsmError),
    /// A byte-processor run got bad inputs or produced a bad output.
    #[error(transparent)]
    Run(#[from] encint_isa::vm::RunError),
    /// The thread pool could not be built, or the thread count is out of range.
    #[error("thread pool: {0}")]
    ThreadPool(String),
    /// The server was given a ciphertext of another key set than its server key's.
    #[error("ciphertext {position} belongs to key set {found}, the server key to {expected}")]
    KeySetMismatch {
        /// Index of the offending input.
        position: usize,
        /// The server key's key set.
        expected: KeySetId,
        /// The ciphertext's key set.
        found: KeySetId,
    },
    /// A tree key used with the server key of another key set.
    #[error("the tree key belongs to key set {tree}, the server key to {server}")]
    TreeKeyMismatch {
        /// The server key's key set.
        server: KeySetId,
        /// The tree key's key set.
        tree: KeySetId,
    },
    /// A packing key used with the server key of another key set.
    #[error("the packing key belongs to key set {packing}, the server key to {server}")]
    PackingKeyMismatch {
        /// The server key's key set.
        server: KeySetId,
        /// The packing key's key set.
        packing: KeySetId,
    },
    /// Decryption with the client key of another key set.
    #[error("the ciphertext belongs to key set {ciphertext}, the client key to {key}")]
    WrongClientKey {
        /// The client key's key set.
        key: KeySetId,
        /// The ciphertext's key set.
        ciphertext: KeySetId,
    },
    /// The GPU backend is not built in, has no device, or cannot run the request.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// A stated resource limit (digits, circuit size, threads) would be exceeded; nothing
    /// was allocated or run.
    #[error("limit exceeded: {0}")]
    LimitExceeded(String),
    /// A run over several processes (feature `mpi`) failed: a rank died, hung, holds
    /// another key, or answered with an error.
    #[error("cluster: {0}")]
    Cluster(String),
}

impl From<encint_arith::TypedError> for Error {
    /// An operation that does not exist on its operands, or their wrong number or type.
    fn from(e: encint_arith::TypedError) -> Self {
        Error::InvalidInput(e.to_string())
    }
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// The README's Rust examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;
