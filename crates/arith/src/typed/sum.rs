//! Sums of many typed values as one reduction: every operand's bits (or radix-4 blocks)
//! join the same columns, reduced once with a single carry-propagating pass at the end,
//! instead of a tree of two-operand adders each normalising its result.

use encint_core::bits::{bits_to_signed_digits, lower_into, BitBuilder};
use encint_core::circuit::{Builder, Cost, NodeId};

use super::build::{build, check_type, finish_fresh};
use super::dot::Columns;
use super::forms::{to_bits, to_blocks, Form};
use super::plan::plan;
use crate::machine::Machine;
use crate::op::{IntType, Op, TypedError};
use crate::{Arith, SInt};

/// How [`sum`] reduces its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SumMethod {
    /// Every operand's two's-complement bits (free for canonical operands) in columns,
    /// one counter tree ([`crate::bits::sum_columns`]); a canonical result.
    Counters,
    /// Every operand's radix-4 blocks (bit pairs, linear; a radix-4 operand's own blocks)
    /// in digit columns, reduced once ([`crate::blocks::sum_blocks`]); a radix-4 result
    /// when an operand is radix-4, else canonical.
    Columns,
    /// A balanced tree of two-operand additions, each by the algorithm [`plan`] picks
    /// for its operands' forms.
    Adders,
}

impl SumMethod {
    /// Every method, in the order ties are broken.
    pub const ALL: [SumMethod; 3] = [SumMethod::Counters, SumMethod::Columns, SumMethod::Adders];

    /// The method's name (`counters`, `columns`, `adders`).
    pub fn name(self) -> &'static str {
        match self {
            SumMethod::Counters => "counters",
            SumMethod::Columns => "columns",
            SumMethod::Adders => "adders",
        }
    }
}

/// One method's estimate for a sum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SumEstimate {
    /// The method.
    pub method: SumMethod,
    /// Its circuit's cost.
    pub cost: Cost,
    /// The result's form.
    pub form: Form,
    /// Estimated time in bootstrap rounds at the plan's thread count
    /// ([`crate::bits::makespan`]).
    pub rounds: u64,
}

/// `Σ xᵢ` modulo `2^n` over values of `ty` (each with its form) by `method`, planning
/// each two-operand addition of [`SumMethod::Adders`] for `threads` threads; returns the
/// result's digits and form. No operand gives canonical zero; one operand is returned as
/// it is.
pub fn sum(
    ar: &Arith,
    b: &mut Builder,
    ty: IntType,
    xs: &[(&SInt, Form)],
    method: SumMethod,
    threads: usize,
) -> Result<(SInt, Form), TypedError> {
    check_type(Op::Add, ty)?;
    match xs {
        [] => {
            let digits = (0..ty.bits).map(|_| b.constant(0)).collect();
            return Ok((SInt { digits }, Form::Canonical));
        }
        [(x, f)] => return Ok(((*x).clone(), *f)),
        _ => {}
    }
    match method {
        SumMethod::Counters => Ok((counters(b, ty, xs), Form::Canonical)),
        SumMethod::Columns => Ok(columns(ar, b, ty, xs)),
        SumMethod::Adders => adders(ar, b, ty, xs, threads),
    }
}

/// Every method's estimate for a sum of operands of `ty` in forms `forms` at `threads`
/// threads, the fastest (fewest rounds, then fewest bootstraps, then the order of
/// [`SumMethod::ALL`]) first. Each is measured on a circuit of fresh inputs whose outputs
/// are made fresh, as [`super::circuit`] does for one operation. It is [`plan_sum_on`]
/// on [`Machine::cpu`]`(threads)`.
pub fn plan_sum(
    ar: &Arith,
    ty: IntType,
    forms: &[Form],
    threads: usize,
) -> Result<Vec<SumEstimate>, TypedError> {
    plan_sum_on(ar, ty, forms, &Machine::cpu(threads))
}

/// [`plan_sum`] for `machine`: each method's circuit planned for it
/// ([`Machine::plan_builder`]), the least estimated time there first (then rounds at its
/// [`Machine::plan_threads`], then bootstraps, then the order of [`SumMethod::ALL`]).
pub fn plan_sum_on(
    ar: &Arith,
    ty: IntType,
    forms: &[Form],
    machine: &Machine,
) -> Result<Vec<SumEstimate>, TypedError> {
    check_type(Op::Add, ty)?;
    let threads = machine.plan_threads;
    let mut estimates = Vec::with_capacity(SumMethod::ALL.len());
    let mut micros = Vec::with_capacity(SumMethod::ALL.len());
    for method in SumMethod::ALL {
        let mut b = Builder::new();
        machine.plan_builder(&mut b);
        let inputs: Vec<SInt> = forms
            .iter()
            .map(|f| SInt::input(&mut b, f.digits(ty)))
            .collect();
        let xs: Vec<(&SInt, Form)> = inputs.iter().zip(forms.iter().copied()).collect();
        let (out, form) = sum(ar, &mut b, ty, &xs, method, threads)?;
        let c = finish_fresh(b, &out);
        estimates.push(SumEstimate {
            method,
            cost: c.cost(),
            form,
            rounds: crate::bits::makespan(&c, threads),
        });
        micros.push(super::plan::rank_on(&c, machine, u64::MAX).1);
    }
    // A stable sort keeps the order of SumMethod::ALL among ties.
    let mut ranked: Vec<(u64, SumEstimate)> = micros.into_iter().zip(estimates).collect();
    ranked.sort_by_key(|(us, e)| (*us, e.rounds, e.cost.bootstraps));
    Ok(ranked.into_iter().map(|(_, e)| e).collect())
}

/// [`SumMethod::Counters`].
fn counters(b: &mut Builder, ty: IntType, xs: &[(&SInt, Form)]) -> SInt {
    let n = ty.bits;
    let mut bb = BitBuilder::new();
    let mut inputs: Vec<NodeId> = Vec::new();
    let mut cols = Columns::new(n);
    for &(s, f) in xs {
        for (k, d) in to_bits(b, s, n, ty.signed, f).into_iter().enumerate() {
            match b.const_value(d) {
                Some(0) => {}
                Some(_) => cols.add_const(k, false),
                None => {
                    inputs.push(d);
                    let x = bb.input();
                    cols.add_bit(&mut bb, x, k, false);
                }
            }
        }
    }
    let out = cols.finish(&mut bb);
    let circuit = bb.finish(out.bits);
    let bits = lower_into(b, &circuit, &inputs).expect("one input node per input bit");
    SInt {
        digits: bits_to_signed_digits(b, &bits, ty.signed),
    }
}

/// [`SumMethod::Columns`].
fn columns(ar: &Arith, b: &mut Builder, ty: IntType, xs: &[(&SInt, Form)]) -> (SInt, Form) {
    let n = ty.bits;
    let mut bit_vectors: Vec<Vec<NodeId>> = Vec::new();
    let mut block_vectors: Vec<Vec<NodeId>> = Vec::new();
    for &(s, f) in xs {
        if f == Form::Radix4 {
            block_vectors.push(to_blocks(b, s, ty, f));
        } else {
            bit_vectors.push(to_bits(b, s, n, ty.signed, f));
        }
    }
    let radix4 = !block_vectors.is_empty();
    let bits: Vec<&[NodeId]> = bit_vectors.iter().map(Vec::as_slice).collect();
    let blocks: Vec<&[NodeId]> = block_vectors.iter().map(Vec::as_slice).collect();
    let out = crate::blocks::sum_blocks(b, &bits, &blocks, n, ar.config().max_qweight, radix4);
    if radix4 {
        (SInt { digits: out }, Form::Radix4)
    } else {
        let digits = bits_to_signed_digits(b, &out, ty.signed);
        (SInt { digits }, Form::Canonical)
    }
}

/// [`SumMethod::Adders`].
fn adders(
    ar: &Arith,
    b: &mut Builder,
    ty: IntType,
    xs: &[(&SInt, Form)],
    threads: usize,
) -> Result<(SInt, Form), TypedError> {
    let mut terms: Vec<(SInt, Form)> = xs.iter().map(|&(s, f)| (s.clone(), f)).collect();
    while terms.len() > 1 {
        let mut next = Vec::with_capacity(terms.len().div_ceil(2));
        let mut it = terms.into_iter();
        while let Some((x, fx)) = it.next() {
            match it.next() {
                Some((y, fy)) => {
                    let forms = [fx, fy];
                    let algorithm = plan(ar, Op::Add, ty, &forms, threads)?.chosen().algorithm;
                    next.push(build(ar, b, Op::Add, ty, algorithm, &[x, y], &forms)?);
                }
                None => next.push((x, fx)),
            }
        }
        terms = next;
    }
    terms.pop().ok_or(TypedError::Arity {
        expected: 1,
        found: 0,
    })
}
