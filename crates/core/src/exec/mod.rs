//! The executor layer: one level walker for every backend.
//!
//! [`run`] takes a [`Circuit`] and its [`Plan`] (schedule, liveness and grouping,
//! computed once), checks what the backend supports and its noise budget once, and then
//! walks the levels: it hands each level's bootstraps to the [`Backend`] as one batch,
//! evaluates the level's inputs, constants, linear nodes and many-LUT extracts through
//! the backend, and frees every value after its last use. Backends only say how to
//! bootstrap a level and how to combine values linearly. Those there are: the clear
//! backend ([`crate::clear`]) here, and in `encint` the TFHE digit and tree-LUT backends on
//! the CPU, the GPU backend (feature `gpu`: each level's bootstraps as one batch on an
//! NVIDIA device, values kept in device memory) and the MPI backend (feature `mpi`: rank 0
//! walks the levels and spreads each level's bootstraps over the ranks of the job, digit
//! and tree circuits alike). Bit circuits ([`crate::bits`]) reach the walker lowered to
//! digit circuits; encint's bit-sliced FV executor walks levels of its own (multiplicative
//! depth, not bootstrap rounds). A [`Watch`] on any backend ([`Watched`]) is told about the
//! run's start and each level, and may stop it there.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::circuit::{Circuit, Node, NodeId, Plan, PlannedLevel};
use crate::CoreError;

pub mod clear;
#[cfg(test)]
mod tests;
mod watch;

pub use watch::{Watch, Watched};

/// The values computed so far, indexed by node; freed ones are gone. The circuit's
/// inputs are borrowed from the caller, not copied.
#[derive(Debug)]
pub struct Values<'a, V: Clone> {
    slots: Vec<Option<Cow<'a, V>>>,
}

impl<V: Clone> Values<'_, V> {
    /// The value of a node computed in an earlier level (or earlier in this level).
    ///
    /// # Panics
    /// If the node has not been computed or was freed: the plan orders every operand
    /// before its readers and frees it only after its last reader, so a backend that
    /// reads the operands of the level it was given never sees this.
    pub fn get(&self, id: NodeId) -> &V {
        self.slots[id.index()]
            .as_deref()
            .expect("the plan computes every operand first and frees it after its last use")
    }

    /// How many values are held now.
    pub fn held(&self) -> usize {
        self.slots.iter().filter(|v| v.is_some()).count()
    }
}

/// What a backend returns for one bootstrap node.
#[derive(Debug, Clone)]
pub enum Output<V> {
    /// The value of a single-output bootstrap (LUT, half-step LUT, tree).
    One(V),
    /// The outputs of a [`Node::ManyLut`], read by its [`Node::Extract`] nodes.
    Many(Vec<V>),
}

/// The outputs of one level's bootstraps: each bootstrap node with its output.
pub type LevelOutputs<V> = Vec<(NodeId, Output<V>)>;

/// A way of running circuits: clear values, TFHE digits, TFHE trees, ...
pub trait Backend {
    /// The value of one node (a clear digit, a ciphertext).
    type Value: Clone;
    /// The backend's error; the walker's own errors ([`CoreError::InputCount`],
    /// [`CoreError::NoiseBudget`]) convert into it.
    type Error: From<CoreError>;

    /// Refuses circuits with node kinds the backend cannot run (called once, before
    /// anything runs). The default accepts everything.
    fn check(&self, _circuit: &Circuit, _plan: &Plan) -> Result<(), Self::Error> {
        Ok(())
    }

    /// The largest quadratic weight a bootstrap input may have (`None`: no noise).
    fn budget(&self) -> Option<u64>;

    /// A known digit (a trivial ciphertext).
    fn constant(&self, value: i64) -> Self::Value;

    /// `Σ weight · value + constant`.
    fn linear(
        &self,
        terms: &[(&Self::Value, i64)],
        constant: i64,
    ) -> Result<Self::Value, Self::Error>;

    /// Runs every bootstrap of `level` (their operands are in `values`) and returns
    /// each bootstrap node with its output.
    fn bootstrap_level(
        &self,
        circuit: &Circuit,
        level: &PlannedLevel,
        values: &Values<'_, Self::Value>,
    ) -> Result<LevelOutputs<Self::Value>, Self::Error>;
}

/// Runs `circuit` on `backend` following `plan` (which must be `circuit.plan()`), with
/// one value per circuit input, and returns the outputs.
pub fn run<B: Backend>(
    backend: &B,
    circuit: &Circuit,
    plan: &Plan,
    inputs: &[&B::Value],
) -> Result<Vec<B::Value>, B::Error> {
    if inputs.len() != circuit.inputs().len() {
        return Err(CoreError::InputCount {
            expected: circuit.inputs().len(),
            found: inputs.len(),
        }
        .into());
    }
    if !plan.fits(circuit) {
        return Err(CoreError::InvalidArgument("the plan is of another circuit".into()).into());
    }
    backend.check(circuit, plan)?;
    if let Some(budget) = backend.budget() {
        if let Some(v) = plan.budget_violations(circuit, budget).into_iter().next() {
            return Err(CoreError::NoiseBudget(v).into());
        }
    }
    let mut values = Values {
        slots: (0..circuit.nodes().len()).map(|_| None).collect(),
    };
    for planned in plan.levels() {
        let mut many: HashMap<NodeId, Vec<B::Value>> = HashMap::new();
        if !planned.level.bootstraps.is_empty() {
            for (id, out) in backend.bootstrap_level(circuit, planned, &values)? {
                match out {
                    Output::One(v) => values.slots[id.index()] = Some(Cow::Owned(v)),
                    Output::Many(vs) => {
                        many.insert(id, vs);
                    }
                }
            }
        }
        for &id in &planned.level.others {
            let v = match circuit.node(id) {
                Node::Input { index, .. } => Cow::Borrowed(inputs[*index as usize]),
                Node::Const(c) => Cow::Owned(backend.constant(*c)),
                Node::Linear { terms, constant } => {
                    let t: Vec<(&B::Value, i64)> =
                        terms.iter().map(|&(n, w)| (values.get(n), w)).collect();
                    Cow::Owned(backend.linear(&t, *constant)?)
                }
                Node::Extract { group, index } => many
                    .get(group)
                    .and_then(|outs| outs.get(*index as usize))
                    .cloned()
                    .map(Cow::Owned)
                    .ok_or_else(|| {
                        CoreError::InvalidArgument(format!(
                            "node {}: the backend returned no output {index} of many-LUT node {}",
                            id.0, group.0
                        ))
                    })?,
                Node::Lut { .. }
                | Node::HalfLut { .. }
                | Node::ManyLut { .. }
                | Node::Tree { .. } => {
                    unreachable!("the schedule puts bootstraps in the level's batch")
                }
            };
            values.slots[id.index()] = Some(v);
        }
        for &id in &planned.frees {
            values.slots[id.index()] = None;
        }
    }
    // Each output moves out at its last occurrence (earlier ones are copies); an output
    // that is an input is copied from the caller's.
    let outputs = circuit.outputs();
    let last: HashMap<NodeId, usize> = outputs.iter().enumerate().map(|(k, &o)| (o, k)).collect();
    outputs
        .iter()
        .enumerate()
        .map(|(k, &o)| {
            let slot = &mut values.slots[o.index()];
            let v = if last[&o] == k {
                slot.take()
            } else {
                slot.clone()
            };
            v.map(Cow::into_owned).ok_or_else(|| {
                CoreError::InvalidArgument(format!(
                    "output node {}: no value at the end of the run (the backend returned none)",
                    o.0
                ))
                .into()
            })
        })
        .collect()
}
