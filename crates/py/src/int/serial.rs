//! The envelopes of `EncInt` (the digits) and `EncBits` (a tagged payload with the
//! signedness), and the checked clear-mode values that pickling rebuilds.

use encint::{EncInt as RInt, MAX_DIGITS};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::args::check_width;
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

/// The envelope of an `EncBits`.
pub(crate) fn bits_to_bytes<'py>(
    py: Python<'py>,
    val: &Val,
    signed: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    envelope_bytes(py, val, |x, params| {
        encint::wire::seal_bits(x, signed, params).map_err(to_py)
    })
}

/// The bits and signedness of an `EncBits` envelope; `signed`, if given, must agree.
/// Bytes of any other kind raise `KeyRoleError`: their digits are not known to be bits.
pub(crate) fn bits_from_bytes(
    py: Python<'_>,
    data: &[u8],
    signed: Option<bool>,
) -> PyResult<(Val, bool)> {
    expect_kind(data, CiphertextKind::Bits)?;
    let (value, is_signed) = detached(py, || encint::wire::open_bits(data).map_err(to_py))?;
    check_width(value.len(), MAX_DIGITS)?;
    if let Some(given) = signed.filter(|&g| g != is_signed) {
        return Err(invalid(format!(
            "the bytes hold {} bits, signed={given} was asked for",
            if is_signed { "signed" } else { "unsigned" }
        )));
    }
    Ok((Val::Enc(value), is_signed))
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

/// A clear-mode `EncBits` value of these bits (each 0 or 1).
pub(crate) fn clear_bits(bits: Vec<i64>) -> PyResult<Val> {
    check_width(bits.len(), MAX_DIGITS)?;
    if bits.iter().any(|d| !(0..=1).contains(d)) {
        return Err(invalid("clear bits must be 0 or 1"));
    }
    Ok(Val::Clear(bits))
}
