//! The `encint.Error` exception hierarchy and the mapping of every library error onto it.

use pyo3::create_exception;
use pyo3::exceptions::{
    PyException, PyFileExistsError, PyFileNotFoundError, PyIsADirectoryError, PyOSError,
    PyPermissionError, PyValueError,
};
use pyo3::prelude::*;

/// Declares each exception (name, base, docstring) and `register`, which adds them all to
/// the module.
macro_rules! exceptions {
    ($($name:ident($base:ty): $doc:literal;)*) => {
        $(create_exception!(encint, $name, $base, $doc);)*

        /// Adds every exception class to the module `m`.
        pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
            let py = m.py();
            $(m.add(stringify!($name), py.get_type::<$name>())?;)*
            Ok(())
        }
    };
}

exceptions! {
    Error(PyException): "Base class of every encint error.";
    InvalidInputError(Error):
        "A value does not fit, operands do not match, or similar bad input.";
    NoiseBudgetError(Error): "A bootstrap input would exceed the parameter set's noise budget.";
    FormatError(Error): "Bytes that are not a valid encint envelope (truncated, corrupted, other version or parameters).";
    KeyRoleError(FormatError): "An envelope holds another kind of object (e.g. a server key loaded as a client key).";
    KeyMismatchError(Error): "Keys or ciphertexts of different key sets (another client key's ciphertext, ...).";
    DecryptionError(Error): "A decrypted digit is not a valid digit (wrong key or corrupted ciphertext).";
    LimitError(Error): "A resource limit (digits, circuit nodes, threads) would be exceeded; nothing ran.";
    NoServerKeyError(Error): "An operation on encrypted values needs encint.set_server_key first.";
    ProgramError(Error): "A byte-processor program does not assemble, or a run got bad inputs.";
    FvError(Error): "An error of the FV scheme (bad parameters, plaintext out of range, ...).";
    BackendError(Error): "The chosen executor cannot run here or failed (GPU backend, MPI cluster).";
}

/// Maps a library error to the exception hierarchy, keeping the library's message.
pub fn to_py(e: encint::Error) -> PyErr {
    use encint::Error as E;
    let msg = e.to_string();
    match e {
        E::Core(encint::CoreError::NoiseBudget(_)) => NoiseBudgetError::new_err(msg),
        E::Core(_) => InvalidInputError::new_err(msg),
        // A tree node on the digit backend has always raised NoiseBudgetError.
        E::Unsupported(encint::Unsupported::TreeNodeOnDigitBackend { .. }) => {
            NoiseBudgetError::new_err(msg)
        }
        E::InvalidInput(_)
        | E::TypeMismatch(_)
        | E::ShapeMismatch(_)
        | E::OutOfRange(_)
        | E::DivisionByZero
        | E::WrongOperation(_)
        | E::Tracing(_)
        | E::Malformed(_)
        | E::Unsupported(_)
        | E::Internal(_)
        | E::Overflow
        | E::ThreadPool(_) => InvalidInputError::new_err(msg),
        E::DigitOutOfRange { .. } => DecryptionError::new_err(msg),
        E::Tfhe(_) => KeyMismatchError::new_err(msg),
        E::Envelope(env) => envelope_err(env),
        E::NoServer => NoServerKeyError::new_err(msg),
        E::Asm(_) | E::Run(_) => ProgramError::new_err(msg),
        E::KeySetMismatch { .. }
        | E::TreeKeyMismatch { .. }
        | E::PackingKeyMismatch { .. }
        | E::WrongClientKey { .. } => KeyMismatchError::new_err(msg),
        E::LimitExceeded(_) => LimitError::new_err(msg),
        E::Gpu(_) | E::Cluster(_) => BackendError::new_err(msg),
        E::Profile(p) => profile_err(p, msg),
    }
}

/// A machine profile error: an unknown name or bad calibration options are invalid input,
/// no calibration yet a `FileNotFoundError`, a file that is not a profile a
/// [`FormatError`], one that would be replaced a `FileExistsError`, a missing file a
/// `FileNotFoundError`, another I/O failure an `OSError`.
fn profile_err(e: encint::machine::ProfileError, msg: String) -> PyErr {
    use encint::machine::ProfileError as P;
    match e {
        P::Name(_) | P::Calibration(_) | P::NoCacheDir => InvalidInputError::new_err(msg),
        P::NotCalibrated { .. } => PyFileNotFoundError::new_err(msg),
        P::Malformed { .. } => FormatError::new_err(msg),
        P::WouldOverwrite { .. } => PyFileExistsError::new_err(msg),
        P::Io { path, .. } if !path.exists() => PyFileNotFoundError::new_err(msg),
        P::Io { .. } => PyOSError::new_err(msg),
    }
}

/// Maps an envelope error: a wrong kind is a [`KeyRoleError`], the rest [`FormatError`].
pub fn envelope_err(e: encint::keys::EnvelopeError) -> PyErr {
    match e {
        encint::keys::EnvelopeError::WrongKind { .. } => KeyRoleError::new_err(e.to_string()),
        other => FormatError::new_err(other.to_string()),
    }
}

/// A file error of `encint::io::files` as a Python exception: an existing destination is a
/// `FileExistsError`, an output that is one of the inputs a `ValueError`, an oversized file
/// a `FormatError`, an I/O failure an `OSError` (each message names the path).
pub fn file_err(e: encint::io::files::FileError) -> PyErr {
    use encint::io::files::FileError as F;
    let msg = e.to_string();
    match e {
        F::Exists { .. } => PyFileExistsError::new_err(msg),
        F::SameFile { .. } => PyValueError::new_err(msg),
        F::TooLarge { .. } => FormatError::new_err(msg),
        F::NotAFile { .. } => PyIsADirectoryError::new_err(msg),
        F::Io { source, .. } => match source.kind() {
            std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(msg),
            std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(msg),
            _ => PyOSError::new_err(msg),
        },
    }
}

/// Whether an FV error is an exhausted noise budget or depth.
fn fv_noise(e: &encint::fv::FvError) -> bool {
    use encint::fv::FvError as E;
    matches!(e, E::NoiseBudgetExhausted { .. } | E::DepthExceeded { .. })
}

/// Maps an FV error: an exhausted noise budget or depth is a [`NoiseBudgetError`], the
/// rest [`FvError`].
pub fn fv_err(e: encint::fv::FvError) -> PyErr {
    if fv_noise(&e) {
        NoiseBudgetError::new_err(e.to_string())
    } else {
        FvError::new_err(e.to_string())
    }
}

/// Maps a bit-sliced FV error: depth and noise problems are a [`NoiseBudgetError`], a key
/// set mismatch a [`KeyMismatchError`], bad input an [`InvalidInputError`], the rest
/// [`FvError`].
pub fn fv_bits_err(e: encint::fv_bits::FvBitsError) -> PyErr {
    use encint::fv_bits::FvBitsError as E;
    let msg = e.to_string();
    match e {
        E::DepthTooLarge { .. } | E::DepthExceedsKeys { .. } => NoiseBudgetError::new_err(msg),
        E::Fv(ref fv) if fv_noise(fv) => NoiseBudgetError::new_err(msg),
        E::WrongKeySet { .. } => KeyMismatchError::new_err(msg),
        E::InvalidInput(_) => invalid(msg),
        _ => FvError::new_err(msg),
    }
}

/// An `InvalidInputError` with `msg`.
pub fn invalid(msg: impl Into<String>) -> PyErr {
    InvalidInputError::new_err(msg.into())
}

/// A `ValueError` with `msg` (for Python-level argument errors).
pub fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// A `LimitError` with `msg`.
pub fn limit(msg: impl Into<String>) -> PyErr {
    LimitError::new_err(msg.into())
}
