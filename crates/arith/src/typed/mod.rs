//! Typed integers with the operations of TFHE-rs' `FheInt` / `FheUint`: `n`-bit signed
//! or unsigned values, results modulo `2^n` (wrapping). Each operation has one or more
//! [`Algorithm`]s, and [`plan`] picks the one with the lowest estimated time on a given
//! thread count.
//!
//! A value of an [`IntType`] is held as digits (an [`SInt`](crate::SInt)) in one of three
//! [`Form`]s: radix-4 blocks ([`Form::Radix4`], like TFHE-rs' radix ciphertexts),
//! canonical two's-complement bits ([`Form::Canonical`], what encryption and every
//! boolean-layer result give), or lazy signed-binary digits, any representative of the
//! value modulo `2^n` ([`Form::Lazy`], never normalised). Operations that need the
//! canonical value (comparisons, division, bitwise logic, right shifts) convert lazy
//! operands first; the client reads every form with [`IntType::wrap`].
//!
//! The algorithms:
//! - [`Algorithm::Digits`]: the signed-binary digit circuits of Parmesan (Klemsa and
//!   Önen, "Parallel Operations over TFHE-Encrypted Multi-Digit Integers") on
//!   representatives, truncated to `n` digits: carry-free addition, `mul_low`, addition
//!   chains, free shifts.
//! - [`Algorithm::Bits`]: conversion to bits, then the boolean circuits of
//!   [`crate::bits`].
//! - [`Algorithm::Blocks`]: the radix-4 block circuits of [`crate::blocks`], on radix-4
//!   operands or on bits paired into blocks.
//! - [`Algorithm::Magic`]: division and remainder by a clear scalar through a precomputed
//!   reciprocal (Granlund and Montgomery, "Division by Invariant Integers using
//!   Multiplication"; [`crate::bits::div_rem_const`]), up to 64 bits.
//!
//! Sums of many values ([`sum`]) are one reduction: a counter tree over all the
//! operands' bits or one reduction of their radix-4 digit columns, or (when estimated
//! faster) a tree of two-operand additions; [`plan_sum`] orders the three.
//!
//! [`plan`] builds every algorithm's circuit for the operation, width and operand forms,
//! and picks the one whose estimated time ([`crate::bits::makespan`]: the sum over levels
//! of `⌈level width / threads⌉` bootstrap times) is lowest, ties going to fewer
//! bootstraps.
//!
//! ```
//! use encint_arith::typed::{plan, Form, Op, IntType};
//! use encint_arith::{Arith, Config};
//! let ar = Arith::new(Config { max_qweight: 25 });
//! let ty = IntType::new(16, false).unwrap();
//! let fresh = [Form::Canonical, Form::Canonical];
//! let p = plan(&ar, Op::Mul, ty, &fresh, 2).unwrap();
//! // Columns of partial products reduced by counters beat Parmesan's mul_low here.
//! assert!(p.chosen().cost.bootstraps < 376);
//! ```

mod build;
mod dot;
mod forms;
mod lookup;
mod on_bits;
mod on_blocks;
mod on_digits;
mod operands;
mod plan;
mod sum;

pub use crate::op::{Algorithm, IntType, Op, TypedError, MAX_TYPED_BITS};
pub use build::{build, circuit, circuit_for, circuit_on_machine};
pub use dot::{dot, dot_clear, dot_clear_blocks, dot_plus, dot_widening, Operand};
pub use forms::{result_form, to_bits, to_canonical, Form};
pub use lookup::match_value;
pub use plan::{plan, plan_on, rank, rank_on, Estimate, Fastest, Plan};
pub use sum::{plan_sum, plan_sum_on, sum, SumEstimate, SumMethod};
