//! Everything that leaves or enters a process: files and their envelopes, uploads and
//! downloads.
//!
//! - [`files`]: the one writer and the one bounded reader behind every file.
//! - [`contents`]: what a file holds, named from its header ([`contents::identify`]).
//! - [`wire`]: ciphertext files of every value (exact integers, typed values, arrays).
//! - [`seeded`]: seeded uploads (one CSPRNG seed for every mask, one body per digit).
//! - [`public`]: public-key encryption and its compact uploads.
//! - [`packed`]: packed results, a few bytes per digit on the way back.

pub mod contents;
pub mod files;
pub mod packed;
pub mod public;
pub mod seeded;
pub mod wire;

use encint_tfhe::ClientKey;
use num_bigint::BigInt;

use crate::typed::{decrypt_typed, EncTyped, IntType};
use crate::{EncInt, Result};

/// The value a ciphertext file holds, as [`open`] reads it.
#[derive(Debug, Clone)]
pub enum Opened {
    /// An exact integer (expanded, seeded or encrypted with the public key).
    Int(EncInt),
    /// A typed value (expanded, seeded or encrypted with the public key; the bits of an
    /// earlier release's bit vectors read as one).
    Typed(EncTyped),
    /// A packed result ([`packed`]: what `eval --packed` returns).
    Packed(packed::PackedResult),
}

impl Opened {
    /// Decrypts the value with the client key: its integer, and its type for a typed value
    /// (`None` for an exact integer). Errors as each value's own decryption does (another
    /// key set's client key, a digit out of range).
    pub fn decrypt(&self, client: &ClientKey) -> Result<(BigInt, Option<IntType>)> {
        match self {
            Opened::Int(x) => Ok((crate::decrypt_big(client, x)?, None)),
            Opened::Typed(x) => Ok((BigInt::from(decrypt_typed(client, x)?), Some(x.ty()))),
            Opened::Packed(p) => match p.kind() {
                packed::PackedKind::Typed(ty, _) => {
                    Ok((BigInt::from(p.decrypt_typed(client)?), Some(ty)))
                }
                packed::PackedKind::Int => Ok((p.decrypt_int(client)?, None)),
            },
        }
    }
}

/// Reads any ciphertext file (the envelope of [`wire`]), whoever wrote it: the library,
/// the command-line tool or the Python package, expanded, seeded, public-key encrypted or
/// packed, of any known parameter set. Every check of each reader is made (kind, format
/// version, parameter set, digit dimensions, tags); the bytes of a key or another
/// non-ciphertext file are refused with what they hold (see [`contents::identify`]).
///
/// # Examples
///
/// ```
/// use encint::fhe::FheType;
/// use encint::{ClientKey, FheUint8, DEFAULT_PARAMETERS};
///
/// let (client, _server) = ClientKey::generate(&DEFAULT_PARAMETERS);
/// let bytes = FheUint8::encrypt(200u8, &client)?.to_bytes(&DEFAULT_PARAMETERS)?;
/// let opened = encint::io::open(&bytes)?;
/// let (value, ty) = opened.decrypt(&client)?;
/// assert_eq!(value, 200.into());
/// assert_eq!(ty.map(|t| t.to_string()), Some("u8".to_string()));
///
/// let exact = encint::encrypt(&client, -1234, 12)?;
/// let bytes = exact.to_bytes(&DEFAULT_PARAMETERS)?;
/// assert_eq!(encint::io::open(&bytes)?.decrypt(&client)?, ((-1234).into(), None));
/// // Bytes that are no ciphertext file are refused.
/// assert!(encint::io::open(b"not an envelope").is_err());
/// # Ok::<(), encint::Error>(())
/// ```
pub fn open(bytes: &[u8]) -> Result<Opened> {
    if wire::payload_tag(bytes) == Some(packed::PACKED_TAG) {
        return Ok(Opened::Packed(packed::PackedResult::from_bytes(bytes)?));
    }
    match wire::ciphertext_kind(bytes) {
        Some(wire::CiphertextKind::Typed | wire::CiphertextKind::Bits) => {
            Ok(Opened::Typed(EncTyped::from_bytes(bytes)?))
        }
        // An exact integer, or not a ciphertext envelope at all: the exact reader names
        // the problem.
        _ => Ok(Opened::Int(EncInt::from_bytes_known(bytes)?)),
    }
}
