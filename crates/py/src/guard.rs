//! Every call into the library runs under [`guard`]: a Rust panic becomes an
//! `encint.Error` instead of aborting the interpreter or raising `PanicException`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::prelude::*;

use crate::errors::Error;

/// Runs library code, turning a panic into an `encint.Error`.
pub fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown".into());
            Err(Error::new_err(format!(
                "internal error (please report): {what}"
            )))
        }
    }
}

/// Runs `f` without the GIL (other Python threads go on) and under [`guard`].
pub fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> PyResult<T> + Send) -> PyResult<T> {
    py.allow_threads(|| guard(f))
}
