//! Python arguments read the same way by every class: int operands, shift amounts,
//! widths.

use num_bigint::BigInt;
use pyo3::prelude::*;
use pyo3::types::PyBool;

use crate::errors::{limit, value_error};

/// A Python int operand (`True` and `False` are 1 and 0), or `None` for anything else.
pub fn int_operand(obj: &Bound<'_, PyAny>) -> Option<BigInt> {
    if obj.is_instance_of::<PyBool>() {
        return obj
            .extract::<bool>()
            .ok()
            .map(|b| BigInt::from(u8::from(b)));
    }
    obj.extract::<BigInt>().ok()
}

/// A shift amount that fits a `usize`; `Ok(None)` when `obj` is not an int (the operator
/// then returns `NotImplemented`), a `ValueError` with `msg` for any other int.
pub fn shift_amount(obj: &Bound<'_, PyAny>, msg: &str) -> PyResult<Option<usize>> {
    if let Ok(k) = obj.extract::<usize>() {
        return Ok(Some(k));
    }
    if obj.extract::<BigInt>().is_ok() {
        return Err(value_error(msg));
    }
    Ok(None)
}

/// Errors ([`crate::errors::LimitError`]) unless `width` is in `1..=max`.
pub fn check_width(width: usize, max: usize) -> PyResult<()> {
    if width == 0 || width > max {
        return Err(limit(format!("width {width} outside 1..={max}")));
    }
    Ok(())
}
