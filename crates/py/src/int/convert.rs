//! Conversions between exact digits (`EncInt`) and bits (`EncBits`).

use encint::arith::SInt;
use encint::circuit::bits::{bits_to_signed_digits, signed_digits_to_bits};
use encint::limits::{self, Estimate};
use encint::MAX_DIGITS;
use pyo3::prelude::*;

use crate::args::check_width;
use crate::eval::run_one;
use crate::value::Val;

/// The value of exact digits modulo `2^width`, as `width` bits.
pub(crate) fn digits_to_bits(py: Python<'_>, val: &Val, width: usize) -> PyResult<Val> {
    check_width(width, MAX_DIGITS)?;
    let est = Estimate::new(width as u64, limits::conversions(val.len(), width));
    run_one(py, &[val], est, |_, b, x| SInt {
        digits: signed_digits_to_bits(b, &x[0].digits, width),
    })
}

/// The exact digits of bits, read as two's complement if `signed` (free: no bootstrap).
pub(crate) fn bits_to_digits(py: Python<'_>, val: &Val, signed: bool) -> PyResult<Val> {
    let w = val.len();
    let est = Estimate::new(w as u64, limits::conversions(0, w));
    run_one(py, &[val], est, move |_, b, x| SInt {
        digits: bits_to_signed_digits(b, &x[0].digits, signed),
    })
}
