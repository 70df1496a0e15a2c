//! Ciphertext envelopes: what kind of value one holds (`EncInt`, `EncBits`, `EncTyped`),
//! so that one kind is never read as another, and sealing a value's envelope.

use encint::keys::envelope::{self, Kind};
use encint::keys::DigitParameters;
use encint::EncInt as RInt;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{invalid, KeyRoleError};
use crate::guard::detached;
use crate::key_sets::params_of;
use crate::value::Val;

/// The tag that starts an `EncBits` payload.
pub const BITS_TAG: [u8; 8] = *b"ENCBITS1";
/// The tag that starts a canonical or lazy `EncTyped` payload.
pub const TYPED_TAG: [u8; 8] = *b"ENCTYPE1";
/// The tag that starts a radix-4 `EncTyped` payload.
pub const TYPED_RADIX4_TAG: [u8; 8] = *b"ENCTYR41";

/// What a ciphertext envelope of this package holds: an `EncInt` (its payload is the
/// digits, no tag), an `EncBits` or an `EncTyped` (payloads that start with their tag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CiphertextKind {
    /// `EncInt`.
    Int,
    /// `EncBits`.
    Bits,
    /// `EncTyped`.
    Typed,
}

impl CiphertextKind {
    fn name(self) -> &'static str {
        match self {
            CiphertextKind::Int => "EncInt",
            CiphertextKind::Bits => "EncBits",
            CiphertextKind::Typed => "EncTyped",
        }
    }
}

/// The kind of value in `data` when it is a ciphertext envelope (`None` for anything
/// else, which the envelope reader then refuses with its own error).
pub fn ciphertext_kind(data: &[u8]) -> Option<CiphertextKind> {
    let (header, payload) = envelope::read_header(data).ok()?;
    if header.kind != Kind::Ciphertext {
        return None;
    }
    Some(match payload.get(..8) {
        Some(tag) if tag == BITS_TAG => CiphertextKind::Bits,
        Some(tag) if tag == TYPED_TAG || tag == TYPED_RADIX4_TAG => CiphertextKind::Typed,
        _ => CiphertextKind::Int,
    })
}

/// Errors ([`KeyRoleError`]) unless `data` is an envelope of `want` (or not a ciphertext
/// envelope at all: the reader then names the problem). Every decoder of a ciphertext
/// calls it first, so that one kind is never read as another.
pub fn expect_kind(data: &[u8], want: CiphertextKind) -> PyResult<()> {
    match ciphertext_kind(data) {
        Some(found) if found != want => Err(KeyRoleError::new_err(format!(
            "the bytes hold an {}, not an {}",
            found.name(),
            want.name()
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
