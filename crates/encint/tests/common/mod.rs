//! Helpers shared by the integration tests of `encint`.

use encint::{Op, Relation};

/// Every operation of [`Op`] once, with one `ScalarMul` per factor of `scalars` (in the
/// place of `ScalarMul` in the enum) and rounding at bit 3.
pub fn every_op(scalars: &[i64]) -> Vec<Op> {
    let mut ops = vec![Op::Add, Op::Sub, Op::Neg, Op::Mul, Op::MulLow];
    ops.extend(scalars.iter().map(|&k| Op::ScalarMul(k.into())));
    ops.extend([
        Op::Square,
        Op::Signum,
        Op::Max,
        Op::Min,
        Op::Abs,
        Op::Round(3),
    ]);
    ops.extend(Relation::ALL.map(Op::Cmp));
    ops
}
