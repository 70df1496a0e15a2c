//! Timing of the TFHE-rs high-level integer API, the baseline the encint circuits are
//! compared with: signed `FheInt8/16/32` (`int`), `FheUint8` byte operations (`byte`), the
//! typed operations on `FheInt`/`FheUint` of 8 to 64 bits (`typed`) and `FheUint` rows of
//! `encint bits bench` (`uint`). It lives in the binary, not in a library: it caches keys
//! process-wide and needs tfhe's `integer` feature, which no library crate of encint does.
//!
//! Keys are generated once per process, on the set [`PeerParams`] names (the benchmarks'
//! `--peer-params`): by default `ConfigBuilder::default()` (in TFHE-rs 1.8.2
//! `PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128`, what a TFHE-rs user gets), or the set
//! encint's default is read from, so that the comparison is of circuits, not of parameters
//! (`examples/pbs_vs_tfhe.rs` times the bootstraps). TFHE-rs keeps its server key in a
//! thread-local, which every timer installs on the calling thread; TFHE-rs' own parallelism
//! runs on the current rayon pool, so the caller picks the threads with
//! `rayon::ThreadPool::install`.

pub mod byte;
pub mod int;
pub mod typed;
pub mod uint;
pub mod workloads;

use std::sync::OnceLock;
use std::time::Instant;

use tfhe::ConfigBuilder;

pub use crate::error::PeerError;

/// Errors unless at least one run is asked for.
fn check_runs(runs: usize) -> Result<(), PeerError> {
    if runs == 0 {
        return Err(PeerError::Failed("runs must be at least 1".into()));
    }
    Ok(())
}

/// TFHE-rs' parameter set for the peer's keys (`--peer-params`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum PeerParams {
    /// `ConfigBuilder::default()`: `PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128` in 1.8.2
    /// (keyswitch on the 64-bit torus; [`encint::KS64_PARAMETERS`] is read from it).
    #[default]
    Default,
    /// `PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128` (keyswitch on the 32-bit torus;
    /// [`encint::DEFAULT_PARAMETERS`] is read from it).
    Ks32,
}

impl PeerParams {
    /// The name recorded in benchmark output.
    pub fn name(self) -> &'static str {
        match self {
            PeerParams::Default => "PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128",
            PeerParams::Ks32 => "PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128",
        }
    }
}

static PEER_PARAMS: OnceLock<PeerParams> = OnceLock::new();

/// Fixes TFHE-rs' parameter set for this process; an error if another one was fixed (or used)
/// before.
pub fn set_peer_params(p: PeerParams) -> Result<(), String> {
    match *PEER_PARAMS.get_or_init(|| p) {
        q if q == p => Ok(()),
        q => Err(format!(
            "TFHE-rs keys of this process use {}, not {}",
            q.name(),
            p.name()
        )),
    }
}

/// Prints the two sides' parameter sets above a benchmark table.
pub fn print_params(ours: &encint::keys::DigitParameters) {
    println!(
        "parameters: ours {}, TFHE-rs {}",
        ours.id(),
        peer_params().name()
    );
}

/// TFHE-rs' parameter set in this process ([`PeerParams::Default`] unless set before).
pub fn peer_params() -> PeerParams {
    *PEER_PARAMS.get_or_init(PeerParams::default)
}

/// A TFHE-rs key pair on this process's peer parameter set (every peer module's keys).
pub fn generate_peer_keys() -> (tfhe::ClientKey, tfhe::ServerKey) {
    match peer_params() {
        PeerParams::Default => tfhe::generate_keys(ConfigBuilder::default()),
        PeerParams::Ks32 => tfhe::generate_keys(ConfigBuilder::with_custom_parameters(
            tfhe::shortint::parameters::aliases::PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128,
        )),
    }
}

/// The TFHE-rs keys of this process (generated on first use).
fn keys() -> &'static (tfhe::ClientKey, tfhe::ServerKey) {
    static KEYS: OnceLock<(tfhe::ClientKey, tfhe::ServerKey)> = OnceLock::new();
    KEYS.get_or_init(generate_peer_keys)
}

/// Generates (once per process) the TFHE-rs keys every timer uses; calling it first keeps
/// key generation out of the first measurement.
pub fn init_peer_keys() {
    let _ = keys();
}

/// The client key, with the server key installed on the calling thread.
fn client_key() -> &'static tfhe::ClientKey {
    let (ck, sk) = keys();
    tfhe::set_server_key(sk.clone());
    ck
}

/// Times of `runs` runs of one operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Samples {
    /// Median wall-clock time of one operation, in milliseconds.
    pub median_ms: f64,
    /// Fastest run, in milliseconds.
    pub min_ms: f64,
}

/// Runs `op` `runs` times, timing each run; `check` sees each run's index and result
/// outside the timed region.
fn measure<T, E>(
    runs: usize,
    mut op: impl FnMut() -> T,
    mut check: impl FnMut(usize, T) -> Result<(), E>,
) -> Result<Samples, E> {
    let mut times = Vec::with_capacity(runs);
    for run in 0..runs {
        let t = Instant::now();
        let r = op();
        times.push(crate::timing::ms_since(t));
        check(run, r)?;
    }
    let min_ms = times.iter().copied().fold(f64::INFINITY, f64::min);
    Ok(Samples {
        median_ms: crate::timing::median(times),
        min_ms,
    })
}
