//! The errors of every operation of the facade: [`Error`], its [`Result`] alias, and the
//! GPU backend's [`GpuError`].

use encint_core::CoreError;
use encint_tfhe::KeySetId;

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
    /// No server is set for operator syntax (see [`set_server`](crate::set_server)).
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

/// Why the GPU backend cannot run a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GpuError {
    /// This build has no GPU backend.
    #[error(
        "this encint was built without the `gpu` cargo feature: build it with \
         `scripts/cuda-toolchain.sh` and `cargo build --release -p encint-cli --features gpu` \
         (docs/GPU.md), or use the cpu backend"
    )]
    NotBuilt,
    /// The feature is on but no CUDA device can be used (no NVIDIA driver, no GPU).
    #[error("no usable CUDA device: {0}")]
    NoDevice(String),
    /// A CUDA call of encint's own kernels failed.
    #[error("CUDA error {code} in {what}")]
    Cuda {
        /// The `cudaError_t` value.
        code: i32,
        /// The operation that failed.
        what: &'static str,
    },
    /// The request needs something the GPU backend does not run.
    #[error("not supported by the GPU backend: {0}")]
    Unsupported(String),
}
