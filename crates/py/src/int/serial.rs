//! The envelope of `EncInt` (the digits), and the checked clear-mode values that pickling
//! rebuilds.

use encint::{EncInt as RInt, MAX_DIGITS};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::ciphertext::{envelope_bytes, expect_kind, CiphertextKind};
use crate::errors::{invalid, to_py};
use crate::guard::detached;
use crate::value::Val;

/// The envelope of an `EncInt`'s digits.
pub(crate) fn int_to_bytes<'py>(py: Python<'py>, val: &Val) -> PyResult<Bound<'py, PyBytes>> {
    envelope_bytes(py, val, |x, params| x.to_bytes(params).map_err(to_py))
}

/// The digits of an `EncInt` envelope, expanded or seeded (`encint encrypt` writes the
/// seeded form: the masks are regenerated from its seed); magic, kind, version,
/// parameters and every digit's dimension checked.
pub(crate) fn int_from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<Val> {
    expect_kind(data, CiphertextKind::Int)?;
    let x = detached(py, || RInt::from_bytes_known(data).map_err(to_py))?;
    Ok(Val::Enc(x))
}

/// A clear-mode `EncInt` value of these digits (each -1, 0 or 1).
pub(crate) fn clear_digits(digits: Vec<i64>) -> PyResult<Val> {
    if digits.len() > MAX_DIGITS || digits.iter().any(|d| !(-1..=1).contains(d)) {
        return Err(invalid(
            "clear digits must be -1, 0 or 1, at most MAX_DIGITS of them",
        ));
    }
    Ok(Val::Clear(digits))
}
