//! [`EncInt`]: an encrypted signed binary integer, and the client-side
//! encryption and decryption.

pub(crate) mod digits;

use encint_tfhe::{ClientKey, Digit, DigitParameters, KeySetId, Validate};
use num_bigint::BigInt;
use serde::{Deserialize, Serialize};

use crate::limits::MAX_DIGITS;
use crate::{Error, Result};

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
        digits: crate::int::digits::signed_digits(value, digits)?
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
    crate::int::digits::digits_value(&values)
}

/// Decrypts an integer. Errors if it belongs to another key set
/// ([`Error::WrongClientKey`]), a digit is not -1, 0 or 1 or the value overflows i128.
pub fn decrypt(client: &ClientKey, x: &EncInt) -> Result<i128> {
    i128::try_from(decrypt_big(client, x)?).map_err(|_| Error::Overflow)
}
