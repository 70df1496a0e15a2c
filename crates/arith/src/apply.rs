//! The exact integers' operations by name: [`Arith::apply`] builds any [`Op`] that
//! exists on exact integers.

use encint_core::circuit::Builder;

use crate::op::{Op, TypedError};
use crate::{Arith, SInt};

impl Arith {
    /// Builds `op` on the exact integers `x` (never wrapping: [`Op::Mul`] is the whole
    /// product); errors when `op` is not an operation of exact integers
    /// ([`Op::on_exact`]), on the wrong number of operands, or on a scalar factor outside
    /// `i64`.
    ///
    /// ```
    /// use encint_arith::{Arith, Config, Op, SInt};
    /// use encint_core::circuit::Builder;
    /// let ar = Arith::new(Config { max_qweight: 25 });
    /// let mut b = Builder::new();
    /// let x = SInt::input(&mut b, 4);
    /// let y = SInt::input(&mut b, 4);
    /// assert!(ar.apply(&mut b, Op::Mul, &[x.clone(), y]).is_ok());
    /// assert!(ar.apply(&mut b, Op::Not, &[x]).is_err());
    /// ```
    pub fn apply(&self, b: &mut Builder, op: Op, x: &[SInt]) -> Result<SInt, TypedError> {
        op.check_exact(x.len())?;
        let one = |d| SInt { digits: vec![d] };
        Ok(match op {
            Op::Add => self.add(b, &x[0], &x[1]),
            Op::Sub => self.sub(b, &x[0], &x[1]),
            Op::Neg => x[0].neg(b),
            Op::Mul => self.mul(b, &x[0], &x[1]),
            Op::MulLow => self.mul_low(b, &x[0], &x[1], x[0].len().max(x[1].len())),
            Op::ScalarMul(k) => {
                let k = i64::try_from(k).map_err(|_| TypedError::ScalarRange(k))?;
                self.scalar_mul(b, &x[0], k)
            }
            Op::Square => self.square(b, &x[0]),
            Op::Signum => one(self.signum(b, &x[0])),
            Op::Max => self.max(b, &x[0], &x[1]),
            Op::Min => self.min(b, &x[0], &x[1]),
            Op::Abs => self.abs(b, &x[0]),
            Op::Round(i) => self.round_at(b, &x[0], i),
            Op::Cmp(rel) => one(self.cmp(b, rel, &x[0], &x[1])),
            Op::And | Op::Or | Op::Xor | Op::FloorDiv | Op::Mod => self
                .bitwise(b, op, &x[0], &x[1])
                .expect("a bit operator has a circuit"),
            Op::Shl(k) | Op::Shr(k) => {
                let k = usize::try_from(k).map_err(|_| TypedError::ScalarRange(k.into()))?;
                self.shift(b, &x[0], k, matches!(op, Op::Shl(_)))
            }
            Op::Select => self.select(b, &x[0], &x[1], &x[2]),
            _ => {
                return Err(TypedError::NotAnOperation {
                    op,
                    on: "exact integers",
                })
            }
        })
    }
}
