//! The family's operations on values of a type known at run time: the one implementation
//! behind the methods and operators of [`FheUint`](super::FheUint),
//! [`FheInt`](super::FheInt), [`FheBool`](super::FheBool) and [`FheValue`], which the
//! command-line tool and the Python package use.

use std::sync::Arc;

use encint_arith::typed::{IntOp, IntType};
use encint_tfhe::ClientKey;

use super::compose::{Composer, Value};
use super::trace::Repr;
use super::{FheType, Operand};
use crate::typed::{decrypt_typed, encrypt_typed, EncTyped};
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
            let (mut outs, _) = s.typed_compose(&ciphers, |c, x| Ok(vec![f(c, x)?]))?;
            outs.pop()
                .map(Repr::Cipher)
                .ok_or_else(|| Error::InvalidInput("the operation built no output".into()))
        });
    };
    let values = args
        .iter()
        .map(|r| match r {
            Repr::Traced(t, v) if Arc::ptr_eq(t, &trace) => Ok(v.clone()),
            Repr::Traced(..) => Err(Error::InvalidInput(
                "values of two traces in one operation".into(),
            )),
            Repr::Cipher(_) => Err(Error::InvalidInput(
                "a ciphertext inside a traced function: pass it as an argument".into(),
            )),
        })
        .collect::<Result<Vec<Value>>>()?;
    let v = trace.compose(|c| f(c, &values))?;
    Ok(Repr::Traced(trace, v))
}

fn is_shift(op: IntOp) -> bool {
    matches!(
        op,
        IntOp::ShlVar | IntOp::ShrVar | IntOp::RotlVar | IntOp::RotrVar
    )
}

/// A one-operand operation on `x` (a cast to the boolean type is `x != 0`).
pub(crate) fn unary(op: IntOp, x: &Repr) -> Result<Repr> {
    if op.arity() != 1 {
        return Err(Error::InvalidInput(format!(
            "{op} is not a one-operand operation"
        )));
    }
    let from = repr_type(x);
    record(&[x], |c, v| match op {
        IntOp::Cast(to) if to == IntType::BOOL && from != IntType::BOOL => {
            let zero = c.constant(from, 0);
            c.apply(IntOp::Ne, &[&v[0], &zero])
        }
        op => c.apply(op, &[&v[0]]),
    })
}

/// A two-operand operation (a comparison included) on `x` and `rhs`; a clear `rhs` is
/// converted to `x`'s type as `as` does and folded (products, quotients and remainders
/// by a clear value take the scalar circuits). Shifts and rotations read the amount
/// modulo the width ([`shift`]).
pub(crate) fn binary(op: IntOp, x: &Repr, rhs: Operand<'_>) -> Result<Repr> {
    if op.arity() != 2 {
        return Err(Error::InvalidInput(format!(
            "{op} is not a two-operand operation"
        )));
    }
    let ty = repr_type(x);
    match (op, rhs) {
        (op, rhs) if is_shift(op) => shift(op, x, rhs),
        (IntOp::WrappingMul, Operand::Clear(k)) => unary(IntOp::WrappingScalarMul(k), x),
        (IntOp::Div, Operand::Clear(k)) => unary(IntOp::DivScalar(ty.wrap(k)), x),
        (IntOp::Rem, Operand::Clear(k)) => unary(IntOp::RemScalar(ty.wrap(k)), x),
        (op, Operand::Value(r)) => record(&[x, r], |c, v| c.apply(op, &[&v[0], &v[1]])),
        (op, Operand::Clear(k)) => record(&[x], |c, v| {
            let k = c.constant(ty, k);
            c.apply(op, &[&v[0], &k])
        }),
    }
}

/// Shift or rotation of `x` (`op` one of `ShlVar`, `ShrVar`, `RotlVar`, `RotrVar`) by an
/// amount taken modulo the width `N`: a clear non-negative amount, or an unsigned value
/// of width `N`.
pub(crate) fn shift(op: IntOp, x: &Repr, amount: Operand<'_>) -> Result<Repr> {
    let ty = repr_type(x);
    let n = ty.bits;
    match amount {
        Operand::Clear(k) if k < 0 => {
            Err(Error::InvalidInput(format!("negative shift amount {k}")))
        }
        Operand::Clear(k) => {
            let k = (k % n as i128) as u32;
            let op = match op {
                IntOp::ShlVar => IntOp::Shl(k),
                IntOp::ShrVar => IntOp::Shr(k),
                IntOp::RotlVar => IntOp::Rotl(k),
                _ => IntOp::Rotr(k),
            };
            unary(op, x)
        }
        Operand::Value(s) => {
            let unsigned = IntType {
                bits: n,
                signed: false,
            };
            if repr_type(s) != unsigned {
                return Err(Error::InvalidInput(format!(
                    "a shift amount of type {}, not {unsigned}",
                    repr_type(s)
                )));
            }
            record(&[x, s], |c, v| {
                // Shifts read the amount modulo N; rotations do already.
                let amount = match op {
                    IntOp::ShlVar | IntOp::ShrVar if n.is_power_of_two() => {
                        let mask = c.constant(unsigned, n as i128 - 1);
                        c.apply(IntOp::And, &[&v[1], &mask])?
                    }
                    IntOp::ShlVar | IntOp::ShrVar => {
                        c.apply(IntOp::RemScalar(n as i128), &[&v[1]])?
                    }
                    _ => v[1].clone(),
                };
                let amount = amount.reinterpret(ty)?;
                c.apply(op, &[&v[0], &amount])
            })
        }
    }
}

/// `|x|` modulo `2^N` (`abs(MIN) = MIN`); an unsigned `x` as it is.
pub(crate) fn abs(x: &Repr) -> Result<Repr> {
    let ty = repr_type(x);
    if !ty.signed {
        return Ok(x.clone());
    }
    record(&[x], |c, v| {
        let zero = c.constant(ty, 0);
        let negative = c.apply(IntOp::Lt, &[&v[0], &zero])?;
        let minus = c.apply(IntOp::WrappingNeg, &[&v[0]])?;
        c.apply(IntOp::Select, &[&negative, &minus, &v[0]])
    })
}

/// `if cond { a } else { b }`; the branches' type is a branch value's, or `ty` when both
/// are clear.
pub(crate) fn select(
    cond: &Repr,
    a: Operand<'_>,
    b: Operand<'_>,
    ty: Option<IntType>,
) -> Result<Repr> {
    if repr_type(cond) != IntType::BOOL {
        return Err(Error::InvalidInput(format!(
            "a condition of type {}, not a boolean",
            repr_type(cond)
        )));
    }
    let ty = [&a, &b]
        .iter()
        .find_map(|o| match o {
            Operand::Value(r) => Some(repr_type(r)),
            Operand::Clear(_) => None,
        })
        .or(ty)
        .ok_or_else(|| {
            Error::InvalidInput("a selection between two clear values needs a type".into())
        })?;
    let mut inputs = vec![cond];
    for o in [&a, &b] {
        if let Operand::Value(x) = o {
            inputs.push(x);
        }
    }
    record(&inputs, |c, x| {
        let mut next = x[1..].iter();
        let mut value = |o: &Operand<'_>| match o {
            Operand::Value(_) => next
                .next()
                .cloned()
                .ok_or_else(|| Error::InvalidInput("select: a missing operand".into())),
            Operand::Clear(k) => Ok(c.constant(ty, *k)),
        };
        let (a, b) = (value(&a)?, value(&b)?);
        c.apply(IntOp::Select, &[&x[0], &a, &b])
    })
}

/// The ciphertexts of a value, or an error for a value of a trace.
pub(crate) fn cipher(x: &Repr) -> Result<&EncTyped> {
    match x {
        Repr::Cipher(x) => Ok(x),
        Repr::Traced(..) => Err(Error::InvalidInput(
            "a value inside a traced function has no ciphertext yet".into(),
        )),
    }
}

/// `x` converted to `to` (to the boolean type: `x != 0`); errors without a type.
pub(crate) fn cast<O: FheType>(x: &Repr, to: Option<IntType>) -> Result<O> {
    let to = to.ok_or_else(|| Error::InvalidInput("a cast needs a target type".into()))?;
    O::from_repr(unary(IntOp::Cast(to), x)?)
}

/// An encrypted value of a type chosen at run time (what the command-line tool and the
/// Python package hold): the same operations as the typed family, through methods that
/// return errors.
///
/// ```
/// use encint::fhe::{set_server_key, FheValue};
/// use encint::typed::{IntOp, IntType};
/// use encint::{ClientKey, DEFAULT_PARAMETERS};
///
/// let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
/// set_server_key(key);
/// let i16t = IntType::new(16, true).unwrap();
/// let a = FheValue::encrypt(-300, i16t, &client)?;
/// let b = FheValue::encrypt(7, i16t, &client)?;
/// let q = a.binary(IntOp::Div, &b)?;
/// assert_eq!(q.decrypt(&client)?, -42);
/// let r = a.binary(IntOp::Rem, 7)?; // a clear operand
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
    /// Encrypts `value` as a value of `ty`; errors if it is not one.
    pub fn encrypt(value: i128, ty: IntType, client: &ClientKey) -> Result<Self> {
        Ok(FheValue {
            inner: Repr::Cipher(encrypt_typed(client, value, ty)?),
        })
    }

    /// Decrypts (an unsigned 128-bit value above `i128::MAX` comes as its negative
    /// pattern: read it as `u128`).
    pub fn decrypt(&self, client: &ClientKey) -> Result<i128> {
        decrypt_typed(client, cipher(&self.inner)?)
    }

    /// The type.
    pub fn ty(&self) -> IntType {
        repr_type(&self.inner)
    }

    /// A one-operand operation ([`IntOp::Cast`] to the boolean type is `!= 0`).
    pub fn unary(&self, op: IntOp) -> Result<Self> {
        Self::from_repr(unary(op, &self.inner)?)
    }

    /// A two-operand operation with a value of the same type or a clear value; shifts and
    /// rotations (`ShlVar`, `ShrVar`, `RotlVar`, `RotrVar`) take the amount modulo the
    /// width, an encrypted amount being unsigned of the same width.
    pub fn binary(&self, op: IntOp, rhs: impl super::IntoOperand<FheValue>) -> Result<Self> {
        Self::from_repr(binary(op, &self.inner, rhs.operand())?)
    }

    /// `|self|` modulo `2^N`.
    pub fn abs(&self) -> Result<Self> {
        Self::from_repr(abs(&self.inner)?)
    }

    /// `if self { a } else { b }` for a boolean `self`.
    pub fn select(
        &self,
        a: impl super::IntoOperand<FheValue>,
        b: impl super::IntoOperand<FheValue>,
    ) -> Result<Self> {
        Self::from_repr(select(&self.inner, a.operand(), b.operand(), None)?)
    }
}
