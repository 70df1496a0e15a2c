//! The envelope of an `EncTyped`: a tagged payload with its type, form and digits.

use encint::keys::envelope::{self, Kind};
use encint::keys::{DigitParameters, Validate};
use encint::typed::{Form, IntType, MAX_TYPED_BITS};
use encint::EncInt as RInt;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde::{Deserialize, Serialize};

use super::class::{type_of, EncTyped};
use crate::ciphertext::{envelope_bytes, expect_kind, CiphertextKind, TYPED_RADIX4_TAG, TYPED_TAG};
use crate::errors::envelope_err;
use crate::guard::detached;
use crate::value::Val;

/// The envelope payload of an `EncTyped`: a tag ([`TYPED_RADIX4_TAG`] for a radix-4 value,
/// of `⌈bits/2⌉` blocks, whose `canonical` flag is unused), the type, the form and the
/// digits.
#[derive(Serialize, Deserialize)]
struct TypedPayload {
    tag: [u8; 8],
    bits: u32,
    signed: bool,
    canonical: bool,
    value: RInt,
}

impl TypedPayload {
    fn form(&self) -> Form {
        match (self.tag == TYPED_RADIX4_TAG, self.canonical) {
            (true, _) => Form::Radix4,
            (false, true) => Form::Canonical,
            (false, false) => Form::Lazy,
        }
    }
}

impl Validate for TypedPayload {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        if self.tag != TYPED_TAG && self.tag != TYPED_RADIX4_TAG {
            return Err("not an EncTyped payload".into());
        }
        let bits = self.bits as usize;
        if !(1..=MAX_TYPED_BITS).contains(&bits) {
            return Err(format!("width {bits} outside 1..={MAX_TYPED_BITS}"));
        }
        // Canonical values have exactly `bits` digits, radix-4 ones exactly `⌈bits/2⌉`;
        // lazy operation results at most `bits`.
        let form = self.form();
        let exact = form != Form::Lazy;
        let want = form.digits(IntType {
            bits,
            signed: self.signed,
        });
        if self.value.len() > want || (exact && self.value.len() != want) {
            return Err(format!(
                "{} digits for a {}-bit value",
                self.value.len(),
                bits
            ));
        }
        self.value.validate(params)
    }
}

/// The envelope of `x` (kind Ciphertext).
pub(super) fn to_bytes<'py>(py: Python<'py>, x: &EncTyped) -> PyResult<Bound<'py, PyBytes>> {
    envelope_bytes(py, &x.val, |v, params| {
        let payload = TypedPayload {
            tag: if x.form == Form::Radix4 {
                TYPED_RADIX4_TAG
            } else {
                TYPED_TAG
            },
            bits: x.ty.bits as u32,
            signed: x.ty.signed,
            canonical: x.form == Form::Canonical,
            value: v.clone(),
        };
        envelope::seal(Kind::Ciphertext, params.id(), &payload).map_err(envelope_err)
    })
}

/// The value of an envelope written by [`to_bytes`] (magic, kind, version, parameters,
/// type and every digit's dimension checked).
pub(super) fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<EncTyped> {
    expect_kind(data, CiphertextKind::Typed)?;
    let p: TypedPayload = detached(py, || {
        envelope::open_known(data, Kind::Ciphertext).map_err(envelope_err)
    })?;
    Ok(EncTyped {
        ty: type_of(p.bits as usize, p.signed)?,
        form: p.form(),
        val: Val::Enc(p.value),
    })
}
