//! A program of exact-integer operations recorded one at a time ([`Tape`]), replayed as
//! one circuit or costed without keys.

use encint_arith::{Arith, SInt};
use encint_core::circuit::{Builder, Cost};
use num_bigint::BigInt;

use crate::limits::{self, Estimate, Limits};
use crate::{EncInt, Error, Op, Result, Server};

/// An operand of an operation recorded on a [`Tape`]: an earlier node (an input, or the
/// result of an earlier operation) or a constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TapeArg {
    /// Node `i`: input `i` for `i` below [`Tape::input_count`], else the result of
    /// operation `i - input_count`.
    Node(usize),
    /// A constant, as exact as the integers.
    Const(BigInt),
}

/// A program of exact-integer operations recorded one at a time, then replayed as one
/// circuit ([`Tape::run`]) or costed without keys ([`Tape::cost`]).
///
/// Each operation is checked when it is recorded: its operands must be known nodes, the
/// operation must exist on exact integers with that many operands, its output width (an
/// upper bound) must fit [`Limits::max_digits`], and the nodes recorded so far plus its
/// estimate must fit [`Limits::max_nodes`]. A refused operation is not recorded
/// ([`Error::LimitExceeded`] naming it, or [`Error::InvalidInput`]), so a tape never holds a
/// program that passes a limit.
///
/// # Examples
///
/// ```
/// use encint::trace::{Tape, TapeArg};
/// use encint::Op;
///
/// // 3·x0·x1 - 5 on two 8-digit inputs.
/// let mut tape = Tape::new(vec![8, 8])?;
/// let p = tape.record(Op::Mul, vec![TapeArg::Node(0), TapeArg::Node(1)])?;
/// let q = tape.record(Op::ScalarMul(3), vec![TapeArg::Node(p)])?;
/// let r = tape.record(Op::Sub, vec![TapeArg::Node(q), TapeArg::Const(5.into())])?;
/// let (cost, nodes) = tape.cost(&[r])?;
/// assert!(cost.bootstraps > 0 && nodes > 0);
/// // A node that does not exist is refused.
/// assert!(tape.record(Op::Neg, vec![TapeArg::Node(99)]).is_err());
/// # Ok::<(), encint::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Tape {
    input_lens: Vec<usize>,
    ops: Vec<(Op, Vec<TapeArg>)>,
    /// An upper bound on the digits of every node (inputs, then operations).
    widths: Vec<usize>,
    /// An upper bound on the nodes of the recorded circuit (inputs included).
    nodes: u64,
    limits: Limits,
}

impl Tape {
    /// A tape of inputs of `input_lens` digits each (each from 1 to
    /// [`MAX_DIGITS`](crate::MAX_DIGITS), else [`Error::LimitExceeded`]), checked against the
    /// default [`Limits`].
    pub fn new(input_lens: Vec<usize>) -> Result<Tape> {
        let limits = Limits::default();
        if let Some(n) = input_lens
            .iter()
            .find(|&&n| n == 0 || n as u64 > limits.max_digits)
        {
            return Err(Error::LimitExceeded(format!(
                "input width {n} outside 1..={}",
                limits.max_digits
            )));
        }
        let digits: usize = input_lens.iter().sum();
        Ok(Tape {
            widths: input_lens.clone(),
            nodes: digits as u64,
            input_lens,
            ops: Vec::new(),
            limits,
        })
    }

    /// The number of inputs.
    pub fn input_count(&self) -> usize {
        self.input_lens.len()
    }

    /// The digits of each input.
    pub fn input_lens(&self) -> &[usize] {
        &self.input_lens
    }

    /// The number of nodes (inputs and recorded operations).
    pub fn len(&self) -> usize {
        self.widths.len()
    }

    /// Whether the tape has no nodes at all (no inputs, nothing recorded).
    pub fn is_empty(&self) -> bool {
        self.widths.is_empty()
    }

    /// Records `op` on `args` after the checks of [`Tape`]; returns the new node.
    pub fn record(&mut self, op: Op, args: Vec<TapeArg>) -> Result<usize> {
        op.check_exact(args.len())?;
        let mut widths = Vec::with_capacity(args.len());
        for a in &args {
            widths.push(match a {
                TapeArg::Node(i) => *self.widths.get(*i).ok_or_else(|| {
                    Error::OutOfRange(format!(
                        "operand node {i} of a tape of {} nodes",
                        self.widths.len()
                    ))
                })?,
                TapeArg::Const(k) => usize::try_from(k.bits()).unwrap_or(usize::MAX),
            });
        }
        let est = limits::op_on(op, &widths);
        super::admit(
            &self.limits,
            self.ops.len(),
            &op.to_string(),
            est,
            self.nodes,
        )?;
        self.nodes = self.nodes.saturating_add(est.nodes);
        self.widths
            .push(usize::try_from(est.width).unwrap_or(usize::MAX));
        self.ops.push((op, args));
        Ok(self.widths.len() - 1)
    }

    /// The estimate of the circuit whose outputs are the nodes `outputs`: the widest
    /// output's width bound and the nodes recorded.
    pub fn estimate(&self, outputs: &[usize]) -> Result<Estimate> {
        let mut width = 0u64;
        for &i in outputs {
            let w = self.widths.get(i).ok_or_else(|| {
                Error::OutOfRange(format!("output node {i} of a tape of {} nodes", self.len()))
            })?;
            width = width.max(*w as u64);
        }
        Ok(Estimate::new(width, self.nodes))
    }

    /// Replays the tape into `builder` on the circuit integers `inputs` (one per input, of
    /// the recorded widths); returns the nodes `outputs` (checked by [`Tape::estimate`]).
    pub fn replay(
        &self,
        arith: &Arith,
        builder: &mut Builder,
        inputs: &[SInt],
        outputs: &[usize],
    ) -> Vec<SInt> {
        let mut nodes: Vec<SInt> = inputs.to_vec();
        for (op, args) in &self.ops {
            let xs: Vec<SInt> = args
                .iter()
                .map(|a| match a {
                    TapeArg::Node(i) => nodes[*i].clone(),
                    TapeArg::Const(k) => constant(builder, k),
                })
                .collect();
            let r = arith.apply(builder, *op, &xs);
            nodes.push(r.expect("an operation of exact integers, checked when recorded"));
        }
        outputs.iter().map(|&i| nodes[i].clone()).collect()
    }

    /// The cost of the circuit of `outputs` on inputs of the recorded widths, and its node
    /// count, without keys (planned for the noise budget of
    /// [`DEFAULT_PARAMETERS`](crate::DEFAULT_PARAMETERS)).
    pub fn cost(&self, outputs: &[usize]) -> Result<(Cost, usize)> {
        self.estimate(outputs)?;
        let arith = Arith::new(encint_arith::Config {
            max_qweight: crate::DEFAULT_PARAMETERS.max_quadratic_weight(),
        });
        let mut b = Builder::new();
        let ins: Vec<SInt> = self
            .input_lens
            .iter()
            .map(|&n| SInt::input(&mut b, n))
            .collect();
        let outs = self.replay(&arith, &mut b, &ins, outputs);
        let refs: Vec<&SInt> = outs.iter().collect();
        let (circuit, _) = crate::server::finish_outputs(b, &refs)?;
        Ok((circuit.plan().cost(&circuit), circuit.nodes().len()))
    }

    /// Runs the tape on `inputs` (of the recorded widths) as one circuit on `server`;
    /// returns the nodes `outputs`.
    pub fn run(
        &self,
        server: &Server,
        inputs: &[&EncInt],
        outputs: &[usize],
    ) -> Result<Vec<EncInt>> {
        self.check_inputs(inputs.iter().map(|x| x.len()))?;
        self.estimate(outputs)?;
        server
            .eval(inputs, |arith, builder, ins| {
                self.replay(arith, builder, ins, outputs)
            })
            .map(|r| r.0)
    }

    /// Errors unless the inputs' digit counts `lens` are the recorded ones.
    pub fn check_inputs(&self, lens: impl ExactSizeIterator<Item = usize>) -> Result<()> {
        if lens.len() != self.input_lens.len() {
            return Err(Error::ShapeMismatch(format!(
                "the function was traced with {} arguments, got {}",
                self.input_lens.len(),
                lens.len()
            )));
        }
        for (i, (n, &want)) in lens.zip(&self.input_lens).enumerate() {
            if n != want {
                return Err(Error::TypeMismatch(format!(
                    "argument {i} has {n} digits, the function was traced with {want}"
                )));
            }
        }
        Ok(())
    }
}

/// `k` as constant digits of a circuit (its signed binary expansion).
fn constant(b: &mut Builder, k: &BigInt) -> SInt {
    let sign = if k.sign() == num_bigint::Sign::Minus {
        -1
    } else {
        1
    };
    let m = k.magnitude();
    SInt {
        digits: (0..m.bits())
            .map(|i| b.constant(if m.bit(i) { sign } else { 0 }))
            .collect(),
    }
}
