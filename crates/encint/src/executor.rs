//! The TFHE digit backend: runs a [`Circuit`] on encrypted digits.
//!
//! Before anything runs, the walker of [`encint_core::exec`] checks every bootstrap
//! input's quadratic weight against the parameter set's budget; a violation is an error
//! naming the node and the operation that built it. Then the circuit runs level by level
//! ([`Circuit::plan`]): each level's bootstraps as one batch on the current rayon pool,
//! then the level's linear nodes; values are freed after their last use.

use encint_core::circuit::{Circuit, Node, NodeId, Plan, PlannedLevel};
use encint_core::exec::{self, Backend, Output, Values};
use encint_tfhe::{Digit, NegacyclicLut, ServerKey};

use crate::{Error, Result};

/// Converts a table of the IR into the crypto layer's table.
pub fn to_tfhe_lut(lut: &encint_core::lut::NegacyclicLut) -> NegacyclicLut {
    NegacyclicLut::new(lut.table.map(i64::from))
}

/// The first live node of a kind the backend refuses, if any.
pub(crate) fn find_live(
    circuit: &Circuit,
    live: &[bool],
    kind: impl Fn(&Node) -> bool,
) -> Option<NodeId> {
    (0..circuit.nodes().len())
        .find(|&i| live[i] && kind(&circuit.nodes()[i]))
        .map(|i| NodeId(i as u32))
}

/// The `(input, table)` batch of the LUT-like nodes `ids` (plain or half-step).
pub(crate) fn lut_jobs(circuit: &Circuit, ids: &[NodeId]) -> (Vec<NegacyclicLut>, Vec<NodeId>) {
    let mut luts = Vec::with_capacity(ids.len());
    let mut inputs = Vec::with_capacity(ids.len());
    for &id in ids {
        if let Node::Lut { input, lut } | Node::HalfLut { input, lut } = circuit.node(id) {
            luts.push(to_tfhe_lut(circuit.lut(*lut)));
            inputs.push(*input);
        }
    }
    (luts, inputs)
}

/// Pairs each table with its selector's value.
pub(crate) fn pairs<'a>(
    luts: &'a [NegacyclicLut],
    inputs: &[NodeId],
    values: &'a Values<Digit>,
) -> Vec<(&'a Digit, &'a NegacyclicLut)> {
    inputs
        .iter()
        .zip(luts)
        .map(|(&x, l)| (values.get(x), l))
        .collect()
}

/// The digit backend: plain and half-step bootstraps, one batch each per level.
///
/// Many-LUT nodes are refused: with the default parameters the modulus switch alone
/// makes a 2-table blind rotation fail about once in 2^32 calls even on a fresh input
/// (measured in `encint-tfhe`'s noise test), far above 2^-128. Tree nodes run on
/// [`crate::tree_exec::TreeBackend`].
#[derive(Debug, Clone, Copy)]
pub struct DigitBackend<'a> {
    /// The server key that bootstraps.
    pub server: &'a ServerKey,
}

impl Backend for DigitBackend<'_> {
    type Value = Digit;
    type Error = Error;

    fn check(&self, circuit: &Circuit, plan: &Plan) -> Result<()> {
        refuse_digit_kinds(circuit, plan)
    }

    fn budget(&self) -> Option<u64> {
        Some(self.server.params().max_quadratic_weight())
    }

    fn constant(&self, value: i64) -> Digit {
        Digit::trivial(value, self.server.params())
    }

    fn linear(&self, terms: &[(&Digit, i64)], constant: i64) -> Result<Digit> {
        Ok(Digit::linear(terms, constant)?)
    }

    fn bootstrap_level(
        &self,
        circuit: &Circuit,
        level: &PlannedLevel,
        values: &Values<Digit>,
    ) -> Result<Vec<(NodeId, Output<Digit>)>> {
        let plain: Vec<NodeId> = level
            .level
            .bootstraps
            .iter()
            .copied()
            .filter(|&id| matches!(circuit.node(id), Node::Lut { .. }))
            .collect();
        let (luts, inputs) = lut_jobs(circuit, &plain);
        let (half_luts, half_inputs) = lut_jobs(circuit, &level.groups.halves);
        let outs = self
            .server
            .try_bootstrap_batch(&pairs(&luts, &inputs, values))?;
        let half_outs =
            self.server
                .try_bootstrap_half_batch(&pairs(&half_luts, &half_inputs, values))?;
        Ok(plain
            .into_iter()
            .zip(outs)
            .chain(level.groups.halves.iter().copied().zip(half_outs))
            .map(|(id, d)| (id, Output::One(d)))
            .collect())
    }
}

/// Refuses the node kinds the digit backend does not run (many-LUT and tree nodes).
fn refuse_digit_kinds(circuit: &Circuit, plan: &Plan) -> Result<()> {
    if let Some(id) = find_live(circuit, plan.live(), |n| matches!(n, Node::ManyLut { .. })) {
        return Err(Error::NoiseBudget(format!(
            "many-LUT node {} of operation `{}`: several tables per blind rotation exceed \
             p-fail 2^-128 with these parameters",
            id.0,
            circuit.label(id)
        )));
    }
    if let Some(id) = find_live(circuit, plan.live(), |n| matches!(n, Node::Tree { .. })) {
        return Err(Error::NoiseBudget(format!(
            "tree LUT node {}: this executor runs digit circuits only (byte-processor \
             circuits run on the tree executor)",
            id.0
        )));
    }
    Ok(())
}

/// Errors with the first live bootstrap over the key's noise budget.
pub(crate) fn within_budget(server: &ServerKey, circuit: &Circuit, plan: &Plan) -> Result<()> {
    match plan
        .budget_violations(circuit, server.params().max_quadratic_weight())
        .first()
    {
        Some(v) => Err(Error::NoiseBudget(v.to_string())),
        None => Ok(()),
    }
}

/// Checks the circuit against the key's noise budget and the node kinds the digit
/// backend runs.
pub fn check_budget(server: &ServerKey, circuit: &Circuit) -> Result<()> {
    let plan = circuit.plan();
    refuse_digit_kinds(circuit, &plan)?;
    within_budget(server, circuit, &plan)
}

/// Runs `circuit` on `inputs` (one digit per circuit input) and returns its outputs.
pub fn run(server: &ServerKey, circuit: &Circuit, inputs: &[&Digit]) -> Result<Vec<Digit>> {
    run_planned(server, circuit, &circuit.plan(), inputs)
}

/// [`run`] with a plan the caller already holds (`circuit.plan()`). On the current
/// rayon pool's `t` threads, the circuit runs on the list schedule of
/// [`Circuit::plan_for_threads`] (levels of at most `t` bootstraps, critical path first)
/// when that takes fewer bootstrap rounds than `plan`'s levels (`Σ ⌈width / t⌉`): narrow
/// stretches, such as carry chains, then leave no thread idle.
pub fn run_planned(
    server: &ServerKey,
    circuit: &Circuit,
    plan: &Plan,
    inputs: &[&Digit],
) -> Result<Vec<Digit>> {
    let threads = rayon::current_num_threads().max(1);
    let rounds: usize = plan
        .levels()
        .iter()
        .map(|l| l.level.bootstraps.len().div_ceil(threads))
        .sum();
    let listed = circuit.plan_for_threads(threads);
    let listed_rounds = listed
        .levels()
        .iter()
        .filter(|l| !l.level.bootstraps.is_empty())
        .count();
    let plan = if listed_rounds < rounds {
        &listed
    } else {
        plan
    };
    exec::run(&DigitBackend { server }, circuit, plan, inputs)
}
