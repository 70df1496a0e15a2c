//! The Python methods of `EncBits`.

use encint::arith::bits as ops;
use encint::limits::WordOp;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::bits::EncBits;
use super::convert::bits_to_digits;
use super::exact::EncInt;
use super::serial::{bits_from_bytes, bits_to_bytes, clear_bits};
use crate::methods::{py_methods, reduce};
use crate::value::Val;

py_methods! {
    impl EncBits {
        getters(this) {
            /// Number of bits.
            width: usize = this.val.len();
            /// Whether the bits are read as two's complement.
            signed: bool = this.signed;
            /// Whether this is a clear-mode value.
            is_clear: bool = this.val.is_clear();
        }

        operators;
        min_max(other) {
            /// `min(self, other)`.
            /// `max(self, other)`.
        }
        opaque "EncBits";

        /// The bits and their signedness in a checked envelope (kind Ciphertext).
        fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
            bits_to_bytes(py, &self.val, self.signed)
        }

        /// Reads bits written by `to_bytes` (their signedness is in the envelope; `signed`, if
        /// given, must agree with it). Bytes of any other kind (an `EncInt` or `EncTyped`
        /// envelope, a key) raise `KeyRoleError`: their digits are not known to be bits.
        #[staticmethod]
        #[pyo3(signature = (data, signed = None))]
        fn from_bytes(py: Python<'_>, data: Vec<u8>, signed: Option<bool>) -> PyResult<EncBits> {
            let (val, signed) = bits_from_bytes(py, &data, signed)?;
            Ok(EncBits { val, signed })
        }

        #[staticmethod]
        fn _from_clear_bits(bits: Vec<i64>, signed: bool) -> PyResult<EncBits> {
            Ok(EncBits { val: clear_bits(bits)?, signed })
        }

        fn __reduce__(&self, py: Python<'_>) -> PyResult<(PyObject, PyObject)> {
            match &self.val {
                Val::Enc(_) => {
                    reduce::<EncBits>(py, "from_bytes", (self.to_bytes(py)?, self.signed))
                }
                Val::Clear(d) => {
                    reduce::<EncBits>(py, "_from_clear_bits", (d.clone(), self.signed))
                }
            }
        }

        fn __repr__(&self) -> String {
            format!("EncBits(<{} {}>)", self.val.mode(), self.describe())
        }

        fn __neg__(&self, py: Python<'_>) -> PyResult<EncBits> {
            self.unary(py, WordOp::Neg, ops::neg)
        }

        fn __pos__(&self) -> EncBits {
            self.clone()
        }

        fn __invert__(&self, py: Python<'_>) -> PyResult<EncBits> {
            self.unary(py, WordOp::Not, ops::not)
        }

        fn __abs__(&self, py: Python<'_>) -> PyResult<EncBits> {
            if self.signed {
                self.unary(py, WordOp::Abs, ops::abs)
            } else {
                Ok(self.clone())
            }
        }

        /// The exact `EncInt` of these bits (free: no bootstrap).
        fn to_int(&self, py: Python<'_>) -> PyResult<EncInt> {
            Ok(EncInt { val: bits_to_digits(py, &self.val, self.signed)? })
        }
    }
}
