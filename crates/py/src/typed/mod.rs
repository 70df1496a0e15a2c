//! `EncTyped`: the typed integer API of `encint::typed` (TFHE-rs' `FheUint8`, `FheInt16`,
//! ...: `n`-bit signed or unsigned values, results modulo `2^n`), with Python operators.
//!
//! Each operation is planned like `Server::typed_apply` (the planner of
//! `encint::typed` picks the digit or the bit algorithm for the operand forms and the
//! thread count) and built with `encint::typed::build` into one circuit, which runs
//! with the current server or, in clear mode, with the clear executor (as every operator of
//! the package does).
//!
//! - `class`: `EncTyped`, its operands and values; `ops`: how its operators run;
//! - `methods`: its Python methods; `payload`: its envelope; `select`:
//!   `encint.select` on it.

mod class;
mod methods;
mod ops;
mod payload;
mod select;

use pyo3::prelude::*;

pub use class::EncTyped;

/// Adds `EncTyped` to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<EncTyped>()?;
    Ok(())
}
