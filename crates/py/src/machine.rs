//! `machine_profile` and `calibrate`: the machine profiles the
//! planner chooses circuits for, as dicts.

use std::path::PathBuf;

use encint::machine::{cached_path, calibrate as measure, profile, save_profile, Calibration};
use encint::{ClientKey, Machine, Server, DEFAULT_PARAMETERS};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_py;
use crate::guard::detached;

/// A profile as a dict: name, lanes, round_ms, latency_ms, plan_threads, gpu.
pub(crate) fn as_dict<'py>(py: Python<'py>, m: &Machine) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &m.name)?;
    d.set_item("lanes", m.lanes)?;
    d.set_item("round_ms", m.round_s * 1e3)?;
    d.set_item("latency_ms", m.latency_s * 1e3)?;
    d.set_item("plan_threads", m.plan_threads)?;
    d.set_item("gpu", m.gpu)?;
    Ok(d)
}

/// The machine profile `name` as a dict (name, lanes, round_ms, latency_ms,
/// plan_threads, gpu): `"cpu:N"`, `"h100"`, `"h200"`, `"calibrated"` (what `calibrate`
/// saved) or the path of a profile file. Raises `InvalidInputError` on an unknown name,
/// `FileNotFoundError` before any calibration, `FormatError` on a file that is not a
/// profile.
#[pyfunction]
fn machine_profile<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    as_dict(py, &profile(name).map_err(to_py)?)
}

/// Measures this machine's bootstraps on `threads` threads (default: all cores) with fresh
/// keys of the default parameters: levels one and two rounds wide, `repeats` timed runs of
/// `levels` levels each (the median kept), fitted to a round's time and a level's latency.
/// Saves the profile to `path`, or by default where `"calibrated"` finds it, unless
/// `save=False`; never replaces a file that is not a profile (`FileExistsError`). Returns
/// the profile's dict with `narrow_ms`, `wide_ms` (the two levels' medians) and `saved`
/// (the file, or None).
#[pyfunction]
#[pyo3(signature = (threads=None, repeats=7, levels=8, save=true, path=None))]
fn calibrate<'py>(
    py: Python<'py>,
    threads: Option<usize>,
    repeats: usize,
    levels: usize,
    save: bool,
    path: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let opts = Calibration { repeats, levels };
    let dest = match (save, path) {
        (false, _) => None,
        (true, Some(p)) => Some(p),
        (true, None) => Some(cached_path().map_err(to_py)?),
    };
    let (measured, dest) = detached(py, || {
        let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        let server = match threads {
            Some(n) => Server::with_threads(key, n),
            None => Ok(Server::new(key)),
        }
        .map_err(to_py)?;
        let measured = measure(&client, &server, &opts).map_err(to_py)?;
        if let Some(p) = &dest {
            save_profile(&measured.machine, p).map_err(to_py)?;
        }
        Ok((measured, dest))
    })?;
    let d = as_dict(py, &measured.machine)?;
    d.set_item("narrow_ms", measured.narrow.seconds * 1e3)?;
    d.set_item("wide_ms", measured.wide.seconds * 1e3)?;
    d.set_item("saved", dest.map(|p| p.display().to_string()))?;
    Ok(d)
}

/// Adds `machine_profile` and `calibrate` to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(machine_profile, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate, m)?)?;
    Ok(())
}
