//! TFHE-rs `FheInt` / `FheUint` (8, 16, 32, 64 bits) timings of the typed operations, for
//! `encint bench --typed` (the peer, same process, same rayon pool).
//!
//! The peer computes on the same clear inputs as ours; its decrypted result is returned so
//! the caller checks both sides against each other and against plain arithmetic.

use encint::typed::{IntType, Op};
use tfhe::prelude::*;
use tfhe::{
    FheBool, FheInt16, FheInt32, FheInt64, FheInt8, FheUint16, FheUint32, FheUint64, FheUint8,
};

use super::{check_runs, client_key, measure, PeerError};

/// Clear inputs of one timed operation: `a`, `b` of the type, a shift/rotation amount
/// `s` (below the width), a condition `c`.
#[derive(Debug, Clone, Copy)]
pub struct Inputs {
    /// First operand.
    pub a: i128,
    /// Second operand (non-zero: divisions time the non-degenerate case).
    pub b: i128,
    /// Encrypted shift or rotation amount.
    pub s: u32,
    /// Select condition.
    pub c: bool,
}

/// Median time (ms) over `runs` and the decrypted result of the first run.
pub struct PeerResult {
    /// Median milliseconds.
    pub median_ms: f64,
    /// The peer's decrypted result (comparisons: 0 or 1).
    pub value: i128,
}

/// `$m!(TFHE-rs type, its clear type, the unsigned type and clear type of its width,
/// whether it is unsigned, $args...)` for the TFHE-rs type matching `ty` (8, 16, 32 or 64
/// bits), an error for another width.
macro_rules! per_type {
    ($ty:expr, $m:ident!($($args:tt)*)) => {
        match ($ty.bits, $ty.signed) {
            (8, true) => $m!(FheInt8, i8, FheUint8, u8, false, $($args)*),
            (16, true) => $m!(FheInt16, i16, FheUint16, u16, false, $($args)*),
            (32, true) => $m!(FheInt32, i32, FheUint32, u32, false, $($args)*),
            (64, true) => $m!(FheInt64, i64, FheUint64, u64, false, $($args)*),
            (8, false) => $m!(FheUint8, u8, FheUint8, u8, true, $($args)*),
            (16, false) => $m!(FheUint16, u16, FheUint16, u16, true, $($args)*),
            (32, false) => $m!(FheUint32, u32, FheUint32, u32, true, $($args)*),
            (64, false) => $m!(FheUint64, u64, FheUint64, u64, true, $($args)*),
            _ => Err(PeerError::Unsupported(format!(
                "TFHE-rs has no {} here (8, 16, 32, 64 bits)",
                $ty
            ))),
        }
    };
}

macro_rules! time_typed {
    ($fhe:ty, $clear:ty, $ufhe:ty, $uclear:ty, $unsigned:tt, $op:expr, $x:expr, $runs:expr) => {{
        let ck = client_key();
        let x: Inputs = $x;
        let a = <$fhe>::encrypt(x.a as $clear, ck);
        let b = <$fhe>::encrypt(x.b as $clear, ck);
        let s = <$ufhe>::encrypt(x.s as $uclear, ck);
        let c = FheBool::encrypt(x.c, ck);
        let mut value = None;
        // Times `$e` (a `$out`) and keeps its first result decrypted as a `$v`.
        macro_rules! timed {
            ($out:ty, $v:ty, $e:expr) => {{
                measure(
                    $runs,
                    || -> $out { $e },
                    |_, r: $out| -> Result<(), PeerError> {
                        let v: $v = r.decrypt(ck);
                        value.get_or_insert(v as i128);
                        Ok(())
                    },
                )?
            }};
        }
        macro_rules! int {
            ($e:expr) => {
                timed!($fhe, $clear, $e)
            };
        }
        macro_rules! boolean {
            ($e:expr) => {
                timed!(FheBool, bool, $e)
            };
        }
        macro_rules! count {
            ($e:expr) => {
                timed!(FheUint32, u32, $e)
            };
        }
        let samples = match $op {
            Op::Add => int!(&a + &b),
            Op::Sub => int!(&a - &b),
            Op::Neg => int!(-&a),
            Op::Mul => int!(&a * &b),
            Op::Square => int!(&a * &a),
            Op::ScalarMul(k) => int!(&a * (k as $clear)),
            Op::And => int!(&a & &b),
            Op::Or => int!(&a | &b),
            Op::Xor => int!(&a ^ &b),
            Op::Not => int!(!&a),
            Op::Shl(k) => int!(&a << k),
            Op::Shr(k) => int!(&a >> k),
            Op::Rotl(k) => int!((&a).rotate_left(k)),
            Op::Rotr(k) => int!((&a).rotate_right(k)),
            Op::ShlVar => int!(&a << &s),
            Op::ShrVar => int!(&a >> &s),
            Op::RotlVar => int!((&a).rotate_left(&s)),
            Op::RotrVar => int!((&a).rotate_right(&s)),
            Op::Select => int!(c.if_then_else(&a, &b)),
            Op::Min => int!(a.min(&b)),
            Op::Max => int!(a.max(&b)),
            Op::LT => boolean!(a.lt(&b)),
            Op::LE => boolean!(a.le(&b)),
            Op::GT => boolean!(a.gt(&b)),
            Op::GE => boolean!(a.ge(&b)),
            Op::EQ => boolean!(a.eq(&b)),
            Op::NE => boolean!(a.ne(&b)),
            Op::Div => int!(&a / &b),
            Op::Rem => int!(&a % &b),
            Op::DivScalar(k) => int!(&a / (k as $clear)),
            Op::RemScalar(k) => int!(&a % (k as $clear)),
            Op::CountOnes => count!(a.count_ones()),
            Op::CountZeros => count!(a.count_zeros()),
            Op::LeadingZeros => count!(a.leading_zeros()),
            Op::LeadingOnes => count!(a.leading_ones()),
            Op::TrailingZeros => count!(a.trailing_zeros()),
            Op::TrailingOnes => count!(a.trailing_ones()),
            // TFHE-rs' logarithm has a meaning for positive values only.
            Op::Ilog2 if x.a <= 0 => {
                return Err(PeerError::unsupported($op, "ilog2 of a value <= 0"))
            }
            Op::Ilog2 => count!(a.ilog2()),
            Op::ReverseBits => int!(a.reverse_bits()),
            op => return Err(PeerError::unsupported(op, "typed FheInt/FheUint")),
        };
        Ok(PeerResult {
            median_ms: samples.median_ms,
            value: value.ok_or_else(|| PeerError::Failed("no run".into()))?,
        })
    }};
}

/// Times `op` on TFHE-rs' type matching `ty` (`FheInt*` signed, `FheUint*` unsigned;
/// 8, 16, 32 or 64 bits; shift amounts as `FheUint*` of the same width) `runs` times on
/// the current rayon pool.
///
/// Errors: [`PeerError::Unsupported`] for an operation without a TFHE-rs counterpart here
/// (casts, the exact integers' operations, `abs`, flooring division) or another type;
/// [`PeerError::Failed`] for `runs == 0`.
pub fn time_typed_peer(
    op: Op,
    ty: IntType,
    x: Inputs,
    runs: usize,
) -> Result<PeerResult, PeerError> {
    check_runs(runs)?;
    per_type!(ty, time_typed!(op, x, runs))
}

/// Median time (ms) over `runs` and the two decrypted results of the first run (a flag as
/// 0 or 1).
pub struct PeerPair {
    /// Median milliseconds.
    pub median_ms: f64,
    /// The peer's decrypted results.
    pub values: (i128, i128),
}

macro_rules! time_pair {
    ($fhe:ty, $clear:ty, $ufhe:ty, $uclear:ty, $matching:tt, $name:expr, $x:expr, $table:expr, $runs:expr) => {{
        let ck = client_key();
        let x: Inputs = $x;
        let a = <$fhe>::encrypt(x.a as $clear, ck);
        let b = <$fhe>::encrypt(x.b as $clear, ck);
        let mut values = None;
        // Times `$e` (a pair of `$p` and `$q`) and keeps its first results decrypted.
        macro_rules! pair {
            ($p:ty, $pv:ty, $q:ty, $qv:ty, $e:expr) => {{
                measure(
                    $runs,
                    || -> ($p, $q) { $e },
                    |_, (p, q): ($p, $q)| -> Result<(), PeerError> {
                        let (p, q): ($pv, $qv) = (p.decrypt(ck), q.decrypt(ck));
                        values.get_or_insert((p as i128, q as i128));
                        Ok(())
                    },
                )?
            }};
        }
        let samples = match $name {
            "overflowing_add" => pair!($fhe, $clear, FheBool, bool, (&a).overflowing_add(&b)),
            "overflowing_sub" => pair!($fhe, $clear, FheBool, bool, (&a).overflowing_sub(&b)),
            "overflowing_mul" => pair!($fhe, $clear, FheBool, bool, (&a).overflowing_mul(&b)),
            "div_rem" => pair!($fhe, $clear, $fhe, $clear, (&a).div_rem(&b)),
            "match_value" => time_pair!(@match $matching, $fhe, $clear, $table, pair, a),
            name => {
                return Err(PeerError::Unsupported(format!(
                    "{name} has no TFHE-rs counterpart here"
                )))
            }
        };
        Ok(PeerPair {
            median_ms: samples.median_ms,
            values: values.ok_or_else(|| PeerError::Failed("no run".into()))?,
        })
    }};
    (@match true, $fhe:ty, $clear:ty, $table:expr, $pair:ident, $a:ident) => {{
        let pairs: Vec<($clear, $clear)> =
            $table.iter().map(|&(i, o)| (i as $clear, o as $clear)).collect();
        let matches = tfhe::MatchValues::new(pairs)
            .map_err(|e| PeerError::Failed(format!("TFHE-rs' table: {e}")))?;
        $pair!($fhe, $clear, FheBool, bool, {
            $a.match_value(&matches).expect("outputs of the input type")
        })
    }};
    (@match false, $fhe:ty, $clear:ty, $table:expr, $pair:ident, $a:ident) => {{
        return Err(PeerError::Unsupported(
            "match_value: TFHE-rs has it on FheUint only".into(),
        ));
    }};
}

/// Times one of the family's operations of two results on TFHE-rs' type matching `ty`
/// (`overflowing_add`, `overflowing_sub`, `overflowing_mul`: the value and the overflow
/// flag; `div_rem`: quotient and remainder; `match_value` of `table`, unsigned types
/// only: the output, of the input type, and whether it matched) `runs` times on the
/// current rayon pool.
pub fn time_pair_peer(
    name: &str,
    ty: IntType,
    x: Inputs,
    table: &[(i128, i128)],
    runs: usize,
) -> Result<PeerPair, PeerError> {
    check_runs(runs)?;
    per_type!(ty, time_pair!(name, x, table, runs))
}
