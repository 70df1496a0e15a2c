//! TFHE-rs' signed `FheInt8/16/32`: the peer of `encint bench`'s digit rows.

use rand::Rng;
use tfhe::prelude::*;
use tfhe::{FheBool, FheInt16, FheInt32, FheInt8};

use super::{client_key, measure, PeerError};

pub use super::init_peer_keys;

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

macro_rules! time_width {
    ($fhe:ty, $clear:ty, $name:expr, $op:expr, $scalar:expr, $runs:expr) => {{
        let ck = client_key();
        let mut rng = rand::thread_rng();
        let a_c: $clear = rng.gen();
        let b_c: $clear = rng.gen();
        let s_c: $clear = $scalar as $clear;
        let a = <$fhe>::try_encrypt(a_c, ck).map_err(|e| PeerError(e.to_string()))?;
        let b = <$fhe>::try_encrypt(b_c, ck).map_err(|e| PeerError(e.to_string()))?;
        // The first run's result, decrypted, against plain (wrapping) arithmetic.
        let check = |run: usize, got: i64, want: i64| -> Result<(), PeerError> {
            if run > 0 || got == want {
                return Ok(());
            }
            Err(PeerError(format!(
                "{:?} on {}: decrypted {got}, expected {want} (a = {a_c}, b = {b_c}, c = {s_c})",
                $op, $name
            )))
        };
        let int = |want: $clear| {
            move |run: usize, r: $fhe| {
                let v: $clear = if run == 0 { r.decrypt(ck) } else { want };
                check(run, v as i64, want as i64)
            }
        };
        let boolean = |want: bool| {
            move |run: usize, r: FheBool| {
                let v: bool = if run == 0 { r.decrypt(ck) } else { want };
                check(run, i64::from(v), i64::from(want))
            }
        };
        let samples = match $op {
            PeerOp::Add => measure($runs, || &a + &b, int(a_c.wrapping_add(b_c)))?,
            PeerOp::Sub => measure($runs, || &a - &b, int(a_c.wrapping_sub(b_c)))?,
            PeerOp::Mul => measure($runs, || &a * &b, int(a_c.wrapping_mul(b_c)))?,
            PeerOp::ScalarMul => measure($runs, || &a * s_c, int(a_c.wrapping_mul(s_c)))?,
            PeerOp::Square => measure($runs, || &a * &a, int(a_c.wrapping_mul(a_c)))?,
            PeerOp::Max => measure($runs, || a.max(&b), int(a_c.max(b_c)))?,
            PeerOp::Signum => measure(
                $runs,
                || {
                    let pos = <$fhe>::cast_from(a.gt(0 as $clear));
                    let neg = <$fhe>::cast_from(a.lt(0 as $clear));
                    &pos - &neg
                },
                int(a_c.signum()),
            )?,
            PeerOp::Round => return Err(no_round()),
            PeerOp::Lt => measure($runs, || a.lt(&b), boolean(a_c < b_c))?,
            PeerOp::Ge => measure($runs, || a.ge(&b), boolean(a_c >= b_c))?,
            PeerOp::Eq => measure($runs, || a.eq(&b), boolean(a_c == b_c))?,
        };
        Ok(PeerTiming {
            op: $op,
            bits: <$clear>::BITS,
            median_ms: samples.median_ms,
            min_ms: samples.min_ms,
            runs: $runs,
            threads: rayon::current_num_threads(),
            type_name: $name,
        })
    }};
}

fn no_round() -> PeerError {
    PeerError("round has no TFHE-rs equivalent (no encrypted rounding primitive)".into())
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
        return Err(no_round());
    }
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
