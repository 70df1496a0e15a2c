//! `encint.select(cond, a, b)` with an `EncInt` condition.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use super::exact::EncInt;
use crate::errors::invalid;
use crate::eval::run_one;
use crate::methods::Select;
use crate::value::{circuit_inputs, const_len, const_sint};
use encint::limits;
use encint::Op;

/// A 1-digit condition holding 0 or 1: `b + c·(a - b)`, one exact product with a one-digit
/// factor. `a` and `b` are `EncInt`s or Python ints.
impl Select for EncInt {
    fn select(&self, py: Python<'_>, [a, b]: [&Bound<'_, PyAny>; 2]) -> PyResult<PyObject> {
        let c = &self.val;
        if c.len() != 1 {
            return Err(invalid(format!(
                "the condition must be a 1-digit EncInt holding 0 or 1 (as comparisons give), \
                 not one of {} digits",
                c.len()
            )));
        }
        let operand = |o: &Bound<'_, PyAny>| {
            EncInt::arg(o)
                .ok_or_else(|| PyTypeError::new_err("select operands must be EncInt or int"))
        };
        let operands = [operand(a)?, operand(b)?];
        let (vals, slots) = circuit_inputs(c, &operands);
        let width = |s: &Result<usize, _>| match s {
            Ok(i) => vals[*i].len(),
            Err(k) => const_len(k),
        };
        let est = limits::op_on(Op::Select, &[c.len(), width(&slots[0]), width(&slots[1])]);
        let val = run_one(py, &vals, est, move |ar, bld, x| {
            let mut pick = |s: &Result<usize, _>| match s {
                Ok(i) => x[*i].clone(),
                Err(k) => const_sint(bld, k),
            };
            let (xa, xb) = (pick(&slots[0]), pick(&slots[1]));
            ar.select(bld, &x[0], &xa, &xb)
        })?;
        Ok(Py::new(py, EncInt { val })?.into_any())
    }
}
