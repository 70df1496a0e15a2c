//! How the operators of `EncTyped` run: each operation is planned for the operand forms,
//! built with `encint::typed::build` and run as one circuit.

use encint::arith::SInt;
use encint::limits::{self, Estimate, WordOp};
use encint::typed::{build, plan, Form, IntType, Op};
use num_bigint::{BigInt, Sign};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use super::class::{canonical_digits, scalar, EncTyped, TArg};
use crate::args::int_operand;
use crate::errors::{invalid, value_error};
use crate::eval::{arith, run_named};
use crate::guard::detached;
use crate::methods::{Operands, Operators};
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
        op: Op,
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
                    let cty = if op == Op::Select && i == 0 {
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
        op: Op,
        scalar_op: Option<fn(i128) -> Op>,
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
        let (op, sc): (Op, fn(i128) -> Op) = if rem {
            (Op::Rem, Op::RemScalar)
        } else {
            (Op::Div, Op::DivScalar)
        };
        self.binop(py, x, op, Some(sc), swap)
    }

    /// A shift or rotation by a Python int or an `EncTyped` of the same type.
    pub(super) fn shift_by(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: Op,
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
            Op::ShlVar => Op::Shl(clamped),
            Op::ShrVar => Op::Shr(clamped),
            Op::RotlVar => Op::Rotl(modulo),
            _ => Op::Rotr(modulo),
        };
        let me = TArg::Val(self.val.clone(), self.form);
        Ok(Py::new(py, EncTyped::apply(py, op, self.ty, vec![me])?)?.into_any())
    }

    /// `op` on `self` alone.
    pub(super) fn unary(&self, py: Python<'_>, op: Op) -> PyResult<EncTyped> {
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

impl Operators for EncTyped {
    fn arith(&self, py: Python<'_>, x: TArg, op: Op, swap: bool) -> PyResult<PyObject> {
        if op == Op::Mul {
            // A product is the same either way round: a constant is a scalar factor.
            let scalar = Some(Op::ScalarMul as fn(i128) -> Op);
            return self.binop(py, x, Op::Mul, scalar, false);
        }
        self.binop(py, x, op, None, swap)
    }

    fn bitwise(&self, py: Python<'_>, x: TArg, op: Op, swap: bool) -> PyResult<PyObject> {
        if let Op::FloorDiv | Op::Mod = op {
            return self.division(py, x, op == Op::Mod, swap);
        }
        self.binop(py, x, op, None, swap)
    }

    fn compare(&self, py: Python<'_>, x: TArg, cmp: Op) -> PyResult<PyObject> {
        self.binop(py, x, cmp, None, false)
    }

    fn min_max(&self, py: Python<'_>, x: TArg, max: bool) -> PyResult<PyObject> {
        self.binop(py, x, if max { Op::Max } else { Op::Min }, None, false)
    }

    fn shift(&self, py: Python<'_>, o: &Bound<'_, PyAny>, left: bool) -> PyResult<PyObject> {
        self.shift_by(py, o, if left { Op::ShlVar } else { Op::ShrVar })
    }
}
