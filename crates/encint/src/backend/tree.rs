//! The tree backend: runs circuits with bivariate tree LUTs
//! ([`Node::Tree`](encint_core::circuit::Node::Tree), the `LUTeval`
//! of D. Trama, P.-E. Clet, A. Boudguiga and R. Sirdey, *Designing a General-Purpose 8-bit
//! (T)FHE Processor Abstraction*) as well as plain LUTs and linear nodes, on TFHE ciphertexts.
//!
//! Each level runs in two parallel batches on the current rayon pool (the shared unit runner
//! of `units.rs`), following the level's [`encint_core::circuit::LevelGroups`] (the grouping
//! the cost model counts):
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

use encint_core::circuit::{Circuit, NodeId, Plan, PlannedLevel, TREE_QWEIGHT};
use encint_core::exec::{self, Backend, Output, Values};
use encint_tfhe::{Digit, ServerKey, TreeKey};

use super::digit::{cpu_digit_ops, within_budget};
use super::units::run_level;
use crate::{Error, Result};

/// The tree backend: the digit backend's keys plus the tree key.
#[derive(Debug, Clone, Copy)]
pub struct TreeBackend<'a> {
    /// The server key (plain and half-step bootstraps, keyswitches).
    pub server: &'a ServerKey,
    /// The tree key (multi-value first levels, packing keyswitches, second levels).
    pub tree: &'a TreeKey,
}

impl Backend for TreeBackend<'_> {
    type Value = Digit;
    type Error = Error;

    fn check(&self, _circuit: &Circuit, _plan: &Plan) -> Result<()> {
        if self.tree.key_set() != self.server.key_set() {
            return Err(Error::TreeKeyMismatch {
                server: self.server.key_set(),
                tree: self.tree.key_set(),
            });
        }
        Ok(())
    }

    cpu_digit_ops!(|self, circuit, level, values| {
        run_level(self.server, Some(self.tree), circuit, level, values)
    });
}

// The weight charged to a tree output covers the second level's measured noise.
const _: () = assert!(TREE_QWEIGHT as f64 >= encint_tfhe::SECOND_LEVEL_QWEIGHT_BOUND);

/// Checks that `circuit` can run on the tree executor within the key's noise budget.
pub fn check_tree_circuit(server: &ServerKey, circuit: &Circuit) -> Result<()> {
    within_budget(server, circuit, &circuit.plan())
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
