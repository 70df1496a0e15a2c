//! Timing of TFHE-rs `FheUint8` byte operations, the baseline of encint's byte processor.
//!
//! Same conventions as the other timers (see [`super`]); every operation is
//! encrypted-by-encrypted and every result is decrypted and checked against plain `u8`
//! arithmetic.

use rand::Rng;
use tfhe::prelude::*;
use tfhe::{FheBool, FheUint8};

use super::{client_key, measure, PeerError};

/// A binary `FheUint8` operation, both operands encrypted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Peer8Op {
    /// `a + b` (wrapping).
    Add,
    /// `a - b` (wrapping).
    Sub,
    /// `a * b` (wrapping).
    Mul,
    /// `a / b` (the divisor is drawn nonzero).
    Div,
    /// `a % b` (the divisor is drawn nonzero).
    Rem,
    /// `min(a, b)`.
    Min,
    /// `max(a, b)`.
    Max,
    /// `a == b`.
    Eq,
    /// `a < b`.
    Lt,
    /// `a << b` for an encrypted amount `b`; TFHE-rs' barrel shifter reads only the low
    /// `log2(8) = 3` bits of the amount, i.e. `a.wrapping_shl(b)` (shift by `b mod 8`).
    Shl,
    /// `a.rotate_left(b)` for an encrypted amount `b` (rotation by `b mod 8`).
    RotateLeft,
    /// `a & b`.
    BitAnd,
}

impl Peer8Op {
    /// All operations, in declaration order (the tests time every one).
    #[cfg_attr(not(test), allow(dead_code))]
    pub const ALL: [Peer8Op; 12] = [
        Peer8Op::Add,
        Peer8Op::Sub,
        Peer8Op::Mul,
        Peer8Op::Div,
        Peer8Op::Rem,
        Peer8Op::Min,
        Peer8Op::Max,
        Peer8Op::Eq,
        Peer8Op::Lt,
        Peer8Op::Shl,
        Peer8Op::RotateLeft,
        Peer8Op::BitAnd,
    ];

    /// Lower-case name (`"add"`, …, `"rotate_left"`, `"bitand"`).
    pub fn name(&self) -> &'static str {
        match self {
            Peer8Op::Add => "add",
            Peer8Op::Sub => "sub",
            Peer8Op::Mul => "mul",
            Peer8Op::Div => "div",
            Peer8Op::Rem => "rem",
            Peer8Op::Min => "min",
            Peer8Op::Max => "max",
            Peer8Op::Eq => "eq",
            Peer8Op::Lt => "lt",
            Peer8Op::Shl => "shl",
            Peer8Op::RotateLeft => "rotate_left",
            Peer8Op::BitAnd => "bitand",
        }
    }

    /// The plain `u8` result (comparisons give 0 or 1). `b` must be nonzero for
    /// [`Peer8Op::Div`] and [`Peer8Op::Rem`] (`None` otherwise).
    pub fn eval(&self, a: u8, b: u8) -> Option<u8> {
        Some(match self {
            Peer8Op::Add => a.wrapping_add(b),
            Peer8Op::Sub => a.wrapping_sub(b),
            Peer8Op::Mul => a.wrapping_mul(b),
            Peer8Op::Div => a.checked_div(b)?,
            Peer8Op::Rem => a.checked_rem(b)?,
            Peer8Op::Min => a.min(b),
            Peer8Op::Max => a.max(b),
            Peer8Op::Eq => u8::from(a == b),
            Peer8Op::Lt => u8::from(a < b),
            Peer8Op::Shl => a.wrapping_shl(u32::from(b)),
            Peer8Op::RotateLeft => a.rotate_left(u32::from(b)),
            Peer8Op::BitAnd => a & b,
        })
    }
}

/// Result of [`time_peer8`].
#[derive(Clone, Debug, PartialEq)]
pub struct Peer8Timing {
    /// The operation timed.
    pub op: Peer8Op,
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

fn run(op: Peer8Op, a: &FheUint8, b: &FheUint8) -> Out {
    match op {
        Peer8Op::Add => Out::Int(a + b),
        Peer8Op::Sub => Out::Int(a - b),
        Peer8Op::Mul => Out::Int(a * b),
        Peer8Op::Div => Out::Int(a / b),
        Peer8Op::Rem => Out::Int(a % b),
        Peer8Op::Min => Out::Int(a.min(b)),
        Peer8Op::Max => Out::Int(a.max(b)),
        Peer8Op::Eq => Out::Bool(a.eq(b)),
        Peer8Op::Lt => Out::Bool(a.lt(b)),
        Peer8Op::Shl => Out::Int(a << b),
        Peer8Op::RotateLeft => Out::Int(a.rotate_left(b)),
        Peer8Op::BitAnd => Out::Int(a & b),
    }
}

/// Time `op` on random `FheUint8` operands, `runs` times, on the current rayon pool.
///
/// The divisor of [`Peer8Op::Div`] / [`Peer8Op::Rem`] is drawn from `1..=255`; every run's
/// result is decrypted (outside the timed region) and compared with [`Peer8Op::eval`]. Keys
/// are generated on the first call (several seconds; see [`super::init_peer_keys`]).
///
/// Errors: [`PeerError`] for `runs == 0`, an encryption failure or a wrong result.
pub fn time_peer8(op: Peer8Op, runs: usize) -> Result<Peer8Timing, PeerError> {
    if runs == 0 {
        return Err(PeerError("runs must be at least 1".into()));
    }
    let ck = client_key();
    let mut rng = rand::thread_rng();
    let a_c: u8 = rng.gen();
    let b_c: u8 = if matches!(op, Peer8Op::Div | Peer8Op::Rem) {
        rng.gen_range(1..=255)
    } else if matches!(op, Peer8Op::Shl | Peer8Op::RotateLeft) {
        // Amounts below 8: TFHE-rs' shift paths disagree on larger amounts (one reads the
        // amount mod 8, another returns 0, as its documentation says), and below 8 every
        // definition, encint's included, agrees.
        rng.gen_range(0..8)
    } else {
        rng.gen()
    };
    let want = op
        .eval(a_c, b_c)
        .ok_or_else(|| PeerError("division by zero".into()))?;
    let a = FheUint8::try_encrypt(a_c, ck).map_err(|e| PeerError(e.to_string()))?;
    let b = FheUint8::try_encrypt(b_c, ck).map_err(|e| PeerError(e.to_string()))?;
    let samples = measure(
        runs,
        || run(op, &a, &b),
        |_, out| {
            let got: u8 = match out {
                Out::Int(x) => x.decrypt(ck),
                Out::Bool(x) => {
                    let v: bool = x.decrypt(ck);
                    u8::from(v)
                }
            };
            if got == want {
                return Ok(());
            }
            Err(PeerError(format!(
                "FheUint8 {}: decrypted {got}, expected {want} (a = {a_c}, b = {b_c})",
                op.name()
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
    fn names_are_stable() {
        let names: Vec<&str> = Peer8Op::ALL.iter().map(|op| op.name()).collect();
        assert_eq!(
            names,
            [
                "add",
                "sub",
                "mul",
                "div",
                "rem",
                "min",
                "max",
                "eq",
                "lt",
                "shl",
                "rotate_left",
                "bitand"
            ]
        );
        assert_eq!(Peer8Op::Shl.eval(0b1001_0011, 10), Some(0b0100_1100));
        assert_eq!(Peer8Op::RotateLeft.eval(0b1001_0011, 9), Some(0b0010_0111));
        assert_eq!(Peer8Op::Div.eval(7, 0), None);
    }

    #[test]
    fn every_op_once_on_two_threads() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| {
            super::super::init_peer_keys();
            for op in Peer8Op::ALL {
                let t = time_peer8(op, 1).unwrap_or_else(|e| panic!("{}: {e}", op.name()));
                assert_eq!((t.op, t.runs, t.threads), (op, 1, 2));
                assert!(t.median_ms > 0.0 && t.min_ms <= t.median_ms);
            }
            assert!(time_peer8(Peer8Op::Add, 0).is_err());
        });
    }
}
