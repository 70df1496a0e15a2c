//! The Python methods of `EncTyped`.

use encint::typed::{Form, Op};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::class::{type_of, EncTyped};
use super::payload;
use crate::errors::invalid;
use crate::methods::{py_methods, reduce};
use crate::value::Val;

py_methods! {
    impl EncTyped {
        getters(this) {
            /// Width in bits.
            bits: usize = this.ty.bits;
            /// Whether the type is signed (two's complement).
            signed: bool = this.ty.signed;
            /// The type's name (`"u8"`, `"i16"`, ...).
            dtype: String = this.ty.to_string();
            /// `"canonical"` (two's-complement digits: bit operations take them as they are),
            /// `"lazy"` (any representative modulo `2**bits`: a wrapping result not normalised) or
            /// `"radix4"` (two-bit blocks, like TFHE-rs' radix ciphertexts).
            form: &'static str = this.form.name();
            /// Whether this is a clear-mode value.
            is_clear: bool = this.val.is_clear();
        }

        operators;
        min_max(o) {
            /// `min(self, other)` in the type's order.
            /// `max(self, other)` in the type's order.
        }
        opaque "EncTyped";

        /// The value, its type and form in a checked envelope (kind Ciphertext).
        fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
            payload::to_bytes(py, self)
        }

        /// Reads a value written by `to_bytes` (checks magic, kind, version, parameters,
        /// type and every digit's dimension).
        #[staticmethod]
        fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<EncTyped> {
            payload::from_bytes(py, &data)
        }

        #[staticmethod]
        fn _from_clear(
            digits: Vec<i64>,
            bits: usize,
            signed: bool,
            form: &str,
        ) -> PyResult<EncTyped> {
            let ty = type_of(bits, signed)?;
            let form =
                Form::from_name(form).ok_or_else(|| invalid(format!("unknown form {form}")))?;
            let fits = match form {
                Form::Lazy => digits.len() <= bits,
                _ => form.value(ty, &digits).is_some(),
            };
            if !fits || (form != Form::Radix4 && digits.iter().any(|d| !(-1..=1).contains(d))) {
                return Err(invalid("clear digits do not fit the type"));
            }
            Ok(EncTyped {
                val: Val::Clear(digits),
                ty,
                form,
            })
        }

        fn __reduce__(&self, py: Python<'_>) -> PyResult<(PyObject, PyObject)> {
            match &self.val {
                Val::Enc(_) => reduce::<EncTyped>(py, "from_bytes", (self.to_bytes(py)?,)),
                Val::Clear(d) => reduce::<EncTyped>(
                    py,
                    "_from_clear",
                    (d.clone(), self.ty.bits, self.ty.signed, self.form.name()),
                ),
            }
        }

        fn __repr__(&self) -> String {
            format!("EncTyped(<{} {}>)", self.val.mode(), self.describe())
        }

        fn __neg__(&self, py: Python<'_>) -> PyResult<EncTyped> {
            self.unary(py, Op::Neg)
        }

        fn __pos__(&self) -> EncTyped {
            self.clone()
        }

        fn __invert__(&self, py: Python<'_>) -> PyResult<EncTyped> {
            self.unary(py, Op::Not)
        }

        /// `self` rotated left by `k` (an int or an `EncTyped` of the same type) modulo the
        /// width.
        fn rotate_left(&self, py: Python<'_>, k: &Bound<'_, PyAny>) -> PyResult<PyObject> {
            self.shift_by(py, k, Op::RotlVar)
        }

        /// `self` rotated right by `k` modulo the width.
        fn rotate_right(&self, py: Python<'_>, k: &Bound<'_, PyAny>) -> PyResult<PyObject> {
            self.shift_by(py, k, Op::RotrVar)
        }

        /// `self * self` modulo `2**bits`.
        fn square(&self, py: Python<'_>) -> PyResult<EncTyped> {
            self.unary(py, Op::Square)
        }

        /// The value converted to `bits` bits, `signed` or not, like Rust's `as`: truncated,
        /// or zero/sign-extended by this value's signedness.
        #[pyo3(signature = (bits, signed = false))]
        fn cast(&self, py: Python<'_>, bits: usize, signed: bool) -> PyResult<EncTyped> {
            let to = type_of(bits, signed)?;
            self.unary(py, Op::Cast(to))
        }
    }
}
