//! The value behind every encrypted integer class: digit ciphertexts with their key set,
//! or plain digits in clear mode; and the conversions between Python ints and digits.

use encint::arith::SInt;
use encint::circuit::Builder;
use encint::EncInt as RInt;
use num_bigint::{BigInt, Sign};
use pyo3::prelude::*;

use crate::errors::{to_py, KeyMismatchError};

/// A value: encrypted digits, or plain digits in clear mode.
#[derive(Clone, Debug)]
pub enum Val {
    /// Digit ciphertexts with their key set.
    Enc(RInt),
    /// Plain digits (clear mode).
    Clear(Vec<i64>),
}

impl Val {
    /// Number of digits.
    pub fn len(&self) -> usize {
        match self {
            Val::Enc(x) => x.len(),
            Val::Clear(d) => d.len(),
        }
    }

    /// Whether there are no digits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether this is a clear-mode value.
    pub fn is_clear(&self) -> bool {
        matches!(self, Val::Clear(_))
    }

    /// `"clear"` or `"encrypted"` (for `repr`).
    pub fn mode(&self) -> &'static str {
        if self.is_clear() {
            "clear"
        } else {
            "encrypted"
        }
    }

    /// Encrypts digits with `key`, or keeps them as they are with the clear-mode key
    /// (`None`).
    pub fn seal(key: Option<&encint::ClientKey>, digits: Vec<i64>) -> Val {
        match key {
            Some(k) => Val::Enc(RInt::from_digits(
                digits.into_iter().map(|d| k.encrypt_digit(d)).collect(),
                k.key_set(),
            )),
            None => Val::Clear(digits),
        }
    }

    /// Decrypts the digits with `key` (or reads them, with the clear-mode key `None`),
    /// checking key sets and that every digit is in `allowed`.
    pub fn open(
        &self,
        key: Option<&encint::ClientKey>,
        allowed: std::ops::RangeInclusive<i64>,
    ) -> PyResult<Vec<i64>> {
        let digits = match (key, self) {
            (Some(k), Val::Enc(x)) => {
                if x.key_set() != k.key_set() {
                    return Err(to_py(encint::Error::WrongClientKey {
                        key: k.key_set(),
                        ciphertext: x.key_set(),
                    }));
                }
                x.digits().iter().map(|d| k.decrypt_digit(d)).collect()
            }
            (None, Val::Clear(d)) => d.clone(),
            (Some(_), Val::Clear(_)) => {
                return Err(KeyMismatchError::new_err(
                    "a clear-mode value given to a real client key",
                ))
            }
            (None, Val::Enc(_)) => {
                return Err(KeyMismatchError::new_err(
                    "an encrypted value given to the clear-mode key",
                ))
            }
        };
        if let Some((position, value)) = digits
            .iter()
            .enumerate()
            .find(|(_, d)| !allowed.contains(d))
        {
            return Err(to_py(encint::Error::DigitOutOfRange {
                position,
                value: *value,
            }));
        }
        Ok(digits)
    }
}

/// Signed binary digits of `v`: its binary expansion with the sign on every digit.
pub fn digits_of(v: &BigInt) -> Vec<i64> {
    let s = match v.sign() {
        Sign::Minus => -1,
        _ => 1,
    };
    let m = v.magnitude();
    (0..m.bits())
        .map(|i| if m.bit(i) { s } else { 0 })
        .collect()
}

/// The value of signed binary digits (least significant first).
pub fn value_of(digits: &[i64]) -> BigInt {
    digits
        .iter()
        .rev()
        .fold(BigInt::from(0), |acc, &d| acc * 2 + d)
}

/// Number of signed binary digits of a Python int constant.
pub fn const_len(k: &BigInt) -> usize {
    usize::try_from(k.bits()).unwrap_or(usize::MAX)
}

/// `v` as constant digits of a circuit.
pub fn const_sint(b: &mut Builder, v: &BigInt) -> SInt {
    SInt {
        digits: digits_of(v).into_iter().map(|d| b.constant(d)).collect(),
    }
}

/// An operand of an operator: a value (an input of the circuit) or a constant `C`.
pub enum Operand<C> {
    /// A value of the same type.
    Val(Val),
    /// A constant (a Python int, as the type holds it).
    Const(C),
}

impl Operand<BigInt> {
    /// Number of digits (of a constant: its signed binary digits).
    pub fn width(&self) -> usize {
        match self {
            Operand::Val(v) => v.len(),
            Operand::Const(k) => const_len(k),
        }
    }
}

/// The inputs of one circuit on `first` and `operands`: the values, `first` at index 0;
/// and for each operand the index of its input, or its constant.
pub fn circuit_inputs<'a, C: Clone>(
    first: &'a Val,
    operands: &'a [Operand<C>],
) -> (Vec<&'a Val>, Vec<Result<usize, C>>) {
    let mut vals = vec![first];
    let slots = operands
        .iter()
        .map(|o| match o {
            Operand::Val(v) => {
                vals.push(v);
                Ok(vals.len() - 1)
            }
            Operand::Const(c) => Err(c.clone()),
        })
        .collect();
    (vals, slots)
}
