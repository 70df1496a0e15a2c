//! The circuit layer under every operation (the `encint-core` crate through the facade):
//! the [`Builder`] that algorithms record digit nodes into, the finished [`Circuit`], its
//! level [`Plan`] and [`Cost`], the [`exec`] walker with its [`exec::Backend`] trait, the
//! [`clear`] backend (evaluation on plain digits, the oracle of every encrypted run), the
//! boolean circuit IR of [`bits`] and its lowering to digit circuits, and the signed binary
//! digit tools beneath them ([`signed`], [`recode`], [`chains`]).
//!
//! A circuit built here runs encrypted on the [`crate::backend::digit`] (or any other backend
//! of the walker) and in the clear on [`clear`]:
//!
//! ```
//! use encint::arith::{Arith, Config, SInt};
//! use encint::circuit::{clear, Builder};
//!
//! let mut b = Builder::new();
//! let x = SInt::input(&mut b, 8);
//! let y = SInt::input(&mut b, 8);
//! let p = Arith::new(Config::BUDGET_25).mul(&mut b, &x, &y);
//! let circuit = b.finish(p.digits.clone());
//! let mut inputs = encint::circuit::signed::from_i128_len(-12, 8).unwrap();
//! inputs.extend(encint::circuit::signed::from_i128_len(11, 8).unwrap());
//! let inputs: Vec<i64> = inputs.into_iter().map(i64::from).collect();
//! let (digits, cost) = clear::run(&circuit, &inputs).unwrap();
//! assert_eq!(encint::arith::value_of(&digits), Some(-132));
//! assert!(cost.bootstraps > 0);
//! ```

pub use encint_core::circuit::{Builder, Circuit, Cost, Level, Node, NodeId, Plan, PlannedLevel};
pub use encint_core::lut::NegacyclicLut;

/// Evaluation on plain digits: [`clear::run`] runs a circuit and returns its output digits
/// with its [`Cost`]; [`clear::Clear`] is the same evaluation as an [`exec::Backend`].
pub use encint_core::clear;

/// Signed binary digit vectors (digits -1, 0, 1, least significant first): conversions
/// from and to `i128` and two's complement, checks, Hamming weight.
pub use encint_core::signed;

/// Recodings of constants into signed digits: NAF, Koyama-Tsuruoka, sliding windows.
pub use encint_core::recode;

/// Shortest free-doubling addition-subtraction chains: their search, the stored table and
/// the chain for a constant.
pub use encint_core::chains;

/// The level walker that runs a circuit on a backend.
pub mod exec {
    pub use encint_core::exec::{run, Backend, LevelOutputs, Output, Values, Watch, Watched};
}

/// The boolean circuit IR (gates, XOR3, majority, counters) that the bit-vector
/// algorithms of [`crate::arith::bits`] build, its lowering to digit circuits and its FV
/// cost ([`bits::fv`]).
pub mod bits {
    pub use encint_core::bits::fv;
    pub use encint_core::bits::{
        bits_to_signed_digits, lower, lower_into, signed_digits_to_bits, Bit, BitBuilder,
        BitCircuit, Gate,
    };
}
