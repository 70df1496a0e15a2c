//! `EncBits` and how its operators run: each is one boolean stage (`encint::arith::bits`)
//! on the operands' bits, lowered into a digit circuit.

use encint::arith::bits::{self as ops, Word};
use encint::circuit::bits::BitBuilder;
use encint::circuit::NodeId;
use encint::limits::{Estimate, WordOp};
use encint::{Op, MAX_DIGITS};
use num_bigint::BigInt;
use pyo3::prelude::*;

use super::exact::EncInt;
use crate::args::{check_width, shift_amount};
use crate::circuits::{compare_bit, lt};
use crate::errors::invalid;
use crate::eval::run_one;
use crate::guard::detached;
use crate::methods::{Operands, Operators};
use crate::value::{range_of, twos_complement_bits, value_of, Operand, Val};
use encint::arith::{word_op, word_stage};
use encint::limits::{self, stage as stage_estimate};

/// An encrypted integer of a fixed width (1..=4096 bits), unsigned or two's complement,
/// each bit a TFHE ciphertext of 0 or 1 (boolean circuits as in Trifan, Nicolau and
/// Veidenbaum, "Enhancing the Privacy of Machine Learning via faster arithmetic over Torus
/// FHE", and Chen, Feng, Liu and Wu, "Faster Binary Arithmetic Operations on Encrypted
/// Integers").
///
/// Arithmetic wraps modulo `2^width` like a machine integer; `//` and `%` follow Python
/// (floor) semantics; shifts take a Python int or an encrypted unsigned amount;
/// comparisons return a 1-bit unsigned `EncBits`. Both operands must have the same width
/// and signedness; a Python int operand must fit them.
#[pyclass(module = "encint._encint", frozen)]
#[derive(Clone)]
pub struct EncBits {
    pub(crate) val: Val,
    pub(crate) signed: bool,
}

/// An `EncBits` operand: bits of the same type, or a constant's bits.
pub(crate) type Bits = Operand<Vec<bool>>;

fn signedness(signed: bool) -> &'static str {
    if signed {
        "signed"
    } else {
        "unsigned"
    }
}

impl EncBits {
    /// `"<width> signed bits"` or `"<width> unsigned bits"`.
    pub(crate) fn describe(&self) -> String {
        format!("{} {} bits", self.val.len(), signedness(self.signed))
    }

    /// Bits of a constant that fits this type.
    pub(crate) fn const_bits(&self, k: &BigInt) -> PyResult<Vec<bool>> {
        let w = self.val.len();
        let (lo, hi) = range_of(w, self.signed);
        if *k < lo || *k > hi {
            return Err(invalid(format!("{k} does not fit {}", self.describe())));
        }
        Ok(twos_complement_bits(k, w))
    }

    /// `obj` as an operand of an operator of `self` (`None`: not one).
    pub(crate) fn arg(&self, obj: &Bound<'_, PyAny>) -> PyResult<Option<Bits>> {
        if let Ok(x) = obj.downcast::<EncBits>() {
            let x = x.get();
            if x.val.len() != self.val.len() || x.signed != self.signed {
                return Err(invalid(format!(
                    "operands differ: {} vs {}",
                    self.describe(),
                    x.describe()
                )));
            }
            return Ok(Some(Operand::Val(x.val.clone())));
        }
        if obj.is_instance_of::<EncInt>() {
            return Ok(None);
        }
        match obj.extract::<BigInt>() {
            Ok(k) => Ok(Some(Operand::Const(self.const_bits(&k)?))),
            Err(_) => Ok(None),
        }
    }

    /// `value` in `width` bits, encrypted with `key` (clear mode: `None`).
    pub(crate) fn encrypt(
        py: Python<'_>,
        key: Option<&encint::ClientKey>,
        value: BigInt,
        width: usize,
        signed: bool,
    ) -> PyResult<EncBits> {
        check_width(width, MAX_DIGITS)?;
        let probe = EncBits {
            val: Val::Clear(vec![0; width]),
            signed,
        };
        let bits = probe.const_bits(&value)?;
        let digits = bits.into_iter().map(i64::from).collect();
        let val = detached(py, || Ok(Val::seal(key, digits)))?;
        Ok(EncBits { val, signed })
    }

    /// The value, decrypted with `key` (clear mode: `None`).
    pub(crate) fn decrypt(
        &self,
        py: Python<'_>,
        key: Option<&encint::ClientKey>,
    ) -> PyResult<BigInt> {
        let digits = detached(py, || self.val.open(key, 0..=1))?;
        let u = value_of(&digits);
        Ok(if self.signed && digits.last() == Some(&1) {
            u - (BigInt::from(1) << digits.len())
        } else {
            u
        })
    }

    /// A value of this type's signedness (or, for comparisons, `signed`).
    fn with(&self, val: Val, signed: bool) -> EncBits {
        EncBits { val, signed }
    }

    /// Runs `f` on the words of `self` and `other` as one circuit; the result is read as
    /// `signed_out`.
    fn words(
        &self,
        py: Python<'_>,
        other: Bits,
        swap: bool,
        signed_out: bool,
        est: Estimate,
        f: impl FnOnce(&mut BitBuilder, &Word, &Word) -> Word + Send,
    ) -> PyResult<PyObject> {
        let g = move |bb: &mut BitBuilder, ws: &[Word]| {
            if swap {
                f(bb, &ws[1], &ws[0])
            } else {
                f(bb, &ws[0], &ws[1])
            }
        };
        let val = match other {
            Operand::Val(v) => run_one(py, &[&self.val, &v], est, |_, b, x| {
                word_stage(b, &[x[0].digits.clone(), x[1].digits.clone()], g)
            })?,
            Operand::Const(bits) => run_one(py, &[&self.val], est, move |_, b, x| {
                // The constant enters the boolean stage as inputs (digit constants, which
                // the digit builder folds): the divider of `encint::arith::bits` panics on
                // constant bits recorded in the BitBuilder itself.
                let c: Vec<NodeId> = bits.iter().map(|&v| b.constant(i64::from(v))).collect();
                word_stage(b, &[x[0].digits.clone(), c], g)
            })?,
        };
        Ok(Py::new(py, self.with(val, signed_out))?.into_any())
    }

    /// A wrapping operation of the word operations `kinds` (for the estimate).
    fn binop(
        &self,
        py: Python<'_>,
        x: Bits,
        kinds: &[WordOp],
        f: impl FnOnce(&mut BitBuilder, &Word, &Word) -> Word + Send,
        swap: bool,
    ) -> PyResult<PyObject> {
        let w = self.val.len();
        let est = kinds.iter().fold(Estimate::new(w as u64, 0), |e, &k| {
            e.then(stage_estimate(k, w, w))
        });
        self.words(py, x, swap, self.signed, est, f)
    }

    /// A unary operation (word operation `kind`, for the estimate).
    pub(crate) fn unary(
        &self,
        py: Python<'_>,
        kind: WordOp,
        f: impl FnOnce(&mut BitBuilder, &Word) -> Word + Send,
    ) -> PyResult<EncBits> {
        let w = self.val.len();
        let est = stage_estimate(kind, w, w);
        let val = run_one(py, &[&self.val], est, |_, b, x| {
            word_stage(b, &[x[0].digits.clone()], |bb, ws| f(bb, &ws[0]))
        })?;
        Ok(self.with(val, self.signed))
    }
}

impl Operands for EncBits {
    type Operand = Bits;

    fn operand(&self, o: &Bound<'_, PyAny>) -> PyResult<Option<Bits>> {
        self.arg(o)
    }

    fn is_zero(x: &Bits) -> bool {
        matches!(x, Operand::Const(bits) if bits.iter().all(|b| !b))
    }
}

impl Operators for EncBits {
    fn arith(&self, py: Python<'_>, x: Bits, op: Op, swap: bool) -> PyResult<PyObject> {
        match op {
            Op::Add => self.binop(py, x, &[WordOp::Add], ops::add, swap),
            Op::Sub => self.binop(py, x, &[WordOp::Sub], ops::sub, swap),
            Op::Mul => self.binop(py, x, &[WordOp::Mul], ops::mul, swap),
            _ => Ok(py.NotImplemented()),
        }
    }

    fn bitwise(&self, py: Python<'_>, x: Bits, op: Op, swap: bool) -> PyResult<PyObject> {
        let signed = self.signed;
        let w = self.val.len();
        if !encint::arith::is_word_op(op) {
            return Ok(py.NotImplemented());
        }
        let est = Estimate::new(w as u64, limits::word_op(op, signed, w)).then(stage_estimate(
            WordOp::Not,
            w,
            w,
        ));
        self.words(py, x, swap, signed, est, move |bb, x, y| {
            word_op(bb, op, signed, x, y).expect("a bit operator, checked above")
        })
    }

    /// A 1-bit unsigned result.
    fn compare(&self, py: Python<'_>, x: Bits, cmp: Op) -> PyResult<PyObject> {
        let Op::Cmp(rel) = cmp else {
            return Ok(py.NotImplemented());
        };
        let signed = self.signed;
        let w = self.val.len();
        let est = stage_estimate(WordOp::Eq, w, 1).then(stage_estimate(WordOp::Compare, w, 1));
        self.words(py, x, false, false, est, move |bb, x, y| Word {
            bits: vec![compare_bit(
                bb,
                rel,
                x,
                y,
                |bb, p, q| lt(bb, signed, p, q),
                ops::eq,
            )],
        })
    }

    /// By a Python int or an encrypted unsigned `EncBits`.
    fn shift(&self, py: Python<'_>, amount: &Bound<'_, PyAny>, left: bool) -> PyResult<PyObject> {
        let signed = self.signed;
        let w = self.val.len();
        if let Ok(a) = amount.downcast::<EncBits>() {
            let a = a.get();
            if a.signed {
                return Err(invalid("an encrypted shift amount must be unsigned"));
            }
            let est = stage_estimate(WordOp::ShiftVar, w.max(a.val.len()), w);
            let op = if left { Op::ShlVar } else { Op::ShrVar };
            let val = run_one(py, &[&self.val, &a.val], est, move |_, b, x| {
                word_stage(b, &[x[0].digits.clone(), x[1].digits.clone()], |bb, ws| {
                    word_op(bb, op, signed, &ws[0], &ws[1]).expect("a shift is a bit operator")
                })
            })?;
            return Ok(Py::new(py, self.with(val, signed))?.into_any());
        }
        let Some(k) = shift_amount(amount, "shift amount must be a non-negative int")? else {
            return Ok(py.NotImplemented());
        };
        let k = k.min(w);
        let est = stage_estimate(WordOp::ShiftConst, w, w);
        let val = run_one(py, &[&self.val], est, move |_, b, x| {
            word_stage(b, &[x[0].digits.clone()], |bb, ws| {
                if left {
                    ops::shl(bb, &ws[0], k)
                } else if signed {
                    ops::sar(bb, &ws[0], k)
                } else {
                    ops::shr(bb, &ws[0], k)
                }
            })
        })?;
        Ok(Py::new(py, self.with(val, signed))?.into_any())
    }

    /// `x < y` selects one of them.
    fn min_max(&self, py: Python<'_>, x: Bits, max: bool) -> PyResult<PyObject> {
        let signed = self.signed;
        let kinds = [WordOp::Compare, WordOp::Select];
        let pick = move |bb: &mut BitBuilder, x: &Word, y: &Word| {
            let l = lt(bb, signed, x, y);
            let (a, b) = if max { (y, x) } else { (x, y) };
            ops::select(bb, l, a, b)
        };
        self.binop(py, x, &kinds, pick, false)
    }
}
