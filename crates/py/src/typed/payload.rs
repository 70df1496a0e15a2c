//! The envelope of an `EncTyped`: the facade's typed envelope (type, form and digits).

use encint::typed::EncTyped as RTyped;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::class::{type_of, EncTyped};
use crate::ciphertext::{envelope_bytes, expect_kind, CiphertextKind};
use crate::errors::to_py;
use crate::guard::detached;
use crate::value::Val;

/// The envelope of `x` (kind Ciphertext; the facade's typed envelope, see `encint::wire`).
pub(super) fn to_bytes<'py>(py: Python<'py>, x: &EncTyped) -> PyResult<Bound<'py, PyBytes>> {
    envelope_bytes(py, &x.val, |v, params| {
        RTyped::with_form(v.clone(), x.ty, x.form)
            .and_then(|t| t.to_bytes(params))
            .map_err(to_py)
    })
}

/// The value of an envelope written by [`to_bytes`] (magic, kind, version, parameters,
/// type and every digit's dimension checked).
pub(super) fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<EncTyped> {
    expect_kind(data, CiphertextKind::Typed)?;
    let t = detached(py, || RTyped::from_bytes(data).map_err(to_py))?;
    Ok(EncTyped {
        ty: type_of(t.ty().bits, t.ty().signed)?,
        form: t.form(),
        val: Val::Enc(t.as_int().clone()),
    })
}
