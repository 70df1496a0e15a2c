//! The circuit IR: a DAG over encrypted 5-bit digits.
//!
//! Algorithms never touch ciphertexts: they call a [`Builder`], which records
//! [`Node`]s. Executors (backends of the level walker in [`crate::exec`]: the clear one
//! in [`crate::clear`], the TFHE ones in `encint`) run the finished [`Circuit`] level
//! by level, following its [`Plan`]: all bootstraps of one level are independent.
//!
//! Every node knows its *bootstrap depth* (consecutive bootstraps from the inputs) and its
//! *quadratic weight* (Klemsa and Önen, "Parmesan: Parallel ARithMETicS over ENcrypted
//! data", §2.2.1): fresh digits (inputs, bootstrap outputs) have weight 1, constants 0, and
//! a linear combination `Σ w_i c_i` has `Σ w_i² q(c_i)`, assuming independent noises. A
//! LUT's input weight bounds the noise a bootstrap must tolerate; parameter sets declare
//! their budget.
//!
//! One idea per file: [`Node`] kinds (`node.rs`), the finished [`Circuit`]
//! (`graph.rs`), the [`Builder`] (`builder.rs`), the schedule and [`Plan`]
//! (`schedule.rs`), the grouping of a level into blind rotations ([`LevelGroups`],
//! `grouping.rs`), the [`Cost`] model (`cost.rs`) and the noise-budget check
//! (`budget.rs`).

mod budget;
mod builder;
mod cost;
mod graph;
mod grouping;
mod node;
mod pack;
mod schedule;
#[cfg(test)]
mod tests;

/// Default largest circuit built or run on encrypted values, in nodes (about 2·10⁶: a
/// 512 × 512-digit product has 0.63·10⁶ nodes; each node costs a few hundred bytes while
/// building). Builders that take untrusted programs stop at it.
pub const DEFAULT_MAX_NODES: u64 = 1 << 21;

pub use budget::BudgetViolation;
pub use builder::{Builder, Checkpoint};
pub use cost::Cost;
pub use graph::Circuit;
pub(crate) use graph::Info;
pub use grouping::{FirstLevelGroup, LevelGroups};
pub use node::{half_eval, in_window, many_lut_fits, many_lut_packing, Node, NodeId, TREE_QWEIGHT};
pub use schedule::{Level, Plan, PlannedLevel};
