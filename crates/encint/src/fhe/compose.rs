//! Several typed operations recorded into one circuit: the engine under the operators of
//! [`FheUint`](super::FheUint), [`FheInt`](super::FheInt) and [`FheBool`](super::FheBool)
//! (a scalar operand, a shift amount reduced modulo the width, an absolute value are each
//! one circuit), and under [`Server::typed_compose`] for a caller's own function.

use std::sync::Arc;

use encint_arith::typed::{
    build, plan, plan_on, plan_sum, plan_sum_on, Algorithm, Fastest, Form, IntType, Op, SumMethod,
    TypedError,
};
use encint_arith::{Arith, SInt};
use encint_core::circuit::{Builder, Cost};
use encint_core::memo::Memo;

use crate::typed::{operand_types, EncTyped};
use crate::{Error, Result, Server};

mod chain;
mod fresh;
mod lookup;

use chain::Linear;
pub(crate) use lookup::check_pairs;
pub use lookup::MAX_MATCHES;

/// A typed value inside a circuit being recorded: its digit nodes, its type and their
/// form. Values come from [`Server::typed_compose`]'s inputs, from [`Composer::constant`]
/// and from [`Composer::apply`].
#[derive(Debug, Clone)]
pub struct Value {
    digits: SInt,
    ty: IntType,
    form: Form,
    /// For the result of a linear operation inside a compiled function (see
    /// [`Composer::with_chain_sums`]): the weighted values and the constant it adds up,
    /// so that a further linear operation reduces all of them at once.
    terms: Option<Arc<Linear>>,
    /// For a product of two values inside a compiled function: its factors, so that a sum
    /// it joins builds it inside one reduction of products ([`encint_arith::typed::dot_plus`]).
    factors: Option<Arc<(Value, Value)>>,
}

impl Value {
    pub(crate) fn new(digits: SInt, ty: IntType, form: Form) -> Value {
        Value {
            digits,
            ty,
            form,
            terms: None,
            factors: None,
        }
    }

    pub(crate) fn digits(&self) -> &SInt {
        &self.digits
    }

    /// The same value without the chain it was reduced from: what a chain records of a
    /// term, so that records never nest (a long program would otherwise hold, and drop,
    /// one level of records per operation).
    fn without_terms(&self) -> Value {
        Value {
            terms: None,
            ..self.clone()
        }
    }

    /// The same value without any record (neither chain nor factors): what a product
    /// records of its factors.
    fn bare(&self) -> Value {
        Value::new(self.digits.clone(), self.ty, self.form)
    }

    /// The value's type.
    pub fn ty(&self) -> IntType {
        self.ty
    }

    /// The form of its digits.
    pub fn form(&self) -> Form {
        self.form
    }

    /// The same digits read as a value of `ty` (same width): the `n`-bit pattern is kept,
    /// so an unsigned value becomes the signed value of its pattern and back, as Rust's
    /// `as` between types of one width. No cost.
    pub fn reinterpret(&self, ty: IntType) -> Result<Value> {
        if ty.bits != self.ty.bits {
            return Err(Error::TypeMismatch(format!(
                "cannot reinterpret {} as {ty}: widths differ",
                self.ty
            )));
        }
        let form = match self.form {
            // The top digit's sign convention differs between signed and unsigned
            // canonical digits; any representative is a lazy value.
            Form::Canonical if ty != self.ty => Form::Lazy,
            f => f,
        };
        Ok(Value {
            digits: self.digits.clone(),
            ty,
            form,
            terms: None,
            factors: None,
        })
    }
}

/// Records typed operations into one circuit (see [`Server::typed_compose`]). Each
/// operation takes the algorithm the planner estimates fastest at the server's thread
/// count, for the operands' forms; a clear operand ([`Composer::constant`]) is folded into
/// the circuit, and the planner weighs each algorithm with it folded.
pub struct Composer<'a> {
    ar: &'a Arith,
    b: &'a mut Builder,
    threads: usize,
    /// Whether additions continue chains ([`Composer::with_chain_sums`]).
    chain_sums: bool,
}

impl std::fmt::Debug for Composer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Composer")
            .field("threads", &self.threads)
            .field("nodes", &self.b.node_count())
            .finish()
    }
}

/// An operand inside a circuit being recorded: a value of it, or a clear value (its
/// two's-complement pattern, converted to the type as Rust's `as` does).
#[derive(Debug, Clone, Copy)]
pub enum Rhs<'v> {
    /// A value of the circuit.
    Value(&'v Value),
    /// A clear value.
    Clear(i128),
}

/// How [`Composer::dot`] builds a sum of products.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum DotMethod {
    /// One block circuit for all the products ([`encint_arith::typed::dot`]).
    Blocks,
    /// One counter tree over every partial product's bit
    /// ([`encint_arith::typed::dot_widening`]).
    Counters,
    /// Each product by the planner, then their sum ([`Composer::sum`]).
    Products,
}

/// What decides [`Composer::dot`]'s choice: the type, each operand's form and known
/// digits, which pairs are squares, the threads, the machine and the noise budget.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct DotKey {
    ty: IntType,
    operands: Vec<(Form, Vec<Option<i64>>)>,
    squares: Vec<bool>,
    threads: usize,
    machine: Option<MachineKey>,
    budget: u64,
}

/// The most planning choices remembered per kind ([`Composer::dot`]'s, [`Composer::sum`]'s)
/// for the whole process, the oldest forgotten first (a matrix product asks one question
/// for every entry; a program asks a few per shape of its dot products and sums).
const MAX_CHOICES: usize = 256;

/// [`Composer::dot`]'s choices so far.
static DOT_CHOICES: Memo<DotKey, DotMethod> = Memo::new(MAX_CHOICES); // bounded cache: at most MAX_CHOICES (256) entries

/// Whether two values are the same (their product a square).
fn same(x: &Value, y: &Value) -> bool {
    x.digits == y.digits && x.form == y.form && x.ty == y.ty
}

/// The most terms one chain of additions reduces at once ([`Composer::with_chain_sums`]).
pub const MAX_CHAIN_TERMS: usize = 32;

/// What decides [`Composer::sum`]'s choice.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct SumKey {
    ty: IntType,
    forms: Vec<Form>,
    threads: usize,
    machine: Option<MachineKey>,
    budget: u64,
}

/// The numbers of the machine profile a choice was ranked on (lanes, a round's and a
/// level's seconds as bits, planned threads, GPU or not): a choice made by one machine's
/// time is never reused for another machine or for bare threads.
type MachineKey = (usize, u64, u64, usize, bool);

/// [`MachineKey`] of `ar`'s machine, if it has one.
fn machine_key(ar: &Arith) -> Option<MachineKey> {
    ar.machine().map(|m| {
        (
            m.lanes,
            m.round_s.to_bits(),
            m.latency_s.to_bits(),
            m.plan_threads,
            m.gpu,
        )
    })
}

/// [`Composer::sum`]'s choices so far.
static SUM_CHOICES: Memo<SumKey, SumMethod> = Memo::new(MAX_CHOICES); // bounded cache: at most MAX_CHOICES (256) entries

/// Whether the clear `k` is, for `ty`, an unsigned 128-bit value above `i128::MAX`.
fn above_i128(ty: IntType, k: i128) -> bool {
    ty.bits == 128 && !ty.signed && k < 0
}

fn is_shift(op: Op) -> bool {
    matches!(op, Op::ShlVar | Op::ShrVar | Op::RotlVar | Op::RotrVar)
}

impl<'a> Composer<'a> {
    pub(crate) fn new(ar: &'a Arith, b: &'a mut Builder, threads: usize) -> Self {
        Composer {
            ar,
            b,
            threads,
            chain_sums: false,
        }
    }

    /// This composer with chains of linear operations reduced at once. Inside a chain,
    /// additions, subtractions, negations, products by clear values, shifts left by clear
    /// amounts and clear constants build a linear combination `Σ wᵢ·xᵢ + c` of the values
    /// they started from (a value met twice is one term: `(a + b) - b` is `a`); a
    /// two-operand addition or subtraction on a value that carries a chain builds the whole
    /// combination as one reduction instead of one more adder: [`Composer::sum`] when every
    /// weight is 1, one counter tree with the weights folded ([`Composer::dot_clear`])
    /// otherwise, and one block reduction of products and addends
    /// ([`encint_arith::typed::dot_plus`]) when terms are products of two values; a
    /// product of `k·x + c` (a chain) by `x` itself is `k·x² + c·x`, the square and one
    /// such reduction ([`Composer::distribute`](Self::distribute)). The
    /// intermediate results are still built (another operation may use them); those
    /// nothing uses are dead nodes of the circuit, which cost nothing. A chain of more than
    /// [`MAX_CHAIN_TERMS`] values is built step by step. A result that other operations
    /// use as well is then paid twice (once on its own, once inside the longer
    /// reduction), so [`super::compile`] traces a function both ways and keeps the faster
    /// circuit.
    pub(crate) fn with_chain_sums(mut self, on: bool) -> Self {
        self.chain_sums = on;
        self
    }

    /// The clear value `pattern` as a value of `ty` (its low `ty.bits` bits, as Rust's
    /// `as` converts): known digits, folded into the operations that use it.
    pub fn constant(&mut self, ty: IntType, pattern: i128) -> Value {
        let digits = Form::Canonical
            .encode(ty, pattern)
            .into_iter()
            .map(|d| self.b.constant(d))
            .collect();
        Value::new(SInt { digits }, ty, Form::Canonical)
    }

    /// A one-operand operation of the family on `x`; a cast to the boolean type is
    /// `x != 0` (TFHE-rs' semantics; see [`crate::fhe`]); [`Op::Abs`] is [`Composer::abs`].
    pub fn unary_op(&mut self, op: Op, x: &Value) -> Result<Value> {
        if op.arity() != 1 {
            return Err(Error::WrongOperation(format!(
                "{op} is not a one-operand operation"
            )));
        }
        match op {
            Op::Cast(to) if to == IntType::BOOL && x.ty != IntType::BOOL => {
                let zero = self.constant(x.ty, 0);
                self.apply(Op::NE, &[x, &zero])
            }
            Op::Abs => self.abs(x),
            op => self.apply(op, &[x]),
        }
    }

    /// A two-operand operation of the family (a comparison included) on `x` and `rhs`, with
    /// TFHE-rs' semantics (see [`crate::fhe`]): a clear `rhs` is converted to `x`'s type
    /// and folded (products, quotients and remainders by a clear value take the scalar
    /// circuits); shifts and rotations (`ShlVar`, `ShrVar`, `RotlVar`, `RotrVar`) take the
    /// amount modulo the width, a clear non-negative one or an unsigned value of the width.
    pub fn binary_op(&mut self, op: Op, x: &Value, rhs: Rhs<'_>) -> Result<Value> {
        if op.arity() != 2 {
            return Err(Error::WrongOperation(format!(
                "{op} is not a two-operand operation"
            )));
        }
        let ty = x.ty;
        match (op, rhs) {
            (op, rhs) if is_shift(op) => self.shift(op, x, rhs),
            (Op::Mul, Rhs::Clear(k)) => self.apply(Op::ScalarMul(k), &[x]),
            (Op::Div | Op::Rem, Rhs::Clear(k)) if above_i128(ty, k) => self.by_large(op, x, k),
            (Op::Div, Rhs::Clear(k)) => self.apply(Op::DivScalar(ty.wrap(k)), &[x]),
            (Op::Rem, Rhs::Clear(k)) => self.apply(Op::RemScalar(ty.wrap(k)), &[x]),
            (op, Rhs::Value(r)) => self.apply(op, &[x, r]),
            (op, Rhs::Clear(k)) => {
                let k = self.constant(ty, k);
                self.apply(op, &[x, &k])
            }
        }
    }

    /// `x / k` or `x % k` on `u128` for a clear divisor above `i128::MAX` (its pattern, a
    /// negative `k`, as every clear operand travels), which the planner's scalar division
    /// cannot name (its scalars are `i128` values): the quotient is `x ≥ k` (0 or 1), the
    /// remainder `x - k` or `x`.
    fn by_large(&mut self, op: Op, x: &Value, k: i128) -> Result<Value> {
        let ty = x.ty;
        let d = self.constant(ty, k);
        let ge = self.apply(Op::GE, &[x, &d])?;
        if op == Op::Div {
            return self.apply(Op::Cast(ty), &[&ge]);
        }
        let less = self.apply(Op::Sub, &[x, &d])?;
        self.apply(Op::Select, &[&ge, &less, x])
    }

    fn shift(&mut self, op: Op, x: &Value, amount: Rhs<'_>) -> Result<Value> {
        let ty = x.ty;
        let n = ty.bits;
        match amount {
            Rhs::Clear(k) if k < 0 => Err(Error::OutOfRange(format!("negative shift amount {k}"))),
            Rhs::Clear(k) => {
                let k = (k % n as i128) as u32;
                let op = match op {
                    Op::ShlVar => Op::Shl(k),
                    Op::ShrVar => Op::Shr(k),
                    Op::RotlVar => Op::Rotl(k),
                    _ => Op::Rotr(k),
                };
                self.apply(op, &[x])
            }
            Rhs::Value(s) => {
                let unsigned = IntType {
                    bits: n,
                    signed: false,
                };
                if s.ty != unsigned {
                    return Err(Error::TypeMismatch(format!(
                        "a shift amount of type {}, not {unsigned}",
                        s.ty
                    )));
                }
                // Shifts read the amount modulo N; rotations do already.
                let amount = match op {
                    Op::ShlVar | Op::ShrVar if n.is_power_of_two() => {
                        let mask = self.constant(unsigned, n as i128 - 1);
                        self.apply(Op::And, &[s, &mask])?
                    }
                    Op::ShlVar | Op::ShrVar => self.apply(Op::RemScalar(n as i128), &[s])?,
                    _ => s.clone(),
                };
                let amount = amount.reinterpret(ty)?;
                self.apply(op, &[x, &amount])
            }
        }
    }

    /// `|x|` modulo `2^N` (`abs(MIN) = MIN`); an unsigned `x` as it is.
    pub fn abs(&mut self, x: &Value) -> Result<Value> {
        if !x.ty.signed {
            return Ok(x.clone());
        }
        let zero = self.constant(x.ty, 0);
        let negative = self.apply(Op::LT, &[x, &zero])?;
        let minus = self.apply(Op::Neg, &[x])?;
        self.apply(Op::Select, &[&negative, &minus, x])
    }

    /// `if cond { a } else { b }` for a boolean `cond`; the branches' type is a branch
    /// value's, or `ty` when both are clear.
    pub fn select(
        &mut self,
        cond: &Value,
        a: Rhs<'_>,
        b: Rhs<'_>,
        ty: Option<IntType>,
    ) -> Result<Value> {
        if cond.ty != IntType::BOOL {
            return Err(Error::TypeMismatch(format!(
                "a condition of type {}, not a boolean",
                cond.ty
            )));
        }
        let ty = [a, b]
            .iter()
            .find_map(|o| match o {
                Rhs::Value(v) => Some(v.ty),
                Rhs::Clear(_) => None,
            })
            .or(ty)
            .ok_or_else(|| {
                Error::InvalidInput("a selection between two clear values needs a type".into())
            })?;
        let mut value = |o: Rhs<'_>| match o {
            Rhs::Value(v) => v.clone(),
            Rhs::Clear(k) => self.constant(ty, k),
        };
        let (a, b) = (value(a), value(b));
        self.apply(Op::Select, &[cond, &a, &b])
    }

    /// Records `op` on `args` (see [`Op`] for the semantics and the operand order);
    /// returns its result, of type `op.result_type(ty)`.
    pub fn apply(&mut self, op: Op, args: &[&Value]) -> Result<Value> {
        if self.chain_sums
            && let Some(out) = self.chain(op, args)?
        {
            return Ok(out);
        }
        if let (true, Op::Mul, [a, b]) = (self.chain_sums, op, args)
            && let Some(out) = self.distribute(a, b)?
        {
            return Ok(out);
        }
        if let (Op::Mul, [a, b]) = (op, args)
            && same(a, b)
        {
            // Each cross product of a square's bits or blocks is built once.
            return self.apply(Op::Square, &[a]);
        }
        let types: Vec<(IntType, Form)> = args.iter().map(|v| (v.ty, v.form)).collect();
        let (ty, forms) = operand_types(op, &types)?;
        let (digits, form) = self.within_budget(
            args,
            |c, args| {
                let x: Vec<SInt> = args.iter().map(|v| v.digits.clone()).collect();
                c.build_op(op, ty, &forms, &x)
            },
            |(d, _)| &d.digits,
        )?;
        let factors = match (self.chain_sums, op, args) {
            (true, Op::Mul, [a, b]) => Some(Arc::new((a.bare(), b.bare()))),
            (true, Op::Square, [a]) => Some(Arc::new((a.bare(), a.bare()))),
            _ => None,
        };
        Ok(Value {
            digits,
            ty: op.result_type(ty),
            form,
            terms: None,
            factors,
        })
    }

    /// `Σ xᵢ·yᵢ` modulo `2^n` over values of one type, whichever way the planner
    /// estimates fastest (rounds, then bootstraps) at the server's thread count: one block
    /// circuit for all the products ([`encint_arith::typed::dot`]), one counter tree over
    /// every partial product's bit ([`encint_arith::typed::dot_widening`]), or each
    /// product on its own and one reduction of them ([`Composer::sum`]). A pair of one
    /// value twice is a square (each cross product of its bits or blocks built once,
    /// counted twice), and known digits (a cast's zero extension) are folded.
    pub fn dot(&mut self, xs: &[&Value], ys: &[&Value]) -> Result<Value> {
        let ty = match xs.first() {
            Some(x) => x.ty,
            None => return Err(Error::ShapeMismatch("a dot product of no values".into())),
        };
        if xs.len() != ys.len() || xs.iter().chain(ys).any(|v| v.ty != ty) {
            return Err(Error::ShapeMismatch(
                "a dot product of two lists of one length and one type".into(),
            ));
        }
        // Each way on a scratch circuit, the fastest one here; the choice is remembered
        // (a matrix product asks the same question for every entry).
        let key = DotKey {
            ty,
            operands: xs
                .iter()
                .chain(ys)
                .map(|v| (v.form, self.known(v)))
                .collect(),
            squares: xs.iter().zip(ys).map(|(x, y)| same(x, y)).collect(),
            threads: self.threads,
            machine: machine_key(self.ar),
            budget: self.ar.config().max_qweight,
        };
        let method = DOT_CHOICES.get_or_try_insert_with(key, |_| self.fastest_dot(xs, ys))?;
        let operands: Vec<&Value> = xs.iter().chain(ys).copied().collect();
        let n = xs.len();
        self.within_budget(
            &operands,
            |c, v| c.dot_by(method, &v[..n], &v[n..]),
            |out| &out.digits.digits,
        )
    }

    /// The known value of each of `v`'s digits.
    fn known(&self, v: &Value) -> Vec<Option<i64>> {
        v.digits
            .digits
            .iter()
            .map(|&d| self.b.const_value(d))
            .collect()
    }

    fn dot_by(&mut self, method: DotMethod, xs: &[&Value], ys: &[&Value]) -> Result<Value> {
        let ty = xs[0].ty;
        match method {
            DotMethod::Blocks => dot_blocks(self.ar, self.b, xs, ys),
            DotMethod::Counters => self.dot_widening(xs, ys, &[], ty),
            DotMethod::Products => {
                let terms = xs
                    .iter()
                    .zip(ys)
                    .map(|(&x, &y)| match same(x, y) {
                        true => self.apply(Op::Square, &[x]),
                        false => self.apply(Op::Mul, &[x, y]),
                    })
                    .collect::<Result<Vec<Value>>>()?;
                let refs: Vec<&Value> = terms.iter().collect();
                self.sum(&refs)
            }
        }
    }

    /// A ranking of candidate circuits for this composer: by estimated time on the
    /// arithmetic's machine when it has one ([`Fastest::on`]), else by rounds at its
    /// threads.
    fn fastest<M, E>(&self) -> Fastest<M, E> {
        let budget = self.ar.config().max_qweight;
        match self.ar.machine() {
            Some(m) => Fastest::on(m, budget),
            None => Fastest::new(self.threads, budget),
        }
    }

    /// The way of [`Composer::dot`] estimated fastest for operands shaped like `xs`, `ys`
    /// (their forms, known digits and squares): rounds, then bootstraps.
    fn fastest_dot(&self, xs: &[&Value], ys: &[&Value]) -> Result<DotMethod> {
        let mut fastest = self.fastest();
        for method in [DotMethod::Blocks, DotMethod::Counters, DotMethod::Products] {
            let mut b = Builder::new();
            self.ar.plan_builder(&mut b, self.threads);
            let mut scratch = |v: &Value| Value {
                digits: SInt {
                    digits: v
                        .digits
                        .digits
                        .iter()
                        .map(|&d| match self.b.const_value(d) {
                            Some(c) => b.constant(c),
                            None => b.input(),
                        })
                        .collect(),
                },
                ty: v.ty,
                form: v.form,
                terms: None,
                factors: None,
            };
            let sx: Vec<Value> = xs.iter().map(|v| scratch(v)).collect();
            let sy: Vec<Value> = ys
                .iter()
                .zip(xs)
                .zip(&sx)
                .map(|((&y, &x), s)| if same(x, y) { s.clone() } else { scratch(y) })
                .collect();
            let (rx, ry): (Vec<&Value>, Vec<&Value>) = (sx.iter().collect(), sy.iter().collect());
            let mut c = Composer::new(self.ar, &mut b, self.threads);
            let built = c.dot_by(method, &rx, &ry);
            fastest.offer(method, built.map(|out| b.finish(out.digits.digits)));
        }
        fastest
            .pick()?
            .ok_or_else(|| Error::ShapeMismatch("a dot product of no values".into()))
    }

    /// `Σ xᵢ` modulo `2^n` over values of one type, as one reduction
    /// ([`encint_arith::typed::sum`]): a counter tree over every operand's bits, one
    /// reduction of their radix-4 digit columns, or a tree of two-operand additions,
    /// whichever [`encint_arith::typed::plan_sum`] estimates fastest at the server's thread
    /// count for the operands' forms (rounds, then bootstraps). Booleans, and values of
    /// different types, are added pairwise (as [`Op::Add`] on them does).
    pub fn sum(&mut self, xs: &[&Value]) -> Result<Value> {
        let Some(first) = xs.first() else {
            return Err(Error::ShapeMismatch("a sum of no values".into()));
        };
        let ty = first.ty;
        if ty == IntType::BOOL || xs.iter().any(|v| v.ty != ty) {
            let mut acc = (*first).clone();
            for x in &xs[1..] {
                acc = self.apply(Op::Add, &[&acc, x])?;
            }
            return Ok(acc);
        }
        let key = SumKey {
            ty,
            forms: xs.iter().map(|v| v.form).collect(),
            threads: self.threads,
            machine: machine_key(self.ar),
            budget: self.ar.config().max_qweight,
        };
        let method = SUM_CHOICES.get_or_try_insert_with(key, |key| -> Result<SumMethod> {
            let plan = match self.ar.machine() {
                Some(m) => plan_sum_on(self.ar, ty, &key.forms, m),
                None => plan_sum(self.ar, ty, &key.forms, self.threads),
            };
            Ok(plan?[0].method)
        })?;
        let (digits, form) = self.within_budget(
            xs,
            |c, xs| {
                let operands: Vec<(&SInt, Form)> = xs.iter().map(|v| (&v.digits, v.form)).collect();
                Ok(encint_arith::typed::sum(
                    c.ar, c.b, ty, &operands, method, c.threads,
                )?)
            },
            |(d, _)| &d.digits,
        )?;
        Ok(Value::new(digits, ty, form))
    }

    /// `Σ xᵢ·wᵢ + c` modulo `2^n` over values of one type and clear weights `ws` (converted
    /// to the type as Rust's `as` does) and a clear constant `c`: the weights folded into
    /// one counter tree over the operands' bits ([`encint_arith::typed::dot_clear`]), so
    /// only the reduction bootstraps; a zero weight costs nothing.
    pub fn dot_clear(&mut self, xs: &[&Value], ws: &[i128], c: i128) -> Result<Value> {
        let ty = match xs.first() {
            Some(x) => x.ty,
            None => return Err(Error::ShapeMismatch("a dot product of no values".into())),
        };
        if xs.len() != ws.len() || xs.iter().any(|v| v.ty != ty) {
            return Err(Error::ShapeMismatch(
                "a dot product of values of one type and as many clear weights".into(),
            ));
        }
        let operands: Vec<(&SInt, Form)> = xs.iter().map(|v| (&v.digits, v.form)).collect();
        let ws: Vec<i128> = ws.iter().map(|&w| ty.wrap(w)).collect();
        // Operands in blocks stay in blocks: the weights spread over the block columns.
        let budget = self.ar.config().max_qweight;
        if let Some(digits) =
            encint_arith::typed::dot_clear_blocks(self.b, ty, &operands, &ws, ty.wrap(c), budget)
        {
            return Ok(Value::new(digits, ty, Form::Radix4));
        }
        let digits = encint_arith::typed::dot_clear(self.b, ty, &operands, &ws, ty.wrap(c))
            .ok_or_else(|| {
                Error::InvalidInput("a dot product the bit layer cannot build".into())
            })?;
        Ok(Value::new(digits, ty, Form::Canonical))
    }

    /// `Σ xᵢ·yᵢ + Σ cⱼ` modulo `2^n` of `out`, over values of any types (each product exact
    /// from the operands' own bits, each addend extended by its type), as a value of
    /// `out`: one counter tree over all the partial products
    /// ([`encint_arith::typed::dot_widening`]). Narrow operands summed into a wider type
    /// (small weights and activations into an accumulator) pay only for their own bits.
    pub fn dot_widening(
        &mut self,
        xs: &[&Value],
        ys: &[&Value],
        addends: &[&Value],
        out: IntType,
    ) -> Result<Value> {
        if xs.len() != ys.len() {
            return Err(Error::ShapeMismatch(
                "a dot product of two lists of one length".into(),
            ));
        }
        fn operand<'v>(v: &&'v Value) -> encint_arith::typed::Operand<'v> {
            (&v.digits, v.form, v.ty)
        }
        let (xo, yo, co): (Vec<_>, Vec<_>, Vec<_>) = (
            xs.iter().map(operand).collect(),
            ys.iter().map(operand).collect(),
            addends.iter().map(operand).collect(),
        );
        let digits =
            encint_arith::typed::dot_widening(self.b, out, &xo, &yo, &co).ok_or_else(|| {
                Error::InvalidInput("a dot product the bit layer cannot build".into())
            })?;
        Ok(Value::new(digits, out, Form::Canonical))
    }

    /// The algorithm for `op` on `x`: the planner's choice when every operand is
    /// encrypted (by estimated time on the arithmetic's machine profile,
    /// [`Arith::machine`], when it has one); with a clear operand, each algorithm's circuit is built with it folded
    /// and the fastest (rounds, then bootstraps) wins.
    pub(super) fn choose(
        &self,
        op: Op,
        ty: IntType,
        forms: &[Form],
        x: &[SInt],
    ) -> Result<Algorithm> {
        let known = |s: &SInt| s.digits.iter().all(|&d| self.b.const_value(d).is_some());
        if !x.iter().any(known) {
            // Ranked by time on the machine the arithmetic was made for, else by rounds
            // at the composer's threads.
            let p = match self.ar.machine() {
                Some(m) => plan_on(self.ar, op, ty, forms, m),
                None => plan(self.ar, op, ty, forms, self.threads),
            };
            return Ok(p.map_err(Error::from)?.chosen().algorithm);
        }
        let mut fastest = self.fastest();
        for &algorithm in op.algorithms() {
            let mut scratch = Builder::new();
            self.ar.plan_builder(&mut scratch, self.threads);
            let operands: Vec<SInt> = x
                .iter()
                .map(|s| match known(s) {
                    true => SInt {
                        digits: s
                            .digits
                            .iter()
                            .map(|&d| scratch.constant(self.b.const_value(d).unwrap_or(0)))
                            .collect(),
                    },
                    false => SInt::input(&mut scratch, s.len()),
                })
                .collect();
            let built = build(self.ar, &mut scratch, op, ty, algorithm, &operands, forms);
            fastest.offer(algorithm, built.map(|(out, _)| scratch.finish(out.digits)));
        }
        fastest
            .pick()
            .map_err(Error::from)?
            .ok_or_else(|| Error::from(TypedError::Unsupported(op, Algorithm::Bits)))
    }
}

/// [`Composer::dot`] as one block circuit.
fn dot_blocks(ar: &Arith, b: &mut Builder, xs: &[&Value], ys: &[&Value]) -> Result<Value> {
    let ty = xs[0].ty;
    let rx: Vec<(&SInt, Form)> = xs.iter().map(|v| (&v.digits, v.form)).collect();
    let ry: Vec<(&SInt, Form)> = ys.iter().map(|v| (&v.digits, v.form)).collect();
    let (digits, form) = encint_arith::typed::dot(ar, b, ty, &rx, &ry)
        .ok_or_else(|| Error::ShapeMismatch("lists of different lengths".into()))?;
    Ok(Value::new(digits, ty, form))
}

impl Server {
    /// Records `f` on typed inputs as one circuit, runs it and returns its outputs and the
    /// circuit's cost: independent operations share bootstrap levels, and clear operands
    /// ([`Composer::constant`]) are folded. Errors as [`Server::eval`] does, and with the
    /// first error `f` returns (nothing runs then).
    ///
    /// ```
    /// use encint::fhe::Composer;
    /// use encint::typed::{decrypt_typed, encrypt_typed, Op, IntType};
    /// use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    ///
    /// let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let server = Server::new(key);
    /// let u8t = IntType::new(8, false).unwrap();
    /// let a = encrypt_typed(&client, 200, u8t).unwrap();
    /// let b = encrypt_typed(&client, 100, u8t).unwrap();
    /// // (a + b) * 3, one circuit.
    /// let (out, _cost) = server
    ///     .typed_compose(&[&a, &b], |c: &mut Composer<'_>, x| {
    ///         let s = c.apply(Op::Add, &[&x[0], &x[1]])?;
    ///         let three = c.constant(u8t, 3);
    ///         Ok(vec![c.apply(Op::Mul, &[&s, &three])?])
    ///     })
    ///     .unwrap();
    /// assert_eq!(decrypt_typed(&client, &out[0]).unwrap(), (300 * 3) % 256);
    /// ```
    pub fn typed_compose(
        &self,
        inputs: &[&EncTyped],
        f: impl FnOnce(&mut Composer<'_>, &[Value]) -> Result<Vec<Value>>,
    ) -> Result<(Vec<EncTyped>, Cost)> {
        let ints: Vec<&crate::EncInt> = inputs.iter().map(|x| x.as_int()).collect();
        let threads = self.plan_threads();
        let mut shapes: Vec<(IntType, Form)> = Vec::new();
        let (outs, cost) = self.eval_fallible(&ints, |ar, b, x| {
            let values: Vec<Value> = inputs
                .iter()
                .zip(x)
                .map(|(t, digits)| Value {
                    digits: digits.clone(),
                    ty: t.ty(),
                    form: t.form(),
                    terms: None,
                    factors: None,
                })
                .collect();
            let mut composer = Composer::new(ar, b, threads);
            let outs = f(&mut composer, &values)?;
            shapes = outs.iter().map(|v| (v.ty, v.form)).collect();
            Ok(outs.into_iter().map(|v| v.digits).collect())
        })?;
        let typed = outs
            .into_iter()
            .zip(shapes)
            .map(|(value, (ty, form))| EncTyped::from_parts(value, ty, form))
            .collect();
        Ok((typed, cost))
    }
}
