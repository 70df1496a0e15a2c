//! `encint.from_bytes`: any ciphertext read without naming its class first (the facade's
//! `encint::io::open`).

use pyo3::prelude::*;

use crate::errors::{invalid, to_py};
use crate::guard::detached;
use crate::value::Val;

/// Reads any ciphertext, whoever wrote it (this package, the command-line tool or the Rust
/// library; expanded, seeded or encrypted with the public key): an `EncInt`, or a value of
/// the family's class of its type (`FheUint8`, `FheBool`, an `FheArray`, ...). A packed
/// result (`encint eval --packed`) is decrypted by `encint decrypt`; bytes that are no
/// ciphertext raise the error of the format.
#[pyfunction]
fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<PyObject> {
    use encint::fhe::FheType;
    use encint::io::Opened;
    match detached(py, || encint::io::open(&data).map_err(to_py))? {
        Opened::Int(x) => Ok(Py::new(py, crate::int::EncInt { val: Val::Enc(x) })?.into_any()),
        Opened::Typed(x) => {
            crate::family::wrap(py, encint::fhe::FheValue::from_typed(x).map_err(to_py)?)
        }
        Opened::Packed(_) => Err(invalid(
            "the bytes hold a packed result: decrypt it with `encint decrypt`",
        )),
    }
}

/// Adds `from_bytes` to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(from_bytes, m)?)
}
