//! `FheArray`: an n-dimensional array of values of one type of the family (the facade's
//! `FheArray<FheValue>`), encrypted from and decrypted into NumPy arrays. Every call is
//! one circuit: the facade's array methods (elementwise operations with arrays of the same
//! shape or one value, comparisons, `where`, sum, dot, matmul, min, max), or [`fused`]
//! over every element for NumPy's `//` and `%`.

use encint::fhe::{ArrayOperand, FheBool, FheType, IntoArrayOperand, Operand, Repr};
use encint::typed::{IntType, Op};
use num_bigint::BigInt;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use super::numpy::{elementwise, fused, Each};
use super::operand::{
    argument, check_division, clear_array, clear_int, clear_of, decrypt_int, Clear,
};
use super::value::FheValue;
use super::{dtype, run, type_arg, type_name, wrap};
use crate::errors::{invalid, to_py};

type Inner = encint::fhe::FheArray<encint::fhe::FheValue>;

/// An array of encrypted values of one type of the family, row-major, of any shape
/// (`ck.encrypt(np.array(...), "u8")`). Operators work elementwise with an array of the
/// same shape, a value of the family or an int (broadcast to every element); each call is
/// one circuit. `decrypt(ck)` returns a NumPy array.
#[pyclass(module = "encint._encint", frozen)]
pub struct FheArray {
    pub(crate) inner: Inner,
    pub(crate) ty: IntType,
}

/// The right operand of an elementwise operation.
enum ArrRhs {
    Array(Inner),
    Value(Repr),
    Clear(i128),
}

impl IntoArrayOperand<encint::fhe::FheValue> for &ArrRhs {
    fn array_operand(&self) -> ArrayOperand<'_, encint::fhe::FheValue> {
        match self {
            ArrRhs::Array(a) => ArrayOperand::Array(a),
            ArrRhs::Value(r) => ArrayOperand::Scalar(Operand::Value(r)),
            ArrRhs::Clear(k) => ArrayOperand::Scalar(Operand::Clear(*k)),
        }
    }
}

/// The NumPy array of `shape` and of the dtype of `ty` holding `values` (row-major).
pub(crate) fn numpy_array<'py>(
    py: Python<'py>,
    values: Vec<BigInt>,
    ty: IntType,
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    let np = py.import("numpy")?;
    let arr = np.call_method1("array", (values, dtype(ty)))?;
    arr.call_method1("reshape", (PyTuple::new(py, shape)?,))
}

/// Encrypts `values` (a NumPy array, or anything `numpy.asarray` takes) as an array of
/// `ty` with `key` (for `ClientKey.encrypt`). An array whose ciphertexts would pass the
/// facade's `encint::limits::MAX_CIPHERTEXT_BYTES` is refused (`LimitError`) from its
/// shape, before its elements are read or anything is encrypted.
pub(crate) fn encrypt_array(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    ty: IntType,
    form: encint::typed::Form,
    key: &encint::ClientKey,
) -> PyResult<FheArray> {
    let np = py.import("numpy")?;
    let arr = np.call_method1("asarray", (values,))?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    let count = encint::limits::element_count(&shape).map_err(to_py)?;
    encint::limits::check_ciphertexts("ck.encrypt", count as u64, ty, form, key.params())
        .map_err(to_py)?;
    let flat = arr.call_method0("ravel")?.call_method0("tolist")?;
    let flat = flat.downcast::<PyList>()?;
    let mut values = Vec::with_capacity(flat.len());
    for v in flat.iter() {
        let k = clear_int(&v)
            .ok_or_else(|| PyTypeError::new_err("an array of integers or booleans"))?;
        values.push(argument(&k, ty)?);
    }
    let inner = run(py, || {
        let items = values
            .iter()
            .map(|&v| encint::fhe::FheValue::encrypt_as(v, ty, form, key))
            .collect::<encint::Result<Vec<_>>>()?;
        encint::fhe::FheArray::new(items, shape)
    })?;
    Ok(FheArray { inner, ty })
}

impl FheArray {
    /// Decrypts with `key` into a NumPy array.
    pub(crate) fn decrypt_with<'py>(
        &self,
        py: Python<'py>,
        key: &encint::ClientKey,
    ) -> PyResult<Bound<'py, PyAny>> {
        let x = &self.inner;
        let vals = run(py, || {
            x.items()
                .iter()
                .map(|v| decrypt_int(v, key))
                .collect::<encint::Result<Vec<BigInt>>>()
        })?;
        numpy_array(py, vals, self.ty, x.shape())
    }

    fn new(inner: Inner, fallback: IntType) -> FheArray {
        let ty = inner.items().first().map_or(fallback, |v| v.ty());
        FheArray { inner, ty }
    }

    /// Reads an operand: an array, a value of the family, or an int of the type (`None`:
    /// `NotImplemented`).
    fn operand(&self, o: &Bound<'_, PyAny>, how: Clear) -> PyResult<Option<ArrRhs>> {
        if let Ok(a) = o.downcast::<FheArray>() {
            return Ok(Some(ArrRhs::Array(a.get().inner.clone())));
        }
        if let Ok(v) = o.downcast::<FheValue>() {
            return Ok(Some(ArrRhs::Value(v.get().inner.repr().clone())));
        }
        match clear_int(o) {
            Some(k) => Ok(Some(ArrRhs::Clear(clear_of(&k, self.ty, how)?))),
            None => Ok(None),
        }
    }

    /// `self op other` elementwise (`other op self` with `swap`), one circuit.
    fn binary(
        &self,
        py: Python<'_>,
        op: Op,
        other: &Bound<'_, PyAny>,
        swap: bool,
    ) -> PyResult<PyObject> {
        let how = Clear::of(op, swap);
        if let Some(c) = clear_array(other, self.ty, how, Some(self.inner.shape()), |_| Ok(()))? {
            // A NumPy array of the same shape (or one that broadcasts to it), element by
            // element in one circuit.
            let x = &self.inner;
            let out_ty = op.result_type(self.ty);
            let out = run(py, || {
                let n = x.len();
                let items = elementwise(x.items().to_vec(), n, op, Each::Clears(c.values), swap)?;
                encint::fhe::FheArray::new(items, x.shape().to_vec())
            })?;
            return Ok(Py::new(py, FheArray::new(out, out_ty))?.into_any());
        }
        let Some(r) = self.operand(other, how)? else {
            return Ok(py.NotImplemented());
        };
        check_division(op, swap, matches!(r, ArrRhs::Clear(0)))?;
        let x = &self.inner;
        let out_ty = op.result_type(self.ty);
        // NumPy's `//` and `%`, and reflected operations of a clear or single left operand,
        // go element by element; the rest is the library's elementwise operation.
        let numpy = matches!(op, Op::FloorDiv | Op::Mod);
        let facade =
            (!numpy && (!swap || op.commutes() || matches!(r, ArrRhs::Array(_)))).then_some(op);
        let out = run(py, || match (facade, &r, swap) {
            (Some(o), ArrRhs::Array(y), true) => y.elementwise::<encint::fhe::FheValue>(o, x),
            (Some(o), r, _) => x.elementwise::<encint::fhe::FheValue>(o, r),
            (None, r, swap) => per_element(x, op, r, swap),
        })?;
        Ok(Py::new(py, FheArray::new(out, out_ty))?.into_any())
    }

    fn reduce(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Inner) -> encint::Result<encint::fhe::FheValue> + Send,
    ) -> PyResult<PyObject> {
        let x = &self.inner;
        let v = run(py, || f(x))?;
        wrap(py, v)
    }
}

/// `x op r` (`r op x` with `swap`) element by element as one circuit (NumPy's `//` and
/// `%`, and reflected operations of a clear or single left operand).
fn per_element(x: &Inner, op: Op, r: &ArrRhs, swap: bool) -> encint::Result<Inner> {
    let other = match r {
        ArrRhs::Array(y) => {
            if y.shape() != x.shape() {
                return Err(encint::Error::InvalidInput(format!(
                    "arrays of shapes {:?} and {:?}",
                    x.shape(),
                    y.shape()
                )));
            }
            Each::Values(y.items().to_vec())
        }
        ArrRhs::Value(v) => Each::Value(encint::fhe::FheValue::from_repr(v.clone())?),
        ArrRhs::Clear(k) => Each::Clear(*k),
    };
    let out = elementwise(x.items().to_vec(), x.len(), op, other, swap)?;
    encint::fhe::FheArray::new(out, x.shape().to_vec())
}

super::family_methods! { FheArray, "an encrypted array has no clear truth value: decrypt it, or use encint.where",
    "a NumPy array of this shape (dtype `uint8` for `u8`, `int16` for `i16`, `bool` for \
     `bool`, the smallest NumPy integer type that holds the values for other widths, \
     `object` above 64 bits)" {
    /// Encrypts `values` (a NumPy array or nested lists) as an array of type `ty`
    /// (`"u8"`, `encint.FheInt16`, ...) with the client key `ck`.
    /// (`ck.encrypt(values, ty)`, which owns the key.)
    #[staticmethod]
    fn encrypt(
        values: &Bound<'_, PyAny>,
        ty: &Bound<'_, PyAny>,
        ck: &Bound<'_, PyAny>,
    ) -> PyResult<PyObject> {
        type_arg(ty)?;
        Ok(ck.call_method1("encrypt", (values, ty))?.unbind())
    }

    /// An array of values of the family (all of one type), of shape `shape` (default: a
    /// vector).
    #[staticmethod]
    #[pyo3(signature = (values, shape = None))]
    fn from_values(
        values: Vec<PyRef<'_, FheValue>>,
        shape: Option<Vec<usize>>,
    ) -> PyResult<FheArray> {
        let items: Vec<_> = values.iter().map(|v| v.inner.clone()).collect();
        let ty = items
            .first()
            .map(|v| v.ty())
            .ok_or_else(|| invalid("an array needs at least one value"))?;
        if let Some(v) = items.iter().find(|v| v.ty() != ty) {
            return Err(invalid(format!(
                "values of types {} and {} in one array",
                type_name(ty),
                type_name(v.ty())
            )));
        }
        let shape = shape.unwrap_or_else(|| vec![items.len()]);
        let inner = encint::fhe::FheArray::new(items, shape).map_err(crate::errors::to_py)?;
        Ok(FheArray { inner, ty })
    }

    /// The shape.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.shape())
    }

    /// The number of dimensions.
    #[getter]
    fn ndim(&self) -> usize {
        self.inner.shape().len()
    }

    /// The number of elements.
    #[getter]
    fn size(&self) -> usize {
        self.inner.len()
    }

    /// The elements' type name (`"u8"`, `"bool"`, ...).
    #[getter]
    fn r#type(&self) -> String {
        type_name(self.ty)
    }

    /// The name of the NumPy dtype of the decrypted array (see `decrypt`).
    #[getter]
    fn dtype(&self) -> &'static str {
        dtype(self.ty)
    }

    fn __len__(&self) -> PyResult<usize> {
        self.inner
            .shape()
            .first()
            .copied()
            .ok_or_else(|| PyTypeError::new_err("len() of a 0-d array"))
    }

    /// The element at a full index (`a[i]` for a vector, `a[i, j]` for a matrix).
    fn __getitem__(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let idx: Vec<i64> = match index.extract::<i64>() {
            Ok(i) => vec![i],
            Err(_) => index.extract()?,
        };
        let shape = self.inner.shape();
        if idx.len() != shape.len() {
            return Err(invalid(format!(
                "an index of {} numbers for an array of {} dimensions (only elements are indexed)",
                idx.len(),
                shape.len()
            )));
        }
        let mut flat = 0usize;
        for (&i, &d) in idx.iter().zip(shape) {
            let j = if i < 0 { i + d as i64 } else { i };
            if j < 0 || j >= d as i64 {
                return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                    "index {i} out of range for a dimension of {d}"
                )));
            }
            flat = flat * d + j as usize;
        }
        wrap(py, self.inner.items()[flat].clone())
    }


    /// Every element as another type (see `FheValue.cast`), one circuit.
    fn cast(&self, py: Python<'_>, ty: &Bound<'_, PyAny>) -> PyResult<FheArray> {
        let to = type_arg(ty)?;
        let x = &self.inner;
        let out = run(py, || {
            let n = x.len();
            let items = fused(x.items().to_vec(), move |v| {
                (0..n).map(|i| v[i].unary(Op::Cast(to))).collect()
            })?;
            encint::fhe::FheArray::new(items, x.shape().to_vec())
        })?;
        Ok(FheArray::new(out, to))
    }

    /// Elementwise minimum with an array, a value or an int.
    fn minimum(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binary(py, Op::Min, other, false)
    }

    /// Elementwise maximum with an array, a value or an int.
    fn maximum(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binary(py, Op::Max, other, false)
    }

    /// The sum of every element (wrapping), one circuit.
    fn sum(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.reduce(py, |x| x.sum())
    }

    /// The smallest element, one circuit.
    fn min(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.reduce(py, |x| x.min())
    }

    /// The largest element, one circuit.
    fn max(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.reduce(py, |x| x.max())
    }

    /// `sum(self[i] * other[i])` of two vectors of one length (wrapping), one circuit.
    fn dot(&self, py: Python<'_>, other: PyRef<'_, FheArray>) -> PyResult<PyObject> {
        let y = &other.inner;
        self.reduce(py, |x| x.dot(y))
    }

    /// The matrix product of an `(n, k)` and a `(k, m)` array (wrapping), one circuit.
    /// A clear NumPy matrix on either side raises `TypeError` (encrypt it first): the
    /// product is not elementwise.
    fn __matmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let Ok(other) = other.downcast::<FheArray>() else {
            return not_a_matrix(other).map(|()| py.NotImplemented());
        };
        let (x, y) = (&self.inner, &other.get().inner);
        let out = run(py, || x.matmul(y))?;
        Ok(Py::new(py, FheArray::new(out, self.ty))?.into_any())
    }

    fn __rmatmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        not_a_matrix(other).map(|()| py.NotImplemented())
    }

    fn __repr__(&self) -> String {
        format!(
            "<FheArray {} shape={:?}>",
            type_name(self.ty),
            self.inner.shape()
        )
    }
} }

/// `TypeError` for a NumPy array as an operand of `@` (else nothing: `NotImplemented`).
fn not_a_matrix(o: &Bound<'_, PyAny>) -> PyResult<()> {
    let numpy = o
        .get_type()
        .module()
        .is_ok_and(|m| m.extract::<String>().is_ok_and(|m| m.starts_with("numpy")));
    if numpy {
        return Err(PyTypeError::new_err(
            "a matrix product of an FheArray and a clear NumPy array: encrypt the array \
             (ck.encrypt(a, type)) or use the elementwise operators",
        ));
    }
    Ok(())
}

impl FheArray {
    /// `op` on every element, one circuit.
    fn unary(&self, py: Python<'_>, op: Op) -> PyResult<PyObject> {
        let x = &self.inner;
        let out = run(py, || x.map_unary(op))?;
        Ok(Py::new(py, FheArray::new(out, op.result_type(self.ty)))?.into_any())
    }
}

/// `encint.where(cond, a, b)`: elementwise `a if cond else b` for an array of booleans
/// `cond`, `a` and `b` arrays of its shape, values of the family or ints (at least one
/// encrypted); one circuit.
#[pyfunction]
pub(crate) fn _where(
    py: Python<'_>,
    cond: PyRef<'_, FheArray>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<FheArray> {
    if cond.ty != IntType::BOOL {
        return Err(invalid(format!(
            "a condition of type {}, not an array of booleans",
            type_name(cond.ty)
        )));
    }
    let ty = [a, b]
        .iter()
        .find_map(|o| {
            o.downcast::<FheArray>()
                .map(|x| x.get().ty)
                .ok()
                .or_else(|| o.downcast::<FheValue>().ok().map(|v| v.get().inner.ty()))
        })
        .ok_or_else(|| invalid("where needs at least one encrypted branch"))?;
    let probe = FheArray {
        inner: cond.inner.clone(),
        ty,
    };
    let operand = |o: &Bound<'_, PyAny>| -> PyResult<ArrRhs> {
        probe
            .operand(o, Clear::Value)?
            .ok_or_else(|| PyTypeError::new_err("where takes arrays, values of the family or ints"))
    };
    let (a, b) = (operand(a)?, operand(b)?);
    let c = &cond.inner;
    let out = run(py, || {
        let bools = c
            .items()
            .iter()
            .map(|v| FheBool::from_repr(v.repr().clone()))
            .collect::<encint::Result<Vec<_>>>()?;
        let bools = encint::fhe::FheArray::new(bools, c.shape().to_vec())?;
        bools.select::<encint::fhe::FheValue>(&a, &b)
    })?;
    Ok(FheArray::new(out, ty))
}
