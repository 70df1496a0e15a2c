//! Traced evaluation: a Python function over `Traced` stand-ins is recorded on a tape,
//! then replayed as ONE circuit on encrypted (or clear-mode) inputs, so independent
//! operations share bootstrap batches; or replayed on input shapes alone for its cost.
//! `encint.trace(fn, *args)` and `encint.cost(fn, widths)` (in `python/encint`) drive it.

use std::sync::Mutex;

use encint::trace::{Tape as RTape, TapeArg as TArg};
use encint::Op;
use num_bigint::{BigInt, Sign};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{invalid, to_py, value_error};
use crate::eval::{cost_dict, run_named};
use crate::guard::detached;
use crate::int::EncInt;
use crate::methods::{py_methods, Exact, Operands, Select};
use crate::value::Val;

/// A tape of recorded operations (internal; use `encint.trace` / `encint.cost`).
#[pyclass(module = "encint._encint", frozen)]
pub struct Tape {
    inner: Mutex<RTape>,
}

/// A stand-in for an `EncInt` while a function is traced: supports `+ - * // % & | ^ ~
/// -x abs()`, `<< k` and `>> k` (a Python int `k`), comparisons, `min`, `max`, `square`,
/// `sign` and `encint.select`, with Python int operands (exact, like `EncInt`).
#[pyclass(module = "encint._encint", frozen)]
pub struct Traced {
    tape: Py<Tape>,
    node: usize,
}

impl Tape {
    fn lock(&self) -> std::sync::MutexGuard<'_, RTape> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn targ(tape: &Py<Tape>, o: &Bound<'_, PyAny>) -> PyResult<Option<TArg>> {
    if let Ok(t) = o.downcast::<Traced>() {
        let t = t.get();
        if !t.tape.is(tape) {
            return Err(invalid("a traced value of another trace"));
        }
        return Ok(Some(TArg::Node(t.node)));
    }
    if o.is_instance_of::<EncInt>() {
        return Err(PyTypeError::new_err(
            "an EncInt inside a traced function: pass it as an argument of encint.trace",
        ));
    }
    Ok(o.extract::<BigInt>().ok().map(TArg::Const))
}

/// Records one operation after the library's checks ([`RTape::record`]): a trace stops with
/// `LimitError` at the first operation that would pass a limit, before any circuit is built.
fn record(py: Python<'_>, tape: &Py<Tape>, op: Op, args: Vec<TArg>) -> PyResult<PyObject> {
    let node = tape.get().lock().record(op, args).map_err(to_py)?;
    Ok(Py::new(
        py,
        Traced {
            tape: tape.clone_ref(py),
            node,
        },
    )?
    .into_any())
}

impl Traced {
    /// Records `op` on `self` and `x` (swapped with `swap`).
    fn binary(&self, py: Python<'_>, x: TArg, op: Op, swap: bool) -> PyResult<PyObject> {
        let me = TArg::Node(self.node);
        let args = if swap { vec![x, me] } else { vec![me, x] };
        record(py, &self.tape, op, args)
    }

    /// Records the library operation `op` on `self`.
    fn un(&self, py: Python<'_>, op: Op) -> PyResult<PyObject> {
        record(py, &self.tape, op, vec![TArg::Node(self.node)])
    }
}

impl Operands for Traced {
    type Operand = TArg;

    fn operand(&self, o: &Bound<'_, PyAny>) -> PyResult<Option<TArg>> {
        targ(&self.tape, o)
    }

    fn is_zero(x: &TArg) -> bool {
        matches!(x, TArg::Const(k) if k.sign() == Sign::NoSign)
    }
}

impl Exact for Traced {
    fn library(&self, py: Python<'_>, x: TArg, op: Op, swap: bool) -> PyResult<PyObject> {
        self.binary(py, x, op, swap)
    }

    fn scalar_mul(&self, py: Python<'_>, x: &TArg) -> PyResult<Option<PyObject>> {
        match x {
            TArg::Const(k) => match i64::try_from(k) {
                Ok(k) => self.un(py, Op::ScalarMul(i128::from(k))).map(Some),
                Err(_) => Ok(None),
            },
            TArg::Node(_) => Ok(None),
        }
    }

    fn exact_bitwise(&self, py: Python<'_>, x: TArg, op: Op, swap: bool) -> PyResult<PyObject> {
        self.binary(py, x, op, swap)
    }

    fn exact_shift(&self, py: Python<'_>, o: &Bound<'_, PyAny>, left: bool) -> PyResult<PyObject> {
        if o.is_instance_of::<Traced>() {
            return Err(PyTypeError::new_err(
                "a shift amount must be a Python int (not a traced value)",
            ));
        }
        let Ok(k) = o.extract::<BigInt>() else {
            return Ok(py.NotImplemented());
        };
        let k = u32::try_from(&k)
            .ok()
            .filter(|&k| k as usize <= encint::MAX_DIGITS)
            .ok_or_else(|| {
                value_error(format!(
                    "shift amount {k} outside 0..={}",
                    encint::MAX_DIGITS
                ))
            })?;
        record(
            py,
            &self.tape,
            if left { Op::Shl(k) } else { Op::Shr(k) },
            vec![TArg::Node(self.node)],
        )
    }
}

py_methods! {
    impl Traced {
        operators;
        min_max(o) {
            /// `min(self, other)`.
            /// `max(self, other)`.
        }

        fn __neg__(&self, py: Python<'_>) -> PyResult<PyObject> {
            self.un(py, Op::Neg)
        }

        fn __pos__(slf: Py<Self>) -> Py<Self> {
            slf
        }

        /// `~x = -x - 1`.
        fn __invert__(&self, py: Python<'_>) -> PyResult<PyObject> {
            record(
                py,
                &self.tape,
                Op::Sub,
                vec![TArg::Const(BigInt::from(-1)), TArg::Node(self.node)],
            )
        }

        fn __abs__(&self, py: Python<'_>) -> PyResult<PyObject> {
            self.un(py, Op::Abs)
        }

        fn __bool__(&self) -> PyResult<bool> {
            Err(PyTypeError::new_err(
                "a traced value has no truth value: use encint.select instead of if",
            ))
        }

        fn __hash__(&self) -> PyResult<isize> {
            Err(PyTypeError::new_err("Traced is not hashable"))
        }

        /// `self²`.
        fn square(&self, py: Python<'_>) -> PyResult<PyObject> {
            self.un(py, Op::Square)
        }

        /// `sgn(self)`.
        fn sign(&self, py: Python<'_>) -> PyResult<PyObject> {
            self.un(py, Op::Signum)
        }

        fn __repr__(&self) -> String {
            format!("Traced(node {})", self.node)
        }
    }
}

fn out_nodes(tape: &Py<Tape>, outputs: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let mut nodes = Vec::new();
    for o in outputs.try_iter()? {
        let o = o?;
        match targ(tape, &o)? {
            Some(TArg::Node(i)) => nodes.push(i),
            _ => {
                return Err(PyTypeError::new_err(
                    "a traced function must return traced values (results of operations on its arguments)",
                ))
            }
        }
    }
    Ok(nodes)
}

#[pymethods]
impl Tape {
    #[new]
    fn new(input_lens: Vec<usize>) -> PyResult<Tape> {
        Ok(Tape {
            inner: Mutex::new(RTape::new(input_lens).map_err(to_py)?),
        })
    }

    /// The traced inputs.
    fn inputs(slf: &Bound<'_, Tape>) -> PyResult<Vec<Py<Traced>>> {
        let py = slf.py();
        let n = slf.get().lock().input_count();
        (0..n)
            .map(|node| {
                Py::new(
                    py,
                    Traced {
                        tape: slf.clone().unbind(),
                        node,
                    },
                )
            })
            .collect()
    }

    /// Runs the recorded function on `args` as one circuit; returns the `outputs`' values.
    fn run<'py>(
        slf: &Bound<'py, Tape>,
        args: Vec<PyRef<'py, EncInt>>,
        outputs: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<EncInt>> {
        let py = slf.py();
        let tape = slf.clone().unbind();
        let nodes = out_nodes(&tape, outputs)?;
        let inner = slf.get().lock();
        inner
            .check_inputs(args.iter().map(|a| a.val.len()))
            .map_err(to_py)?;
        let vals: Vec<&Val> = args.iter().map(|a| &a.val).collect();
        let tape_ref: &RTape = &inner;
        // The recorded operations were checked one by one (see `record`): the whole
        // estimate is checked again here, with these inputs.
        let est = inner.estimate(&nodes).map_err(to_py)?;
        let (out, _) = run_named(py, "trace", &vals, est, move |ar, b, ins| {
            tape_ref.replay(ar, b, ins, &nodes)
        })?;
        Ok(out.into_iter().map(|val| EncInt { val }).collect())
    }

    /// The cost of the recorded function's circuit on inputs of the traced widths.
    fn cost<'py>(
        slf: &Bound<'py, Tape>,
        outputs: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        let tape = slf.clone().unbind();
        let nodes = out_nodes(&tape, outputs)?;
        let inner = slf.get().lock();
        let tape_ref: &RTape = &inner;
        let (cost, n) = detached(py, || tape_ref.cost(&nodes).map_err(to_py))?;
        let d = cost_dict(py, &cost)?;
        d.set_item("nodes", n)?;
        Ok(d)
    }
}

/// Records `b + c·(a - b)`.
impl Select for Traced {
    fn select(&self, py: Python<'_>, [a, b]: [&Bound<'_, PyAny>; 2]) -> PyResult<PyObject> {
        let c = TArg::Node(self.node);
        let (Some(x), Some(y)) = (targ(&self.tape, a)?, targ(&self.tape, b)?) else {
            return Err(PyTypeError::new_err(
                "select operands must be traced values or ints",
            ));
        };
        record(py, &self.tape, Op::Select, vec![c, x, y])
    }
}

/// Adds `Tape` and `Traced` to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Tape>()?;
    m.add_class::<Traced>()?;
    Ok(())
}
