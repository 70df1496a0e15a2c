//! `EncTyped`, its operands and its values: types, ranges, canonical digits, encryption.

use encint::typed::{Form, IntType, MAX_TYPED_BITS};
use num_bigint::BigInt;
use pyo3::prelude::*;

use crate::errors::{invalid, limit};
use crate::guard::detached;
use crate::value::{range_of, twos_complement_bits, value_in_base, value_of, Val};

/// An encrypted integer of a fixed type (`bits` wide, signed or unsigned) with the
/// operations and semantics of TFHE-rs' `FheInt`/`FheUint`: every result is reduced modulo
/// `2**bits` (wrapping).
///
/// Operators: `+ - * // % & | ^ ~ -x << >>`, comparisons `< <= > >= == !=` (an encrypted
/// 0 or 1 of type `u1`), `min`, `max`, `rotate_left`, `rotate_right`, `cast`,
/// `encint.select`. Operands are `EncTyped` values of the same type or Python ints that
/// are values of the type. Unlike Python ints, `//` truncates toward zero and `%` takes
/// the dividend's sign (Rust's and TFHE-rs' semantics; the same as Python's for unsigned
/// types); `MIN // -1 == MIN`; division by an encrypted 0 gives all ones (unsigned), `-1`
/// (dividend >= 0) or `1` (dividend < 0) (signed), and the remainder is the dividend. Shift
/// amounts at or above the width give 0 (right shifts of a negative value: -1); an
/// encrypted amount is read as an unsigned `bits`-bit pattern.
#[pyclass(module = "encint._encint", frozen)]
#[derive(Clone)]
pub struct EncTyped {
    pub(super) val: Val,
    pub(super) ty: IntType,
    pub(super) form: Form,
}

/// An operand: a value of the same type or a constant (a value of the type).
pub enum TArg {
    /// A value and its form.
    Val(Val, Form),
    /// A Python int.
    Const(BigInt),
}

/// The type of `bits` bits, or a `LimitError`.
pub(super) fn type_of(bits: usize, signed: bool) -> PyResult<IntType> {
    IntType::new(bits, signed)
        .map_err(|_| limit(format!("width {bits} outside 1..={MAX_TYPED_BITS}")))
}

/// The smallest and largest value of `ty` (as Python ints: unsigned 128 bits included).
pub(super) fn range(ty: IntType) -> (BigInt, BigInt) {
    range_of(ty.bits, ty.signed)
}

/// `v` reduced modulo `2^bits` into the range of `ty`.
pub(super) fn wrap(ty: IntType, v: &BigInt) -> BigInt {
    let m = BigInt::from(1) << ty.bits;
    let mut u = ((v % &m) + &m) % &m;
    if ty.signed && u >= (&m >> 1) {
        u -= &m;
    }
    u
}

/// The canonical digits of a value of `ty`: its two's-complement bits, the top one
/// negated when signed.
pub(super) fn canonical_digits(ty: IntType, v: &BigInt) -> PyResult<Vec<i64>> {
    let (lo, hi) = range(ty);
    if *v < lo || *v > hi {
        return Err(invalid(format!("{v} is not a value of {ty}")));
    }
    let mut digits: Vec<i64> = twos_complement_bits(v, ty.bits)
        .into_iter()
        .map(i64::from)
        .collect();
    if ty.signed {
        digits[ty.bits - 1] = -digits[ty.bits - 1];
    }
    Ok(digits)
}

/// `k` as a scalar of the `Op` variants that take one, when it is a value of `ty` that
/// fits an `i128` (else the operation takes it as a constant operand).
pub(super) fn scalar(ty: IntType, k: &BigInt) -> Option<i128> {
    let (lo, hi) = range(ty);
    if *k < lo || *k > hi {
        return None;
    }
    i128::try_from(k).ok()
}

impl EncTyped {
    /// `value` as a value of `bits` bits, `signed` or not, in `form` (`"canonical"` or
    /// `"radix4"`), encrypted with `key` (clear mode: `None`).
    pub(crate) fn encrypt(
        py: Python<'_>,
        key: Option<&encint::ClientKey>,
        value: BigInt,
        bits: usize,
        signed: bool,
        form: &str,
    ) -> PyResult<EncTyped> {
        let ty = type_of(bits, signed)?;
        let form = match Form::from_name(form) {
            Some(f @ (Form::Canonical | Form::Radix4)) => f,
            _ => {
                return Err(invalid(format!(
                    "unknown form {form:?} (canonical or radix4)"
                )))
            }
        };
        let mut digits = canonical_digits(ty, &value)?;
        if form == Form::Radix4 {
            // Blocks of two bits of the unsigned pattern (canonical digits are its bits,
            // the top one negated when signed).
            digits = digits
                .chunks(2)
                .map(|p| p.iter().enumerate().map(|(k, d)| d.abs() << k).sum())
                .collect();
        }
        let val = detached(py, || Ok(Val::seal(key, digits)))?;
        Ok(EncTyped { val, ty, form })
    }

    /// The value, decrypted with `key` (clear mode: `None`).
    pub(crate) fn decrypt(
        &self,
        py: Python<'_>,
        key: Option<&encint::ClientKey>,
    ) -> PyResult<BigInt> {
        let v = if self.form == Form::Radix4 {
            value_in_base(&detached(py, || self.val.open(key, 0..=3))?, 4)
        } else {
            value_of(&detached(py, || self.val.open(key, -1..=1))?)
        };
        Ok(wrap(self.ty, &v))
    }
}
