//! Progress of long operations: a [`Backend`] wrapper that reports each level's
//! bootstraps to a Python bar (tqdm by default, see `python/encint/_progress.py`) while
//! the circuit runs without the GIL.
//!
//! The level walker of `encint::circuit::exec` calls [`Backend::check`] once before anything
//! runs and [`Backend::bootstrap_level`] once per level with bootstraps. When the circuit
//! has at least the hook's `min_bootstraps` bootstraps, the wrapper takes the GIL at those
//! points only: in `check` to create the bar (`factory(description, total_bootstraps)`,
//! which may return `None`), after each level to run Python's signal handlers (Ctrl-C
//! stops the run at the next level boundary) and call `bar.update(level_bootstraps)`, and
//! at the end to call `bar.close()`. Smaller circuits never touch the GIL. An exception
//! raised by the factory, the bar or a signal handler stops the run and is raised by the
//! operation.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use encint::circuit::exec::{Backend, Output, Values};
use encint::circuit::{Circuit, NodeId, Plan, PlannedLevel};
use encint::CoreError;
use pyo3::prelude::*;

use crate::errors::invalid;
use crate::guard::detached;

/// The bar factory set by `encint.set_progress`, and the smallest circuit (in bootstraps)
/// that gets a bar.
pub struct Hook {
    factory: Py<PyAny>,
    min_bootstraps: u64,
}

static HOOK: Mutex<Option<Arc<Hook>>> = Mutex::new(None);

/// The current hook, if progress is on.
pub fn hook() -> Option<Arc<Hook>> {
    HOOK.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Sets the bar factory (`None`: no progress reporting) and the smallest circuit, in
/// bootstraps, that gets a bar (internal: `encint.set_progress` calls it).
#[pyfunction]
#[pyo3(signature = (factory, min_bootstraps))]
fn _set_progress(factory: Option<Py<PyAny>>, min_bootstraps: u64) {
    let mut h = HOOK.lock().unwrap_or_else(|p| p.into_inner());
    *h = factory.map(|factory| {
        Arc::new(Hook {
            factory,
            min_bootstraps,
        })
    });
}

/// The message of the placeholder error that stops a run whose bar raised.
const STOPPED: &str = "stopped by a Python exception at a level boundary";

/// A backend that reports its progress to the hook's bar (see the module docs).
pub struct Progress<B> {
    inner: B,
    hook: Option<Arc<Hook>>,
    description: String,
    /// Whether the circuit is large enough to report (set by `check`).
    active: RefCell<bool>,
    bar: RefCell<Option<Py<PyAny>>>,
    error: RefCell<Option<PyErr>>,
}

impl<B: Backend> Progress<B> {
    /// Wraps `inner`; `description` names the operation on the bar.
    pub fn new(inner: B, description: impl Into<String>) -> Self {
        Progress {
            inner,
            hook: hook(),
            description: description.into(),
            active: RefCell::new(false),
            bar: RefCell::new(None),
            error: RefCell::new(None),
        }
    }

    /// Runs `f` with the GIL; a Python error is kept (and raised by [`Progress::finish`])
    /// and stops the run.
    fn with_gil(&self, f: impl FnOnce(Python<'_>) -> PyResult<()>) -> Result<(), B::Error> {
        match Python::with_gil(f) {
            Ok(()) => Ok(()),
            Err(e) => {
                *self.error.borrow_mut() = Some(e);
                Err(CoreError::InvalidArgument(STOPPED.into()).into())
            }
        }
    }

    /// Closes the bar (if any) and returns `result`, or the Python exception that stopped
    /// the run. Call it with the GIL released (it takes it only when there is a bar).
    pub fn finish<T, E>(
        self,
        result: Result<T, E>,
        convert: impl FnOnce(E) -> PyErr,
    ) -> PyResult<T> {
        if let Some(bar) = self.bar.into_inner() {
            Python::with_gil(|py| {
                if let Err(e) = bar.call_method0(py, "close") {
                    if self.error.borrow().is_none() {
                        *self.error.borrow_mut() = Some(e);
                    }
                }
                drop(bar);
            });
        }
        if let Some(e) = self.error.into_inner() {
            return Err(e);
        }
        result.map_err(convert)
    }
}

impl<B: Backend> Backend for Progress<B> {
    type Value = B::Value;
    type Error = B::Error;

    fn check(&self, circuit: &Circuit, plan: &Plan) -> Result<(), B::Error> {
        self.inner.check(circuit, plan)?;
        let Some(hook) = &self.hook else {
            return Ok(());
        };
        let total: u64 = plan
            .levels()
            .iter()
            .map(|l| l.level.bootstraps.len() as u64)
            .sum();
        if total == 0 || total < hook.min_bootstraps {
            return Ok(());
        }
        *self.active.borrow_mut() = true;
        self.with_gil(|py| {
            let bar = hook.factory.call1(py, (self.description.as_str(), total))?;
            if !bar.is_none(py) {
                *self.bar.borrow_mut() = Some(bar);
            }
            Ok(())
        })
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
        values: &Values<B::Value>,
    ) -> Result<Vec<(NodeId, Output<B::Value>)>, B::Error> {
        let out = self.inner.bootstrap_level(circuit, level, values)?;
        if *self.active.borrow() {
            let done = level.level.bootstraps.len();
            let bar = self.bar.borrow();
            self.with_gil(|py| {
                py.check_signals()?;
                if let Some(bar) = bar.as_ref() {
                    bar.call_method1(py, "update", (done,))?;
                }
                Ok(())
            })?;
        }
        Ok(out)
    }
}

/// [`steps`] with a single step: its result (a bar of one step, e.g. key generation).
pub fn one_step<T: Send>(
    py: Python<'_>,
    description: &str,
    f: impl FnOnce() -> PyResult<T> + Send,
) -> PyResult<T> {
    let mut f = Some(f);
    let mut out = steps(py, description, 1, |_| match f.take() {
        Some(f) => f(),
        None => Err(invalid("a one-step task ran twice")),
    })?;
    out.pop()
        .ok_or_else(|| invalid("a one-step task gave no result"))
}

/// A bar over `steps` steps for work that has no levels (key generation): `f(step)` runs
/// each step without the GIL; the bar (if the hook gives one) advances after each step.
pub fn steps<T: Send>(
    py: Python<'_>,
    description: &str,
    steps: usize,
    mut f: impl FnMut(usize) -> PyResult<T> + Send,
) -> PyResult<Vec<T>> {
    let bar = match hook() {
        Some(h) => {
            let bar = h.factory.call1(py, (description, steps))?;
            (!bar.is_none(py)).then_some(bar)
        }
        None => None,
    };
    let mut out = Vec::with_capacity(steps);
    let mut result = Ok(());
    for step in 0..steps {
        match detached(py, || f(step)) {
            Ok(v) => out.push(v),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
        if let Some(bar) = &bar {
            if let Err(e) = bar.call_method1(py, "update", (1,)) {
                result = Err(e);
                break;
            }
        }
    }
    if let Some(bar) = bar {
        let closed = bar.call_method0(py, "close");
        result = result.and(closed.map(|_| ()));
    }
    result.map(|()| out)
}

/// Adds `_set_progress` to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_set_progress, m)?)?;
    Ok(())
}
