//! The executors of circuits on TFHE digits, each a [`Backend`](encint_core::exec::Backend) of
//! the level walker of [`encint_core::exec`]:
//!
//! * `digit`: plain and half-step bootstraps on this process (`encint::backend::digit`);
//! * `tree`: the same plus the bivariate tree LUTs of the byte processor
//!   (`encint::backend::tree`);
//! * `mpi` (feature `mpi`): one circuit over many processes (`encint::backend::mpi`);
//! * `gpu` (feature `gpu`): one circuit on an NVIDIA GPU (`encint::backend::gpu`);
//! * `kind`: which of the CPU and GPU a server runs on.
//!
//! The CPU backends share one runner of a level's bootstraps (`units.rs`): the local ones
//! run a whole level with it, the MPI backend one chunk of a level per rank, and the GPU
//! backend batches the same units on the device.

pub mod digit;
pub mod gpu;
pub mod kind;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod tree;
mod units;
