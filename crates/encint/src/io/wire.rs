//! Ciphertext files: one envelope (see [`crate::keys::envelope`]: magic, kind, format
//! version, parameter set, bounded payload) for every encrypted value, whoever writes it:
//! the library, the command-line tool or the Python package.
//!
//! The payload says what the value is, so that one kind is never read as another:
//! - an exact integer ([`EncInt`], [`crate::Int`]): its digits, no tag;
//! - a typed value ([`EncTyped`], [`FheUint`](crate::FheUint), [`FheInt`](crate::FheInt),
//!   [`FheBool`](crate::FheBool)): the tag `ENCTYPE1` (canonical or lazy digits) or
//!   `ENCTYR41` (radix-4 blocks), the width, the signedness, whether the digits are
//!   canonical, and the digits;
//! - bits written by earlier releases' `EncBits`: the tag `ENCBITS1`, the signedness and
//!   the bits (read as a typed value of their width: canonical digits when unsigned, a
//!   lazy representative when signed);
//! - the seeded forms a client uploads ([`crate::io::seeded`]): the tag `ENCSINT1` (an exact
//!   integer) or `ENCSTYP1` (a typed value or an array of them), the type, then one seed
//!   and one 64-bit body per digit. The readers of exact and typed values read them too
//!   (expanding the masks from the seed);
//! - the public-key forms ([`crate::io::public`]): the tag `ENCPINT1` or `ENCPTYP1`, the type,
//!   then one compact list (mask and body words); read as the seeded ones are.

use encint_tfhe::envelope::{self, Kind};
use encint_tfhe::{DigitParameters, Validate};
use serde::{Deserialize, Serialize};

use crate::io::contents::TYPED_TAGS;
pub use crate::io::seeded::payload_tag;
use crate::io::seeded::{PUBLIC_INT_TAG, PUBLIC_TYPED_TAG, SEEDED_INT_TAG, SEEDED_TYPED_TAG};
use crate::typed::{EncTyped, Form, IntType, MAX_TYPED_BITS};
use crate::{EncInt, Error, Result};

pub use crate::io::contents::{BITS_TAG, TYPED_RADIX4_TAG, TYPED_TAG};

/// What a ciphertext envelope holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CiphertextKind {
    /// An exact integer's digits.
    Int,
    /// Bits with a signedness.
    Bits,
    /// A typed value.
    Typed,
}

impl CiphertextKind {
    /// The kind's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            CiphertextKind::Int => "exact integer",
            CiphertextKind::Bits => "bit vector",
            CiphertextKind::Typed => "typed integer",
        }
    }
}

/// The kind of value in `data` when it is a ciphertext envelope (`None` for anything else,
/// which the envelope reader then refuses with its own error).
pub fn ciphertext_kind(data: &[u8]) -> Option<CiphertextKind> {
    let (header, payload) = envelope::read_header(data).ok()?;
    if header.kind != Kind::Ciphertext {
        return None;
    }
    Some(match payload.get(..8) {
        Some(tag) if tag == BITS_TAG => CiphertextKind::Bits,
        Some(tag) if TYPED_TAGS.iter().any(|t| t == tag) => CiphertextKind::Typed,
        _ => CiphertextKind::Int,
    })
}

/// Whether `data` is a ciphertext envelope of a seeded value ([`crate::io::seeded`]: tag
/// `ENCSINT1` or `ENCSTYP1`).
pub fn is_seeded(data: &[u8]) -> bool {
    matches!(payload_tag(data), Some(tag) if tag == SEEDED_INT_TAG || tag == SEEDED_TYPED_TAG)
}

/// Whether `data` is a ciphertext envelope of a value a client uploads: seeded
/// ([`is_seeded`]) or encrypted with the public key ([`crate::io::public`]: tag `ENCPINT1` or
/// `ENCPTYP1`).
pub fn is_upload(data: &[u8]) -> bool {
    is_seeded(data)
        || matches!(payload_tag(data), Some(tag) if tag == PUBLIC_INT_TAG || tag == PUBLIC_TYPED_TAG)
}

/// Errors unless `data` is a ciphertext envelope of `want` (or no ciphertext envelope at
/// all: the reader then names the problem, a key as [`crate::keys::EnvelopeError::WrongKind`]);
/// a ciphertext of another content (a packed result, a byte-processor link) is an error
/// naming what it holds ([`crate::io::contents`]).
pub fn expect_kind(data: &[u8], want: CiphertextKind) -> Result<()> {
    if let Ok(found) = crate::io::contents::identify(data)
        && found.is_ciphertext()
        && !found.is_value()
    {
        return Err(Error::Malformed(format!(
            "the file holds {}, not {}",
            found.name(),
            article(want.name())
        )));
    }
    match ciphertext_kind(data) {
        Some(found) if found != want => Err(Error::Malformed(format!(
            "the file holds {}, not {}",
            article(found.name()),
            article(want.name())
        ))),
        _ => Ok(()),
    }
}

/// `name` with its article (`an exact integer`, `a typed integer`).
fn article(name: &str) -> String {
    match name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        true => format!("an {name}"),
        false => format!("a {name}"),
    }
}

/// The payload of a typed value.
#[derive(Serialize, Deserialize)]
struct TypedPayload {
    tag: [u8; 8],
    bits: u32,
    signed: bool,
    canonical: bool,
    value: EncInt,
}

/// The payload of a bit vector.
#[derive(Serialize, Deserialize)]
struct BitsPayload {
    tag: [u8; 8],
    signed: bool,
    value: EncInt,
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
    fn validate(&self, params: &DigitParameters) -> std::result::Result<(), String> {
        if self.tag != TYPED_TAG && self.tag != TYPED_RADIX4_TAG {
            return Err("not a typed payload".into());
        }
        let bits = self.bits as usize;
        if !(1..=MAX_TYPED_BITS).contains(&bits) {
            return Err(format!("width {bits} outside 1..={MAX_TYPED_BITS}"));
        }
        // Canonical values have exactly `bits` digits, radix-4 ones exactly `⌈bits/2⌉`;
        // lazy operation results at most `bits`.
        let form = self.form();
        let want = form.digits(IntType {
            bits,
            signed: self.signed,
        });
        let n = self.value.len();
        if n > want || (form != Form::Lazy && n != want) {
            return Err(format!("{n} digits for a {bits}-bit value"));
        }
        self.value.validate(params)
    }
}

impl Validate for BitsPayload {
    fn validate(&self, params: &DigitParameters) -> std::result::Result<(), String> {
        if self.tag != BITS_TAG {
            return Err("not a bits payload".into());
        }
        let n = self.value.len();
        if !(1..=MAX_TYPED_BITS).contains(&n) {
            return Err(format!("{n} bits, outside 1..={MAX_TYPED_BITS}"));
        }
        self.value.validate(params)
    }
}

/// The envelope of a bit vector (`signed` read as two's complement), of parameter set
/// `params`.
pub fn seal_bits(bits: &EncInt, signed: bool, params: &DigitParameters) -> Result<Vec<u8>> {
    let payload = BitsPayload {
        tag: BITS_TAG,
        signed,
        value: bits.clone(),
    };
    Ok(envelope::seal(Kind::Ciphertext, params.id(), &payload)?)
}

/// The bits and signedness of a bit-vector envelope (every check of the envelope reader);
/// errors on an envelope of another kind of value.
pub fn open_bits(bytes: &[u8]) -> Result<(EncInt, bool)> {
    expect_kind(bytes, CiphertextKind::Bits)?;
    let p: BitsPayload = envelope::open_known(bytes, Kind::Ciphertext)?;
    Ok((p.value, p.signed))
}

impl EncTyped {
    /// Serializes into a ciphertext envelope of parameter set `params` (see the
    /// [module docs](self)).
    pub fn to_bytes(&self, params: &DigitParameters) -> Result<Vec<u8>> {
        let payload = TypedPayload {
            tag: if self.form() == Form::Radix4 {
                TYPED_RADIX4_TAG
            } else {
                TYPED_TAG
            },
            bits: self.ty().bits as u32,
            signed: self.ty().signed,
            canonical: self.form() == Form::Canonical,
            value: self.as_int().clone(),
        };
        Ok(envelope::seal(Kind::Ciphertext, params.id(), &payload)?)
    }

    /// Reads a typed value (or bits of an earlier release, or a seeded or public-key value,
    /// which is then expanded: see [`crate::io::seeded`]) from an envelope: magic, kind,
    /// version, parameter set, type and every digit checked. Errors on an envelope of
    /// another kind of value, or of a seeded array.
    pub fn from_bytes(bytes: &[u8]) -> Result<EncTyped> {
        if is_upload(bytes) {
            expect_kind(bytes, CiphertextKind::Typed)?;
            return crate::io::seeded::open_typed(bytes);
        }
        if ciphertext_kind(bytes) == Some(CiphertextKind::Bits) {
            let p: BitsPayload = envelope::open_known(bytes, Kind::Ciphertext)?;
            let ty = IntType::new(p.value.len(), p.signed)
                .map_err(|e| Error::Malformed(e.to_string()))?;
            // Unsigned bits are canonical digits; signed ones have their top bit as 0 or
            // 1, not negated: a representative modulo `2^n`, the lazy form.
            let form = if p.signed {
                Form::Lazy
            } else {
                Form::Canonical
            };
            return Ok(EncTyped::from_parts(p.value, ty, form));
        }
        expect_kind(bytes, CiphertextKind::Typed)?;
        let p: TypedPayload = envelope::open_known(bytes, Kind::Ciphertext)?;
        let ty =
            IntType::new(p.bits as usize, p.signed).map_err(|e| Error::Malformed(e.to_string()))?;
        let form = p.form();
        Ok(EncTyped::from_parts(p.value, ty, form))
    }
}

/// The file form of an exact integer (the envelope of [`crate::keys::envelope`]).
impl EncInt {
    /// Serializes into a versioned envelope (kind, format version, parameter set).
    pub fn to_bytes(&self, params: &DigitParameters) -> Result<Vec<u8>> {
        Ok(envelope::seal(Kind::Ciphertext, params.id(), self)?)
    }

    /// Reads an envelope written by [`EncInt::to_bytes`] or by
    /// [`crate::io::seeded::SeededInt::to_bytes`] (whose masks are then regenerated from the
    /// seed), checking kind, version, parameter set and every digit's dimension; errors
    /// on the envelope of a typed value (see [`crate::io::wire`]).
    pub fn from_bytes(bytes: &[u8], params: &DigitParameters) -> Result<Self> {
        expect_kind(bytes, CiphertextKind::Int)?;
        if is_upload(bytes) {
            return crate::io::seeded::open_int(bytes, Some(params));
        }
        Ok(envelope::open(bytes, Kind::Ciphertext, params.id())?)
    }

    /// [`EncInt::from_bytes`] for the parameter set the envelope names (any known one).
    pub fn from_bytes_known(bytes: &[u8]) -> Result<Self> {
        expect_kind(bytes, CiphertextKind::Int)?;
        if is_upload(bytes) {
            return crate::io::seeded::open_int(bytes, None);
        }
        Ok(envelope::open_known(bytes, Kind::Ciphertext)?)
    }
}
