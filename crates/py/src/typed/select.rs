//! `encint.select(cond, a, b)` with an `EncTyped` condition.

use encint::typed::{Form, IntType, Op};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use super::class::{EncTyped, TArg};
use crate::methods::Select;

/// The condition's value odd: `a`; `a` and `b` are `EncTyped` of one type (at least one of
/// them) or Python ints that are values of it.
impl Select for EncTyped {
    fn select(&self, py: Python<'_>, [a, b]: [&Bound<'_, PyAny>; 2]) -> PyResult<PyObject> {
        let Ok(model) = a.extract::<EncTyped>().or_else(|_| b.extract::<EncTyped>()) else {
            return Err(PyTypeError::new_err(
                "select with an EncTyped condition needs an EncTyped operand",
            ));
        };
        let arg = |o: &Bound<'_, PyAny>| -> PyResult<TArg> {
            model
                .arg(o)?
                .ok_or_else(|| PyTypeError::new_err("select operands must be EncTyped or int"))
        };
        let (x, y) = (arg(a)?, arg(b)?);
        // A condition is read as one bit: canonical only as a `u1` (a comparison result),
        // else the parity of its first digit (a radix-4 block, or a signed digit).
        let form = match self.form {
            Form::Radix4 | Form::Canonical if self.ty == IntType::BOOL => Form::Canonical,
            Form::Radix4 => Form::Radix4,
            _ => Form::Lazy,
        };
        let c = TArg::Val(self.val.clone(), form);
        let r = EncTyped::apply(py, Op::Select, model.ty, vec![c, x, y])?;
        Ok(Py::new(py, r)?.into_any())
    }
}
