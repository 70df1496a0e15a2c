//! Timing of the TFHE-rs high-level integer API, the baseline the encint circuits are compared
//! with. It lives in the binary, not in a library: it caches keys process-wide and needs
//! tfhe's `integer` feature, which no library crate of encint does.
//!
//! Keys are generated once per process and cached, on the set [`PeerParams`] names (the
//! benchmarks' `--peer-params`): by default `ConfigBuilder::default()`, in TFHE-rs 1.8.2 (CPU)
//! `PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128`, what a TFHE-rs user gets, and the set
//! [`encint::KS64_PARAMETERS`] is read from; or `PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128`,
//! the set of encint's default ([`encint::DEFAULT_PARAMETERS`]). On the latter one TFHE-rs
//! bootstrap costs about what one [`encint_tfhe::ServerKey::bootstrap`] does: the comparison is
//! of circuits, not of parameters (`examples/pbs_vs_tfhe.rs` times the four). TFHE-rs
//! keeps its server key in a thread-local; [`time_peer`] installs it on the calling thread, and
//! TFHE-rs' own rayon parallelism runs on the current rayon pool, so the caller controls the
//! thread count with `rayon::ThreadPool::install`.

use std::sync::OnceLock;
use std::time::Instant;

use rand::Rng;
use tfhe::prelude::*;
use tfhe::{ConfigBuilder, FheBool, FheInt16, FheInt32, FheInt8};

/// A TFHE-rs high-level API operation failed or returned a wrong result, or the request
/// (width, operation, run count) is not one the peer can time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerError(pub String);

impl std::fmt::Display for PeerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "peer benchmark: {}", self.0)
    }
}

impl std::error::Error for PeerError {}

/// An operation of the peer (TFHE-rs) integer API (the comparisons are timed by the tests
/// only: `encint bench` has no comparison rows yet).
#[cfg_attr(not(test), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PeerOp {
    /// `a + b` (wrapping).
    Add,
    /// `a - b` (wrapping).
    Sub,
    /// `a * b` (wrapping, as TFHE-rs does).
    Mul,
    /// `a * c` for a clear constant `c` (wrapping; `c` from the `scalar` argument, default 3).
    ScalarMul,
    /// `a * a` (wrapping; TFHE-rs has no dedicated square, this is a multiplication).
    Square,
    /// `max(a, b)`.
    Max,
    /// `signum(a) ∈ {-1, 0, 1}`, computed as `cast(a > 0) - cast(a < 0)` (two scalar
    /// comparisons, two casts and a subtraction: TFHE-rs has no signum).
    Signum,
    /// Rounding (encint's `round`): TFHE-rs has no equivalent; [`time_peer`] returns
    /// [`PeerError`].
    Round,
    /// `a < b`.
    Lt,
    /// `a >= b`.
    Ge,
    /// `a == b`.
    Eq,
}

impl PeerOp {
    /// All operations, in declaration order (the tests time every one).
    #[cfg_attr(not(test), allow(dead_code))]
    pub const ALL: [PeerOp; 11] = [
        PeerOp::Add,
        PeerOp::Sub,
        PeerOp::Mul,
        PeerOp::ScalarMul,
        PeerOp::Square,
        PeerOp::Max,
        PeerOp::Signum,
        PeerOp::Round,
        PeerOp::Lt,
        PeerOp::Ge,
        PeerOp::Eq,
    ];
}

/// Result of [`time_peer`].
#[derive(Clone, Debug, PartialEq)]
pub struct PeerTiming {
    /// The operation timed.
    pub op: PeerOp,
    /// Integer width in bits (8, 16 or 32; signed `FheInt*`).
    pub bits: u32,
    /// Median wall-clock time of one operation, in milliseconds.
    pub median_ms: f64,
    /// Fastest run, in milliseconds.
    pub min_ms: f64,
    /// Number of timed runs.
    pub runs: usize,
    /// Threads of the rayon pool the operation ran on.
    pub threads: usize,
    /// The TFHE-rs type used (e.g. `"FheInt16"`).
    pub type_name: &'static str,
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
pub fn print_params(ours: &encint_tfhe::DigitParameters) {
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

fn peer_keys() -> &'static (tfhe::ClientKey, tfhe::ServerKey) {
    static KEYS: OnceLock<(tfhe::ClientKey, tfhe::ServerKey)> = OnceLock::new();
    KEYS.get_or_init(generate_peer_keys)
}

/// Generate (once per process) the TFHE-rs high-level keys used by [`time_peer`]; calling it
/// first keeps key generation out of the first measurement.
pub fn init_peer_keys() {
    let _ = peer_keys();
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

macro_rules! time_width {
    ($fhe:ty, $clear:ty, $name:expr, $op:expr, $scalar:expr, $runs:expr) => {{
        let (ck, _) = peer_keys();
        let mut rng = rand::thread_rng();
        let a_c: $clear = rng.gen();
        let b_c: $clear = rng.gen();
        let s_c: $clear = $scalar as $clear;
        let a = <$fhe>::try_encrypt(a_c, ck).map_err(|e| PeerError(e.to_string()))?;
        let b = <$fhe>::try_encrypt(b_c, ck).map_err(|e| PeerError(e.to_string()))?;
        let dec = |x: &$fhe| -> i64 {
            let v: $clear = x.decrypt(ck);
            v as i64
        };
        let dec_bool = |x: &FheBool| -> i64 {
            let v: bool = x.decrypt(ck);
            v as i64
        };
        let check = |run: usize, got: &dyn Fn() -> i64, want: i64| -> Result<(), PeerError> {
            if run > 0 {
                return Ok(());
            }
            let got = got();
            if got == want {
                Ok(())
            } else {
                Err(PeerError(format!(
                    "{:?} on {}: decrypted {got}, expected {want} (a = {a_c}, b = {b_c}, c = {s_c})",
                    $op, $name
                )))
            }
        };
        let mut times = Vec::with_capacity($runs);
        for run in 0..$runs {
            let t = Instant::now();
            match $op {
                PeerOp::Add => {
                    let r = &a + &b;
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    check(run, &|| dec(&r), a_c.wrapping_add(b_c) as i64)?;
                }
                PeerOp::Sub => {
                    let r = &a - &b;
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    check(run, &|| dec(&r), a_c.wrapping_sub(b_c) as i64)?;
                }
                PeerOp::Mul => {
                    let r = &a * &b;
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    check(run, &|| dec(&r), a_c.wrapping_mul(b_c) as i64)?;
                }
                PeerOp::ScalarMul => {
                    let r = &a * s_c;
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    check(run, &|| dec(&r), a_c.wrapping_mul(s_c) as i64)?;
                }
                PeerOp::Square => {
                    let r = &a * &a;
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    check(run, &|| dec(&r), a_c.wrapping_mul(a_c) as i64)?;
                }
                PeerOp::Max => {
                    let r = a.max(&b);
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    check(run, &|| dec(&r), a_c.max(b_c) as i64)?;
                }
                PeerOp::Signum => {
                    let pos = <$fhe>::cast_from(a.gt(0 as $clear));
                    let neg = <$fhe>::cast_from(a.lt(0 as $clear));
                    let r = &pos - &neg;
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    check(run, &|| dec(&r), a_c.signum() as i64)?;
                }
                PeerOp::Round => {
                    return Err(PeerError(
                        "round has no TFHE-rs equivalent (no encrypted rounding primitive)".into(),
                    ));
                }
                PeerOp::Lt => {
                    let r = a.lt(&b);
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    check(run, &|| dec_bool(&r), (a_c < b_c) as i64)?;
                }
                PeerOp::Ge => {
                    let r = a.ge(&b);
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    check(run, &|| dec_bool(&r), (a_c >= b_c) as i64)?;
                }
                PeerOp::Eq => {
                    let r = a.eq(&b);
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    check(run, &|| dec_bool(&r), (a_c == b_c) as i64)?;
                }
            }
        }
        Ok(PeerTiming {
            op: $op,
            bits: <$clear>::BITS,
            median_ms: median(&mut times),
            min_ms: times.iter().copied().fold(f64::INFINITY, f64::min),
            runs: $runs,
            threads: rayon::current_num_threads(),
            type_name: $name,
        })
    }};
}

/// Time `op` on `bits`-bit signed integers (`FheInt8`, `FheInt16`, `FheInt32`) with the
/// TFHE-rs high-level API, `runs` times, on the current rayon pool.
///
/// Inputs are random; the result of the first run is decrypted and checked against plain
/// (wrapping) arithmetic, so the timing is of a correct computation. `scalar` is the constant of
/// [`PeerOp::ScalarMul`] (default 3, truncated to the width). Keys are generated on the first
/// call (several seconds; see [`init_peer_keys`]).
///
/// Errors: [`PeerError`] for an unsupported width, `runs == 0`, [`PeerOp::Round`] (no
/// TFHE-rs equivalent) or a wrong decrypted result.
pub fn time_peer(
    op: PeerOp,
    bits: u32,
    scalar: Option<i64>,
    runs: usize,
) -> Result<PeerTiming, PeerError> {
    if runs == 0 {
        return Err(PeerError("runs must be at least 1".into()));
    }
    if !matches!(bits, 8 | 16 | 32) {
        return Err(PeerError(format!("unsupported width {bits} (8, 16 or 32)")));
    }
    if op == PeerOp::Round {
        return Err(PeerError(
            "round has no TFHE-rs equivalent (no encrypted rounding primitive)".into(),
        ));
    }
    let (_, sk) = peer_keys();
    tfhe::set_server_key(sk.clone());
    let scalar = scalar.unwrap_or(3);
    match bits {
        8 => time_width!(FheInt8, i8, "FheInt8", op, scalar, runs),
        16 => time_width!(FheInt16, i16, "FheInt16", op, scalar, runs),
        32 => time_width!(FheInt32, i32, "FheInt32", op, scalar, runs),
        _ => Err(PeerError(format!("unsupported width {bits} (8, 16 or 32)"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_is_checked_against_plain_arithmetic_on_8_bits() {
        for op in PeerOp::ALL {
            let r = time_peer(op, 8, Some(-5), 1);
            if op == PeerOp::Round {
                assert!(matches!(r, Err(PeerError(_))));
            } else {
                let t = r.unwrap_or_else(|e| panic!("{op:?}: {e}"));
                assert_eq!((t.op, t.bits, t.runs, t.type_name), (op, 8, 1, "FheInt8"));
                assert!(t.median_ms > 0.0 && t.min_ms <= t.median_ms);
            }
        }
    }

    #[test]
    fn bad_requests_are_errors() {
        assert!(matches!(
            time_peer(PeerOp::Add, 12, None, 1),
            Err(PeerError(_))
        ));
        assert!(matches!(
            time_peer(PeerOp::Add, 8, None, 0),
            Err(PeerError(_))
        ));
    }
}
