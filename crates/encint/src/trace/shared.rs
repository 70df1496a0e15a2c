//! The circuit shared by the typed family's traced values ([`Trace`]).

use std::sync::{Arc, Mutex, PoisonError};

use encint_arith::{Arith, Config};
use encint_core::circuit::{Builder, Circuit, NodeId};

use crate::limits::{Estimate, Limits};
use crate::{Error, Machine, Result, Server};

/// What a trace is planned for: a thread count, and the machine profile when there is
/// one (whose [`Machine::plan_threads`] are then the threads).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Target {
    /// The threads the planner chooses circuits for.
    pub threads: usize,
    /// The machine whose estimated time ranks the candidates, if any.
    pub machine: Option<Machine>,
}

impl Target {
    /// `threads` threads of a CPU, ranked by rounds.
    pub fn threads(threads: usize) -> Target {
        Target {
            threads,
            machine: None,
        }
    }

    /// `machine`, ranked by its estimated time.
    pub fn on(machine: &Machine) -> Target {
        Target {
            threads: machine.plan_threads,
            machine: Some(machine.clone()),
        }
    }

    /// What `server` plans for: its machine profile, else its planning threads.
    pub fn of(server: &Server) -> Target {
        match server.machine() {
            Some(m) => Target::on(m),
            None => Target::threads(server.plan_threads()),
        }
    }

    /// How `circuit` ranks here within the noise budget `budget`, lower first
    /// ([`encint_arith::typed::rank_on`] on the machine, else
    /// [`encint_arith::typed::rank`] at the threads).
    pub fn rank(&self, circuit: &Circuit, budget: u64) -> (bool, u64, u64) {
        match &self.machine {
            Some(m) => encint_arith::typed::rank_on(circuit, m, budget),
            None => encint_arith::typed::rank(circuit, self.threads, budget),
        }
    }
}

/// A circuit being recorded, shared by its traced values ([`crate::fhe::Repr::Traced`]).
///
/// Made by [`crate::compile`] and by array calls; each operator on a traced value records
/// itself here, and the first operation that takes the circuit past the node limit is
/// refused ([`Error::LimitExceeded`], `traced operation N`).
#[derive(Debug)]
pub struct Trace {
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    b: Option<Builder>,
    arith: Arith,
    planning: Planning,
    limits: Limits,
    /// Operations recorded so far.
    recorded: usize,
}

/// How a trace's operations are planned.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Planning {
    /// The threads the circuit is planned for.
    pub threads: usize,
    /// Whether additions continue chains (`Composer::with_chain_sums` of the family).
    pub chain_sums: bool,
}

impl Trace {
    /// A new trace planning for `target` with the noise budget `budget`, chains of
    /// additions reduced at once when `chain_sums`; an operation that takes its circuit
    /// past `max_nodes` nodes is refused. Each operation is planned for the target's
    /// threads, or, when `machine_ops` and the target has a machine, by the machine's
    /// estimated time with parallel-prefix block additions allowed (either can be the
    /// faster whole function: `trace_best` traces both and ranks them by the machine).
    pub(crate) fn new(
        budget: u64,
        target: &Target,
        chain_sums: bool,
        machine_ops: bool,
        max_nodes: u64,
    ) -> Arc<Trace> {
        let config = Config {
            max_qweight: budget,
        };
        let mut b = Builder::new();
        let arith = match (&target.machine, machine_ops) {
            (Some(m), true) => {
                m.plan_builder(&mut b);
                b.set_prefix_adders(true);
                Arith::on_machine(config, m.clone())
            }
            _ => {
                b.set_threads(target.threads);
                Arith::new(config)
            }
        };
        Arc::new(Trace {
            state: Mutex::new(State {
                b: Some(b),
                arith,
                planning: Planning {
                    threads: target.threads,
                    chain_sums,
                },
                limits: Limits {
                    max_nodes,
                    ..Limits::default()
                },
                recorded: 0,
            }),
        })
    }

    /// Adds inputs (or other nodes that are not operations) with `f`, unchecked.
    pub(crate) fn build<R>(&self, f: impl FnOnce(&mut Builder) -> R) -> Result<R> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let b = s.b.as_mut().ok_or_else(finished)?;
        Ok(f(b))
    }

    /// Records one operation with `f` (on the trace's arithmetic, circuit and planning);
    /// refuses it if it takes the circuit past the node limit (the trace is then of no
    /// further use: the circuit is discarded with it).
    pub(crate) fn record<R>(
        &self,
        f: impl FnOnce(&Arith, &mut Builder, Planning) -> Result<R>,
    ) -> Result<R> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let State {
            b,
            arith,
            planning,
            limits,
            recorded,
        } = &mut *s;
        let b = b.as_mut().ok_or_else(finished)?;
        let index = *recorded;
        *recorded += 1;
        let out = f(arith, b, *planning)?;
        let nodes = u64::try_from(b.node_count()).unwrap_or(u64::MAX);
        super::admit(limits, index, "", Estimate::default(), nodes)?;
        Ok(out)
    }

    /// Finishes the trace: the circuit of the outputs `f` makes; a later use of the trace
    /// is an error ([`Error::Tracing`]).
    pub(crate) fn finish(&self, f: impl FnOnce(&mut Builder) -> Vec<NodeId>) -> Result<Circuit> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let mut b = s.b.take().ok_or_else(finished)?;
        let outputs = f(&mut b);
        Ok(b.finish(outputs))
    }
}

fn finished() -> Error {
    Error::Tracing("a value of a finished trace was used".into())
}
