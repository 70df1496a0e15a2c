//! The TFHE digit backend: runs a [`Circuit`] on encrypted digits on this process.
//!
//! Before anything runs, the walker of [`encint_core::exec`] checks every bootstrap
//! input's quadratic weight against the parameter set's budget; a violation is an error
//! naming the node and the operation that built it. Then the circuit runs level by level
//! ([`Circuit::plan`]): each level's bootstraps as one batch on the current rayon pool (the
//! shared unit runner of `units.rs`), then the level's linear nodes; values are freed after
//! their last use.

use encint_core::circuit::{Circuit, Node, NodeId, Plan, PlannedLevel};
use encint_core::exec::{self, Backend, Output, Values};
use encint_tfhe::{Digit, ServerKey};

use super::units::run_level;
pub use super::units::to_tfhe_lut;
use crate::{CoreError, Error, Result, Unsupported};

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

/// The `budget`, `constant` and `linear` methods of a [`Backend`] over CPU digits whose
/// `self.server` is the server key: its noise budget, trivial digits, [`Digit::linear`].
/// Given `|self, circuit, level, values| body`, also `bootstrap_level` with that body.
macro_rules! cpu_digit_ops {
    (|$self:ident, $circuit:ident, $level:ident, $values:ident| $body:expr) => {
        cpu_digit_ops!();

        fn bootstrap_level(
            &$self,
            $circuit: &Circuit,
            $level: &PlannedLevel,
            $values: &Values<Digit>,
        ) -> Result<Vec<(NodeId, Output<Digit>)>> {
            $body
        }
    };
    () => {
        fn budget(&self) -> Option<u64> {
            Some(self.server.params().max_quadratic_weight())
        }

        fn constant(&self, value: i64) -> Digit {
            Digit::trivial(value, self.server.params())
        }

        fn linear(&self, terms: &[(&Digit, i64)], constant: i64) -> Result<Digit> {
            Ok(Digit::linear(terms, constant)?)
        }
    };
}
pub(crate) use cpu_digit_ops;

/// The digit backend: plain and half-step bootstraps, one batch each per level.
///
/// Many-LUT nodes are refused: with the default parameters the modulus switch alone
/// makes a 2-table blind rotation fail about once in 2^32 calls even on a fresh input
/// (measured in `encint-tfhe`'s noise test), far above 2^-128. Tree nodes run on
/// [`TreeBackend`](super::tree::TreeBackend).
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

    cpu_digit_ops!(|self, circuit, level, values| {
        run_level(self.server, None, circuit, level, values)
    });
}

/// Refuses the node kinds the digit backend does not run (tree nodes).
fn refuse_digit_kinds(circuit: &Circuit, plan: &Plan) -> Result<()> {
    if let Some(id) = find_live(circuit, plan.live(), |n| matches!(n, Node::Tree { .. })) {
        return Err(Unsupported::TreeNodeOnDigitBackend { node: id.0 }.into());
    }
    Ok(())
}

/// Errors with the first live bootstrap over the key's noise budget.
pub(crate) fn within_budget(server: &ServerKey, circuit: &Circuit, plan: &Plan) -> Result<()> {
    match plan
        .budget_violations(circuit, server.params().max_quadratic_weight())
        .into_iter()
        .next()
    {
        Some(v) => Err(CoreError::NoiseBudget(v).into()),
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
    run_planned_watched(server, circuit, plan, inputs, None)
}

/// [`run_planned`], watched by `watch` if given (see [`crate::watch`]): told about the
/// plan the circuit runs on, the list schedule where that is the one chosen.
pub(crate) fn run_planned_watched(
    server: &ServerKey,
    circuit: &Circuit,
    plan: &Plan,
    inputs: &[&Digit],
    watch: Option<&dyn exec::Watch>,
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
    crate::watch::run(&DigitBackend { server }, circuit, plan, inputs, watch)
}
