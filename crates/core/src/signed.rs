//! Signed binary digit vectors: digits in {-1, 0, 1}, least significant first.
//!
//! A vector `d` represents `Σ d_i · 2^i`. The representation is redundant (`(1, -1)` and
//! `(0, 1)`... both read least significant first, `[-1, 1]` and `[1, 0]` both represent 1),
//! which is what makes parallel addition possible (Klemsa and Önen, "Parmesan: Parallel
//! ARithMETicS over ENcrypted data", §2.3).

use crate::CoreError;

/// One signed binary digit (-1, 0 or 1).
pub type SignedDigit = i8;

/// Checks that every digit is in {-1, 0, 1}.
pub fn check_digits(digits: &[SignedDigit]) -> Result<(), CoreError> {
    match digits.iter().position(|d| !(-1..=1).contains(d)) {
        Some(position) => Err(CoreError::DigitOutOfRange {
            position,
            value: i64::from(digits[position]),
        }),
        None => Ok(()),
    }
}

/// The standard binary digits of `|value|`, each carrying the sign of `value`.
///
/// The result has the minimal length (`[]` for zero).
///
/// ```
/// use encint_core::signed::{from_i128, to_i128};
/// let d = from_i128(-6);
/// assert_eq!(d, vec![0, -1, -1]);
/// assert_eq!(to_i128(&d).unwrap(), -6);
/// ```
pub fn from_i128(value: i128) -> Vec<SignedDigit> {
    let sign: SignedDigit = if value < 0 { -1 } else { 1 };
    let mut magnitude = value.unsigned_abs();
    let mut digits = Vec::new();
    while magnitude != 0 {
        digits.push(if magnitude & 1 == 1 { sign } else { 0 });
        magnitude >>= 1;
    }
    digits
}

/// Like [`from_i128`] but padded with zeros (or checked) to exactly `len` digits.
pub fn from_i128_len(value: i128, len: usize) -> Result<Vec<SignedDigit>, CoreError> {
    let mut digits = from_i128(value);
    if digits.len() > len {
        return Err(CoreError::Overflow { bits: len as u32 });
    }
    digits.resize(len, 0);
    Ok(digits)
}

/// The integer a signed binary vector represents; errors on bad digits or overflow.
pub fn to_i128(digits: &[SignedDigit]) -> Result<i128, CoreError> {
    check_digits(digits)?;
    let mut acc: i128 = 0;
    for &d in digits.iter().rev() {
        acc = acc
            .checked_mul(2)
            .and_then(|a| a.checked_add(i128::from(d)))
            .ok_or(CoreError::Overflow { bits: 128 })?;
    }
    Ok(acc)
}

/// Evaluates any digit vector (not necessarily signed binary) as `Σ d_i 2^i`.
pub fn eval_digits(digits: &[i64]) -> Option<i128> {
    let mut acc: i128 = 0;
    for &d in digits.iter().rev() {
        acc = acc.checked_mul(2)?.checked_add(i128::from(d))?;
    }
    Some(acc)
}

/// Algorithm 9 of Parmesan: converts a signed binary vector to standard binary.
///
/// Returns `(negative, bits)` with `bits` the standard binary digits (0/1, least
/// significant first, same length as the input) of `|X|`. Negative inputs are
/// handled by flipping all signs first (option 1 of Appendix A).
pub fn to_standard_binary(digits: &[SignedDigit]) -> Result<(bool, Vec<u8>), CoreError> {
    let value = to_i128(digits)?;
    let negative = value < 0;
    let mut work: Vec<i8> = digits
        .iter()
        .map(|&d| if negative { -d } else { d })
        .collect();
    work.push(0);
    borrow_pass(&mut work);
    // |X| < 2^n, so the extra digit is zero after the pass.
    debug_assert_eq!(work.last(), Some(&0));
    work.pop();
    Ok((negative, work.into_iter().map(|d| d as u8).collect()))
}

/// The borrow pass of Algorithm 9: every negative digit becomes `d + 2` with a
/// borrow from the next position. The last digit absorbs the final borrow.
fn borrow_pass(work: &mut [i8]) {
    let last = work.len() - 1;
    for i in 0..last {
        if work[i] < 0 {
            work[i] += 2;
            work[i + 1] -= 1;
        }
    }
}

/// Converts to `width`-bit two's complement (bits least significant first).
///
/// This is option 2 of Parmesan, Appendix A: extend to `width` digits, run the
/// borrow pass of Algorithm 9 and drop the leading -1 of a negative value.
/// Errors if the value does not fit in `width` bits.
///
/// ```
/// use encint_core::signed::to_twos_complement;
/// // -42 as 8-bit two's complement is 0b1101_0110.
/// let bits = to_twos_complement(&[0, -1, 0, -1, 0, -1], 8).unwrap();
/// assert_eq!(bits, vec![0, 1, 1, 0, 1, 0, 1, 1]);
/// ```
pub fn to_twos_complement(digits: &[SignedDigit], width: u32) -> Result<Vec<u8>, CoreError> {
    let value = to_i128(digits)?;
    if width == 0 || width > 127 {
        return Err(CoreError::InvalidArgument(format!(
            "two's complement width must be in 1..=127, got {width}"
        )));
    }
    let half = 1i128 << (width - 1);
    if value < -half || value >= half {
        return Err(CoreError::Overflow { bits: width });
    }
    let w = width as usize;
    // Digits above `width` may be non-zero in a redundant vector (e.g. [-1, 1] = 1):
    // fold them into the top position first; the value check above keeps this exact.
    let mut work = vec![0i8; w + 1];
    let mut high: i128 = 0;
    for (i, &d) in digits.iter().enumerate() {
        if i < w {
            work[i] = d;
        } else {
            high += i128::from(d) << (i - w);
        }
    }
    // `high` is the multiple of 2^w above the window; keep it as a wide top digit.
    let mut top: i128 = high;
    for i in 0..w {
        if work[i] < 0 {
            work[i] += 2;
            if i + 1 < w {
                work[i + 1] -= 1;
            } else {
                top -= 1;
            }
        } else if work[i] > 1 {
            work[i] -= 2;
            if i + 1 < w {
                work[i + 1] += 1;
            } else {
                top += 1;
            }
        }
    }
    // The value fits, so the part above the window is 0 (non-negative) or -1 (negative).
    debug_assert!(top == 0 || top == -1);
    work.truncate(w);
    Ok(work.into_iter().map(|d| d as u8).collect())
}

/// Reads `width`-bit two's complement bits (least significant first) as an integer.
pub fn from_twos_complement(bits: &[u8]) -> Result<i128, CoreError> {
    if bits.is_empty() || bits.len() > 127 {
        return Err(CoreError::InvalidArgument(
            "two's complement width must be in 1..=127".into(),
        ));
    }
    let mut acc: i128 = 0;
    for (i, &b) in bits.iter().enumerate() {
        if b > 1 {
            return Err(CoreError::DigitOutOfRange {
                position: i,
                value: i64::from(b),
            });
        }
        acc |= i128::from(b) << i;
    }
    let w = bits.len();
    if bits[w - 1] == 1 {
        acc -= 1i128 << w;
    }
    Ok(acc)
}

/// Number of non-zero digits.
pub fn hamming_weight(digits: &[SignedDigit]) -> usize {
    digits.iter().filter(|&&d| d != 0).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn zero_is_empty() {
        assert!(from_i128(0).is_empty());
        assert_eq!(to_i128(&[]).unwrap(), 0);
        assert_eq!(to_i128(&[0, 0, 0]).unwrap(), 0);
    }

    #[test]
    fn extremes_round_trip() {
        for v in [i128::MAX, i128::MIN + 1, 1, -1] {
            assert_eq!(to_i128(&from_i128(v)).unwrap(), v);
        }
    }

    #[test]
    fn all_minus_one_digits() {
        let d = vec![-1i8; 64];
        assert_eq!(to_i128(&d).unwrap(), -((1i128 << 64) - 1));
    }

    #[test]
    fn bad_digit_is_an_error() {
        assert_eq!(
            to_i128(&[1, 2]),
            Err(CoreError::DigitOutOfRange {
                position: 1,
                value: 2
            })
        );
        assert!(to_twos_complement(&[0, 3], 8).is_err());
    }

    #[test]
    fn overflow_is_an_error() {
        assert!(to_twos_complement(&[0, 0, 0, 0, 0, 0, 0, 1], 8).is_err());
        assert!(to_twos_complement(&[0, 0, 0, 0, 0, 0, 0, -1], 8).is_ok());
        assert!(to_i128(&[1i8; 128]).is_err());
    }

    fn signed_vec(max_len: usize) -> impl Strategy<Value = Vec<i8>> {
        prop::collection::vec(-1i8..=1, 0..max_len)
    }

    proptest! {
        #[test]
        fn i128_round_trip(v in any::<i64>()) {
            let d = from_i128(i128::from(v));
            prop_assert_eq!(to_i128(&d).unwrap(), i128::from(v));
            check_digits(&d).unwrap();
        }

        #[test]
        fn standard_binary_matches(d in signed_vec(100)) {
            // The value by a fold written here (not `to_i128`).
            let v = fold(&d);
            let (neg, bits) = to_standard_binary(&d).unwrap();
            prop_assert_eq!(bits.len(), d.len());
            prop_assert!(bits.iter().all(|&b| b <= 1));
            prop_assert_eq!(neg, v < 0);
            // The bits of |v| by shifts of the native integer.
            for (i, &b) in bits.iter().enumerate() {
                let want = if i < 127 { ((v.unsigned_abs() >> i) & 1) as u8 } else { 0 };
                prop_assert_eq!(b, want, "bit {}", i);
            }
        }

        #[test]
        fn twos_complement_matches(d in signed_vec(70), width in 1u32..=100) {
            let v = fold(&d);
            let fits = v >= -(1i128 << (width - 1)) && v < (1i128 << (width - 1));
            match to_twos_complement(&d, width) {
                Ok(bits) => {
                    prop_assert!(fits);
                    prop_assert_eq!(bits.len(), width as usize);
                    // Against the machine's own two's complement: bit i of the i128
                    // (an arithmetic shift sign-extends), not against our inverse.
                    for (i, &b) in bits.iter().enumerate() {
                        prop_assert_eq!(b, ((v >> i) & 1) as u8, "bit {}", i);
                    }
                }
                Err(_) => prop_assert!(!fits),
            }
        }

        #[test]
        fn from_twos_complement_matches(v in any::<i64>(), width in 1u32..=100) {
            // Reduce v into the width's range by arithmetic, then give the machine's bits.
            let w = width.min(64);
            let v = i128::from(v) >> (64 - w);
            let bits: Vec<u8> = (0..width).map(|i| ((v >> i) & 1) as u8).collect();
            prop_assert_eq!(from_twos_complement(&bits).unwrap(), v);
        }
    }

    /// Value of a digit vector by a fold written in the test.
    fn fold(d: &[i8]) -> i128 {
        d.iter().rev().fold(0i128, |a, &x| 2 * a + i128::from(x))
    }

    #[test]
    fn twos_complement_edges() {
        // -2^(w-1) and 2^(w-1) - 1 at every width, written directly in binary.
        for w in 1u32..=100 {
            let min: Vec<u8> = (0..w).map(|i| u8::from(i + 1 == w)).collect();
            let max: Vec<u8> = (0..w).map(|i| u8::from(i + 1 != w)).collect();
            let vmin = -(1i128 << (w - 1));
            let vmax = (1i128 << (w - 1)) - 1;
            assert_eq!(to_twos_complement(&from_i128(vmin), w).unwrap(), min);
            assert_eq!(to_twos_complement(&from_i128(vmax), w).unwrap(), max);
            assert_eq!(from_twos_complement(&min).unwrap(), vmin);
            assert_eq!(from_twos_complement(&max).unwrap(), vmax);
            assert!(to_twos_complement(&from_i128(vmax + 1), w).is_err());
            assert!(to_twos_complement(&from_i128(vmin - 1), w).is_err());
        }
    }
}
