//! Python bindings of encint (the `encint` Python package, built by maturin from
//! `crates/py/pyproject.toml`). The Python-facing documentation is in the docstrings and
//! in `python/encint/_encint.pyi`; this crate only adapts the library APIs:
//!
//! - keys ([`keys`]): client and server keys, their checked envelopes, files, pickling;
//!   [`key_sets`]: the parameter set of each key set and the server of `set_server_key`;
//! - exact integers ([`int`]: `EncInt`, signed binary digits), whose operators build one
//!   circuit each and run it ([`eval`]) with the server key (encrypted) or with the clear
//!   executor (clear mode);
//! - the typed family of the facade ([`family`]: `FheUint8` ... `FheInt128`, `FheBool`,
//!   `FheArray`, `encint.compile`), thin wrappers of `encint::fhe::FheValue`;
//! - `encint.select` ([`select`]), traced evaluation and costs ([`trace`]), the byte
//!   processor ([`processor`]), FV batches ([`fv`]) and bit-sliced FV integers
//!   ([`fv_bits`]);
//! - private inference of a quantised neural network ([`infer`]: `encint.Inference`; on
//!   FV slots [`infer_fv`]: `encint.FvInference`);
//! - progress bars of long operations ([`progress`]);
//! - shared pieces: the value behind every integer class ([`value`]), argument reading
//!   ([`args`]), ciphertext envelopes ([`ciphertext`]), key files ([`files`]), the
//!   repeated Python methods ([`methods`]), comparison circuits of `FvWord`
//!   ([`circuits`]).
//!
//! Every library error becomes an exception of the `encint.Error` hierarchy ([`errors`]);
//! every call into the library runs under [`guard::guard`], so no Rust panic reaches
//! Python.

use pyo3::prelude::*;

pub mod args;
pub mod ciphertext;
pub mod circuits;
pub mod errors;
pub mod eval;
pub mod family;
pub mod files;
pub mod fv;
pub mod fv_bits;
pub mod guard;
pub mod infer;
pub mod infer_fv;
pub mod int;
pub mod key_sets;
pub mod keys;
pub mod machine;
pub mod methods;
pub mod open;
pub mod processor;
pub mod progress;
pub mod select;
pub mod trace;
pub mod value;

/// The native module `encint._encint`; the package `encint` re-exports it.
#[pymodule]
fn _encint(m: &Bound<'_, PyModule>) -> PyResult<()> {
    type Register = fn(&Bound<'_, PyModule>) -> PyResult<()>;
    let modules: [Register; 14] = [
        errors::register,
        open::register,
        keys::register,
        int::register,
        select::register,
        trace::register,
        processor::register,
        fv::register,
        fv_bits::register,
        progress::register,
        family::register,
        infer::register,
        infer_fv::register,
        machine::register,
    ];
    for register in modules {
        register(m)?;
    }
    m.add("PARAMETERS", encint::DEFAULT_PARAMETERS.id())?;
    m.add("MAX_DIGITS", encint::MAX_DIGITS)?;
    m.add("MAX_CIPHERTEXT_BYTES", encint::limits::MAX_CIPHERTEXT_BYTES)?;
    Ok(())
}
