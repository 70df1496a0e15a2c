//! Ciphertext envelopes: what kind of value one holds (an `EncInt`, or a value of the typed
//! family), so that one kind is never read as another, sealing a value's envelope, and
//! `encint.from_bytes`, which reads any of them (the facade's `encint::io::open`).

use encint::keys::DigitParameters;
use encint::EncInt as RInt;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{invalid, to_py, KeyRoleError};
use crate::guard::detached;
use crate::key_sets::params_of;
use crate::value::Val;

pub use encint::io::wire::CiphertextKind;

/// The package's name of the value a ciphertext envelope holds.
fn class_name(kind: CiphertextKind) -> &'static str {
    match kind {
        CiphertextKind::Int => "EncInt",
        // Bit vectors of earlier releases read as values of the family.
        CiphertextKind::Bits | CiphertextKind::Typed => "FheValue",
    }
}

/// Errors ([`KeyRoleError`]) unless `data` is an envelope of `want` (or not a ciphertext
/// envelope at all: the reader then names the problem). Every decoder of a ciphertext
/// calls it first, so that one kind is never read as another.
pub fn expect_kind(data: &[u8], want: CiphertextKind) -> PyResult<()> {
    match encint::io::wire::ciphertext_kind(data) {
        Some(found) if found != want => Err(KeyRoleError::new_err(format!(
            "the bytes hold an {}, not an {}",
            class_name(found),
            class_name(want)
        ))),
        _ => Ok(()),
    }
}

/// The envelope of an encrypted value, written by `seal` for the parameter set of its key
/// set (GIL released); a clear-mode value has none.
pub fn envelope_bytes<'py>(
    py: Python<'py>,
    val: &Val,
    seal: impl FnOnce(&RInt, &DigitParameters) -> PyResult<Vec<u8>> + Send,
) -> PyResult<Bound<'py, PyBytes>> {
    let Val::Enc(x) = val else {
        return Err(invalid("a clear-mode value has no envelope"));
    };
    let bytes = detached(py, || seal(x, &params_of(x.key_set())))?;
    Ok(PyBytes::new(py, &bytes))
}

/// Reads any ciphertext, whoever wrote it (this package, the command-line tool or the Rust
/// library; expanded, seeded or encrypted with the public key): an `EncInt`, or a value of
/// the family's class of its type (`FheUint8`, `FheBool`, an `FheArray`, ...). A packed
/// result (`encint eval --packed`) is decrypted by `encint decrypt`; bytes that are no
/// ciphertext raise the error of the format.
#[pyfunction]
fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<PyObject> {
    use encint::fhe::FheType;
    use encint::io::Opened;
    match detached(py, || encint::io::open(&data).map_err(to_py))? {
        Opened::Int(x) => Ok(Py::new(py, crate::int::EncInt { val: Val::Enc(x) })?.into_any()),
        Opened::Typed(x) => {
            crate::family::wrap(py, encint::fhe::FheValue::from_typed(x).map_err(to_py)?)
        }
        Opened::Packed(_) => Err(invalid(
            "the bytes hold a packed result: decrypt it with `encint decrypt`",
        )),
    }
}

/// Adds `from_bytes` to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(from_bytes, m)?)
}
