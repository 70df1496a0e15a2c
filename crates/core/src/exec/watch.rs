//! Watching a run level by level: a [`Watch`] is told when a circuit starts (with the
//! plan it runs on) and after each level of bootstraps, and may stop the run there with
//! an error. [`Watched`] puts a watch on any [`Backend`]; the walker calls its methods on
//! the thread that runs [`super::run`], never from inside a level's parallel bootstraps.
//!
//! What it is for: progress reports (a level's bootstraps are the unit of work) and
//! interruption (a front end checks for Ctrl-C at each level boundary) without a second
//! executor.

use std::fmt;

use super::{Backend, LevelOutputs, Values};
use crate::circuit::{Circuit, Plan, PlannedLevel};
use crate::CoreError;

/// Told about a run's start and each of its levels; an error stops the run (the walker
/// returns it, converted into the backend's error).
pub trait Watch: Sync {
    /// Called once before anything runs (after the backend's own checks), with the plan
    /// the circuit runs on: its total bootstraps are the sum over `plan.levels()`.
    fn start(&self, circuit: &Circuit, plan: &Plan) -> Result<(), CoreError>;

    /// Called after each level that has bootstraps, once they are done
    /// (`level.level.bootstraps.len()` of them).
    fn level_done(&self, level: &PlannedLevel) -> Result<(), CoreError>;
}

/// `inner` with `watch` told about every run (see the module docs).
pub struct Watched<'a, B> {
    inner: &'a B,
    watch: &'a dyn Watch,
}

impl<'a, B> Watched<'a, B> {
    /// `inner`, watched by `watch`.
    pub fn new(inner: &'a B, watch: &'a dyn Watch) -> Self {
        Watched { inner, watch }
    }
}

impl<B> fmt::Debug for Watched<'_, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Watched").finish_non_exhaustive()
    }
}

impl<B: Backend> Backend for Watched<'_, B> {
    type Value = B::Value;
    type Error = B::Error;

    fn check(&self, circuit: &Circuit, plan: &Plan) -> Result<(), B::Error> {
        self.inner.check(circuit, plan)?;
        Ok(self.watch.start(circuit, plan)?)
    }

    fn budget(&self) -> Option<u64> {
        self.inner.budget()
    }

    fn constant(&self, value: i64) -> B::Value {
        self.inner.constant(value)
    }

    fn linear(&self, terms: &[(&B::Value, i64)], constant: i64) -> Result<B::Value, B::Error> {
        self.inner.linear(terms, constant)
    }

    fn bootstrap_level(
        &self,
        circuit: &Circuit,
        level: &PlannedLevel,
        values: &Values<'_, B::Value>,
    ) -> Result<LevelOutputs<B::Value>, B::Error> {
        let out = self.inner.bootstrap_level(circuit, level, values)?;
        self.watch.level_done(level)?;
        Ok(out)
    }
}
