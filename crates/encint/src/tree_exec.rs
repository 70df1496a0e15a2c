//! The tree backend: runs circuits with bivariate tree LUTs ([`Node::Tree`], seed 004's
//! `LUTeval`) as well as plain LUTs and linear nodes, on TFHE ciphertexts.
//!
//! Each level runs in two parallel batches on the current rayon pool, following the
//! level's [`encint_core::circuit::LevelGroups`] (the grouping the cost model counts):
//!
//! 1. *First levels*: for every input `x` of the level that feeds a tree (as `hi`) or two or
//!    more LUTs, one multi-value blind rotation ([`TreeKey::first_level`]) yields all those
//!    LUTs of `x` and one packed accumulator per distinct tree table on `x` (`MVLUTeval`);
//!    a lone LUT of an input is one plain [`ServerKey::bootstrap`] (cheaper: default key).
//! 2. *Second levels*: one blind rotation of each tree's accumulator by its `lo`.
//!
//! Noise: every rotation input obeys the parameter set's quadratic-weight budget (checked
//! before anything runs), a first-level LUT output is charged weight 1 (its variance is at
//! most [`encint_tfhe::FIRST_LEVEL_QWEIGHT_BOUND`] of a fresh bootstrap's) and a tree output
//! [`encint_core::circuit::TREE_QWEIGHT`] (≥ [`encint_tfhe::SECOND_LEVEL_QWEIGHT_BOUND`]), so
//! each blind rotation fails with probability at most 2^-129.6.

use std::collections::HashMap;

use encint_core::circuit::{Circuit, Node, NodeId, Plan, PlannedLevel, TREE_QWEIGHT};
use encint_core::exec::{self, Backend, Output, Values};
use encint_tfhe::{Accumulator, Digit, NegacyclicLut, ServerKey, Table256, TreeKey};

use crate::executor::{find_live, lut_jobs, pairs, within_budget, DigitBackend};
use crate::{Error, Result};

/// The tree backend: the digit backend's keys plus the tree key.
#[derive(Debug, Clone, Copy)]
pub struct TreeBackend<'a> {
    /// The server key (plain and half-step bootstraps, keyswitches).
    pub server: &'a ServerKey,
    /// The tree key (multi-value first levels, packing keyswitches, second levels).
    pub tree: &'a TreeKey,
}

fn to_table(t: &encint_core::lut::Table256) -> Table256 {
    Table256(t.entries)
}

impl Backend for TreeBackend<'_> {
    type Value = Digit;
    type Error = Error;

    fn check(&self, circuit: &Circuit, plan: &Plan) -> Result<()> {
        if self.tree.key_set() != self.server.key_set() {
            return Err(Error::TreeKeyMismatch {
                server: self.server.key_set(),
                tree: self.tree.key_set(),
            });
        }
        refuse_tree_kinds(circuit, plan)
    }

    fn budget(&self) -> Option<u64> {
        Some(self.server.params().max_quadratic_weight())
    }

    fn constant(&self, value: i64) -> Digit {
        DigitBackend {
            server: self.server,
        }
        .constant(value)
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
        let groups = &level.groups;
        let (multi, plain): (Vec<_>, Vec<_>) =
            groups.first.iter().partition(|g| g.is_multi_value());
        // First levels (multi-value) and plain bootstraps, in one parallel step.
        let multi_singles: Vec<Vec<NegacyclicLut>> =
            multi.iter().map(|g| lut_jobs(circuit, &g.luts).0).collect();
        let multi_tables: Vec<Vec<Table256>> = multi
            .iter()
            .map(|g| {
                g.tables
                    .iter()
                    .map(|&t| to_table(circuit.table(t)))
                    .collect()
            })
            .collect();
        let multi_table_refs: Vec<Vec<&Table256>> =
            multi_tables.iter().map(|ts| ts.iter().collect()).collect();
        let first_jobs: Vec<(&Digit, &[NegacyclicLut], &[&Table256])> = multi
            .iter()
            .enumerate()
            .map(|(k, g)| {
                (
                    values.get(g.input),
                    multi_singles[k].as_slice(),
                    multi_table_refs[k].as_slice(),
                )
            })
            .collect();
        let plain_ids: Vec<NodeId> = plain.iter().map(|g| g.luts[0]).collect();
        let (plain_luts, plain_inputs) = lut_jobs(circuit, &plain_ids);
        let (half_luts, half_inputs) = lut_jobs(circuit, &groups.halves);
        let plain_jobs = pairs(&plain_luts, &plain_inputs, values);
        let half_jobs = pairs(&half_luts, &half_inputs, values);
        let (first, (singles, half_outs)) = rayon::join(
            || self.tree.first_level_batch(self.server, &first_jobs),
            || {
                rayon::join(
                    || self.server.try_bootstrap_batch(&plain_jobs),
                    || self.server.try_bootstrap_half_batch(&half_jobs),
                )
            },
        );
        let (first, singles, half_outs) = (first?, singles?, half_outs?);
        let mut out: Vec<(NodeId, Output<Digit>)> = Vec::new();
        out.extend(
            groups
                .halves
                .iter()
                .copied()
                .zip(half_outs.into_iter().map(Output::One)),
        );
        out.extend(
            plain_ids
                .into_iter()
                .zip(singles.into_iter().map(Output::One)),
        );
        let mut accs: HashMap<(NodeId, u32), Accumulator> = HashMap::new();
        for (g, (outs, acc)) in multi.iter().zip(first) {
            out.extend(
                g.luts
                    .iter()
                    .copied()
                    .zip(outs.into_iter().map(Output::One)),
            );
            for (&t, a) in g.tables.iter().zip(acc) {
                accs.insert((g.input, t), a);
            }
        }
        // Second levels.
        let second_jobs: Vec<(&Accumulator, &Digit)> = groups
            .trees
            .iter()
            .map(|&id| match circuit.node(id) {
                Node::Tree { hi, lo, table } => (&accs[&(*hi, *table)], values.get(*lo)),
                _ => unreachable!("only tree nodes are in the tree list"),
            })
            .collect();
        let outs = self.tree.second_level_batch(self.server, &second_jobs)?;
        out.extend(
            groups
                .trees
                .iter()
                .copied()
                .zip(outs.into_iter().map(Output::One)),
        );
        Ok(out)
    }
}

/// Refuses the node kinds the tree backend does not run (many-LUT nodes).
fn refuse_tree_kinds(circuit: &Circuit, plan: &Plan) -> Result<()> {
    const _: () = assert!(TREE_QWEIGHT as f64 >= encint_tfhe::SECOND_LEVEL_QWEIGHT_BOUND);
    match find_live(circuit, plan.live(), |n| matches!(n, Node::ManyLut { .. })) {
        Some(id) => Err(Error::NoiseBudget(format!(
            "many-LUT node {}: not supported by the tree executor",
            id.0
        ))),
        None => Ok(()),
    }
}

/// Checks that `circuit` can run on the tree executor within the key's noise budget.
pub fn check_tree_circuit(server: &ServerKey, circuit: &Circuit) -> Result<()> {
    let plan = circuit.plan();
    refuse_tree_kinds(circuit, &plan)?;
    within_budget(server, circuit, &plan)
}

/// Runs `circuit` (with tree LUTs) on `inputs`, one digit per circuit input. A tree key
/// of another key set than the server key's is refused ([`Error::TreeKeyMismatch`]).
pub fn run_tree(
    server: &ServerKey,
    tree: &TreeKey,
    circuit: &Circuit,
    inputs: &[&Digit],
) -> Result<Vec<Digit>> {
    exec::run(
        &TreeBackend { server, tree },
        circuit,
        &circuit.plan(),
        inputs,
    )
}
