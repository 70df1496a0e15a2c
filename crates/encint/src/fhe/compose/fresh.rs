//! Operands made fresh where an operation would pass the noise budget. An operation's
//! planner builds its circuit for fresh operands: every digit its own noise of quadratic
//! weight 1. Inside a compiled function an operand may be neither: a result that ends in
//! linear steps keeps their noise (an operation run alone refreshes its outputs), and a
//! result whose top digits are copies of one node (a remainder by a small constant, a
//! sign extension) feeds that one noise into a selector several times, with the sum of
//! its weights squared (a remainder by -3 compared with zero: 26 against 25 on `i8`).

use std::collections::HashSet;

use encint_arith::typed::{build, Form, IntType, Op, TypedError};
use encint_arith::SInt;
use encint_core::circuit::NodeId;
use encint_core::lut::NegacyclicLut;

use super::{Composer, Value};
use crate::{Error, Result};

impl Composer<'_> {
    /// `build(self, operands)`, unless the bootstraps it adds pass the noise budget: then
    /// it is taken back and built again on fresh operands, each digit of quadratic weight
    /// above 1 and each repeated use of one digit node replaced by its own identity
    /// bootstrap (what the operation's planner assumed). Operations within the budget are
    /// built as they are; `digits` names a result's digit nodes.
    pub(super) fn within_budget<T>(
        &mut self,
        operands: &[&Value],
        build: impl Fn(&mut Self, &[&Value]) -> Result<T>,
        digits: impl Fn(&T) -> &[NodeId],
    ) -> Result<T> {
        let budget = self.ar.config().max_qweight;
        let first = self.b.node_count();
        let cp = self.b.checkpoint();
        match build(self, operands) {
            Ok(out) if self.b.max_bootstrap_qweight_since(first, digits(&out)) <= budget => {
                self.b.commit(cp);
                return Ok(out);
            }
            Ok(_) => self.b.rollback(cp),
            Err(e) => {
                self.b.rollback(cp);
                return Err(e);
            }
        }
        let mut seen = HashSet::new();
        let mut copies = 0;
        let mut fresh = Vec::with_capacity(operands.len());
        for v in operands {
            let mut nodes = Vec::with_capacity(v.digits.len());
            for &d in &v.digits.digits {
                let repeated = !seen.insert(d);
                let known = self.b.const_value(d).is_some();
                nodes.push(if !known && (repeated || self.b.qweight(d) > 1) {
                    copies += 1;
                    self.b.lut(d, &identity(v.form, copies))
                } else {
                    d
                });
            }
            fresh.push(Value::new(SInt { digits: nodes }, v.ty, v.form));
        }
        let refs: Vec<&Value> = fresh.iter().collect();
        build(self, &refs)
    }

    /// `op` on the digits `x` by the algorithm [`Composer::choose`] picks, or, when its
    /// bootstraps pass the noise budget on these digits (the choice is made for operands
    /// of unknown digits; known ones change the circuit), by the first other algorithm of
    /// the operation that stays within it. None does: the chosen one.
    pub(super) fn build_op(
        &mut self,
        op: Op,
        ty: IntType,
        forms: &[Form],
        x: &[SInt],
    ) -> Result<(SInt, Form)> {
        let chosen = self.choose(op, ty, forms, x)?;
        let budget = self.ar.config().max_qweight;
        let others = op.algorithms().iter().copied().filter(|&a| a != chosen);
        for algorithm in std::iter::once(chosen).chain(others) {
            let first = self.b.node_count();
            let cp = self.b.checkpoint();
            match build(self.ar, self.b, op, ty, algorithm, x, forms) {
                Ok(out) if self.b.max_bootstrap_qweight_since(first, &out.0.digits) <= budget => {
                    self.b.commit(cp);
                    return Ok(out);
                }
                Err(e) if algorithm == chosen && !matches!(e, TypedError::Unsupported(..)) => {
                    self.b.rollback(cp);
                    return Err(Error::from(e));
                }
                _ => self.b.rollback(cp),
            }
        }
        build(self.ar, self.b, op, ty, chosen, x, forms).map_err(Error::from)
    }
}

/// The `k`-th identity on the digits of `form` (radix-4 blocks hold 0 to 3, the other
/// forms' digits -1 to 1): each `k` writes another value into a table entry no digit of
/// the form selects, so that copies of one node are separate bootstraps, each with its
/// own noise, instead of one shared bootstrap.
fn identity(form: Form, k: usize) -> NegacyclicLut {
    let (domain, free) = match form {
        Form::Radix4 => (0..=3, 4..16),
        Form::Canonical | Form::Lazy => (-2..=2, 3..14),
    };
    let mut lut = NegacyclicLut::from_fn(domain, |s| s).expect("the identity is negacyclic");
    let slots = free.len();
    // Marks 1..=15 and -16..=-1 in each free entry: 31 per entry.
    let mark = (k / slots) % 31;
    lut.table[free.start + k % slots] = if mark < 15 {
        mark as i8 + 1
    } else {
        -(mark as i8 - 14)
    };
    lut
}
