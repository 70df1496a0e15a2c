//! Running one circuit: every operation builds one (digit arithmetic from `encint::arith`,
//! or a boolean circuit lowered to digits) and runs it with the server set by
//! `set_server_key` ([`Server::eval_on`]) or, for clear-mode values, with the clear
//! executor on the same circuit.

use std::sync::Arc;

use encint::arith::{Arith, Config, SInt};
use encint::circuit::NegacyclicLut;
use encint::circuit::{Builder, Circuit, Cost};
use encint::limits::{Estimate, Limits};
use encint::{EncInt as RInt, Server, DEFAULT_PARAMETERS, MAX_DIGITS};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{invalid, limit, to_py};
use crate::guard::detached;
use crate::key_sets::current_server;
use crate::progress::{Progress, Watched};
use crate::value::Val;

/// The arithmetic for the parameter set's noise budget (what a `Server` uses).
pub fn arith() -> Arith {
    Arith::new(Config {
        max_qweight: DEFAULT_PARAMETERS.max_quadratic_weight(),
    })
}

/// Errors ([`crate::errors::LimitError`]) if an operation of estimate `est` on `inputs`
/// would pass the digit or node limit: checked before anything is built.
pub fn check_estimate(what: &str, inputs: &[&Val], est: Estimate) -> PyResult<()> {
    for (position, x) in inputs.iter().enumerate() {
        if x.len() > MAX_DIGITS {
            return Err(limit(format!(
                "input {position} has {} digits, more than the {MAX_DIGITS} allowed",
                x.len()
            )));
        }
    }
    let input_digits: u64 = inputs.iter().map(|x| x.len() as u64).sum();
    Limits::default()
        .check(what, est, input_digits)
        .map_err(to_py)
}

/// [`run_named`] with the description `"encint"`.
pub fn run(
    py: Python<'_>,
    inputs: &[&Val],
    est: Estimate,
    build: impl FnOnce(&Arith, &mut Builder, &[SInt]) -> Vec<SInt> + Send,
) -> PyResult<(Vec<Val>, Cost)> {
    run_named(py, "encint", inputs, est, build)
}

/// [`run`] with one output.
pub fn run_one(
    py: Python<'_>,
    inputs: &[&Val],
    est: Estimate,
    build: impl FnOnce(&Arith, &mut Builder, &[SInt]) -> SInt + Send,
) -> PyResult<Val> {
    let (mut out, _) = run(py, inputs, est, |ar, b, x| vec![build(ar, b, x)])?;
    Ok(out.pop().expect("one output"))
}

/// Runs one circuit built by `build` on `inputs`: with the current server for encrypted
/// values (GIL released), with the clear executor on the same circuit for clear values.
/// `description` names the operation on a progress bar (circuits of at least
/// `encint.set_progress`'s `min_bootstraps` bootstraps get one; see [`crate::progress`]).
///
/// `est` bounds what `build` creates ([`encint::limits`]): an operation that would pass
/// the digit or node limit is refused before the circuit is built.
pub fn run_named(
    py: Python<'_>,
    description: &str,
    inputs: &[&Val],
    est: Estimate,
    build: impl FnOnce(&Arith, &mut Builder, &[SInt]) -> Vec<SInt> + Send,
) -> PyResult<(Vec<Val>, Cost)> {
    check_estimate(description, inputs, est)?;
    let clear = inputs.iter().filter(|v| v.is_clear()).count();
    if clear == 0 && !inputs.is_empty() {
        let server: Arc<Server> = current_server()?;
        let ins: Vec<&RInt> = inputs
            .iter()
            .map(|v| match v {
                Val::Enc(x) => x,
                Val::Clear(_) => unreachable!("checked above"),
            })
            .collect();
        let (out, cost) = detached(py, || {
            let progress = Progress::new(description);
            let result = progress.watch(|| server.eval(&ins, build));
            progress.finish(result, to_py)
        })?;
        Ok((out.into_iter().map(Val::Enc).collect(), cost))
    } else if clear == inputs.len() {
        let ins: Vec<&[i64]> = inputs
            .iter()
            .map(|v| match v {
                Val::Clear(d) => d.as_slice(),
                Val::Enc(_) => unreachable!("checked above"),
            })
            .collect();
        detached(py, || run_clear(description, &ins, build))
    } else {
        Err(invalid(
            "cannot mix clear-mode and encrypted values in one operation",
        ))
    }
}

/// The clear path of [`run_named`]: the circuit `Server::eval` would build, on plain
/// digits (whose lengths [`check_estimate`] has checked).
fn run_clear(
    description: &str,
    inputs: &[&[i64]],
    build: impl FnOnce(&Arith, &mut Builder, &[SInt]) -> Vec<SInt>,
) -> PyResult<(Vec<Val>, Cost)> {
    let ar = arith();
    let mut b = Builder::new();
    let ins: Vec<SInt> = inputs
        .iter()
        .map(|x| SInt::input(&mut b, x.len()))
        .collect();
    let outs = build(&ar, &mut b, &ins);
    let (circuit, lens) = finish(b, outs)?;
    let flat: Vec<i64> = inputs.iter().flat_map(|x| x.iter().copied()).collect();
    let plan = circuit.plan();
    let cost = plan.cost(&circuit);
    let refs: Vec<&i64> = flat.iter().collect();
    let progress = Progress::new(description);
    let clear = encint::circuit::clear::Clear;
    let watched = Watched::new(&clear, &*progress);
    let result = encint::circuit::exec::run(&watched, &circuit, &plan, &refs);
    let out = progress.finish(result, |e| to_py(encint::Error::from(e)))?;
    let mut it = out.into_iter();
    Ok((
        lens.into_iter()
            .map(|n| Val::Clear(it.by_ref().take(n).collect()))
            .collect(),
        cost,
    ))
}

/// Finishes a circuit like `Server::eval`: outputs refreshed where their noise is not
/// fresh, the digit and node limits checked. Returns the circuit and each output's length.
pub fn finish(mut b: Builder, outs: Vec<SInt>) -> PyResult<(Circuit, Vec<usize>)> {
    let identity = NegacyclicLut::from_fn(-2..=2, |v| v).expect("identity is negacyclic");
    let mut lens = Vec::with_capacity(outs.len());
    let mut flat = Vec::new();
    for o in &outs {
        if o.len() > MAX_DIGITS {
            return Err(limit(format!(
                "an output of {} digits, more than the {MAX_DIGITS} allowed",
                o.len()
            )));
        }
        lens.push(o.len());
        for &d in &o.digits {
            flat.push(if b.qweight(d) > 1 {
                b.lut(d, &identity)
            } else {
                d
            });
        }
    }
    let circuit = b.finish(flat);
    let nodes = circuit.nodes().len() as u64;
    if nodes > encint::DEFAULT_MAX_NODES {
        return Err(limit(format!(
            "the circuit has {nodes} nodes, more than the {} allowed",
            encint::DEFAULT_MAX_NODES
        )));
    }
    Ok((circuit, lens))
}

/// A cost as a Python dict.
pub fn cost_dict<'py>(py: Python<'py>, c: &Cost) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("bootstraps", c.bootstraps)?;
    d.set_item("blind_rotations", c.blind_rotations)?;
    d.set_item("packing_keyswitches", c.packing_keyswitches)?;
    d.set_item("depth", c.depth)?;
    d.set_item("width", c.width)?;
    d.set_item("max_qweight", c.max_qweight)?;
    Ok(d)
}
