//! The noise-budget check: bootstrap inputs against a parameter set's quadratic weight.

pub use crate::error::BudgetViolation;

use super::{Circuit, NodeId, Plan};

/// Every bootstrap among the `live` nodes whose input exceeds `budget`.
fn violations(circuit: &Circuit, live: &[bool], budget: u64) -> Vec<BudgetViolation> {
    (0..circuit.nodes().len())
        .filter(|&i| live[i])
        .filter_map(|i| {
            let id = NodeId(i as u32);
            let q = circuit.bootstrap_input_qweight(id)?;
            (q > budget).then(|| BudgetViolation {
                node: id,
                operation: circuit.label(id).to_string(),
                qweight: q,
                budget,
            })
        })
        .collect()
}

impl Circuit {
    /// Every live bootstrap whose input exceeds `budget`.
    pub fn budget_violations(&self, budget: u64) -> Vec<BudgetViolation> {
        violations(self, &self.live(), budget)
    }
}

impl Plan {
    /// Every live bootstrap of the planned circuit whose input exceeds `budget` (the
    /// plan's liveness, not recomputed).
    pub fn budget_violations(&self, circuit: &Circuit, budget: u64) -> Vec<BudgetViolation> {
        violations(circuit, self.live(), budget)
    }
}
