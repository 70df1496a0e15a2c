//! The MPI job behind `--backend mpi`: rank setup (timeout, fault injection, termination
//! report), key distribution, the workers' serve loop, and rank 0's executor.

use std::time::Duration;

use encint::backend::mpi::{Cluster, MpiBackend, MpiStats};
use encint::keys::envelope::{self, Kind};
use encint::processor::{ProcessorKeys, SealedProcessorKeys};
use encint::{ClientKey, Server, ServerKey};

use super::args::BackendArgs;
use super::exec::{processor_keys, DigitSetup, Exec, KeySource, ProcessorSession, Traffic};
use crate::error::{internal, usage};
use crate::{AnyResult, CliResult};

/// Rank 0 only: when the MPI runtime ends the job because another rank died (Open MPI's
/// mpirun sends SIGTERM to the survivors), say so on standard error before exiting.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn report_termination() {
    extern "C" fn on_term(_: libc::c_int) {
        const MSG: &[u8] = b"error: cluster: the MPI runtime is ending the job (a rank died \
or was killed); rank 0 stops without a result\n";
        // SAFETY: write(2) and _exit(2) are async-signal-safe; MSG is static.
        unsafe {
            libc::write(2, MSG.as_ptr().cast(), MSG.len());
            libc::_exit(4);
        }
    }
    // SAFETY: installs a handler that only calls async-signal-safe functions.
    unsafe {
        libc::signal(libc::SIGTERM, on_term as *const () as libc::sighandler_t);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn report_termination() {}

fn cluster(b: &BackendArgs) -> AnyResult<Cluster> {
    let mut c = Cluster::init()?;
    if c.is_root() {
        report_termination();
    }
    c.set_timeout(Duration::from_secs(b.mpi_timeout.clamp(1, 86_400)));
    let fault = b
        .mpi_fault
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(usage)?;
    c.set_fault(fault);
    Ok(c)
}

/// Runs `f` on every rank; an error on any rank is printed with the rank and ends the
/// whole job (MPI_Abort), so no rank waits forever for a peer that gave up.
fn guarded(c: &Cluster, f: impl FnOnce() -> CliResult) -> CliResult {
    match f() {
        Ok(()) => Ok(()),
        Err(e) => {
            if c.is_root() {
                eprintln!("error: {e}");
            } else {
                eprintln!("error on rank {}: {e}", c.rank());
            }
            c.abort(1)
        }
    }
}

fn stats_line(c: &Cluster, threads: usize, s: &MpiStats) -> String {
    format!(
        "mpi: {} rank(s) x {} thread(s); {} levels; rotations rank 0 {} others {}; sent \
         {:.1} MiB, received {:.1} MiB; rank 0 send {:.3} s, own share {:.3} s, wait \
         {:.3} s; communication/compute {:.4}",
        c.size(),
        threads,
        s.levels,
        s.rotations_root,
        s.rotations_workers,
        s.bytes_sent as f64 / 1048576.0,
        s.bytes_received as f64 / 1048576.0,
        s.send_s,
        s.compute_s,
        s.wait_s,
        s.comm_ratio()
    )
}

/// Rank 0's executor: each level's bootstraps spread over the ranks.
struct Ranks<'a> {
    cluster: &'a Cluster,
    backend: MpiBackend<'a>,
    threads: usize,
}

impl Exec for Ranks<'_> {
    fn ranks(&self) -> Option<&MpiBackend<'_>> {
        Some(&self.backend)
    }

    fn place(&self) -> String {
        format!(" over {} rank(s)", self.cluster.size())
    }

    fn report(&self) -> Option<String> {
        Some(stats_line(
            self.cluster,
            self.threads,
            &self.backend.stats(),
        ))
    }

    fn traffic(&self) -> Option<Traffic> {
        let s = self.backend.stats();
        Some(Traffic {
            ranks: self.cluster.size() as usize,
            threads: self.threads,
            bytes: s.bytes_sent + s.bytes_received,
            comm_s: s.send_s + s.wait_s,
            compute_s: s.compute_s,
        })
    }
}

/// The keys of this rank: its own file, or rank 0's fresh keys sent to every rank.
fn digit_keys(c: &Cluster, keys: KeySource) -> AnyResult<(Option<ClientKey>, ServerKey)> {
    let params = match keys {
        KeySource::File(_) => return keys.obtain(),
        KeySource::Fresh(params) => params,
    };
    let id = params.id();
    if c.is_root() {
        let (client, key) = keys.obtain()?;
        c.broadcast(Some(envelope::seal(Kind::ServerKey, id, &key)?));
        Ok((client, key))
    } else {
        Ok((
            None,
            envelope::open(&c.broadcast(None), Kind::ServerKey, id)?,
        ))
    }
}

/// [`super::with_digits`] on every rank of the job.
pub fn with_digits(
    b: &BackendArgs,
    setup: DigitSetup,
    body: impl FnOnce(&Server, Option<&ClientKey>, &dyn Exec) -> CliResult,
) -> CliResult {
    let c = cluster(b)?;
    guarded(&c, || {
        let pool = crate::timing::pool(setup.threads)?;
        let (client, key) = digit_keys(&c, setup.keys)?;
        if !c.is_root() {
            return Ok(c.serve(&key, None, &pool)?);
        }
        let server = DigitSetup {
            threads: None,
            ..setup
        }
        .server(key, encint::BackendKind::Cpu)?;
        let exec = Ranks {
            cluster: &c,
            backend: c.connect(server.key(), None, &pool)?,
            threads: pool.current_num_threads(),
        };
        body(&server, client.as_ref(), &exec)?;
        Ok(c.stop_workers()?)
    })
}

fn seal_parts(s: &SealedProcessorKeys) -> Vec<u8> {
    let mut out = Vec::new();
    for part in [&s.server, &s.tree, &s.packing] {
        out.extend_from_slice(&(part.len() as u64).to_le_bytes());
        out.extend_from_slice(part);
    }
    out
}

fn unseal_parts(mut b: &[u8]) -> AnyResult<SealedProcessorKeys> {
    let mut parts = Vec::new();
    for _ in 0..3 {
        let (len, rest) = b
            .split_at_checked(8)
            .ok_or_else(|| internal("truncated key message"))?;
        let len = u64::from_le_bytes(len.try_into().map_err(|_| internal("key message length"))?)
            as usize;
        let (part, rest) = rest
            .split_at_checked(len)
            .ok_or_else(|| internal("truncated key message"))?;
        parts.push(part.to_vec());
        b = rest;
    }
    let packing = parts.pop().ok_or_else(|| internal("key message"))?;
    let tree = parts.pop().ok_or_else(|| internal("key message"))?;
    let server = parts.pop().ok_or_else(|| internal("key message"))?;
    Ok(SealedProcessorKeys {
        server,
        tree,
        packing,
    })
}

/// [`super::with_processor`] on every rank of the job: rank 0 generates the keys and sends
/// the server-side ones to every rank once.
pub fn with_processor(
    b: &BackendArgs,
    threads: Option<usize>,
    body: impl FnOnce(&ProcessorSession, &dyn Exec) -> CliResult,
) -> CliResult {
    let c = cluster(b)?;
    guarded(&c, || {
        let pool = crate::timing::pool(threads)?;
        if !c.is_root() {
            let keys = ProcessorKeys::open(&unseal_parts(&c.broadcast(None))?)?;
            return Ok(c.serve(&keys.server, Some(&keys.tree), &pool)?);
        }
        let (client, keys, keygen_s) = processor_keys();
        c.broadcast(Some(seal_parts(&keys.seal()?)));
        let session = ProcessorSession {
            client,
            keys,
            keygen_s,
            pool: &pool,
        };
        let exec = Ranks {
            cluster: &c,
            backend: c.connect(&session.keys.server, Some(&session.keys.tree), &pool)?,
            threads: pool.current_num_threads(),
        };
        body(&session, &exec)?;
        Ok(c.stop_workers()?)
    })
}
