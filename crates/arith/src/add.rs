//! Parallel addition (Parmesan, Algorithm 1) and multi-operand sums.

use encint_core::circuit::{Builder, NodeId};

use crate::{luts, Arith, SInt};

/// Refreshes a digit whose noise is not fresh (qweight > 1) with an identity
/// bootstrap; a fresh (or negated fresh, or constant) digit is returned as is.
pub(crate) fn refresh(b: &mut Builder, v: NodeId) -> NodeId {
    if b.qweight(v) <= 1 {
        v
    } else {
        b.lut(v, &luts::identity())
    }
}

impl Arith {
    pub(crate) fn add_inner(&self, b: &mut Builder, x: &SInt, y: &SInt) -> SInt {
        let n = x.len().max(y.len());
        if n == 0 {
            return SInt::default();
        }
        let zero = b.constant(0);
        let xs: Vec<NodeId> = (0..n).map(|i| x.digit(i, zero)).collect();
        let ys: Vec<NodeId> = (0..n).map(|i| y.digit(i, zero)).collect();
        let mut ys = ys;
        // Operands that share a noise (the same digit in both, e.g. X + 4X for a
        // short X) give selectors heavier than independent ones; within a budget,
        // such shared digits of y are first copied by an identity bootstrap.
        if self.config.max_qweight < u64::MAX && shares_noise(b, &xs, &ys, self.config.max_qweight)
        {
            let id = luts::identity();
            for yi in ys.iter_mut() {
                if b.const_value(*yi).is_none() {
                    *yi = b.lut(*yi, &id);
                }
            }
        }
        let w: Vec<NodeId> = (0..n).map(|i| b.add(xs[i], ys[i])).collect();
        // A position is "passive" when its sum is known to be a digit already:
        // one addend is the constant 0, or the sum is a constant in {-1, 0, 1}.
        let passive = |b: &Builder, i: usize| {
            b.const_value(xs[i]) == Some(0)
                || b.const_value(ys[i]) == Some(0)
                || matches!(b.const_value(w[i]), Some(c) if c.abs() <= 1)
        };
        // §3.1.2, LSB part: the passive suffix of low positions is copied as is,
        // and the addition proper starts above it with w_{L-1} taken as 0.
        let low = (0..n).find(|&i| !passive(b, i)).unwrap_or(n);
        let mut out: Vec<NodeId> = w[..low].to_vec();
        if low < n {
            let carry = luts::carry();
            let mut q = Vec::with_capacity(n - low);
            for i in low..n {
                let prev = if i > low { w[i - 1] } else { zero };
                let sel = b.linear(&[(prev, 1), (w[i], 3)], 0);
                q.push(b.lut(sel, &carry));
            }
            for i in low..n {
                let qi = q[i - low];
                let qprev = if i > low { q[i - low - 1] } else { zero };
                let pre = b.linear(&[(w[i], 1), (qi, -2), (qprev, 1)], 0);
                out.push(refresh(b, pre));
            }
            // MSB part: the top digit is the last carry, fresh, no refresh.
            out.push(q[n - low - 1]);
        }
        SInt { digits: out }.trimmed(b)
    }

    /// Sum of many integers as a balanced tree of parallel additions: each
    /// round adds disjoint pairs (one batch of bootstraps), so `m` terms take
    /// `⌈log2 m⌉` rounds instead of `m - 1`.
    pub fn sum(&self, b: &mut Builder, terms: Vec<SInt>) -> SInt {
        self.sum_limited(b, terms, None)
    }

    /// [`Arith::sum`] keeping only the `limit` low digits of every partial sum
    /// (a result mod `2^limit`); work for dropped digits is never done.
    pub fn sum_limited(&self, b: &mut Builder, terms: Vec<SInt>, limit: Option<usize>) -> SInt {
        let cut = |mut t: SInt| {
            if let Some(n) = limit {
                t.digits.truncate(n);
            }
            t
        };
        let mut terms: Vec<SInt> = terms.into_iter().filter(|t| !t.is_empty()).collect();
        if terms.is_empty() {
            return SInt::default();
        }
        while terms.len() > 1 {
            // Pair neighbours in order of their lowest digit so overlaps stay short;
            // an odd one out (the last, most significant) waits for the next round.
            terms.sort_by_key(|t| lowest_active(b, t));
            let mut next = Vec::with_capacity(terms.len().div_ceil(2));
            let mut it = terms.into_iter();
            while let Some(a) = it.next() {
                match it.next() {
                    Some(c) => next.push(cut(self.add(b, &a, &c))),
                    None => next.push(a),
                }
            }
            terms = next;
        }
        cut(terms.pop().unwrap_or_default())
    }

    /// Sum of many integers added one after the other (Parmesan's schoolbook
    /// summation, Figure 5).
    pub fn sum_sequential(&self, b: &mut Builder, terms: Vec<SInt>) -> SInt {
        let mut acc = SInt::default();
        for t in terms {
            acc = self.add(b, &acc, &t);
        }
        acc
    }
}

/// Whether some carry selector `w_{i-1} + 3 w_i` of `x + y` would exceed `budget`.
fn shares_noise(b: &Builder, xs: &[NodeId], ys: &[NodeId], budget: u64) -> bool {
    (0..xs.len()).any(|i| {
        let mut terms = vec![(xs[i], 3), (ys[i], 3)];
        if i > 0 {
            terms.extend([(xs[i - 1], 1), (ys[i - 1], 1)]);
        }
        b.linear_qweight(&terms) > budget
    })
}

/// Index of the lowest digit that is not the constant 0.
pub(crate) fn lowest_active(b: &Builder, x: &SInt) -> usize {
    x.digits
        .iter()
        .position(|&d| b.const_value(d) != Some(0))
        .unwrap_or(x.len())
}
