//! The Python methods of `EncInt`.

use encint::Op;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::exact::EncInt;
use super::serial::{clear_digits, int_from_bytes, int_to_bytes};
use crate::methods::{py_methods, reduce};
use crate::value::Val;

py_methods! {
    impl EncInt {
        getters(this) {
            /// Number of digits (the representation's length, not a bound on the value's range
            /// after operations: results grow as needed).
            width: usize = this.val.len();
            /// Whether this is a clear-mode value.
            is_clear: bool = this.val.is_clear();
        }

        operators;
        min_max(other) {
            /// `min(self, other)`.
            /// `max(self, other)`.
        }
        opaque "EncInt";

        /// The ciphertext in a checked envelope (kind Ciphertext).
        fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
            int_to_bytes(py, &self.val)
        }

        /// Reads a ciphertext written by `to_bytes` (checks magic, kind, version, parameters
        /// and every digit's dimension).
        #[staticmethod]
        fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<EncInt> {
            Ok(EncInt { val: int_from_bytes(py, &data)? })
        }

        #[staticmethod]
        fn _from_clear_digits(digits: Vec<i64>) -> PyResult<EncInt> {
            Ok(EncInt { val: clear_digits(digits)? })
        }

        fn __reduce__(&self, py: Python<'_>) -> PyResult<(PyObject, PyObject)> {
            match &self.val {
                Val::Enc(_) => reduce::<EncInt>(py, "from_bytes", (self.to_bytes(py)?,)),
                Val::Clear(d) => reduce::<EncInt>(py, "_from_clear_digits", (d.clone(),)),
            }
        }

        fn __repr__(&self) -> String {
            format!("EncInt(<{} {} digits>)", self.val.mode(), self.val.len())
        }

        fn __neg__(&self, py: Python<'_>) -> PyResult<EncInt> {
            self.unary_op(py, Op::Neg)
        }

        fn __pos__(&self) -> EncInt {
            self.clone()
        }

        fn __invert__(&self, py: Python<'_>) -> PyResult<EncInt> {
            let n = self.val.len();
            let est = encint::limits::op(Op::Neg, n, 0)
                .then(encint::limits::op(Op::Sub, n, 1));
            self.unary(py, est, |ar, b, x| {
                let n = x.neg(b);
                let one = encint::arith::SInt::constant(b, 1);
                ar.sub(b, &n, &one)
            })
        }

        fn __abs__(&self, py: Python<'_>) -> PyResult<EncInt> {
            self.unary_op(py, Op::Abs)
        }

        /// `sgn(self)`: -1, 0 or 1.
        fn sign(&self, py: Python<'_>) -> PyResult<EncInt> {
            self.unary_op(py, Op::Signum)
        }

        /// `self²` (cheaper than `self * self`).
        fn square(&self, py: Python<'_>) -> PyResult<EncInt> {
            self.unary_op(py, Op::Square)
        }
    }
}
