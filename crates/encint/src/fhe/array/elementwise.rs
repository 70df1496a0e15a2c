//! The elementwise operations of arrays, element by element in one circuit, with an array
//! of the same shape, one value or a clear integer on the right.

use encint_arith::typed::Op;

use super::*;

/// Elementwise methods `name(&self, rhs) -> Result<FheArray<$out>>` by
/// [`FheArray::elementwise`].
macro_rules! elementwise {
    ($($(#[doc = $doc:literal])* $name:ident -> $out:ty => $op:expr;)*) => {
        impl<T: FheType> FheArray<T>
        where
            FheArray<T>: Values,
        {
            $(
                $(#[doc = $doc])*
                pub fn $name(&self, rhs: impl IntoArrayOperand<T>) -> Result<FheArray<$out>> {
                    self.elementwise::<$out>($op, rhs)
                }
            )*
        }
    };
}

elementwise! {
    /// Elementwise sum (wrapping).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// type A = FheArray<FheUint8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.add(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([250u8, 1, 7], [10u8, 2, 0]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| a.wrapping_add(b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    add -> T => Op::Add;
    /// Elementwise difference (wrapping).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// type A = FheArray<FheUint8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.sub(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([5u8, 1, 7], [10u8, 2, 0]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| a.wrapping_sub(b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    sub -> T => Op::Sub;
    /// Elementwise product (wrapping).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheInt8};
    ///
    /// type A = FheArray<FheInt8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.mul(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([-20i8, 11, 7], [10i8, -3, 0]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| a.wrapping_mul(b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    mul -> T => Op::Mul;
    /// Elementwise quotient (see the family's division semantics).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheInt8};
    ///
    /// type A = FheArray<FheInt8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.div(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([-100i8, 100, i8::MIN], [7i8, -7, -1]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| a.wrapping_div(b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    div -> T => Op::Div;
    /// Elementwise remainder.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheInt8};
    ///
    /// type A = FheArray<FheInt8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.rem(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([-100i8, 100, i8::MIN], [7i8, -7, -1]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| a.wrapping_rem(b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    rem -> T => Op::Rem;
    /// Elementwise bitwise and.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// type A = FheArray<FheUint8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.bitand(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([0b1100u8, 0xff, 0], [0b1010u8, 0x0f, 9]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| (a & b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    bitand -> T => Op::And;
    /// Elementwise bitwise or.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// type A = FheArray<FheUint8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.bitor(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([0b1100u8, 0xf0, 0], [0b1010u8, 0x0f, 9]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| (a | b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    bitor -> T => Op::Or;
    /// Elementwise bitwise xor.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheInt8};
    ///
    /// type A = FheArray<FheInt8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.bitxor(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([0b1100i8, -1, 0], [0b1010i8, 0x0f, 9]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| (a ^ b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    bitxor -> T => Op::Xor;
    /// Elementwise minimum.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheInt8};
    ///
    /// type A = FheArray<FheInt8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.minimum(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([-5i8, 7, 0], [3i8, -8, 0]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| a.min(b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    minimum -> T => Op::Min;
    /// Elementwise maximum.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheInt8};
    ///
    /// type A = FheArray<FheInt8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.maximum(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([-5i8, 7, 0], [3i8, -8, 0]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| a.max(b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    maximum -> T => Op::Max;
    /// Elementwise `==`: an array of [`FheBool`]s, signed on signed types.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// type A = FheArray<FheUint8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.eq(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([1u8, 2, 3], [1u8, 0, 3]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| (a == b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    eq -> FheBool => Op::EQ;
    /// Elementwise `!=`: an array of [`FheBool`]s, signed on signed types.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// type A = FheArray<FheUint8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.ne(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([1u8, 2, 3], [1u8, 0, 3]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| (a != b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    ne -> FheBool => Op::NE;
    /// Elementwise `<`: an array of [`FheBool`]s, signed on signed types.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheInt8};
    ///
    /// type A = FheArray<FheInt8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.lt(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([-1i8, 2, 3], [1i8, -2, 3]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| (a < b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    lt -> FheBool => Op::LT;
    /// Elementwise `<=`: an array of [`FheBool`]s, signed on signed types.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheInt8};
    ///
    /// type A = FheArray<FheInt8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.le(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([-1i8, 2, 3], [1i8, -2, 3]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| (a <= b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    le -> FheBool => Op::LE;
    /// Elementwise `>`: an array of [`FheBool`]s, signed on signed types.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// type A = FheArray<FheUint8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.gt(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([255u8, 2, 3], [1u8, 20, 3]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| (a > b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    gt -> FheBool => Op::GT;
    /// Elementwise `>=`: an array of [`FheBool`]s, signed on signed types.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// type A = FheArray<FheUint8>;
    /// let f = compile_with((vec![3], vec![3]), |(x, y): (A, A)| {
    ///     x.ge(&y).expect("one shape")
    /// })?;
    /// let (x, y) = ([255u8, 2, 3], [1u8, 20, 3]);
    /// let want: Vec<i128> = x.iter().zip(&y).map(|(&a, &b)| (a >= b).into()).collect();
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(f.run_clear(&args)?, want);
    /// # Ok::<(), encint::Error>(())
    /// ```
    ge -> FheBool => Op::GE;
}
