//! The entry points: one operation's circuit built with a chosen algorithm, after the
//! checks every algorithm shares.

use encint_core::circuit::{Builder, Circuit};

use super::forms::{condition_bit, result_form, to_canonical, Form};
use super::on_bits::build_bits;
use super::on_blocks::build_blocks;
use super::on_digits::build_digits;
use super::operands::Operands;
use crate::machine::Machine;
use crate::op::{Algorithm, IntType, Op, TypedError};
use crate::{Arith, SInt};

/// Records `op` on operands `x` of forms `forms` (each a value of `ty`; the condition
/// of [`Op::Select`] any integer, canonical if it is a 1-digit [`IntType::BOOL`])
/// with `algorithm`; returns the result's digits (a value of `op.result_type(ty)`, at
/// most that many digits) and their form ([`result_form`]).
pub fn build(
    ar: &Arith,
    b: &mut Builder,
    op: Op,
    ty: IntType,
    algorithm: Algorithm,
    x: &[SInt],
    forms: &[Form],
) -> Result<(SInt, Form), TypedError> {
    if x.len() != op.arity() || forms.len() != op.arity() {
        return Err(TypedError::Arity {
            expected: op.arity(),
            found: x.len().min(forms.len()),
        });
    }
    if !op.on_typed() {
        return Err(TypedError::NotAnOperation {
            op,
            on: "typed integers",
        });
    }
    check_type(op, ty)?;
    let operands = Operands { op, ty, x, forms };
    let out = match algorithm {
        Algorithm::Digits => {
            // Radix-4 operands become canonical digits first.
            let x: Vec<SInt> = x
                .iter()
                .zip(forms)
                .enumerate()
                .map(|(i, (s, &f))| match f {
                    Form::Radix4 if op == Op::Select && i == 0 => SInt {
                        digits: vec![condition_bit(b, s, f)],
                    },
                    Form::Radix4 => to_canonical(b, s, ty, f),
                    _ => s.clone(),
                })
                .collect();
            build_digits(ar, b, op, ty, &x)?
        }
        Algorithm::Bits | Algorithm::Magic => build_bits(b, operands, algorithm)?,
        Algorithm::Blocks => build_blocks(ar, b, operands)?,
    };
    Ok((out, result_form(op, algorithm, forms)))
}

/// The circuit of `op` on `ty` with `algorithm`, on operands of `ty.bits` digits each
/// (the select condition: one digit) of forms `forms`, outputs made fresh (an identity
/// table on any output digit of quadratic weight above 1, as the servers do).
pub fn circuit(
    ar: &Arith,
    op: Op,
    ty: IntType,
    algorithm: Algorithm,
    forms: &[Form],
) -> Result<Circuit, TypedError> {
    circuit_on(ar, op, ty, algorithm, forms, Builder::new())
}

/// [`circuit`] planned for `threads` threads ([`Builder::set_threads`]): where a circuit
/// has variants of one result, the one of the fewest estimated rounds at `threads`.
pub fn circuit_for(
    ar: &Arith,
    op: Op,
    ty: IntType,
    algorithm: Algorithm,
    forms: &[Form],
    threads: usize,
) -> Result<Circuit, TypedError> {
    let mut b = Builder::new();
    b.set_threads(threads);
    b.set_prefix_adders(true);
    circuit_on(ar, op, ty, algorithm, forms, b)
}

/// [`circuit`] planned for `machine` ([`Machine::plan_builder`]): where a circuit has
/// variants of one result, the one of the least estimate there. On a CPU profile of N
/// threads, [`circuit_for`] at N.
pub fn circuit_on_machine(
    ar: &Arith,
    op: Op,
    ty: IntType,
    algorithm: Algorithm,
    forms: &[Form],
    machine: &Machine,
) -> Result<Circuit, TypedError> {
    let mut b = Builder::new();
    machine.plan_builder(&mut b);
    b.set_prefix_adders(true);
    circuit_on(ar, op, ty, algorithm, forms, b)
}

/// [`circuit`] built on `b`.
fn circuit_on(
    ar: &Arith,
    op: Op,
    ty: IntType,
    algorithm: Algorithm,
    forms: &[Form],
    mut b: Builder,
) -> Result<Circuit, TypedError> {
    let inputs: Vec<SInt> = (0..op.arity())
        .map(|i| {
            let len = match forms.get(i) {
                _ if op == Op::Select && i == 0 => 1,
                Some(&f) => f.digits(ty),
                None => ty.bits,
            };
            SInt::input(&mut b, len)
        })
        .collect();
    let (out, _) = build(ar, &mut b, op, ty, algorithm, &inputs, forms)?;
    Ok(finish_fresh(b, &out))
}

/// The circuit of `b` with `out`'s digits as its outputs, each of quadratic weight above
/// 1 through an identity bootstrap first: every output has a fresh digit's noise.
pub(super) fn finish_fresh(mut b: Builder, out: &SInt) -> Circuit {
    let id = crate::luts::identity();
    let outs = out
        .digits
        .iter()
        .map(|&d| if b.qweight(d) > 1 { b.lut(d, &id) } else { d })
        .collect();
    b.finish(outs)
}

pub(super) fn check_type(op: Op, ty: IntType) -> Result<(), TypedError> {
    IntType::new(ty.bits, ty.signed)?;
    if let Op::Cast(to) = op {
        IntType::new(to.bits, to.signed)?;
    }
    match op {
        Op::DivScalar(0) | Op::RemScalar(0) => Err(TypedError::DivisionByZero),
        Op::DivScalar(k) | Op::RemScalar(k) if !ty.contains(k) => Err(TypedError::ScalarRange(k)),
        _ => Ok(()),
    }
}
