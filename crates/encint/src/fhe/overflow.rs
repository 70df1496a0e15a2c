//! Arithmetic that reports overflow, parity and a conditional zero on the typed integers,
//! as TFHE-rs' high-level API names them: each call is one circuit made of the family's
//! own operations (recorded into the trace inside [`compile`](super::compile)).

use encint_arith::typed::Op;

use super::values::one_circuit;
use super::{or_panic, FheBool, FheInteger, FheType, FheValue, IntoOperand, Operand};
use crate::Result;

impl FheValue {
    /// `(self + rhs wrapped, overflowed)` (see [`FheInteger::overflowing_add`]); the flag
    /// is a `bool` value. Errors on operands of two types.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheValue};
    /// use encint::typed::IntType;
    ///
    /// let u5 = IntType::new(5, false)?; // any width from 2 to 128
    /// let f = compile_with((u5, u5), |(a, b): (FheValue, FheValue)| {
    ///     a.overflowing_add(&b).expect("two u5")
    /// })?;
    /// assert_eq!(f.run_clear(&[30, 3])?, vec![1, 1]); // 33 mod 32, carried
    /// assert_eq!(f.run_clear(&[10, 3])?, vec![13, 0]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn overflowing_add(&self, rhs: &FheValue) -> Result<(FheValue, FheValue)> {
        let signed = self.ty().signed;
        self.overflowing(rhs, Op::Add, |a, b, sum| match signed {
            // Both operands differ in sign from the sum.
            true => negative(
                &a.binary(Op::Xor, sum)?
                    .binary(Op::And, b.binary(Op::Xor, sum)?)?,
            ),
            false => sum.binary(Op::LT, a),
        })
    }

    /// `(self − rhs wrapped, overflowed)` (see [`FheInteger::overflowing_sub`]); the flag
    /// is a `bool` value. Errors on operands of two types.
    pub fn overflowing_sub(&self, rhs: &FheValue) -> Result<(FheValue, FheValue)> {
        let signed = self.ty().signed;
        self.overflowing(rhs, Op::Sub, |a, b, diff| match signed {
            // The operands differ in sign, and the difference differs from `self`.
            true => negative(
                &a.binary(Op::Xor, b)?
                    .binary(Op::And, a.binary(Op::Xor, diff)?)?,
            ),
            false => a.binary(Op::LT, b),
        })
    }

    /// `self op rhs` and `flag(self, rhs, result)`, in one circuit.
    fn overflowing(
        &self,
        rhs: &FheValue,
        op: Op,
        flag: impl Fn(&FheValue, &FheValue, &FheValue) -> Result<FheValue>,
    ) -> Result<(FheValue, FheValue)> {
        one_circuit((self.clone(), rhs.clone()), |(a, b)| {
            let result = a.binary(op, &b)?;
            let overflowed = flag(&a, &b, &result)?;
            Ok((result, overflowed))
        })
    }

    /// `(−self wrapped, overflowed)` (see [`FheInteger::overflowing_neg`]); the flag is a
    /// `bool` value.
    pub fn overflowing_neg(&self) -> Result<(FheValue, FheValue)> {
        let ty = self.ty();
        one_circuit(self.clone(), |a| {
            let neg = a.unary(Op::Neg)?;
            let overflowed = if ty.signed {
                // MIN of the width, as a two's-complement pattern.
                a.binary(Op::EQ, i128::MIN >> (128 - ty.bits))?
            } else {
                a.binary(Op::NE, 0)?
            };
            Ok((neg, overflowed))
        })
    }

    /// Whether the value is even, as a `bool` value.
    pub fn is_even(&self) -> Result<FheValue> {
        one_circuit(self.clone(), |a| a.binary(Op::And, 1)?.binary(Op::EQ, 0))
    }

    /// Whether the value is odd, as a `bool` value.
    pub fn is_odd(&self) -> Result<FheValue> {
        one_circuit(self.clone(), |a| a.binary(Op::And, 1)?.binary(Op::NE, 0))
    }
}

/// Whether the signed value `x` is negative (its top bit set).
fn negative(x: &FheValue) -> Result<FheValue> {
    x.binary(Op::LT, 0)
}

/// `x` as a value of the family's type `T` (the type is checked).
fn typed<T: FheType>(x: FheValue) -> Result<T> {
    T::from_repr(x.repr().clone())
}

/// A value and its flag as the family's types.
fn pair<T: FheType>((x, flag): (FheValue, FheValue)) -> Result<(T, FheBool)> {
    Ok((typed(x)?, typed(flag)?))
}

impl<const N: usize, const SIGNED: bool> FheInteger<N, SIGNED> {
    /// This value as a value of the dynamic family.
    fn value(&self) -> FheValue {
        FheValue::of(self.repr().clone())
    }

    /// `(self + rhs mod 2^N, overflowed)`, as Rust's `overflowing_add`: the flag is true
    /// when the exact sum is outside the type (unsigned: a carry out; signed: two operands
    /// of one sign whose wrapped sum has the other).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8, FheUint8};
    ///
    /// let f = compile(|(a, b): (FheUint8, FheUint8)| a.overflowing_add(&b))?;
    /// let (sum, carried) = 200u8.overflowing_add(100);
    /// assert_eq!(f.run_clear(&[200, 100])?, vec![i128::from(sum), i128::from(carried)]);
    /// let g = compile(|(a, b): (FheInt8, FheInt8)| a.overflowing_add(&b))?;
    /// assert_eq!(g.run_clear(&[100, 100])?, vec![i128::from(100i8.wrapping_add(100)), 1]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn overflowing_add(&self, rhs: &Self) -> (Self, FheBool) {
        or_panic(self.value().overflowing_add(&rhs.value()).and_then(pair))
    }

    /// `(self − rhs mod 2^N, overflowed)`, as Rust's `overflowing_sub`: the flag is true
    /// when the exact difference is outside the type (unsigned: `self < rhs`; signed:
    /// operands of different signs whose wrapped difference has `rhs`'s sign).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt16, FheUint16};
    ///
    /// let f = compile(|(a, b): (FheUint16, FheUint16)| a.overflowing_sub(&b))?;
    /// let (diff, borrowed) = 5u16.overflowing_sub(7);
    /// assert_eq!(f.run_clear(&[5, 7])?, vec![i128::from(diff), i128::from(borrowed)]);
    /// let g = compile(|(a, b): (FheInt16, FheInt16)| a.overflowing_sub(&b))?;
    /// let (diff, over) = i16::MIN.overflowing_sub(1);
    /// assert_eq!(g.run_clear(&[i16::MIN.into(), 1])?, vec![i128::from(diff), i128::from(over)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn overflowing_sub(&self, rhs: &Self) -> (Self, FheBool) {
        or_panic(self.value().overflowing_sub(&rhs.value()).and_then(pair))
    }

    /// `(−self mod 2^N, overflowed)`, as Rust's `overflowing_neg`: the flag is
    /// `self != 0` on unsigned types and `self == MIN` on signed ones.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8, FheUint8};
    ///
    /// let f = compile(|a: FheUint8| a.overflowing_neg())?;
    /// assert_eq!(f.run_clear(&[3])?, vec![i128::from(3u8.wrapping_neg()), 1]);
    /// let g = compile(|a: FheInt8| a.overflowing_neg())?;
    /// assert_eq!(g.run_clear(&[i8::MIN.into()])?, vec![i128::from(i8::MIN), 1]);
    /// assert_eq!(g.run_clear(&[-3])?, vec![3, 0]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn overflowing_neg(&self) -> (Self, FheBool) {
        or_panic(self.value().overflowing_neg().and_then(pair))
    }

    /// Whether the value is even (its low bit is 0).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt32};
    ///
    /// let f = compile(|a: FheInt32| (a.is_even(), a.is_odd()))?;
    /// assert_eq!(f.run_clear(&[-7])?, vec![0, 1]);
    /// assert_eq!(f.run_clear(&[1 << 20])?, vec![1, 0]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn is_even(&self) -> FheBool {
        or_panic(self.value().is_even().and_then(typed))
    }

    /// Whether the value is odd (its low bit is 1); see [`FheInteger::is_even`].
    pub fn is_odd(&self) -> FheBool {
        or_panic(self.value().is_odd().and_then(typed))
    }
}

/// The clear zero of any type of the family.
struct Zero;

impl<T: FheType> IntoOperand<T> for Zero {
    fn operand(&self) -> Operand<'_> {
        Operand::Clear(0)
    }
}

impl FheBool {
    /// `if self { a } else { 0 }` (TFHE-rs' `if_then_zero`).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheBool, FheUint16};
    ///
    /// let f = compile(|(c, a): (FheBool, FheUint16)| c.if_then_zero(&a))?;
    /// assert_eq!(f.run_clear(&[1, 4000])?, vec![4000]);
    /// assert_eq!(f.run_clear(&[0, 4000])?, vec![0]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn if_then_zero<T: FheType>(&self, a: impl IntoOperand<T>) -> T {
        self.select(a, Zero)
    }
}
