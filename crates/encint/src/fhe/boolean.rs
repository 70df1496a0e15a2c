//! [`FheBool`]: an encrypted boolean, the result of comparisons and the condition of
//! selections.

use encint_arith::typed::{IntType, Op};
use encint_tfhe::{ClientKey, KeySetId};

use super::dynamic::{self, cipher};
use super::{check_type, or_panic, wrap, FheType, IntoOperand, Operand, Repr};
use crate::typed::{decrypt_typed, encrypt_typed, EncTyped};
use crate::{Error, Result};

/// An encrypted boolean (one digit holding 0 or 1).
#[derive(Debug, Clone)]
pub struct FheBool {
    inner: Repr,
}

fixed_type!([] FheBool, IntType::BOOL);

impl IntoOperand<FheBool> for bool {
    fn operand(&self) -> Operand<'_> {
        Operand::Clear(i128::from(*self))
    }
}

impl FheBool {
    /// Encrypts `value`.
    pub fn encrypt(value: bool, client: &ClientKey) -> Result<Self> {
        Ok(FheBool {
            inner: Repr::Cipher(encrypt_typed(client, i128::from(value), IntType::BOOL)?),
        })
    }

    /// Decrypts; errors on another key set or a corrupted ciphertext.
    pub fn decrypt(&self, client: &ClientKey) -> Result<bool> {
        match decrypt_typed(client, cipher(&self.inner)?)? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(Error::OutOfRange(format!(
                "a boolean decrypts to {v}, not 0 or 1"
            ))),
        }
    }

    /// The key set the value belongs to (none for a value of a trace).
    pub fn key_set(&self) -> Option<KeySetId> {
        self.as_typed().map(EncTyped::key_set)
    }

    /// `if self { a } else { b }`, for values of any type of the family (`a` or `b` may be
    /// a clear value of that type).
    pub fn select<T: FheType>(&self, a: impl IntoOperand<T>, b: impl IntoOperand<T>) -> T {
        or_panic(self.try_select(a, b))
    }

    /// [`FheBool::select`] (TFHE-rs' name).
    pub fn if_then_else<T: FheType>(&self, a: impl IntoOperand<T>, b: impl IntoOperand<T>) -> T {
        self.select(a, b)
    }

    /// [`FheBool::select`], returning an error where it would panic.
    pub fn try_select<T: FheType>(
        &self,
        a: impl IntoOperand<T>,
        b: impl IntoOperand<T>,
    ) -> Result<T> {
        let ty = T::static_type();
        wrap(dynamic::select(&self.inner, a.operand(), b.operand(), ty))
    }

    /// `self == rhs`.
    pub fn eq(&self, rhs: impl IntoOperand<Self>) -> FheBool {
        or_panic(wrap(dynamic::binary(Op::EQ, &self.inner, rhs.operand())))
    }

    /// `self != rhs`.
    pub fn ne(&self, rhs: impl IntoOperand<Self>) -> FheBool {
        or_panic(wrap(dynamic::binary(Op::NE, &self.inner, rhs.operand())))
    }

    /// `self` as an integer of type `T` (0 or 1).
    pub fn cast_into<T: FheType>(&self) -> T {
        or_panic(dynamic::cast(&self.inner, T::static_type()))
    }

    /// `op` (and, or, xor) on `self` and `rhs`, or an error where the operator would
    /// panic.
    pub fn try_binary(&self, op: Op, rhs: impl IntoOperand<Self>) -> Result<Self> {
        match op {
            Op::And | Op::Or | Op::Xor => wrap(dynamic::binary(op, &self.inner, rhs.operand())),
            _ => Err(Error::TypeMismatch(format!(
                "{op} is not an operation on booleans"
            ))),
        }
    }

    /// `!self`, or an error where the operator would panic.
    pub fn try_not(&self) -> Result<Self> {
        wrap(dynamic::unary(Op::Not, &self.inner))
    }
}
