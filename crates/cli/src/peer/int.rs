//! TFHE-rs' signed `FheInt8/16/32`: the peer of `encint bench`'s digit rows.

use rand::Rng;
use tfhe::prelude::*;
use tfhe::{FheBool, FheInt16, FheInt32, FheInt8};

use encint::Op;

use super::{check_runs, client_key, measure, PeerError};

pub use super::init_peer_keys;

/// Result of [`time_peer`].
#[derive(Clone, Debug, PartialEq)]
pub struct PeerTiming {
    /// The operation timed.
    pub op: Op,
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
    ($fhe:ty, $clear:ty, $name:expr, $op:expr, $runs:expr) => {{
        let ck = client_key();
        let mut rng = rand::thread_rng();
        let a_c: $clear = rng.gen();
        let b_c: $clear = rng.gen();
        // The constant of a product by a clear value, truncated to the width.
        let s_c: $clear = match $op {
            Op::ScalarMul(k) => k as $clear,
            _ => 0,
        };
        let a = <$fhe>::try_encrypt(a_c, ck).map_err(|e| PeerError::Failed(e.to_string()))?;
        let b = <$fhe>::try_encrypt(b_c, ck).map_err(|e| PeerError::Failed(e.to_string()))?;
        // The first run's result, decrypted, against plain (wrapping) arithmetic.
        let check = |run: usize, got: i64, want: i64| -> Result<(), PeerError> {
            if run > 0 || got == want {
                return Ok(());
            }
            Err(PeerError::Failed(format!(
                "{} on {}: decrypted {got}, expected {want} (a = {a_c}, b = {b_c}, c = {s_c})",
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
            Op::Add => measure($runs, || &a + &b, int(a_c.wrapping_add(b_c)))?,
            Op::Sub => measure($runs, || &a - &b, int(a_c.wrapping_sub(b_c)))?,
            Op::Mul => measure($runs, || &a * &b, int(a_c.wrapping_mul(b_c)))?,
            Op::ScalarMul(_) => measure($runs, || &a * s_c, int(a_c.wrapping_mul(s_c)))?,
            Op::Square => measure($runs, || &a * &a, int(a_c.wrapping_mul(a_c)))?,
            Op::Max => measure($runs, || a.max(&b), int(a_c.max(b_c)))?,
            Op::Signum => measure(
                $runs,
                || {
                    let pos = <$fhe>::cast_from(a.gt(0 as $clear));
                    let neg = <$fhe>::cast_from(a.lt(0 as $clear));
                    &pos - &neg
                },
                int(a_c.signum()),
            )?,
            Op::LT => measure($runs, || a.lt(&b), boolean(a_c < b_c))?,
            Op::GE => measure($runs, || a.ge(&b), boolean(a_c >= b_c))?,
            Op::EQ => measure($runs, || a.eq(&b), boolean(a_c == b_c))?,
            op => return Err(unsupported(op)),
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

/// The refusal of an operation the signed timer has no TFHE-rs counterpart for.
fn unsupported(op: Op) -> PeerError {
    match op {
        Op::Round(_) => PeerError::Unsupported(
            "round has no TFHE-rs equivalent (no encrypted rounding primitive)".into(),
        ),
        op => PeerError::unsupported(op, "FheInt"),
    }
}

/// Time `op` on `bits`-bit signed integers (`FheInt8`, `FheInt16`, `FheInt32`) with the
/// TFHE-rs high-level API, `runs` times, on the current rayon pool: `+ - *` (wrapping),
/// [`Op::ScalarMul`] (its constant truncated to the width), [`Op::Square`] (as `a * a`:
/// TFHE-rs has no square), [`Op::Max`], [`Op::Signum`] (as `cast(a > 0) - cast(a < 0)`:
/// TFHE-rs has no signum) and the comparisons [`Op::LT`], [`Op::GE`], [`Op::EQ`].
///
/// Inputs are random; the result of the first run is decrypted and checked against plain
/// (wrapping) arithmetic, so the timing is of a correct computation. Keys are generated on
/// the first call (several seconds; see [`init_peer_keys`]).
///
/// Errors: [`PeerError::Unsupported`] for another width or operation ([`Op::Round`] has no
/// TFHE-rs equivalent); [`PeerError::Failed`] for `runs == 0` or a wrong decrypted result.
pub fn time_peer(op: Op, bits: u32, runs: usize) -> Result<PeerTiming, PeerError> {
    check_runs(runs)?;
    if !matches!(bits, 8 | 16 | 32) {
        return Err(PeerError::Unsupported(format!(
            "unsupported width {bits} (8, 16 or 32)"
        )));
    }
    match bits {
        8 => time_width!(FheInt8, i8, "FheInt8", op, runs),
        16 => time_width!(FheInt16, i16, "FheInt16", op, runs),
        _ => time_width!(FheInt32, i32, "FheInt32", op, runs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_is_checked_against_plain_arithmetic_on_8_bits() {
        for op in [
            Op::Add,
            Op::Sub,
            Op::Mul,
            Op::ScalarMul(-5),
            Op::Square,
            Op::Max,
            Op::Signum,
            Op::LT,
            Op::GE,
            Op::EQ,
        ] {
            let t = time_peer(op, 8, 1).unwrap_or_else(|e| panic!("{op}: {e}"));
            assert_eq!((t.op, t.bits, t.runs, t.type_name), (op, 8, 1, "FheInt8"));
            assert!(t.median_ms > 0.0 && t.min_ms <= t.median_ms);
        }
    }

    #[test]
    fn bad_requests_are_errors() {
        for op in [
            Op::Round(5),
            Op::Div,
            Op::Xor,
            Op::Cast(encint::typed::IntType::BOOL),
        ] {
            assert!(
                matches!(time_peer(op, 8, 1), Err(PeerError::Unsupported(_))),
                "{op}"
            );
        }
        assert!(matches!(
            time_peer(Op::Add, 12, 1),
            Err(PeerError::Unsupported(_))
        ));
        assert!(matches!(
            time_peer(Op::Add, 8, 0),
            Err(PeerError::Failed(_))
        ));
    }
}
