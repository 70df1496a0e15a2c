//! Arithmetic that reports overflow, parity and a conditional zero on the typed integers,
//! as TFHE-rs' high-level API names them: each call is one circuit made of the family's
//! own operations (recorded into the trace inside [`compile`](super::compile)).

use encint_arith::typed::{IntType, Op, MAX_TYPED_BITS};

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
        let max = self.ty().max();
        self.overflowing(rhs, Op::Add, |a, b, _| match signed {
            // MAX − b is b ^ MAX: for b ≥ 0 the sum passes MAX when a > MAX − b; for b < 0
            // it passes MIN when a < MIN − b, that is a ≤ MIN − b − 1 = b ^ MAX. Comparisons
            // beside the adder, not after it.
            true => a
                .binary(Op::GT, b.binary(Op::Xor, max)?)?
                .binary(Op::Xor, negative(b)?),
            // A carry out exactly when a > 2^N − 1 − b = !b: a comparison beside the
            // adder, not after it.
            false => a.binary(Op::GT, b.unary(Op::Not)?),
        })
    }

    /// `(self − rhs wrapped, overflowed)` (see [`FheInteger::overflowing_sub`]); the flag
    /// is a `bool` value. Errors on operands of two types.
    pub fn overflowing_sub(&self, rhs: &FheValue) -> Result<(FheValue, FheValue)> {
        let signed = self.ty().signed;
        let min = self.ty().min();
        self.overflowing(rhs, Op::Sub, |a, b, _| match signed {
            // MIN + b is b ^ MIN: for b ≥ 0 the difference passes MIN when a < MIN + b; for
            // b < 0 it passes MAX when a > MAX + b, that is a ≥ MAX + b + 1 = b ^ MIN.
            true => a
                .binary(Op::LT, b.binary(Op::Xor, min)?)?
                .binary(Op::Xor, negative(b)?),
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

    /// `(self · rhs wrapped, overflowed)` (see [`FheInteger::overflowing_mul`]); the flag
    /// is a `bool` value. Errors on operands of two types.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheValue};
    /// use encint::typed::IntType;
    ///
    /// let i6 = IntType::new(6, true)?;
    /// let f = compile_with((i6, i6), |(a, b): (FheValue, FheValue)| {
    ///     a.overflowing_mul(&b).expect("two i6")
    /// })?;
    /// assert_eq!(f.run_clear(&[-4, 8])?, vec![-32, 0]); // MIN fits
    /// assert_eq!(f.run_clear(&[4, 8])?, vec![-32, 1]); // 32 does not
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn overflowing_mul(&self, rhs: &FheValue) -> Result<(FheValue, FheValue)> {
        let ty = self.ty();
        one_circuit((self.clone(), rhs.clone()), |(a, b)| {
            if !ty.signed {
                return unsigned_product(&a, &b);
            }
            if 2 * ty.bits <= MAX_TYPED_BITS {
                // The exact product at twice the width, and whether the type holds it:
                // the product differs from its low half sign-extended back.
                let wide = IntType {
                    bits: 2 * ty.bits,
                    signed: true,
                };
                let p = a
                    .unary(Op::Cast(wide))?
                    .binary(Op::Mul, b.unary(Op::Cast(wide))?)?;
                let low = p.unary(Op::Cast(ty))?;
                let over = p.binary(Op::NE, low.unary(Op::Cast(wide))?)?;
                return Ok((low, over));
            }
            // Wider: the magnitudes' product, then the signed range: MAX for a positive
            // product, MAX + 1 (|MIN|) for a negative one.
            let u = IntType {
                bits: ty.bits,
                signed: false,
            };
            let magnitude = |x: &FheValue| x.abs()?.unary(Op::Cast(u));
            let (m, over) = unsigned_product(&magnitude(&a)?, &magnitude(&b)?)?;
            let negative = negative(&a.binary(Op::Xor, &b)?)?;
            // As patterns of the unsigned type (2^127 is i128::MIN's).
            let max = (1i128 << (ty.bits - 1)).wrapping_sub(1);
            let past_max = m.binary(Op::GT, max)?;
            let past_min = m.binary(Op::GT, max.wrapping_add(1))?;
            let out = negative.select(&past_min, &past_max)?;
            Ok((a.binary(Op::Mul, &b)?, over.binary(Op::Or, &out)?))
        })
    }

    /// `(self / rhs, self % rhs)` in one circuit (see [`FheInteger::div_rem`]); `rhs` a
    /// value of the same type or a clear value (an error for a clear zero).
    pub fn div_rem(&self, rhs: impl IntoOperand<FheValue>) -> Result<(FheValue, FheValue)> {
        self.div_rem_of(rhs.operand())
    }

    /// [`FheValue::div_rem`] by an operand of any type of the family.
    fn div_rem_of(&self, rhs: Operand<'_>) -> Result<(FheValue, FheValue)> {
        match rhs {
            Operand::Clear(k) => one_circuit(self.clone(), |a| {
                Ok((a.binary(Op::Div, k)?, a.binary(Op::Rem, k)?))
            }),
            Operand::Value(r) => one_circuit((self.clone(), FheValue::of(r.clone())), |(a, b)| {
                Ok((a.binary(Op::Div, &b)?, a.binary(Op::Rem, &b)?))
            }),
        }
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

/// `(a · b mod 2^N, a · b ≥ 2^N)` for unsigned `a`, `b` of `N` bits. Up to 64 bits, one
/// product at `2N` bits. Wider, with `h = ⌈N/2⌉` and `a = a₁·2^h + a₀` (`b` alike): the
/// product passes `2^N` when `a₁` and `b₁` are both non-zero, else when `t = a₀b₁ + a₁b₀`
/// (one term is zero) reaches `2^(N−h)`, or `t + ⌊a₀b₀ / 2^h⌋` does; three products of
/// halves at `2h ≤ 128` bits beside the wrapped one.
fn unsigned_product(a: &FheValue, b: &FheValue) -> Result<(FheValue, FheValue)> {
    let n = a.ty().bits;
    let of = |bits: usize| IntType {
        bits,
        signed: false,
    };
    if 2 * n <= MAX_TYPED_BITS {
        let wide = of(2 * n);
        let p = a
            .unary(Op::Cast(wide))?
            .binary(Op::Mul, b.unary(Op::Cast(wide))?)?;
        let over = p.binary(Op::ShrVar, n as i128)?.binary(Op::NE, 0)?;
        return Ok((p.unary(Op::Cast(of(n)))?, over));
    }
    let h = n.div_ceil(2);
    let w = of(2 * h);
    let low_mask = (1i128 << h) - 1;
    let halves = |x: &FheValue| -> Result<(FheValue, FheValue)> {
        let x = x.unary(Op::Cast(w))?;
        Ok((
            x.binary(Op::And, low_mask)?,
            x.binary(Op::ShrVar, h as i128)?,
        ))
    };
    let (a0, a1) = halves(a)?;
    let (b0, b1) = halves(b)?;
    let both_high = a1
        .binary(Op::NE, 0)?
        .binary(Op::And, b1.binary(Op::NE, 0)?)?;
    let t = a0
        .binary(Op::Mul, &b1)?
        .binary(Op::Add, a1.binary(Op::Mul, &b0)?)?;
    let carry = a0.binary(Op::Mul, &b0)?.binary(Op::ShrVar, h as i128)?;
    let limit = 1i128 << (n - h);
    let over = both_high
        .binary(Op::Or, t.binary(Op::GE, limit)?)?
        .binary(Op::Or, t.binary(Op::Add, &carry)?.binary(Op::GE, limit)?)?;
    Ok((a.binary(Op::Mul, b)?, over))
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

    /// `(self · rhs mod 2^N, overflowed)`, as Rust's `overflowing_mul`: the flag is true
    /// when the exact product is outside the type.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8, FheUint16};
    ///
    /// let f = compile(|(a, b): (FheUint16, FheUint16)| a.overflowing_mul(&b))?;
    /// let (p, over) = 300u16.overflowing_mul(300);
    /// assert_eq!(f.run_clear(&[300, 300])?, vec![i128::from(p), i128::from(over)]);
    /// let g = compile(|(a, b): (FheInt8, FheInt8)| a.overflowing_mul(&b))?;
    /// assert_eq!(g.run_clear(&[-16, 8])?, vec![-128, 0]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn overflowing_mul(&self, rhs: &Self) -> (Self, FheBool) {
        or_panic(self.value().overflowing_mul(&rhs.value()).and_then(pair))
    }

    /// `(self / rhs, self % rhs)`, TFHE-rs' `div_rem`: both from one circuit, the
    /// division's work shared (truncating; division by an encrypted zero as `/` and `%`
    /// give it). `rhs` may be a clear value; a clear zero panics, as `/` does.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt16};
    ///
    /// let f = compile(|(a, b): (FheInt16, FheInt16)| a.div_rem(&b))?;
    /// assert_eq!(f.run_clear(&[-300, 7])?, vec![-42, -6]);
    /// let g = compile(|a: FheInt16| a.div_rem(10i16))?;
    /// assert_eq!(g.run_clear(&[1234])?, vec![123, 4]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn div_rem(&self, rhs: impl IntoOperand<Self>) -> (Self, Self) {
        let pair = self.value().div_rem_of(rhs.operand());
        or_panic(pair.and_then(|(q, r)| Ok((typed(q)?, typed(r)?))))
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
