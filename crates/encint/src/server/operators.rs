//! The operations of exact integers as methods of [`Server`] (one circuit each), the
//! thread's server ([`set_server`]) and the operator syntax on [`EncInt`]s it serves.

use std::cell::RefCell;
use std::sync::Arc;

use encint_arith::Op;

use super::Server;
use crate::{EncInt, Error, Result};

/// The methods of [`Server`] that run one [`Op`] on their operands:
/// `name(operands; other parameters) => op`.
macro_rules! op_methods {
    ($($(#[doc = $doc:literal])* $name:ident($($arg:ident),+ $(; $p:ident: $t:ty)?) => $op:expr;)*) => {
        impl Server {
            $(
                $(#[doc = $doc])*
                pub fn $name(&self, $($arg: &EncInt),+ $(, $p: $t)?) -> Result<EncInt> {
                    self.one($op, &[$($arg),+])
                }
            )*
        }
    };
}

op_methods! {
    /// `a + b`, exact: the sum has a digit more than the longer operand.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let (x, y) = (-13i128, 6i128);
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let b = encint::encrypt(&client, y, 5)?;
    /// let s = server.add(&a, &b)?;
    /// assert_eq!(encint::decrypt(&client, &s)?, x + y);
    /// # Ok::<(), encint::Error>(())
    /// ```
    add(a, b) => Op::Add;
    /// `a - b`, exact.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let (x, y) = (-13i128, 6i128);
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let b = encint::encrypt(&client, y, 5)?;
    /// let d = server.sub(&a, &b)?;
    /// assert_eq!(encint::decrypt(&client, &d)?, x - y);
    /// # Ok::<(), encint::Error>(())
    /// ```
    sub(a, b) => Op::Sub;
    /// `-a` (no bootstrap).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let x = -13i128;
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let n = server.neg(&a)?;
    /// assert_eq!(encint::decrypt(&client, &n)?, -x);
    /// # Ok::<(), encint::Error>(())
    /// ```
    neg(a) => Op::Neg;
    /// `a · b`, exact: the product is as long as both operands together.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let (x, y) = (-13i128, 6i128);
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let b = encint::encrypt(&client, y, 5)?;
    /// let p = server.mul(&a, &b)?;
    /// assert_eq!(encint::decrypt(&client, &p)?, x * y);
    /// # Ok::<(), encint::Error>(())
    /// ```
    mul(a, b) => Op::Mul;
    /// `a · b mod 2^n`, `n` the longer operand's length (TFHE-rs' wrapping product): a
    /// value of `n` signed binary digits congruent to the product.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let (x, y) = (-13i128, 6i128);
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let b = encint::encrypt(&client, y, 5)?;
    /// let p = encint::decrypt(&client, &server.mul_low(&a, &b)?)?;
    /// let n = a.len().max(b.len());
    /// assert_eq!((p - x * y).rem_euclid(1 << n), 0);
    /// assert!(p.abs() < 1 << n);
    /// # Ok::<(), encint::Error>(())
    /// ```
    mul_low(a, b) => Op::MulLow;
    /// `k · a` for a clear `k`, exact.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let x = -13i128;
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let p = server.mul_scalar(&a, -3)?;
    /// assert_eq!(encint::decrypt(&client, &p)?, -3 * x);
    /// # Ok::<(), encint::Error>(())
    /// ```
    mul_scalar(a; k: i64) => Op::ScalarMul(k.into());
    /// `a²`, exact (cheaper than `a · a`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let x = -13i128;
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let s = server.square(&a)?;
    /// assert_eq!(encint::decrypt(&client, &s)?, x * x);
    /// # Ok::<(), encint::Error>(())
    /// ```
    square(a) => Op::Square;
    /// `sgn(a)` as a one-digit integer (-1, 0 or 1).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let x = -13i128;
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let s = server.signum(&a)?;
    /// assert_eq!(encint::decrypt(&client, &s)?, x.signum());
    /// # Ok::<(), encint::Error>(())
    /// ```
    signum(a) => Op::Signum;
    /// `max(a, b)`.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let (x, y) = (-13i128, 6i128);
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let b = encint::encrypt(&client, y, 5)?;
    /// let m = server.max(&a, &b)?;
    /// assert_eq!(encint::decrypt(&client, &m)?, x.max(y));
    /// # Ok::<(), encint::Error>(())
    /// ```
    max(a, b) => Op::Max;
    /// `min(a, b)`.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let (x, y) = (-13i128, 6i128);
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let b = encint::encrypt(&client, y, 5)?;
    /// let m = server.min(&a, &b)?;
    /// assert_eq!(encint::decrypt(&client, &m)?, x.min(y));
    /// # Ok::<(), encint::Error>(())
    /// ```
    min(a, b) => Op::Min;
    /// `|a|`, exact.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let x = -13i128;
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let m = server.abs(&a)?;
    /// assert_eq!(encint::decrypt(&client, &m)?, x.abs());
    /// # Ok::<(), encint::Error>(())
    /// ```
    abs(a) => Op::Abs;
    /// Rounding at bit `i` (half up): `⌊a / 2^i + 1/2⌋ · 2^i`.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let x = -13i128;
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let r = server.round_at(&a, 2)?;
    /// assert_eq!(encint::decrypt(&client, &r)?, ((x + 2) >> 2) << 2); // >> floors
    /// # Ok::<(), encint::Error>(())
    /// ```
    round_at(a; i: usize) => Op::Round(i);
    /// `[a < b]`: 1 if `a < b`, else 0 (a one-digit integer).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let (x, y) = (-13i128, 6i128);
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let b = encint::encrypt(&client, y, 5)?;
    /// let c = server.lt(&a, &b)?;
    /// assert_eq!(encint::decrypt(&client, &c)?, i128::from(x < y));
    /// # Ok::<(), encint::Error>(())
    /// ```
    lt(a, b) => Op::LT;
    /// `[a <= b]`: 1 if `a <= b`, else 0 (a one-digit integer).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let (x, y) = (-13i128, 6i128);
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let b = encint::encrypt(&client, y, 5)?;
    /// let c = server.le(&a, &b)?;
    /// assert_eq!(encint::decrypt(&client, &c)?, i128::from(x <= y));
    /// # Ok::<(), encint::Error>(())
    /// ```
    le(a, b) => Op::LE;
    /// `[a > b]`: 1 if `a > b`, else 0 (a one-digit integer).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let (x, y) = (-13i128, 6i128);
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let b = encint::encrypt(&client, y, 5)?;
    /// let c = server.gt(&a, &b)?;
    /// assert_eq!(encint::decrypt(&client, &c)?, i128::from(x > y));
    /// # Ok::<(), encint::Error>(())
    /// ```
    gt(a, b) => Op::GT;
    /// `[a >= b]`: 1 if `a >= b`, else 0 (a one-digit integer).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let (x, y) = (-13i128, 6i128);
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let b = encint::encrypt(&client, y, 5)?;
    /// let c = server.ge(&a, &b)?;
    /// assert_eq!(encint::decrypt(&client, &c)?, i128::from(x >= y));
    /// # Ok::<(), encint::Error>(())
    /// ```
    ge(a, b) => Op::GE;
    /// `[a == b]`: 1 if `a == b`, else 0 (a one-digit integer).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let (x, y) = (-13i128, 6i128);
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let b = encint::encrypt(&client, y, 5)?;
    /// let c = server.eq(&a, &b)?;
    /// assert_eq!(encint::decrypt(&client, &c)?, i128::from(x == y));
    /// # Ok::<(), encint::Error>(())
    /// ```
    eq(a, b) => Op::EQ;
    /// `[a != b]`: 1 if `a != b`, else 0 (a one-digit integer).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let (x, y) = (-13i128, 6i128);
    /// let a = encint::encrypt(&client, x, 5)?;
    /// let b = encint::encrypt(&client, y, 5)?;
    /// let c = server.ne(&a, &b)?;
    /// assert_eq!(encint::decrypt(&client, &c)?, i128::from(x != y));
    /// # Ok::<(), encint::Error>(())
    /// ```
    ne(a, b) => Op::NE;
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Server>>> = const { RefCell::new(None) };
}

/// Sets the server used by operator syntax (`&a + &b`, `&a * 3`, …) on this thread.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
///
/// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
/// encint::set_server(Arc::new(Server::new(server_key)));
/// let a = encint::encrypt(&client, 25, 6)?;
/// let b = encint::encrypt(&client, -4, 4)?;
/// assert_eq!(encint::decrypt(&client, &(&(&a * &b) - &a))?, 25 * -4 - 25);
/// # Ok::<(), encint::Error>(())
/// ```
pub fn set_server(server: Arc<Server>) {
    CURRENT.with(|c| *c.borrow_mut() = Some(server));
}

/// Removes this thread's server: the operators then panic, and the `try_` methods of
/// the typed family return [`Error::NoServer`].
///
/// # Examples
///
/// ```
/// use encint::fhe::{set_server_key, FheUint8};
/// use encint::typed::Op;
/// use encint::{ClientKey, Error, DEFAULT_PARAMETERS};
///
/// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
/// set_server_key(server_key);
/// let a = FheUint8::encrypt(3u8, &client)?;
/// encint::unset_server();
/// assert!(matches!(a.try_binary(Op::Add, 1u8), Err(Error::NoServer)));
/// # Ok::<(), encint::Error>(())
/// ```
pub fn unset_server() {
    CURRENT.with(|c| *c.borrow_mut() = None);
}

pub(crate) fn with_server<T>(f: impl FnOnce(&Server) -> Result<T>) -> Result<T> {
    let s = CURRENT
        .with(|c| c.borrow().clone())
        .ok_or(Error::NoServer)?;
    f(&s)
}

macro_rules! binary_op {
    ($trait:ident, $method:ident, $call:ident) => {
        impl std::ops::$trait<&EncInt> for &EncInt {
            type Output = EncInt;
            /// Operator syntax: needs [`set_server`] on this thread; panics without
            /// it or on an executor error (use the [`Server`] methods to get a `Result`).
            fn $method(self, rhs: &EncInt) -> EncInt {
                with_server(|s| s.$call(self, rhs)).expect("encint operator")
            }
        }
    };
}
binary_op!(Add, add, add);
binary_op!(Sub, sub, sub);
binary_op!(Mul, mul, mul);

impl std::ops::Mul<i64> for &EncInt {
    type Output = EncInt;
    /// `a · k` by a clear scalar (see the binary operators for the server).
    fn mul(self, k: i64) -> EncInt {
        with_server(|s| s.mul_scalar(self, k)).expect("encint operator")
    }
}

impl std::ops::Neg for &EncInt {
    type Output = EncInt;
    /// `-a` (no bootstrap).
    fn neg(self) -> EncInt {
        with_server(|s| s.neg(self)).expect("encint operator")
    }
}
