//! The reference every encrypted result is checked against (the facade's plain
//! arithmetic, [`encint::reference`]), and the operands an operation takes.

pub use encint::reference::{agrees, plain};
use encint::{EncInt, Op};

/// The operands of `op`: `x`, or `x` and `y`.
pub fn operands<'a>(op: Op, x: &'a EncInt, y: &'a EncInt) -> Vec<&'a EncInt> {
    if op.arity() == 1 {
        vec![x]
    } else {
        vec![x, y]
    }
}
