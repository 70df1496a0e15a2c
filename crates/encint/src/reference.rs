//! Plain-integer values of the exact operations: what a decrypted result of
//! [`Server::apply`](crate::Server::apply) on [`EncInt`](crate::EncInt)s must be, to check
//! results against.
//!
//! ```
//! use encint::reference::{agrees, plain};
//! use encint::Op;
//!
//! assert_eq!(plain(Op::Round(5), 47, 0, 8), Some(32));
//! // The digits of a wrapping product hold any value congruent to it modulo 2^bits.
//! assert!(agrees(Op::MulLow, -15, -3, 5, 4));
//! ```

use crate::Op;

/// The value of `op` on `x` (and `y`) in plain `i128` arithmetic; `bits` is the operand
/// width (the modulus of [`Op::MulLow`], reported in `[0, 2^bits)`). `None` for an
/// operation that exact integers do not have.
pub fn plain(op: Op, x: i128, y: i128, bits: usize) -> Option<i128> {
    Some(match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Neg => -x,
        Op::Mul => x * y,
        Op::MulLow => (x * y).rem_euclid(1i128 << bits),
        Op::ScalarMul(k) => x * k,
        Op::Square => x * x,
        Op::Signum => x.signum(),
        Op::Max => x.max(y),
        Op::Min => x.min(y),
        Op::Abs => x.abs(),
        Op::Round(i) => {
            let m = 1i128 << i;
            (x + m / 2).div_euclid(m) * m
        }
        Op::Cmp(r) => i128::from(r.holds(x, y)),
        _ => return None,
    })
}

/// Whether a decrypted result `got` is [`plain`]'s value: exactly, or for [`Op::MulLow`]
/// (whose digits hold any value congruent to the product) modulo `2^bits`.
pub fn agrees(op: Op, got: i128, x: i128, y: i128, bits: usize) -> bool {
    let Some(want) = plain(op, x, y, bits) else {
        return false;
    };
    match op {
        Op::MulLow => got.rem_euclid(1i128 << bits) == want,
        _ => got == want,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Relation;

    #[test]
    fn values_worked_out_by_hand() {
        assert_eq!(plain(Op::Round(5), 47, 0, 8), Some(32));
        assert_eq!(plain(Op::Round(5), 48, 0, 8), Some(64));
        assert_eq!(plain(Op::Round(5), 15, 0, 8), Some(0));
        assert_eq!(plain(Op::Round(0), -7, 0, 8), Some(-7));
        assert_eq!(plain(Op::Round(1), -3, 0, 8), Some(-2));
        assert_eq!(plain(Op::MulLow, -3, 5, 4), Some(1));
        assert_eq!(plain(Op::Cmp(Relation::Le), 4, 4, 8), Some(1));
        assert_eq!(plain(Op::Cmp(Relation::Gt), 4, 4, 8), Some(0));
        assert_eq!(plain(Op::Div, 4, 4, 8), None);
        assert!(agrees(Op::MulLow, -15, -3, 5, 4));
        assert!(!agrees(Op::Add, 3, 1, 1, 4));
        assert!(!agrees(Op::Div, 1, 4, 4, 8));
    }
}
