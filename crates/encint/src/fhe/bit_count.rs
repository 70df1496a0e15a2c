//! Counting bits of the typed integers, as TFHE-rs' high-level API (and Rust's integers)
//! names it: the ones and zeros, the leading and trailing zeros and ones, the base-2
//! logarithm, and the reversal. Each count is one circuit whose result is an
//! [`FheUint32`](super::FheUint), whatever the operand's width.

use encint_arith::typed::Op;

use super::values::one_circuit;
use super::{or_panic, FheBool, FheInteger, FheType, FheUint, FheValue};
use crate::Result;

impl FheValue {
    /// `(ilog2(self), self > 0)` in one circuit (see [`FheInteger::checked_ilog2`]): the
    /// logarithm a `u32` value, the flag a `bool` value.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheValue};
    /// use encint::typed::IntType;
    ///
    /// let i12 = IntType::new(12, true)?;
    /// let f = compile_with(i12, |x: FheValue| x.checked_ilog2().expect("an integer"))?;
    /// assert_eq!(f.run_clear(&[1000])?, vec![9, 1]);
    /// assert_eq!(f.run_clear(&[-5])?.last(), Some(&0)); // no logarithm
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn checked_ilog2(&self) -> Result<(FheValue, FheValue)> {
        one_circuit(self.clone(), |x| {
            Ok((x.unary(Op::Ilog2)?, x.binary(Op::GT, 0)?))
        })
    }
}

/// Methods `name(&self) -> FheUint32` for the counting operations.
macro_rules! counts {
    ($($(#[doc = $doc:literal])* $name:ident => $op:expr;)*) => {
        impl<const N: usize, const SIGNED: bool> FheInteger<N, SIGNED> {
            $(
                $(#[doc = $doc])*
                pub fn $name(&self) -> FheUint<32> {
                    or_panic(self.count($op))
                }
            )*
        }
    };
}

impl<const N: usize, const SIGNED: bool> FheInteger<N, SIGNED> {
    /// The counting operation `op` of this value, as a `u32`.
    fn count(&self, op: Op) -> Result<FheUint<32>> {
        FheUint::from_repr(super::dynamic::unary(op, self.repr())?)
    }

    /// The value's bits in reverse order (bit `i` moves to `N − 1 − i`), as Rust's
    /// `reverse_bits`; no bootstrap.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint16};
    ///
    /// let f = compile(|x: FheUint16| x.reverse_bits())?;
    /// assert_eq!(f.run_clear(&[0x00f1])?, vec![i128::from(0x00f1u16.reverse_bits())]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn reverse_bits(&self) -> Self {
        or_panic(self.try_unary(Op::ReverseBits))
    }

    /// `(ilog2(self), self > 0)`, TFHE-rs' `checked_ilog2`: the flag is false where the
    /// logarithm has no meaning (zero, and negative values).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint32};
    ///
    /// let f = compile(|x: FheUint32| x.checked_ilog2())?;
    /// assert_eq!(f.run_clear(&[1 << 20])?, vec![20, 1]);
    /// assert_eq!(f.run_clear(&[0])?, vec![0, 0]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn checked_ilog2(&self) -> (FheUint<32>, FheBool) {
        let v = FheValue::of(self.repr().clone());
        or_panic(v.checked_ilog2().and_then(|(log, positive)| {
            Ok((
                FheUint::from_repr(log.repr().clone())?,
                FheBool::from_repr(positive.repr().clone())?,
            ))
        }))
    }
}

counts! {
    /// The number of one bits of the two's-complement pattern, as Rust's `count_ones`
    /// (NumPy's `bitwise_count` on unsigned values).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8};
    ///
    /// let f = compile(|x: FheInt8| x.count_ones())?;
    /// assert_eq!(f.run_clear(&[-1])?, vec![8]);
    /// assert_eq!(f.run_clear(&[0b101])?, vec![2]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    count_ones => Op::CountOnes;
    /// The number of zero bits of the pattern, as Rust's `count_zeros`.
    count_zeros => Op::CountZeros;
    /// The number of zero bits above the highest one bit (`N` for 0), as Rust's
    /// `leading_zeros`.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint64};
    ///
    /// let f = compile(|x: FheUint64| (x.leading_zeros(), x.trailing_zeros()))?;
    /// let v = 0x0000_0f00_0000_0000u64;
    /// let expected = vec![i128::from(v.leading_zeros()), i128::from(v.trailing_zeros())];
    /// assert_eq!(f.run_clear(&[v.into()])?, expected);
    /// assert_eq!(f.run_clear(&[0])?, vec![64, 64]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    leading_zeros => Op::LeadingZeros;
    /// The number of one bits above the highest zero bit, as Rust's `leading_ones`.
    leading_ones => Op::LeadingOnes;
    /// The number of zero bits below the lowest one bit (`N` for 0), as Rust's
    /// `trailing_zeros`.
    trailing_zeros => Op::TrailingZeros;
    /// The number of one bits below the lowest zero bit, as Rust's `trailing_ones`.
    trailing_ones => Op::TrailingOnes;
    /// `⌊log2 self⌋` for a positive value; as TFHE-rs' `ilog2`, a result without meaning
    /// otherwise (here: 0 for 0, `N − 1` for a negative value, the position of the
    /// pattern's highest one bit). [`FheInteger::checked_ilog2`] also says whether it has
    /// one.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint16};
    ///
    /// let f = compile(|x: FheUint16| x.ilog2())?;
    /// assert_eq!(f.run_clear(&[1000])?, vec![i128::from(1000u16.ilog2())]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    ilog2 => Op::Ilog2;
}
