//! How a value of the family is held ([`Repr`]): ciphertexts, or a node of a
//! [`Trace`]. An operator with a traced operand records itself into that trace; arrays
//! ([`super::FheArray`]) trace each call, and [`super::compile`] traces a whole function
//! once.

use std::sync::Arc;

use encint_arith::typed::{Form, IntType};
use encint_arith::SInt;
use encint_core::circuit::Circuit;

use super::compose::{Composer, Value};
use crate::trace::Trace;
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

/// The shape of a circuit's input or output: its type, its digits' form and their count.
pub(crate) type Shape = (IntType, Form, usize);

/// A new input of `trace`, of type `ty` in form `form`.
pub(crate) fn input(trace: &Arc<Trace>, ty: IntType, form: Form) -> Result<Repr> {
    let digits = trace.build(|b| SInt::input(b, form.digits(ty)))?;
    Ok(Repr::Traced(trace.clone(), Value::new(digits, ty, form)))
}

/// A new input of `trace`, of type `ty` stored in `form`, read as canonical bits: radix-4
/// blocks are split into their bits inside the circuit (two bootstraps per two-bit block,
/// one level), other forms are taken as they are ([`input`]).
pub(crate) fn input_in_bits(trace: &Arc<Trace>, ty: IntType, form: Form) -> Result<Repr> {
    if form != Form::Radix4 {
        return input(trace, ty, form);
    }
    let digits = trace.build(|b| {
        let blocks = SInt::input(b, form.digits(ty));
        encint_arith::typed::to_canonical(b, &blocks, ty, form)
    })?;
    Ok(Repr::Traced(
        trace.clone(),
        Value::new(digits, ty, Form::Canonical),
    ))
}

/// Records one operation into `trace` with a composer over its circuit.
pub(crate) fn compose<R>(
    trace: &Trace,
    f: impl FnOnce(&mut Composer<'_>) -> Result<R>,
) -> Result<R> {
    trace.record(|arith, b, plan| {
        f(&mut Composer::new(arith, b, plan.threads).with_chain_sums(plan.chain_sums))
    })
}

/// Finishes `trace` with `outputs` (values of this trace): the circuit, each output digit
/// made fresh, and the outputs' shapes.
pub(crate) fn finish(trace: &Trace, outputs: &[Value]) -> Result<(Circuit, Vec<Shape>)> {
    let circuit = trace.finish(|b| {
        outputs
            .iter()
            .flat_map(|v| v.digits().digits.iter().copied())
            .map(|d| crate::server::fresh_output(b, d))
            .collect()
    })?;
    let shapes = outputs
        .iter()
        .map(|v| (v.ty(), v.form(), v.digits().len()))
        .collect();
    Ok((circuit, shapes))
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
