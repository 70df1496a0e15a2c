//! `EncInt` (exact: signed binary digits, results as long as they need to be) and `EncBits`
//! (a fixed width, unsigned or two's complement, wrapping like machine integers).
//!
//! - `exact`: `EncInt` and how its operators build their circuits; `exact_methods`:
//!   its Python methods;
//! - `bits`: `EncBits` likewise; `bits_methods`: its Python methods;
//! - `convert`: conversions between the two; `serial`: their envelopes;
//! - `select`: `encint.select` on them; `bench`: benchmark support.

mod bench;
mod bits;
mod bits_methods;
mod convert;
mod exact;
mod exact_methods;
mod select;
mod serial;

use pyo3::prelude::*;

pub use bits::EncBits;
pub use exact::EncInt;

/// Adds `EncInt`, `EncBits` and the benchmark function to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bench::_bench_rust_add, m)?)?;
    m.add_class::<EncInt>()?;
    m.add_class::<EncBits>()?;
    Ok(())
}
