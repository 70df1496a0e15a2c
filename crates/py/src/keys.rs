//! `ClientKey`, `ServerKey`, `set_server_key`: keys in checked envelopes (bytes, files,
//! pickling) and the process-wide server that encrypted operators use.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use encint::{Server, DEFAULT_PARAMETERS};
use encint_tfhe::envelope::{self, Kind};
use encint_tfhe::DigitParameters;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use num_bigint::BigInt;

use crate::int::{EncBits, EncInt};
use crate::{detached, envelope_err, to_py, NoServerKeyError};

static SERVER: Mutex<Option<Arc<Server>>> = Mutex::new(None);

/// The parameter set of each key set this process has generated or loaded a key of.
static PARAMS_OF: Mutex<Vec<(encint_tfhe::KeySetId, DigitParameters)>> = Mutex::new(Vec::new());

/// Most key sets remembered by [`remember_params`] (a process that loads more labels the
/// ciphertexts of the oldest with the default set again).
const MAX_REMEMBERED: usize = 1024;

/// Records that `key_set` uses `params` (called whenever a key is generated or loaded), so
/// that its ciphertexts' envelopes name the right parameter set.
pub(crate) fn remember_params(key_set: encint_tfhe::KeySetId, params: &DigitParameters) {
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
pub(crate) fn params_of(key_set: encint_tfhe::KeySetId) -> DigitParameters {
    PARAMS_OF
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .find(|(k, _)| *k == key_set)
        .map_or(DEFAULT_PARAMETERS, |(_, p)| *p)
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

/// A file error of `encint::files` as a Python exception: an existing destination is a
/// `FileExistsError`, an oversized file a `FormatError`, an I/O failure an `OSError`
/// (each message names the path).
pub(crate) fn file_err(e: encint::files::FileError) -> PyErr {
    use encint::files::FileError as F;
    let msg = e.to_string();
    match e {
        F::Exists { .. } => pyo3::exceptions::PyFileExistsError::new_err(msg),
        F::TooLarge { .. } => crate::FormatError::new_err(msg),
        F::NotAFile { .. } => pyo3::exceptions::PyIsADirectoryError::new_err(msg),
        F::Io { source, .. } => match source.kind() {
            std::io::ErrorKind::NotFound => pyo3::exceptions::PyFileNotFoundError::new_err(msg),
            std::io::ErrorKind::PermissionDenied => {
                pyo3::exceptions::PyPermissionError::new_err(msg)
            }
            _ => pyo3::exceptions::PyOSError::new_err(msg),
        },
    }
}

/// Reads a whole file, refusing one longer than the envelope limit of `kind`.
pub(crate) fn read_bounded(path: &Path, kind: Kind) -> PyResult<Vec<u8>> {
    encint::files::read_bounded(path, envelope::max_len(kind)).map_err(file_err)
}

/// Writes `bytes` with the library's safe writer ([`encint::files`]): a temporary in the
/// same directory (mode 0600 for secrets from its creation), then an atomic move; an
/// existing file is replaced only with `overwrite` (a symlink there is replaced, never
/// followed).
pub(crate) fn write_new(path: &Path, bytes: &[u8], overwrite: bool, secret: bool) -> PyResult<()> {
    let mode = if secret {
        encint::files::Mode::Secret
    } else {
        encint::files::Mode::Public
    };
    encint::files::write_one(path, bytes, mode, overwrite).map_err(file_err)
}

/// The secret key: encrypts and decrypts. Never give it to the server.
///
/// `ClientKey.generate()` makes a fresh key pair (a few seconds; the GIL is released);
/// `server_key()` returns the matching public evaluation key. `ClientKey.clear()` is the
/// clear mode: values are held as plain digits and every operation runs the same circuit
/// with the clear executor (no security; for tests, prototypes and wide sweeps).
#[pyclass(module = "encint._encint", frozen)]
pub struct ClientKey {
    /// `None` in clear mode.
    pub(crate) key: Option<encint::ClientKey>,
    /// The server key generated with it (not part of its serialized form).
    server: Mutex<Option<encint::ServerKey>>,
}

impl ClientKey {
    /// A client key with the server key generated beside it.
    pub(crate) fn from_parts(
        key: encint::ClientKey,
        server: Option<encint::ServerKey>,
    ) -> ClientKey {
        ClientKey {
            key: Some(key),
            server: Mutex::new(server),
        }
    }

    pub(crate) fn real(&self) -> Option<&encint::ClientKey> {
        self.key.as_ref()
    }
}

#[pymethods]
impl ClientKey {
    /// Generates a client key and its server key (128-bit security, the parameter set
    /// `encint.PARAMETERS`; a few seconds, GIL released).
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<ClientKey> {
        let (client, server) = crate::progress::one_step(py, "generating keys", || {
            Ok(encint::ClientKey::generate(&DEFAULT_PARAMETERS))
        })?;
        remember_params(client.key_set(), client.params());
        Ok(ClientKey {
            key: Some(client),
            server: Mutex::new(Some(server)),
        })
    }

    /// The clear-mode key: no encryption, the same circuits on plain digits.
    #[staticmethod]
    fn clear() -> ClientKey {
        ClientKey {
            key: None,
            server: Mutex::new(None),
        }
    }

    /// Whether this is the clear-mode key.
    #[getter]
    fn is_clear(&self) -> bool {
        self.key.is_none()
    }

    /// The key-set identifier (hex) shared by this key, its server key and ciphertexts.
    #[getter]
    fn key_set(&self) -> String {
        self.key
            .as_ref()
            .map_or_else(|| "clear".into(), |k| k.key_set().to_string())
    }

    /// The server key generated with this key (only for a key made by `generate()` in
    /// this process; save it if you need it later).
    fn server_key(&self) -> PyResult<ServerKey> {
        if self.key.is_none() {
            return Ok(ServerKey { server: None });
        }
        let guard = self.server.lock().unwrap_or_else(|p| p.into_inner());
        let key = guard.clone().ok_or_else(|| {
            crate::invalid(
                "this client key was loaded, not generated here: load its saved server key",
            )
        })?;
        Ok(ServerKey {
            server: Some(Arc::new(Server::new(key))),
        })
    }

    /// The key in a checked envelope (kind ClientKey). Secret: keep these bytes private.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let key = self
            .key
            .as_ref()
            .ok_or_else(|| crate::invalid("the clear-mode key has no serialized form"))?;
        let bytes =
            envelope::seal(Kind::ClientKey, key.params().id(), key).map_err(envelope_err)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Reads a key written by `to_bytes` (checks magic, kind, version, parameters).
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<ClientKey> {
        let key: encint::ClientKey = detached(py, || {
            envelope::open_known(&data, Kind::ClientKey).map_err(envelope_err)
        })?;
        remember_params(key.key_set(), key.params());
        Ok(ClientKey {
            key: Some(key),
            server: Mutex::new(None),
        })
    }

    /// Saves the key to a new file with mode 0600 (`overwrite=True` replaces a file).
    #[pyo3(signature = (path, overwrite = false))]
    fn save(&self, py: Python<'_>, path: PathBuf, overwrite: bool) -> PyResult<()> {
        let bytes = self.to_bytes(py)?;
        write_new(&path, bytes.as_bytes(), overwrite, true)
    }

    /// Loads a key saved by `save`.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<ClientKey> {
        let bytes = read_bounded(&path, Kind::ClientKey)?;
        ClientKey::from_bytes(py, bytes)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(PyObject, (PyObject,))> {
        let cls = py.get_type::<ClientKey>();
        if self.key.is_none() {
            return Err(crate::invalid("the clear-mode key cannot be pickled"));
        }
        Ok((
            cls.getattr("from_bytes")?.unbind(),
            (self.to_bytes(py)?.into_any().unbind(),),
        ))
    }

    /// Encrypts a Python int (any size) as an exact `EncInt` of `width` signed binary
    /// digits (default 32: the value must satisfy `|value| < 2**width`).
    #[pyo3(signature = (value, width = 32))]
    fn encrypt(&self, py: Python<'_>, value: BigInt, width: usize) -> PyResult<EncInt> {
        self.encrypt_int(py, value, width)
    }

    /// Encrypts a Python int as `EncBits` of `width` bits, unsigned (`0 <= value <
    /// 2**width`) or two's complement (`signed=True`).
    #[pyo3(signature = (value, width, signed = false))]
    fn encrypt_bits(
        &self,
        py: Python<'_>,
        value: BigInt,
        width: usize,
        signed: bool,
    ) -> PyResult<EncBits> {
        self.encrypt_bits_impl(py, value, width, signed)
    }

    /// Encrypts a Python int as an `EncTyped` of `bits` bits (1..=128), unsigned
    /// (`0 <= value < 2**bits`) or two's complement (`signed=True`), like TFHE-rs'
    /// `FheUint8::encrypt` / `FheInt16::encrypt`. `form="radix4"` encrypts two bits per
    /// digit (like TFHE-rs' radix blocks): additions, bitwise logic, products, scalar
    /// products, shifts and rotations, comparisons, min/max and select then run on the
    /// blocks; `"canonical"` (the default) one bit per digit.
    #[pyo3(signature = (value, bits, signed = false, form = "canonical"))]
    fn encrypt_typed(
        &self,
        py: Python<'_>,
        value: BigInt,
        bits: usize,
        signed: bool,
        form: &str,
    ) -> PyResult<crate::typed::EncTyped> {
        self.encrypt_typed_impl(py, value, bits, signed, form)
    }

    /// Decrypts an `EncInt`, `EncBits` or `EncTyped` to a Python int. Raises
    /// `KeyMismatchError` for a value of another key, `DecryptionError` for a corrupted one.
    fn decrypt(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<BigInt> {
        self.decrypt_impl(py, value)
    }

    fn __repr__(&self) -> String {
        format!("ClientKey(key_set={})", self.key_set())
    }
}

/// The public evaluation key (bootstrapping and keyswitching keys, ~90 MB): give it to
/// the server; it cannot decrypt. Activate it with `encint.set_server_key`.
#[pyclass(module = "encint._encint", frozen)]
pub struct ServerKey {
    /// `None` in clear mode.
    pub(crate) server: Option<Arc<Server>>,
}

#[pymethods]
impl ServerKey {
    /// Whether this is the clear-mode server key.
    #[getter]
    fn is_clear(&self) -> bool {
        self.server.is_none()
    }

    /// The key-set identifier (hex).
    #[getter]
    fn key_set(&self) -> String {
        self.server
            .as_ref()
            .map_or_else(|| "clear".into(), |s| s.key().key_set().to_string())
    }

    /// The key in a checked envelope (kind ServerKey).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let server = self
            .server
            .as_ref()
            .ok_or_else(|| crate::invalid("the clear-mode key has no serialized form"))?;
        let bytes = detached(py, || {
            envelope::seal(Kind::ServerKey, server.key().params().id(), server.key())
                .map_err(envelope_err)
        })?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Reads a key written by `to_bytes` (checks magic, kind, version, parameters).
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<ServerKey> {
        let key: encint::ServerKey = detached(py, || {
            envelope::open_known(&data, Kind::ServerKey).map_err(envelope_err)
        })?;
        remember_params(key.key_set(), key.params());
        Ok(ServerKey {
            server: Some(Arc::new(Server::new(key))),
        })
    }

    /// Saves the key to a new file (`overwrite=True` replaces a file).
    #[pyo3(signature = (path, overwrite = false))]
    fn save(&self, py: Python<'_>, path: PathBuf, overwrite: bool) -> PyResult<()> {
        let bytes = self.to_bytes(py)?;
        write_new(&path, bytes.as_bytes(), overwrite, false)
    }

    /// Loads a key saved by `save`.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<ServerKey> {
        let bytes = read_bounded(&path, Kind::ServerKey)?;
        ServerKey::from_bytes(py, bytes)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(PyObject, (PyObject,))> {
        let cls = py.get_type::<ServerKey>();
        Ok((
            cls.getattr("from_bytes")?.unbind(),
            (self.to_bytes(py)?.into_any().unbind(),),
        ))
    }

    fn __repr__(&self) -> String {
        format!("ServerKey(key_set={})", self.key_set())
    }
}

/// Sets the server key that operators on encrypted values use (process-wide; `None`
/// unsets it). A clear-mode key unsets it too: clear values need no server key.
#[pyfunction]
#[pyo3(signature = (key))]
fn set_server_key(key: Option<PyRef<'_, ServerKey>>) {
    let mut s = SERVER.lock().unwrap_or_else(|p| p.into_inner());
    *s = key.and_then(|k| k.server.clone());
}

/// Sets how many threads the encrypted operations use (the global pool; call it once,
/// before the first operation). Errors if the pool is already running.
#[pyfunction]
fn set_threads(threads: usize) -> PyResult<()> {
    encint::check_threads(threads).map_err(to_py)?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .map_err(|e| crate::invalid(format!("thread pool: {e}")))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ClientKey>()?;
    m.add_class::<ServerKey>()?;
    m.add_function(wrap_pyfunction!(set_server_key, m)?)?;
    m.add_function(wrap_pyfunction!(set_threads, m)?)?;
    Ok(())
}
