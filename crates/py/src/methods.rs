//! The Python methods that the classes of encrypted values repeat, written once: the
//! binary operators ([`Operators`], `py_methods!`), the methods of every opaque encrypted
//! value, key files, `encint.select` ([`Select`]) and pickling ([`reduce`]).

use pyo3::exceptions::PyZeroDivisionError;
use pyo3::prelude::*;
use pyo3::{BoundObject, PyTypeInfo};

use encint::Op;

/// What the binary operators of a class take beside `self`.
pub trait Operands {
    /// An operand.
    type Operand;

    /// `o` as an operand (`None`: not one).
    fn operand(&self, o: &Bound<'_, PyAny>) -> PyResult<Option<Self::Operand>>;

    /// Whether `x` is a constant zero (a divisor that raises `ZeroDivisionError`).
    fn is_zero(_x: &Self::Operand) -> bool {
        false
    }
}

/// The binary operators of a class, by family; the methods `py_methods!` writes call
/// [`Operators::binary_op`], which reads the operand once ([`Operands::operand`]: not one
/// of the class's operands, the operator returns `NotImplemented`) and refuses a division
/// by a constant zero. A family the class lacks is `NotImplemented` too.
pub trait Operators: Operands {
    /// `self op x` (`x op self` with `swap`) for `+ - *`.
    fn arith(&self, py: Python<'_>, x: Self::Operand, op: Op, swap: bool) -> PyResult<PyObject>;

    /// `self op x` (`x op self` with `swap`) for `// % & | ^` ([`Op::FloorDiv`],
    /// [`Op::Mod`], [`Op::And`], [`Op::Or`], [`Op::Xor`]).
    fn bitwise(&self, py: Python<'_>, x: Self::Operand, op: Op, swap: bool) -> PyResult<PyObject>;

    /// `self cmp x`, `cmp` a comparison of the library.
    fn compare(&self, py: Python<'_>, x: Self::Operand, cmp: Op) -> PyResult<PyObject>;

    /// `max(self, x)` (`max`) or `min(self, x)`.
    fn min_max(&self, py: Python<'_>, _x: Self::Operand, _max: bool) -> PyResult<PyObject> {
        Ok(py.NotImplemented())
    }

    /// `self << o` (`left`) or `self >> o` (shift amounts are read apart from operands).
    fn shift(&self, py: Python<'_>, _o: &Bound<'_, PyAny>, _left: bool) -> PyResult<PyObject> {
        Ok(py.NotImplemented())
    }

    /// `self op x` for Python's binary operator `op` (`o op self` with `swap`), by the
    /// family of `op`; an operation without an operator is `NotImplemented`.
    fn binary_op(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        op: Op,
        swap: bool,
    ) -> PyResult<PyObject> {
        if let Op::ShlVar | Op::ShrVar = op {
            return self.shift(py, o, op == Op::ShlVar);
        }
        let Some(x) = self.operand(o)? else {
            return Ok(py.NotImplemented());
        };
        if let (Op::FloorDiv | Op::Mod, false) = (op, swap) {
            if Self::is_zero(&x) {
                return Err(PyZeroDivisionError::new_err("division by zero"));
            }
        }
        match op {
            Op::Add | Op::Sub | Op::Mul => self.arith(py, x, op, swap),
            Op::FloorDiv | Op::Mod | Op::And | Op::Or | Op::Xor => self.bitwise(py, x, op, swap),
            Op::Cmp(_) => self.compare(py, x, op),
            Op::Min | Op::Max => self.min_max(py, x, op == Op::Max),
            _ => Ok(py.NotImplemented()),
        }
    }
}

/// The operators of the exact types (`EncInt`, `Traced`): each family is a library
/// operation, an exact bit operation or shift, or a product by a Python int.
pub trait Exact: Operands {
    /// The library operation `op` on `self` and `x` (swapped with `swap`).
    fn library(&self, py: Python<'_>, x: Self::Operand, op: Op, swap: bool) -> PyResult<PyObject>;

    /// `self op x` (`x op self` with `swap`) with Python's semantics, exact.
    fn exact_bitwise(
        &self,
        py: Python<'_>,
        x: Self::Operand,
        op: Op,
        swap: bool,
    ) -> PyResult<PyObject>;

    /// `self << o` (`left`) or `self >> o`, `o` a Python int.
    fn exact_shift(&self, py: Python<'_>, o: &Bound<'_, PyAny>, left: bool) -> PyResult<PyObject>;

    /// `self * x` when `x` is a Python int that fits an `i64` (`None` otherwise).
    fn scalar_mul(&self, py: Python<'_>, x: &Self::Operand) -> PyResult<Option<PyObject>>;
}

impl<T: Exact> Operators for T {
    fn arith(&self, py: Python<'_>, x: Self::Operand, op: Op, swap: bool) -> PyResult<PyObject> {
        // A product is the same either way round.
        if op == Op::Mul {
            if let Some(r) = self.scalar_mul(py, &x)? {
                return Ok(r);
            }
        }
        self.library(py, x, op, swap && op != Op::Mul)
    }

    fn bitwise(&self, py: Python<'_>, x: Self::Operand, op: Op, swap: bool) -> PyResult<PyObject> {
        self.exact_bitwise(py, x, op, swap)
    }

    fn compare(&self, py: Python<'_>, x: Self::Operand, cmp: Op) -> PyResult<PyObject> {
        self.library(py, x, cmp, false)
    }

    fn min_max(&self, py: Python<'_>, x: Self::Operand, max: bool) -> PyResult<PyObject> {
        self.library(py, x, if max { Op::Max } else { Op::Min }, false)
    }

    fn shift(&self, py: Python<'_>, o: &Bound<'_, PyAny>, left: bool) -> PyResult<PyObject> {
        self.exact_shift(py, o, left)
    }
}

/// `encint.select(cond, a, b)` with `self` as the condition.
pub trait Select {
    /// `a if self else b` without revealing `self`, `[a, b]` the operands.
    fn select(&self, py: Python<'_>, ab: [&Bound<'_, PyAny>; 2]) -> PyResult<PyObject>;
}

/// `__reduce__`'s value for pickling: the class attribute `ctor` of `T` (a static
/// constructor) and the arguments to call it with.
pub fn reduce<'py, T: PyTypeInfo>(
    py: Python<'py>,
    ctor: &str,
    args: impl IntoPyObject<'py>,
) -> PyResult<(PyObject, PyObject)> {
    let f = py.get_type::<T>().getattr(ctor)?.unbind();
    let args = args.into_pyobject(py).map_err(Into::into)?;
    Ok((f, args.into_any().unbind()))
}

/// Writes the `#[pymethods]` block of a class: generated methods first, then the methods
/// written out (PyO3 takes one block per class). The generated sections, each optional,
/// in any order before the written methods:
///
/// - `operators;`: `+ - * // % & | ^` (each reflected too), `<< >>` and the comparisons,
///   each a call of the class's [`Operators::binary_op`];
/// - `forward_operators;`: the same without the reflected forms and the shifts;
/// - `min_max(param) { #[doc] #[doc] }`: `min` and `max` of one operand named `param`,
///   with these docstrings;
/// - `opaque "Class";`: `__bool__`, `__hash__` and `__index__`, which raise `TypeError`;
/// - `getters(this) { #[doc] name: Type = expr; ... }`: read-only properties, each
///   `expr` computed from `this` (the instance), with its docstring;
/// - `key_file(kind, mode) { #[doc] }`: `save(path, overwrite=False)` (this docstring),
///   which writes `to_bytes()` in a file of this [`encint::io::files::Mode`], and
///   `load(path)`, which reads at most an envelope of this `Kind` and calls `from_bytes`.
macro_rules! py_methods {
    (impl $ty:ident { $($body:tt)* }) => {
        $crate::methods::py_methods!(@acc $ty [] $($body)*);
    };
    (@acc $ty:ident [$($acc:tt)*] operators; $($rest:tt)*) => {
        $crate::methods::py_methods!(@acc $ty [$($acc)*] forward_operators; @binary(o) [
            __radd__ [Add] true, __rsub__ [Sub] true, __rmul__ [Mul] true,
            __rfloordiv__ [FloorDiv] true, __rmod__ [Mod] true, __rand__ [And] true,
            __ror__ [Or] true, __rxor__ [Xor] true, __lshift__ [ShlVar] false,
            __rshift__ [ShrVar] false,
        ] $($rest)*);
    };
    (@acc $ty:ident [$($acc:tt)*] forward_operators; $($rest:tt)*) => {
        $crate::methods::py_methods!(@acc $ty [$($acc)*] @binary(o) [
            __add__ [Add] false, __sub__ [Sub] false, __mul__ [Mul] false,
            __floordiv__ [FloorDiv] false, __mod__ [Mod] false, __and__ [And] false,
            __or__ [Or] false, __xor__ [Xor] false, __lt__ [LT] false, __le__ [LE] false,
            __gt__ [GT] false, __ge__ [GE] false, __eq__ [EQ] false, __ne__ [NE] false,
        ] $($rest)*);
    };
    (@acc $ty:ident [$($acc:tt)*]
        min_max($param:ident) { #[doc = $min:literal] #[doc = $max:literal] }
        $($rest:tt)*
    ) => {
        $crate::methods::py_methods!(@acc $ty [$($acc)*] @binary($param) [
            #[doc = $min] min [Min] false,
            #[doc = $max] max [Max] false,
        ] $($rest)*);
    };
    (@acc $ty:ident [$($acc:tt)*]
        @binary($param:ident) [$(
            $(#[doc = $doc:literal])* $name:ident [$op:ident] $swap:literal
        ),* $(,)?]
        $($rest:tt)*
    ) => {
        $crate::methods::py_methods!(@acc $ty [$($acc)* $(
            $(#[doc = $doc])*
            fn $name(
                &self,
                py: pyo3::Python<'_>,
                $param: &pyo3::Bound<'_, pyo3::PyAny>,
            ) -> pyo3::PyResult<pyo3::PyObject> {
                $crate::methods::Operators::binary_op(
                    self,
                    py,
                    $param,
                    ::encint::Op::$op,
                    $swap,
                )
            }
        )*] $($rest)*);
    };
    (@acc $ty:ident [$($acc:tt)*]
        getters($this:ident) { $($(#[doc = $doc:literal])* $name:ident: $t:ty = $get:expr;)* }
        $($rest:tt)*
    ) => {
        $crate::methods::py_methods!(@acc $ty [$($acc)* $(
            $(#[doc = $doc])*
            #[getter]
            fn $name(&self) -> $t {
                let $this = self;
                $get
            }
        )*] $($rest)*);
    };
    (@acc $ty:ident [$($acc:tt)*] opaque $class:literal; $($rest:tt)*) => {
        $crate::methods::py_methods!(@acc $ty [$($acc)*
            fn __bool__(&self) -> pyo3::PyResult<bool> {
                Err(pyo3::exceptions::PyTypeError::new_err(
                    "an encrypted value has no truth value: decrypt it, or use encint.select",
                ))
            }
            fn __hash__(&self) -> pyo3::PyResult<isize> {
                Err(pyo3::exceptions::PyTypeError::new_err(concat!(
                    $class,
                    " is not hashable"
                )))
            }
            fn __index__(&self) -> pyo3::PyResult<isize> {
                Err(pyo3::exceptions::PyTypeError::new_err(
                    "an encrypted value is not a Python int: decrypt it with the client key",
                ))
            }
        ] $($rest)*);
    };
    (@acc $ty:ident [$($acc:tt)*]
        key_file($kind:expr, $mode:expr) { #[doc = $save:literal] }
        $($rest:tt)*
    ) => {
        $crate::methods::py_methods!(@acc $ty [$($acc)*
            #[doc = $save]
            #[pyo3(signature = (path, overwrite = false))]
            fn save(
                &self,
                py: pyo3::Python<'_>,
                path: std::path::PathBuf,
                overwrite: bool,
            ) -> pyo3::PyResult<()> {
                let bytes = self.to_bytes(py)?;
                $crate::files::write_new(&path, bytes.as_bytes(), overwrite, $mode)
            }
            /// Loads a key saved by `save`.
            #[staticmethod]
            fn load(py: pyo3::Python<'_>, path: std::path::PathBuf) -> pyo3::PyResult<$ty> {
                $ty::from_bytes(py, $crate::files::read_bounded(&path, $kind)?)
            }
        ] $($rest)*);
    };
    (@acc $ty:ident [$($acc:tt)*] $($methods:tt)*) => {
        #[pyo3::pymethods]
        impl $ty {
            $($acc)*
            $($methods)*
        }
    };
}

pub(crate) use py_methods;
