//! `EncTyped`: the typed integer API of `encint::typed` (TFHE-rs' `FheUint8`, `FheInt16`,
//! ...: `n`-bit signed or unsigned values, results modulo `2^n`), with Python operators.
//!
//! Each operation is planned like `Server::typed_apply` (the planner of
//! `encint_arith::typed` picks the digit or the bit algorithm for the operand forms and the
//! thread count) and built with `encint_arith::typed::build` into one circuit, which runs
//! with the current server or, in clear mode, with the clear executor (as every operator of
//! the package does).

use encint::typed::{build, plan, Form, IntOp, IntType, MAX_TYPED_BITS};
use encint::EncInt as RInt;
use encint_arith::SInt;
use encint_tfhe::envelope::{self, Kind};
use encint_tfhe::{DigitParameters, Validate};
use num_bigint::{BigInt, Sign};
use pyo3::exceptions::{PyTypeError, PyValueError, PyZeroDivisionError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde::{Deserialize, Serialize};

use crate::int::{arith, open_digits, run_named, seal_digits, value_of, Val};
use crate::keys::ClientKey;
use crate::{detached, envelope_err, invalid, LimitError};

/// An encrypted integer of a fixed type (`bits` wide, signed or unsigned) with the
/// operations and semantics of TFHE-rs' `FheInt`/`FheUint`: every result is reduced modulo
/// `2**bits` (wrapping).
///
/// Operators: `+ - * // % & | ^ ~ -x << >>`, comparisons `< <= > >= == !=` (an encrypted
/// 0 or 1 of type `u1`), `min`, `max`, `rotate_left`, `rotate_right`, `cast`,
/// `encint.select`. Operands are `EncTyped` values of the same type or Python ints that
/// are values of the type. Unlike Python ints, `//` truncates toward zero and `%` takes
/// the dividend's sign (Rust's and TFHE-rs' semantics; the same as Python's for unsigned
/// types); `MIN // -1 == MIN`; division by an encrypted 0 gives all ones (unsigned), `-1`
/// (dividend >= 0) or `1` (dividend < 0) (signed), and the remainder is the dividend. Shift
/// amounts at or above the width give 0 (right shifts of a negative value: -1); an
/// encrypted amount is read as an unsigned `bits`-bit pattern.
#[pyclass(module = "encint._encint", frozen)]
#[derive(Clone)]
pub struct EncTyped {
    val: Val,
    ty: IntType,
    form: Form,
}

/// An operand: a value of the same type or a constant (a value of the type).
enum TArg {
    Val(Val, Form),
    Const(BigInt),
}

fn type_of(bits: usize, signed: bool) -> PyResult<IntType> {
    IntType::new(bits, signed)
        .map_err(|_| LimitError::new_err(format!("width {bits} outside 1..={MAX_TYPED_BITS}")))
}

/// The smallest and largest value of `ty` (as Python ints: unsigned 128 bits included).
fn range(ty: IntType) -> (BigInt, BigInt) {
    let one = BigInt::from(1);
    if ty.signed {
        let h = &one << (ty.bits - 1);
        (-h.clone(), h - 1)
    } else {
        (BigInt::from(0), (&one << ty.bits) - 1)
    }
}

/// `v` reduced modulo `2^bits` into the range of `ty`.
fn wrap(ty: IntType, v: &BigInt) -> BigInt {
    let m = BigInt::from(1) << ty.bits;
    let mut u = ((v % &m) + &m) % &m;
    if ty.signed && u >= (&m >> 1) {
        u -= &m;
    }
    u
}

/// The canonical digits of a value of `ty`: its two's-complement bits, the top one
/// negated when signed.
fn canonical_digits(ty: IntType, v: &BigInt) -> PyResult<Vec<i64>> {
    let (lo, hi) = range(ty);
    if *v < lo || *v > hi {
        return Err(invalid(format!("{v} is not a value of {ty}")));
    }
    let u = if v.sign() == Sign::Minus {
        v + (BigInt::from(1) << ty.bits)
    } else {
        v.clone()
    };
    let m = u.magnitude();
    Ok((0..ty.bits)
        .map(|i| {
            let bit = i64::from(m.bit(i as u64));
            if ty.signed && i == ty.bits - 1 {
                -bit
            } else {
                bit
            }
        })
        .collect())
}

/// `k` as a scalar of the `IntOp` variants that take one, when it is a value of `ty` that
/// fits an `i128` (else the operation takes it as a constant operand).
fn scalar(ty: IntType, k: &BigInt) -> Option<i128> {
    let (lo, hi) = range(ty);
    if *k < lo || *k > hi {
        return None;
    }
    i128::try_from(k).ok()
}

impl EncTyped {
    fn describe(&self) -> String {
        self.ty.to_string()
    }

    fn arg(&self, obj: &Bound<'_, PyAny>) -> PyResult<Option<TArg>> {
        if let Ok(x) = obj.downcast::<EncTyped>() {
            let x = x.get();
            if x.ty != self.ty {
                return Err(invalid(format!(
                    "operands of types {} and {} (cast one first)",
                    self.ty, x.ty
                )));
            }
            return Ok(Some(TArg::Val(x.val.clone(), x.form)));
        }
        if obj.is_instance_of::<pyo3::types::PyBool>() {
            let b: bool = obj.extract()?;
            return Ok(Some(TArg::Const(BigInt::from(u8::from(b)))));
        }
        Ok(obj.extract::<BigInt>().ok().map(TArg::Const))
    }

    /// Runs `op` on `args` (values or constants of `ty`; the select condition first):
    /// plans it for the operand forms, builds it, runs it as one circuit.
    fn apply(py: Python<'_>, op: IntOp, ty: IntType, args: Vec<TArg>) -> PyResult<EncTyped> {
        let mut vals: Vec<Val> = Vec::new();
        let mut forms = Vec::with_capacity(args.len());
        // Per operand: the index of its circuit input, or its constant digits.
        let mut slots: Vec<Result<usize, Vec<i64>>> = Vec::with_capacity(args.len());
        for (i, a) in args.into_iter().enumerate() {
            match a {
                TArg::Val(v, f) => {
                    forms.push(f);
                    slots.push(Ok(vals.len()));
                    vals.push(v);
                }
                TArg::Const(k) => {
                    let cty = if op == IntOp::Select && i == 0 {
                        IntType::BOOL
                    } else {
                        ty
                    };
                    forms.push(Form::Canonical);
                    slots.push(Err(canonical_digits(cty, &k)?));
                }
            }
        }
        if vals.is_empty() {
            return Err(PyTypeError::new_err(
                "an operation needs at least one encrypted operand",
            ));
        }
        let ar = arith();
        let threads = rayon::current_num_threads();
        let algorithm = detached(py, || {
            plan(&ar, op, ty, &forms, threads)
                .map(|p| p.chosen().algorithm)
                .map_err(|e| invalid(e.to_string()))
        })?;
        let refs: Vec<&Val> = vals.iter().collect();
        let mut built: Option<Result<Form, String>> = None;
        let forms_ref = &forms;
        let built_ref = &mut built;
        // Typed values have at most MAX_TYPED_BITS (128) bits, so every typed operation is
        // small; the bound is the boolean division's (the costliest typed circuit), twice.
        let est = encint::limits::Estimate::new(
            ty.bits as u64,
            encint::limits::word(encint::limits::WordOp::DivRem, ty.bits).saturating_mul(2),
        );
        let (mut out, _) = run_named(py, "typed", &refs, est, move |ar, b, x| {
            let operands: Vec<SInt> = slots
                .iter()
                .map(|s| match s {
                    Ok(i) => x[*i].clone(),
                    Err(digits) => SInt {
                        digits: digits.iter().map(|&d| b.constant(d)).collect(),
                    },
                })
                .collect();
            match build(ar, b, op, ty, algorithm, &operands, forms_ref) {
                Ok((r, form)) => {
                    *built_ref = Some(Ok(form));
                    vec![r]
                }
                Err(e) => {
                    *built_ref = Some(Err(e.to_string()));
                    Vec::new()
                }
            }
        })?;
        let form = match built {
            Some(Ok(f)) => f,
            Some(Err(e)) => return Err(invalid(e)),
            None => return Err(invalid("the operation built nothing")),
        };
        let val = out
            .pop()
            .ok_or_else(|| invalid("the operation built no output"))?;
        Ok(EncTyped {
            val,
            ty: op.result_type(ty),
            form,
        })
    }

    /// A binary operator: `op` for two values, `scalar_op(k)` (if any) for a constant
    /// right operand, `swap` for the reflected operator.
    fn binop(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: IntOp,
        scalar_op: Option<fn(i128) -> IntOp>,
        swap: bool,
    ) -> PyResult<PyObject> {
        let Some(arg) = self.arg(other)? else {
            return Ok(py.NotImplemented());
        };
        let me = TArg::Val(self.val.clone(), self.form);
        let r = match (arg, scalar_op, swap) {
            (TArg::Const(k), Some(f), false) if scalar(self.ty, &k).is_some() => {
                let k = scalar(self.ty, &k).expect("checked");
                EncTyped::apply(py, f(k), self.ty, vec![me])?
            }
            (arg, _, false) => EncTyped::apply(py, op, self.ty, vec![me, arg])?,
            (arg, _, true) => EncTyped::apply(py, op, self.ty, vec![arg, me])?,
        };
        Ok(Py::new(py, r)?.into_any())
    }

    fn division(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        rem: bool,
        swap: bool,
    ) -> PyResult<PyObject> {
        if !swap {
            if let Some(TArg::Const(k)) = self.arg(other)? {
                if k.sign() == Sign::NoSign {
                    return Err(PyZeroDivisionError::new_err("division by zero"));
                }
            }
        }
        let (op, sc): (IntOp, fn(i128) -> IntOp) = if rem {
            (IntOp::Rem, IntOp::RemScalar)
        } else {
            (IntOp::Div, IntOp::DivScalar)
        };
        self.binop(py, other, op, Some(sc), swap)
    }

    fn shift(&self, py: Python<'_>, other: &Bound<'_, PyAny>, op: IntOp) -> PyResult<PyObject> {
        if other.is_instance_of::<EncTyped>() {
            return self.binop(py, other, op, None, false);
        }
        let Ok(k) = other.extract::<BigInt>() else {
            return Ok(py.NotImplemented());
        };
        if k.sign() == Sign::Minus {
            return Err(PyValueError::new_err("negative shift count"));
        }
        let bits = self.ty.bits as u32;
        // Shifts: amounts at or above the width all give the same result; rotations: the
        // amount modulo the width.
        let clamped = u32::try_from(&k).unwrap_or(u32::MAX).min(bits);
        let modulo = u32::try_from(&(&k % BigInt::from(bits))).expect("below the width");
        let op = match op {
            IntOp::ShlVar => IntOp::Shl(clamped),
            IntOp::ShrVar => IntOp::Shr(clamped),
            IntOp::RotlVar => IntOp::Rotl(modulo),
            _ => IntOp::Rotr(modulo),
        };
        let me = TArg::Val(self.val.clone(), self.form);
        Ok(Py::new(py, EncTyped::apply(py, op, self.ty, vec![me])?)?.into_any())
    }

    fn unary(&self, py: Python<'_>, op: IntOp) -> PyResult<EncTyped> {
        EncTyped::apply(
            py,
            op,
            self.ty,
            vec![TArg::Val(self.val.clone(), self.form)],
        )
    }
}

/// The envelope payload of an `EncTyped`: a tag, the type, the form and the digits.
#[derive(Serialize, Deserialize)]
struct TypedPayload {
    tag: [u8; 8],
    bits: u32,
    signed: bool,
    canonical: bool,
    value: RInt,
}

const TYPED_TAG: [u8; 8] = *b"ENCTYPE1";
/// The tag of a radix-4 value (its `canonical` flag unused): `⌈bits/2⌉` blocks.
const TYPED_RADIX4_TAG: [u8; 8] = *b"ENCTYR41";

/// Whether `tag` starts the payload of an `EncTyped` envelope.
pub(crate) fn is_typed_tag(tag: &[u8]) -> bool {
    tag == TYPED_TAG || tag == TYPED_RADIX4_TAG
}

impl TypedPayload {
    fn form(&self) -> Form {
        match (self.tag == TYPED_RADIX4_TAG, self.canonical) {
            (true, _) => Form::Radix4,
            (false, true) => Form::Canonical,
            (false, false) => Form::Lazy,
        }
    }
}

impl Validate for TypedPayload {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        if self.tag != TYPED_TAG && self.tag != TYPED_RADIX4_TAG {
            return Err("not an EncTyped payload".into());
        }
        let bits = self.bits as usize;
        if !(1..=MAX_TYPED_BITS).contains(&bits) {
            return Err(format!("width {bits} outside 1..={MAX_TYPED_BITS}"));
        }
        // Canonical values have exactly `bits` digits, radix-4 ones exactly `⌈bits/2⌉`;
        // lazy operation results at most `bits`.
        let form = self.form();
        let exact = form != Form::Lazy;
        let want = form.digits(IntType {
            bits,
            signed: self.signed,
        });
        if self.value.len() > want || (exact && self.value.len() != want) {
            return Err(format!(
                "{} digits for a {}-bit value",
                self.value.len(),
                bits
            ));
        }
        self.value.validate(params)
    }
}

#[pymethods]
impl EncTyped {
    /// Width in bits.
    #[getter]
    fn bits(&self) -> usize {
        self.ty.bits
    }
    /// Whether the type is signed (two's complement).
    #[getter]
    fn signed(&self) -> bool {
        self.ty.signed
    }
    /// The type's name (`"u8"`, `"i16"`, ...).
    #[getter]
    fn dtype(&self) -> String {
        self.ty.to_string()
    }
    /// `"canonical"` (two's-complement digits: bit operations take them as they are),
    /// `"lazy"` (any representative modulo `2**bits`: a wrapping result not normalised) or
    /// `"radix4"` (two-bit blocks, like TFHE-rs' radix ciphertexts).
    #[getter]
    fn form(&self) -> &'static str {
        self.form.name()
    }
    /// Whether this is a clear-mode value.
    #[getter]
    fn is_clear(&self) -> bool {
        matches!(self.val, Val::Clear(_))
    }

    /// The value, its type and form in a checked envelope (kind Ciphertext).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let Val::Enc(x) = &self.val else {
            return Err(invalid("a clear-mode value has no envelope"));
        };
        let payload = TypedPayload {
            tag: if self.form == Form::Radix4 {
                TYPED_RADIX4_TAG
            } else {
                TYPED_TAG
            },
            bits: self.ty.bits as u32,
            signed: self.ty.signed,
            canonical: self.form == Form::Canonical,
            value: x.clone(),
        };
        let bytes = detached(py, || {
            let params = crate::keys::params_of(payload.value.key_set());
            envelope::seal(Kind::Ciphertext, params.id(), &payload).map_err(envelope_err)
        })?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Reads a value written by `to_bytes` (checks magic, kind, version, parameters,
    /// type and every digit's dimension).
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<EncTyped> {
        crate::int::expect_kind(&data, crate::int::CiphertextKind::Typed)?;
        let p: TypedPayload = detached(py, || {
            envelope::open_known(&data, Kind::Ciphertext).map_err(envelope_err)
        })?;
        Ok(EncTyped {
            ty: type_of(p.bits as usize, p.signed)?,
            form: p.form(),
            val: Val::Enc(p.value),
        })
    }

    #[staticmethod]
    fn _from_clear(digits: Vec<i64>, bits: usize, signed: bool, form: &str) -> PyResult<EncTyped> {
        let ty = type_of(bits, signed)?;
        let form = Form::from_name(form).ok_or_else(|| invalid(format!("unknown form {form}")))?;
        let fits = match form {
            Form::Lazy => digits.len() <= bits,
            _ => form.value(ty, &digits).is_some(),
        };
        if !fits || (form != Form::Radix4 && digits.iter().any(|d| !(-1..=1).contains(d))) {
            return Err(invalid("clear digits do not fit the type"));
        }
        Ok(EncTyped {
            val: Val::Clear(digits),
            ty,
            form,
        })
    }

    fn __reduce__(&self, py: Python<'_>) -> PyResult<(PyObject, PyObject)> {
        let cls = py.get_type::<EncTyped>();
        match &self.val {
            Val::Enc(_) => Ok((
                cls.getattr("from_bytes")?.unbind(),
                (self.to_bytes(py)?,).into_pyobject(py)?.into_any().unbind(),
            )),
            Val::Clear(d) => Ok((
                cls.getattr("_from_clear")?.unbind(),
                (d.clone(), self.ty.bits, self.ty.signed, self.form.name())
                    .into_pyobject(py)?
                    .into_any()
                    .unbind(),
            )),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "EncTyped(<{} {}>)",
            if self.is_clear() {
                "clear"
            } else {
                "encrypted"
            },
            self.describe()
        )
    }
    fn __bool__(&self) -> PyResult<bool> {
        Err(PyTypeError::new_err(
            "an encrypted value has no truth value: decrypt it, or use encint.select",
        ))
    }
    fn __hash__(&self) -> PyResult<isize> {
        Err(PyTypeError::new_err("EncTyped is not hashable"))
    }
    fn __index__(&self) -> PyResult<isize> {
        Err(PyTypeError::new_err(
            "an encrypted value is not a Python int: decrypt it with the client key",
        ))
    }

    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::WrappingAdd, None, false)
    }
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::WrappingAdd, None, true)
    }
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::WrappingSub, None, false)
    }
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::WrappingSub, None, true)
    }
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(
            py,
            o,
            IntOp::WrappingMul,
            Some(IntOp::WrappingScalarMul),
            false,
        )
    }
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.__mul__(py, o)
    }
    fn __floordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.division(py, o, false, false)
    }
    fn __rfloordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.division(py, o, false, true)
    }
    fn __mod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.division(py, o, true, false)
    }
    fn __rmod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.division(py, o, true, true)
    }
    fn __and__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::And, None, false)
    }
    fn __rand__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::And, None, true)
    }
    fn __or__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::Or, None, false)
    }
    fn __ror__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::Or, None, true)
    }
    fn __xor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::Xor, None, false)
    }
    fn __rxor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::Xor, None, true)
    }
    fn __lshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.shift(py, o, IntOp::ShlVar)
    }
    fn __rshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.shift(py, o, IntOp::ShrVar)
    }
    /// `self` rotated left by `k` (an int or an `EncTyped` of the same type) modulo the
    /// width.
    fn rotate_left(&self, py: Python<'_>, k: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.shift(py, k, IntOp::RotlVar)
    }
    /// `self` rotated right by `k` modulo the width.
    fn rotate_right(&self, py: Python<'_>, k: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.shift(py, k, IntOp::RotrVar)
    }
    fn __neg__(&self, py: Python<'_>) -> PyResult<EncTyped> {
        self.unary(py, IntOp::WrappingNeg)
    }
    fn __pos__(&self) -> EncTyped {
        self.clone()
    }
    fn __invert__(&self, py: Python<'_>) -> PyResult<EncTyped> {
        self.unary(py, IntOp::Not)
    }
    fn __lt__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::Lt, None, false)
    }
    fn __le__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::Le, None, false)
    }
    fn __gt__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::Gt, None, false)
    }
    fn __ge__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::Ge, None, false)
    }
    fn __eq__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::Eq, None, false)
    }
    fn __ne__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::Ne, None, false)
    }
    /// `min(self, other)` in the type's order.
    fn min(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::Min, None, false)
    }
    /// `max(self, other)` in the type's order.
    fn max(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, IntOp::Max, None, false)
    }
    /// `self * self` modulo `2**bits`.
    fn square(&self, py: Python<'_>) -> PyResult<EncTyped> {
        self.unary(py, IntOp::WrappingSquare)
    }
    /// The value converted to `bits` bits, `signed` or not, like Rust's `as`: truncated,
    /// or zero/sign-extended by this value's signedness.
    #[pyo3(signature = (bits, signed = false))]
    fn cast(&self, py: Python<'_>, bits: usize, signed: bool) -> PyResult<EncTyped> {
        let to = type_of(bits, signed)?;
        self.unary(py, IntOp::Cast(to))
    }
}

/// `encint.select(cond, a, b)` with an `EncTyped` condition (its value odd: `a`).
pub(crate) fn select(
    py: Python<'_>,
    cond: &EncTyped,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<PyObject> {
    let model = if let Ok(x) = a.downcast::<EncTyped>() {
        x.get().clone()
    } else if let Ok(x) = b.downcast::<EncTyped>() {
        x.get().clone()
    } else {
        return Err(PyTypeError::new_err(
            "select with an EncTyped condition needs an EncTyped operand",
        ));
    };
    let arg = |o: &Bound<'_, PyAny>| -> PyResult<TArg> {
        model
            .arg(o)?
            .ok_or_else(|| PyTypeError::new_err("select operands must be EncTyped or int"))
    };
    let (x, y) = (arg(a)?, arg(b)?);
    // A condition is read as one bit: canonical only as a `u1` (a comparison result),
    // else the parity of its first digit (a radix-4 block, or a signed digit).
    let form = match cond.form {
        Form::Radix4 | Form::Canonical if cond.ty == IntType::BOOL => Form::Canonical,
        Form::Radix4 => Form::Radix4,
        _ => Form::Lazy,
    };
    let c = TArg::Val(cond.val.clone(), form);
    let r = EncTyped::apply(py, IntOp::Select, model.ty, vec![c, x, y])?;
    Ok(Py::new(py, r)?.into_any())
}

impl ClientKey {
    pub(crate) fn encrypt_typed_impl(
        &self,
        py: Python<'_>,
        value: BigInt,
        bits: usize,
        signed: bool,
        form: &str,
    ) -> PyResult<EncTyped> {
        let ty = type_of(bits, signed)?;
        let form = match Form::from_name(form) {
            Some(f @ (Form::Canonical | Form::Radix4)) => f,
            _ => {
                return Err(invalid(format!(
                    "unknown form {form:?} (canonical or radix4)"
                )))
            }
        };
        let mut digits = canonical_digits(ty, &value)?;
        if form == Form::Radix4 {
            // Blocks of two bits of the unsigned pattern (canonical digits are its bits,
            // the top one negated when signed).
            digits = digits
                .chunks(2)
                .map(|p| p.iter().enumerate().map(|(k, d)| d.abs() << k).sum())
                .collect();
        }
        let val = detached(py, || Ok(seal_digits(self, digits)))?;
        Ok(EncTyped { val, ty, form })
    }

    pub(crate) fn decrypt_typed_impl(&self, py: Python<'_>, x: &EncTyped) -> PyResult<BigInt> {
        if x.form == Form::Radix4 {
            let digits = detached(py, || open_digits(self, &x.val, 0..=3))?;
            let v = digits
                .iter()
                .rev()
                .fold(BigInt::from(0), |acc, &d| acc * 4 + d);
            return Ok(wrap(x.ty, &v));
        }
        let digits = detached(py, || open_digits(self, &x.val, -1..=1))?;
        Ok(wrap(x.ty, &value_of(&digits)))
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<EncTyped>()?;
    Ok(())
}
