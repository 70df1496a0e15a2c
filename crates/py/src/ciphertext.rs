//! Ciphertext envelopes: what kind of value one holds (an `EncInt`, or a value of the typed
//! family), so that one kind is never read as another, and sealing a value's envelope.

use encint::keys::DigitParameters;
use encint::EncInt as RInt;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{invalid, KeyRoleError};
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
