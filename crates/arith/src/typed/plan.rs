//! The planner: every choice between candidate circuits for one computation is made here,
//! by one order ([`rank`]): an operation's algorithms ([`plan`]), and the candidates a
//! caller builds itself ([`Fastest`]: a dot product's methods, a sum's, a function traced
//! several ways).

use encint_core::circuit::{Circuit, Cost};

use super::build::{check_type, circuit_on_machine};
use super::forms::{operand_forms, result_form, Form};
use crate::bits as ops;
use crate::machine::Machine;
use crate::op::{Algorithm, IntType, Op, TypedError};
use crate::Arith;

/// One algorithm's estimate for an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Its circuit's cost.
    pub cost: Cost,
    /// The result's form.
    pub form: Form,
    /// Estimated time in bootstrap rounds at the plan's thread count: the sum over levels
    /// of `⌈bootstraps in the level / threads⌉`.
    pub rounds: u64,
    /// Estimated time on the plan's machine ([`Machine::seconds`]), in microseconds.
    pub micros: u64,
}

/// The planner's answer: every algorithm's estimate, the chosen one first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The operation.
    pub op: Op,
    /// The operand type.
    pub ty: IntType,
    /// The operands' forms.
    pub forms: Vec<Form>,
    /// Threads the circuits were built and their rounds counted for.
    pub threads: usize,
    /// The machine profile the estimates' times are for ([`Machine::name`]).
    pub machine: String,
    /// Estimates, the chosen (least estimated time on the machine, then fewest rounds,
    /// then fewest bootstraps, then, for radix-4 operands, a radix-4 result) first.
    pub estimates: Vec<Estimate>,
}

impl Plan {
    /// The chosen algorithm's estimate.
    pub fn chosen(&self) -> &Estimate {
        &self.estimates[0]
    }
}

/// How a candidate circuit ranks, lower first: whether its bootstrap inputs pass the noise
/// budget `budget` (a faster circuit the parameter set refuses to run is no choice), then
/// its estimated time in bootstrap rounds at `threads` ([`crate::bits::makespan`]), then
/// its bootstraps.
pub fn rank(circuit: &Circuit, threads: usize, budget: u64) -> (bool, u64, u64) {
    let cost = circuit.cost();
    (
        cost.max_qweight > budget,
        ops::makespan(circuit, threads),
        cost.bootstraps,
    )
}

/// How a candidate circuit ranks on `machine`, lower first: whether its bootstrap inputs
/// pass the noise budget `budget`, then its estimated time there ([`Machine::seconds`], in
/// whole microseconds), then its bootstraps. On a CPU profile of N threads the order is
/// [`rank`]'s at N.
pub fn rank_on(circuit: &Circuit, machine: &Machine, budget: u64) -> (bool, u64, u64) {
    let cost = circuit.cost();
    (
        cost.max_qweight > budget,
        micros(machine, circuit),
        cost.bootstraps,
    )
}

/// The fastest of several candidate circuits for one computation, by [`rank`] (or by time
/// on a machine, [`Fastest::on`]); the
/// earlier candidate wins a tie. `M` names a candidate, `E` is a builder's refusal.
#[derive(Debug)]
pub struct Fastest<M, E> {
    threads: usize,
    machine: Option<Machine>,
    budget: u64,
    best: Option<((bool, u64, u64), M)>,
    refusal: Option<E>,
}

impl<M, E> Fastest<M, E> {
    /// No candidate yet, ranked for `threads` threads and the noise budget `budget`.
    pub fn new(threads: usize, budget: u64) -> Self {
        Fastest {
            threads,
            machine: None,
            budget,
            best: None,
            refusal: None,
        }
    }

    /// No candidate yet, ranked by estimated time on `machine` ([`Machine::seconds`], in
    /// whole microseconds), then bootstraps, within the noise budget `budget`. On a CPU
    /// profile of N threads the order is [`Fastest::new`]'s at N.
    pub fn on(machine: &Machine, budget: u64) -> Self {
        Fastest {
            machine: Some(machine.clone()),
            ..Fastest::new(machine.plan_threads, budget)
        }
    }

    /// Considers `method`, whose circuit was built or refused.
    pub fn offer(&mut self, method: M, built: Result<Circuit, E>) {
        match built {
            Ok(c) => {
                let key = match &self.machine {
                    Some(m) => rank_on(&c, m, self.budget),
                    None => rank(&c, self.threads, self.budget),
                };
                if self.best.as_ref().is_none_or(|(k, _)| key < *k) {
                    self.best = Some((key, method));
                }
            }
            Err(e) => self.refusal = Some(e),
        }
    }

    /// The fastest method built; the last refusal when none was; `None` when none was
    /// offered.
    pub fn pick(self) -> Result<Option<M>, E> {
        match (self.best, self.refusal) {
            (Some((_, m)), _) => Ok(Some(m)),
            (None, Some(e)) => Err(e),
            (None, None) => Ok(None),
        }
    }
}

/// Plans `op` on `ty` with operands of forms `forms` for `threads` threads of a CPU:
/// [`plan_on`] with [`Machine::cpu`]`(threads)`, whose time is its rounds times one
/// bootstrap (so the order is by rounds).
pub fn plan(
    ar: &Arith,
    op: Op,
    ty: IntType,
    forms: &[Form],
    threads: usize,
) -> Result<Plan, TypedError> {
    plan_on(ar, op, ty, forms, &Machine::cpu(threads))
}

/// Plans `op` on `ty` with operands of forms `forms` for `machine`: builds each
/// algorithm's circuit for the machine ([`Machine::plan_builder`]: its
/// [`Machine::plan_threads`] and its level latency; every one within the arithmetic's noise
/// budget) and orders them by the noise budget, then the estimated time
/// on the machine ([`Machine::seconds`]), then rounds at the plan's threads, then
/// bootstraps, then (radix-4 operands) by whether the result stays radix-4.
///
/// # Examples
///
/// ```
/// use encint_arith::machine::Machine;
/// use encint_arith::typed::{plan, plan_on, Form, IntType, Op};
/// use encint_arith::{Arith, Config};
///
/// let ar = Arith::new(Config::BUDGET_25);
/// let ty = IntType::new(64, true).unwrap();
/// let forms = [Form::Radix4, Form::Radix4];
/// // On a CPU the order is by rounds, as `plan` gives it.
/// let two = plan_on(&ar, Op::Add, ty, &forms, &Machine::cpu(2)).unwrap();
/// assert_eq!(two, plan(&ar, Op::Add, ty, &forms, 2).unwrap());
/// // On a GPU each level costs a latency: the shallow addition is chosen.
/// let gpu = plan_on(&ar, Op::Add, ty, &forms, &Machine::h100()).unwrap();
/// assert!(gpu.chosen().cost.depth <= 8);
/// assert!(gpu.estimates.iter().all(|e| e.micros >= gpu.chosen().micros));
/// ```
pub fn plan_on(
    ar: &Arith,
    op: Op,
    ty: IntType,
    forms: &[Form],
    machine: &Machine,
) -> Result<Plan, TypedError> {
    check_type(op, ty)?;
    let threads = machine.plan_threads;
    let mut estimates = Vec::new();
    for &algorithm in op.algorithms() {
        let c = match circuit_on_machine(ar, op, ty, algorithm, forms, machine) {
            Ok(c) => c,
            Err(TypedError::Unsupported(..)) => continue,
            Err(e) => return Err(e),
        };
        let form = result_form(op, algorithm, forms);
        let (over_budget, rounds, _) = rank(&c, threads, ar.config().max_qweight);
        estimates.push((
            over_budget,
            Estimate {
                algorithm,
                cost: c.cost(),
                form,
                rounds,
                micros: micros(machine, &c),
            },
        ));
    }
    if estimates.is_empty() {
        return Err(TypedError::Unsupported(op, Algorithm::Bits));
    }
    // Ties keep radix-4 operands' results in radix-4 form (no conversion for the next
    // block operation).
    let radix4 = operand_forms(op, forms).contains(&Form::Radix4);
    estimates.sort_by_key(|(over_budget, e)| {
        (
            *over_budget,
            e.micros,
            e.rounds,
            e.cost.bootstraps,
            radix4 && e.form != Form::Radix4,
        )
    });
    let estimates = estimates.into_iter().map(|(_, e)| e).collect();
    Ok(Plan {
        op,
        ty,
        forms: forms.to_vec(),
        threads,
        machine: machine.name.clone(),
        estimates,
    })
}

/// `circuit`'s estimated time on `machine`, in whole microseconds (rounded).
fn micros(machine: &Machine, circuit: &Circuit) -> u64 {
    (machine.seconds(circuit) * 1e6).round() as u64
}
