//! Plain two's-complement arithmetic on `i128` that the typed tests compare against (widths
//! below 128).
// Each including test uses part of it.
#![allow(dead_code)]

use encint_arith::typed::IntType;

/// `v` modulo `2^bits`, read as a value of `ty` (plain arithmetic).
pub fn wrap(ty: IntType, v: i128) -> i128 {
    let m = 1i128 << ty.bits;
    let u = v.rem_euclid(m);
    if ty.signed && u >= m / 2 {
        u - m
    } else {
        u
    }
}

/// The value of `ty` that signed-binary digits (low digit first) represent.
pub fn value(ty: IntType, digits: &[i64]) -> i128 {
    wrap(
        ty,
        digits
            .iter()
            .rev()
            .fold(0i128, |a, &d| 2 * a + i128::from(d)),
    )
}
