//! `encint.select(cond, a, b)` with an `EncInt` or `EncBits` condition.

use encint::arith::bits::{self as ops, Word};
use encint::arith::SInt;
use encint::limits::WordOp;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use super::bits::EncBits;
use super::exact::EncInt;
use crate::errors::invalid;
use crate::eval::run_one;
use crate::methods::Select;
use crate::value::{circuit_inputs, const_len, const_sint};
use encint::arith::word_stage;
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

/// A 1-bit condition: `a` and `b` are `EncBits` of one type (at least one of them) or
/// Python ints that fit it.
impl Select for EncBits {
    fn select(&self, py: Python<'_>, [a, b]: [&Bound<'_, PyAny>; 2]) -> PyResult<PyObject> {
        if self.val.len() != 1 {
            return Err(invalid(
                "the condition must be a 1-bit EncBits (a comparison result)",
            ));
        }
        let Ok(model) = a.extract::<EncBits>().or_else(|_| b.extract::<EncBits>()) else {
            return Err(PyTypeError::new_err(
                "select with an EncBits condition needs an EncBits operand",
            ));
        };
        let operand = |o: &Bound<'_, PyAny>| {
            model
                .arg(o)?
                .ok_or_else(|| PyTypeError::new_err("select operands must be EncBits or int"))
        };
        let operands = [operand(a)?, operand(b)?];
        let (vals, slots) = circuit_inputs(&self.val, &operands);
        let w = model.val.len();
        let est = limits::stage(WordOp::Select, w, w);
        let val = run_one(py, &vals, est, move |_, bld, x| {
            let groups: Vec<_> = x.iter().map(|s: &SInt| s.digits.clone()).collect();
            word_stage(bld, &groups, |bb, ws| {
                let mut pick = |s: &Result<usize, Vec<bool>>| match s {
                    Ok(i) => ws[*i].clone(),
                    Err(bits) => Word {
                        bits: bits.iter().map(|&v| bb.constant(v)).collect(),
                    },
                };
                let (xa, xb) = (pick(&slots[0]), pick(&slots[1]));
                ops::select(bb, ws[0].bits[0], &xa, &xb)
            })
        })?;
        let r = EncBits {
            val,
            signed: model.signed,
        };
        Ok(Py::new(py, r)?.into_any())
    }
}
