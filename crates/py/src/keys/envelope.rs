//! Keys in checked envelopes.

use encint::keys::envelope::{self, Kind};
use encint::keys::{DigitParameters, Validate};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::errors::{envelope_err, invalid};
use crate::guard::detached;

/// `key` in a checked envelope of `kind` for its parameter set (GIL released); the
/// clear-mode key (`None`) has none.
pub(super) fn seal<'py, T: Serialize + Sync>(
    py: Python<'py>,
    kind: Kind,
    key: Option<(&T, &DigitParameters)>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (key, params) = key.ok_or_else(|| invalid("the clear-mode key has no serialized form"))?;
    let bytes = detached(py, || {
        envelope::seal(kind, params.id(), key).map_err(envelope_err)
    })?;
    Ok(PyBytes::new(py, &bytes))
}

/// The key in an envelope of `kind` (magic, kind, version and parameters checked; GIL
/// released).
pub(super) fn open<T: DeserializeOwned + Validate + Send>(
    py: Python<'_>,
    data: &[u8],
    kind: Kind,
) -> PyResult<T> {
    detached(py, || {
        envelope::open_known(data, kind).map_err(envelope_err)
    })
}
