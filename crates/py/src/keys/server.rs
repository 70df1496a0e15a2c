//! `ServerKey`: the public evaluation key.

use std::sync::Arc;

use encint::io::files::Mode;
use encint::keys::envelope::Kind;
use encint::Server;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::envelope::seal;
use crate::errors::envelope_err;
use crate::guard::detached;
use crate::key_sets::remember_params;
use crate::methods::{py_methods, reduce};

/// The public evaluation key (bootstrapping and keyswitching keys, ~90 MB): give it to
/// the server; it cannot decrypt. Activate it with `encint.set_server_key`.
#[pyclass(module = "encint._encint", frozen)]
pub struct ServerKey {
    /// `None` in clear mode.
    pub(crate) server: Option<Arc<Server>>,
}

py_methods! {
    impl ServerKey {
        getters(this) {
            /// Whether this is the clear-mode server key.
            is_clear: bool = this.server.is_none();
            /// The key-set identifier (hex).
            key_set: String = super::key_set_name(this.server.as_ref().map(|s| s.key().key_set()));
            /// The machine profile this key's server plans for (`planned_for`), or None: its
            /// own threads.
            machine: Option<String> = this.server.as_ref().and_then(|s| s.machine().map(|m| m.name.clone()));
        }

        key_file(Kind::ServerKey, Mode::Public) {
            /// Saves the key to a new file (`overwrite=True` replaces a file).
        }

        /// The same key on a server that plans its circuits for the machine profile
        /// `machine` (`"cpu:N"`, `"h100"`, `"h200"`, `"calibrated"` or a profile file; see
        /// `encint.machine_profile`): each operation takes the circuit of least estimated
        /// time there. Results are the same; bootstraps still run on this process's threads.
        fn planned_for(&self, machine: &str) -> PyResult<ServerKey> {
            let m = encint::machine::profile(machine).map_err(crate::errors::to_py)?;
            let Some(old) = &self.server else {
                // Clear mode plans nothing on keys: the profile is checked, the key stays.
                return Ok(ServerKey { server: None });
            };
            let mut server = Server::new(old.key().clone());
            server.set_max_nodes(old.max_nodes());
            server.set_machine(m);
            Ok(ServerKey {
                server: Some(Arc::new(server)),
            })
        }

        /// The key in a checked envelope (kind ServerKey).
        fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
            let key = self.server.as_ref().map(|s| (s.key(), s.key().params()));
            seal(py, Kind::ServerKey, key)
        }

        /// Reads a key written by `to_bytes`, or a compressed one (`encint keygen
        /// --compressed`: its masks are regenerated from their seeds); checks magic, kind,
        /// version, parameters.
        #[staticmethod]
        fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<ServerKey> {
            let key = detached(py, || {
                encint::keys::open_server_key(&data).map_err(envelope_err)
            })?;
            remember_params(key.key_set(), key.params());
            Ok(ServerKey {
                server: Some(Arc::new(Server::new(key))),
            })
        }

        fn __reduce__(&self, py: Python<'_>) -> PyResult<(PyObject, PyObject)> {
            reduce::<ServerKey>(py, "from_bytes", (self.to_bytes(py)?,))
        }

        fn __repr__(&self) -> String {
            format!("ServerKey(key_set={})", self.key_set())
        }
    }
}
