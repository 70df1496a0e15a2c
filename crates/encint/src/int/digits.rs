//! The signed binary digits of a big integer, as exact integers and uploads encrypt them,
//! and the integer of decrypted digits, as decryption and packed results read them.

use num_bigint::{BigInt, Sign};

use crate::limits::MAX_DIGITS;
use crate::{Error, Result};

/// The `digits` signed binary digits of `value` (its binary expansion with the sign on
/// every digit), least significant first. Errors if it does not fit or `digits` exceeds
/// [`MAX_DIGITS`].
pub(crate) fn signed_digits(value: &BigInt, digits: usize) -> Result<Vec<i64>> {
    if digits > MAX_DIGITS {
        return Err(Error::LimitExceeded(format!(
            "{digits} digits is more than the {MAX_DIGITS} allowed"
        )));
    }
    let magnitude = value.magnitude();
    if magnitude.bits() > digits as u64 {
        return Err(Error::OutOfRange(format!(
            "{value} does not fit in {digits} signed binary digits"
        )));
    }
    let sign: i64 = if value.sign() == Sign::Minus { -1 } else { 1 };
    Ok((0..digits as u64)
        .map(|i| if magnitude.bit(i) { sign } else { 0 })
        .collect())
}

/// The integer of decrypted signed binary digits (least significant first); errors with
/// [`Error::DigitOutOfRange`] for a digit not in `-1..=1`.
pub(crate) fn digits_value(values: &[i64]) -> Result<BigInt> {
    let mut acc = BigInt::from(0);
    for (position, &value) in values.iter().enumerate().rev() {
        if !(-1..=1).contains(&value) {
            return Err(Error::DigitOutOfRange { position, value });
        }
        acc = acc * 2 + value;
    }
    Ok(acc)
}
