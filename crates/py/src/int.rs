//! `EncInt` (exact: signed binary digits, results as long as they need to be) and `EncBits`
//! (a fixed width, unsigned or two's complement, wrapping like machine integers).
//!
//! Every operation builds one circuit (digit arithmetic from `encint-arith`, or a boolean
//! circuit from `encint_arith::bits` lowered to digits) and runs it with the current
//! server ([`Server::eval`]) or, for clear-mode values, with the clear executor on the
//! same circuit.

use std::sync::Arc;

use encint::{EncInt as RInt, Server, DEFAULT_PARAMETERS, MAX_DIGITS};
use encint_arith::bits::{self as ops, Word};
use encint_arith::{Arith, Config, SInt};
use encint_core::bits::{bits_to_signed_digits, lower_into, signed_digits_to_bits, BitBuilder};
use encint_core::circuit::{Builder, Cost, NodeId};
use encint_core::lut::NegacyclicLut;
use num_bigint::{BigInt, Sign};
use pyo3::exceptions::{PyTypeError, PyZeroDivisionError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::keys::{current_server, ClientKey};
use crate::progress::Progress;
use crate::{detached, envelope_err, invalid, to_py, KeyMismatchError, LimitError};
use encint::executor::DigitBackend;
use encint::limits::{self, Estimate, Limits, WordOp};
use encint_tfhe::envelope::{self, Kind};
use encint_tfhe::{DigitParameters, Validate};
use serde::{Deserialize, Serialize};

/// A value: encrypted digits, or plain digits in clear mode.
#[derive(Clone, Debug)]
pub enum Val {
    /// Digit ciphertexts with their key set.
    Enc(RInt),
    /// Plain digits (clear mode).
    Clear(Vec<i64>),
}

impl Val {
    /// Number of digits.
    pub fn len(&self) -> usize {
        match self {
            Val::Enc(x) => x.len(),
            Val::Clear(d) => d.len(),
        }
    }
    /// Whether there are no digits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn is_clear(&self) -> bool {
        matches!(self, Val::Clear(_))
    }
}

/// The arithmetic for the parameter set's noise budget (what a `Server` uses).
pub fn arith() -> Arith {
    Arith::new(Config {
        max_qweight: DEFAULT_PARAMETERS.max_quadratic_weight(),
    })
}

/// Runs one circuit built by `build` on `inputs`: with the current server for encrypted
/// values (GIL released), with the clear executor on the same circuit for clear values.
pub fn run(
    py: Python<'_>,
    inputs: &[&Val],
    est: Estimate,
    build: impl FnOnce(&Arith, &mut Builder, &[SInt]) -> Vec<SInt> + Send,
) -> PyResult<(Vec<Val>, Cost)> {
    run_named(py, "encint", inputs, est, build)
}

/// Errors ([`LimitError`]) if an operation of estimate `est` on `inputs` would pass the
/// digit or node limit: checked before anything is built.
pub fn check_estimate(what: &str, inputs: &[&Val], est: Estimate) -> PyResult<()> {
    for (position, x) in inputs.iter().enumerate() {
        if x.len() > MAX_DIGITS {
            return Err(LimitError::new_err(format!(
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

/// [`run`] with the description a progress bar shows (circuits of at least
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
        // The server of `set_server_key` is a CPU server on the global pool, so running
        // its digit backend through `eval_on` is `eval` with progress reports.
        let (out, cost) = detached(py, || {
            let progress = Progress::new(
                DigitBackend {
                    server: server.key(),
                },
                description,
            );
            let result = server.eval_on(&progress, &ins, build);
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

/// The clear path of [`run`]: the circuit `Server::eval` would build, on plain digits.
fn run_clear(
    description: &str,
    inputs: &[&[i64]],
    build: impl FnOnce(&Arith, &mut Builder, &[SInt]) -> Vec<SInt>,
) -> PyResult<(Vec<Val>, Cost)> {
    for (position, x) in inputs.iter().enumerate() {
        if x.len() > MAX_DIGITS {
            return Err(LimitError::new_err(format!(
                "input {position} has {} digits, more than the {MAX_DIGITS} allowed",
                x.len()
            )));
        }
    }
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
    let progress = Progress::new(encint_core::clear::Clear, description);
    let result = encint_core::exec::run(&progress, &circuit, &plan, &refs);
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
/// fresh, the digit and node limits checked.
pub fn finish(
    mut b: Builder,
    outs: Vec<SInt>,
) -> PyResult<(encint_core::circuit::Circuit, Vec<usize>)> {
    let identity = NegacyclicLut::from_fn(-2..=2, |v| v).expect("identity is negacyclic");
    let mut lens = Vec::with_capacity(outs.len());
    let mut flat = Vec::new();
    for o in &outs {
        if o.len() > MAX_DIGITS {
            return Err(LimitError::new_err(format!(
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
        return Err(LimitError::new_err(format!(
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

/// Signed binary digits of `v`: its binary expansion with the sign on every digit.
pub fn digits_of(v: &BigInt) -> Vec<i64> {
    let s = match v.sign() {
        Sign::Minus => -1,
        _ => 1,
    };
    let m = v.magnitude();
    (0..m.bits())
        .map(|i| if m.bit(i) { s } else { 0 })
        .collect()
}

/// `v` as constant digits of a circuit.
pub fn const_sint(b: &mut Builder, v: &BigInt) -> SInt {
    SInt {
        digits: digits_of(v).into_iter().map(|d| b.constant(d)).collect(),
    }
}

/// The value of signed digits.
pub fn value_of(digits: &[i64]) -> BigInt {
    digits
        .iter()
        .rev()
        .fold(BigInt::from(0), |acc, &d| acc * 2 + d)
}

/// Decrypts (or reads, in clear mode) the digits of a value, checking key sets and that
/// every digit is in `allowed`.
pub(crate) fn open_digits(
    key: &ClientKey,
    v: &Val,
    allowed: std::ops::RangeInclusive<i64>,
) -> PyResult<Vec<i64>> {
    let digits = match (key.real(), v) {
        (Some(k), Val::Enc(x)) => {
            if x.key_set() != k.key_set() {
                return Err(to_py(encint::Error::WrongClientKey {
                    key: k.key_set(),
                    ciphertext: x.key_set(),
                }));
            }
            x.digits().iter().map(|d| k.decrypt_digit(d)).collect()
        }
        (None, Val::Clear(d)) => d.clone(),
        (Some(_), Val::Clear(_)) => {
            return Err(KeyMismatchError::new_err(
                "a clear-mode value given to a real client key",
            ))
        }
        (None, Val::Enc(_)) => {
            return Err(KeyMismatchError::new_err(
                "an encrypted value given to the clear-mode key",
            ))
        }
    };
    if let Some((position, value)) = digits
        .iter()
        .enumerate()
        .find(|(_, d)| !allowed.contains(d))
    {
        return Err(to_py(encint::Error::DigitOutOfRange {
            position,
            value: *value,
        }));
    }
    Ok(digits)
}

/// Encrypts (or keeps, in clear mode) digits.
pub(crate) fn seal_digits(key: &ClientKey, digits: Vec<i64>) -> Val {
    match key.real() {
        Some(k) => Val::Enc(RInt::from_digits(
            digits.into_iter().map(|d| k.encrypt_digit(d)).collect(),
            k.key_set(),
        )),
        None => Val::Clear(digits),
    }
}

fn check_width(width: usize, max: usize) -> PyResult<()> {
    if width == 0 || width > max {
        return Err(LimitError::new_err(format!(
            "width {width} outside 1..={max}"
        )));
    }
    Ok(())
}

/// An operand: an encrypted (or clear-mode) integer of the same type, or a Python int.
enum Arg {
    Val(Val),
    Int(BigInt),
}

/// Bit operations and comparisons shared by both integer types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BitOp {
    And,
    Or,
    Xor,
    FloorDiv,
    Mod,
    Shl,
    Shr,
}

/// `(x // y, x % y)` with Python's floor semantics (the remainder has the divisor's
/// sign), from the truncating two's-complement division.
fn floor_div_rem(bb: &mut BitBuilder, x: &Word, y: &Word) -> (Word, Word) {
    let (q, r) = ops::div_rem_signed(bb, x, y);
    let nz = ops::any(bb, &r.bits);
    let sr = r.msb(bb);
    let sy = y.msb(bb);
    let differ = bb.xor(sr, sy);
    let fix = bb.and(nz, differ);
    let one = Word::constant(bb, 1, q.width());
    let qm = ops::sub(bb, &q, &one);
    let rp = ops::add(bb, &r, y);
    (ops::select(bb, fix, &qm, &q), ops::select(bb, fix, &rp, &r))
}

/// A boolean stage inside a digit circuit: `inputs` are bit nodes (0/1 digits) grouped in
/// words, `f` records the boolean operations, the result is lowered into `b`.
fn bit_stage(
    b: &mut Builder,
    inputs: &[Vec<NodeId>],
    f: impl FnOnce(&mut BitBuilder, &[Word]) -> Vec<Word>,
) -> Vec<Vec<NodeId>> {
    let mut bb = BitBuilder::new();
    let words: Vec<Word> = inputs
        .iter()
        .map(|w| Word::input(&mut bb, w.len()))
        .collect();
    let outs = f(&mut bb, &words);
    let lens: Vec<usize> = outs.iter().map(Word::width).collect();
    let circuit = bb.finish(outs.into_iter().flat_map(|w| w.bits).collect());
    let flat: Vec<NodeId> = inputs.iter().flatten().copied().collect();
    let lowered = lower_into(b, &circuit, &flat).expect("one input node per input bit");
    let mut it = lowered.into_iter();
    lens.into_iter()
        .map(|n| it.by_ref().take(n).collect())
        .collect()
}

/// The boolean form of a binary bit operation on two words of one width.
fn word_op(bb: &mut BitBuilder, op: BitOp, signed: bool, x: &Word, y: &Word) -> Word {
    match op {
        BitOp::And => ops::and(bb, x, y),
        BitOp::Or => ops::or(bb, x, y),
        BitOp::Xor => ops::xor(bb, x, y),
        BitOp::FloorDiv if signed => floor_div_rem(bb, x, y).0,
        BitOp::Mod if signed => floor_div_rem(bb, x, y).1,
        BitOp::FloorDiv => ops::div_rem_unsigned(bb, x, y).0,
        BitOp::Mod => ops::div_rem_unsigned(bb, x, y).1,
        BitOp::Shl => ops::shl_var(bb, x, y),
        BitOp::Shr if signed => ops::sar_var(bb, x, y),
        BitOp::Shr => ops::shr_var(bb, x, y),
    }
}

/// `x op y` on exact integers: both in two's complement of a width that holds them and
/// the exact result (`n + 2` bits for `n` digits), one boolean stage, back to digits.
/// Division and remainder follow Python (floor; `x // 0` and `x % 0` give the boolean
/// layer's values, see `floor_div_rem`).
pub(crate) fn exact_bitwise(b: &mut Builder, op: BitOp, x: &SInt, y: &SInt) -> SInt {
    let w = x.len().max(y.len()) + 2;
    let xs = signed_digits_to_bits(b, &x.digits, w);
    let ys = signed_digits_to_bits(b, &y.digits, w);
    let out = bit_stage(b, &[xs, ys], |bb, ws| {
        vec![word_op(bb, op, true, &ws[0], &ws[1])]
    });
    SInt {
        digits: bits_to_signed_digits(b, &out[0], true),
    }
}

/// The word operation of a [`BitOp`] (for its estimate).
fn word_kind(op: BitOp) -> WordOp {
    match op {
        BitOp::And | BitOp::Or | BitOp::Xor => WordOp::Bitwise,
        BitOp::FloorDiv | BitOp::Mod => WordOp::DivRem,
        BitOp::Shl | BitOp::Shr => WordOp::ShiftVar,
    }
}

/// Nodes of [`word_op`] on words of `w` bits (a floor division adds its sign fix).
fn word_op_nodes(op: BitOp, signed: bool, w: usize) -> u64 {
    let main = limits::word(word_kind(op), w);
    if signed && matches!(op, BitOp::FloorDiv | BitOp::Mod) {
        // any, two sign bits, sub, add, two selects
        [
            WordOp::Any,
            WordOp::Sub,
            WordOp::Add,
            WordOp::Select,
            WordOp::Select,
        ]
        .iter()
        .fold(main, |acc, &k| acc.saturating_add(limits::word(k, w)))
        .saturating_add(16)
    } else {
        main
    }
}

/// The estimate of [`exact_bitwise`] on `n` and `m` digits.
pub(crate) fn exact_bitwise_estimate(op: BitOp, n: usize, m: usize) -> Estimate {
    let w = n.max(m).saturating_add(2);
    let nodes = limits::conversions(n, w)
        .saturating_add(limits::conversions(m, w))
        .saturating_add(word_op_nodes(op, true, w));
    Estimate::new(w as u64, nodes)
}

/// The estimate of [`exact_shift`] on `n` digits.
pub(crate) fn exact_shift_estimate(n: usize, k: usize, left: bool) -> Estimate {
    if left {
        limits::shift_left(n, k)
    } else {
        let w = n.saturating_add(1);
        Estimate::new(
            w as u64,
            limits::conversions(n, w).saturating_add(limits::word(WordOp::ShiftConst, w)),
        )
    }
}

/// The estimate of a boolean stage of `w`-bit words computing `op` (its constants
/// included).
fn stage_estimate(op: WordOp, w: usize, out_width: usize) -> Estimate {
    Estimate::new(
        out_width as u64,
        limits::word(op, w)
            .saturating_add(w as u64)
            .saturating_add(8),
    )
}

/// Digits of a Python int constant.
fn const_len(k: &BigInt) -> usize {
    usize::try_from(k.bits()).unwrap_or(usize::MAX)
}

/// `x << k` (exact: a product by `2^k`) or `x >> k` (floor, through two's complement).
pub(crate) fn exact_shift(ar: &Arith, b: &mut Builder, x: &SInt, k: usize, left: bool) -> SInt {
    if left {
        let mut y = x.clone();
        let mut left_over = k;
        while left_over > 0 {
            let s = left_over.min(62);
            y = ar.scalar_mul(b, &y, 1i64 << s);
            left_over -= s;
        }
        y
    } else {
        let w = x.len() + 1;
        let xs = signed_digits_to_bits(b, &x.digits, w);
        let out = bit_stage(b, &[xs], |bb, ws| vec![ops::sar(bb, &ws[0], k.min(w))]);
        SInt {
            digits: bits_to_signed_digits(b, &out[0], true),
        }
    }
}

fn not_implemented(py: Python<'_>) -> PyResult<PyObject> {
    Ok(py.NotImplemented())
}

/// The envelope payload of an `EncBits`: a tag (so that an `EncInt` envelope is never read
/// as one), the signedness and the bit ciphertexts.
#[derive(Serialize, Deserialize)]
struct BitsPayload {
    tag: [u8; 8],
    signed: bool,
    value: RInt,
}

const BITS_TAG: [u8; 8] = *b"ENCBITS1";

/// What a ciphertext envelope of this package holds: an `EncInt` (its payload is the
/// digits, no tag), an `EncBits` or an `EncTyped` (payloads that start with their tag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CiphertextKind {
    /// `EncInt`.
    Int,
    /// `EncBits`.
    Bits,
    /// `EncTyped`.
    Typed,
}

impl CiphertextKind {
    fn name(self) -> &'static str {
        match self {
            CiphertextKind::Int => "EncInt",
            CiphertextKind::Bits => "EncBits",
            CiphertextKind::Typed => "EncTyped",
        }
    }
}

/// The kind of value in `data` when it is a ciphertext envelope (`None` for anything
/// else, which the envelope reader then refuses with its own error).
pub(crate) fn ciphertext_kind(data: &[u8]) -> Option<CiphertextKind> {
    let (header, payload) = envelope::read_header(data).ok()?;
    if header.kind != Kind::Ciphertext {
        return None;
    }
    let tag = payload.get(..8);
    Some(if tag == Some(&BITS_TAG[..]) {
        CiphertextKind::Bits
    } else if tag.is_some_and(crate::typed::is_typed_tag) {
        CiphertextKind::Typed
    } else {
        CiphertextKind::Int
    })
}

/// Errors ([`crate::KeyRoleError`]) unless `data` is an envelope of `want` (or not a
/// ciphertext envelope at all: the reader then names the problem). Every decoder of a
/// ciphertext calls it first, so that one kind is never read as another.
pub(crate) fn expect_kind(data: &[u8], want: CiphertextKind) -> PyResult<()> {
    match ciphertext_kind(data) {
        Some(found) if found != want => Err(crate::KeyRoleError::new_err(format!(
            "the bytes hold an {}, not an {}",
            found.name(),
            want.name()
        ))),
        _ => Ok(()),
    }
}

impl Validate for BitsPayload {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        if self.tag != BITS_TAG {
            return Err("not an EncBits payload".into());
        }
        self.value.validate(params)
    }
}

// ---------------------------------------------------------------------------------------
// EncInt
// ---------------------------------------------------------------------------------------

/// An exact encrypted integer (signed binary digits, each a TFHE ciphertext of -1, 0 or 1).
///
/// Operators `+ - * // % & | ^ << >> ~ -x abs()` are exact: results are as long as they
/// need to be, never wrap. Comparisons `< <= > >= == !=` return an encrypted 0 or 1
/// (an `EncInt`); use `encint.select`, `encint.min`, `encint.max` instead of `if`.
/// Operands are `EncInt`s of the same key (or mode) or Python ints.
#[pyclass(module = "encint._encint", frozen)]
#[derive(Clone)]
pub struct EncInt {
    pub(crate) val: Val,
}

impl EncInt {
    fn arg(obj: &Bound<'_, PyAny>) -> Option<Arg> {
        if let Ok(x) = obj.downcast::<EncInt>() {
            return Some(Arg::Val(x.get().val.clone()));
        }
        if obj.is_instance_of::<pyo3::types::PyBool>() {
            return obj
                .extract::<bool>()
                .ok()
                .map(|b| Arg::Int(BigInt::from(u8::from(b))));
        }
        obj.extract::<BigInt>().ok().map(Arg::Int)
    }

    /// Runs `f` on `self` and `other` (or on `self` and a constant) as one circuit.
    fn binary(
        &self,
        py: Python<'_>,
        other: Arg,
        swap: bool,
        est: impl FnOnce(usize, usize) -> Estimate,
        f: impl FnOnce(&Arith, &mut Builder, &SInt, &SInt) -> SInt + Send,
    ) -> PyResult<EncInt> {
        let n = self.val.len();
        let m = match &other {
            Arg::Val(v) => v.len(),
            Arg::Int(k) => const_len(k),
        };
        let est = if swap { est(m, n) } else { est(n, m) };
        let order = |b: &mut Builder, x: &SInt, y: &SInt, ar: &Arith| {
            if swap {
                f(ar, b, y, x)
            } else {
                f(ar, b, x, y)
            }
        };
        let (mut out, _) = match other {
            Arg::Val(v) => run(py, &[&self.val, &v], est, |ar, b, x| {
                vec![order(b, &x[0], &x[1], ar)]
            })?,
            Arg::Int(k) => run(py, &[&self.val], est, move |ar, b, x| {
                let c = const_sint(b, &k);
                vec![order(b, &x[0], &c, ar)]
            })?,
        };
        Ok(EncInt {
            val: out.pop().expect("one output"),
        })
    }

    fn unary(
        &self,
        py: Python<'_>,
        est: Estimate,
        f: impl FnOnce(&Arith, &mut Builder, &SInt) -> SInt + Send,
    ) -> PyResult<EncInt> {
        let (mut out, _) = run(py, &[&self.val], est, |ar, b, x| vec![f(ar, b, &x[0])])?;
        Ok(EncInt {
            val: out.pop().expect("one output"),
        })
    }

    fn op(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: encint::Op,
        swap: bool,
    ) -> PyResult<PyObject> {
        let Some(arg) = Self::arg(other) else {
            return not_implemented(py);
        };
        let r = self.binary(
            py,
            arg,
            swap,
            |n, m| limits::op(op, n, m),
            move |ar, b, x, y| op.build(ar, b, &[x.clone(), y.clone()]),
        )?;
        Ok(Py::new(py, r)?.into_any())
    }

    /// A bit operation through two's complement of a width that holds both operands and
    /// the exact result (`n + 2` bits for `n` digits).
    fn bitwise(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: BitOp,
        swap: bool,
    ) -> PyResult<PyObject> {
        let Some(arg) = Self::arg(other) else {
            return not_implemented(py);
        };
        let divisor = if swap { None } else { Some(&arg) };
        if let (BitOp::FloorDiv | BitOp::Mod, Some(Arg::Int(k))) = (op, divisor) {
            if k.sign() == Sign::NoSign {
                return Err(PyZeroDivisionError::new_err("division by zero"));
            }
        }
        let r = self.binary(
            py,
            arg,
            swap,
            |n, m| exact_bitwise_estimate(op, n, m),
            move |_, b, x, y| exact_bitwise(b, op, x, y),
        );
        Ok(Py::new(py, r?)?.into_any())
    }

    fn shift(&self, py: Python<'_>, amount: &Bound<'_, PyAny>, left: bool) -> PyResult<PyObject> {
        let Ok(k) = amount.extract::<usize>() else {
            if amount.extract::<BigInt>().is_ok() {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "shift amount must be a non-negative int below 2^64",
                ));
            }
            return not_implemented(py);
        };
        let n = self.val.len();
        // Checked: `n + k` wraps for `k` near 2^64, and the shift's loop runs `k / 62`
        // times.
        if left && n.checked_add(k).is_none_or(|total| total > MAX_DIGITS) {
            return Err(LimitError::new_err(format!(
                "{n} digits shifted by {k} exceed the {MAX_DIGITS} allowed"
            )));
        }
        let r = self.unary(py, exact_shift_estimate(n, k, left), move |ar, b, x| {
            exact_shift(ar, b, x, k, left)
        })?;
        Ok(Py::new(py, r)?.into_any())
    }
}

#[pymethods]
impl EncInt {
    /// Number of digits (the representation's length, not a bound on the value's range
    /// after operations: results grow as needed).
    #[getter]
    fn width(&self) -> usize {
        self.val.len()
    }

    /// Whether this is a clear-mode value.
    #[getter]
    fn is_clear(&self) -> bool {
        self.val.is_clear()
    }

    /// The ciphertext in a checked envelope (kind Ciphertext).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        match &self.val {
            Val::Enc(x) => {
                let bytes = x
                    .to_bytes(&crate::keys::params_of(x.key_set()))
                    .map_err(to_py)?;
                Ok(PyBytes::new(py, &bytes))
            }
            Val::Clear(_) => Err(invalid("a clear-mode value has no envelope")),
        }
    }

    /// Reads a ciphertext written by `to_bytes` (checks magic, kind, version, parameters
    /// and every digit's dimension).
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<EncInt> {
        expect_kind(&data, CiphertextKind::Int)?;
        let x = detached(py, || {
            envelope::open_known::<RInt>(&data, Kind::Ciphertext).map_err(envelope_err)
        })?;
        Ok(EncInt { val: Val::Enc(x) })
    }

    #[staticmethod]
    fn _from_clear_digits(digits: Vec<i64>) -> PyResult<EncInt> {
        if digits.len() > MAX_DIGITS || digits.iter().any(|d| !(-1..=1).contains(d)) {
            return Err(invalid(
                "clear digits must be -1, 0 or 1, at most MAX_DIGITS of them",
            ));
        }
        Ok(EncInt {
            val: Val::Clear(digits),
        })
    }

    fn __reduce__(&self, py: Python<'_>) -> PyResult<(PyObject, (PyObject,))> {
        let cls = py.get_type::<EncInt>();
        match &self.val {
            Val::Enc(_) => Ok((
                cls.getattr("from_bytes")?.unbind(),
                (self.to_bytes(py)?.into_any().unbind(),),
            )),
            Val::Clear(d) => Ok((
                cls.getattr("_from_clear_digits")?.unbind(),
                (d.clone().into_pyobject(py)?.into_any().unbind(),),
            )),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "EncInt(<{} {} digits>)",
            if self.val.is_clear() {
                "clear"
            } else {
                "encrypted"
            },
            self.val.len()
        )
    }

    fn __bool__(&self) -> PyResult<bool> {
        Err(PyTypeError::new_err(
            "an encrypted value has no truth value: decrypt it, or use encint.select",
        ))
    }

    fn __hash__(&self) -> PyResult<isize> {
        Err(PyTypeError::new_err("EncInt is not hashable"))
    }

    fn __index__(&self) -> PyResult<isize> {
        Err(PyTypeError::new_err(
            "an encrypted value is not a Python int: decrypt it with the client key",
        ))
    }

    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.op(py, o, encint::Op::Add, false)
    }
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.op(py, o, encint::Op::Add, true)
    }
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.op(py, o, encint::Op::Sub, false)
    }
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.op(py, o, encint::Op::Sub, true)
    }
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        if let Some(Arg::Int(k)) = Self::arg(o) {
            if let Ok(k) = i64::try_from(&k) {
                let est = limits::op(encint::Op::ScalarMul(k), self.val.len(), 0);
                let r = self.unary(py, est, move |ar, b, x| ar.scalar_mul(b, x, k))?;
                return Ok(Py::new(py, r)?.into_any());
            }
        }
        self.op(py, o, encint::Op::Mul, false)
    }
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.__mul__(py, o)
    }
    fn __floordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitwise(py, o, BitOp::FloorDiv, false)
    }
    fn __rfloordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitwise(py, o, BitOp::FloorDiv, true)
    }
    fn __mod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitwise(py, o, BitOp::Mod, false)
    }
    fn __rmod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitwise(py, o, BitOp::Mod, true)
    }
    fn __and__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitwise(py, o, BitOp::And, false)
    }
    fn __rand__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitwise(py, o, BitOp::And, true)
    }
    fn __or__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitwise(py, o, BitOp::Or, false)
    }
    fn __ror__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitwise(py, o, BitOp::Or, true)
    }
    fn __xor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitwise(py, o, BitOp::Xor, false)
    }
    fn __rxor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitwise(py, o, BitOp::Xor, true)
    }
    fn __lshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.shift(py, o, true)
    }
    fn __rshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.shift(py, o, false)
    }
    fn __neg__(&self, py: Python<'_>) -> PyResult<EncInt> {
        let est = limits::op(encint::Op::Neg, self.val.len(), 0);
        self.unary(py, est, |_, b, x| x.neg(b))
    }
    fn __pos__(&self) -> EncInt {
        self.clone()
    }
    fn __invert__(&self, py: Python<'_>) -> PyResult<EncInt> {
        let n = self.val.len();
        let est = limits::op(encint::Op::Neg, n, 0).then(limits::op(encint::Op::Sub, n, 1));
        self.unary(py, est, |ar, b, x| {
            let n = x.neg(b);
            let one = SInt::constant(b, 1);
            ar.sub(b, &n, &one)
        })
    }
    fn __abs__(&self, py: Python<'_>) -> PyResult<EncInt> {
        let est = limits::op(encint::Op::Abs, self.val.len(), 0);
        self.unary(py, est, |ar, b, x| ar.abs(b, x))
    }
    fn __lt__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.op(py, o, encint::Op::Lt, false)
    }
    fn __le__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.op(py, o, encint::Op::Le, false)
    }
    fn __gt__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.op(py, o, encint::Op::Gt, false)
    }
    fn __ge__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.op(py, o, encint::Op::Ge, false)
    }
    fn __eq__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.op(py, o, encint::Op::Eq, false)
    }
    fn __ne__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.op(py, o, encint::Op::Ne, false)
    }

    /// `min(self, other)`.
    fn min(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.op(py, other, encint::Op::Min, false)
    }
    /// `max(self, other)`.
    fn max(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.op(py, other, encint::Op::Max, false)
    }
    /// `sgn(self)`: -1, 0 or 1.
    fn sign(&self, py: Python<'_>) -> PyResult<EncInt> {
        let est = limits::op(encint::Op::Signum, self.val.len(), 0);
        self.unary(py, est, |ar, b, x| SInt {
            digits: vec![ar.signum(b, x)],
        })
    }
    /// `self²` (cheaper than `self * self`).
    fn square(&self, py: Python<'_>) -> PyResult<EncInt> {
        let est = limits::op(encint::Op::Square, self.val.len(), 0);
        self.unary(py, est, |ar, b, x| ar.square(b, x))
    }

    /// The value modulo `2^width` as `EncBits` (two's complement if `signed`).
    #[pyo3(signature = (width, signed = true))]
    fn to_bits(&self, py: Python<'_>, width: usize, signed: bool) -> PyResult<EncBits> {
        check_width(width, MAX_DIGITS)?;
        let est = Estimate::new(width as u64, limits::conversions(self.val.len(), width));
        let (mut out, _) = run(py, &[&self.val], est, |_, b, x| {
            vec![SInt {
                digits: signed_digits_to_bits(b, &x[0].digits, width),
            }]
        })?;
        Ok(EncBits {
            val: out.pop().expect("one output"),
            signed,
        })
    }
}

// ---------------------------------------------------------------------------------------
// EncBits
// ---------------------------------------------------------------------------------------

/// An encrypted integer of a fixed width (1..=4096 bits), unsigned or two's complement,
/// each bit a TFHE ciphertext of 0 or 1 (seeds 001/003: boolean circuits).
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

impl EncBits {
    /// `min` or `max` of `self` and `other`: `x < y` selects one of them.
    fn min_max(&self, py: Python<'_>, other: &Bound<'_, PyAny>, max: bool) -> PyResult<PyObject> {
        let signed = self.signed;
        self.binop(
            py,
            other,
            false,
            &[WordOp::Compare, WordOp::Select],
            move |bb, x, y| {
                let l = lt(bb, signed, x, y);
                let (a, b) = if max { (y, x) } else { (x, y) };
                ops::select(bb, l, a, b)
            },
        )
    }

    fn range(&self) -> (BigInt, BigInt) {
        let w = self.val.len();
        if self.signed {
            (
                -(BigInt::from(1) << (w - 1)),
                (BigInt::from(1) << (w - 1)) - 1,
            )
        } else {
            (BigInt::from(0), (BigInt::from(1) << w) - 1)
        }
    }

    /// Bits of a constant that fits this type.
    fn const_bits(&self, k: &BigInt) -> PyResult<Vec<bool>> {
        let (lo, hi) = self.range();
        if *k < lo || *k > hi {
            return Err(invalid(format!(
                "{k} does not fit {} {} bits",
                self.val.len(),
                if self.signed { "signed" } else { "unsigned" }
            )));
        }
        let w = self.val.len();
        let u: BigInt = if k.sign() == Sign::Minus {
            k + (BigInt::from(1) << w)
        } else {
            k.clone()
        };
        let m = u.magnitude();
        Ok((0..w as u64).map(|i| m.bit(i)).collect())
    }

    fn arg(&self, obj: &Bound<'_, PyAny>) -> PyResult<Option<Word2>> {
        if let Ok(x) = obj.downcast::<EncBits>() {
            let x = x.get();
            if x.val.len() != self.val.len() || x.signed != self.signed {
                return Err(invalid(format!(
                    "operands differ: {} vs {}",
                    self.describe(),
                    x.describe()
                )));
            }
            return Ok(Some(Word2::Val(x.val.clone())));
        }
        if obj.is_instance_of::<EncInt>() {
            return Ok(None);
        }
        match obj.extract::<BigInt>() {
            Ok(k) => Ok(Some(Word2::Const(self.const_bits(&k)?))),
            Err(_) => Ok(None),
        }
    }

    fn describe(&self) -> String {
        format!(
            "{} {} bits",
            self.val.len(),
            if self.signed { "signed" } else { "unsigned" }
        )
    }

    /// Runs `f` on the words of `self` and `other` as one circuit; the result is read as
    /// `signed_out`.
    fn words(
        &self,
        py: Python<'_>,
        other: Word2,
        swap: bool,
        signed_out: bool,
        est: Estimate,
        f: impl FnOnce(&mut BitBuilder, &Word, &Word) -> Word + Send,
    ) -> PyResult<EncBits> {
        let g = move |bb: &mut BitBuilder, x: &Word, y: &Word| {
            if swap {
                f(bb, y, x)
            } else {
                f(bb, x, y)
            }
        };
        let (mut out, _) = match other {
            Word2::Val(v) => run(py, &[&self.val, &v], est, |_, b, x| {
                let o = bit_stage(b, &[x[0].digits.clone(), x[1].digits.clone()], |bb, ws| {
                    vec![g(bb, &ws[0], &ws[1])]
                });
                vec![SInt {
                    digits: o[0].clone(),
                }]
            })?,
            Word2::Const(bits) => run(py, &[&self.val], est, move |_, b, x| {
                // The constant enters the boolean stage as inputs (digit constants, which
                // the digit builder folds): encint_arith's divider panics on constant
                // bits recorded in the BitBuilder itself.
                let c: Vec<NodeId> = bits.iter().map(|&v| b.constant(i64::from(v))).collect();
                let o = bit_stage(b, &[x[0].digits.clone(), c], |bb, ws| {
                    vec![g(bb, &ws[0], &ws[1])]
                });
                vec![SInt {
                    digits: o[0].clone(),
                }]
            })?,
        };
        Ok(EncBits {
            val: out.pop().expect("one output"),
            signed: signed_out,
        })
    }

    fn binop(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        swap: bool,
        kinds: &[WordOp],
        f: impl FnOnce(&mut BitBuilder, &Word, &Word) -> Word + Send,
    ) -> PyResult<PyObject> {
        let Some(arg) = self.arg(o)? else {
            return not_implemented(py);
        };
        let w = self.val.len();
        let est = kinds.iter().fold(Estimate::new(w as u64, 0), |e, &k| {
            e.then(stage_estimate(k, w, w))
        });
        let r = self.words(py, arg, swap, self.signed, est, f)?;
        Ok(Py::new(py, r)?.into_any())
    }

    fn bitop(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        op: BitOp,
        swap: bool,
    ) -> PyResult<PyObject> {
        let Some(arg) = self.arg(o)? else {
            return not_implemented(py);
        };
        if let (BitOp::FloorDiv | BitOp::Mod, false, Word2::Const(bits)) = (op, swap, &arg) {
            if bits.iter().all(|b| !b) {
                return Err(PyZeroDivisionError::new_err("division by zero"));
            }
        }
        let signed = self.signed;
        let w = self.val.len();
        let est = Estimate::new(w as u64, word_op_nodes(op, signed, w)).then(stage_estimate(
            WordOp::Not,
            w,
            w,
        ));
        let r = self.words(py, arg, swap, signed, est, move |bb, x, y| {
            word_op(bb, op, signed, x, y)
        })?;
        Ok(Py::new(py, r)?.into_any())
    }

    fn compare(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        f: fn(&mut BitBuilder, bool, &Word, &Word) -> ops_bit::Bit,
    ) -> PyResult<PyObject> {
        let Some(arg) = self.arg(o)? else {
            return not_implemented(py);
        };
        let signed = self.signed;
        let w = self.val.len();
        let est = stage_estimate(WordOp::Eq, w, 1).then(stage_estimate(WordOp::Compare, w, 1));
        let r = self.words(py, arg, false, false, est, move |bb, x, y| Word {
            bits: vec![f(bb, signed, x, y)],
        })?;
        Ok(Py::new(py, r)?.into_any())
    }

    fn shift(&self, py: Python<'_>, amount: &Bound<'_, PyAny>, left: bool) -> PyResult<PyObject> {
        let signed = self.signed;
        if let Ok(a) = amount.downcast::<EncBits>() {
            let a = a.get();
            if a.signed {
                return Err(invalid("an encrypted shift amount must be unsigned"));
            }
            let w = self.val.len().max(a.val.len());
            let est = stage_estimate(WordOp::ShiftVar, w, self.val.len());
            let (mut out, _) = run(py, &[&self.val, &a.val], est, move |_, b, x| {
                let o = bit_stage(b, &[x[0].digits.clone(), x[1].digits.clone()], |bb, ws| {
                    let op = if left { BitOp::Shl } else { BitOp::Shr };
                    vec![word_op(bb, op, signed, &ws[0], &ws[1])]
                });
                vec![SInt {
                    digits: o[0].clone(),
                }]
            })?;
            let r = EncBits {
                val: out.pop().expect("one output"),
                signed,
            };
            return Ok(Py::new(py, r)?.into_any());
        }
        let Ok(k) = amount.extract::<usize>() else {
            if amount.extract::<BigInt>().is_ok() {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "shift amount must be a non-negative int",
                ));
            }
            return not_implemented(py);
        };
        let w = self.val.len();
        let k = k.min(w);
        let est = stage_estimate(WordOp::ShiftConst, w, w);
        let (mut out, _) = run(py, &[&self.val], est, move |_, b, x| {
            let o = bit_stage(b, &[x[0].digits.clone()], |bb, ws| {
                vec![if left {
                    ops::shl(bb, &ws[0], k)
                } else if signed {
                    ops::sar(bb, &ws[0], k)
                } else {
                    ops::shr(bb, &ws[0], k)
                }]
            });
            vec![SInt {
                digits: o[0].clone(),
            }]
        })?;
        let r = EncBits {
            val: out.pop().expect("one output"),
            signed,
        };
        Ok(Py::new(py, r)?.into_any())
    }

    fn unary(
        &self,
        py: Python<'_>,
        kind: WordOp,
        f: impl FnOnce(&mut BitBuilder, &Word) -> Word + Send,
    ) -> PyResult<EncBits> {
        let w = self.val.len();
        let est = stage_estimate(kind, w, w);
        let (mut out, _) = run(py, &[&self.val], est, |_, b, x| {
            let o = bit_stage(b, &[x[0].digits.clone()], |bb, ws| vec![f(bb, &ws[0])]);
            vec![SInt {
                digits: o[0].clone(),
            }]
        })?;
        Ok(EncBits {
            val: out.pop().expect("one output"),
            signed: self.signed,
        })
    }
}

mod ops_bit {
    pub use encint_core::bits::Bit;
}

/// An `EncBits` operand: bits of the same type, or a constant's bits.
enum Word2 {
    Val(Val),
    Const(Vec<bool>),
}

fn lt(bb: &mut BitBuilder, signed: bool, x: &Word, y: &Word) -> ops_bit::Bit {
    if signed {
        ops::lt_signed(bb, x, y)
    } else {
        ops::lt_unsigned(bb, x, y)
    }
}

#[pymethods]
impl EncBits {
    /// Number of bits.
    #[getter]
    fn width(&self) -> usize {
        self.val.len()
    }
    /// Whether the bits are read as two's complement.
    #[getter]
    fn signed(&self) -> bool {
        self.signed
    }
    /// Whether this is a clear-mode value.
    #[getter]
    fn is_clear(&self) -> bool {
        self.val.is_clear()
    }

    /// The bits and their signedness in a checked envelope (kind Ciphertext).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        match &self.val {
            Val::Enc(x) => {
                let payload = BitsPayload {
                    tag: BITS_TAG,
                    signed: self.signed,
                    value: x.clone(),
                };
                let params = crate::keys::params_of(x.key_set());
                let bytes = envelope::seal(Kind::Ciphertext, params.id(), &payload)
                    .map_err(envelope_err)?;
                Ok(PyBytes::new(py, &bytes))
            }
            Val::Clear(_) => Err(invalid("a clear-mode value has no envelope")),
        }
    }

    /// Reads bits written by `to_bytes` (their signedness is in the envelope; `signed`, if
    /// given, must agree with it). Bytes of any other kind (an `EncInt` or `EncTyped`
    /// envelope, a key) raise `KeyRoleError`: their digits are not known to be bits.
    #[staticmethod]
    #[pyo3(signature = (data, signed = None))]
    fn from_bytes(py: Python<'_>, data: Vec<u8>, signed: Option<bool>) -> PyResult<EncBits> {
        expect_kind(&data, CiphertextKind::Bits)?;
        let p = detached(py, || {
            envelope::open_known::<BitsPayload>(&data, Kind::Ciphertext).map_err(envelope_err)
        })?;
        let x = p.value;
        check_width(x.len(), MAX_DIGITS)?;
        if let Some(given) = signed.filter(|&g| g != p.signed) {
            return Err(invalid(format!(
                "the bytes hold {} bits, signed={given} was asked for",
                if p.signed { "signed" } else { "unsigned" }
            )));
        }
        let signed = p.signed;
        Ok(EncBits {
            val: Val::Enc(x),
            signed,
        })
    }

    #[staticmethod]
    fn _from_clear_bits(bits: Vec<i64>, signed: bool) -> PyResult<EncBits> {
        check_width(bits.len(), MAX_DIGITS)?;
        if bits.iter().any(|d| !(0..=1).contains(d)) {
            return Err(invalid("clear bits must be 0 or 1"));
        }
        Ok(EncBits {
            val: Val::Clear(bits),
            signed,
        })
    }

    fn __reduce__(&self, py: Python<'_>) -> PyResult<(PyObject, (PyObject, bool))> {
        let cls = py.get_type::<EncBits>();
        match &self.val {
            Val::Enc(_) => Ok((
                cls.getattr("from_bytes")?.unbind(),
                (self.to_bytes(py)?.into_any().unbind(), self.signed),
            )),
            Val::Clear(d) => Ok((
                cls.getattr("_from_clear_bits")?.unbind(),
                (
                    d.clone().into_pyobject(py)?.into_any().unbind(),
                    self.signed,
                ),
            )),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "EncBits(<{} {}>)",
            if self.val.is_clear() {
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
        Err(PyTypeError::new_err("EncBits is not hashable"))
    }
    fn __index__(&self) -> PyResult<isize> {
        Err(PyTypeError::new_err(
            "an encrypted value is not a Python int: decrypt it with the client key",
        ))
    }

    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, false, &[WordOp::Add], ops::add)
    }
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, true, &[WordOp::Add], ops::add)
    }
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, false, &[WordOp::Sub], ops::sub)
    }
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, true, &[WordOp::Sub], ops::sub)
    }
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, false, &[WordOp::Mul], ops::mul)
    }
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.binop(py, o, true, &[WordOp::Mul], ops::mul)
    }
    fn __floordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitop(py, o, BitOp::FloorDiv, false)
    }
    fn __rfloordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitop(py, o, BitOp::FloorDiv, true)
    }
    fn __mod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitop(py, o, BitOp::Mod, false)
    }
    fn __rmod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitop(py, o, BitOp::Mod, true)
    }
    fn __and__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitop(py, o, BitOp::And, false)
    }
    fn __rand__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitop(py, o, BitOp::And, true)
    }
    fn __or__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitop(py, o, BitOp::Or, false)
    }
    fn __ror__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitop(py, o, BitOp::Or, true)
    }
    fn __xor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitop(py, o, BitOp::Xor, false)
    }
    fn __rxor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.bitop(py, o, BitOp::Xor, true)
    }
    fn __lshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.shift(py, o, true)
    }
    fn __rshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.shift(py, o, false)
    }
    fn __neg__(&self, py: Python<'_>) -> PyResult<EncBits> {
        self.unary(py, WordOp::Neg, ops::neg)
    }
    fn __pos__(&self) -> EncBits {
        self.clone()
    }
    fn __invert__(&self, py: Python<'_>) -> PyResult<EncBits> {
        self.unary(py, WordOp::Not, ops::not)
    }
    fn __abs__(&self, py: Python<'_>) -> PyResult<EncBits> {
        if self.signed {
            self.unary(py, WordOp::Abs, ops::abs)
        } else {
            Ok(self.clone())
        }
    }
    fn __lt__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.compare(py, o, lt)
    }
    fn __gt__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.compare(py, o, |bb, s, x, y| lt(bb, s, y, x))
    }
    fn __le__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.compare(py, o, |bb, s, x, y| {
            let g = lt(bb, s, y, x);
            bb.not(g)
        })
    }
    fn __ge__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.compare(py, o, |bb, s, x, y| {
            let l = lt(bb, s, x, y);
            bb.not(l)
        })
    }
    fn __eq__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.compare(py, o, |bb, _, x, y| ops::eq(bb, x, y))
    }
    fn __ne__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.compare(py, o, |bb, _, x, y| {
            let e = ops::eq(bb, x, y);
            bb.not(e)
        })
    }

    /// `min(self, other)`.
    fn min(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.min_max(py, other, false)
    }
    /// `max(self, other)`.
    fn max(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        self.min_max(py, other, true)
    }

    /// The exact `EncInt` of these bits (free: no bootstrap).
    fn to_int(&self, py: Python<'_>) -> PyResult<EncInt> {
        let signed = self.signed;
        let w = self.val.len();
        let est = Estimate::new(w as u64, limits::conversions(0, w));
        let (mut out, _) = run(py, &[&self.val], est, move |_, b, x| {
            vec![SInt {
                digits: bits_to_signed_digits(b, &x[0].digits, signed),
            }]
        })?;
        Ok(EncInt {
            val: out.pop().expect("one output"),
        })
    }
}

// ---------------------------------------------------------------------------------------
// Client-side encryption and module functions
// ---------------------------------------------------------------------------------------

impl ClientKey {
    pub(crate) fn encrypt_int(
        &self,
        py: Python<'_>,
        value: BigInt,
        width: usize,
    ) -> PyResult<EncInt> {
        check_width(width, MAX_DIGITS)?;
        let mut digits = digits_of(&value);
        if digits.len() > width {
            return Err(invalid(format!(
                "{value} does not fit in {width} signed binary digits"
            )));
        }
        digits.resize(width, 0);
        let val = detached(py, || Ok(seal_digits(self, digits)))?;
        Ok(EncInt { val })
    }

    pub(crate) fn encrypt_bits_impl(
        &self,
        py: Python<'_>,
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
        let val = detached(py, || Ok(seal_digits(self, digits)))?;
        Ok(EncBits { val, signed })
    }

    pub(crate) fn decrypt_impl(
        &self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<BigInt> {
        if let Ok(x) = value.downcast::<EncInt>() {
            let v = &x.get().val;
            let digits = detached(py, || open_digits(self, v, -1..=1))?;
            return Ok(value_of(&digits));
        }
        if let Ok(x) = value.downcast::<EncBits>() {
            let x = x.get();
            let digits = detached(py, || open_digits(self, &x.val, 0..=1))?;
            let u = value_of(&digits);
            let w = digits.len();
            return Ok(if x.signed && digits.last() == Some(&1) {
                u - (BigInt::from(1) << w)
            } else {
                u
            });
        }
        if let Ok(x) = value.downcast::<crate::typed::EncTyped>() {
            return self.decrypt_typed_impl(py, x.get());
        }
        Err(PyTypeError::new_err(format!(
            "decrypt takes an EncInt, EncBits or EncTyped, not {}",
            value.get_type().name()?
        )))
    }
}

/// The estimate of `b + c·(a - b)` on `c`, `a`, `b` of these widths.
pub(crate) fn select_estimate(c: usize, a: usize, b: usize) -> Estimate {
    let d = limits::op(encint::Op::Sub, a, b);
    let dw = usize::try_from(d.width).unwrap_or(usize::MAX);
    let p = limits::op(encint::Op::Mul, c, dw);
    let pw = usize::try_from(p.width).unwrap_or(usize::MAX);
    d.then(p).then(limits::op(encint::Op::Add, b, pw))
}

/// `a if cond else b` without revealing `cond` (an encrypted 0 or 1 of the same type as
/// `a` and `b`; Python ints are accepted for `a` and `b`).
#[pyfunction]
fn select(
    py: Python<'_>,
    cond: &Bound<'_, PyAny>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<PyObject> {
    if let Ok(c) = cond.downcast::<crate::typed::EncTyped>() {
        return crate::typed::select(py, c.get(), a, b);
    }
    if let Ok(c) = cond.downcast::<crate::fv_bits::FvWord>() {
        let (Ok(x), Ok(y)) = (
            a.downcast::<crate::fv_bits::FvWord>(),
            b.downcast::<crate::fv_bits::FvWord>(),
        ) else {
            return Err(PyTypeError::new_err(
                "select with an FvWord condition needs FvWord operands",
            ));
        };
        return crate::fv_bits::select(py, c.get(), x.get(), y.get());
    }
    if let Ok(c) = cond.downcast::<EncBits>() {
        let c = c.get();
        if c.val.len() != 1 {
            return Err(invalid(
                "the condition must be a 1-bit EncBits (a comparison result)",
            ));
        }
        let model = if let Ok(x) = a.downcast::<EncBits>() {
            x.get().clone()
        } else if let Ok(x) = b.downcast::<EncBits>() {
            x.get().clone()
        } else {
            return Err(PyTypeError::new_err(
                "select with an EncBits condition needs an EncBits operand",
            ));
        };
        let bits = |o: &Bound<'_, PyAny>| -> PyResult<Word2> {
            model
                .arg(o)?
                .ok_or_else(|| PyTypeError::new_err("select operands must be EncBits or int"))
        };
        let (wa, wb) = (bits(a)?, bits(b)?);
        let mut vals: Vec<&Val> = vec![&c.val];
        let mut slots = [None, None];
        for (i, w) in [&wa, &wb].iter().enumerate() {
            if let Word2::Val(v) = w {
                slots[i] = Some(vals.len());
                vals.push(v);
            }
        }
        let consts: Vec<Option<Vec<bool>>> = [&wa, &wb]
            .iter()
            .map(|w| match w {
                Word2::Const(c) => Some(c.clone()),
                Word2::Val(_) => None,
            })
            .collect();
        let w = model.val.len();
        let est = stage_estimate(WordOp::Select, w, w);
        let (mut out, _) = run(py, &vals, est, move |_, bld, x| {
            let groups: Vec<Vec<NodeId>> = x.iter().map(|s| s.digits.clone()).collect();
            let o = bit_stage(bld, &groups, |bb, ws| {
                let pick = |bb: &mut BitBuilder, i: usize| match (slots[i], &consts[i]) {
                    (Some(k), _) => ws[k].clone(),
                    (None, Some(c)) => Word {
                        bits: c.iter().map(|&v| bb.constant(v)).collect(),
                    },
                    (None, None) => unreachable!(),
                };
                let (xa, xb) = (pick(bb, 0), pick(bb, 1));
                vec![ops::select(bb, ws[0].bits[0], &xa, &xb)]
            });
            vec![SInt {
                digits: o[0].clone(),
            }]
        })?;
        let r = EncBits {
            val: out.pop().expect("one output"),
            signed: model.signed,
        };
        return Ok(Py::new(py, r)?.into_any());
    }
    let Ok(c) = cond.downcast::<EncInt>() else {
        return Err(PyTypeError::new_err(
            "the condition must be an EncInt or EncBits (0 or 1)",
        ));
    };
    let c = c.get();
    if c.val.len() != 1 {
        return Err(invalid(format!(
            "the condition must be a 1-digit EncInt holding 0 or 1 (as comparisons give), \
             not one of {} digits",
            c.val.len()
        )));
    }
    // b + c·(a - b): one exact product with a one-digit factor.
    let args = [EncInt::arg(a), EncInt::arg(b)];
    let mut vals: Vec<&Val> = vec![&c.val];
    let mut slots = [None, None];
    let mut consts = [None, None];
    for (i, arg) in args.iter().enumerate() {
        match arg {
            Some(Arg::Val(v)) => {
                slots[i] = Some(vals.len());
                vals.push(v);
            }
            Some(Arg::Int(k)) => consts[i] = Some(k.clone()),
            None => {
                return Err(PyTypeError::new_err(
                    "select operands must be EncInt or int",
                ))
            }
        }
    }
    let width = |i: usize| match (slots[i], &consts[i]) {
        (Some(k), _) => vals[k].len(),
        (None, Some(v)) => const_len(v),
        (None, None) => 0,
    };
    let est = select_estimate(c.val.len(), width(0), width(1));
    let (mut out, _) = run(py, &vals, est, move |ar, bld, x| {
        let mut pick = |i: usize| match (slots[i], &consts[i]) {
            (Some(k), _) => x[k].clone(),
            (None, Some(v)) => const_sint(bld, v),
            (None, None) => unreachable!(),
        };
        let (xa, xb) = (pick(0), pick(1));
        let d = ar.sub(bld, &xa, &xb);
        let p = ar.mul(bld, &x[0], &d);
        vec![ar.add(bld, &xb, &p)]
    })?;
    Ok(Py::new(
        py,
        EncInt {
            val: out.pop().expect("one output"),
        },
    )?
    .into_any())
}

/// Benchmark support (`crates/py/bench/overhead.py`): `iters` calls of the Rust API's
/// `Server::add` on `a` and `b`, timed in Rust; returns the seconds of each call.
#[pyfunction]
fn _bench_rust_add(py: Python<'_>, a: &EncInt, b: &EncInt, iters: usize) -> PyResult<Vec<f64>> {
    let (Val::Enc(x), Val::Enc(y)) = (&a.val, &b.val) else {
        return Err(invalid("the benchmark needs encrypted values"));
    };
    let server = current_server()?;
    detached(py, || {
        let mut times = Vec::with_capacity(iters);
        for _ in 0..iters {
            let t = std::time::Instant::now();
            let r = server.add(x, y).map_err(to_py)?;
            times.push(t.elapsed().as_secs_f64());
            drop(r);
        }
        Ok(times)
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_bench_rust_add, m)?)?;
    m.add_class::<EncInt>()?;
    m.add_class::<EncBits>()?;
    m.add_function(wrap_pyfunction!(select, m)?)?;
    Ok(())
}
