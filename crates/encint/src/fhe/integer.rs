//! [`FheInteger`]: the typed integers of every width, with their methods.

use encint_arith::typed::{Form, IntType, Op};
use encint_tfhe::{ClientKey, KeySetId};

use super::dynamic::{self, cast, cipher, FheValue};
use super::{check_type, or_panic, wrap, Clear, FheBool, FheType, IntoOperand, Operand, Repr};
use crate::typed::{decrypt_typed, encrypt_typed_as, EncTyped};
use crate::{Error, Result};

/// An encrypted `N`-bit integer, two's complement when `SIGNED`: the one generic type
/// behind [`FheUint`] and [`FheInt`] (see the [module docs](super) for the semantics).
///
/// The operators `+ - * / %`, `& | ^`, `<< >>` (and their `+=` ... forms, with a value of
/// the type or a clear integer on the right), unary `-` and `!` each run one circuit on
/// this thread's server. Arithmetic wraps modulo `2^N`; `/` and `%` truncate, as Rust's
/// `wrapping_div` and `wrapping_rem` (an encrypted zero divisor gives TFHE-rs' values, a
/// clear one panics); `>>` is arithmetic on signed types; a shift amount is taken modulo
/// `N`. Inside [`compile`](super::compile) the operators are recorded instead, which
/// needs no key.
///
/// # Examples
///
/// ```
/// use encint::fhe::{compile, FheInt8};
///
/// let f = compile(|(a, b): (FheInt8, FheInt8)| (&a * &b, &a / &b, &a % &b, -(&a >> 1u8)))?;
/// let (a, b) = (-100i8, 7i8);
/// let expected = [a.wrapping_mul(b), a.wrapping_div(b), a.wrapping_rem(b), -(a >> 1)];
/// let expected: Vec<i128> = expected.into_iter().map(i128::from).collect();
/// assert_eq!(f.run_clear(&[a.into(), b.into()])?, expected);
/// # Ok::<(), encint::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct FheInteger<const N: usize, const SIGNED: bool> {
    inner: Repr,
}

/// An encrypted unsigned `N`-bit integer (`N` in 2..=128; [`FheUint8`](super::FheUint8)
/// and its siblings name the usual widths).
///
/// `FheUint<1>` does not compile where it is used: the one-bit unsigned type is
/// [`FheBool`]'s ([`IntType::BOOL`]), whose casts give `x != 0` where every other
/// `FheUint<N>` keeps the low `N` bits. Use [`FheBool`], or `x & 1` for the low bit.
///
/// ```compile_fail
/// # use encint::fhe::{FheUint, FheUint8};
/// # use encint::{ClientKey, DEFAULT_PARAMETERS};
/// # let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
/// let x = FheUint8::encrypt(50u8, &client)?;
/// let low: FheUint<1> = x.cast_into(); // refused: it would be x != 0
/// # Ok::<(), encint::Error>(())
/// ```
///
/// ```no_run
/// # use encint::fhe::{FheUint, FheUint8};
/// # use encint::{ClientKey, DEFAULT_PARAMETERS};
/// # let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
/// let x = FheUint8::encrypt(50u8, &client)?;
/// let low: FheUint<2> = x.cast_into(); // the low two bits: 2
/// # Ok::<(), encint::Error>(())
/// ```
pub type FheUint<const N: usize> = FheInteger<N, false>;

/// An encrypted signed `N`-bit integer (`N` in 1..=128; [`FheInt8`](super::FheInt8) and
/// its siblings name the usual widths). `FheInt<1>` holds `-1` and `0`: a cast to it
/// keeps the low bit (`-(x & 1)`), as Rust's `as` does.
///
/// # Examples
///
/// ```
/// use encint::fhe::{compile, FheInt, FheInt8};
///
/// let low = compile(|x: FheInt8| x.cast_into::<FheInt<1>>())?;
/// for v in [6i8, 7, -1] {
///     assert_eq!(low.run_clear(&[v.into()])?, vec![-(i128::from(v) & 1)]);
/// }
/// # Ok::<(), encint::Error>(())
/// ```
pub type FheInt<const N: usize> = FheInteger<N, true>;

fixed_type!([const N: usize, const SIGNED: bool] FheInteger<N, SIGNED>, Self::TYPE);

impl<const N: usize, const SIGNED: bool> FheInteger<N, SIGNED> {
    /// The type (a width outside 1..=128, or `FheUint<1>`, fails to compile where it is
    /// used).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{FheInt, FheUint16};
    ///
    /// assert_eq!((FheUint16::TYPE.bits, FheUint16::TYPE.signed), (16, false));
    /// assert_eq!(FheInt::<5>::TYPE.to_string(), "i5");
    /// assert_eq!(FheInt::<5>::TYPE.min(), -16);
    /// ```
    pub const TYPE: IntType = {
        assert!(N >= 1 && N <= 128, "a typed integer is 1 to 128 bits wide");
        assert!(
            N > 1 || SIGNED,
            "FheUint<1> is FheBool's type (a cast to it gives x != 0): use FheBool, or x & 1"
        );
        IntType {
            bits: N,
            signed: SIGNED,
        }
    };

    /// Encrypts `value`; errors ([`Error::OutOfRange`]) if it is not a value of the type
    /// (`FheUint8::encrypt(300u16, ..)`, `FheUint8::encrypt(-1, ..)`).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::FheInt8;
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let x = FheInt8::encrypt(-128i32, &client)?; // any integer type holding an i8 value
    /// assert_eq!(x.decrypt::<i8>(&client)?, i8::MIN);
    /// assert!(FheInt8::encrypt(128u8, &client).is_err()); // no i8 value
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn encrypt<C: Clear>(value: C, client: &ClientKey) -> Result<Self> {
        Self::encrypt_as(value, Form::DEFAULT, client)
    }

    /// [`encrypt`](Self::encrypt) in a chosen stored form: [`Form::Radix4`] (two bits
    /// per digit, like TFHE-rs' radix blocks: what `encrypt` gives, [`Form::DEFAULT`];
    /// additions, bitwise operations, products and comparisons read the blocks
    /// directly) or [`Form::Canonical`] (one bit per digit: twice the digits, shifts by
    /// constants and selections on bits are free or cheaper). Results are the same; only
    /// the circuits the planner picks differ.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{set_server_key, FheUint8};
    /// use encint::typed::Form;
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// set_server_key(server_key);
    /// let a = FheUint8::encrypt_as(0b1100_1010u8, Form::Radix4, &client)?;
    /// let b = FheUint8::encrypt(0b1010_0110u8, &client)?;
    /// assert_eq!((&a ^ &b).decrypt::<u8>(&client)?, 0b0110_1100);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn encrypt_as<C: Clear>(value: C, form: Form, client: &ClientKey) -> Result<Self> {
        let v = value
            .to_i128()
            .filter(|&v| Self::TYPE.contains(v))
            .ok_or_else(|| {
                Error::OutOfRange(format!("{value} is not a value of {}", Self::TYPE))
            })?;
        Ok(FheInteger {
            inner: Repr::Cipher(encrypt_typed_as(client, v, Self::TYPE, form)?),
        })
    }

    /// Decrypts into `C`; errors on another key set ([`Error::WrongClientKey`]), on a
    /// corrupted ciphertext, or if `C` does not hold the value (or a value of a trace).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::FheUint8;
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let x = FheUint8::encrypt(200u8, &client)?;
    /// assert_eq!(x.decrypt::<u8>(&client)?, 200);
    /// assert_eq!(x.decrypt::<i64>(&client)?, 200); // any type that holds the value
    /// assert!(x.decrypt::<i8>(&client).is_err()); // 200 is no i8
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn decrypt<C: Clear>(&self, client: &ClientKey) -> Result<C> {
        let v = decrypt_typed(client, cipher(&self.inner)?)?;
        C::from_value(v, Self::TYPE).ok_or_else(|| {
            Error::OutOfRange(format!(
                "the decrypted {} does not fit in {}",
                Self::TYPE,
                std::any::type_name::<C>()
            ))
        })
    }

    /// The value of the type congruent to the exact integer `x` modulo `2^N` (its low `N`
    /// digits, as Rust's `as` converts): free, no bootstrap. [`FheType::to_int`] goes
    /// back.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{FheInt8, FheUint8};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let x = encint::encrypt(&client, 300, 10)?; // exact: 10 signed binary digits
    /// assert_eq!(FheUint8::from_int(&x)?.decrypt::<u8>(&client)?, 300u16 as u8);
    /// let y = encint::encrypt(&client, -129, 9)?;
    /// assert_eq!(FheInt8::from_int(&y)?.decrypt::<i8>(&client)?, -129i16 as i8);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn from_int(x: &super::Int) -> Result<Self> {
        Self::from_typed(EncTyped::from_int(x.clone(), Self::TYPE)?)
    }

    /// The key set the value belongs to (none for a value of a trace).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::FheUint8;
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let x = FheUint8::encrypt(1u8, &client)?;
    /// assert_eq!(x.key_set(), Some(client.key_set()));
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn key_set(&self) -> Option<KeySetId> {
        self.as_typed().map(EncTyped::key_set)
    }

    /// `op` (a binary operation of the type: add, sub, mul, div, rem, and, or, xor, min,
    /// max) on `self` and `rhs`, or an error where the operator would panic.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    /// use encint::typed::Op;
    ///
    /// let f = compile(|(a, b): (FheUint8, FheUint8)| {
    ///     assert!(a.try_binary(Op::LT, &b).is_err()); // a comparison: see try_compare
    ///     assert!(a.try_binary(Op::Div, 0u8).is_err()); // `a / 0u8` would panic
    ///     a.try_binary(Op::Sub, &b).expect("a binary operation of u8")
    /// })?;
    /// assert_eq!(f.run_clear(&[3, 10])?, vec![i128::from(3u8.wrapping_sub(10))]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn try_binary(&self, op: Op, rhs: impl IntoOperand<Self>) -> Result<Self> {
        if op.arity() != 2 || op.result_type(Self::TYPE) != Self::TYPE {
            return Err(Error::WrongOperation(format!(
                "{op} is not a binary operation"
            )));
        }
        if matches!(op, Op::ShlVar | Op::ShrVar | Op::RotlVar | Op::RotrVar) {
            return Err(Error::WrongOperation(format!(
                "{op}: use the shift and rotation methods"
            )));
        }
        wrap(dynamic::binary(op, &self.inner, rhs.operand()))
    }

    /// `op` (a comparison: eq, ne, lt, le, gt, ge) of `self` and `rhs`, or an error
    /// where the method would panic.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8};
    /// use encint::typed::Op;
    ///
    /// let le = compile(|(a, b): (FheInt8, FheInt8)| a.try_compare(Op::LE, &b).expect("<="))?;
    /// for (a, b) in [(-5i8, 3i8), (3, -5), (7, 7)] {
    ///     assert_eq!(le.run_clear(&[a.into(), b.into()])?, vec![i128::from(a <= b)]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn try_compare(&self, op: Op, rhs: impl IntoOperand<Self>) -> Result<FheBool> {
        if op.arity() != 2 || op.result_type(Self::TYPE) != IntType::BOOL {
            return Err(Error::WrongOperation(format!("{op} is not a comparison")));
        }
        wrap(dynamic::binary(op, &self.inner, rhs.operand()))
    }

    /// A one-operand operation of the type (neg, not, square, scalar mul, div/rem by a
    /// scalar, shifts and rotations by a constant as given), or an error where the
    /// operator would panic.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8};
    /// use encint::typed::Op;
    ///
    /// let f = compile(|x: FheInt8| {
    ///     assert!(x.try_unary(Op::Add).is_err()); // two operands
    ///     x.try_unary(Op::ScalarMul(3)).expect("a one-operand operation")
    /// })?;
    /// assert_eq!(f.run_clear(&[-50])?, vec![i128::from((-50i8).wrapping_mul(3))]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn try_unary(&self, op: Op) -> Result<Self> {
        if op.arity() != 1 || op.result_type(Self::TYPE) != Self::TYPE {
            return Err(Error::WrongOperation(format!(
                "{op} is not a one-operand operation"
            )));
        }
        wrap(dynamic::unary(op, &self.inner))
    }

    /// Shift or rotation (`op` one of `ShlVar`, `ShrVar`, `RotlVar`, `RotrVar`) by an
    /// amount taken modulo `N`, clear or an encrypted unsigned value of this width.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8, FheUint8};
    /// use encint::typed::Op;
    ///
    /// let shr = compile(|(x, k): (FheInt8, FheUint8)| x.try_shift(Op::ShrVar, &k).expect(">>"))?;
    /// for (x, k) in [(-100i8, 2u8), (-100, 10)] {
    ///     let expected = x.wrapping_shr(u32::from(k)); // arithmetic, by k mod 8
    ///     assert_eq!(shr.run_clear(&[x.into(), k.into()])?, vec![i128::from(expected)]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn try_shift(&self, op: Op, amount: impl ShiftAmount<N>) -> Result<Self> {
        wrap(dynamic::binary(op, &self.inner, amount.amount()?))
    }

    /// `self²` modulo `2^N` (cheaper than `self * self`).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8};
    ///
    /// let f = compile(|x: FheInt8| x.square())?;
    /// assert_eq!(f.run_clear(&[-12])?, vec![i128::from((-12i8).wrapping_mul(-12))]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn square(&self) -> Self {
        or_panic(self.try_unary(Op::Square))
    }

    /// `|self|` modulo `2^N` (`abs(MIN) = MIN`, as `wrapping_abs`); unsigned: `self`.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8};
    ///
    /// let f = compile(|x: FheInt8| x.abs())?;
    /// for v in [-100i8, 5, i8::MIN] {
    ///     assert_eq!(f.run_clear(&[v.into()])?, vec![i128::from(v.wrapping_abs())]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn abs(&self) -> Self {
        or_panic(wrap(dynamic::abs(&self.inner)))
    }

    /// The value converted to `T` as Rust's `as` converts (truncated, or zero/sign
    /// extended by this type's signedness); to [`FheBool`]: `self != 0`.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheBool, FheInt8, FheUint16};
    ///
    /// let f = compile(|x: FheInt8| (x.cast_into::<FheUint16>(), x.cast_into::<FheBool>()))?;
    /// for v in [-3i8, 0] {
    ///     let expected = vec![i128::from(v as u16), i128::from(v != 0)];
    ///     assert_eq!(f.run_clear(&[v.into()])?, expected);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn cast_into<T: FheType>(&self) -> T {
        or_panic(cast(&self.inner, T::static_type()))
    }

    /// `x` converted to this type (see [`FheInteger::cast_into`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8, FheUint16};
    ///
    /// let f = compile(|x: FheUint16| FheInt8::cast_from(&x))?; // truncation
    /// assert_eq!(f.run_clear(&[40000])?, vec![i128::from(40000u16 as i8)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn cast_from<T: FheType>(x: &T) -> Self {
        or_panic(cast(x.repr(), Some(Self::TYPE)))
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
    /// `min(self, rhs)`, signed or unsigned as the type.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8};
    ///
    /// let f = compile(|(a, b): (FheInt8, FheInt8)| a.min(&b))?;
    /// for (a, b) in [(-100i8, 7i8), (7, -100)] {
    ///     assert_eq!(f.run_clear(&[a.into(), b.into()])?, vec![i128::from(a.min(b))]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    min(impl IntoOperand<Self>) -> Self => try_binary(Op::Min);
    /// `max(self, rhs)`, signed or unsigned as the type.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    ///
    /// let f = compile(|(a, b): (FheUint8, FheUint8)| a.max(&b))?;
    /// for (a, b) in [(200u8, 13u8), (13, 200)] {
    ///     assert_eq!(f.run_clear(&[a.into(), b.into()])?, vec![i128::from(a.max(b))]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    max(impl IntoOperand<Self>) -> Self => try_binary(Op::Max);
    /// `self == rhs` (an [`FheBool`]); `rhs` may be a clear value.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    ///
    /// let f = compile(|(a, b): (FheUint8, FheUint8)| a.eq(&b))?;
    /// for (a, b) in [(5u8, 5u8), (5, 6)] {
    ///     assert_eq!(f.run_clear(&[a.into(), b.into()])?, vec![i128::from(a == b)]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    eq(impl IntoOperand<Self>) -> FheBool => try_compare(Op::EQ);
    /// `self != rhs` (an [`FheBool`]); `rhs` may be a clear value.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    ///
    /// let f = compile(|(a, b): (FheUint8, FheUint8)| a.ne(&b))?;
    /// for (a, b) in [(5u8, 5u8), (5, 6)] {
    ///     assert_eq!(f.run_clear(&[a.into(), b.into()])?, vec![i128::from(a != b)]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    ne(impl IntoOperand<Self>) -> FheBool => try_compare(Op::NE);
    /// `self < rhs` (an [`FheBool`]), signed; `rhs` may be a clear value.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8};
    ///
    /// let f = compile(|(a, b): (FheInt8, FheInt8)| a.lt(&b))?;
    /// for (a, b) in [(-1i8, 1i8), (1, -1), (3, 3)] {
    ///     assert_eq!(f.run_clear(&[a.into(), b.into()])?, vec![i128::from(a < b)]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    lt(impl IntoOperand<Self>) -> FheBool => try_compare(Op::LT);
    /// `self <= rhs` (an [`FheBool`]), signed; `rhs` may be a clear value.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8};
    ///
    /// let f = compile(|(a, b): (FheInt8, FheInt8)| a.le(&b))?;
    /// for (a, b) in [(-1i8, 1i8), (1, -1), (3, 3)] {
    ///     assert_eq!(f.run_clear(&[a.into(), b.into()])?, vec![i128::from(a <= b)]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    le(impl IntoOperand<Self>) -> FheBool => try_compare(Op::LE);
    /// `self > rhs` (an [`FheBool`]); `rhs` may be a clear value.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    ///
    /// let f = compile(|(a, b): (FheUint8, FheUint8)| a.gt(&b))?;
    /// for (a, b) in [(255u8, 1u8), (1, 255), (3, 3)] {
    ///     assert_eq!(f.run_clear(&[a.into(), b.into()])?, vec![i128::from(a > b)]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    gt(impl IntoOperand<Self>) -> FheBool => try_compare(Op::GT);
    /// `self >= rhs` (an [`FheBool`]); `rhs` may be a clear value.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    ///
    /// let f = compile(|(a, b): (FheUint8, FheUint8)| a.ge(&b))?;
    /// for (a, b) in [(255u8, 1u8), (1, 255), (3, 3)] {
    ///     assert_eq!(f.run_clear(&[a.into(), b.into()])?, vec![i128::from(a >= b)]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    ge(impl IntoOperand<Self>) -> FheBool => try_compare(Op::GE);
    /// `self` rotated left by `amount mod N` (clear, or an encrypted [`FheUint<N>`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    ///
    /// let f = compile(|x: FheUint8| x.rotate_left(3u32))?; // a clear amount
    /// let x = 0b1010_0001u8;
    /// assert_eq!(f.run_clear(&[x.into()])?, vec![i128::from(x.rotate_left(3))]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    rotate_left(impl ShiftAmount<N>) -> Self => try_shift(Op::RotlVar);
    /// `self` rotated right by `amount mod N` (clear, or an encrypted [`FheUint<N>`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    ///
    /// let f = compile(|(x, k): (FheUint8, FheUint8)| x.rotate_right(&k))?; // encrypted k
    /// for (x, k) in [(0b1010_0001u8, 1u8), (0b1010_0001, 9)] {
    ///     let expected = x.rotate_right(u32::from(k)); // by k mod 8
    ///     assert_eq!(f.run_clear(&[x.into(), k.into()])?, vec![i128::from(expected)]);
    /// }
    /// # Ok::<(), encint::Error>(())
    /// ```
    rotate_right(impl ShiftAmount<N>) -> Self => try_shift(Op::RotrVar);
}

/// What may stand right of `<<`, `>>` and the rotations on an `N`-bit value: a clear
/// non-negative integer, or an encrypted [`FheUint<N>`] (by value or reference).
pub trait ShiftAmount<const N: usize> {
    /// The amount; errors on a negative clear amount.
    fn amount(&self) -> Result<Operand<'_>>;
}

impl<const N: usize> ShiftAmount<N> for FheUint<N> {
    fn amount(&self) -> Result<Operand<'_>> {
        Ok(Operand::Value(&self.inner))
    }
}

impl<const N: usize> ShiftAmount<N> for &FheUint<N> {
    fn amount(&self) -> Result<Operand<'_>> {
        Ok(Operand::Value(&self.inner))
    }
}

macro_rules! clear_operands {
    ($($t:ty),*) => {$(
        impl<const N: usize, const SIGNED: bool> IntoOperand<FheInteger<N, SIGNED>> for $t {
            fn operand(&self) -> Operand<'_> {
                Operand::Clear(Clear::pattern(*self))
            }
        }
        impl IntoOperand<FheValue> for $t {
            fn operand(&self) -> Operand<'_> {
                Operand::Clear(Clear::pattern(*self))
            }
        }
        impl<const N: usize> ShiftAmount<N> for $t {
            fn amount(&self) -> Result<Operand<'_>> {
                if Clear::is_negative(*self) || Clear::to_i128(*self).is_none() {
                    return Err(Error::OutOfRange(format!(
                        "shift amount {self} outside 0..=i128::MAX"
                    )));
                }
                Ok(Operand::Clear(Clear::pattern(*self)))
            }
        }
    )*};
}
clear_operands!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
