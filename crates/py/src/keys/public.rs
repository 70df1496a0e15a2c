//! `PublicKey`: the key a client publishes; whoever holds it encrypts values that the
//! server computes on and only the client key decrypts (`encint::io::public`).

use encint::keys::envelope::Kind;
use encint::typed::IntType;
use num_bigint::BigInt;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::envelope::{open, seal};
use crate::errors::to_py;
use crate::guard::detached;
use crate::methods::py_methods;

/// The public key of a client key (`ClientKey.public_key()`, or the `public.key` file of
/// `encint keygen`): publish it. Anyone holding it encrypts values (`encrypt`) that the
/// server computes on and only the client key decrypts; it holds no secret.
#[pyclass(module = "encint._encint", frozen)]
pub struct PublicKey {
    pub(crate) key: encint::PublicKey,
}

py_methods! {
    impl PublicKey {
        getters(this) {
            /// The key set of the client key it was derived from (as `ClientKey.key_set`).
            key_set: String = this.key.key_set().to_string();
        }

        /// The key's bytes: an envelope of kind `PublicKey` bound to its key set (16.6 KB).
        fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
            let params = self.key.params().map_err(|e| to_py(e.into()))?;
            seal(py, Kind::PublicKey, Some((&self.key, &params)))
        }

        /// Reads `to_bytes` output (or `public.key`): magic, kind, version, parameter set and
        /// length checked; anything else is an `encint.Error`.
        #[staticmethod]
        fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<PublicKey> {
            Ok(PublicKey {
                key: open(py, &data, Kind::PublicKey)?,
            })
        }

        /// Encrypts a Python int with the public key, as bytes to send to the server. With a
        /// type (`"u16"`, `encint.FheInt8`, ...: see `ClientKey.encrypt`) a value of the typed
        /// family, which the type's `from_bytes` reads back; with a width (default 32) an
        /// exact integer of that many digits, which `EncInt.from_bytes` reads back. The
        /// digits travel as one compact list (a 2048-word mask and 4 bytes per digit); the
        /// reader expands it, no bootstrap. Only the client key decrypts the result.
        #[pyo3(signature = (value, width = None))]
        fn encrypt<'py>(
            &self,
            py: Python<'py>,
            value: BigInt,
            width: Option<&Bound<'py, PyAny>>,
        ) -> PyResult<Bound<'py, PyBytes>> {
            let pk = &self.key;
            let params = pk.params().map_err(|e| to_py(e.into()))?;
            upload_bytes(
                py,
                value,
                width,
                |v, ty| encint::io::public::encrypt_typed_public(pk, v, ty)?.to_bytes(&params),
                |v, digits| encint::PublicInt::encrypt_big(pk, v, digits)?.to_bytes(&params),
            )
        }

        fn __repr__(&self) -> String {
            format!("PublicKey(key_set={})", self.key.key_set())
        }
    }
}

/// The bytes of an upload (seeded or public-key) of `value`: `typed(value, type)` when
/// `width` names a type, else `exact(value, digits)` with `width` digits (default 32); the
/// GIL is released while encrypting.
pub(crate) fn upload_bytes<'py>(
    py: Python<'py>,
    value: BigInt,
    width: Option<&Bound<'py, PyAny>>,
    typed: impl FnOnce(i128, IntType) -> encint::Result<Vec<u8>> + Send,
    exact: impl FnOnce(&BigInt, usize) -> encint::Result<Vec<u8>> + Send,
) -> PyResult<Bound<'py, PyBytes>> {
    let ty = match width {
        Some(w) if !w.is_instance_of::<pyo3::types::PyInt>() => Some(crate::family::type_arg(w)?),
        _ => None,
    };
    let digits: usize = match (ty, width) {
        (None, Some(w)) => w.extract()?,
        _ => 32,
    };
    let seal = || -> encint::Result<Vec<u8>> {
        match ty {
            Some(ty) => {
                let v = i128::try_from(&value).map_err(|_| {
                    encint::Error::InvalidInput(format!(
                        "{value} is not a value of {ty} (unsigned values up to i128::MAX \
                         encrypt)"
                    ))
                })?;
                typed(v, ty)
            }
            None => exact(&value, digits),
        }
    };
    let bytes = detached(py, || seal().map_err(to_py))?;
    Ok(PyBytes::new(py, &bytes))
}
