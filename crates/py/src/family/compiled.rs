//! `encint.compile`: a Python function of values and arrays of the family traced into one
//! circuit by the facade's `compile_with` (a Rust closure that calls the Python function
//! with traced values), whose cost is known before any key exists, then run on
//! ciphertexts as often as needed.

use std::sync::{Arc, Mutex, PoisonError};

use encint::fhe::{compile_with, shape_len, FheType, Repr, Values};
use encint::typed::IntType;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use super::array::{numpy_array, FheArray};
use super::operand::{argument, clear_int, typed_int};
use super::value::{py_value, FheValue};
use super::{run, type_arg, wrap};
use crate::errors::{invalid, to_py as to_py_err};
use num_bigint::BigInt;

type Inner = encint::fhe::FheArray<encint::fhe::FheValue>;

/// An argument or result: one value, or an array.
#[derive(Clone, Debug)]
pub enum Item {
    /// One value.
    Value(encint::fhe::FheValue),
    /// An array.
    Array(Inner, IntType),
}

/// An argument's or result's type, and its shape for an array.
pub type ItemLayout = (IntType, Option<Vec<usize>>);

/// The arguments or results of a compiled function.
#[derive(Clone, Debug)]
pub struct Items(pub Vec<Item>);

impl Values for Items {
    type Layout = Vec<ItemLayout>;
    fn layout(&self) -> Vec<ItemLayout> {
        self.0
            .iter()
            .map(|i| match i {
                Item::Value(v) => (v.ty(), None),
                Item::Array(a, ty) => (*ty, Some(a.shape().to_vec())),
            })
            .collect()
    }
    fn leaf_count(layout: &Vec<ItemLayout>) -> Option<usize> {
        layout.iter().try_fold(0usize, |n, (_, shape)| {
            n.checked_add(shape.as_deref().map_or(Some(1), shape_len)?)
        })
    }
    fn leaf_types(layout: &Vec<ItemLayout>) -> Vec<IntType> {
        layout
            .iter()
            .flat_map(|(ty, shape)| {
                let n = shape.as_deref().map_or(1, |s| shape_len(s).unwrap_or(0));
                std::iter::repeat_n(*ty, n)
            })
            .collect()
    }
    fn leaves(&self) -> Vec<&Repr> {
        self.0
            .iter()
            .flat_map(|i| match i {
                Item::Value(v) => vec![v.repr()],
                Item::Array(a, _) => a.items().iter().map(FheType::repr).collect(),
            })
            .collect()
    }
    fn from_leaves(
        layout: &Vec<ItemLayout>,
        leaves: &mut dyn Iterator<Item = Repr>,
    ) -> encint::Result<Self> {
        let mut next = || {
            leaves
                .next()
                .ok_or_else(|| encint::Error::InvalidInput("fewer values than the layout".into()))
                .and_then(encint::fhe::FheValue::from_repr)
        };
        let mut out = Vec::with_capacity(layout.len());
        for (ty, shape) in layout {
            out.push(match shape {
                None => Item::Value(next()?),
                Some(s) => {
                    let n = shape_len(s).ok_or_else(|| {
                        encint::Error::LimitExceeded(format!("an array of shape {s:?}"))
                    })?;
                    let items = (0..n).map(|_| next()).collect::<encint::Result<Vec<_>>>()?;
                    Item::Array(encint::fhe::FheArray::new(items, s.clone())?, *ty)
                }
            });
        }
        Ok(Items(out))
    }
}

/// Python objects of items.
fn to_py(py: Python<'_>, items: Vec<Item>) -> PyResult<Vec<PyObject>> {
    items
        .into_iter()
        .map(|i| match i {
            Item::Value(v) => wrap(py, v),
            Item::Array(a, ty) => Ok(Py::new(py, FheArray { inner: a, ty })?.into_any()),
        })
        .collect()
}

/// An item of a Python object (a value or an array of the family).
fn item_of(o: &Bound<'_, PyAny>) -> PyResult<Item> {
    if let Ok(v) = o.downcast::<FheValue>() {
        return Ok(Item::Value(v.get().inner.clone()));
    }
    if let Ok(a) = o.downcast::<FheArray>() {
        let a = a.get();
        return Ok(Item::Array(a.inner.clone(), a.ty));
    }
    Err(PyTypeError::new_err(format!(
        "a compiled function takes and returns values and arrays of the family, not {}",
        o.get_type().name()?
    )))
}

/// What the traced function left: its first Python error, and whether it returned one
/// value (not a tuple).
#[derive(Default)]
struct Outcome {
    error: Option<PyErr>,
    single: Option<bool>,
    /// The types and shapes of the results.
    results: Option<Vec<ItemLayout>>,
}

/// A Python function compiled into one circuit (`encint.compile`).
#[pyclass(module = "encint._encint", frozen)]
pub struct Compiled {
    compiled: encint::fhe::Compiled<Items, Option<Items>>,
    outcome: Arc<Mutex<Outcome>>,
    /// The arguments' types and shapes.
    layout: Vec<ItemLayout>,
}

fn take_error(o: &Mutex<Outcome>) -> Option<PyErr> {
    o.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .error
        .take()
}

/// Traces `f` on arguments of the layouts `types` (each a type, or a `(type, shape)` pair
/// for an array) into one circuit.
#[pyfunction]
pub(crate) fn _compile(f: PyObject, types: &Bound<'_, PyList>) -> PyResult<Compiled> {
    let mut layout: Vec<ItemLayout> = Vec::new();
    for t in types.iter() {
        if let Ok(pair) = t.downcast::<PyTuple>() {
            if pair.len() != 2 {
                return Err(invalid("an array argument is a (type, shape) pair"));
            }
            let shape: Vec<usize> = pair.get_item(1)?.extract()?;
            layout.push((type_arg(&pair.get_item(0)?)?, Some(shape)));
        } else {
            layout.push((type_arg(&t)?, None));
        }
    }
    let outcome: Arc<Mutex<Outcome>> = Arc::default();
    let slot = outcome.clone();
    let body = move |args: Items| -> Option<Items> {
        Python::with_gil(|py| {
            let result = (|| -> PyResult<(Items, bool)> {
                let args = PyTuple::new(py, to_py(py, args.0)?)?;
                let out = f.call1(py, args)?;
                let out = out.bind(py);
                if let Ok(t) = out.downcast::<PyTuple>() {
                    let items = t
                        .iter()
                        .map(|o| item_of(&o))
                        .collect::<PyResult<Vec<_>>>()?;
                    Ok((Items(items), false))
                } else {
                    Ok((Items(vec![item_of(out)?]), true))
                }
            })();
            let mut o = slot.lock().unwrap_or_else(PoisonError::into_inner);
            match result {
                Ok((items, single)) => {
                    o.single.get_or_insert(single);
                    o.results.get_or_insert_with(|| items.layout());
                    Some(items)
                }
                Err(e) => {
                    o.error.get_or_insert(e);
                    None
                }
            }
        })
    };
    let compiled = compile_with(layout.clone(), body);
    if let Some(e) = take_error(&outcome) {
        return Err(e);
    }
    Ok(Compiled {
        compiled: compiled.map_err(crate::errors::to_py)?,
        outcome,
        layout,
    })
}

/// What a compiled function returns: its one result, or a tuple of them (`single`: the
/// function returned one value or array rather than a tuple).
fn returned(py: Python<'_>, mut objs: Vec<PyObject>, single: bool) -> PyResult<PyObject> {
    if single && objs.len() == 1 {
        return Ok(objs.remove(0));
    }
    Ok(PyTuple::new(py, objs)?.into_any().unbind())
}

#[pymethods]
impl Compiled {
    /// The circuit's cost on freshly encrypted arguments (a dict: `bootstraps`,
    /// `blind_rotations`, `packing_keyswitches`, `depth`, `width`, `max_qweight`).
    fn cost<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        crate::eval::cost_dict(py, &self.compiled.cost())
    }

    /// Runs the circuit on encrypted arguments of the compiled types and shapes; returns
    /// a value or an array, or a tuple of them, as the function does.
    #[pyo3(signature = (*args))]
    fn run(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<PyObject> {
        let items = Items(
            args.iter()
                .map(|a| item_of(&a))
                .collect::<PyResult<Vec<_>>>()?,
        );
        let c = &self.compiled;
        let out = run(py, || c.run(&items));
        if let Some(e) = take_error(&self.outcome) {
            return Err(e);
        }
        let out = out?.ok_or_else(|| invalid("the compiled function returned no value"))?;
        let single = self
            .outcome
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .single
            .unwrap_or(false);
        let objs = to_py(py, out.0)?;
        returned(py, objs, single)
    }

    /// Runs the same circuit on plain values, on the clear executor (no key, nothing
    /// secret; for tests and wide sweeps): each argument an int for a value, a NumPy array
    /// (or nested lists) of the compiled shape for an array. Returns what `run` would
    /// decrypt to: an int (a bool for `bool`), a NumPy array, or a tuple of them. Raises
    /// `InvalidInputError` for a value outside its type.
    #[pyo3(signature = (*args))]
    fn run_clear(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<PyObject> {
        if args.len() != self.layout.len() {
            return Err(invalid(format!(
                "{} arguments for a function of {}",
                args.len(),
                self.layout.len()
            )));
        }
        let np = py.import("numpy")?;
        let mut values: Vec<i128> = Vec::new();
        for (a, (ty, shape)) in args.iter().zip(&self.layout) {
            let ints: Vec<BigInt> = match shape {
                None => vec![clear_int(&a).ok_or_else(|| {
                    PyTypeError::new_err("a value's argument of run_clear is an int")
                })?],
                Some(shape) => {
                    let flat = np.call_method1("asarray", (a, "object"))?;
                    let found: Vec<usize> = flat.getattr("shape")?.extract()?;
                    if found != *shape {
                        return Err(invalid(format!(
                            "an array of shape {found:?} where {shape:?} was compiled"
                        )));
                    }
                    flat.call_method0("ravel")?
                        .call_method0("tolist")?
                        .extract()?
                }
            };
            for k in ints {
                values.push(argument(&k, *ty)?);
            }
        }
        let c = &self.compiled;
        let out = crate::guard::detached(py, || c.run_clear(&values).map_err(to_py_err))?;
        let (results, single) = {
            let o = self.outcome.lock().unwrap_or_else(PoisonError::into_inner);
            (
                o.results.clone().unwrap_or_default(),
                o.single.unwrap_or(false),
            )
        };
        let mut it = out.into_iter();
        let mut objs = Vec::with_capacity(results.len());
        for (ty, shape) in &results {
            let big = |v: i128| typed_int(v, *ty);
            objs.push(match shape {
                None => {
                    let v = it
                        .next()
                        .ok_or_else(|| invalid("fewer results than compiled"))?;
                    py_value(py, big(v), *ty)?
                }
                Some(s) => {
                    let n: usize = s.iter().product();
                    let vals: Vec<BigInt> = it.by_ref().take(n).map(big).collect();
                    numpy_array(py, vals, *ty, s)?.unbind()
                }
            });
        }
        returned(py, objs, single)
    }

    #[pyo3(signature = (*args))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<PyObject> {
        self.run(py, args)
    }

    fn __repr__(&self) -> String {
        let c = self.compiled.cost();
        format!(
            "<encint.Compiled: {} bootstraps, depth {}>",
            c.bootstraps, c.depth
        )
    }
}
