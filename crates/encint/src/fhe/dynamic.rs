//! The family's operations on values of a type known at run time: the one implementation
//! behind the methods and operators of [`FheUint`](super::FheUint),
//! [`FheInt`](super::FheInt), [`FheBool`](super::FheBool) and [`FheValue`], which the
//! command-line tool and the Python package use.

use std::sync::Arc;

use encint_arith::typed::{Form, IntType, Op};
use encint_tfhe::ClientKey;

use super::compose::{Composer, Rhs, Value};
use super::repr::{self, Repr};
use super::{FheType, Operand};
use crate::typed::{decrypt_typed, encrypt_typed_as, EncTyped};
use crate::{Error, Result};

/// The type of a value however it is held.
pub(crate) fn repr_type(r: &Repr) -> IntType {
    match r {
        Repr::Cipher(x) => x.ty(),
        Repr::Traced(_, v) => v.ty(),
    }
}

/// Records `f` over `args`: into their trace when one is traced (every traced argument
/// must be of the same trace, and no argument a ciphertext), else as one circuit run on
/// this thread's server.
pub(crate) fn record(
    args: &[&Repr],
    f: impl FnOnce(&mut Composer<'_>, &[Value]) -> Result<Value>,
) -> Result<Repr> {
    record_many(args, |c, v| Ok(vec![f(c, v)?]))?
        .pop()
        .ok_or_else(|| Error::Internal("the operation built no output".into()))
}

/// [`record`] for an operation of several results (one circuit for all of them).
pub(crate) fn record_many(
    args: &[&Repr],
    f: impl FnOnce(&mut Composer<'_>, &[Value]) -> Result<Vec<Value>>,
) -> Result<Vec<Repr>> {
    let trace = args.iter().find_map(|r| match r {
        Repr::Traced(t, _) => Some(t.clone()),
        Repr::Cipher(_) => None,
    });
    let Some(trace) = trace else {
        let ciphers: Vec<&EncTyped> = args
            .iter()
            .filter_map(|r| match r {
                Repr::Cipher(x) => Some(x),
                Repr::Traced(..) => None,
            })
            .collect();
        return crate::server::with_server(|s| {
            let (outs, _) = s.typed_compose(&ciphers, f)?;
            Ok(outs.into_iter().map(Repr::Cipher).collect())
        });
    };
    let values = args
        .iter()
        .map(|r| match r {
            Repr::Traced(t, v) if Arc::ptr_eq(t, &trace) => Ok(v.clone()),
            Repr::Traced(..) => Err(Error::Tracing(
                "values of two traces in one operation".into(),
            )),
            Repr::Cipher(_) => Err(Error::Tracing(
                "a ciphertext inside a traced function: pass it as an argument".into(),
            )),
        })
        .collect::<Result<Vec<Value>>>()?;
    let vs = repr::compose(&trace, |c| f(c, &values))?;
    Ok(vs
        .into_iter()
        .map(|v| Repr::Traced(trace.clone(), v))
        .collect())
}

/// The output of a clear table of matches for `x` and whether one matched (see
/// [`Composer::match_value`]).
pub(crate) fn match_value(
    x: &Repr,
    pairs: &[(i128, i128)],
    default: i128,
    out: IntType,
) -> Result<(Repr, Repr)> {
    let mut outs = record_many(&[x], |c, v| {
        let (y, found) = c.match_value(&v[0], pairs, default, out)?;
        Ok(vec![y, found])
    })?;
    let found = outs.pop();
    match (outs.pop(), found) {
        (Some(y), Some(found)) => Ok((y, found)),
        _ => Err(Error::Internal("a table built no output".into())),
    }
}

/// The values of `operands` among a circuit's inputs `args` (a clear operand stays clear),
/// and the reprs to pass as inputs.
fn inputs<'a>(first: &'a [&'a Repr], operands: &[&Operand<'a>]) -> Vec<&'a Repr> {
    let mut v = first.to_vec();
    for o in operands {
        if let Operand::Value(r) = o {
            v.push(r);
        }
    }
    v
}

/// The in-circuit operands for `operands`, taking values in order from `values`.
fn in_circuit<'v>(
    operands: &[&Operand<'_>],
    values: &mut impl Iterator<Item = &'v Value>,
) -> Result<Vec<Rhs<'v>>> {
    operands
        .iter()
        .map(|o| match o {
            Operand::Value(_) => values
                .next()
                .map(Rhs::Value)
                .ok_or_else(|| Error::Internal("a missing operand".into())),
            Operand::Clear(k) => Ok(Rhs::Clear(*k)),
        })
        .collect()
}

/// A one-operand operation on `x` (see [`Composer::unary_op`]).
pub(crate) fn unary(op: Op, x: &Repr) -> Result<Repr> {
    record(&[x], |c, v| c.unary_op(op, &v[0]))
}

/// A two-operand operation on `x` and `rhs` (see [`Composer::binary_op`]).
pub(crate) fn binary(op: Op, x: &Repr, rhs: Operand<'_>) -> Result<Repr> {
    let first = [x];
    let args = inputs(&first, &[&rhs]);
    record(&args, |c, v| {
        let rest = in_circuit(&[&rhs], &mut v[1..].iter())?;
        c.binary_op(op, &v[0], rest[0])
    })
}

/// `|x|` modulo `2^N` (see [`Composer::abs`]).
pub(crate) fn abs(x: &Repr) -> Result<Repr> {
    if !repr_type(x).signed {
        return Ok(x.clone());
    }
    record(&[x], |c, v| c.abs(&v[0]))
}

/// `if cond { a } else { b }` (see [`Composer::select`]).
pub(crate) fn select(
    cond: &Repr,
    a: Operand<'_>,
    b: Operand<'_>,
    ty: Option<IntType>,
) -> Result<Repr> {
    let first = [cond];
    let args = inputs(&first, &[&a, &b]);
    record(&args, |c, v| {
        let rest = in_circuit(&[&a, &b], &mut v[1..].iter())?;
        c.select(&v[0], rest[0], rest[1], ty)
    })
}

/// The ciphertexts of a value, or an error for a value of a trace.
pub(crate) fn cipher(x: &Repr) -> Result<&EncTyped> {
    match x {
        Repr::Cipher(x) => Ok(x),
        Repr::Traced(..) => Err(Error::Tracing(
            "a value inside a traced function has no ciphertext yet".into(),
        )),
    }
}

/// `x` converted to `to` (to the boolean type: `x != 0`); errors without a type.
pub(crate) fn cast<O: FheType>(x: &Repr, to: Option<IntType>) -> Result<O> {
    let to = to.ok_or_else(|| Error::InvalidInput("a cast needs a target type".into()))?;
    O::from_repr(unary(Op::Cast(to), x)?)
}

/// An encrypted value of a type chosen at run time (what the command-line tool and the
/// Python package hold): the same operations as the typed family, through methods that
/// return errors.
///
/// # Examples
///
/// ```
/// use encint::fhe::{set_server_key, FheValue};
/// use encint::typed::{Op, IntType};
/// use encint::{ClientKey, DEFAULT_PARAMETERS};
///
/// let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
/// set_server_key(key);
/// let i16t = IntType::new(16, true).unwrap();
/// let a = FheValue::encrypt(-300, i16t, &client)?;
/// let b = FheValue::encrypt(7, i16t, &client)?;
/// let q = a.binary(Op::Div, &b)?;
/// assert_eq!(q.decrypt(&client)?, -42);
/// let r = a.binary(Op::Rem, 7)?; // a clear operand
/// assert_eq!(r.decrypt(&client)?, -6);
/// # Ok::<(), encint::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct FheValue {
    inner: Repr,
}

impl FheType for FheValue {
    fn static_type() -> Option<IntType> {
        None
    }
    fn repr(&self) -> &Repr {
        &self.inner
    }
    fn from_repr(repr: Repr) -> Result<Self> {
        Ok(FheValue { inner: repr })
    }
}

impl FheValue {
    /// The value of the dynamic family behind any value of the family.
    pub(crate) fn of(repr: Repr) -> FheValue {
        FheValue { inner: repr }
    }

    /// Encrypts `value` as a value of `ty`; errors if it is not one.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::FheValue;
    /// use encint::typed::IntType;
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let i5 = IntType::parse("i5")?; // any width from 1 to 128
    /// let x = FheValue::encrypt(-16, i5, &client)?;
    /// assert_eq!((x.ty(), x.decrypt(&client)?), (i5, -16));
    /// assert!(FheValue::encrypt(16, i5, &client).is_err()); // i5 holds -16..=15
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn encrypt(value: i128, ty: IntType, client: &ClientKey) -> Result<Self> {
        Self::encrypt_as(value, ty, Form::DEFAULT, client)
    }

    /// [`encrypt`](Self::encrypt) in a chosen stored form (see
    /// [`FheInteger::encrypt_as`](super::FheInteger::encrypt_as)).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{set_server_key, FheValue};
    /// use encint::typed::{Form, IntType, Op};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// set_server_key(server_key);
    /// let u8t = IntType::new(8, false)?;
    /// // One bit per digit:
    /// let x = FheValue::encrypt_as(0b1011_0110, u8t, Form::Canonical, &client)?;
    /// let y = x.unary(Op::Shl(3))?; // free on canonical bits
    /// assert_eq!(y.decrypt(&client)?, i128::from(0b1011_0110u8 << 3));
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn encrypt_as(value: i128, ty: IntType, form: Form, client: &ClientKey) -> Result<Self> {
        Ok(FheValue {
            inner: Repr::Cipher(encrypt_typed_as(client, value, ty, form)?),
        })
    }

    /// The value of `ty` congruent to the exact integer `x` modulo `2^N` (its low `N`
    /// digits, as Rust's `as` converts): free, no bootstrap. [`FheType::to_int`] goes
    /// back.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::FheValue;
    /// use encint::typed::IntType;
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let exact = encint::encrypt(&client, -200, 9)?;
    /// let x = FheValue::from_int(&exact, IntType::new(8, true)?)?;
    /// assert_eq!(x.decrypt(&client)?, i128::from(-200i16 as i8));
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn from_int(x: &crate::EncInt, ty: IntType) -> Result<Self> {
        Self::from_typed(EncTyped::from_int(x.clone(), ty)?)
    }

    /// Decrypts (an unsigned 128-bit value above `i128::MAX` comes as its negative
    /// pattern: read it as `u128`). Errors on another key set, on a corrupted
    /// ciphertext, or for a value of a trace.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::FheValue;
    /// use encint::typed::IntType;
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let u128t = IntType::new(128, false)?;
    /// let x = FheValue::encrypt(i128::MAX, u128t, &client)?;
    /// assert_eq!(x.decrypt(&client)? as u128, u128::MAX >> 1);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn decrypt(&self, client: &ClientKey) -> Result<i128> {
        decrypt_typed(client, cipher(&self.inner)?)
    }

    /// The type.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheValue};
    /// use encint::typed::{IntType, Op};
    ///
    /// let i8t = IntType::new(8, true)?;
    /// let f = compile_with(i8t, move |x: FheValue| {
    ///     assert_eq!(x.ty(), i8t);
    ///     let c = x.unary(Op::Cast(IntType::BOOL)).expect("a cast");
    ///     assert_eq!(c.ty(), IntType::BOOL);
    ///     c
    /// })?;
    /// assert_eq!(f.run_clear(&[-3])?, vec![i128::from(-3i8 != 0)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn ty(&self) -> IntType {
        repr_type(&self.inner)
    }

    /// A one-operand operation ([`Op::Cast`] to the boolean type is `!= 0`); errors on an
    /// operation of another arity or one the type lacks.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheValue};
    /// use encint::typed::{IntType, Op};
    ///
    /// let i8t = IntType::new(8, true)?;
    /// let f = compile_with(i8t, |x: FheValue| {
    ///     let y = x.unary(Op::Rotl(3)).expect("a rotation");
    ///     y.unary(Op::Cast(IntType::new(16, false).unwrap())).expect("a cast")
    /// })?;
    /// let x = -100i8;
    /// assert_eq!(f.run_clear(&[x.into()])?, vec![i128::from(x.rotate_left(3) as u16)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn unary(&self, op: Op) -> Result<Self> {
        Self::from_repr(unary(op, &self.inner)?)
    }

    /// A two-operand operation with a value of the same type or a clear value; shifts and
    /// rotations (`ShlVar`, `ShrVar`, `RotlVar`, `RotrVar`) take the amount modulo the
    /// width, an encrypted amount being unsigned of the same width. Errors on operands of
    /// two types, or an operation that takes other operands.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheValue};
    /// use encint::typed::{IntType, Op};
    ///
    /// let (i8t, u8t) = (IntType::new(8, true)?, IntType::new(8, false)?);
    /// let f = compile_with((i8t, i8t, u8t), |(a, b, c): (FheValue, FheValue, FheValue)| {
    ///     assert!(a.binary(Op::Add, &c).is_err()); // i8 and u8
    ///     let q = a.binary(Op::Div, &b).expect("two i8");
    ///     q.binary(Op::Mul, 3).expect("a clear operand")
    /// })?;
    /// let (a, b) = (-100i8, 7i8);
    /// let expected = a.wrapping_div(b).wrapping_mul(3);
    /// assert_eq!(f.run_clear(&[a.into(), b.into(), 0])?, vec![i128::from(expected)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn binary(&self, op: Op, rhs: impl super::IntoOperand<FheValue>) -> Result<Self> {
        Self::from_repr(binary(op, &self.inner, rhs.operand())?)
    }

    /// `|self|` modulo `2^N` (`abs(MIN) = MIN`; unsigned: `self`).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheValue};
    /// use encint::typed::IntType;
    ///
    /// let f = compile_with(IntType::new(8, true)?, |x: FheValue| x.abs().expect("|x|"))?;
    /// for v in [-7i8, 7, i8::MIN] {
    ///     assert_eq!(f.run_clear(&[v.into()])?, vec![i128::from(v.wrapping_abs())]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn abs(&self) -> Result<Self> {
        Self::from_repr(abs(&self.inner)?)
    }

    /// `if self { a } else { b }` for a boolean `self`; `a` and `b` values of one type or
    /// clear values.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheValue};
    /// use encint::typed::IntType;
    ///
    /// let u8t = IntType::new(8, false)?;
    /// let f = compile_with((IntType::BOOL, u8t), |(c, a): (FheValue, FheValue)| {
    ///     c.select(&a, 99).expect("a boolean condition")
    /// })?;
    /// for c in [true, false] {
    ///     assert_eq!(f.run_clear(&[c.into(), 5])?, vec![if c { 5 } else { 99 }]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn select(
        &self,
        a: impl super::IntoOperand<FheValue>,
        b: impl super::IntoOperand<FheValue>,
    ) -> Result<Self> {
        Self::from_repr(select(&self.inner, a.operand(), b.operand(), None)?)
    }
}
