//! [`FheBool`]: an encrypted boolean, the result of comparisons and the condition of
//! selections.

use encint_arith::typed::{IntType, Op};
use encint_tfhe::{ClientKey, KeySetId};

use super::dynamic::{self, cipher};
use super::{check_type, or_panic, wrap, FheType, IntoOperand, Operand, Repr};
use crate::typed::{decrypt_typed, encrypt_typed, EncTyped};
use crate::{Error, Result};

/// An encrypted boolean (one digit holding 0 or 1).
///
/// The operators `&`, `|`, `^` (with an [`FheBool`] or a clear `bool` on the right, and
/// their `&=` ... forms) and `!` each run one circuit on this thread's server, or are
/// recorded inside [`compile`](super::compile), which needs no key.
///
/// # Examples
///
/// ```
/// use encint::fhe::{compile, FheBool};
///
/// let f = compile(|(a, b): (FheBool, FheBool)| (&a & &b, &a | &b, &a ^ true, !&b))?;
/// for (a, b) in [(false, true), (true, true), (false, false)] {
///     let expected = [a & b, a | b, a ^ true, !b].map(i128::from).to_vec();
///     assert_eq!(f.run_clear(&[a.into(), b.into()])?, expected);
/// }
/// # Ok::<(), encint::Error>(())
/// ```
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
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::FheBool;
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let t = FheBool::encrypt(true, &client)?;
    /// assert!(t.decrypt(&client)?);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn encrypt(value: bool, client: &ClientKey) -> Result<Self> {
        Ok(FheBool {
            inner: Repr::Cipher(encrypt_typed(client, i128::from(value), IntType::BOOL)?),
        })
    }

    /// Decrypts; errors on another key set or a corrupted ciphertext.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{set_server_key, FheBool};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// set_server_key(server_key);
    /// let (a, b) = (FheBool::encrypt(true, &client)?, FheBool::encrypt(false, &client)?);
    /// assert_eq!((&a ^ &b).decrypt(&client)?, true ^ false);
    /// # Ok::<(), encint::Error>(())
    /// ```
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
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::FheBool;
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// assert_eq!(FheBool::encrypt(false, &client)?.key_set(), Some(client.key_set()));
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn key_set(&self) -> Option<KeySetId> {
        self.as_typed().map(EncTyped::key_set)
    }

    /// `if self { a } else { b }`, for values of any type of the family (`a` or `b` may be
    /// a clear value of that type).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheBool, FheInt8};
    ///
    /// let f = compile(|(c, a, b): (FheBool, FheInt8, FheInt8)| c.select(&a, &b))?;
    /// for c in [true, false] {
    ///     let expected = if c { -5 } else { 9 };
    ///     assert_eq!(f.run_clear(&[c.into(), -5, 9])?, vec![expected]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn select<T: FheType>(&self, a: impl IntoOperand<T>, b: impl IntoOperand<T>) -> T {
        or_panic(self.try_select(a, b))
    }

    /// [`FheBool::select`] (TFHE-rs' name).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheBool, FheUint8};
    ///
    /// // A clear branch: `if c { a } else { 0 }`.
    /// let f = compile(|(c, a): (FheBool, FheUint8)| c.if_then_else(&a, 0u8))?;
    /// assert_eq!(f.run_clear(&[1, 200])?, vec![200]);
    /// assert_eq!(f.run_clear(&[0, 200])?, vec![0]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn if_then_else<T: FheType>(&self, a: impl IntoOperand<T>, b: impl IntoOperand<T>) -> T {
        self.select(a, b)
    }

    /// [`FheBool::select`], returning an error where it would panic.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{FheBool, FheUint8};
    /// use encint::{ClientKey, Error, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let c = FheBool::encrypt(true, &client)?;
    /// let (a, b) = (FheUint8::encrypt(1u8, &client)?, FheUint8::encrypt(2u8, &client)?);
    /// // No server key set on this thread: `select` would panic.
    /// assert!(matches!(c.try_select(&a, &b), Err(Error::NoServer)));
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn try_select<T: FheType>(
        &self,
        a: impl IntoOperand<T>,
        b: impl IntoOperand<T>,
    ) -> Result<T> {
        let ty = T::static_type();
        wrap(dynamic::select(&self.inner, a.operand(), b.operand(), ty))
    }

    /// `self == rhs` (`rhs` an [`FheBool`] or a clear `bool`).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheBool};
    ///
    /// let f = compile(|(a, b): (FheBool, FheBool)| a.eq(&b))?;
    /// for (a, b) in [(true, false), (true, true), (false, false)] {
    ///     assert_eq!(f.run_clear(&[a.into(), b.into()])?, vec![i128::from(a == b)]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn eq(&self, rhs: impl IntoOperand<Self>) -> FheBool {
        or_panic(wrap(dynamic::binary(Op::EQ, &self.inner, rhs.operand())))
    }

    /// `self != rhs` (`rhs` an [`FheBool`] or a clear `bool`).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheBool};
    ///
    /// let f = compile(|(a, b): (FheBool, FheBool)| a.ne(true))?;
    /// for (a, b) in [(true, false), (true, true), (false, false)] {
    ///     assert_eq!(f.run_clear(&[a.into(), b.into()])?, vec![i128::from(a != true)]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn ne(&self, rhs: impl IntoOperand<Self>) -> FheBool {
        or_panic(wrap(dynamic::binary(Op::NE, &self.inner, rhs.operand())))
    }

    /// `self` as an integer of type `T` (0 or 1).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheBool, FheInt8};
    ///
    /// let f = compile(|c: FheBool| c.cast_into::<FheInt8>())?;
    /// assert_eq!(f.run_clear(&[1])?, vec![i128::from(true as i8)]);
    /// assert_eq!(f.run_clear(&[0])?, vec![i128::from(false as i8)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn cast_into<T: FheType>(&self) -> T {
        or_panic(dynamic::cast(&self.inner, T::static_type()))
    }

    /// `op` (and, or, xor) on `self` and `rhs`, or an error where the operator would
    /// panic.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheBool};
    /// use encint::typed::Op;
    ///
    /// let f = compile(|(a, b): (FheBool, FheBool)| {
    ///     assert!(a.try_binary(Op::Add, &b).is_err()); // no operation on booleans
    ///     a.try_binary(Op::Or, &b).expect("or")
    /// })?;
    /// assert_eq!(f.run_clear(&[0, 1])?, vec![i128::from(false | true)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn try_binary(&self, op: Op, rhs: impl IntoOperand<Self>) -> Result<Self> {
        match op {
            Op::And | Op::Or | Op::Xor => wrap(dynamic::binary(op, &self.inner, rhs.operand())),
            _ => Err(Error::TypeMismatch(format!(
                "{op} is not an operation on booleans"
            ))),
        }
    }

    /// `!self`, or an error where the operator would panic.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheBool};
    ///
    /// let f = compile(|a: FheBool| a.try_not().expect("not"))?;
    /// assert_eq!(f.run_clear(&[1])?, vec![i128::from(!true)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn try_not(&self) -> Result<Self> {
        wrap(dynamic::unary(Op::Not, &self.inner))
    }
}
