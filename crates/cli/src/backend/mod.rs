//! `--backend cpu|mpi|gpu`: the options (`args`), the executor passed down to the commands
//! (`exec`), and the MPI job that provides one (`mpi`, feature `mpi`). `eval`, `bench`, `asm
//! run` and `infer` hand their work to [`with_digits`] or [`with_processor`], which set the
//! backend up and run the same command code on it.

mod args;
mod exec;
#[cfg(feature = "mpi")]
mod mpi;

pub use args::{BackendArgs, BackendKind, ParamArgs, ParamSet};
pub use exec::{DigitSetup, Exec, KeySource, ProcessorSession, Traffic};

use encint::{ClientKey, Server};

#[cfg(not(feature = "mpi"))]
use crate::error::usage;
use crate::CliResult;

/// Runs `body` with the server (and, for fresh keys, the client key) on the backend `b`
/// names. Under MPI `body` runs on rank 0 while the other ranks serve its levels.
pub fn with_digits(
    b: &BackendArgs,
    setup: DigitSetup,
    body: impl FnOnce(&Server, Option<&ClientKey>, &dyn Exec) -> CliResult,
) -> CliResult {
    if b.wants_mpi()? {
        return with_mpi_digits(b, setup, body);
    }
    b.check()?;
    let (client, key) = setup.keys.obtain()?;
    let server = setup.server(key, b.in_process())?;
    body(&server, client.as_ref(), &exec::Local)
}

/// Runs `body` with fresh byte-processor keys on the backend `b` names (the byte processor
/// needs tree LUTs: CPU or MPI). Under MPI `body` runs on rank 0 while the other ranks
/// serve.
pub fn with_processor(
    b: &BackendArgs,
    threads: Option<usize>,
    body: impl FnOnce(&ProcessorSession, &dyn Exec) -> CliResult,
) -> CliResult {
    if b.wants_mpi()? {
        return with_mpi_processor(b, threads, body);
    }
    b.check_processor()?;
    let pool = crate::timing::pool(threads)?;
    let (client, keys, keygen_s) = exec::processor_keys();
    let session = ProcessorSession {
        client,
        keys,
        keygen_s,
        pool: &pool,
    };
    body(&session, &exec::Local)
}

#[cfg(feature = "mpi")]
use mpi::{with_digits as with_mpi_digits, with_processor as with_mpi_processor};

#[cfg(not(feature = "mpi"))]
fn with_mpi_digits(
    _: &BackendArgs,
    _: DigitSetup,
    _: impl FnOnce(&Server, Option<&ClientKey>, &dyn Exec) -> CliResult,
) -> CliResult {
    Err(usage(args::NO_MPI))
}

#[cfg(not(feature = "mpi"))]
fn with_mpi_processor(
    _: &BackendArgs,
    _: Option<usize>,
    _: impl FnOnce(&ProcessorSession, &dyn Exec) -> CliResult,
) -> CliResult {
    Err(usage(args::NO_MPI))
}
