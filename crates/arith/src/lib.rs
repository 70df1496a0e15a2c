//! # encint-arith
//!
//! Arithmetic on encrypted integers written once, as circuit builders: every operation
//! records bootstraps and linear combinations into an [`encint_core::circuit::Builder`],
//! and any executor can run the result.
//!
//! The crate root holds Parmesan's parallel signed-binary arithmetic (Klemsa and Önen,
//! "Parallel Operations over TFHE-Encrypted Multi-Digit Integers"): addition without carry
//! chains, multiplication, squaring, scalar products and signum-based comparisons.
//! [`bits`] holds boolean circuits on two's-complement bits, [`blocks`] circuits on
//! radix-4 blocks, and [`typed`] the `n`-bit integer types that choose among the three.
//!
//! Integers are [`SInt`]s: vectors of digit nodes in {-1, 0, 1}, least significant first.
//! Results are exact: a sum or product is as long as it needs to be, never wrapped.
//!
//! ```
//! use encint_arith::{Arith, Config, SInt};
//! use encint_core::{circuit::Builder, clear, signed};
//!
//! let ar = Arith::new(Config::PARMESAN);
//! let mut b = Builder::new();
//! let x = SInt::input(&mut b, 8);
//! let y = SInt::input(&mut b, 8);
//! let p = ar.mul(&mut b, &x, &y);
//! let circuit = b.finish(p.digits.clone());
//! let mut inputs: Vec<i64> = signed::from_i128_len(-100, 8).unwrap().iter().map(|&d| d as i64).collect();
//! inputs.extend(signed::from_i128_len(77, 8).unwrap().iter().map(|&d| d as i64));
//! let (out, cost) = clear::run(&circuit, &inputs).unwrap();
//! assert_eq!(encint_arith::value_of(&out).unwrap(), -7700);
//! assert!(cost.bootstraps <= 176); // Parmesan: 176 bootstraps for 8-bit multiplication
//! ```
#![deny(missing_docs)]

mod add;
mod apply;
pub mod bits;
pub mod blocks;
mod compare;
mod exact_bits;
mod luts;
pub mod machine;
mod mul;
pub mod op;
mod scalar;
mod square;
pub mod table;
pub mod typed;

use std::collections::HashMap;
use std::sync::Mutex;

use encint_core::circuit::{Builder, NodeId};

pub use compare::CompareForm;
pub use exact_bits::{bit_stage, is_word_op, word_op, word_stage};
pub use mul::MulPlan;
pub use op::{Op, Relation, TypedError};
pub use square::SquarePlan;

/// An integer as signed binary digit nodes, least significant first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SInt {
    /// Digit nodes; each evaluates to -1, 0 or 1.
    pub digits: Vec<NodeId>,
}

impl SInt {
    /// `len` fresh encrypted input digits.
    pub fn input(b: &mut Builder, len: usize) -> SInt {
        SInt {
            digits: (0..len).map(|_| b.input()).collect(),
        }
    }

    /// Fresh encrypted inputs, one integer of each length in `lens`, in order.
    pub fn inputs(b: &mut Builder, lens: impl IntoIterator<Item = usize>) -> Vec<SInt> {
        lens.into_iter().map(|len| SInt::input(b, len)).collect()
    }

    /// A known value as constant digits (no encryption, no cost).
    pub fn constant(b: &mut Builder, value: i128) -> SInt {
        SInt {
            digits: encint_core::signed::from_i128(value)
                .into_iter()
                .map(|d| b.constant(i64::from(d)))
                .collect(),
        }
    }

    /// Number of digits.
    pub fn len(&self) -> usize {
        self.digits.len()
    }

    /// Whether there are no digits (the value 0).
    pub fn is_empty(&self) -> bool {
        self.digits.is_empty()
    }

    /// Multiplication by `2^k`: `k` constant zero digits below (free).
    pub fn shl(&self, b: &mut Builder, k: usize) -> SInt {
        if self.is_empty() {
            return SInt::default();
        }
        let zero = b.constant(0);
        let mut digits = vec![zero; k];
        digits.extend_from_slice(&self.digits);
        SInt { digits }
    }

    /// `-x`: every digit negated (linear, no bootstrap).
    pub fn neg(&self, b: &mut Builder) -> SInt {
        SInt {
            digits: self.digits.iter().map(|&d| b.neg(d)).collect(),
        }
    }

    /// Drops constant-zero digits at the top.
    pub fn trimmed(mut self, b: &Builder) -> SInt {
        while let Some(&top) = self.digits.last() {
            if b.const_value(top) == Some(0) {
                self.digits.pop();
            } else {
                break;
            }
        }
        self
    }

    fn digit(&self, i: usize, zero: NodeId) -> NodeId {
        self.digits.get(i).copied().unwrap_or(zero)
    }
}

/// Evaluates output digits (as returned by an executor) as an integer.
pub fn value_of(digits: &[i64]) -> Option<i128> {
    encint_core::signed::eval_digits(digits)
}

/// How circuits are shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Largest quadratic weight allowed at a bootstrap input. `u64::MAX` gives
    /// Parmesan's own forms (signum's first level at 85, maximum's selector at
    /// 41); 25 fits the default TFHE-rs parameters.
    pub max_qweight: u64,
}

impl Config {
    /// Parmesan's forms, unconstrained noise.
    pub const PARMESAN: Config = Config {
        max_qweight: u64::MAX,
    };
    /// The budget of TFHE-rs' `PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128` and
    /// `PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128` (2-norm 5), encint's two sets.
    pub const BUDGET_25: Config = Config { max_qweight: 25 };
}

/// The candidate plan whose circuit (built by `build` on fresh inputs) has the least
/// estimated time on `machine` when one is given, then the fewest bootstraps, then the
/// smallest depth; memoised in `memo` under `key`, so the candidates are listed and built
/// once per key.
fn cheapest_plan<K: std::hash::Hash + Eq, P: Copy>(
    machine: Option<&machine::Machine>,
    memo: &Mutex<HashMap<K, P>>,
    key: K,
    candidates: impl FnOnce() -> Vec<P>,
    build: impl Fn(&mut Builder, P) -> SInt,
) -> P {
    let cached = memo.lock().map(|m| m.get(&key).copied());
    if let Ok(Some(p)) = cached {
        return p;
    }
    let best = candidates()
        .into_iter()
        .min_by_key(|&plan| {
            let mut sb = Builder::new();
            let p = build(&mut sb, plan);
            let circuit = sb.finish(p.digits);
            let cost = circuit.cost();
            let micros = machine.map_or(0, |m| (m.seconds(&circuit) * 1e6).round() as u64);
            (micros, cost.bootstraps, cost.depth)
        })
        .expect("every length has a candidate plan");
    if let Ok(mut m) = memo.lock() {
        m.insert(key, best);
    }
    best
}

/// The arithmetic: a configuration plus the plans (products, Karatsuba splits, squaring
/// and comparison forms) chosen by the cost model, memoised per operand length.
///
/// The products and squares are the cheapest in bootstraps, or, for an arithmetic
/// [`Arith::on_machine`], the fastest on that machine.
///
/// # Examples
///
/// ```
/// use encint_arith::machine::Machine;
/// use encint_arith::{Arith, Config, SInt};
/// use encint_core::circuit::Builder;
///
/// let product = |ar: &Arith| {
///     let mut b = Builder::new();
///     let (x, y) = (SInt::input(&mut b, 32), SInt::input(&mut b, 32));
///     let p = ar.mul(&mut b, &x, &y);
///     b.finish(p.digits)
/// };
/// let big = Machine::cpu(128);
/// let cheap = product(&Arith::new(Config::PARMESAN));
/// let fast = product(&Arith::on_machine(Config::PARMESAN, big.clone()));
/// assert!(fast.cost().bootstraps > cheap.cost().bootstraps);
/// assert!(big.seconds(&fast) < big.seconds(&cheap));
/// ```
#[derive(Debug)]
pub struct Arith {
    config: Config,
    machine: Option<machine::Machine>,
    mul_plans: Mutex<HashMap<(usize, usize), MulPlan>>,
    square_plans: Mutex<HashMap<usize, SquarePlan>>,
    compare_forms: Mutex<HashMap<(compare::Final, usize, usize), CompareForm>>,
}

impl Arith {
    /// Arithmetic with the given configuration.
    pub fn new(config: Config) -> Self {
        Arith {
            config,
            machine: None,
            mul_plans: Mutex::new(HashMap::new()),
            square_plans: Mutex::new(HashMap::new()),
            compare_forms: Mutex::new(HashMap::new()),
        }
    }

    /// Arithmetic whose products and squares are chosen for their estimated time on
    /// `machine` ([`machine::Machine::seconds`]) instead of their bootstraps.
    pub fn on_machine(config: Config, machine: machine::Machine) -> Self {
        Arith {
            machine: Some(machine),
            ..Arith::new(config)
        }
    }

    /// The machine the products are chosen for, if any ([`Arith::on_machine`]).
    pub fn machine(&self) -> Option<&machine::Machine> {
        self.machine.as_ref()
    }

    /// Plans `b` for this arithmetic's machine ([`machine::Machine::plan_builder`]) if it has
    /// one, else for `threads` threads ([`Builder::set_threads`]).
    pub fn plan_builder(&self, b: &mut Builder, threads: usize) {
        match &self.machine {
            Some(m) => m.plan_builder(b),
            None => b.set_threads(threads),
        }
    }

    /// The configuration.
    pub fn config(&self) -> Config {
        self.config
    }

    /// `x - y`.
    pub fn sub(&self, b: &mut Builder, x: &SInt, y: &SInt) -> SInt {
        b.labelled("sub", |b| {
            let ny = y.neg(b);
            self.add_inner(b, x, &ny)
        })
    }

    /// `x + y` (Algorithm 1 with the LSB/MSB savings of §3.1.2).
    pub fn add(&self, b: &mut Builder, x: &SInt, y: &SInt) -> SInt {
        b.labelled("add", |b| self.add_inner(b, x, y))
    }
}
