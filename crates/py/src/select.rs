//! `encint.select(cond, a, b)`: `a if cond else b` without revealing `cond`, for each
//! kind of encrypted condition ([`Select`]).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::PyClass;

use crate::fv_bits::FvWord;
use crate::int::EncInt;
use crate::methods::Select;
use crate::trace::Traced;

/// `cond.select(py, [a, b])` when `cond` is a `T`.
fn select_as<T>(
    py: Python<'_>,
    cond: &Bound<'_, PyAny>,
    ab: [&Bound<'_, PyAny>; 2],
) -> Option<PyResult<PyObject>>
where
    T: PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Select + Sync,
{
    let c = cond.downcast::<T>().ok()?;
    Some(c.get().select(py, ab))
}

/// `a if cond else b` without revealing `cond` (an encrypted 0 or 1 of the same type as
/// `a` and `b`; Python ints are accepted for `a` and `b`).
#[pyfunction]
fn select(
    py: Python<'_>,
    cond: &Bound<'_, PyAny>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<PyObject> {
    let ab = [a, b];
    select_as::<FvWord>(py, cond, ab)
        .or_else(|| select_as::<EncInt>(py, cond, ab))
        .or_else(|| select_as::<Traced>(py, cond, ab))
        .unwrap_or_else(|| {
            Err(PyTypeError::new_err(
                "the condition must be an EncInt (0 or 1), a traced value or an FvWord \
                 (for an FheBool: cond.select(a, b) or encint.where)",
            ))
        })
}

/// Adds `select` to the module `m`, and again as `_traced_select` (what `encint.select`
/// calls for a traced condition).
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(select, m)?)?;
    m.add("_traced_select", m.getattr("select")?)
}
