//! Watching the circuits a thread runs: [`watching`] runs a closure with a [`Watch`] that
//! every circuit a [`Server`](crate::Server) runs for that thread reports to (its start
//! with the plan, then each level of bootstraps), whatever API started it: the exact
//! integers' operations, the typed family's operators and array calls, compiled
//! functions ([`Server::eval`](crate::Server::eval), [`Server::run_circuit`](crate::Server::run_circuit)
//! and their `_on` forms on other backends). The watch may stop a run at a level
//! boundary with an error, which the operation returns. The Python package reports
//! progress and checks for Ctrl-C this way.
//!
//! A server on the GPU ([`BackendKind::Gpu`](crate::BackendKind::Gpu)) runs each
//! circuit on the device in one call: its runs are not watched.
//!
//! ```
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use std::sync::Arc;
//! use encint::circuit::{Circuit, Plan, PlannedLevel};
//! use encint::fhe::{set_server_key, FheUint8};
//! use encint::watch::{watching, Watch};
//! use encint::{ClientKey, CoreError, DEFAULT_PARAMETERS};
//!
//! /// Counts the bootstraps done.
//! #[derive(Default)]
//! struct Count(AtomicU64);
//! impl Watch for Count {
//!     fn start(&self, _: &Circuit, _: &Plan) -> Result<(), CoreError> {
//!         Ok(())
//!     }
//!     fn level_done(&self, level: &PlannedLevel) -> Result<(), CoreError> {
//!         self.0.fetch_add(level.level.bootstraps.len() as u64, Ordering::Relaxed);
//!         Ok(())
//!     }
//! }
//!
//! let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
//! set_server_key(server_key);
//! let (a, b) = (FheUint8::encrypt(200u8, &client)?, FheUint8::encrypt(100u8, &client)?);
//! let count = Arc::new(Count::default());
//! let sum = watching(count.clone(), || a.try_binary(encint::Op::Add, &b))?;
//! assert_eq!(sum.decrypt::<u8>(&client)?, 44);
//! assert!(count.0.load(Ordering::Relaxed) > 0);
//! # Ok::<(), encint::Error>(())
//! ```

use std::cell::RefCell;
use std::sync::Arc;

use encint_core::circuit::{Circuit, Plan};
use encint_core::exec::{self, Backend};
pub use encint_core::exec::{Watch, Watched};

/// A watch that the thread running a circuit shares (a server with its own pool runs on
/// another thread).
pub type SharedWatch = Arc<dyn Watch + Send>;

thread_local! {
    static CURRENT: RefCell<Option<SharedWatch>> = const { RefCell::new(None) };
}

/// Runs `f` with `watch` told about every circuit a server runs for this thread (see
/// the module docs); the watch set before, if any, is back when `f` returns or panics.
/// A watch's error ends the run at that level boundary: the operation returns it.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use encint::circuit::{Circuit, Plan, PlannedLevel};
/// use encint::fhe::{set_server_key, FheUint8};
/// use encint::watch::{watching, Watch};
/// use encint::{ClientKey, CoreError, DEFAULT_PARAMETERS};
///
/// /// Stops every run after its first level.
/// struct Stop;
/// impl Watch for Stop {
///     fn start(&self, _: &Circuit, _: &Plan) -> Result<(), CoreError> {
///         Ok(())
///     }
///     fn level_done(&self, _: &PlannedLevel) -> Result<(), CoreError> {
///         Err(CoreError::Stopped("enough".into()))
///     }
/// }
///
/// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
/// set_server_key(server_key);
/// let a = FheUint8::encrypt(200u8, &client)?;
/// assert!(watching(Arc::new(Stop), || a.try_binary(encint::Op::Mul, &a)).is_err());
/// // Outside the call, nothing watches: the same product runs.
/// let p = a.try_binary(encint::Op::Mul, &a)?;
/// assert_eq!(p.decrypt::<u8>(&client)?, 200u8.wrapping_mul(200));
/// # Ok::<(), encint::Error>(())
/// ```
pub fn watching<R>(watch: SharedWatch, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<SharedWatch>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = before);
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.borrow_mut().replace(watch)));
    f()
}

/// The watch of this thread, if a [`watching`] call is running.
pub(crate) fn current() -> Option<SharedWatch> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Runs `circuit` on `backend` (see [`exec::run`]), watched by `watch` if there is one.
pub(crate) fn run<B: Backend>(
    backend: &B,
    circuit: &Circuit,
    plan: &Plan,
    inputs: &[&B::Value],
    watch: Option<&dyn Watch>,
) -> Result<Vec<B::Value>, B::Error> {
    match watch {
        Some(w) => exec::run(&Watched::new(backend, w), circuit, plan, inputs),
        None => exec::run(backend, circuit, plan, inputs),
    }
}
