//! The planner: every algorithm's circuit for an operation, ordered by estimated time.

use encint_core::circuit::Cost;

use super::build::{check_type, circuit_for};
use super::forms::{operand_forms, result_form, Form};
use crate::bits as ops;
use crate::op::{Algorithm, IntType, Op, TypedError};
use crate::Arith;

/// One algorithm's estimate for an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Its circuit's cost.
    pub cost: Cost,
    /// The result's form.
    pub form: Form,
    /// Estimated time in bootstrap rounds at the plan's thread count: the sum over levels
    /// of `⌈bootstraps in the level / threads⌉`.
    pub rounds: u64,
}

/// The planner's answer: every algorithm's estimate, the chosen one first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The operation.
    pub op: Op,
    /// The operand type.
    pub ty: IntType,
    /// The operands' forms.
    pub forms: Vec<Form>,
    /// Threads the estimate assumes.
    pub threads: usize,
    /// Estimates, the chosen (fewest rounds, then fewest bootstraps, then, for radix-4
    /// operands, a radix-4 result) first.
    pub estimates: Vec<Estimate>,
}

impl Plan {
    /// The chosen algorithm's estimate.
    pub fn chosen(&self) -> &Estimate {
        &self.estimates[0]
    }
}

/// Plans `op` on `ty` with operands of forms `forms` for `threads` threads: builds each
/// algorithm's circuit and orders them by estimated time ([`crate::bits::makespan`]),
/// then bootstraps, then (radix-4 operands) whether the result stays radix-4.
pub fn plan(
    ar: &Arith,
    op: Op,
    ty: IntType,
    forms: &[Form],
    threads: usize,
) -> Result<Plan, TypedError> {
    check_type(op, ty)?;
    let mut estimates = Vec::new();
    for &algorithm in op.algorithms() {
        let c = match circuit_for(ar, op, ty, algorithm, forms, threads) {
            Ok(c) => c,
            Err(TypedError::Unsupported(..)) => continue,
            Err(e) => return Err(e),
        };
        let form = result_form(op, algorithm, forms);
        estimates.push(Estimate {
            algorithm,
            cost: c.cost(),
            form,
            rounds: ops::makespan(&c, threads),
        });
    }
    if estimates.is_empty() {
        return Err(TypedError::Unsupported(op, Algorithm::Bits));
    }
    // Ties keep radix-4 operands' results in radix-4 form (no conversion for the next
    // block operation).
    let radix4 = operand_forms(op, forms).contains(&Form::Radix4);
    estimates.sort_by_key(|e| {
        (
            e.rounds,
            e.cost.bootstraps,
            radix4 && e.form != Form::Radix4,
        )
    });
    Ok(Plan {
        op,
        ty,
        forms: forms.to_vec(),
        threads,
        estimates,
    })
}
