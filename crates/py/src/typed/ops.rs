//! How the operators of `EncTyped` run: each operation is planned for the operand forms,
//! built with `encint::typed::build` and run as one circuit.

use encint::arith::SInt;
use encint::limits::{self, Estimate, WordOp};
use encint::typed::{build, plan, Form, IntOp, IntType};
use encint::Op;
use num_bigint::{BigInt, Sign};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use super::class::{canonical_digits, scalar, EncTyped, TArg};
use crate::args::int_operand;
use crate::circuits::BitOp;
use crate::errors::{invalid, value_error};
use crate::eval::{arith, run_named};
use crate::guard::detached;
use crate::methods::{ArithOp, Operands, Operators, PyOp};
use crate::value::Val;

impl EncTyped {
    /// The type's name.
    pub(super) fn describe(&self) -> String {
        self.ty.to_string()
    }

    /// `obj` as an operand of an operator of `self` (`None`: not one).
    pub(super) fn arg(&self, obj: &Bound<'_, PyAny>) -> PyResult<Option<TArg>> {
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
        Ok(int_operand(obj).map(TArg::Const))
    }

    /// Runs `op` on `args` (values or constants of `ty`; the select condition first):
    /// plans it for the operand forms, builds it, runs it as one circuit.
    pub(super) fn apply(
        py: Python<'_>,
        op: IntOp,
        ty: IntType,
        args: Vec<TArg>,
    ) -> PyResult<EncTyped> {
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
        let est = Estimate::new(
            ty.bits as u64,
            limits::word(WordOp::DivRem, ty.bits).saturating_mul(2),
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
        arg: TArg,
        op: IntOp,
        scalar_op: Option<fn(i128) -> IntOp>,
        swap: bool,
    ) -> PyResult<PyObject> {
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

    /// `//` (truncating) or `%` (`rem`).
    fn division(&self, py: Python<'_>, x: TArg, rem: bool, swap: bool) -> PyResult<PyObject> {
        let (op, sc): (IntOp, fn(i128) -> IntOp) = if rem {
            (IntOp::Rem, IntOp::RemScalar)
        } else {
            (IntOp::Div, IntOp::DivScalar)
        };
        self.binop(py, x, op, Some(sc), swap)
    }

    /// A shift or rotation by a Python int or an `EncTyped` of the same type.
    pub(super) fn shift_by(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: IntOp,
    ) -> PyResult<PyObject> {
        if other.is_instance_of::<EncTyped>() {
            let x = self.arg(other)?.expect("an EncTyped is an operand");
            return self.binop(py, x, op, None, false);
        }
        let Ok(k) = other.extract::<BigInt>() else {
            return Ok(py.NotImplemented());
        };
        if k.sign() == Sign::Minus {
            return Err(value_error("negative shift count"));
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

    /// `op` on `self` alone.
    pub(super) fn unary(&self, py: Python<'_>, op: IntOp) -> PyResult<EncTyped> {
        EncTyped::apply(
            py,
            op,
            self.ty,
            vec![TArg::Val(self.val.clone(), self.form)],
        )
    }
}

impl Operands for EncTyped {
    type Operand = TArg;

    fn operand(&self, o: &Bound<'_, PyAny>) -> PyResult<Option<TArg>> {
        self.arg(o)
    }

    fn is_zero(x: &TArg) -> bool {
        matches!(x, TArg::Const(k) if k.sign() == Sign::NoSign)
    }
}

/// The typed operation of a Python operator on a value and a value or constant of the
/// type (`//`, `%` and `*` by a constant have their own, see `division` and `arith`).
fn int_op(op: PyOp) -> IntOp {
    match op {
        PyOp::Arith(ArithOp::Add) => IntOp::WrappingAdd,
        PyOp::Arith(ArithOp::Sub) => IntOp::WrappingSub,
        PyOp::Arith(ArithOp::Mul) => IntOp::WrappingMul,
        PyOp::Bit(BitOp::And) => IntOp::And,
        PyOp::Bit(BitOp::Or) => IntOp::Or,
        PyOp::Bit(BitOp::Xor) => IntOp::Xor,
        PyOp::Bit(BitOp::FloorDiv) => IntOp::Div,
        PyOp::Bit(BitOp::Mod) => IntOp::Rem,
        PyOp::Bit(BitOp::Shl) | PyOp::Shift(true) => IntOp::ShlVar,
        PyOp::Bit(BitOp::Shr) | PyOp::Shift(false) => IntOp::ShrVar,
        PyOp::Cmp(Op::Lt) => IntOp::Lt,
        PyOp::Cmp(Op::Le) => IntOp::Le,
        PyOp::Cmp(Op::Gt) => IntOp::Gt,
        PyOp::Cmp(Op::Ge) => IntOp::Ge,
        PyOp::Cmp(Op::Eq) => IntOp::Eq,
        PyOp::Cmp(Op::Ne) => IntOp::Ne,
        PyOp::Cmp(other) => unreachable!("{other:?} is not a comparison"),
        PyOp::MinMax(false) => IntOp::Min,
        PyOp::MinMax(true) => IntOp::Max,
    }
}

impl Operators for EncTyped {
    fn arith(&self, py: Python<'_>, x: TArg, op: ArithOp, swap: bool) -> PyResult<PyObject> {
        if op == ArithOp::Mul {
            // A product is the same either way round: a constant is a scalar factor.
            let scalar = Some(IntOp::WrappingScalarMul as fn(i128) -> IntOp);
            return self.binop(py, x, IntOp::WrappingMul, scalar, false);
        }
        self.binop(py, x, int_op(PyOp::Arith(op)), None, swap)
    }

    fn bitwise(&self, py: Python<'_>, x: TArg, op: BitOp, swap: bool) -> PyResult<PyObject> {
        if let BitOp::FloorDiv | BitOp::Mod = op {
            return self.division(py, x, op == BitOp::Mod, swap);
        }
        self.binop(py, x, int_op(PyOp::Bit(op)), None, swap)
    }

    fn compare(&self, py: Python<'_>, x: TArg, cmp: Op) -> PyResult<PyObject> {
        self.binop(py, x, int_op(PyOp::Cmp(cmp)), None, false)
    }

    fn min_max(&self, py: Python<'_>, x: TArg, max: bool) -> PyResult<PyObject> {
        self.binop(py, x, int_op(PyOp::MinMax(max)), None, false)
    }

    fn shift(&self, py: Python<'_>, o: &Bound<'_, PyAny>, left: bool) -> PyResult<PyObject> {
        self.shift_by(py, o, int_op(PyOp::Shift(left)))
    }
}
