//! Python operands of the family's operations: a value of the family, or a clear Python
//! int (NumPy integer scalars too) that must be a value of the other operand's type (a
//! shift or rotation amount: any non-negative int, taken modulo the width), or a NumPy
//! array of such ints ([`clear_array`]).

use encint::fhe::{FheType, IntoOperand, Operand};
use encint::typed::IntType;
use num_bigint::BigInt;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt, PyTuple};

use super::FheValue;
use crate::errors::invalid;

/// A right operand: an encrypted (or traced) value, or a clear one.
#[derive(Clone, Debug)]
pub enum Rhs {
    /// A value of the family.
    Value(encint::fhe::FheValue),
    /// A clear value's pattern.
    Clear(i128),
}

impl Rhs {
    /// As the facade's operand.
    pub fn operand(&self) -> Operand<'_> {
        match self {
            Rhs::Value(v) => Operand::Value(v.repr()),
            Rhs::Clear(k) => Operand::Clear(*k),
        }
    }
}

impl IntoOperand<encint::fhe::FheValue> for Rhs {
    fn operand(&self) -> Operand<'_> {
        Rhs::operand(self)
    }
}

/// A clear operand for the facade.
#[derive(Clone, Copy, Debug)]
pub struct K(pub i128);

impl IntoOperand<encint::fhe::FheValue> for K {
    fn operand(&self) -> Operand<'_> {
        Operand::Clear(self.0)
    }
}

/// How a clear operand is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clear {
    /// A value of the type.
    Value,
    /// A non-negative shift or rotation amount (reduced modulo the width).
    Amount,
}

impl Clear {
    /// How a clear right operand of `op` is read (`swap`: it is the left operand).
    pub fn of(op: encint::Op, swap: bool) -> Clear {
        use encint::Op;
        match op {
            Op::ShlVar | Op::ShrVar | Op::RotlVar | Op::RotrVar if !swap => Clear::Amount,
            _ => Clear::Value,
        }
    }
}

/// Python's `ZeroDivisionError` for `x // 0` and `x % 0` by a clear 0 (`zero`: the right
/// operand is one; `swap`: it is the left operand).
pub fn check_division(op: encint::Op, swap: bool, zero: bool) -> pyo3::PyResult<()> {
    if matches!(op, encint::Op::FloorDiv | encint::Op::Mod) && !swap && zero {
        return Err(pyo3::exceptions::PyZeroDivisionError::new_err(
            "integer division or modulo by zero",
        ));
    }
    Ok(())
}

/// Reads `o` as an integer when it is one (a Python int or bool, or an object with
/// `__index__` such as a NumPy integer; not a float or an encrypted value).
pub fn clear_int(o: &Bound<'_, PyAny>) -> Option<BigInt> {
    if o.is_instance_of::<PyFloat>() || o.downcast::<FheValue>().is_ok() {
        return None;
    }
    if o.downcast::<super::FheArray>().is_ok() {
        return None;
    }
    if o.is_instance_of::<PyInt>() || o.hasattr("__index__").unwrap_or(false) {
        return o.extract::<BigInt>().ok();
    }
    None
}

/// `k` checked as a clear operand of type `ty`, as the pattern the facade takes.
pub fn clear_of(k: &BigInt, ty: IntType, how: Clear) -> PyResult<i128> {
    match how {
        Clear::Amount => {
            if k.sign() == num_bigint::Sign::Minus {
                return Err(invalid(format!("negative shift or rotation amount {k}")));
            }
            let r = k % BigInt::from(ty.bits);
            Ok(i128::try_from(&r).expect("a remainder below 129"))
        }
        Clear::Value => {
            let (lo, hi) = range(ty);
            if *k < lo || *k > hi {
                return Err(invalid(format!("{k} is not a value of {ty}")));
            }
            // An unsigned 128-bit value above i128::MAX is its two's-complement pattern.
            let m = BigInt::from(1) << 128;
            let k = if *k > BigInt::from(i128::MAX) {
                k - m
            } else {
                k.clone()
            };
            Ok(i128::try_from(&k).expect("a value of a type of at most 128 bits"))
        }
    }
}

/// `k` as an argument value of type `ty`: what encryption and `run_clear` take, the
/// facade's `i128` of the value (not a pattern). Errors name `k` as given: outside the
/// type, or (`u128`) above `2**127 - 1`, the largest value the facade's arguments hold
/// (larger values arise from operations).
pub fn argument(k: &BigInt, ty: IntType) -> PyResult<i128> {
    clear_of(k, ty, Clear::Value)?;
    i128::try_from(k).map_err(|_| {
        invalid(format!(
            "{k}: unsigned 128-bit values above 2**127 - 1 are no arguments (the facade's \
             FheValue::encrypt and run_clear take an i128); they arise from operations"
        ))
    })
}

/// The smallest and largest value of `ty`, as big integers (unsigned 128 bits included).
pub fn range(ty: IntType) -> (BigInt, BigInt) {
    if ty.signed {
        let h = BigInt::from(1) << (ty.bits - 1);
        (-h.clone(), h - 1)
    } else {
        (BigInt::from(0), (BigInt::from(1) << ty.bits) - 1)
    }
}

/// A clear NumPy array as an operand: its shape and each element's pattern, row-major.
#[derive(Clone, Debug)]
pub struct ClearArray {
    /// The shape.
    pub shape: Vec<usize>,
    /// Each element checked as a clear operand of the type (see [`clear_of`]).
    pub values: Vec<i128>,
}

/// Reads `o` as a NumPy array of integers or booleans of at least one dimension, each
/// element a clear operand of `ty` read `how`, broadcast to `to` when given (NumPy's rules;
/// `InvalidInputError` where the shapes do not broadcast). `check(count)` may refuse the
/// element count before any element is read. `None` for anything else (a 0-d array is a
/// scalar, read by [`clear_int`]; an array of floats has no operation).
pub fn clear_array(
    o: &Bound<'_, PyAny>,
    ty: IntType,
    how: Clear,
    to: Option<&[usize]>,
    check: impl FnOnce(usize) -> PyResult<()>,
) -> PyResult<Option<ClearArray>> {
    let py = o.py();
    // No array is a NumPy array unless NumPy is imported.
    let modules = py.import("sys")?.getattr("modules")?;
    let Ok(np) = modules.get_item("numpy") else {
        return Ok(None);
    };
    if !o.is_instance(&np.getattr("ndarray")?)? {
        return Ok(None);
    }
    let shape: Vec<usize> = o.getattr("shape")?.extract()?;
    let kind: String = o.getattr("dtype")?.getattr("kind")?.extract()?;
    if shape.is_empty() || !matches!(kind.as_str(), "i" | "u" | "b" | "O") {
        return Ok(None);
    }
    let (o, shape) = match to {
        Some(to) if to != shape.as_slice() => {
            let b = np
                .call_method1("broadcast_to", (o, PyTuple::new(py, to)?))
                .map_err(|_| {
                    invalid(format!(
                        "a NumPy array of shape {shape:?} does not broadcast to the encrypted \
                         array's shape {to:?}"
                    ))
                })?;
            (b, to.to_vec())
        }
        _ => (o.clone(), shape),
    };
    check(encint::limits::element_count(&shape).map_err(crate::errors::to_py)?)?;
    let flat = o.call_method0("ravel")?.call_method0("tolist")?;
    let values = flat
        .try_iter()?
        .map(|v| {
            let k = clear_int(&v?).ok_or_else(|| {
                PyTypeError::new_err("a NumPy operand is an array of integers or booleans")
            })?;
            clear_of(&k, ty, how)
        })
        .collect::<PyResult<Vec<i128>>>()?;
    Ok(Some(ClearArray { shape, values }))
}

/// Reads `o` as the right operand of an operation on a value of type `ty`: `None` when it
/// is neither a value of the family nor an integer (the operator then returns
/// `NotImplemented`).
pub fn rhs(o: &Bound<'_, PyAny>, ty: IntType, how: Clear) -> PyResult<Option<Rhs>> {
    if let Ok(v) = o.downcast::<FheValue>() {
        return Ok(Some(Rhs::Value(v.get().inner.clone())));
    }
    match clear_int(o) {
        Some(k) => Ok(Some(Rhs::Clear(clear_of(&k, ty, how)?))),
        None => Ok(None),
    }
}

/// Decrypts `v` with `key` into the Python int of its type. The facade's decryption
/// returns an `i128`, an unsigned 128-bit value above `i128::MAX` as its negative
/// pattern (in every form): such a value is brought back here by adding `2**128`.
pub fn decrypt_int(v: &encint::fhe::FheValue, key: &encint::ClientKey) -> encint::Result<BigInt> {
    Ok(typed_int(v.decrypt(key)?, v.ty()))
}

/// The Python int of a value of `ty` that the facade returns as an `i128`: an unsigned
/// 128-bit value above `i128::MAX` comes as its negative pattern.
pub fn typed_int(v: i128, ty: encint::typed::IntType) -> BigInt {
    if v < 0 && !ty.signed {
        BigInt::from(v as u128)
    } else {
        BigInt::from(v)
    }
}

/// A clear table of matches from values of `ty` (a dict, or an iterable of `(input,
/// output)` pairs of ints) and its output type (`out`, default `ty`), as the facade's
/// patterns; errors name the entry outside its type.
pub fn table_arg(
    ty: IntType,
    table: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Vec<(i128, i128)>, IntType)> {
    let out = match out {
        Some(t) => super::type_arg(t)?,
        None => ty,
    };
    let items = match table.downcast::<pyo3::types::PyDict>() {
        Ok(d) => d.items().into_any(),
        Err(_) => table.clone(),
    };
    let mut pairs = Vec::new();
    for item in items.try_iter()? {
        let (i, o): (BigInt, BigInt) = item?
            .extract()
            .map_err(|_| invalid("a table is a dict of ints or (input, output) pairs of ints"))?;
        pairs.push((
            clear_of(&i, ty, Clear::Value)?,
            clear_of(&o, out, Clear::Value)?,
        ));
        if pairs.len() > encint::fhe::MAX_MATCHES {
            return Err(invalid(format!(
                "a table of more than {} entries",
                encint::fhe::MAX_MATCHES
            )));
        }
    }
    Ok((pairs, out))
}
