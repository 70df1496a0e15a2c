//! # encint-fv
//!
//! The FV (BFV) homomorphic encryption scheme over `Z_q[X]/(X^n + 1)`, with the math
//! separated from the scheme:
//!
//! - [`zq`]: word-sized modular arithmetic (Barrett, Shoup, lazy), NTT-friendly primes;
//! - [`ntt`]: negacyclic NTT over `tfhe-ntt`;
//! - [`rns`]: CRT bases, fast / Shenoy-Kumaresan / floating-point (HPS) base extensions,
//!   Montgomery-style correction (BEHZ) and scale-and-round;
//! - [`poly`]: polynomials in RNS form and in Hybrid Position-Residue (HPR) form;
//! - [`bfv`]: keys, encryption, decryption, addition, multiplication and relinearisation in
//!   three variants ([`bfv::Variant::Behz`], [`bfv::Variant::Hps`], [`bfv::Variant::Hpr`]),
//!   the batching encoder and the parameter sets.
//!
//! The library prints nothing and sets no process-wide state: the `encint fv bench` and
//! `encint fv depth` commands live in the `encint-cli` binary.
#![deny(missing_docs)]

pub mod error;
pub mod ntt;
pub mod zq;

pub use error::FvError;
pub mod bfv;
pub mod poly;
pub mod rns;
