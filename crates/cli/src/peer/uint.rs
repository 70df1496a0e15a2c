//! TFHE-rs `FheUint8/16/32` timings for `encint bits bench` (the peer, same process).
//!
//! One timed run per row, its result decrypted and checked (see [`super`] for keys and
//! threads).

use rand::Rng;
use tfhe::prelude::*;
use tfhe::{FheUint16, FheUint32, FheUint8};

use super::{client_key, measure};

/// A peer operation on unsigned integers (wrapping, like encint's bit rows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerUintOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    /// `Σ a_i · b_i` as a sum of products (TFHE-rs has no dot product of two encrypted
    /// vectors).
    Dot,
}

macro_rules! time_uint {
    ($fhe:ty, $clear:ty, $op:expr, $n:expr) => {{
        let ck = client_key();
        let mut rng = rand::thread_rng();
        let n = $n.max(1);
        let a: Vec<$clear> = (0..n).map(|_| rng.gen()).collect();
        let mut b: Vec<$clear> = (0..n).map(|_| rng.gen()).collect();
        if b[0] == 0 {
            b[0] = 1;
        }
        let ea: Vec<$fhe> = a.iter().map(|&v| <$fhe>::encrypt(v, ck)).collect();
        let eb: Vec<$fhe> = b.iter().map(|&v| <$fhe>::encrypt(v, ck)).collect();
        let want: $clear = match $op {
            PeerUintOp::Add => a[0].wrapping_add(b[0]),
            PeerUintOp::Sub => a[0].wrapping_sub(b[0]),
            PeerUintOp::Mul => a[0].wrapping_mul(b[0]),
            PeerUintOp::Div => a[0] / b[0],
            PeerUintOp::Rem => a[0] % b[0],
            PeerUintOp::Dot => {
                (0..n).fold(0, |s: $clear, i| s.wrapping_add(a[i].wrapping_mul(b[i])))
            }
        };
        let samples = measure(
            1,
            || -> $fhe {
                match $op {
                    PeerUintOp::Add => &ea[0] + &eb[0],
                    PeerUintOp::Sub => &ea[0] - &eb[0],
                    PeerUintOp::Mul => &ea[0] * &eb[0],
                    PeerUintOp::Div => &ea[0] / &eb[0],
                    PeerUintOp::Rem => &ea[0] % &eb[0],
                    PeerUintOp::Dot => {
                        let mut acc = &ea[0] * &eb[0];
                        for i in 1..n {
                            acc += &ea[i] * &eb[i];
                        }
                        acc
                    }
                }
            },
            |_, r: $fhe| {
                let got: $clear = r.decrypt(ck);
                if got != want {
                    return Err(format!("TFHE-rs {:?} gave {got}, expected {want}", $op));
                }
                Ok(())
            },
        )?;
        Ok(samples.median_ms)
    }};
}

/// Time of one `op` on `bits`-bit `FheUint` (8, 16 or 32; `n` terms for a dot product), in
/// milliseconds, on the current rayon pool; the result is decrypted and checked.
pub fn time_peer_uint(op: PeerUintOp, bits: u32, n: usize) -> Result<f64, String> {
    match bits {
        8 => time_uint!(FheUint8, u8, op, n),
        16 => time_uint!(FheUint16, u16, op, n),
        32 => time_uint!(FheUint32, u32, op, n),
        _ => Err(format!("TFHE-rs has no FheUint{bits} here (8, 16, 32)")),
    }
}
