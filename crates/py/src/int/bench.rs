//! Benchmark support (`crates/py/bench/overhead.py`): the Rust API's own timing of an
//! addition, to compare with the bindings' overhead.

use pyo3::prelude::*;

use super::exact::EncInt;
use crate::errors::{invalid, to_py};
use crate::guard::detached;
use crate::key_sets::current_server;
use crate::value::Val;

/// `iters` calls of the Rust API's `Server::add` on `a` and `b`, timed in Rust; returns
/// the seconds of each call.
#[pyfunction]
pub(crate) fn _bench_rust_add(
    py: Python<'_>,
    a: &EncInt,
    b: &EncInt,
    iters: usize,
) -> PyResult<Vec<f64>> {
    let (Val::Enc(x), Val::Enc(y)) = (&a.val, &b.val) else {
        return Err(invalid("the benchmark needs encrypted values"));
    };
    let server = current_server()?;
    detached(py, || {
        let mut times = Vec::with_capacity(iters);
        for _ in 0..iters {
            let t = std::time::Instant::now();
            let r = server.add(x, y).map_err(to_py)?;
            times.push(t.elapsed().as_secs_f64());
            drop(r);
        }
        Ok(times)
    })
}
