//! `PackingKey`: the client's key with which the server returns results packed
//! (`encint::io::packed`), and `ClientKey.decrypt_packed`'s decoding.

use encint::fhe::FheType;
use encint::io::packed::{PackedKind, PackedResult};
use encint::keys::envelope::Kind;
use num_bigint::BigInt;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::envelope::seal;
use crate::errors::{envelope_err, invalid, to_py};
use crate::guard::detached;
use crate::int::EncInt;
use crate::methods::py_methods;
use crate::value::Val;

/// The packing key of a client key (`ClientKey.packing_key()`, 64 MiB, public): give it
/// to the server, whose `pack` then returns results in a few KB (a `u16` in 3.8 KB
/// instead of 262 KB) that `ClientKey.decrypt_packed` decrypts.
#[pyclass(module = "encint._encint", frozen)]
pub struct PackingKey {
    pub(crate) key: encint::keys::PackingKey,
}

py_methods! {
    impl PackingKey {
        getters(this) {
            /// The key set of the client key it was generated from.
            key_set: String = this.key.key_set().to_string();
        }

        /// The key's bytes: an envelope bound to its parameter set (as `encint packing-key`
        /// writes it).
        fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
            let params = params_of(&self.key)?;
            seal(py, Kind::PackingKey, Some((&self.key, &params)))
        }

        /// Reads `to_bytes` output (or `encint packing-key`'s file, also one of an earlier
        /// release); another key is a `KeyRoleError`, anything else an `encint.Error`.
        #[staticmethod]
        fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<PackingKey> {
            let key = detached(py, || {
                encint::keys::open_packing_key(&data).map_err(envelope_err)
            })?;
            Ok(PackingKey { key })
        }

        /// Packs an encrypted result (an `EncInt`, or a value of the typed family such as
        /// `FheUint16`) for the client: bytes that `ClientKey.decrypt_packed` decrypts. Errors
        /// for a clear-mode or traced value, or a value of another key set.
        fn pack<'py>(
            &self,
            py: Python<'py>,
            value: &Bound<'py, PyAny>,
        ) -> PyResult<Bound<'py, PyBytes>> {
            let key = &self.key;
            let bytes = if let Ok(x) = value.downcast::<EncInt>() {
                let Val::Enc(x) = &x.get().val else {
                    return Err(invalid("a clear-mode value has nothing to pack"));
                };
                let x = x.clone();
                detached(py, || {
                    let p = encint::io::packed::pack_int(key, &x).map_err(to_py)?;
                    p.to_bytes(&params_of(key)?).map_err(to_py)
                })?
            } else if let Ok(v) = value.downcast::<crate::family::FheValue>() {
                let x = v
                    .get()
                    .inner
                    .as_typed()
                    .ok_or_else(|| invalid("only an encrypted value can be packed"))?
                    .clone();
                detached(py, || {
                    let p = encint::io::packed::pack_typed(key, &x).map_err(to_py)?;
                    p.to_bytes(&params_of(key)?).map_err(to_py)
                })?
            } else {
                return Err(invalid(
                    "pack takes an EncInt or a value of the typed family",
                ));
            };
            Ok(PyBytes::new(py, &bytes))
        }
    }
}

/// The parameter set of a packing key.
fn params_of(key: &encint::keys::PackingKey) -> PyResult<encint::keys::DigitParameters> {
    encint::keys::DigitParameters::from_id(key.params_id())
        .ok_or_else(|| invalid("a packing key of an unknown parameter set"))
}

/// Decrypts packed bytes (`PackingKey.pack`, `encint eval --packed`) with `client`: an
/// exact integer's value, or a typed value's (an unsigned value as its unsigned integer).
pub(crate) fn decrypt_packed(
    py: Python<'_>,
    client: &encint::ClientKey,
    data: &[u8],
) -> PyResult<BigInt> {
    detached(py, || {
        let p = PackedResult::from_bytes(data).map_err(to_py)?;
        match p.kind() {
            PackedKind::Int => p.decrypt_int(client).map_err(to_py),
            PackedKind::Typed(ty, _) => {
                let v = p.decrypt_typed(client).map_err(to_py)?;
                Ok(if !ty.signed && v < 0 {
                    BigInt::from(v as u128)
                } else {
                    BigInt::from(v)
                })
            }
        }
    })
}
