//! What the process knows about key sets: the parameter set of each key set it has
//! generated or loaded a key of (so that ciphertext envelopes name the right one), and the
//! server key set by `set_server_key`, which operators on encrypted values use.

use std::sync::{Arc, Mutex};

use encint::keys::{DigitParameters, KeySetId};
use encint::{Server, DEFAULT_PARAMETERS};
use pyo3::prelude::*;

use crate::errors::NoServerKeyError;

static SERVER: Mutex<Option<Arc<Server>>> = Mutex::new(None);

/// The parameter set of each key set this process has generated or loaded a key of.
static PARAMS_OF: Mutex<Vec<(KeySetId, DigitParameters)>> = Mutex::new(Vec::new());

/// Most key sets remembered by [`remember_params`] (a process that loads more labels the
/// ciphertexts of the oldest with the default set again).
const MAX_REMEMBERED: usize = 1024;

/// Records that `key_set` uses `params` (called whenever a key is generated or loaded), so
/// that its ciphertexts' envelopes name the right parameter set.
pub fn remember_params(key_set: KeySetId, params: &DigitParameters) {
    let mut v = PARAMS_OF.lock().unwrap_or_else(|p| p.into_inner());
    if v.iter().any(|(k, _)| *k == key_set) {
        return;
    }
    if v.len() >= MAX_REMEMBERED {
        v.remove(0);
    }
    v.push((key_set, *params));
}

/// The parameter set of `key_set` if a key of it was generated or loaded here, else the
/// default set (every ciphertext of either set has the same dimensions).
pub fn params_of(key_set: KeySetId) -> DigitParameters {
    PARAMS_OF
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .find(|(k, _)| *k == key_set)
        .map_or(DEFAULT_PARAMETERS, |(_, p)| *p)
}

/// Sets (or, with `None`, unsets) the process-wide server.
pub fn set_server(server: Option<Arc<Server>>) {
    *SERVER.lock().unwrap_or_else(|p| p.into_inner()) = server;
}

/// The server set by `set_server_key`, or `NoServerKeyError`.
pub fn current_server() -> PyResult<Arc<Server>> {
    SERVER
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
        .ok_or_else(|| {
            NoServerKeyError::new_err(
                "no server key is set: call encint.set_server_key(client_key.server_key()) first",
            )
        })
}
