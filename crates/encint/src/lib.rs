//! # encint
//!
//! Exact arithmetic on encrypted integers. An [`EncInt`] is a signed binary
//! integer whose digits (-1, 0, 1) are TFHE ciphertexts of 5-bit messages without
//! padding, after J. Klemsa and M. Önen, *Parmesan: Parallel ARithMETicS over ENcrypted
//! data*. Operations are circuits built by `encint-arith` and run by the [`executor`],
//! level by level, each level's bootstraps as one parallel batch. Results are exact: a
//! product is as long as it needs to be.
//!
//! The byte processor of D. Trama, P.-E. Clet, A. Boudguiga and R. Sirdey, *Designing a
//! General-Purpose 8-bit (T)FHE Processor Abstraction*, runs encrypted programs through
//! [`processor`]; the FV scheme of J.-C. Bajard, J. Eynard, P. Martins, L. Sousa and
//! V. Zucca, *An asymptotically faster version of FV supported on HPR*, is reachable through
//! [`fv`], and bit-sliced binary arithmetic on it through [`fv_bits`].
//!
//! The executors (`src/backend/`) are public under their established names: [`executor`]
//! (digits on this process), [`tree_exec`] (with tree LUTs), `mpi` (feature `mpi`, many
//! processes) and [`gpu`] (feature `gpu`).
//!
//! The layers beneath are reachable through the facade alone: [`circuit`] (the circuit
//! builder, plans, costs, the walker and the clear evaluation), [`arith`] (the algorithms
//! as circuit builders), [`keys`] (the TFHE keys, parameter sets, digits and envelopes),
//! [`processor`] (with the assembler, the instruction set and the VM) and [`fv`].
//!
//! The client side holds the secret [`ClientKey`]; the server side needs only the
//! [`ServerKey`] and never sees the client key.
//!
//! ```no_run
//! use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
//!
//! let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
//! let server = Server::new(server_key);
//! let a = encint::encrypt(&client, -1234, 12).unwrap();
//! let b = encint::encrypt(&client, 567, 12).unwrap();
//! let p = server.mul(&a, &b).unwrap();
//! assert_eq!(encint::decrypt(&client, &p).unwrap(), -1234 * 567);
//! ```
#![deny(missing_docs)]

mod apps;
pub mod arith;
pub mod backend;
pub mod circuit;
mod error;
pub mod fhe;
pub mod fv;
mod int;
pub mod io;
pub mod keys;
pub mod limits;
pub mod reference;
mod server;
mod trace;
pub mod typed;
pub mod watch;

pub use apps::{bit_circuits, fv_bits, infer, processor};

pub use backend::kind::BackendKind;
pub use encint_arith::{Arith, Config, Op, Relation, SInt};
pub use encint_core::circuit::Cost;
pub use encint_core::CoreError;
pub use encint_tfhe::{ClientKey, KeySetId, ServerKey, DEFAULT_PARAMETERS, KS64_PARAMETERS};
pub use error::{Error, GpuError, Result, Unsupported};
pub use fhe::{
    compile, compile_with, set_server_everywhere, set_server_key, Compiled, FheArray, FheBool,
    FheInt, FheInt128, FheInt16, FheInt32, FheInt64, FheInt8, FheUint, FheUint128, FheUint16,
    FheUint32, FheUint64, FheUint8, Int,
};
pub use int::{decrypt, decrypt_big, encrypt, encrypt_big, EncInt};
pub use io::public::{PublicInt, PublicKey, PublicKeyFile, PublicValue};
pub use io::seeded::{Seeded, SeededArray, SeededInt, SeededTyped};
pub use limits::{DEFAULT_MAX_NODES, MAX_DIGITS};
pub use num_bigint::BigInt;
pub use server::{check_threads, set_server, unset_server, Server, MAX_THREADS_PER_CORE};
pub use trace::Tracer;

/// The README's Rust examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;
