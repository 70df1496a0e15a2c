//! Multiplication: Parmesan's single-bit products in one LUT (Algorithm 4), schoolbook
//! with sequential or tree summation, and Karatsuba (Algorithm 3), beside radix-4 block
//! products ([`crate::blocks::mul_signed_digits`]); the cost model picks the plan (and
//! Karatsuba's split) for every pair of operand lengths.

use encint_core::circuit::{Builder, NodeId};

use crate::{luts, Arith, SInt};

/// How a product of given operand lengths is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MulPlan {
    /// All digit products, then the rows summed (sequentially, or as a tree).
    Schoolbook {
        /// Balanced tree summation instead of Parmesan's sequential one.
        tree: bool,
    },
    /// Karatsuba with the low part `low` digits long.
    Karatsuba {
        /// Length of the low halves.
        low: usize,
    },
    /// Block product of the operands recoded in balanced radix 4
    /// ([`crate::blocks::mul_signed_digits`]); needs a noise budget of at least 25.
    Blocks,
}

/// Product of two digits: free if one is a known constant, else one bootstrap.
pub(crate) fn digit_product(b: &mut Builder, x: NodeId, y: NodeId) -> NodeId {
    if let Some(c) = b.const_value(x) {
        return b.linear(&[(y, c)], 0);
    }
    if let Some(c) = b.const_value(y) {
        return b.linear(&[(x, c)], 0);
    }
    let sel = b.linear(&[(x, 3), (y, 1)], 0);
    b.lut(sel, &luts::bit_product())
}

/// The rows `x · y_j · 2^j` of a schoolbook product, keeping only digit
/// positions below `limit`.
fn partial_products(b: &mut Builder, x: &SInt, y: &SInt, limit: usize) -> Vec<SInt> {
    y.digits
        .iter()
        .take(limit)
        .enumerate()
        .map(|(j, &yj)| {
            let row = SInt {
                digits: x
                    .digits
                    .iter()
                    .take(limit - j)
                    .map(|&xi| digit_product(b, xi, yj))
                    .collect(),
            };
            row.trimmed(b).shl(b, j)
        })
        .collect()
}

impl Arith {
    /// `x · y`, exact (the product is as long as needed).
    pub fn mul(&self, b: &mut Builder, x: &SInt, y: &SInt) -> SInt {
        b.labelled("mul", |b| self.mul_inner(b, x, y))
    }

    pub(crate) fn mul_inner(&self, b: &mut Builder, x: &SInt, y: &SInt) -> SInt {
        if x.is_empty() || y.is_empty() {
            return SInt::default();
        }
        self.mul_by_plan(b, x, y, self.mul_plan(x.len(), y.len()))
    }

    /// `x · y` by the circuit of `plan`.
    fn mul_by_plan(&self, b: &mut Builder, x: &SInt, y: &SInt, plan: MulPlan) -> SInt {
        match plan {
            MulPlan::Schoolbook { tree } => self.mul_schoolbook(b, x, y, tree),
            MulPlan::Karatsuba { low } => self.mul_karatsuba(b, x, y, low),
            MulPlan::Blocks => self.mul_blocks(b, x, y),
        }
    }

    /// The plan the cost model picks for these lengths (least estimated time on the
    /// arithmetic's machine when it has one, then fewest bootstraps, then smallest depth),
    /// memoised.
    pub fn mul_plan(&self, lx: usize, ly: usize) -> MulPlan {
        let key = (lx.max(ly), lx.min(ly));
        let (n, m) = key;
        let candidates = || {
            let schoolbook = vec![
                MulPlan::Schoolbook { tree: false },
                MulPlan::Schoolbook { tree: true },
            ];
            let karatsuba = |low| (m >= 4 && low < m).then_some(MulPlan::Karatsuba { low });
            self.plan_candidates(schoolbook, n, karatsuba, MulPlan::Blocks)
        };
        crate::cheapest_plan(
            self.machine.as_ref(),
            &self.mul_plans,
            key,
            candidates,
            |sb, plan| {
                let x = SInt::input(sb, n);
                let y = SInt::input(sb, m);
                self.mul_by_plan(sb, &x, &y, plan)
            },
        )
    }

    /// The plans to compare for `n` digits: `first`, then `split(low)` at each split point
    /// `low` (`n / 2` and `⌈n / 2⌉`) where it gives a plan not listed yet, then `blocks`
    /// when the configuration leaves room for the block circuits.
    pub(crate) fn plan_candidates<P: PartialEq>(
        &self,
        mut first: Vec<P>,
        n: usize,
        split: impl Fn(usize) -> Option<P>,
        blocks: P,
    ) -> Vec<P> {
        for low in [n / 2, n.div_ceil(2)] {
            if let Some(plan) = split(low).filter(|p| !first.contains(p)) {
                first.push(plan);
            }
        }
        if self.blocks_budget().is_some() {
            first.push(blocks);
        }
        first
    }

    /// The quadratic-weight budget the block circuits work within (the configuration's,
    /// at most the default 25), or `None` when the configuration allows less than 25.
    pub(crate) fn blocks_budget(&self) -> Option<u64> {
        let budget = encint_core::bits::QWEIGHT_BUDGET;
        (self.config.max_qweight >= budget).then_some(budget)
    }

    /// `x · y` exact on radix-4 blocks: both operands recoded in balanced radix 4 (one
    /// bootstrap per digit), one bootstrap per block product, the columns reduced to
    /// `|x| + |y| + 1` two's-complement digits ([`crate::blocks::mul_signed_digits`]).
    /// Parmesan's algorithms:
    /// [`Arith::mul_schoolbook`], [`Arith::mul_karatsuba`].
    ///
    /// A configuration whose budget is below 25 has no room for the block circuit: then
    /// Parmesan's cheapest circuit for the lengths (what [`Arith::mul`] picks there).
    pub fn mul_blocks(&self, b: &mut Builder, x: &SInt, y: &SInt) -> SInt {
        let Some(budget) = self.blocks_budget() else {
            return self.mul(b, x, y);
        };
        SInt {
            digits: crate::blocks::mul_signed_digits(b, &x.digits, &y.digits, budget),
        }
        .trimmed(b)
    }

    /// Schoolbook product: `|x|·|y|` digit products, rows summed.
    pub fn mul_schoolbook(&self, b: &mut Builder, x: &SInt, y: &SInt, tree: bool) -> SInt {
        let rows = partial_products(b, x, y, usize::MAX);
        if tree {
            self.sum(b, rows)
        } else {
            self.sum_sequential(b, rows)
        }
    }

    /// `x · y mod 2^n` as `n` digits at most (the wrapping product of TFHE-rs'
    /// integers): only digit products below position `n` are made, and every
    /// partial sum is cut to `n` digits, so no work is spent on dropped digits.
    /// The result's value is congruent to `x·y` mod `2^n` and lies in `(-2^n, 2^n)`.
    pub fn mul_low(&self, b: &mut Builder, x: &SInt, y: &SInt, n: usize) -> SInt {
        b.labelled("mul_low", |b| {
            let rows = partial_products(b, x, y, n);
            self.sum_limited(b, rows, Some(n)).trimmed(b)
        })
    }

    /// Karatsuba: `A = x1·y1`, `B = x0·y0`, `C = (x1+x0)(y1+y0)`, then
    /// `A·2^{2l} + (C - A - B)·2^l + B`, concatenating `A‖B` when `B` fits in `2l`
    /// digits (§3.3.3).
    pub fn mul_karatsuba(&self, b: &mut Builder, x: &SInt, y: &SInt, low: usize) -> SInt {
        let split = |v: &SInt| {
            let l = low.min(v.len());
            (
                SInt {
                    digits: v.digits[..l].to_vec(),
                },
                SInt {
                    digits: v.digits[l..].to_vec(),
                },
            )
        };
        let (x0, x1) = split(x);
        let (y0, y1) = split(y);
        let a = self.mul_inner(b, &x1, &y1);
        let bb = self.mul_inner(b, &x0, &y0);
        let xs = self.add(b, &x1, &x0);
        let ys = self.add(b, &y1, &y0);
        let c = self.mul_inner(b, &xs, &ys);
        let ab = self.add(b, &a, &bb);
        let d = ab.neg(b);
        let e = self.add(b, &c, &d);
        let e_shifted = e.shl(b, low);
        self.recombine(b, &a, &bb, &e_shifted, low)
    }

    /// `a · 2^(2·low) + bb + middle`, the pieces of a product split at `low` digits
    /// (`middle` already in place). When `bb` ends below `a`'s shift, `a‖bb` is a
    /// concatenation that costs nothing (the addition finds every position passive), and
    /// `middle` is added to it; otherwise `bb + middle` first.
    pub(crate) fn recombine(
        &self,
        b: &mut Builder,
        a: &SInt,
        bb: &SInt,
        middle: &SInt,
        low: usize,
    ) -> SInt {
        let a_shifted = a.shl(b, 2 * low);
        if bb.len() <= 2 * low {
            let concat = self.add(b, &a_shifted, bb);
            self.add(b, &concat, middle)
        } else {
            let t = self.add(b, bb, middle);
            self.add(b, &t, &a_shifted)
        }
    }
}
