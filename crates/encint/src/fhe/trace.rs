//! Traces: the family's operators recorded into one circuit instead of run one by one.
//! A traced value is a node of a trace's circuit; an operator with a traced operand
//! records itself into that trace. Arrays ([`super::FheArray`]) trace each call, and
//! [`super::compile`] traces a whole function once.

use std::sync::{Arc, Mutex, PoisonError};

use encint_arith::typed::{Form, IntType};
use encint_arith::{Arith, Config, SInt};
use encint_core::circuit::{Builder, Circuit};

use super::compose::{Composer, Value};
use crate::typed::EncTyped;
use crate::{EncInt, Error, Result, Server};

/// How a value of the family is held: ciphertexts, or a node of a trace.
#[derive(Debug, Clone)]
pub enum Repr {
    /// Encrypted digits.
    Cipher(EncTyped),
    /// A node of a trace being recorded (inside [`super::compile`] or an array call).
    Traced(Arc<Trace>, Value),
}

/// A circuit being recorded, shared by its traced values.
#[derive(Debug)]
pub struct Trace {
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    b: Option<Builder>,
    arith: Arith,
    threads: usize,
    /// Whether additions continue chains ([`Composer::with_chain_sums`]).
    chain_sums: bool,
    /// Most nodes the circuit may reach ([`crate::DEFAULT_MAX_NODES`]).
    max_nodes: u64,
}

/// The shape of a circuit's input or output: its type, its digits' form and their count.
pub(crate) type Shape = (IntType, Form, usize);

impl Trace {
    /// A new trace planning for `threads` threads with the noise budget `budget`, chains
    /// of additions reduced at once when `chain_sums` ([`Composer::with_chain_sums`]); an
    /// operation that takes its circuit past `max_nodes` nodes is refused.
    pub(crate) fn new(budget: u64, threads: usize, chain_sums: bool, max_nodes: u64) -> Arc<Trace> {
        let mut b = Builder::new();
        b.set_threads(threads);
        Arc::new(Trace {
            state: Mutex::new(State {
                b: Some(b),
                arith: Arith::new(Config {
                    max_qweight: budget,
                }),
                threads,
                chain_sums,
                max_nodes,
            }),
        })
    }

    /// A new input of type `ty` in form `form`.
    pub(crate) fn input(self: &Arc<Self>, ty: IntType, form: Form) -> Result<Repr> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let b = s.b.as_mut().ok_or_else(finished)?;
        let digits = SInt::input(b, form.digits(ty));
        Ok(Repr::Traced(self.clone(), Value::new(digits, ty, form)))
    }

    /// A new input of type `ty` stored in `form`, read as canonical bits: radix-4 blocks
    /// are split into their bits inside the circuit (two bootstraps per two-bit block, one
    /// level), other forms are taken as they are ([`Trace::input`]).
    pub(crate) fn input_in_bits(self: &Arc<Self>, ty: IntType, form: Form) -> Result<Repr> {
        if form != Form::Radix4 {
            return self.input(ty, form);
        }
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let b = s.b.as_mut().ok_or_else(finished)?;
        let blocks = SInt::input(b, form.digits(ty));
        let digits = encint_arith::typed::to_canonical(b, &blocks, ty, form);
        Ok(Repr::Traced(
            self.clone(),
            Value::new(digits, ty, Form::Canonical),
        ))
    }

    /// Runs `f` with a composer over this trace's circuit.
    pub(crate) fn compose<R>(&self, f: impl FnOnce(&mut Composer<'_>) -> Result<R>) -> Result<R> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let State {
            b,
            arith,
            threads,
            chain_sums,
            max_nodes,
        } = &mut *s;
        let b = b.as_mut().ok_or_else(finished)?;
        let out = f(&mut Composer::new(arith, b, *threads).with_chain_sums(*chain_sums))?;
        // A long function stops at the first operation that takes its circuit past the
        // node limit (the circuit is discarded with the trace).
        let nodes = b.node_count() as u64;
        if nodes > *max_nodes {
            return Err(Error::LimitExceeded(format!(
                "the traced circuit has {nodes} nodes, more than the {max_nodes} allowed"
            )));
        }
        Ok(out)
    }

    /// Finishes the trace with `outputs` (values of this trace): the circuit, each output
    /// digit made fresh, and the outputs' shapes.
    pub(crate) fn finish(&self, outputs: &[Value]) -> Result<(Circuit, Vec<Shape>)> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let mut b = s.b.take().ok_or_else(finished)?;
        let flat: Vec<_> = outputs
            .iter()
            .flat_map(|v| v.digits().digits.iter().copied())
            .map(|d| crate::server::fresh_output(&mut b, d))
            .collect();
        let shapes = outputs
            .iter()
            .map(|v| (v.ty(), v.form(), v.digits().len()))
            .collect();
        Ok((b.finish(flat), shapes))
    }
}

fn finished() -> Error {
    Error::Tracing("a value of a finished trace was used".into())
}

/// How a circuit runs on its input digits: [`Server::run_circuit`] on the server's own
/// backend, or [`Server::run_circuit_on`] another.
pub(crate) type RunDigits<'a> =
    &'a dyn Fn(&Circuit, &[&encint_tfhe::Digit]) -> Result<Vec<encint_tfhe::Digit>>;

/// Runs `circuit` through `run` with the digits of `inputs`, and splits its output digits
/// by `shapes`. Errors on an input of another key set than `server`'s key.
pub(crate) fn run_circuit(
    server: &Server,
    run: RunDigits<'_>,
    circuit: &Circuit,
    inputs: &[&EncTyped],
    shapes: &[Shape],
) -> Result<Vec<EncTyped>> {
    for (position, x) in inputs.iter().enumerate() {
        server.check_key_set(position, x.key_set())?;
    }
    let digits: Vec<&encint_tfhe::Digit> =
        inputs.iter().flat_map(|x| x.as_int().digits()).collect();
    if digits.len() != circuit.inputs().len() {
        return Err(Error::ShapeMismatch(format!(
            "{} input digits for a circuit of {}",
            digits.len(),
            circuit.inputs().len()
        )));
    }
    let out = run(circuit, &digits)?;
    let mut it = out.into_iter();
    let key_set = server.key().key_set();
    Ok(shapes
        .iter()
        .map(|&(ty, form, n)| {
            let value = EncInt::from_digits(it.by_ref().take(n).collect(), key_set);
            EncTyped::from_parts(value, ty, form)
        })
        .collect())
}
