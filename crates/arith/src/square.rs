//! Squaring: direct squaring of up to 3 digits (Algorithm 10), divide and
//! conquer (Algorithm 5), a symmetric schoolbook squaring, and a radix-4 block square
//! ([`crate::blocks::square_signed_digits`]); the cost model picks per length.

use encint_core::circuit::{Builder, NodeId};

use crate::mul::digit_product;
use crate::{luts, Arith, SInt};

/// How a square of a given length is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SquarePlan {
    /// One LUT per result bit on `X = Σ 2^i x_i` (at most 3 digits).
    Direct,
    /// Divide and conquer with the low part `low` digits long.
    DivideAndConquer {
        /// Length of the low half.
        low: usize,
    },
    /// `Σ x_i² 2^{2i} + Σ_{i<j} x_i x_j 2^{i+j+1}`, rows summed as a tree.
    Symmetric,
    /// Block square of the operand recoded in balanced radix 4
    /// ([`crate::blocks::square_signed_digits`]); needs a noise budget of at least 25.
    Blocks,
}

impl Arith {
    /// `x²`, exact.
    pub fn square(&self, b: &mut Builder, x: &SInt) -> SInt {
        b.labelled("squ", |b| self.square_inner(b, x))
    }

    fn square_inner(&self, b: &mut Builder, x: &SInt) -> SInt {
        if x.is_empty() {
            return SInt::default();
        }
        self.square_by_plan(b, x, self.square_plan(x.len()))
    }

    /// `x²` by the circuit of `plan`.
    fn square_by_plan(&self, b: &mut Builder, x: &SInt, plan: SquarePlan) -> SInt {
        match plan {
            SquarePlan::Direct => self.square_direct(b, x),
            SquarePlan::DivideAndConquer { low } => self.square_dnc(b, x, low),
            SquarePlan::Symmetric => self.square_symmetric(b, x),
            SquarePlan::Blocks => self.square_blocks(b, x),
        }
    }

    /// The plan the cost model picks for this length (as [`Arith::mul_plan`] does),
    /// memoised.
    pub fn square_plan(&self, n: usize) -> SquarePlan {
        let candidates = || {
            // Direct squaring needs Σ 4^i <= budget: 21 for 3 digits.
            let direct_weight: u64 = (0..n.min(3)).map(|i| 1u64 << (2 * i)).sum();
            let mut first = Vec::new();
            if n <= 3 && direct_weight <= self.config.max_qweight {
                first.push(SquarePlan::Direct);
            }
            first.push(SquarePlan::Symmetric);
            let dnc = |low| {
                (n >= 2 && low >= 1 && low < n).then_some(SquarePlan::DivideAndConquer { low })
            };
            self.plan_candidates(first, n, dnc, SquarePlan::Blocks)
        };
        crate::cheapest_plan(
            self.machine.as_ref(),
            &self.square_plans,
            n,
            candidates,
            |sb, plan| {
                let x = SInt::input(sb, n);
                self.square_by_plan(sb, &x, plan)
            },
        )
    }

    /// `x²` exact on radix-4 blocks: the operand recoded in balanced radix 4, each block
    /// product one bootstrap, read as `2|x|` unsigned digits
    /// ([`crate::blocks::square_signed_digits`]).
    ///
    /// A configuration whose budget is below 25 has no room for the block circuit: then
    /// Parmesan's cheapest circuit for the lengths (what [`Arith::square`] picks there).
    pub fn square_blocks(&self, b: &mut Builder, x: &SInt) -> SInt {
        let Some(budget) = self.blocks_budget() else {
            return self.square(b, x);
        };
        SInt {
            digits: crate::blocks::square_signed_digits(b, &x.digits, budget),
        }
        .trimmed(b)
    }

    /// Algorithm 10: `X = Σ 2^i x_i` without bootstrapping, then one LUT per
    /// bit of `X²` (bit 1 is always 0).
    pub fn square_direct(&self, b: &mut Builder, x: &SInt) -> SInt {
        let n = x.len();
        debug_assert!((1..=3).contains(&n));
        let terms: Vec<(NodeId, i64)> = x
            .digits
            .iter()
            .enumerate()
            .map(|(i, &d)| (d, 1i64 << i))
            .collect();
        let v = b.linear(&terms, 0);
        let max = (1i64 << n) - 1;
        let bits = 64 - ((max * max) as u64).leading_zeros();
        let zero = b.constant(0);
        let digits = (0..bits)
            .map(|k| {
                if k == 1 {
                    zero
                } else {
                    b.lut(v, &luts::square_bit(k, max))
                }
            })
            .collect();
        SInt { digits }.trimmed(b)
    }

    /// Algorithm 5: `A = r1²`, `B = r0²`, `C = r1·r0`, `A·2^{2l} + C·2^{l+1} + B`.
    pub fn square_dnc(&self, b: &mut Builder, x: &SInt, low: usize) -> SInt {
        let r0 = SInt {
            digits: x.digits[..low].to_vec(),
        };
        let r1 = SInt {
            digits: x.digits[low..].to_vec(),
        };
        let a = self.square_inner(b, &r1);
        let bb = self.square_inner(b, &r0);
        let c = self.mul_inner(b, &r1, &r0);
        let c_shifted = c.shl(b, low + 1);
        self.recombine(b, &a, &bb, &c_shifted, low)
    }

    /// Symmetric schoolbook squaring: `n(n+1)/2` digit products.
    pub fn square_symmetric(&self, b: &mut Builder, x: &SInt) -> SInt {
        let n = x.len();
        let zero = b.constant(0);
        let sq = luts::square_bit(0, 1);
        let mut rows = Vec::with_capacity(n);
        for i in 0..n {
            let xi = x.digits[i];
            let diag = match b.const_value(xi) {
                Some(c) => b.constant(c * c),
                None => b.lut(xi, &sq),
            };
            let mut digits = vec![diag, zero];
            for j in i + 1..n {
                digits.push(digit_product(b, xi, x.digits[j]));
            }
            rows.push(SInt { digits }.trimmed(b).shl(b, 2 * i));
        }
        self.sum(b, rows)
    }
}
