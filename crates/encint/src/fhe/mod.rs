//! One family of encrypted integer types with operators, in the shape of TFHE-rs'
//! high-level API: [`FheUint8`] ... [`FheUint128`], [`FheInt8`] ... [`FheInt128`] (any
//! width through [`FheUint<N>`](FheUint), `N` from 2 to 128, and [`FheInt<N>`](FheInt),
//! `N` from 1 to 128), [`FheBool`], and [`Int`], the exact integer that never wraps.
//!
//! The client encrypts with its [`ClientKey`](crate::ClientKey) and decrypts into any
//! Rust integer type that holds the value; the server side sets its key once per thread
//! ([`set_server_key`], or [`set_server_everywhere`] for every thread of rayon's pool)
//! and uses operators. Every operator call is one circuit, planned for its operands'
//! forms and the server's thread count (see [`crate::typed`]); a clear operand is folded
//! into that circuit.
//!
//! ```
//! use encint::fhe::{set_server_key, FheBool, FheInt16, FheUint8};
//! use encint::{ClientKey, DEFAULT_PARAMETERS};
//!
//! let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
//! set_server_key(server_key);
//!
//! let a = FheUint8::encrypt(200u8, &client)?;
//! let b = FheUint8::encrypt(100u8, &client)?;
//! let sum = &a + &b; // wraps: 300 mod 256
//! assert_eq!(sum.decrypt::<u8>(&client)?, 44);
//! let q = &a / 7u8; // a clear divisor: a reciprocal, no division circuit
//! assert_eq!(q.decrypt::<u8>(&client)?, 28);
//! let bigger: FheBool = a.gt(&b);
//! let m = bigger.select(&a, &b);
//! assert_eq!(m.decrypt::<u8>(&client)?, 200);
//!
//! let x = FheInt16::encrypt(-300i16, &client)?;
//! let y = (&x * &x).abs();
//! assert_eq!(y.decrypt::<i16>(&client)?, 90000i32.wrapping_rem(65536) as i16);
//! # Ok::<(), encint::Error>(())
//! ```
//!
//! # Semantics
//!
//! The typed integers follow TFHE-rs 1.8.2 (and Rust's `wrapping_*` methods):
//!
//! | operation | result |
//! |---|---|
//! | `+ - *`, unary `-`, `square` | modulo `2^N` |
//! | `/`, `%`, `div_rem` | truncating; `MIN / -1 = MIN`, `MIN % -1 = 0`; `div_rem` gives both from one circuit |
//! | `/ 0`, `% 0` (encrypted zero) | unsigned: `x / 0` = all ones, `x % 0 = x`; signed: `x / 0` = `-1` for `x >= 0` and `1` for `x < 0`, `x % 0 = x` |
//! | `/ 0`, `% 0` (clear zero) | an error ([`Error::DivisionByZero`]); the operator panics |
//! | `<< k`, `>> k`, by a clear or encrypted `k` | shift by `k mod N` (TFHE-rs' barrel shifter reads the low `log2 N` bits of the amount), as Rust's `wrapping_shl` / `wrapping_shr`; `>>` is arithmetic on signed types |
//! | `rotate_left/right(k)` | rotation by `k mod N` |
//! | `& \| ^ !` | bitwise on the two's-complement pattern |
//! | `eq ne lt le gt ge` | an [`FheBool`] |
//! | `abs` | `|x|` modulo `2^N` (`abs(MIN) = MIN`) |
//! | `cast_into`, `cast_from` | truncation, or zero/sign extension by the source's signedness (Rust's `as`); to [`FheBool`]: `x != 0` |
//! | `overflowing_add/sub/mul/neg` | the wrapped result and an [`FheBool`] that is true when the exact result is outside the type, as Rust's `overflowing_*` |
//! | `is_even`, `is_odd` | the low bit, as an [`FheBool`] |
//! | `count_ones/zeros`, `leading_zeros/ones`, `trailing_zeros/ones` | the count, an [`FheUint32`] (the width for a leading or trailing count of a value without the bit) |
//! | `ilog2`, `checked_ilog2` | the position of the highest one bit, an [`FheUint32`] (0 for 0, `N − 1` for a negative value); `checked_ilog2` adds `x > 0` |
//! | `reverse_bits` | the pattern's bits in reverse order |
//! | `generate_oblivious_pseudo_random(seed)`, `_bounded(seed, bits)` | a value the server draws without learning it, uniform over the type (or on `0..2^bits`); one seed, one value |
//! | `c.select(a, b)`, `c.if_then_zero(a)` | `a` where `c`, else `b` (or 0) |
//! | `x.match_value(&MatchValues::new(pairs)?)`, `x.match_value_or(&m, d)` | a clear table's output for `x` as the caller's type, and an [`FheBool`] that `x` is one of its inputs (or `d` where it is not); [`MatchValues`] |
//!
//! The one-bit unsigned type is the boolean type: `IntType::new(1, false)` is
//! [`IntType::BOOL`], and a cast to it gives `x != 0`, not the low bit. So that no name
//! reads as a truncating integer, `FheUint<1>` does not compile (use [`FheBool`]) and the
//! name `u1` is refused wherever types are named ([`IntType::parse`], the command line's
//! `--type`, Python's `"u1"` and `encint.FheUint(1)`); the low bit is `x & 1`.
//! [`FheInt<1>`](FheInt) (`i1`) is the one-bit signed integer: values `-1` and `0`, a cast
//! to it keeps the low bit (`-(x & 1)`) as `as` does, and its arithmetic wraps modulo 2.
//!
//! A clear operand of an operator is converted to the type as Rust's `as` does (its low
//! `N` bits). An encrypted shift or rotation amount is an unsigned value of the same
//! width ([`FheUint<N>`](FheUint)), for signed values too.
//!
//! Operators panic where TFHE-rs' do: no server key on the thread, operands of two key
//! sets, a clear division by zero. [`FheUint::try_binary`](FheInteger::try_binary),
//! [`try_unary`](FheInteger::try_unary) and [`try_compare`](FheInteger::try_compare)
//! return these as errors instead. Inside a function being compiled ([`compile`] and its
//! kin, array calls), an operator's error ends the tracing instead: the compilation
//! returns it (a circuit past a limit is [`Error::LimitExceeded`]), and nothing panics.

/// Implements [`FheType`] for a type of the family whose Rust type fixes its [`IntType`]
/// (`$int_type`), a wrapper of its [`Repr`] in the field `inner`; `[$generics]` are the
/// impl's generic parameters.
macro_rules! fixed_type {
    ([$($generics:tt)*] $ty:ty, $int_type:expr) => {
        impl<$($generics)*> FheType for $ty {
            fn static_type() -> Option<IntType> {
                Some($int_type)
            }
            fn repr(&self) -> &Repr {
                &self.inner
            }
            fn from_repr(x: Repr) -> Result<Self> {
                check_type(&x, $int_type)?;
                Ok(Self { inner: x })
            }
        }
    };
}

mod array;
mod bit_count;
mod boolean;
mod clear;
mod compile;
mod compose;
mod dynamic;
mod integer;
mod lookup;
mod on_clear;
mod ops;
mod overflow;
mod random;
mod repr;
mod values;

use std::sync::Arc;

use encint_arith::typed::IntType;

pub use array::{ArrayOperand, FheArray, IntoArrayOperand};
pub use boolean::FheBool;
pub use clear::Clear;
pub use compile::{compile, compile_for, compile_on, compile_with, Compiled};
pub use compose::{Composer, Rhs, Value, MAX_MATCHES};
pub use dynamic::FheValue;
pub use integer::{FheInt, FheInteger, FheUint, ShiftAmount};
pub use lookup::MatchValues;
pub use on_clear::{apply_clear, compose_clear};
pub use repr::Repr;
pub use values::{shape_len, Values, MAX_LEAVES};

use crate::typed::EncTyped;
use crate::{Error, Result, Server, ServerKey};

/// The exact encrypted integer: signed binary digits, results never wrap and grow as
/// needed (a product is as long as both operands together).
///
/// # Examples
///
/// ```
/// use encint::fhe::{set_server_key, Int};
/// use encint::{ClientKey, DEFAULT_PARAMETERS};
///
/// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
/// let server = set_server_key(server_key);
/// let a: Int = encint::encrypt(&client, -100, 8)?; // 8 signed binary digits
/// let b: Int = encint::encrypt(&client, 57, 8)?;
/// let p = &(&a * &b) + &a; // exact: the product has 16 digits, nothing wraps
/// assert_eq!(encint::decrypt(&client, &p)?, -100 * 57 - 100);
/// assert_eq!(encint::decrypt(&client, &(&(-&a) * 3))?, 300);
/// // Operations without an operator, as one circuit each, return a `Result`.
/// let (m, _cost) = server.apply(encint::Op::Max, &[&a, &b])?;
/// assert_eq!(encint::decrypt(&client, &m)?, 57);
/// # Ok::<(), encint::Error>(())
/// ```
pub type Int = crate::EncInt;

/// 8-bit unsigned.
pub type FheUint8 = FheUint<8>;
/// 16-bit unsigned.
pub type FheUint16 = FheUint<16>;
/// 32-bit unsigned.
pub type FheUint32 = FheUint<32>;
/// 64-bit unsigned.
pub type FheUint64 = FheUint<64>;
/// 128-bit unsigned (values up to `i128::MAX` encrypt; every value decrypts into `u128`).
pub type FheUint128 = FheUint<128>;
/// 8-bit signed.
pub type FheInt8 = FheInt<8>;
/// 16-bit signed.
pub type FheInt16 = FheInt<16>;
/// 32-bit signed.
pub type FheInt32 = FheInt<32>;
/// 64-bit signed.
pub type FheInt64 = FheInt<64>;
/// 128-bit signed.
pub type FheInt128 = FheInt<128>;

/// Sets a server for `key` as this thread's (on rayon's global pool), for the operators;
/// returns it, to share with other threads ([`set_server_everywhere`]). Without a server
/// on the thread the operators panic and the `try_` methods return [`Error::NoServer`].
///
/// # Examples
///
/// ```
/// use encint::fhe::{set_server_key, FheUint8};
/// use encint::{ClientKey, DEFAULT_PARAMETERS};
///
/// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
/// let server = set_server_key(server_key); // this thread's operators run on it
/// assert_eq!(server.key().key_set(), client.key_set());
/// let a = FheUint8::encrypt(250u8, &client)?;
/// let b = &a + 10u8;
/// assert_eq!(b.decrypt::<u8>(&client)?, 250u8.wrapping_add(10));
/// # Ok::<(), encint::Error>(())
/// ```
pub fn set_server_key(key: ServerKey) -> Arc<Server> {
    let server = Arc::new(Server::new(key));
    crate::set_server(server.clone());
    server
}

/// Sets `server` on this thread and on every thread of rayon's global pool, so that
/// operators work inside `par_iter` closures too.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use encint::fhe::{set_server_everywhere, FheUint8};
/// use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
/// use rayon::prelude::*;
///
/// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
/// set_server_everywhere(Arc::new(Server::new(server_key)));
/// let clear = [3u8, 200];
/// let xs = clear
///     .iter()
///     .map(|&v| FheUint8::encrypt(v, &client))
///     .collect::<encint::Result<Vec<_>>>()?;
/// // The operators run on whichever pool thread takes the element.
/// let doubled: Vec<FheUint8> = xs.par_iter().map(|x| x + x).collect();
/// for (d, v) in doubled.iter().zip(clear) {
///     assert_eq!(d.decrypt::<u8>(&client)?, v.wrapping_add(v));
/// }
/// # Ok::<(), encint::Error>(())
/// ```
pub fn set_server_everywhere(server: Arc<Server>) {
    crate::set_server(server.clone());
    rayon::broadcast(|_| crate::set_server(server.clone()));
}

/// An encrypted value of the family: its type and how it is held (ciphertexts, or a node
/// of a trace inside [`compile`] or an array call).
pub trait FheType: Values + Clone {
    /// The type, when the Rust type fixes it (not for [`FheValue`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{FheBool, FheInt8, FheType, FheUint8, FheValue};
    /// use encint::typed::IntType;
    ///
    /// assert_eq!(FheInt8::static_type(), Some(IntType::new(8, true).unwrap()));
    /// assert_eq!(FheUint8::static_type(), Some(IntType::new(8, false).unwrap()));
    /// assert_eq!(FheBool::static_type(), Some(IntType::BOOL));
    /// assert_eq!(FheValue::static_type(), None); // its type is known at run time only
    /// ```
    fn static_type() -> Option<IntType>;
    /// How the value is held.
    ///
    /// # Examples
    ///
    /// Inside [`compile`] a value is a node of the trace, not a ciphertext (no key is
    /// needed to compile):
    ///
    /// ```
    /// use encint::fhe::{compile, FheType, FheUint8, Repr};
    ///
    /// let f = compile(|x: FheUint8| {
    ///     assert!(matches!(x.repr(), Repr::Traced(..)));
    ///     &x + 1u8
    /// })?;
    /// assert_eq!(f.run_clear(&[41])?, vec![42]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    fn repr(&self) -> &Repr;
    /// A value of this type held as `repr`; errors on another type.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8, FheType, FheUint8};
    ///
    /// let f = compile(|x: FheUint8| {
    ///     assert!(FheInt8::from_repr(x.repr().clone()).is_err()); // u8 is not i8
    ///     let same = FheUint8::from_repr(x.repr().clone()).expect("a u8 value");
    ///     &same * 3u8
    /// })?;
    /// assert_eq!(f.run_clear(&[100])?, vec![i128::from(100u8.wrapping_mul(3))]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    fn from_repr(repr: Repr) -> Result<Self>;
    /// The typed digits, unless the value is a node of a trace.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{FheType, FheUint8};
    /// use encint::typed::{Form, IntType};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let x = FheUint8::encrypt(7u8, &client)?;
    /// let digits = x.as_typed().expect("a ciphertext");
    /// assert_eq!(digits.ty(), IntType::new(8, false).unwrap());
    /// assert_eq!(digits.form(), Form::DEFAULT); // as encryption gives it
    /// # Ok::<(), encint::Error>(())
    /// ```
    fn as_typed(&self) -> Option<&EncTyped> {
        match self.repr() {
            Repr::Cipher(x) => Some(x),
            Repr::Traced(..) => None,
        }
    }
    /// Wraps typed digits of this type; errors on another type.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{FheInt8, FheType, FheUint8};
    /// use encint::typed::{encrypt_typed, IntType};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let i8t = IntType::new(8, true).unwrap();
    /// let digits = encrypt_typed(&client, -5, i8t)?;
    /// assert!(FheUint8::from_typed(digits.clone()).is_err()); // an i8 is no u8
    /// let x = FheInt8::from_typed(digits)?;
    /// assert_eq!(x.decrypt::<i8>(&client)?, -5);
    /// # Ok::<(), encint::Error>(())
    /// ```
    fn from_typed(x: EncTyped) -> Result<Self> {
        Self::from_repr(Repr::Cipher(x))
    }
    /// The ciphertext file of the value (see [`crate::io::wire`]), labelled with the parameter
    /// set `params` of its keys; errors for a value of a trace.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{FheInt8, FheType};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let bytes = FheInt8::encrypt(-100i8, &client)?.to_bytes(&DEFAULT_PARAMETERS)?;
    /// let back = FheInt8::from_bytes(&bytes)?;
    /// assert_eq!(back.decrypt::<i8>(&client)?, -100);
    /// # Ok::<(), encint::Error>(())
    /// ```
    fn to_bytes(&self, params: &crate::keys::DigitParameters) -> Result<Vec<u8>> {
        dynamic::cipher(self.repr())?.to_bytes(params)
    }
    /// Reads a value written by [`FheType::to_bytes`] (or by the command-line tool or the
    /// Python package, or the bit vectors of earlier releases); errors on a file of
    /// another kind or another type.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{FheBool, FheType, FheUint8};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let bytes = FheUint8::encrypt(201u8, &client)?.to_bytes(&DEFAULT_PARAMETERS)?;
    /// assert_eq!(FheUint8::from_bytes(&bytes)?.decrypt::<u8>(&client)?, 201);
    /// assert!(FheBool::from_bytes(&bytes).is_err()); // another type
    /// assert!(FheUint8::from_bytes(&bytes[..bytes.len() - 1]).is_err()); // truncated
    /// # Ok::<(), encint::Error>(())
    /// ```
    fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_typed(EncTyped::from_bytes(bytes)?)
    }
    /// The exact integer ([`Int`]) of the value, on this thread's server: its value in
    /// signed binary digits (free when the digits are canonical, as encryption gives them;
    /// else one conversion circuit). Errors for a value of a trace, without a server, or on
    /// a value of another key set. [`FheValue::from_int`] and [`FheInteger::from_int`] go
    /// back.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{set_server_key, FheInt8, FheType};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// set_server_key(server_key);
    /// let x = FheInt8::encrypt(-77i8, &client)?;
    /// let exact = x.to_int()?; // signed binary digits, no wrapping from here on
    /// assert_eq!(encint::decrypt(&client, &exact)?, -77);
    /// # Ok::<(), encint::Error>(())
    /// ```
    fn to_int(&self) -> Result<Int> {
        let x = dynamic::cipher(self.repr())?;
        crate::server::with_server(|s| s.typed_to_int(x))
    }
}

/// The right operand of an operation on `T`: a value of `T` or a clear value.
#[derive(Debug)]
pub enum Operand<'a> {
    /// A value of the type (encrypted or traced).
    Value(&'a Repr),
    /// A clear value's two's-complement pattern (converted to the type as `as` does).
    Clear(i128),
}

/// What may stand right of an operator on `T`: `T`, `&T` or a clear integer (`bool` for
/// [`FheBool`]).
pub trait IntoOperand<T> {
    /// The operand.
    fn operand(&self) -> Operand<'_>;
}

impl<T: FheType> IntoOperand<T> for T {
    fn operand(&self) -> Operand<'_> {
        Operand::Value(self.repr())
    }
}

impl<T: FheType> IntoOperand<T> for &T {
    fn operand(&self) -> Operand<'_> {
        Operand::Value(self.repr())
    }
}

/// The value of type `O` held as `r`, refusing another type.
pub(crate) fn wrap<O: FheType>(r: Result<Repr>) -> Result<O> {
    O::from_repr(r?)
}

/// Unwraps an operator's result: operators panic where TFHE-rs' do (see the module
/// docs); the `try_` methods return the error. While this thread traces a function
/// ([`values::tracing`]) the error unwinds to the tracer, without the panic hook, and the
/// tracer returns it.
pub(crate) fn or_panic<T>(r: Result<T>) -> T {
    r.unwrap_or_else(|e| {
        if values::tracing() {
            std::panic::resume_unwind(Box::new(values::TracedError(e)))
        }
        panic!("encint operator: {e}")
    })
}

/// Checks that a value is of `ty`.
pub(crate) fn check_type(x: &Repr, ty: IntType) -> Result<()> {
    let found = dynamic::repr_type(x);
    if found == ty {
        Ok(())
    } else {
        Err(Error::TypeMismatch(format!(
            "a value of type {found} where {ty} is expected"
        )))
    }
}
