//! [`EncInt`]: an encrypted signed binary integer, and the client-side
//! encryption and decryption.

use encint_tfhe::envelope::{self, Kind};
use encint_tfhe::{ClientKey, Digit, DigitParameters, KeySetId, Validate};
use num_bigint::BigInt;
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Most digits an [`EncInt`] may have: checked on encryption, on decoding and on every
/// operation's output before it runs (so the server never writes a ciphertext that the
/// client cannot read back).
pub const MAX_DIGITS: usize = 4096;

/// An encrypted integer: signed binary digits (least significant first), each an
/// LWE ciphertext of -1, 0 or 1, and the [`KeySetId`] of the keys it belongs to. Every
/// digit is fresh (a bootstrap output or a new encryption), so any operation may take it
/// as input.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EncInt {
    pub(crate) key_set: KeySetId,
    pub(crate) digits: Vec<Digit>,
}

impl EncInt {
    /// Number of digits.
    pub fn len(&self) -> usize {
        self.digits.len()
    }

    /// Whether the integer has no digits (it is then exactly 0).
    pub fn is_empty(&self) -> bool {
        self.digits.is_empty()
    }

    /// The digit ciphertexts.
    pub fn digits(&self) -> &[Digit] {
        &self.digits
    }

    /// The key set the integer was encrypted under.
    pub fn key_set(&self) -> KeySetId {
        self.key_set
    }

    /// Builds an integer of key set `key_set` from digit ciphertexts (each must hold
    /// -1, 0 or 1).
    pub fn from_digits(digits: Vec<Digit>, key_set: KeySetId) -> Self {
        EncInt { key_set, digits }
    }

    /// Serializes into a versioned envelope (kind, format version, parameter set).
    pub fn to_bytes(&self, params: &DigitParameters) -> Result<Vec<u8>> {
        Ok(envelope::seal(Kind::Ciphertext, params.id(), self)?)
    }

    /// Reads an envelope written by [`EncInt::to_bytes`] or by
    /// [`crate::seeded::SeededInt::to_bytes`] (whose masks are then regenerated from the
    /// seed), checking kind, version, parameter set and every digit's dimension; errors
    /// on the envelope of a typed value (see [`crate::wire`]).
    pub fn from_bytes(bytes: &[u8], params: &DigitParameters) -> Result<Self> {
        crate::wire::expect_kind(bytes, crate::wire::CiphertextKind::Int)?;
        if crate::wire::is_upload(bytes) {
            return crate::seeded::open_int(bytes, Some(params));
        }
        Ok(envelope::open(bytes, Kind::Ciphertext, params.id())?)
    }

    /// [`EncInt::from_bytes`] for the parameter set the envelope names (any known one).
    pub fn from_bytes_known(bytes: &[u8]) -> Result<Self> {
        crate::wire::expect_kind(bytes, crate::wire::CiphertextKind::Int)?;
        if crate::wire::is_upload(bytes) {
            return crate::seeded::open_int(bytes, None);
        }
        Ok(envelope::open_known(bytes, Kind::Ciphertext)?)
    }
}

impl Validate for EncInt {
    fn validate(&self, params: &DigitParameters) -> std::result::Result<(), String> {
        if self.digits.len() > MAX_DIGITS {
            return Err(format!(
                "{} digits is more than the {MAX_DIGITS} allowed",
                self.digits.len()
            ));
        }
        self.digits.validate(params)
    }
}

/// Encrypts `value` as exactly `digits` signed binary digits (its binary
/// expansion with the sign on every digit). Errors if it does not fit or `digits`
/// exceeds [`MAX_DIGITS`].
pub fn encrypt(client: &ClientKey, value: i128, digits: usize) -> Result<EncInt> {
    encrypt_big(client, &BigInt::from(value), digits)
}

/// [`encrypt`] for a value of any size: `|value| < 2^digits`, up to [`MAX_DIGITS`] digits.
pub fn encrypt_big(client: &ClientKey, value: &BigInt, digits: usize) -> Result<EncInt> {
    Ok(EncInt {
        key_set: client.key_set(),
        digits: crate::digits::signed_digits(value, digits)?
            .into_iter()
            .map(|d| client.encrypt_digit(d))
            .collect(),
    })
}

/// [`decrypt`] for a value of any size (an exact result may pass `i128`: a product of two
/// 100-digit values has 200 digits). Errors if it belongs to another key set or a digit
/// is not -1, 0 or 1.
pub fn decrypt_big(client: &ClientKey, x: &EncInt) -> Result<BigInt> {
    if x.key_set != client.key_set() {
        return Err(Error::WrongClientKey {
            key: client.key_set(),
            ciphertext: x.key_set,
        });
    }
    let values: Vec<i64> = x.digits.iter().map(|d| client.decrypt_digit(d)).collect();
    crate::digits::digits_value(&values)
}

/// Decrypts an integer. Errors if it belongs to another key set
/// ([`Error::WrongClientKey`]), a digit is not -1, 0 or 1 or the value overflows i128.
pub fn decrypt(client: &ClientKey, x: &EncInt) -> Result<i128> {
    i128::try_from(decrypt_big(client, x)?).map_err(|_| Error::Overflow)
}
