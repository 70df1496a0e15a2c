//! The typed family of `encint::fhe` (`FheUint8` ... `FheInt128`, `FheBool`, any width
//! through `encint.FheUint(n)` / `encint.FheInt(n)`) and its arrays, as thin wrappers of
//! the facade's runtime-typed `FheValue` and `FheArray<FheValue>`: every plan and circuit
//! comes from the facade. Python's operators follow NumPy's integer semantics where they
//! differ from Rust's (`//` floors, `%` takes the divisor's sign, a division by an
//! encrypted zero gives 0): [`numpy`] builds those corrections as one circuit with the
//! facade's `compile_with`.
//!
//! - [`value`]: the class `FheValue`, base of the Python classes `FheUint8`, ...;
//! - [`array`](mod@array): `FheArray`; [`compiled`]: `encint.compile` of functions of these;
//! - [`operand`]: reading Python operands; [`numpy`]: the NumPy corrections and the
//!   one-circuit runner ([`numpy::fused`]).

/// The `#[pymethods]` block of a class of the family (`FheValue`, `FheArray`): Python's
/// binary operators (each reflected too) and comparisons, each a call of the class's
/// `binary(py, op, other, swap)`, `-x`, `~x`, `square` and the counts of bits
/// (`count_ones`, ..., `reverse_bits`) through its `unary(py, op)`,
/// `bool(x)` refused with the message given, NumPy's deferral (`__array_ufunc__ = None`),
/// then the methods written out (PyO3 takes one block per class).
macro_rules! family_methods {
    ($ty:ident, $truth:literal, $decrypted:literal { $($rest:tt)* }) => {
        $crate::family::family_methods!(@binary $ty $truth $decrypted [
            __add__ Add false, __radd__ Add true,
            __sub__ Sub false, __rsub__ Sub true,
            __mul__ Mul false, __rmul__ Mul true,
            __floordiv__ FloorDiv false, __rfloordiv__ FloorDiv true,
            __mod__ Mod false, __rmod__ Mod true,
            __and__ And false, __rand__ And true,
            __or__ Or false, __ror__ Or true,
            __xor__ Xor false, __rxor__ Xor true,
            __lshift__ ShlVar false, __rlshift__ ShlVar true,
            __rshift__ ShrVar false, __rrshift__ ShrVar true,
        ] [
            /// The number of one bits of the two's-complement pattern, an `FheUint32`
            /// (Rust's `count_ones`; NumPy's `bitwise_count` counts those of `abs(x)`).
            count_ones CountOnes,
            /// The number of zero bits of the pattern, an `FheUint32`.
            count_zeros CountZeros,
            /// The zero bits above the highest one bit (the width for 0), an `FheUint32`.
            leading_zeros LeadingZeros,
            /// The one bits above the highest zero bit, an `FheUint32`.
            leading_ones LeadingOnes,
            /// The zero bits below the lowest one bit (the width for 0), an `FheUint32`.
            trailing_zeros TrailingZeros,
            /// The one bits below the lowest zero bit, an `FheUint32`.
            trailing_ones TrailingOnes,
            /// `floor(log2(x))` for `x > 0`, an `FheUint32`; 0 for 0 and the width
            /// minus one for a negative `x` (the highest one bit's position).
            ilog2 Ilog2,
            /// The pattern's bits in reverse order, a value of the type.
            reverse_bits ReverseBits,
        ] $($rest)*);
    };
    (@binary $ty:ident $truth:literal $decrypted:literal [$($name:ident $op:ident $swap:literal,)*]
        [$($(#[doc = $cdoc:literal])* $cname:ident $cop:ident,)*] $($rest:tt)*) => {
        #[pyo3::pymethods]
        impl $ty {
            #[doc = concat!("Decrypts with the client key `ck`: ", $decrypted, " (`ck.decrypt(self)`).")]
            fn decrypt(
                slf: &pyo3::Bound<'_, Self>,
                ck: &pyo3::Bound<'_, pyo3::PyAny>,
            ) -> pyo3::PyResult<pyo3::PyObject> {
                Ok(ck.call_method1("decrypt", (slf,))?.unbind())
            }
            $(
                fn $name(
                    &self,
                    py: pyo3::Python<'_>,
                    other: &pyo3::Bound<'_, pyo3::PyAny>,
                ) -> pyo3::PyResult<pyo3::PyObject> {
                    self.binary(py, ::encint::Op::$op, other, $swap)
                }
            )*
            fn __richcmp__(
                &self,
                py: pyo3::Python<'_>,
                other: &pyo3::Bound<'_, pyo3::PyAny>,
                op: pyo3::basic::CompareOp,
            ) -> pyo3::PyResult<pyo3::PyObject> {
                use pyo3::basic::CompareOp as C;
                use ::encint::Relation as R;
                let rel = match op {
                    C::Lt => R::Lt,
                    C::Le => R::Le,
                    C::Gt => R::Gt,
                    C::Ge => R::Ge,
                    C::Eq => R::Eq,
                    C::Ne => R::Ne,
                };
                self.binary(py, ::encint::Op::Cmp(rel), other, false)
            }
            fn __bool__(&self) -> pyo3::PyResult<bool> {
                Err(pyo3::exceptions::PyTypeError::new_err($truth))
            }
            /// `None`: NumPy arrays and scalars defer to this class's operators (reflected
            /// ones included), which take them elementwise, instead of applying their own
            /// to each element.
            #[classattr]
            fn __array_ufunc__(py: pyo3::Python<'_>) -> pyo3::PyObject {
                py.None()
            }
            /// Above NumPy's arrays, for NumPy's older deferral rule.
            #[classattr]
            fn __array_priority__() -> f64 {
                1000.0
            }
            fn __neg__(&self, py: pyo3::Python<'_>) -> pyo3::PyResult<pyo3::PyObject> {
                self.unary(py, ::encint::Op::Neg)
            }
            fn __invert__(&self, py: pyo3::Python<'_>) -> pyo3::PyResult<pyo3::PyObject> {
                self.unary(py, ::encint::Op::Not)
            }
            /// The square (wrapping: modulo `2**bits`), one circuit.
            fn square(&self, py: pyo3::Python<'_>) -> pyo3::PyResult<pyo3::PyObject> {
                self.unary(py, ::encint::Op::Square)
            }
            $(
                $(#[doc = $cdoc])*
                fn $cname(&self, py: pyo3::Python<'_>) -> pyo3::PyResult<pyo3::PyObject> {
                    self.unary(py, ::encint::Op::$cop)
                }
            )*
            $($rest)*
        }
    };
}
pub(crate) use family_methods;

pub mod array;
pub mod compiled;
pub mod numpy;
pub mod operand;
pub mod value;

use encint::typed::{IntType, TypedError, MAX_TYPED_BITS};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;

use crate::errors::{invalid, to_py};
use crate::guard::detached;
use crate::progress::Progress;

/// The stored form named by a `form=` argument: `"radix4"` (the default) or `"canonical"`.
pub fn form_arg(form: Option<&str>) -> PyResult<encint::typed::Form> {
    match form {
        None => Ok(encint::typed::Form::DEFAULT),
        Some("canonical") => Ok(encint::typed::Form::Canonical),
        Some("radix4") => Ok(encint::typed::Form::Radix4),
        Some(other) => Err(invalid(format!(
            "form {other:?}: \"canonical\" or \"radix4\""
        ))),
    }
}

pub use array::FheArray;
pub use value::FheValue;

/// The Python function that wraps a bare `FheValue` into the class of its type
/// (`encint.FheUint8`, ...), set by the package at import time.
static CLASS_OF: GILOnceCell<PyObject> = GILOnceCell::new();

/// Sets the function `f(value) -> instance of the value's class` (called once by the
/// package's `__init__`).
#[pyfunction]
fn _set_family_wrapper(py: Python<'_>, f: PyObject) {
    let _ = CLASS_OF.set(py, f);
}

/// `v` as an instance of its type's Python class (a bare `FheValue` before the package
/// has registered its classes).
pub(crate) fn wrap(py: Python<'_>, v: encint::fhe::FheValue) -> PyResult<PyObject> {
    let base = Py::new(py, FheValue { inner: v })?;
    match CLASS_OF.get(py) {
        Some(f) => f.call1(py, (base,)),
        None => Ok(base.into_any()),
    }
}

/// The type named `name`: `bool`, `u<N>` / `i<N>` (also `uint<N>` / `int<N>`), the
/// facade's [`IntType::parse`]: `u1` is refused (`InvalidInputError` naming `bool`: the
/// one-bit unsigned type is the boolean, whose casts give `x != 0`), a width outside
/// 1..=128 is a `LimitError`.
pub(crate) fn parse_type(name: &str) -> PyResult<IntType> {
    let name = name.trim();
    let alias = [("uint", "u"), ("int", "i")]
        .iter()
        .find_map(|(long, short)| {
            let digits = name.strip_prefix(long)?;
            let number = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
            number.then(|| format!("{short}{digits}"))
        });
    IntType::parse(alias.as_deref().unwrap_or(name)).map_err(|e| match e {
        TypedError::Width(bits) => {
            crate::errors::limit(format!("width {bits} outside 1..={MAX_TYPED_BITS}"))
        }
        e => invalid(e.to_string()),
    })
}

/// The name of `ty` in Python: `u8`, `i16`, ..., `bool` (the facade's name).
pub(crate) fn type_name(ty: IntType) -> String {
    ty.to_string()
}

/// The canonical name of the type named `name` (for the package's class factories
/// `encint.FheUint(n)` / `encint.FheInt(n)`); errors as [`parse_type`].
#[pyfunction]
fn _type_name(name: &str) -> PyResult<String> {
    parse_type(name).map(type_name)
}

/// The NumPy dtype that holds every value of `ty`.
pub(crate) fn dtype(ty: IntType) -> &'static str {
    if ty == IntType::BOOL {
        return "bool";
    }
    match (ty.bits, ty.signed) {
        (..=8, false) => "uint8",
        (..=8, true) => "int8",
        (..=16, false) => "uint16",
        (..=16, true) => "int16",
        (..=32, false) => "uint32",
        (..=32, true) => "int32",
        (..=64, false) => "uint64",
        (..=64, true) => "int64",
        _ => "object",
    }
}

/// A type given as a name, as a class of the family (its `_type` attribute) or as a
/// NumPy integer or boolean dtype.
pub(crate) fn type_arg(t: &Bound<'_, PyAny>) -> PyResult<IntType> {
    if let Ok(s) = t.extract::<String>() {
        return parse_type(&s);
    }
    if let Ok(s) = t.getattr("_type") {
        return parse_type(&s.extract::<String>()?);
    }
    // A NumPy dtype or scalar type (`np.uint8`, `np.dtype("int16")`, `bool`): its name.
    let name = t
        .py()
        .import("numpy")
        .and_then(|np| np.call_method1("dtype", (t,)))
        .and_then(|d| d.getattr("name"))
        .and_then(|n| n.extract::<String>());
    match name {
        Ok(n) => parse_type(&n),
        Err(_) => Err(invalid(format!(
            "a type name (\"u8\", \"i16\", \"bool\", ...) or a class such as encint.FheUint8, not {}",
            t.repr()?
        ))),
    }
}

/// [`run_named`] with the description `"encint"`.
pub(crate) fn run<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> encint::Result<T> + Send,
) -> PyResult<T> {
    run_named(py, "encint", f)
}

/// Runs `f` without the GIL, with the process' server key (`set_server_key`) set as this
/// thread's server of the facade (none set: operations on ciphertexts raise
/// `NoServerKeyError`), and every circuit it runs reported to the progress bars of
/// `encint.set_progress` under `description` (Ctrl-C stops a long one at a level
/// boundary: see [`crate::progress`]).
pub(crate) fn run_named<T: Send>(
    py: Python<'_>,
    description: &str,
    f: impl FnOnce() -> encint::Result<T> + Send,
) -> PyResult<T> {
    let server = crate::key_sets::current_server().ok();
    detached(py, || {
        match server {
            Some(s) => encint::set_server(s),
            None => encint::unset_server(),
        }
        let progress = Progress::new(description);
        let result = progress.watch(f);
        progress.finish(result, |e| match e {
            encint::Error::NoServer => crate::key_sets::current_server()
                .err()
                .unwrap_or_else(|| to_py(encint::Error::NoServer)),
            e => to_py(e),
        })
    })
}

/// Adds the family's classes and functions to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FheValue>()?;
    m.add_class::<FheArray>()?;
    m.add_class::<compiled::Compiled>()?;
    m.add_function(wrap_pyfunction!(_set_family_wrapper, m)?)?;
    m.add_function(wrap_pyfunction!(_type_name, m)?)?;
    m.add_function(wrap_pyfunction!(array::_where, m)?)?;
    m.add_function(wrap_pyfunction!(compiled::_compile, m)?)?;
    Ok(())
}
