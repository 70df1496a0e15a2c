//! The executor a command's circuits run on, passed down to `eval`, `bench`, `asm run` and
//! `infer`: this process (the server's own CPU pool or GPU) or rank 0 of an MPI job.

use std::path::Path;

use encint::fhe::{FheArray, FheValue};
use encint::infer::{EncryptedWeights, Inference};
use encint::keys::DigitParameters;
use encint::processor::{Downlink, ProcessorKeys, Program, Uplink};
use encint::{ClientKey, Cost, EncInt, Op, Server, ServerKey};

use crate::progress::spinner;
use crate::AnyResult;

/// Runs circuits for a command; the command's own code is the same on every executor.
/// Here (the default) the work runs in this process; an MPI job's executor names its
/// backend (`Exec::ranks`) and the same calls run over its ranks.
pub trait Exec {
    /// The MPI job's backend, when the work runs over its ranks.
    #[cfg(feature = "mpi")]
    fn ranks(&self) -> Option<&encint::backend::mpi::MpiBackend<'_>> {
        None
    }

    /// One digit operation (see [`Server::apply`]).
    fn apply(&self, server: &Server, op: Op, args: &[&EncInt]) -> encint::Result<(EncInt, Cost)> {
        #[cfg(feature = "mpi")]
        if let Some(backend) = self.ranks() {
            return server.apply_on(backend, op, args);
        }
        server.apply(op, args)
    }

    /// A byte-processor program on an uplink of its inputs with the session's keys (see
    /// [`Program::run_uplink`]); in this process on the session's pool.
    fn run_program(
        &self,
        program: &Program,
        session: &ProcessorSession,
        uplink: &Uplink,
    ) -> encint::Result<Downlink> {
        #[cfg(feature = "mpi")]
        if let Some(backend) = self.ranks() {
            return program.run_uplink_on(backend, &session.keys, uplink);
        }
        session
            .pool
            .install(|| program.run_uplink(&session.keys, uplink))
    }

    /// An inference circuit over a batch of encrypted images (see [`Inference::run`]).
    fn infer(
        &self,
        inference: &Inference,
        server: &Server,
        images: &FheArray<FheValue>,
        weights: Option<&EncryptedWeights>,
    ) -> encint::Result<FheArray<FheValue>> {
        #[cfg(feature = "mpi")]
        if let Some(backend) = self.ranks() {
            return inference.run_on_backend(server, backend, images, weights);
        }
        inference.run(server, images, weights)
    }

    /// Where the work ran, for a command's timing line (` over K rank(s)`; empty here).
    fn place(&self) -> String {
        String::new()
    }

    /// A line on how the work was spread (MPI: ranks, levels, traffic), if any.
    fn report(&self) -> Option<String> {
        None
    }

    /// The traffic so far (MPI), for per-row communication figures; none here.
    fn traffic(&self) -> Option<Traffic> {
        None
    }
}

/// This process: the server's own backend (its CPU pool or the GPU).
pub struct Local;

impl Exec for Local {}

/// Rank 0's communication counters of an MPI job.
#[derive(Clone, Copy, Debug, Default)]
pub struct Traffic {
    /// Ranks of the job.
    pub ranks: usize,
    /// Threads per rank.
    pub threads: usize,
    /// Bytes sent and received by rank 0.
    pub bytes: u64,
    /// Seconds rank 0 spent sending and waiting.
    pub comm_s: f64,
    /// Seconds rank 0 spent on its own share.
    pub compute_s: f64,
}

/// Where each process of a digit command gets its server key.
#[derive(Clone, Copy)]
pub enum KeySource<'a> {
    /// Every process reads this file (under MPI every rank its own, checked when rank 0
    /// connects).
    File(&'a Path),
    /// Fresh keys on this parameter set (under MPI generated on rank 0 and sent to every
    /// rank).
    Fresh(&'static DigitParameters),
}

impl KeySource<'_> {
    /// The keys of this process: read (no client key) or generated.
    pub fn obtain(self) -> AnyResult<(Option<ClientKey>, ServerKey)> {
        match self {
            KeySource::File(path) => {
                let pb = spinner("loading the server key");
                let key = crate::keyfiles::load_server(path)?;
                pb.finish_and_clear();
                Ok((None, key))
            }
            KeySource::Fresh(params) => {
                let pb = spinner("generating keys");
                let (client, key) = ClientKey::generate(params);
                pb.finish_and_clear();
                Ok((Some(client), key))
            }
        }
    }
}

/// The settings of a digit command's server.
#[derive(Clone, Copy)]
pub struct DigitSetup<'a> {
    /// Where the server key comes from.
    pub keys: KeySource<'a>,
    /// Threads for bootstrapping (default: all cores).
    pub threads: Option<usize>,
    /// Largest circuit to run, in nodes (default: the library's).
    pub max_nodes: Option<u64>,
    /// The machine profile to plan circuits for (default: the server's threads).
    pub machine: Option<&'a encint::Machine>,
}

impl DigitSetup<'_> {
    /// Fresh keys on `params`, `threads` for bootstrapping, the library's node limit and
    /// no machine profile.
    pub fn fresh(params: &'static DigitParameters, threads: Option<usize>) -> Self {
        DigitSetup {
            keys: KeySource::Fresh(params),
            threads,
            max_nodes: None,
            machine: None,
        }
    }

    /// A server on `key` with these settings, on the in-process backend `kind`.
    pub fn server(&self, key: ServerKey, kind: encint::BackendKind) -> AnyResult<Server> {
        let mut server = match self.threads {
            Some(t) => Server::with_threads(key, t)?,
            None => Server::new(key),
        }
        .with_backend(kind)?;
        if let Some(n) = self.max_nodes {
            server.set_max_nodes(n);
        }
        if let Some(m) = self.machine {
            server.set_machine(m.clone());
        }
        Ok(server)
    }
}

/// Fresh byte-processor keys, handed to `asm run`'s encrypted run.
pub struct ProcessorSession<'a> {
    /// The client key (secret).
    pub client: ClientKey,
    /// The server-side keys (server, tree, packing).
    pub keys: ProcessorKeys,
    /// Seconds key generation took.
    pub keygen_s: f64,
    /// The command's thread pool.
    pub pool: &'a rayon::ThreadPool,
}

/// Generates byte-processor keys under a spinner, timed.
pub fn processor_keys() -> (ClientKey, ProcessorKeys, f64) {
    let sp = spinner("generating client, server, tree and packing keys");
    let t = std::time::Instant::now();
    let (client, keys) = ProcessorKeys::generate(&encint::DEFAULT_PARAMETERS);
    let keygen_s = t.elapsed().as_secs_f64();
    sp.finish_and_clear();
    (client, keys, keygen_s)
}
