//! `EncInt` (exact: signed binary digits, results as long as they need to be); fixed
//! widths that wrap are the typed family's ([`crate::family`]).
//!
//! - `exact`: `EncInt` and how its operators build their circuits; `exact_methods`:
//!   its Python methods (the conversions to and from the family are the family's:
//!   `FheValue.to_int()`, `FheUint8.from_int(e)`);
//! - `serial`: its envelope; `select`: `encint.select` on it; `bench`: benchmark support.

mod bench;
mod exact;
mod exact_methods;
mod select;
mod serial;

use pyo3::prelude::*;

pub use exact::EncInt;

/// Adds `EncInt` and the benchmark function to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bench::_bench_rust_add, m)?)?;
    m.add_class::<EncInt>()?;
    Ok(())
}
