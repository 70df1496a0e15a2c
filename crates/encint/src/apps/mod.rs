//! The applications built on the family and the layers beneath, each re-exported at the
//! crate root under its own name: private inference of quantised networks ([`infer`]),
//! bit-sliced binary arithmetic on FV ([`fv_bits`]), the encrypted byte processor
//! ([`processor`]) and boolean circuits on encrypted bits ([`bit_circuits`]).

pub mod bit_circuits;
pub mod fv_bits;
pub mod infer;
pub mod processor;
