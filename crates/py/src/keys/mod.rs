//! `ClientKey`, `ServerKey`, `set_server_key`: keys in checked envelopes (bytes, files,
//! pickling) and the process-wide server that encrypted operators use.
//!
//! - `client`: `ClientKey`; `server`: `ServerKey`; `public`: `PublicKey`; `packing`:
//!   `PackingKey`; `envelope`: their envelopes.

mod client;
mod envelope;
mod packing;
mod public;
mod server;

use pyo3::prelude::*;

use crate::errors::{invalid, to_py};
use crate::key_sets::set_server;

pub use client::ClientKey;
pub use packing::PackingKey;
pub use public::PublicKey;
pub use server::ServerKey;

/// A key's `key_set` property: the key-set identifier (hex), `"clear"` for a clear-mode key.
fn key_set_name(id: Option<impl std::fmt::Display>) -> String {
    id.map_or_else(|| "clear".into(), |id| id.to_string())
}

/// Sets the server key that operators on encrypted values use (process-wide; `None`
/// unsets it). A clear-mode key unsets it too: clear values need no server key.
#[pyfunction]
#[pyo3(signature = (key))]
fn set_server_key(key: Option<PyRef<'_, ServerKey>>) {
    set_server(key.and_then(|k| k.server.clone()));
}

/// Sets how many threads the encrypted operations use (the global pool; call it once,
/// before the first operation). Errors if the pool is already running.
#[pyfunction]
fn set_threads(threads: usize) -> PyResult<()> {
    encint::check_threads(threads).map_err(to_py)?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .map_err(|e| invalid(format!("thread pool: {e}")))
}

/// Adds the key classes, `set_server_key` and `set_threads` to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ClientKey>()?;
    m.add_class::<ServerKey>()?;
    m.add_class::<PublicKey>()?;
    m.add_class::<PackingKey>()?;
    m.add_function(wrap_pyfunction!(set_server_key, m)?)?;
    m.add_function(wrap_pyfunction!(set_threads, m)?)?;
    Ok(())
}
