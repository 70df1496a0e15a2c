//! Python bindings of encint (the `encint` Python package, built by maturin from
//! `crates/py/pyproject.toml`). The Python-facing documentation is in the docstrings and
//! in `python/encint/_encint.pyi`; this crate only adapts the library APIs:
//!
//! - keys ([`keys`]): client and server keys, their checked envelopes, files, pickling;
//! - integers ([`int`]): exact `EncInt` (signed binary digits) and wrapping `EncBits`,
//!   whose operators build one circuit each and run it with the server key set by
//!   `set_server_key` (encrypted) or with the clear executor (clear mode);
//! - typed integers ([`typed`]: TFHE-rs' `FheUint`/`FheInt` semantics);
//! - traced evaluation and costs ([`trace`]), the byte processor ([`processor`]), FV
//!   batches ([`fv`]) and bit-sliced FV integers ([`fv_bits`]);
//! - progress bars of long operations ([`progress`]).
//!
//! Every library error becomes an exception of the `encint.Error` hierarchy; every call
//! into the library runs under `catch_unwind`, so no Rust panic reaches Python.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;

pub mod fv;
pub mod fv_bits;
pub mod int;
pub mod keys;
pub mod processor;
pub mod progress;
pub mod trace;
pub mod typed;

create_exception!(
    encint,
    Error,
    PyException,
    "Base class of every encint error."
);
create_exception!(
    encint,
    InvalidInputError,
    Error,
    "A value does not fit, operands do not match, or similar bad input."
);
create_exception!(
    encint,
    NoiseBudgetError,
    Error,
    "A bootstrap input would exceed the parameter set's noise budget."
);
create_exception!(
    encint,
    FormatError,
    Error,
    "Bytes that are not a valid encint envelope (truncated, corrupted, other version or parameters)."
);
create_exception!(
    encint,
    KeyRoleError,
    FormatError,
    "An envelope holds another kind of object (e.g. a server key loaded as a client key)."
);
create_exception!(
    encint,
    KeyMismatchError,
    Error,
    "Keys or ciphertexts of different key sets (another client key's ciphertext, ...)."
);
create_exception!(
    encint,
    DecryptionError,
    Error,
    "A decrypted digit is not a valid digit (wrong key or corrupted ciphertext)."
);
create_exception!(
    encint,
    LimitError,
    Error,
    "A resource limit (digits, circuit nodes, threads) would be exceeded; nothing ran."
);
create_exception!(
    encint,
    NoServerKeyError,
    Error,
    "An operation on encrypted values needs encint.set_server_key first."
);
create_exception!(
    encint,
    ProgramError,
    Error,
    "A byte-processor program does not assemble, or a run got bad inputs."
);
create_exception!(
    encint,
    FvError,
    Error,
    "An error of the FV scheme (bad parameters, plaintext out of range, ...)."
);
create_exception!(
    encint,
    BackendError,
    Error,
    "The chosen executor cannot run here or failed (GPU backend, MPI cluster)."
);

/// Maps a library error to the exception hierarchy, keeping the library's message.
pub fn to_py(e: encint::Error) -> PyErr {
    use encint::Error as E;
    let msg = e.to_string();
    match e {
        E::Core(encint::CoreError::NoiseBudget(_)) => NoiseBudgetError::new_err(msg),
        E::Core(_) => InvalidInputError::new_err(msg),
        E::NoiseBudget(_) => NoiseBudgetError::new_err(msg),
        E::InvalidInput(_) | E::Overflow | E::ThreadPool(_) => InvalidInputError::new_err(msg),
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
    }
}

/// Maps an envelope error: a wrong kind is a [`KeyRoleError`], the rest [`FormatError`].
pub fn envelope_err(e: encint_tfhe::EnvelopeError) -> PyErr {
    match e {
        encint_tfhe::EnvelopeError::WrongKind { .. } => KeyRoleError::new_err(e.to_string()),
        other => FormatError::new_err(other.to_string()),
    }
}

/// Runs library code, turning a panic into an `encint.Error` instead of aborting or
/// raising `PanicException`.
pub fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown".into());
            Err(Error::new_err(format!(
                "internal error (please report): {what}"
            )))
        }
    }
}

/// Runs `f` without the GIL (other Python threads go on) and under [`guard`].
pub fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> PyResult<T> + Send) -> PyResult<T> {
    py.allow_threads(|| guard(f))
}

/// An `InvalidInputError` with `msg`.
pub fn invalid(msg: impl Into<String>) -> PyErr {
    InvalidInputError::new_err(msg.into())
}

/// A `ValueError` with `msg` (for Python-level argument errors).
pub fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// The native module `encint._encint`; the package `encint` re-exports it.
#[pymodule]
fn _encint(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    for (name, ty) in [
        ("Error", py.get_type::<Error>()),
        ("InvalidInputError", py.get_type::<InvalidInputError>()),
        ("NoiseBudgetError", py.get_type::<NoiseBudgetError>()),
        ("FormatError", py.get_type::<FormatError>()),
        ("KeyRoleError", py.get_type::<KeyRoleError>()),
        ("KeyMismatchError", py.get_type::<KeyMismatchError>()),
        ("DecryptionError", py.get_type::<DecryptionError>()),
        ("LimitError", py.get_type::<LimitError>()),
        ("NoServerKeyError", py.get_type::<NoServerKeyError>()),
        ("ProgramError", py.get_type::<ProgramError>()),
        ("FvError", py.get_type::<FvError>()),
        ("BackendError", py.get_type::<BackendError>()),
    ] {
        m.add(name, ty)?;
    }
    keys::register(m)?;
    int::register(m)?;
    trace::register(m)?;
    processor::register(m)?;
    fv::register(m)?;
    fv_bits::register(m)?;
    progress::register(m)?;
    typed::register(m)?;
    m.add("PARAMETERS", encint::DEFAULT_PARAMETERS.id())?;
    m.add("MAX_DIGITS", encint::MAX_DIGITS)?;
    Ok(())
}
