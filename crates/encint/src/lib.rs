//! # encint
//!
//! Arithmetic on encrypted integers (TFHE), in the shape of TFHE-rs' high-level API and
//! beyond it.
//!
//! **The typed family** ([`fhe`]): [`FheUint8`] ... [`FheUint128`], [`FheInt8`] ...
//! [`FheInt128`] (any width through [`FheUint<N>`](FheUint) and [`FheInt<N>`](FheInt)) and
//! [`FheBool`], with operators and TFHE-rs' wrapping semantics; [`FheArray`] for elementwise
//! work, sums and dot products; and [`compile`], which traces a whole function once into one
//! circuit whose independent operations share bootstrap batches. A compiled function's
//! bootstraps, depth and estimated time are known before any key exists
//! ([`Compiled::cost`]), and it runs on plain values too ([`Compiled::run_clear`]) to check
//! results against.
//!
//! ```
//! use encint::{compile, ClientKey, FheUint8, DEFAULT_PARAMETERS};
//!
//! // Cost before keys: the circuit of x·x + 3 on u8, and its run on a plain value.
//! let f = compile(|x: FheUint8| &(&x * &x) + 3u8)?;
//! assert!(f.cost().bootstraps > 0);
//! assert_eq!(f.run_clear(&[12])?, vec![(12 * 12 + 3) % 256]);
//!
//! // The same circuit on an encrypted value, and the same function as operators.
//! let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
//! encint::set_server_key(server_key);
//! let x = FheUint8::encrypt(12u8, &client)?;
//! assert_eq!(f.run(&x)?.decrypt::<u8>(&client)?, 12u8.wrapping_mul(12) + 3);
//! let y = &(&x * &x) + 3u8;
//! assert_eq!(y.decrypt::<u8>(&client)?, 12u8.wrapping_mul(12) + 3);
//! # Ok::<(), encint::Error>(())
//! ```
//!
//! **Exact integers** ([`Int`], [`EncInt`]) never wrap: a product is as long as it needs to
//! be. Their digits are signed binary (-1, 0, 1), after J. Klemsa and M. Önen, *Parmesan:
//! Parallel ARithMETicS over ENcrypted data*; [`Server`] evaluates their operations, one
//! circuit each or a whole traced function ([`Server::trace`]).
//!
//! **Beyond the integers**: FV batches ([`fv`]: J.-C. Bajard, J. Eynard, P. Martins, L. Sousa
//! and V. Zucca, *An asymptotically faster version of FV supported on HPR*) and bit-sliced
//! binary arithmetic over all their slots ([`fv_bits`]); the encrypted 8-bit byte processor
//! ([`processor`]: D. Trama, P.-E. Clet, A. Boudguiga and R. Sirdey, *Designing a
//! General-Purpose 8-bit (T)FHE Processor Abstraction*); private inference of quantised
//! networks ([`infer`]).
//!
//! ## Where things are
//!
//! - Keys: the client side holds the secret [`ClientKey`]; the server side needs only the
//!   [`ServerKey`] and never sees the client key. [`keys`] has the parameter sets and the
//!   TFHE layer.
//! - [`io`]: every file and upload (ciphertext files, seeded and public-key uploads, packed
//!   results, the bounded reader).
//! - [`backend`]: where circuits run ([`BackendKind`]: the CPU, an NVIDIA GPU, or the ranks
//!   of an MPI job).
//! - [`limits`]: the resource limits checked before anything is built; [`watch`]: progress
//!   and cancellation of the circuits a thread runs.
//! - [`circuit`] and [`arith`]: the circuit builder and the algorithms beneath, through the
//!   facade; [`Error`]: everything that can go wrong.
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
pub mod machine;
pub mod reference;
mod server;
pub mod trace;
pub mod typed;
pub mod watch;

pub use apps::{bit_circuits, fv_bits, infer, processor};

pub use backend::kind::BackendKind;
pub use encint_arith::machine::Machine;
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
