//! Clear values of Rust's integer types, as they enter and leave encrypted values.

use encint_arith::typed::IntType;

mod sealed {
    pub trait Sealed {}
}

/// A clear integer of one of Rust's primitive types (`u8` ... `u128`, `i8` ... `i128`,
/// `usize`, `isize`): what [`FheUint`](super::FheUint) and [`FheInt`](super::FheInt)
/// encrypt and decrypt, and the clear operand of their operators.
pub trait Clear: Copy + sealed::Sealed + std::fmt::Display {
    /// The value's two's-complement bit pattern as an `i128` (as `self as i128`).
    fn pattern(self) -> i128;
    /// The value as an `i128`, if it fits (`u128` values above `i128::MAX` do not).
    fn to_i128(self) -> Option<i128>;
    /// The value of `ty` given by [`IntType::wrap`]'s `v` (an unsigned 128-bit value
    /// above `i128::MAX` comes as its negative pattern), if this type holds it.
    fn from_value(v: i128, ty: IntType) -> Option<Self>;
    /// Whether the value is negative.
    fn is_negative(self) -> bool {
        self.pattern() < 0 && self.to_i128().is_some()
    }
}

macro_rules! clear {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Clear for $t {
            fn pattern(self) -> i128 {
                self as i128
            }
            fn to_i128(self) -> Option<i128> {
                i128::try_from(self).ok()
            }
            fn from_value(v: i128, ty: IntType) -> Option<Self> {
                if !ty.signed && ty.bits == 128 && v < 0 {
                    <$t>::try_from(v as u128).ok()
                } else {
                    <$t>::try_from(v).ok()
                }
            }
        }
    )*};
}
clear!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
