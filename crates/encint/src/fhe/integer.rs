//! [`FheInteger`]: the typed integers of every width, with their methods.

use encint_arith::typed::{IntOp, IntType};
use encint_tfhe::{ClientKey, KeySetId};

use super::{
    binary, check_type, or_panic, record, repr_type, Clear, FheBool, FheType, IntoOperand, Operand,
    Repr,
};
use crate::typed::{decrypt_typed, encrypt_typed, EncTyped};
use crate::{Error, Result};

/// An encrypted `N`-bit integer, two's complement when `SIGNED`: the one generic type
/// behind [`FheUint`] and [`FheInt`] (see the [module docs](super) for the semantics).
#[derive(Debug, Clone)]
pub struct FheInteger<const N: usize, const SIGNED: bool> {
    inner: Repr,
}

/// An encrypted unsigned `N`-bit integer (`N` in 1..=128; [`FheUint8`](super::FheUint8)
/// and its siblings name the usual widths).
pub type FheUint<const N: usize> = FheInteger<N, false>;

/// An encrypted signed `N`-bit integer (`N` in 1..=128; [`FheInt8`](super::FheInt8) and
/// its siblings name the usual widths).
pub type FheInt<const N: usize> = FheInteger<N, true>;

impl<const N: usize, const SIGNED: bool> FheType for FheInteger<N, SIGNED> {
    fn int_type() -> IntType {
        Self::TYPE
    }
    fn repr(&self) -> &Repr {
        &self.inner
    }
    fn from_repr(x: Repr) -> Result<Self> {
        check_type(&x, Self::TYPE)?;
        Ok(FheInteger { inner: x })
    }
}

impl<const N: usize, const SIGNED: bool> FheInteger<N, SIGNED> {
    /// The type (a width outside 1..=128 fails to compile where it is used).
    pub const TYPE: IntType = {
        assert!(N >= 1 && N <= 128, "a typed integer is 1 to 128 bits wide");
        IntType {
            bits: N,
            signed: SIGNED,
        }
    };

    /// Encrypts `value`; errors ([`Error::InvalidInput`]) if it is not a value of the type
    /// (`FheUint8::encrypt(300u16, ..)`, `FheUint8::encrypt(-1, ..)`).
    pub fn encrypt<C: Clear>(value: C, client: &ClientKey) -> Result<Self> {
        let v = value
            .to_i128()
            .filter(|&v| Self::TYPE.contains(v))
            .ok_or_else(|| {
                Error::InvalidInput(format!("{value} is not a value of {}", Self::TYPE))
            })?;
        Ok(FheInteger {
            inner: Repr::Cipher(encrypt_typed(client, v, Self::TYPE)?),
        })
    }

    /// Decrypts into `C`; errors on another key set ([`Error::WrongClientKey`]), on a
    /// corrupted ciphertext, or if `C` does not hold the value (or a value of a trace).
    pub fn decrypt<C: Clear>(&self, client: &ClientKey) -> Result<C> {
        let v = decrypt_typed(client, cipher(&self.inner)?)?;
        C::from_value(v, Self::TYPE).ok_or_else(|| {
            Error::InvalidInput(format!(
                "the decrypted {} does not fit in {}",
                Self::TYPE,
                std::any::type_name::<C>()
            ))
        })
    }

    /// The key set the value belongs to (none for a value of a trace).
    pub fn key_set(&self) -> Option<KeySetId> {
        self.as_typed().map(EncTyped::key_set)
    }

    /// `op` (a binary operation of the type: add, sub, mul, div, rem, and, or, xor, min,
    /// max) on `self` and `rhs`, or an error where the operator would panic.
    pub fn try_binary(&self, op: IntOp, rhs: impl IntoOperand<Self>) -> Result<Self> {
        if op.arity() != 2 || op.result_type(Self::TYPE) != Self::TYPE {
            return Err(Error::InvalidInput(format!(
                "{op} is not a binary operation"
            )));
        }
        let ty = Self::TYPE;
        match (op, rhs.operand()) {
            (IntOp::WrappingMul, Operand::Clear(k)) => self.try_unary(IntOp::WrappingScalarMul(k)),
            (IntOp::Div, Operand::Clear(k)) => self.try_unary(IntOp::DivScalar(ty.wrap(k))),
            (IntOp::Rem, Operand::Clear(k)) => self.try_unary(IntOp::RemScalar(ty.wrap(k))),
            (IntOp::ShlVar | IntOp::ShrVar | IntOp::RotlVar | IntOp::RotrVar, _) => Err(
                Error::InvalidInput(format!("{op}: use the shift and rotation methods")),
            ),
            (op, r) => binary(op, self, r),
        }
    }

    /// `op` (a comparison: eq, ne, lt, le, gt, ge) of `self` and `rhs`, or an error
    /// where the method would panic.
    pub fn try_compare(&self, op: IntOp, rhs: impl IntoOperand<Self>) -> Result<FheBool> {
        if op.arity() != 2 || op.result_type(Self::TYPE) != IntType::BOOL {
            return Err(Error::InvalidInput(format!("{op} is not a comparison")));
        }
        binary(op, self, rhs.operand())
    }

    /// A one-operand operation of the type (neg, not, square, scalar mul, div/rem by a
    /// scalar, shifts and rotations by a constant as given), or an error where the
    /// operator would panic.
    pub fn try_unary(&self, op: IntOp) -> Result<Self> {
        if op.arity() != 1 || op.result_type(Self::TYPE) != Self::TYPE {
            return Err(Error::InvalidInput(format!(
                "{op} is not a one-operand operation"
            )));
        }
        record(&[&self.inner], |c, x| c.apply(op, &[&x[0]]))
    }

    /// Shift or rotation (`op` one of `ShlVar`, `ShrVar`, `RotlVar`, `RotrVar`) by an
    /// amount taken modulo `N`, clear or an encrypted unsigned value of this width.
    pub fn try_shift(&self, op: IntOp, amount: impl ShiftAmount<N>) -> Result<Self> {
        let bits = N as u32;
        match amount.amount()? {
            Amount::Clear(k) => {
                let k = (k % u128::from(bits)) as u32;
                let op = match op {
                    IntOp::ShlVar => IntOp::Shl(k),
                    IntOp::ShrVar => IntOp::Shr(k),
                    IntOp::RotlVar => IntOp::Rotl(k),
                    _ => IntOp::Rotr(k),
                };
                self.try_unary(op)
            }
            Amount::Value(s) => record(&[&self.inner, s], |c, x| {
                let unsigned = IntType {
                    bits: N,
                    signed: false,
                };
                // Shifts read the amount modulo N; rotations do already.
                let amount = match op {
                    IntOp::ShlVar | IntOp::ShrVar if N.is_power_of_two() => {
                        let mask = c.constant(unsigned, N as i128 - 1);
                        c.apply(IntOp::And, &[&x[1], &mask])?
                    }
                    IntOp::ShlVar | IntOp::ShrVar => {
                        c.apply(IntOp::RemScalar(N as i128), &[&x[1]])?
                    }
                    _ => x[1].clone(),
                };
                let amount = amount.reinterpret(Self::TYPE)?;
                c.apply(op, &[&x[0], &amount])
            }),
        }
    }

    /// `self²` modulo `2^N` (cheaper than `self * self`).
    pub fn square(&self) -> Self {
        or_panic(self.try_unary(IntOp::WrappingSquare))
    }

    /// `|self|` modulo `2^N` (`abs(MIN) = MIN`, as `wrapping_abs`); unsigned: `self`.
    pub fn abs(&self) -> Self {
        if !SIGNED {
            return self.clone();
        }
        or_panic(record(&[&self.inner], |c, x| {
            let zero = c.constant(Self::TYPE, 0);
            let negative = c.apply(IntOp::Lt, &[&x[0], &zero])?;
            let minus = c.apply(IntOp::WrappingNeg, &[&x[0]])?;
            c.apply(IntOp::Select, &[&negative, &minus, &x[0]])
        }))
    }

    /// The value converted to `T` as Rust's `as` converts (truncated, or zero/sign
    /// extended by this type's signedness); to [`FheBool`]: `self != 0`.
    pub fn cast_into<T: FheType>(&self) -> T {
        or_panic(cast(&self.inner, T::int_type()))
    }

    /// `x` converted to this type (see [`FheInteger::cast_into`]).
    pub fn cast_from<T: FheType>(x: &T) -> Self {
        or_panic(cast(x.repr(), Self::TYPE))
    }
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

/// Methods `name(&self, arg: impl $arg) -> $out` that call `$call($op, arg)` and panic on
/// its error, as the operators do.
macro_rules! methods {
    ($($(#[doc = $doc:literal])* $name:ident($arg:ty) -> $out:ty => $call:ident($op:expr);)*) => {
        impl<const N: usize, const SIGNED: bool> FheInteger<N, SIGNED> {
            $(
                $(#[doc = $doc])*
                pub fn $name(&self, arg: $arg) -> $out {
                    or_panic(self.$call($op, arg))
                }
            )*
        }
    };
}

methods! {
    /// `min(self, rhs)`.
    min(impl IntoOperand<Self>) -> Self => try_binary(IntOp::Min);
    /// `max(self, rhs)`.
    max(impl IntoOperand<Self>) -> Self => try_binary(IntOp::Max);
    /// `self == rhs`.
    eq(impl IntoOperand<Self>) -> FheBool => try_compare(IntOp::Eq);
    /// `self != rhs`.
    ne(impl IntoOperand<Self>) -> FheBool => try_compare(IntOp::Ne);
    /// `self < rhs`.
    lt(impl IntoOperand<Self>) -> FheBool => try_compare(IntOp::Lt);
    /// `self <= rhs`.
    le(impl IntoOperand<Self>) -> FheBool => try_compare(IntOp::Le);
    /// `self > rhs`.
    gt(impl IntoOperand<Self>) -> FheBool => try_compare(IntOp::Gt);
    /// `self >= rhs`.
    ge(impl IntoOperand<Self>) -> FheBool => try_compare(IntOp::Ge);
    /// `self` rotated left by `amount mod N` (clear, or an encrypted [`FheUint<N>`]).
    rotate_left(impl ShiftAmount<N>) -> Self => try_shift(IntOp::RotlVar);
    /// `self` rotated right by `amount mod N` (clear, or an encrypted [`FheUint<N>`]).
    rotate_right(impl ShiftAmount<N>) -> Self => try_shift(IntOp::RotrVar);
}

/// `x` converted to `to` (to the boolean type: `x != 0`).
pub(crate) fn cast<O: FheType>(x: &Repr, to: IntType) -> Result<O> {
    let from = repr_type(x);
    record(&[x], |c, v| {
        if to == IntType::BOOL && from != IntType::BOOL {
            let zero = c.constant(from, 0);
            c.apply(IntOp::Ne, &[&v[0], &zero])
        } else {
            c.apply(IntOp::Cast(to), &[&v[0]])
        }
    })
}

/// A shift or rotation amount for an `N`-bit value.
#[derive(Debug)]
pub enum Amount<'a> {
    /// A clear, non-negative amount.
    Clear(u128),
    /// An unsigned `N`-bit amount, encrypted or traced.
    Value(&'a Repr),
}

/// What may stand right of `<<`, `>>` and the rotations on an `N`-bit value: a clear
/// non-negative integer, or an encrypted [`FheUint<N>`] (by value or reference).
pub trait ShiftAmount<const N: usize> {
    /// The amount; errors on a negative clear amount.
    fn amount(&self) -> Result<Amount<'_>>;
}

impl<const N: usize> ShiftAmount<N> for FheUint<N> {
    fn amount(&self) -> Result<Amount<'_>> {
        Ok(Amount::Value(&self.inner))
    }
}

impl<const N: usize> ShiftAmount<N> for &FheUint<N> {
    fn amount(&self) -> Result<Amount<'_>> {
        Ok(Amount::Value(&self.inner))
    }
}

macro_rules! clear_operands {
    ($($t:ty),*) => {$(
        impl<const N: usize, const SIGNED: bool> IntoOperand<FheInteger<N, SIGNED>> for $t {
            fn operand(&self) -> Operand<'_> {
                Operand::Clear(Clear::pattern(*self))
            }
        }
        impl<const N: usize> ShiftAmount<N> for $t {
            fn amount(&self) -> Result<Amount<'_>> {
                if Clear::is_negative(*self) {
                    return Err(Error::InvalidInput(format!("negative shift amount {self}")));
                }
                Ok(Amount::Clear(Clear::pattern(*self) as u128))
            }
        }
    )*};
}
clear_operands!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
