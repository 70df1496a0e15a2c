//! The errors of every operation of the facade: [`Error`], its [`Result`] alias, and the
//! GPU backend's [`GpuError`].

use encint_core::CoreError;
use encint_tfhe::KeySetId;
use std::path::PathBuf;

/// Everything that can go wrong in `encint`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An error of the circuit layer: a bootstrap input over the noise budget, a wrong number
    /// of circuit inputs, a bad argument to a circuit builder.
    #[error(transparent)]
    Core(#[from] CoreError),
    /// Bad input that none of the variants below names: an argument of the wrong kind
    /// (a selection between two clear values without a type, a cast without a target),
    /// an operation the chosen mode does not take (encrypted weights given to an
    /// inference with clear weights), an unknown name (backend, built-in model), a
    /// file that cannot be read, or the error a caller's own function returned.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// An operand of the wrong type or width: values of two types in one operation
    /// (`FheUint8` with `FheUint16`), a non-boolean condition, a shift amount of another
    /// type, a width outside the allowed range, digits or blocks that do not hold a
    /// value of the type, arguments of another layout than the compiled function's, a
    /// processor link of another program's signature.
    #[error("invalid input: {0}")]
    TypeMismatch(String),
    /// Arrays, lists or value counts that do not match: arrays of different shapes, a
    /// matrix product of inner sizes that differ, lists of different lengths, more or
    /// fewer values than the layout, the circuit or the model takes, a reduction over no
    /// values.
    #[error("invalid input: {0}")]
    ShapeMismatch(String),
    /// A value out of range for its type or its digits: a clear value that is not a
    /// value of its type, a value that does not fit the requested number of digits, a
    /// negative shift amount, a decrypted value that does not fit the asked Rust type, a
    /// pixel or a label outside the model's range.
    #[error("invalid input: {0}")]
    OutOfRange(String),
    /// Division or remainder by a clear zero (`x / 0u8`).
    #[error("invalid input: division by the scalar 0")]
    DivisionByZero,
    /// An operation that does not exist on its operands or not in this position: a
    /// one-operand operation given two, a comparison method given an arithmetic
    /// operation, an integer operation on booleans.
    #[error("invalid input: {0}")]
    WrongOperation(String),
    /// A value of a traced function (inside [`compile`](crate::compile) and its kin) used
    /// where it does not belong: a value of another or of a finished trace, a ciphertext
    /// inside the function, a result not computed from the arguments.
    #[error("invalid input: {0}")]
    Tracing(String),
    /// A file, byte string or model description that does not parse, or that holds
    /// another kind of object than asked (a server key where a ciphertext is expected, a
    /// typed value where an exact integer is expected), or a model or image file of
    /// another format.
    #[error("invalid input: {0}")]
    Malformed(String),
    /// The chosen backend does not run the request (see [`Unsupported`] for the cases).
    #[error(transparent)]
    Unsupported(#[from] Unsupported),
    /// An invariant of encint's own did not hold (a bootstrap batch that returned too few
    /// outputs, an operation that built no output): a bug of encint, not of its input.
    #[error("invalid input: {0}")]
    Internal(String),
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
    /// A machine profile that could not be named, read, written or measured.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// A run over several processes (feature `mpi`) failed: a rank died, hung, holds
    /// another key, or answered with an error.
    #[error("cluster: {0}")]
    Cluster(String),
}

impl From<encint_arith::TypedError> for Error {
    /// A width outside the allowed range is [`Error::TypeMismatch`], a clear scalar
    /// outside its type [`Error::OutOfRange`], a division by the scalar 0
    /// [`Error::DivisionByZero`], an operation that does not exist on its operands or
    /// their wrong number [`Error::WrongOperation`], an argument that does not parse
    /// [`Error::InvalidInput`].
    fn from(e: encint_arith::TypedError) -> Self {
        use encint_arith::TypedError as T;
        match e {
            T::Width(_) => Error::TypeMismatch(e.to_string()),
            T::ScalarRange(_) => Error::OutOfRange(e.to_string()),
            T::DivisionByZero => Error::DivisionByZero,
            T::Arity { .. } | T::Unsupported(..) | T::NotAnOperation { .. } => {
                Error::WrongOperation(e.to_string())
            }
            T::Argument(_) => Error::InvalidInput(e.to_string()),
        }
    }
}

/// What a backend does not run ([`Error::Unsupported`]); each message is the one this
/// refusal has always had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unsupported {
    /// A tree-LUT node on the digit backend, which runs digit circuits only (byte-processor
    /// circuits run on the tree executor).
    #[error(
        "noise budget exceeded: tree LUT node {node}: this executor runs digit circuits only \
         (byte-processor circuits run on the tree executor)"
    )]
    TreeNodeOnDigitBackend {
        /// Index of the node.
        node: u32,
    },
    /// A many-LUT node whose tables do not fit together on one bootstrap's window.
    #[error("invalid input: many-LUT node {node}: {tables} tables on a window of {len} values do not fit")]
    ManyLutPacking {
        /// Index of the node.
        node: u32,
        /// Number of tables of the node.
        tables: usize,
        /// Length of the window of input values.
        len: u8,
    },
    /// Tree nodes on a server without a tree key.
    #[error("invalid input: tree work without a tree key")]
    NoTreeKey,
    /// One server's circuits on [`BackendKind::Mpi`](crate::BackendKind::Mpi), which runs
    /// whole jobs over the ranks of `mpirun`.
    #[error(
        "invalid input: the mpi backend runs a whole job over the ranks of mpirun \
         (encint::backend::mpi, feature `mpi`), not one server's circuits: use cpu or gpu here"
    )]
    MpiServer,
}

/// Why a machine profile could not be named, read, written or measured.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProfileError {
    /// A name that is neither a built-in profile, `calibrated`, nor a file path.
    #[error(transparent)]
    Name(#[from] encint_arith::machine::MachineError),
    /// `calibrated` was asked for and no calibration has been saved.
    #[error(
        "no calibrated machine profile at {}: run `encint calibrate` (or \
         encint::machine::calibrate and save_profile) first",
        path.display()
    )]
    NotCalibrated {
        /// Where the profile was looked for.
        path: PathBuf,
    },
    /// No place for the cached profile: none of the environment variables that name one is
    /// set.
    #[error("no place for the cached machine profile: set ENCINT_MACHINE_PROFILE, XDG_CACHE_HOME or HOME")]
    NoCacheDir,
    /// The file could not be read or written.
    #[error("machine profile {}: {reason}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        reason: String,
    },
    /// The file is not a profile, or states values no machine has.
    #[error("machine profile {}: {reason}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Saving would replace a file that is not a machine profile.
    #[error("{} exists and is not a machine profile: not overwriting it", path.display())]
    WouldOverwrite {
        /// The file.
        path: PathBuf,
    },
    /// Calibration options out of range, or a machine too wide to measure.
    #[error("calibration: {0}")]
    Calibration(String),
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
