//! Timing of TFHE-rs `FheUint8` byte operations, the baseline of encint's byte processor.
//!
//! Same conventions as the other timers (see [`super`]); every operation is
//! encrypted-by-encrypted and every result is decrypted and checked against plain `u8`
//! arithmetic.

use rand::Rng;
use tfhe::prelude::*;
use tfhe::{FheBool, FheUint8};

use encint::Op;

use super::{check_runs, client_key, measure, PeerError};

/// The `FheUint8` operations timed here, both operands encrypted, in the order the tests
/// time them: `+ - *` wrapping, `/ %` (the divisor drawn nonzero), `min`, `max`, `==`, `<`,
/// `<<` and `rotate_left` by an encrypted amount ([`Op::ShlVar`], [`Op::RotlVar`]: TFHE-rs'
/// barrel shifter reads only the low `log2(8) = 3` bits of the amount, i.e. the amount
/// modulo 8), and `&`.
#[cfg_attr(not(test), allow(dead_code))]
pub const PEER8_OPS: [Op; 12] = [
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::Div,
    Op::Rem,
    Op::Min,
    Op::Max,
    Op::EQ,
    Op::LT,
    Op::ShlVar,
    Op::RotlVar,
    Op::And,
];

/// The plain `u8` result of `op` on `a` and `b` (comparisons give 0 or 1):
/// [`PeerError::Unsupported`] for an operation not in [`PEER8_OPS`] or a division by zero
/// (the timer draws nonzero divisors).
pub fn eval8(op: Op, a: u8, b: u8) -> Result<u8, PeerError> {
    let zero = || PeerError::Unsupported(format!("{op}: division by zero"));
    Ok(match op {
        Op::Add => a.wrapping_add(b),
        Op::Sub => a.wrapping_sub(b),
        Op::Mul => a.wrapping_mul(b),
        Op::Div => a.checked_div(b).ok_or_else(zero)?,
        Op::Rem => a.checked_rem(b).ok_or_else(zero)?,
        Op::Min => a.min(b),
        Op::Max => a.max(b),
        Op::EQ => u8::from(a == b),
        Op::LT => u8::from(a < b),
        Op::ShlVar => a.wrapping_shl(u32::from(b)),
        Op::RotlVar => a.rotate_left(u32::from(b)),
        Op::And => a & b,
        _ => return Err(PeerError::unsupported(op, "FheUint8")),
    })
}

/// Result of [`time_peer8`].
#[derive(Clone, Debug, PartialEq)]
pub struct Peer8Timing {
    /// The operation timed.
    pub op: Op,
    /// Median wall-clock time of one operation, in milliseconds.
    pub median_ms: f64,
    /// Fastest run, in milliseconds.
    pub min_ms: f64,
    /// Number of timed runs.
    pub runs: usize,
    /// Threads of the rayon pool the operation ran on.
    pub threads: usize,
}

enum Out {
    Int(FheUint8),
    Bool(FheBool),
}

fn run(op: Op, a: &FheUint8, b: &FheUint8) -> Result<Out, PeerError> {
    Ok(match op {
        Op::Add => Out::Int(a + b),
        Op::Sub => Out::Int(a - b),
        Op::Mul => Out::Int(a * b),
        Op::Div => Out::Int(a / b),
        Op::Rem => Out::Int(a % b),
        Op::Min => Out::Int(a.min(b)),
        Op::Max => Out::Int(a.max(b)),
        Op::EQ => Out::Bool(a.eq(b)),
        Op::LT => Out::Bool(a.lt(b)),
        Op::ShlVar => Out::Int(a << b),
        Op::RotlVar => Out::Int(a.rotate_left(b)),
        Op::And => Out::Int(a & b),
        _ => return Err(PeerError::unsupported(op, "FheUint8")),
    })
}

/// Time `op` on random `FheUint8` operands, `runs` times, on the current rayon pool.
///
/// The divisor of [`Op::Div`] / [`Op::Rem`] is drawn from `1..=255`; every run's result is
/// decrypted (outside the timed region) and compared with [`eval8`]. Keys are generated on
/// the first call (several seconds; see [`super::init_peer_keys`]).
///
/// Errors: [`PeerError::Unsupported`] for an operation not in [`PEER8_OPS`];
/// [`PeerError::Failed`] for `runs == 0`, an encryption failure or a wrong result.
pub fn time_peer8(op: Op, runs: usize) -> Result<Peer8Timing, PeerError> {
    check_runs(runs)?;
    // Refuses an operation the timer has no counterpart for before any key is made.
    eval8(op, 1, 1)?;
    let ck = client_key();
    let mut rng = rand::thread_rng();
    let a_c: u8 = rng.gen();
    let b_c: u8 = if matches!(op, Op::Div | Op::Rem) {
        rng.gen_range(1..=255)
    } else if matches!(op, Op::ShlVar | Op::RotlVar) {
        // Amounts below 8: TFHE-rs' shift paths disagree on larger amounts (one reads the
        // amount mod 8, another returns 0, as its documentation says), and below 8 every
        // definition, encint's included, agrees.
        rng.gen_range(0..8)
    } else {
        rng.gen()
    };
    let want = eval8(op, a_c, b_c)?;
    let a = FheUint8::try_encrypt(a_c, ck).map_err(|e| PeerError::Failed(e.to_string()))?;
    let b = FheUint8::try_encrypt(b_c, ck).map_err(|e| PeerError::Failed(e.to_string()))?;
    let samples = measure(
        runs,
        || run(op, &a, &b),
        |_, out| {
            let got: u8 = match out? {
                Out::Int(x) => x.decrypt(ck),
                Out::Bool(x) => {
                    let v: bool = x.decrypt(ck);
                    u8::from(v)
                }
            };
            if got == want {
                return Ok(());
            }
            Err(PeerError::Failed(format!(
                "FheUint8 {op}: decrypted {got}, expected {want} (a = {a_c}, b = {b_c})"
            )))
        },
    )?;
    Ok(Peer8Timing {
        op,
        median_ms: samples.median_ms,
        min_ms: samples.min_ms,
        runs,
        threads: rayon::current_num_threads(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_results_follow_tfhe_rs() {
        assert_eq!(eval8(Op::Add, 200, 100), Ok(44));
        assert_eq!(eval8(Op::Sub, 3, 5), Ok(254));
        assert_eq!(eval8(Op::LT, 3, 5), Ok(1));
        assert_eq!(eval8(Op::ShlVar, 0b1001_0011, 10), Ok(0b0100_1100));
        assert_eq!(eval8(Op::RotlVar, 0b1001_0011, 9), Ok(0b0010_0111));
        assert!(matches!(
            eval8(Op::Div, 7, 0),
            Err(PeerError::Unsupported(_))
        ));
        // Not a byte operation of the peer: refused, not timed.
        for op in [Op::Xor, Op::ScalarMul(3), Op::Signum, Op::Round(2)] {
            assert!(
                matches!(eval8(op, 7, 1), Err(PeerError::Unsupported(_))),
                "{op}"
            );
            assert!(
                matches!(time_peer8(op, 1), Err(PeerError::Unsupported(_))),
                "{op}"
            );
        }
    }

    #[test]
    fn every_op_once_on_two_threads() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| {
            super::super::init_peer_keys();
            for op in PEER8_OPS {
                let t = time_peer8(op, 1).unwrap_or_else(|e| panic!("{op}: {e}"));
                assert_eq!((t.op, t.runs, t.threads), (op, 1, 2));
                assert!(t.median_ms > 0.0 && t.min_ms <= t.median_ms);
            }
            assert!(matches!(time_peer8(Op::Add, 0), Err(PeerError::Failed(_))));
        });
    }
}
