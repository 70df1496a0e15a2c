//! `ClientKey`: the secret key, which encrypts and decrypts every kind of value.

use std::sync::{Arc, Mutex};

use encint::io::files::Mode;
use encint::keys::envelope::Kind;
use encint::{Server, DEFAULT_PARAMETERS};
use num_bigint::BigInt;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use super::envelope::{open, seal};
use super::server::ServerKey;
use crate::errors::invalid;
use crate::int::EncInt;
use crate::key_sets::remember_params;
use crate::methods::{py_methods, reduce};
use crate::progress::one_step;

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

    /// The library key (`None` in clear mode).
    pub(crate) fn real(&self) -> Option<&encint::ClientKey> {
        self.key.as_ref()
    }

    /// The library key, or an `InvalidInputError` for the clear-mode key (`what` needs a
    /// real one).
    pub(crate) fn require_real(&self, what: &str) -> PyResult<&encint::ClientKey> {
        self.real()
            .ok_or_else(|| invalid(format!("{what} needs a real client key")))
    }
}

py_methods! {
    impl ClientKey {
        getters(this) {
            /// Whether this is the clear-mode key.
            is_clear: bool = this.key.is_none();
            /// The key-set identifier (hex) shared by this key, its server key and ciphertexts.
            key_set: String = super::key_set_name(this.key.as_ref().map(|k| k.key_set()));
        }

        key_file(Kind::ClientKey, Mode::Secret) {
            /// Saves the key to a new file with mode 0600 (`overwrite=True` replaces a file).
        }

        /// Generates a client key and its server key (128-bit security, the parameter set
        /// `encint.PARAMETERS`; a few seconds, GIL released).
        #[staticmethod]
        fn generate(py: Python<'_>) -> PyResult<ClientKey> {
            let (client, server) = one_step(py, "generating keys", || {
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

        /// The server key generated with this key (only for a key made by `generate()` in
        /// this process; save it if you need it later).
        fn server_key(&self) -> PyResult<ServerKey> {
            if self.key.is_none() {
                return Ok(ServerKey { server: None });
            }
            let guard = self.server.lock().unwrap_or_else(|p| p.into_inner());
            let key = guard.clone().ok_or_else(|| {
                invalid("this client key was loaded, not generated here: load its saved server key")
            })?;
            Ok(ServerKey {
                server: Some(Arc::new(Server::new(key))),
            })
        }

        /// The key in a checked envelope (kind ClientKey). Secret: keep these bytes private.
        fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
            let key = self.key.as_ref().map(|k| (k, k.params()));
            seal(py, Kind::ClientKey, key)
        }

        /// Reads a key written by `to_bytes` (checks magic, kind, version, parameters).
        #[staticmethod]
        fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<ClientKey> {
            let key: encint::ClientKey = open(py, &data, Kind::ClientKey)?;
            remember_params(key.key_set(), key.params());
            Ok(ClientKey {
                key: Some(key),
                server: Mutex::new(None),
            })
        }

        fn __reduce__(&self, py: Python<'_>) -> PyResult<(PyObject, PyObject)> {
            if self.key.is_none() {
                return Err(invalid("the clear-mode key cannot be pickled"));
            }
            reduce::<ClientKey>(py, "from_bytes", (self.to_bytes(py)?,))
        }

        /// Encrypts a Python int (any size) as an exact `EncInt` of `width` signed binary
        /// digits (default 32: the value must satisfy `|value| < 2**width`). With a type
        /// instead of a width (`"u8"`, `"i16"`, `"bool"`, `"u12"`, or a class such as
        /// `encint.FheUint8`, or a NumPy dtype), encrypts an int as a value of the typed
        /// family, or a NumPy array (or nested lists) as an `FheArray` of that type.
        /// A typed value is stored as radix-4 blocks (`form="radix4"`, the default: two bits
        /// per digit, like TFHE-rs' radix blocks; additions, bitwise operations, products
        /// and comparisons read the blocks directly); `form="canonical"` stores one bit per
        /// digit (twice the digits; shifts by constants and selections cost less). Results
        /// are the same either way.
        #[pyo3(signature = (value, width = None, form = None))]
        fn encrypt(
            &self,
            py: Python<'_>,
            value: &Bound<'_, PyAny>,
            width: Option<&Bound<'_, PyAny>>,
            form: Option<&str>,
        ) -> PyResult<PyObject> {
            let family = |w: &&Bound<'_, PyAny>| {
                w.is_instance_of::<PyString>()
                    || w.is_instance_of::<pyo3::types::PyType>()
                    || w.hasattr("_type").unwrap_or(false)
                    || (w.hasattr("itemsize").unwrap_or(false)
                        && !w.hasattr("__index__").unwrap_or(true))
            };
            if let Some(t) = width.filter(family) {
                let ty = crate::family::type_arg(t)?;
                let form = crate::family::form_arg(form)?;
                let key = self.require_real("encrypting a value of the typed family")?;
                if crate::family::operand::clear_int(value).is_some() {
                    return crate::family::value::encrypt_value(py, value, ty, form, key);
                }
                let a = crate::family::array::encrypt_array(py, value, ty, form, key)?;
                return Ok(Py::new(py, a)?.into_any());
            }
            if form.is_some() {
                return Err(invalid(
                    "form= applies to values of the typed family (a type such as \"u16\"), \
                     not to exact integers",
                ));
            }
            let width: usize = match width {
                Some(w) => w.extract()?,
                None => 32,
            };
            let value: BigInt = value.extract()?;
            Ok(Py::new(py, EncInt::encrypt(py, self.real(), value, width)?)?.into_any())
        }

        /// The seeded upload of a Python int, as bytes: one seed for every mask and 8 bytes
        /// per digit (a `u16` in 294 bytes instead of 262 KB; docs/UPLOADS.md). With a type
        /// (`"u16"`, `encint.FheInt8`, ...: see `encrypt`) a value of the typed family,
        /// which `FheUint16.from_bytes` (the type's `from_bytes`) reads back; with a width
        /// (default 32) an exact integer of that many digits, which `EncInt.from_bytes`
        /// reads back. The reader regenerates the masks: the same ciphertexts and noise as
        /// `encrypt`, no bootstrap.
        #[pyo3(signature = (value, width = None))]
        fn encrypt_seeded<'py>(
            &self,
            py: Python<'py>,
            value: BigInt,
            width: Option<&Bound<'py, PyAny>>,
        ) -> PyResult<Bound<'py, PyBytes>> {
            let key = self.require_real("a seeded encryption")?;
            let params = *key.params();
            super::public::upload_bytes(
                py,
                value,
                width,
                |v, ty| encint::io::seeded::encrypt_typed_seeded(key, v, ty)?.to_bytes(&params),
                |v, digits| encint::SeededInt::encrypt_big(key, v, digits)?.to_bytes(&params),
            )
        }

        /// The packing key of this key (64 MiB, public; a few seconds): give it to the
        /// server, whose `PackingKey.pack` returns results that `decrypt_packed` reads.
        fn packing_key(&self, py: Python<'_>) -> PyResult<super::packing::PackingKey> {
            let key = self.require_real("a packing key")?;
            let packing = crate::guard::detached(py, || Ok(encint::keys::PackingKey::generate(key)))?;
            Ok(super::packing::PackingKey { key: packing })
        }

        /// Decrypts a packed result (`PackingKey.pack`, `encint eval --packed`): the value
        /// as a Python int.
        fn decrypt_packed(&self, py: Python<'_>, data: Vec<u8>) -> PyResult<BigInt> {
            let key = self.require_real("decrypting a packed result")?;
            super::packing::decrypt_packed(py, key, &data)
        }

        /// The public key of this key: publish it; whoever holds it encrypts values
        /// (`PublicKey.encrypt`) that the server computes on and only this key decrypts.
        fn public_key(&self) -> PyResult<super::public::PublicKey> {
            let key = self.require_real("a public key")?;
            Ok(super::public::PublicKey {
                key: key.public_key(),
            })
        }

        /// Decrypts an `EncInt` to a Python int, a value of the typed family to an int (a
        /// bool for `FheBool`), an `FheArray` to a NumPy array. Raises `KeyMismatchError`
        /// for a value of another key, `DecryptionError` for a corrupted one.
        fn decrypt(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<PyObject> {
            let key = self.real();
            let int = |v: BigInt| -> PyResult<PyObject> { Ok(v.into_pyobject(py)?.into_any().unbind()) };
            if let Ok(x) = value.downcast::<EncInt>() {
                return int(x.get().decrypt(py, key)?);
            }
            if let Ok(x) = value.downcast::<crate::family::FheValue>() {
                return x.get().decrypt_with(py, self.require_real("decrypting")?);
            }
            if let Ok(x) = value.downcast::<crate::family::FheArray>() {
                let arr = x.get().decrypt_with(py, self.require_real("decrypting")?)?;
                return Ok(arr.unbind());
            }
            Err(PyTypeError::new_err(format!(
                "decrypt takes an EncInt, FheValue or FheArray, not {}",
                value.get_type().name()?
            )))
        }

        fn __repr__(&self) -> String {
            format!("ClientKey(key_set={})", self.key_set())
        }
    }
}
