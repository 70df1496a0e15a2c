//! `EncInt` and how its operators run: each builds one exact circuit on the operands (an
//! `EncInt` of the same key, or a Python int as constant digits).

use encint::arith::{Arith, SInt};
use encint::circuit::Builder;
use encint::limits::{self, Estimate};
use encint::{Op, MAX_DIGITS};
use num_bigint::{BigInt, Sign};
use pyo3::prelude::*;

use crate::args::{check_width, int_operand, shift_amount};
use crate::errors::{invalid, limit};
use crate::eval::run_one;
use crate::guard::detached;
use crate::methods::{Exact, Operands};
use crate::value::{const_sint, digits_of, value_of, Operand, Val};

/// An exact encrypted integer (signed binary digits, each a TFHE ciphertext of -1, 0 or 1).
///
/// Operators `+ - * // % & | ^ << >> ~ -x abs()` are exact: results are as long as they
/// need to be, never wrap. Comparisons `< <= > >= == !=` return an encrypted 0 or 1
/// (an `EncInt`); use `encint.select`, `encint.min`, `encint.max` instead of `if`.
/// Operands are `EncInt`s of the same key (or mode) or Python ints.
#[pyclass(module = "encint._encint", frozen)]
#[derive(Clone)]
pub struct EncInt {
    pub(crate) val: Val,
}

/// An operand: an encrypted (or clear-mode) integer, or a Python int.
pub(crate) type Arg = Operand<BigInt>;

impl EncInt {
    /// `obj` as an operand of an `EncInt` operator (`None`: not one).
    pub(crate) fn arg(obj: &Bound<'_, PyAny>) -> Option<Arg> {
        if let Ok(x) = obj.downcast::<EncInt>() {
            return Some(Operand::Val(x.get().val.clone()));
        }
        int_operand(obj).map(Operand::Const)
    }

    /// `value` in `width` signed binary digits, encrypted with `key` (clear mode: `None`).
    pub(crate) fn encrypt(
        py: Python<'_>,
        key: Option<&encint::ClientKey>,
        value: BigInt,
        width: usize,
    ) -> PyResult<EncInt> {
        check_width(width, MAX_DIGITS)?;
        let mut digits = digits_of(&value);
        if digits.len() > width {
            return Err(invalid(format!(
                "{value} does not fit in {width} signed binary digits"
            )));
        }
        digits.resize(width, 0);
        let val = detached(py, || Ok(Val::seal(key, digits)))?;
        Ok(EncInt { val })
    }

    /// The value, decrypted with `key` (clear mode: `None`).
    pub(crate) fn decrypt(
        &self,
        py: Python<'_>,
        key: Option<&encint::ClientKey>,
    ) -> PyResult<BigInt> {
        let digits = detached(py, || self.val.open(key, -1..=1))?;
        Ok(value_of(&digits))
    }

    /// Runs `f` on `self` and `other` (or on `self` and a constant) as one circuit; `swap`
    /// swaps the operands (reflected operators).
    fn binary(
        &self,
        py: Python<'_>,
        other: Arg,
        swap: bool,
        est: impl FnOnce(usize, usize) -> Estimate,
        f: impl FnOnce(&Arith, &mut Builder, &SInt, &SInt) -> SInt + Send,
    ) -> PyResult<PyObject> {
        let (n, m) = (self.val.len(), other.width());
        let est = if swap { est(m, n) } else { est(n, m) };
        let order = move |ar: &Arith, b: &mut Builder, x: &SInt, y: &SInt| {
            if swap {
                f(ar, b, y, x)
            } else {
                f(ar, b, x, y)
            }
        };
        let val = match other {
            Operand::Val(v) => run_one(py, &[&self.val, &v], est, |ar, b, x| {
                order(ar, b, &x[0], &x[1])
            })?,
            Operand::Const(k) => run_one(py, &[&self.val], est, move |ar, b, x| {
                let c = const_sint(b, &k);
                order(ar, b, &x[0], &c)
            })?,
        };
        Ok(Py::new(py, EncInt { val })?.into_any())
    }

    /// Runs `f` on `self` as one circuit.
    pub(crate) fn unary(
        &self,
        py: Python<'_>,
        est: Estimate,
        f: impl FnOnce(&Arith, &mut Builder, &SInt) -> SInt + Send,
    ) -> PyResult<EncInt> {
        let val = run_one(py, &[&self.val], est, |ar, b, x| f(ar, b, &x[0]))?;
        Ok(EncInt { val })
    }

    /// A library operation of one operand.
    pub(crate) fn unary_op(&self, py: Python<'_>, op: Op) -> PyResult<EncInt> {
        check_exact(op, 1)?;
        let est = limits::op(op, self.val.len(), 0);
        self.unary(py, est, move |ar, b, x| {
            ar.apply(b, op, std::slice::from_ref(x))
                .expect("an operation of exact integers, checked above")
        })
    }
}

/// A `TypeError` unless `op` is an operation of exact integers on `operands` operands.
fn check_exact(op: Op, operands: usize) -> PyResult<()> {
    op.check_exact(operands)
        .map_err(|e| pyo3::exceptions::PyTypeError::new_err(format!("{e} (on EncInt)")))
}

impl Operands for EncInt {
    type Operand = Arg;

    fn operand(&self, o: &Bound<'_, PyAny>) -> PyResult<Option<Arg>> {
        Ok(Self::arg(o))
    }

    fn is_zero(x: &Arg) -> bool {
        matches!(x, Operand::Const(k) if k.sign() == Sign::NoSign)
    }
}

impl Exact for EncInt {
    fn library(&self, py: Python<'_>, x: Arg, op: Op, swap: bool) -> PyResult<PyObject> {
        check_exact(op, 2)?;
        self.binary(
            py,
            x,
            swap,
            |n, m| limits::op(op, n, m),
            move |ar, b, x, y| {
                ar.apply(b, op, &[x.clone(), y.clone()])
                    .expect("an operation of exact integers, checked above")
            },
        )
    }

    fn scalar_mul(&self, py: Python<'_>, x: &Arg) -> PyResult<Option<PyObject>> {
        let Operand::Const(k) = x else {
            return Ok(None);
        };
        let Ok(k) = i64::try_from(k) else {
            return Ok(None);
        };
        let est = limits::op(Op::ScalarMul(k.into()), self.val.len(), 0);
        let r = self.unary(py, est, move |ar, b, x| ar.scalar_mul(b, x, k))?;
        Ok(Some(Py::new(py, r)?.into_any()))
    }

    /// Through two's complement of a width that holds both operands and the exact result
    /// (`n + 2` bits for `n` digits).
    fn exact_bitwise(&self, py: Python<'_>, x: Arg, op: Op, swap: bool) -> PyResult<PyObject> {
        self.binary(
            py,
            x,
            swap,
            |n, m| limits::op(op, n, m),
            move |ar, b, x, y| {
                ar.bitwise(b, op, x, y)
                    .expect("the operators call this for `& | ^ // %` only")
            },
        )
    }

    fn exact_shift(
        &self,
        py: Python<'_>,
        amount: &Bound<'_, PyAny>,
        left: bool,
    ) -> PyResult<PyObject> {
        let Some(k) = shift_amount(amount, "shift amount must be a non-negative int below 2^64")?
        else {
            return Ok(py.NotImplemented());
        };
        let n = self.val.len();
        // Checked: `n + k` wraps for `k` near 2^64, and the shift's loop runs `k / 62`
        // times.
        if left && n.checked_add(k).is_none_or(|total| total > MAX_DIGITS) {
            return Err(limit(format!(
                "{n} digits shifted by {k} exceed the {MAX_DIGITS} allowed"
            )));
        }
        // A right shift past the width is the sign: any amount above 2^32 acts as 2^32 - 1.
        let k32 = u32::try_from(k).unwrap_or(u32::MAX);
        let op = if left { Op::Shl(k32) } else { Op::Shr(k32) };
        let r = self.unary(py, limits::op(op, n, 0), move |ar, b, x| {
            ar.shift(b, x, k, left)
        })?;
        Ok(Py::new(py, r)?.into_any())
    }
}
