//! Rust's operators on the family, each one circuit (see the module docs for the
//! semantics and when they panic).

use encint_arith::typed::Op;

use super::integer::ShiftAmount;
use super::{or_panic, FheBool, FheInteger, IntoOperand};

/// `impl Trait<R> for T` and `for &T` (by `$call`), and `TraitAssign<R> for T`, for each
/// operator, with right operands `R: $bound`; `T` is `FheInteger<N, S>` (`int`) or
/// [`FheBool`] (`bool`).
macro_rules! operators {
    (int $bound:path, $call:ident: $($trait:ident $method:ident $assign:ident $assign_method:ident => $op:expr;)*) => {$(
        impl<const N: usize, const S: bool, R: $bound> std::ops::$trait<R> for &FheInteger<N, S> {
            operators!(@body $trait $method $call $op, FheInteger<N, S>);
        }
        impl<const N: usize, const S: bool, R: $bound> std::ops::$trait<R> for FheInteger<N, S> {
            operators!(@body $trait $method $call $op, FheInteger<N, S>);
        }
        impl<const N: usize, const S: bool, R: $bound> std::ops::$assign<R> for FheInteger<N, S> {
            operators!(@assign $assign_method $call $op);
        }
    )*};
    (bool $($trait:ident $method:ident $assign:ident $assign_method:ident => $op:expr;)*) => {$(
        impl<R: IntoOperand<FheBool>> std::ops::$trait<R> for &FheBool {
            operators!(@body $trait $method try_binary $op, FheBool);
        }
        impl<R: IntoOperand<FheBool>> std::ops::$trait<R> for FheBool {
            operators!(@body $trait $method try_binary $op, FheBool);
        }
        impl<R: IntoOperand<FheBool>> std::ops::$assign<R> for FheBool {
            operators!(@assign $assign_method try_binary $op);
        }
    )*};
    (@body $trait:ident $method:ident $call:ident $op:expr, $ty:ty) => {
        type Output = $ty;
        fn $method(self, rhs: R) -> $ty {
            or_panic(self.$call($op, rhs))
        }
    };
    (@assign $assign_method:ident $call:ident $op:expr) => {
        fn $assign_method(&mut self, rhs: R) {
            *self = or_panic(self.$call($op, rhs));
        }
    };
}

operators! {
    int IntoOperand<FheInteger<N, S>>, try_binary:
    Add add AddAssign add_assign => Op::Add;
    Sub sub SubAssign sub_assign => Op::Sub;
    Mul mul MulAssign mul_assign => Op::Mul;
    Div div DivAssign div_assign => Op::Div;
    Rem rem RemAssign rem_assign => Op::Rem;
    BitAnd bitand BitAndAssign bitand_assign => Op::And;
    BitOr bitor BitOrAssign bitor_assign => Op::Or;
    BitXor bitxor BitXorAssign bitxor_assign => Op::Xor;
}

operators! {
    int ShiftAmount<N>, try_shift:
    Shl shl ShlAssign shl_assign => Op::ShlVar;
    Shr shr ShrAssign shr_assign => Op::ShrVar;
}

operators! {
    bool
    BitAnd bitand BitAndAssign bitand_assign => Op::And;
    BitOr bitor BitOrAssign bitor_assign => Op::Or;
    BitXor bitxor BitXorAssign bitxor_assign => Op::Xor;
}

/// `impl Trait for T` and `for &T` by the method `$call($args)`, for `FheInteger<N, S>`
/// (`int`) or [`FheBool`] (`bool`).
macro_rules! unary {
    (int $($trait:ident $method:ident => $call:ident($($arg:expr),*);)*) => {$(
        impl<const N: usize, const S: bool> std::ops::$trait for &FheInteger<N, S> {
            unary!(@body $method $call($($arg),*), FheInteger<N, S>);
        }
        impl<const N: usize, const S: bool> std::ops::$trait for FheInteger<N, S> {
            unary!(@body $method $call($($arg),*), FheInteger<N, S>);
        }
    )*};
    (bool $($trait:ident $method:ident => $call:ident($($arg:expr),*);)*) => {$(
        impl std::ops::$trait for &FheBool {
            unary!(@body $method $call($($arg),*), FheBool);
        }
        impl std::ops::$trait for FheBool {
            unary!(@body $method $call($($arg),*), FheBool);
        }
    )*};
    (@body $method:ident $call:ident($($arg:expr),*), $ty:ty) => {
        type Output = $ty;
        fn $method(self) -> $ty {
            or_panic(self.$call($($arg),*))
        }
    };
}

unary! {
    int
    Neg neg => try_unary(Op::Neg);
    Not not => try_unary(Op::Not);
}

unary! {
    bool
    Not not => try_not();
}
