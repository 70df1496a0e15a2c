//! `FheValue`: one encrypted value of the family (the facade's `encint::fhe::FheValue`),
//! the base class of `encint.FheUint8`, ..., `encint.FheBool` and of the classes that
//! `encint.FheUint(n)` / `encint.FheInt(n)` make. Each operation is one facade call, so
//! one circuit; results are instances of their type's class.

use encint::fhe::FheType;
use encint::typed::Op;
use num_bigint::BigInt;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple, PyType};

use super::numpy::{apply, elementwise, Each};
use super::operand::{
    argument, check_division, clear_array, clear_int, clear_of, decrypt_int, rhs, table_arg, Clear,
    Rhs,
};
use super::{run, type_arg, type_name, wrap};
use crate::errors::invalid;
use crate::key_sets::params_of;

/// An encrypted value of the typed family (TFHE-rs' `FheUint8`, `FheInt16`, `FheBool`,
/// ...): the base class of `encint.FheUint8` ... `encint.FheInt128`, `encint.FheBool`
/// and of the classes of `encint.FheUint(n)` / `encint.FheInt(n)`. See the package
/// docstring for the operators and their semantics.
#[pyclass(module = "encint._encint", subclass, frozen)]
pub struct FheValue {
    pub(crate) inner: encint::fhe::FheValue,
}

/// The type a class of the family stands for (its `_type` attribute).
fn class_type(cls: &Bound<'_, PyType>) -> PyResult<encint::typed::IntType> {
    match cls.getattr("_type") {
        Ok(t) => type_arg(&t),
        Err(_) => Err(invalid(
            "FheValue has no type: use encint.FheUint8, encint.FheInt(12), ... or ck.encrypt(v, \"u8\")",
        )),
    }
}

/// A result and its flag (an `FheBool`) as instances of their classes.
fn flagged(
    py: Python<'_>,
    (v, flag): (encint::fhe::FheValue, encint::fhe::FheValue),
) -> PyResult<(PyObject, PyObject)> {
    Ok((wrap(py, v)?, wrap(py, flag)?))
}

/// Encrypts `value` as a value of `ty` with `key` (for `ClientKey.encrypt`).
pub(crate) fn encrypt_value(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    ty: encint::typed::IntType,
    form: encint::typed::Form,
    key: &encint::ClientKey,
) -> PyResult<PyObject> {
    let k = clear_int(value).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "encrypt takes an int, not {}",
            value
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let value = argument(&k, ty)?;
    let v = run(py, || {
        encint::fhe::FheValue::encrypt_as(value, ty, form, key)
    })?;
    wrap(py, v)
}

/// The Python object of the value `v` of `ty`: an int, a bool for the boolean type.
pub(crate) fn py_value(
    py: Python<'_>,
    v: num_bigint::BigInt,
    ty: encint::typed::IntType,
) -> PyResult<PyObject> {
    if ty == encint::typed::IntType::BOOL {
        let b = v != num_bigint::BigInt::from(0);
        return Ok(pyo3::types::PyBool::new(py, b)
            .to_owned()
            .into_any()
            .unbind());
    }
    Ok(v.into_pyobject(py)?.into_any().unbind())
}

impl FheValue {
    /// Decrypts with `key`: an int (a bool for the boolean type).
    pub(crate) fn decrypt_with(
        &self,
        py: Python<'_>,
        key: &encint::ClientKey,
    ) -> PyResult<PyObject> {
        let x = &self.inner;
        let v = run(py, || decrypt_int(x, key))?;
        py_value(py, v, self.ty())
    }

    fn ty(&self) -> encint::typed::IntType {
        self.inner.ty()
    }

    /// `self op other` (`other op self` with `swap`); `NotImplemented` for an operand that
    /// is neither a value of the family nor an int.
    fn binary(
        &self,
        py: Python<'_>,
        op: Op,
        other: &Bound<'_, PyAny>,
        swap: bool,
    ) -> PyResult<PyObject> {
        let how = Clear::of(op, swap);
        let out_ty = op.result_type(self.ty());
        let check = |n: usize| self.check_array(out_ty, n);
        if let Some(c) = clear_array(other, self.ty(), how, None, check)? {
            // A NumPy array: an array of its shape, this value with each element.
            let x = &self.inner;
            let out = run(py, || {
                let items = elementwise(
                    vec![x.clone()],
                    c.values.len(),
                    op,
                    Each::Clears(c.values),
                    swap,
                )?;
                encint::fhe::FheArray::new(items, c.shape)
            })?;
            let array = super::FheArray {
                inner: out,
                ty: out_ty,
            };
            return Ok(Py::new(py, array)?.into_any());
        }
        let Some(r) = rhs(other, self.ty(), how)? else {
            return Ok(py.NotImplemented());
        };
        check_division(op, swap, matches!(r, Rhs::Clear(0)))?;
        let x = &self.inner;
        let v = run(py, || apply(x, op, r, swap))?;
        wrap(py, v)
    }

    /// Refuses (`LimitError`) an array of `n` results of `ty` whose ciphertexts would pass
    /// the facade's `MAX_CIPHERTEXT_BYTES` (counted in canonical digits, the most any
    /// result form has), before anything is read or run.
    fn check_array(&self, ty: encint::typed::IntType, n: usize) -> PyResult<()> {
        let params = self
            .inner
            .as_typed()
            .map_or(encint::DEFAULT_PARAMETERS, |t| params_of(t.key_set()));
        let form = encint::typed::Form::Canonical;
        encint::limits::check_ciphertexts("a value with a NumPy array", n as u64, ty, form, &params)
            .map_err(crate::errors::to_py)
    }

    fn unary(&self, py: Python<'_>, op: Op) -> PyResult<PyObject> {
        let x = &self.inner;
        let v = run(py, || x.unary(op))?;
        wrap(py, v)
    }
}

super::family_methods! { FheValue, "an encrypted value has no clear truth value: decrypt it, or use select/encint.where",
    "an int (a bool for `FheBool`)" {
    /// A copy of `value` (how the classes of the family wrap results).
    #[new]
    fn new(value: PyRef<'_, FheValue>) -> FheValue {
        FheValue {
            inner: value.inner.clone(),
        }
    }

    /// Encrypts the int `value` as a value of this class's type with the client key `ck`.
    /// Raises `InvalidInputError` if `value` is not a value of the type.
    /// (`ck.encrypt(value, cls)`, which owns the key.)
    #[classmethod]
    fn encrypt(
        cls: &Bound<'_, PyType>,
        value: &Bound<'_, PyAny>,
        ck: &Bound<'_, PyAny>,
    ) -> PyResult<PyObject> {
        class_type(cls)?;
        Ok(ck.call_method1("encrypt", (value, cls))?.unbind())
    }

    /// The type's name: `"u8"`, `"i16"`, `"bool"`, ...
    #[getter]
    fn r#type(&self) -> String {
        type_name(self.ty())
    }

    /// The width in bits.
    #[getter]
    fn bits(&self) -> usize {
        self.ty().bits
    }

    /// Whether the type is signed.
    #[getter]
    fn signed(&self) -> bool {
        self.ty().signed
    }

    /// The name of the NumPy dtype a decrypted array of this type has (`"uint8"`,
    /// `"int16"`, `"bool"`, the smallest NumPy integer type that holds other widths,
    /// `"object"` above 64 bits).
    #[getter]
    fn dtype(&self) -> &'static str {
        super::dtype(self.ty())
    }

    /// The exact integer (`encint.EncInt`) of the value: free for canonical digits
    /// (`form="canonical"`), one conversion circuit for radix-4 blocks (the default form)
    /// or an operation's result.
    /// `Class.from_int(e)` goes back.
    fn to_int(&self, py: Python<'_>) -> PyResult<crate::int::EncInt> {
        let x = &self.inner;
        let v = run(py, || x.to_int())?;
        Ok(crate::int::EncInt {
            val: crate::value::Val::Enc(v),
        })
    }

    /// The ciphertext in the facade's envelope (kind Ciphertext, a typed payload).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let x = &self.inner;
        let key_set = x
            .as_typed()
            .map(|t| t.key_set())
            .ok_or_else(|| invalid("a value of a traced function has no ciphertext"))?;
        let params = params_of(key_set);
        let bytes = run(py, || x.to_bytes(&params))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The value of this class's type congruent to the exact integer `e` (an
    /// `encint.EncInt`) modulo `2**N`, as a cast to the type converts: its low `N` digits,
    /// free, no bootstrap (`encint.FheUint8.from_int(e)`, `encint.FheInt(12).from_int(e)`).
    /// `to_int()` goes back.
    #[classmethod]
    fn from_int(cls: &Bound<'_, PyType>, e: PyRef<'_, crate::int::EncInt>) -> PyResult<PyObject> {
        let ty = class_type(cls)?;
        let crate::value::Val::Enc(x) = &e.val else {
            return Err(invalid(
                "a clear-mode EncInt has no typed value (the family's circuits run on plain \
                 values through encint.compile(...).run_clear)",
            ));
        };
        let v = encint::fhe::FheValue::from_int(x, ty).map_err(crate::errors::to_py)?;
        wrap(cls.py(), v)
    }

    /// A value of this class's type drawn at random by the server (on the key set of
    /// `encint.set_server_key`), which does not learn it: its low `bits` bits uniform (all
    /// of them by default: uniform over the type), the bits above 0. The same `seed` (an
    /// int in `0..2**128`) gives the same value: use a new seed for each draw. TFHE-rs'
    /// `generate_oblivious_pseudo_random` (and `_bounded`).
    #[classmethod]
    #[pyo3(signature = (seed, bits=None))]
    fn generate_oblivious_pseudo_random(
        cls: &Bound<'_, PyType>,
        seed: u128,
        bits: Option<usize>,
    ) -> PyResult<PyObject> {
        let ty = class_type(cls)?;
        let bits = bits.unwrap_or(ty.bits);
        let py = cls.py();
        let v = run(py, || {
            encint::fhe::FheValue::generate_oblivious_pseudo_random(ty, seed, bits)
        })?;
        wrap(py, v)
    }

    /// Reads a value written by `to_bytes` (or by the command-line tool or the Rust
    /// facade); on a class of a type, refuses a value of another type.
    #[classmethod]
    fn from_bytes(cls: &Bound<'_, PyType>, data: Vec<u8>) -> PyResult<PyObject> {
        let py = cls.py();
        let v = run(py, || <encint::fhe::FheValue as FheType>::from_bytes(&data))?;
        if let Ok(want) = class_type(cls) {
            if v.ty() != want {
                return Err(invalid(format!(
                    "the file holds a value of type {}, not {}",
                    type_name(v.ty()),
                    type_name(want)
                )));
            }
        }
        wrap(py, v)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        // The base class' reader (importable for every width) returns the value's class.
        let f = py.get_type::<FheValue>().getattr("from_bytes")?;
        let bytes = slf.get().to_bytes(py)?;
        PyTuple::new(py, [f.into_any(), PyTuple::new(py, [bytes])?.into_any()])
    }


    fn __abs__(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.abs(py)
    }

    /// `|self|` modulo `2**bits` (`abs(MIN) == MIN`).
    fn abs(&self, py: Python<'_>) -> PyResult<PyObject> {
        let x = &self.inner;
        let v = run(py, || x.abs())?;
        wrap(py, v)
    }

    /// `(self + other wrapped, overflowed)` for `other` of the same type, as Rust's
    /// `overflowing_add`: the flag is an `FheBool`, true when the exact sum is outside the
    /// type.
    fn overflowing_add(
        &self,
        py: Python<'_>,
        other: PyRef<'_, FheValue>,
    ) -> PyResult<(PyObject, PyObject)> {
        let y = &other.inner;
        flagged(py, run(py, || self.inner.overflowing_add(y))?)
    }

    /// `(self - other wrapped, overflowed)` for `other` of the same type (Rust's
    /// `overflowing_sub`).
    fn overflowing_sub(
        &self,
        py: Python<'_>,
        other: PyRef<'_, FheValue>,
    ) -> PyResult<(PyObject, PyObject)> {
        let y = &other.inner;
        flagged(py, run(py, || self.inner.overflowing_sub(y))?)
    }

    /// `(self * other wrapped, overflowed)` for `other` of the same type (Rust's
    /// `overflowing_mul`: the flag true when the exact product is outside the type).
    fn overflowing_mul(
        &self,
        py: Python<'_>,
        other: PyRef<'_, FheValue>,
    ) -> PyResult<(PyObject, PyObject)> {
        let y = &other.inner;
        flagged(py, run(py, || self.inner.overflowing_mul(y))?)
    }

    /// `divmod(self, other)`: `(self // other, self % other)` with NumPy's rules (the
    /// quotient floors, the remainder takes the divisor's sign, an encrypted zero divisor
    /// gives `(0, 0)`), both from one circuit; `other` a value of the type or an int.
    fn __divmod__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let Some(d) = rhs(other, self.ty(), Clear::of(Op::FloorDiv, false))? else {
            return Ok(py.NotImplemented());
        };
        check_division(Op::FloorDiv, false, matches!(d, Rhs::Clear(0)))?;
        let (args, clear) = match d {
            Rhs::Value(y) => (vec![self.inner.clone(), y], None),
            Rhs::Clear(k) => (vec![self.inner.clone()], Some(k)),
        };
        let out = run(py, move || {
            super::numpy::fused(args, move |v| {
                let d = clear.map_or_else(|| Rhs::Value(v[1].clone()), Rhs::Clear);
                Ok(vec![
                    apply(&v[0], Op::FloorDiv, d.clone(), false)?,
                    apply(&v[0], Op::Mod, d, false)?,
                ])
            })
        })?;
        let [q, r]: [encint::fhe::FheValue; 2] = out
            .try_into()
            .map_err(|_| invalid("divmod built no pair"))?;
        Ok(PyTuple::new(py, [wrap(py, q)?, wrap(py, r)?])?.into_any().unbind())
    }

    /// `(-self wrapped, overflowed)` (Rust's `overflowing_neg`: unsigned, `self != 0`;
    /// signed, `self == MIN`).
    fn overflowing_neg(&self, py: Python<'_>) -> PyResult<(PyObject, PyObject)> {
        flagged(py, run(py, || self.inner.overflowing_neg())?)
    }

    /// `(ilog2(self), self > 0)`, TFHE-rs' `checked_ilog2`: an `FheUint32` and an
    /// `FheBool`, false where the logarithm has no meaning (zero and negative values).
    fn checked_ilog2(&self, py: Python<'_>) -> PyResult<(PyObject, PyObject)> {
        flagged(py, run(py, || self.inner.checked_ilog2())?)
    }

    /// `(table[self], found)` for a clear `table` (a dict, or `(input, output)` pairs,
    /// inputs distinct values of this type): the output as a value of `out` (default:
    /// this type), 0 when `self` is none of the inputs, and an `FheBool` saying whether it
    /// was one (TFHE-rs' `match_value`). One circuit of a few tables per entry; the table
    /// is clear to the server, which entry matched is not.
    #[pyo3(signature = (table, out = None))]
    fn match_value(
        &self,
        py: Python<'_>,
        table: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(PyObject, PyObject)> {
        let (pairs, out) = table_arg(self.ty(), table, out)?;
        let x = &self.inner;
        flagged(py, run(py, || x.match_value(&pairs, 0, out))?)
    }

    /// `table[self]` for a clear `table` as in `match_value`, `default` when `self` is none
    /// of its inputs (TFHE-rs' `match_value_or`; the same circuit).
    #[pyo3(signature = (table, default, out = None))]
    fn match_value_or(
        &self,
        py: Python<'_>,
        table: &Bound<'_, PyAny>,
        default: BigInt,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyObject> {
        let (pairs, out) = table_arg(self.ty(), table, out)?;
        let default = clear_of(&default, out, Clear::Value)?;
        let x = &self.inner;
        let (y, _) = run(py, || x.match_value(&pairs, default, out))?;
        wrap(py, y)
    }

    /// The number of one bits of `abs(self)`, an `FheUint32`, as NumPy's
    /// `bitwise_count` (`count_ones` of the pattern for an unsigned type; `abs(MIN)` is
    /// `MIN`, one bit), one circuit.
    fn bitwise_count(&self, py: Python<'_>) -> PyResult<PyObject> {
        let x = self.inner.clone();
        let v = run(py, move || {
            super::numpy::fused1(vec![x], |a| {
                let m = if a[0].ty().signed { a[0].abs()? } else { a[0].clone() };
                m.unary(Op::CountOnes)
            })
        })?;
        wrap(py, v)
    }

    /// Whether the value is even, an `FheBool`.
    fn is_even(&self, py: Python<'_>) -> PyResult<PyObject> {
        let x = &self.inner;
        let v = run(py, || x.is_even())?;
        wrap(py, v)
    }

    /// Whether the value is odd, an `FheBool`.
    fn is_odd(&self, py: Python<'_>) -> PyResult<PyObject> {
        let x = &self.inner;
        let v = run(py, || x.is_odd())?;
        wrap(py, v)
    }

    /// The smaller of `self` and `other` (a value of the type or an int).
    fn min(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binary(py, Op::Min, other, false)
    }

    /// The larger of `self` and `other`.
    fn max(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binary(py, Op::Max, other, false)
    }

    /// Rotation left by `k` modulo the width (`k` an int >= 0 or an unsigned value of the
    /// same width).
    fn rotate_left(&self, py: Python<'_>, k: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.checked(py, Op::RotlVar, k)
    }

    /// Rotation right by `k` modulo the width.
    fn rotate_right(&self, py: Python<'_>, k: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.checked(py, Op::RotrVar, k)
    }

    /// The value as another type (`"u16"`, `encint.FheInt8`, ...): truncation, or zero or
    /// sign extension by this type's signedness (Rust's `as`); to `bool`: `self != 0`.
    fn cast(&self, py: Python<'_>, ty: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let to = type_arg(ty)?;
        self.unary(py, Op::Cast(to))
    }

    /// `a if self else b` for an `FheBool` `self`; `a` and `b` are values of one type or
    /// ints (at least one of them encrypted).
    fn select(
        &self,
        py: Python<'_>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
    ) -> PyResult<PyObject> {
        let ty = [a, b]
            .iter()
            .find_map(|o| o.downcast::<FheValue>().ok().map(|v| v.get().ty()))
            .ok_or_else(|| invalid("select needs at least one encrypted branch"))?;
        let operand = |o: &Bound<'_, PyAny>| -> PyResult<Rhs> {
            rhs(o, ty, Clear::Value)?
                .ok_or_else(|| PyTypeError::new_err("select takes values of the family or ints"))
        };
        let (a, b) = (operand(a)?, operand(b)?);
        let c = &self.inner;
        let v = run(py, || c.select(a, b))?;
        wrap(py, v)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let name = slf.get_type().name()?;
        let kind = if super::numpy::is_traced(&slf.get().inner) {
            "traced"
        } else {
            "encrypted"
        };
        Ok(format!("<{name} {kind}>"))
    }
} }

impl FheValue {
    /// A shift or rotation whose operand must be an amount (else a `TypeError`).
    fn checked(&self, py: Python<'_>, op: Op, k: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let r = self.binary(py, op, k, false)?;
        if r.is(&py.NotImplemented()) {
            return Err(PyTypeError::new_err(
                "the amount is an int or an unsigned value of the same width",
            ));
        }
        Ok(r)
    }
}
