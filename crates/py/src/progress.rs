//! Progress of long operations: a [`Watch`] (the facade's `encint::watch`) that reports
//! each level's bootstraps to a Python bar (tqdm by default, see
//! `python/encint/_progress.py`) while circuits run without the GIL.
//!
//! [`Progress::watch`] runs a closure with the progress watching every circuit the
//! thread's server runs (the exact integers' operations, the typed family's operators,
//! array calls and compiled functions alike); [`Watched`] puts it on another backend
//! (the clear executor, the byte processor's trees). The level walker of
//! `encint::circuit::exec` tells it when a circuit starts and after each level with
//! bootstraps. When the circuit has at least the hook's `min_bootstraps` bootstraps, the
//! progress takes the GIL at those points only: at the start to create the bar
//! (`factory(description, total_bootstraps)`, which may return `None`), after each level
//! to run Python's signal handlers (Ctrl-C stops the run at the next level boundary) and
//! call `bar.update(level_bootstraps)`, and when the next circuit starts or at
//! [`Progress::finish`] to call `bar.close()`. Smaller circuits never touch the GIL. An
//! exception raised by the factory, the bar or a signal handler stops the run and is
//! raised by the operation.

use std::sync::{Arc, Mutex, MutexGuard};

use encint::circuit::exec::Watch;
pub use encint::circuit::exec::Watched;
use encint::circuit::{Circuit, Plan, PlannedLevel};
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

/// The message of the error that stops a run whose bar (or a signal handler) raised.
const STOPPED: &str = "a Python exception at a level boundary";

/// What a [`Progress`] holds while circuits run.
#[derive(Default)]
struct State {
    /// Whether the running circuit is large enough to report (set at its start).
    active: bool,
    bar: Option<Py<PyAny>>,
    /// The first Python exception, raised by [`Progress::finish`].
    error: Option<PyErr>,
}

/// Reports the circuits of one operation to the hook's bar (see the module docs).
pub struct Progress {
    hook: Option<Arc<Hook>>,
    description: String,
    state: Mutex<State>,
}

impl Progress {
    /// A progress for an operation; `description` names it on the bar.
    pub fn new(description: impl Into<String>) -> Arc<Progress> {
        Arc::new(Progress {
            hook: hook(),
            description: description.into(),
            state: Mutex::default(),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` (without the GIL) with this progress watching every circuit a server runs
    /// for this thread; then call [`Progress::finish`].
    pub fn watch<T>(self: &Arc<Self>, f: impl FnOnce() -> T) -> T {
        encint::watch::watching(self.clone(), f)
    }

    /// Runs `f` with the GIL; a Python error is kept (and raised by [`Progress::finish`])
    /// and stops the run.
    fn with_gil(
        &self,
        state: &mut State,
        f: impl FnOnce(Python<'_>, &mut State) -> PyResult<()>,
    ) -> Result<(), CoreError> {
        match Python::with_gil(|py| f(py, state)) {
            Ok(()) => Ok(()),
            Err(e) => {
                state.error.get_or_insert(e);
                Err(CoreError::Stopped(STOPPED.into()))
            }
        }
    }

    /// Closes the bar (if any) and returns `result`, or the Python exception that stopped
    /// the run. Call it with the GIL released (it takes it only when there is a bar).
    pub fn finish<T, E>(
        &self,
        result: Result<T, E>,
        convert: impl FnOnce(E) -> PyErr,
    ) -> PyResult<T> {
        let mut state = self.state();
        if let Some(bar) = state.bar.take() {
            Python::with_gil(|py| {
                if let Err(e) = bar.call_method0(py, "close") {
                    state.error.get_or_insert(e);
                }
                drop(bar);
            });
        }
        if let Some(e) = state.error.take() {
            return Err(e);
        }
        result.map_err(convert)
    }
}

impl Watch for Progress {
    fn start(&self, _circuit: &Circuit, plan: &Plan) -> Result<(), CoreError> {
        let mut state = self.state();
        if state.error.is_some() {
            return Err(CoreError::Stopped(STOPPED.into()));
        }
        state.active = false;
        let Some(hook) = &self.hook else {
            return Ok(());
        };
        let total: u64 = plan
            .levels()
            .iter()
            .map(|l| l.level.bootstraps.len() as u64)
            .sum();
        let earlier = state.bar.take();
        if earlier.is_none() && (total == 0 || total < hook.min_bootstraps) {
            return Ok(());
        }
        self.with_gil(&mut state, |py, state| {
            // One bar per circuit: an operation that runs several closes each in turn.
            if let Some(bar) = earlier {
                bar.call_method0(py, "close")?;
            }
            if total == 0 || total < hook.min_bootstraps {
                return Ok(());
            }
            state.active = true;
            let bar = hook.factory.call1(py, (self.description.as_str(), total))?;
            if !bar.is_none(py) {
                state.bar = Some(bar);
            }
            Ok(())
        })
    }

    fn level_done(&self, level: &PlannedLevel) -> Result<(), CoreError> {
        let mut state = self.state();
        if !state.active {
            return Ok(());
        }
        let done = level.level.bootstraps.len();
        self.with_gil(&mut state, |py, state| {
            py.check_signals()?;
            if let Some(bar) = &state.bar {
                bar.call_method1(py, "update", (done,))?;
            }
            Ok(())
        })
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
