//! One circuit over many processes with MPI (feature `mpi`, off by default).
//!
//! Rank 0 builds the circuit, owns the inputs and outputs and walks the levels with the
//! ordinary level walker of [`encint_core::exec`] through [`MpiBackend`]; every other rank
//! runs [`Cluster::serve`] and does bootstraps only. Each level's bootstraps are cut into
//! *units* (a plain or half-step bootstrap; for the tree backend, one multi-value first
//! level together with the trees that read its accumulators, so an accumulator never
//! travels), the units into one contiguous chunk per rank of about the same number of blind
//! rotations, and every rank runs its chunk on its own rayon pool with the same unit runner
//! as the local backends (`units.rs`). Linear nodes, constants
//! and extracts stay on rank 0, where the inputs of every level are gathered: they cost
//! microseconds, a bootstrap milliseconds.
//!
//! What travels per bootstrap is its input ciphertext out and its output back (a digit is
//! an LWE ciphertext of dimension 2048, 16 KiB) plus a 128-byte table; [`MpiStats`] counts
//! the bytes and the time rank 0 spends sending and waiting beyond its own share.
//!
//! Every rank holds the server key (and for byte-processor circuits the tree key): loaded
//! from the same files, or broadcast once from rank 0 ([`Cluster::broadcast`]). Before any
//! work, [`Cluster::connect`] collects every worker's key set and refuses a mismatch
//! ([`Error::Cluster`]), so no rank ever bootstraps with another key.
//!
//! Faults: rank 0 polls for each worker's answer with non-blocking probes and gives up
//! after the stated bound (see [`Cluster::timeout_for`]): a worker that died, hung or
//! answers with an error becomes [`Error::Cluster`] naming the rank and the level, never a
//! wrong result; the caller then reports it and calls [`Cluster::abort`], which ends every
//! rank (the MPI runtime's own default, a job abort on a dead peer, also never hangs).
//! A worker that cannot even take its work within the bound (a send that does not
//! complete) is reported as an error record of the `log` facade (the CLI prints it on rank
//! 0's standard error) and the job is aborted on the spot.

use std::time::{Duration, Instant};

use mpi::environment::Universe;
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use serde::{Deserialize, Serialize};

use encint_core::circuit::{Circuit, NodeId, Plan, PlannedLevel};
use encint_core::exec::{Backend, Output, Values};
use encint_tfhe::{Digit, KeySetId, ServerKey, TreeKey};

use super::digit::{cpu_digit_ops, DigitBackend};
use super::tree::TreeBackend;
use super::units::{level_units, run_units, scatter, split, weight, Unit, UnitOut};
use crate::{Error, Result};

const TAG_TO_WORKER: i32 = 11;
const TAG_TO_ROOT: i32 = 12;
/// Largest message a rank decodes (a level of 2^16 bootstraps is about 1 GiB).
const MAX_MESSAGE: u64 = 4 << 30;

/// Default fault bound, in seconds (see [`Cluster::timeout_for`]).
pub const DEFAULT_TIMEOUT_S: u64 = 60;

#[derive(Debug, Serialize, Deserialize)]
enum ToWorker<D> {
    Work { level: u32, units: Vec<Unit<D>> },
    Stop,
}

#[derive(Debug, Serialize, Deserialize)]
enum ToRoot {
    Hello {
        server: KeySetId,
        tree: Option<KeySetId>,
        threads: u32,
    },
    Done {
        level: u32,
        outs: Vec<UnitOut>,
    },
    Failed {
        level: u32,
        message: String,
    },
}

fn encode<T: Serialize>(msg: &T) -> Result<Vec<u8>> {
    bincode::serialize(msg).map_err(|e| Error::Cluster(format!("cannot encode a message: {e}")))
}

fn decode<T: for<'de> Deserialize<'de>>(bytes: &[u8], from: i32) -> Result<T> {
    use bincode::Options;
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_limit(MAX_MESSAGE)
        .deserialize(bytes)
        .map_err(|e| Error::Cluster(format!("malformed message from rank {from}: {e}")))
}

/// A hidden fault for the tests of the fault handling: what a worker does at a level.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The process exits (code 3) when it receives the work of this level.
    ExitAt(u32),
    /// The process stops answering (sleeps) when it receives the work of this level.
    HangAt(u32),
}

impl std::str::FromStr for Fault {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Fault, String> {
        let (kind, level) = s
            .split_once(':')
            .ok_or_else(|| format!("`{s}`: expected exit:LEVEL or hang:LEVEL"))?;
        let level: u32 = level
            .parse()
            .map_err(|_| format!("`{level}`: not a level number"))?;
        match kind {
            "exit" => Ok(Fault::ExitAt(level)),
            "hang" => Ok(Fault::HangAt(level)),
            other => Err(format!("`{other}`: expected exit or hang")),
        }
    }
}

/// Rank 0's counters of one or more runs.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct MpiStats {
    /// Levels whose bootstraps were spread over the ranks.
    pub levels: u64,
    /// Blind rotations run by rank 0 and by the other ranks.
    pub rotations_root: u64,
    /// Blind rotations run by the other ranks.
    pub rotations_workers: u64,
    /// Bytes rank 0 sent (work) and received (results).
    pub bytes_sent: u64,
    /// Bytes rank 0 received.
    pub bytes_received: u64,
    /// Seconds rank 0 spent encoding and sending work.
    pub send_s: f64,
    /// Seconds rank 0 spent on its own chunk.
    pub compute_s: f64,
    /// Seconds rank 0 waited for and decoded the other ranks' results after its own chunk.
    pub wait_s: f64,
}

impl MpiStats {
    /// Communication over compute on rank 0: `(send + wait) / compute`. The wait includes
    /// any imbalance between the chunks, so this bounds the communication from above.
    pub fn comm_ratio(&self) -> f64 {
        if self.compute_s > 0.0 {
            (self.send_s + self.wait_s) / self.compute_s
        } else {
            0.0
        }
    }
}

/// This process's place in an MPI job: call [`Cluster::init`] once per process.
pub struct Cluster {
    // Finalizes MPI when dropped; declared first so it outlives nothing it guards.
    _universe: Universe,
    world: SimpleCommunicator,
    timeout: Duration,
    fault: Option<Fault>,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("rank", &self.rank())
            .field("size", &self.size())
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Cluster {
    /// Initializes MPI (once per process; a second call is an error). MPI calls are made
    /// from one thread at a time (`MPI_THREAD_SERIALIZED`); bootstraps run on rayon.
    pub fn init() -> Result<Cluster> {
        let (universe, level) = mpi::initialize_with_threading(mpi::Threading::Serialized)
            .ok_or_else(|| Error::Cluster("MPI is already initialized in this process".into()))?;
        if level < mpi::Threading::Serialized {
            return Err(Error::Cluster(format!(
                "the MPI library offers thread level {level:?}, below Serialized"
            )));
        }
        let world = universe.world();
        Ok(Cluster {
            _universe: universe,
            world,
            timeout: Duration::from_secs(DEFAULT_TIMEOUT_S),
            fault: None,
        })
    }

    /// Sets the fault bound's base (default [`DEFAULT_TIMEOUT_S`] seconds).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    #[doc(hidden)]
    pub fn set_fault(&mut self, fault: Option<Fault>) {
        self.fault = fault;
    }

    /// The bound rank 0 waits for a worker's answer to a level after finishing its own
    /// chunk in `own` seconds: `timeout + 4·own` (the chunks are of equal size, so a live
    /// worker on a comparable core answers within about `own`). The same bound applies to
    /// a worker's hello and to the hand-over of a level's work.
    pub fn timeout_for(&self, own: Duration) -> Duration {
        self.timeout + own * 4
    }

    /// This process's rank.
    pub fn rank(&self) -> i32 {
        self.world.rank()
    }

    /// The number of ranks.
    pub fn size(&self) -> i32 {
        self.world.size()
    }

    /// Whether this process is rank 0.
    pub fn is_root(&self) -> bool {
        self.rank() == 0
    }

    /// Ends every rank of the job with `code` (after an error has been reported).
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    /// Sends `bytes` from rank 0 to every rank (collective: every rank calls it; the
    /// others pass `None`) and returns them.
    pub fn broadcast(&self, bytes: Option<Vec<u8>>) -> Vec<u8> {
        let root = self.world.process_at_rank(0);
        let mut len = bytes.as_ref().map_or(0u64, |b| b.len() as u64);
        root.broadcast_into(&mut len);
        let mut buf = bytes.unwrap_or_else(|| vec![0u8; len as usize]);
        root.broadcast_into(&mut buf[..]);
        buf
    }

    /// Rank 0: waits for every worker's hello and checks that each holds the same server
    /// key set (and tree key set, when `tree` is given) as rank 0, then returns the
    /// backend. Error: a mismatch, a worker without a tree key, or a worker silent for
    /// longer than the timeout.
    pub fn connect<'a>(
        &'a self,
        server: &'a ServerKey,
        tree: Option<&'a TreeKey>,
        pool: &'a rayon::ThreadPool,
    ) -> Result<MpiBackend<'a>> {
        if !self.is_root() {
            return Err(Error::Cluster("only rank 0 connects".into()));
        }
        let deadline = Instant::now() + self.timeout;
        for r in 1..self.size() {
            let bytes = self.receive_from(r, deadline, "its hello")?;
            match decode::<ToRoot>(&bytes, r)? {
                ToRoot::Hello {
                    server: s,
                    tree: t,
                    threads,
                } => {
                    if s != server.key_set() {
                        return Err(Error::Cluster(format!(
                            "key mismatch: rank {r} holds server key set {s}, rank 0 holds {}",
                            server.key_set()
                        )));
                    }
                    if let Some(tk) = tree {
                        match t {
                            Some(t) if t == tk.key_set() => {}
                            Some(t) => {
                                return Err(Error::Cluster(format!(
                                    "key mismatch: rank {r} holds tree key set {t}, rank 0 \
                                     holds {}",
                                    tk.key_set()
                                )))
                            }
                            None => {
                                return Err(Error::Cluster(format!("rank {r} holds no tree key")))
                            }
                        }
                    }
                    let _ = threads;
                }
                _ => {
                    return Err(Error::Cluster(format!(
                        "rank {r} sent work results before its hello"
                    )))
                }
            }
        }
        Ok(MpiBackend {
            cluster: self,
            server,
            tree,
            pool,
            level: std::cell::Cell::new(0),
            stats: std::cell::Cell::new(MpiStats::default()),
        })
    }

    /// Rank 0: tells every worker to return from [`Cluster::serve`].
    pub fn stop_workers(&self) -> Result<()> {
        let bytes = encode(&ToWorker::<&Digit>::Stop)?;
        for r in 1..self.size() {
            self.send_to(r, &bytes, Instant::now() + self.timeout, "stop");
        }
        Ok(())
    }

    /// Blocking receive of one message from rank `r` with polling up to `deadline`.
    fn receive_from(&self, r: i32, deadline: Instant, what: &str) -> Result<Vec<u8>> {
        let p = self.world.process_at_rank(r);
        let mut spins = 0u32;
        loop {
            if let Some(probed) = p.immediate_matched_probe_with_tag(TAG_TO_ROOT) {
                let (bytes, _) = probed.matched_receive_vec::<u8>();
                return Ok(bytes);
            }
            if Instant::now() > deadline {
                return Err(Error::Cluster(format!(
                    "rank {r} did not send {what} within the timeout: the rank died, hung \
                     or is unreachable"
                )));
            }
            spins += 1;
            if spins > 1000 {
                std::thread::sleep(Duration::from_micros(200));
            } else {
                std::hint::spin_loop();
            }
        }
    }

    /// Sends `bytes` to rank `r`; a send not complete by `deadline` is reported (an error
    /// record of the `log` facade) and the job aborted (MPI cannot take back the buffer of a
    /// pending send).
    fn send_to(&self, r: i32, bytes: &[u8], deadline: Instant, what: &str) {
        mpi::request::scope(|scope| {
            let mut req =
                self.world
                    .process_at_rank(r)
                    .immediate_send_with_tag(scope, bytes, TAG_TO_WORKER);
            loop {
                match req.test() {
                    Ok(_) => return,
                    Err(r2) => req = r2,
                }
                if Instant::now() > deadline {
                    log::error!(
                        "cluster: rank {r} did not take {what} within the timeout: the rank \
                         died, hung or is unreachable; aborting the job"
                    );
                    self.world.abort(3);
                }
                std::thread::sleep(Duration::from_micros(50));
            }
        })
    }

    /// Ranks other than 0: says hello (the key sets held and the pool's threads), then runs
    /// the work rank 0 sends until it says stop. Errors of a level are sent to rank 0
    /// (which reports them); the loop returns after stop.
    pub fn serve(
        &self,
        server: &ServerKey,
        tree: Option<&TreeKey>,
        pool: &rayon::ThreadPool,
    ) -> Result<()> {
        if self.is_root() {
            return Err(Error::Cluster("rank 0 does not serve".into()));
        }
        let root = self.world.process_at_rank(0);
        let hello = ToRoot::Hello {
            server: server.key_set(),
            tree: tree.map(TreeKey::key_set),
            threads: pool.current_num_threads() as u32,
        };
        root.send_with_tag(&encode(&hello)?[..], TAG_TO_ROOT);
        loop {
            let (bytes, _) = root
                .matched_probe_with_tag(TAG_TO_WORKER)
                .matched_receive_vec::<u8>();
            match decode::<ToWorker<Digit>>(&bytes, 0)? {
                ToWorker::Stop => return Ok(()),
                ToWorker::Work { level, units } => {
                    match self.fault {
                        Some(Fault::ExitAt(l)) if l == level => std::process::exit(3),
                        Some(Fault::HangAt(l)) if l == level => loop {
                            std::thread::sleep(Duration::from_secs(3600));
                        },
                        _ => {}
                    }
                    let reply = match pool.install(|| run_units(server, tree, &units)) {
                        Ok(outs) => ToRoot::Done { level, outs },
                        Err(e) => ToRoot::Failed {
                            level,
                            message: e.to_string(),
                        },
                    };
                    root.send_with_tag(&encode(&reply)?[..], TAG_TO_ROOT);
                }
            }
        }
    }
}

/// The backend of rank 0: each level's bootstraps spread over the ranks of a [`Cluster`]
/// (see the module documentation). Runs digit circuits (like
/// [`DigitBackend`]) and, with a tree key, byte-processor circuits (like [`TreeBackend`]).
/// Use it from the thread that initialized MPI.
pub struct MpiBackend<'a> {
    cluster: &'a Cluster,
    server: &'a ServerKey,
    tree: Option<&'a TreeKey>,
    pool: &'a rayon::ThreadPool,
    level: std::cell::Cell<u32>,
    stats: std::cell::Cell<MpiStats>,
}

impl std::fmt::Debug for MpiBackend<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpiBackend")
            .field("cluster", self.cluster)
            .field("stats", &self.stats.get())
            .finish()
    }
}

impl MpiBackend<'_> {
    /// The counters of the runs so far.
    pub fn stats(&self) -> MpiStats {
        self.stats.get()
    }
}

impl Backend for MpiBackend<'_> {
    type Value = Digit;
    type Error = Error;

    fn check(&self, circuit: &Circuit, plan: &Plan) -> Result<()> {
        match self.tree {
            Some(tree) => TreeBackend {
                server: self.server,
                tree,
            }
            .check(circuit, plan),
            None => DigitBackend {
                server: self.server,
            }
            .check(circuit, plan),
        }
    }

    cpu_digit_ops!();

    fn bootstrap_level(
        &self,
        circuit: &Circuit,
        level: &PlannedLevel,
        values: &Values<Digit>,
    ) -> Result<Vec<(NodeId, Output<Digit>)>> {
        let index = self.level.get();
        self.level.set(index + 1);
        let mut stats = self.stats.get();
        let (units, ids): (Vec<_>, Vec<_>) =
            level_units(circuit, level, self.tree.is_some(), |id| values.get(id))?
                .into_iter()
                .unzip();
        let ranks = self.cluster.size() as usize;
        let chunks = split(units, ranks);
        let t = Instant::now();
        // Hand the other ranks their chunks (they wait for work).
        let mut busy = Vec::new();
        let mut chunks = chunks.into_iter();
        let own = chunks.next().unwrap_or_default();
        for (k, chunk) in chunks.enumerate() {
            if chunk.is_empty() {
                continue;
            }
            let r = k as i32 + 1;
            stats.rotations_workers += chunk.iter().map(weight).sum::<usize>() as u64;
            let n = chunk.len();
            let bytes = encode(&ToWorker::Work {
                level: index,
                units: chunk,
            })?;
            stats.bytes_sent += bytes.len() as u64;
            self.cluster.send_to(
                r,
                &bytes,
                Instant::now() + self.cluster.timeout,
                &format!("the work of level {index}"),
            );
            busy.push((r, n));
        }
        stats.send_s += t.elapsed().as_secs_f64();
        let t = Instant::now();
        stats.rotations_root += own.iter().map(weight).sum::<usize>() as u64;
        let (server, tree) = (self.server, self.tree);
        let own_outs = self.pool.install(|| run_units(server, tree, &own))?;
        let own_time = t.elapsed();
        stats.compute_s += own_time.as_secs_f64();
        let t = Instant::now();
        let deadline = Instant::now() + self.cluster.timeout_for(own_time);
        let mut outs = own_outs;
        for (r, n) in busy {
            let bytes =
                self.cluster
                    .receive_from(r, deadline, &format!("its results of level {index}"))?;
            stats.bytes_received += bytes.len() as u64;
            match decode::<ToRoot>(&bytes, r)? {
                ToRoot::Done { level: l, outs: o } if l == index && o.len() == n => outs.extend(o),
                ToRoot::Failed { level: l, message } => {
                    return Err(Error::Cluster(format!(
                        "rank {r} failed level {l}: {message}"
                    )))
                }
                _ => {
                    return Err(Error::Cluster(format!(
                        "rank {r} answered level {index} with a result of another level or size"
                    )))
                }
            }
        }
        stats.wait_s += t.elapsed().as_secs_f64();
        stats.levels += 1;
        self.stats.set(stats);
        scatter(ids, outs).ok_or_else(|| {
            Error::Cluster(format!(
                "level {index}: a result does not match its bootstrap"
            ))
        })
    }
}
