//! TFHE-rs `FheUint8/16/32` timings for `encint bits bench` (the peer, same process).
//!
//! One timed run per row, its result decrypted and checked (see [`super`] for keys and
//! threads).

use rand::Rng;
use tfhe::prelude::*;
use tfhe::{FheUint16, FheUint32, FheUint8};

use encint::Op;

use super::{client_key, measure, PeerError};

/// What one row times: an operation on one pair, or a dot product of `n` terms.
#[derive(Clone, Copy, Debug)]
enum Kernel {
    One(Op),
    Dot(usize),
}

macro_rules! time_uint {
    ($fhe:ty, $clear:ty, $kernel:expr) => {{
        let kernel: Kernel = $kernel;
        let ck = client_key();
        let mut rng = rand::thread_rng();
        let n = match kernel {
            Kernel::Dot(n) => n.max(1),
            Kernel::One(_) => 1,
        };
        let a: Vec<$clear> = (0..n).map(|_| rng.gen()).collect();
        let mut b: Vec<$clear> = (0..n).map(|_| rng.gen()).collect();
        if b[0] == 0 {
            b[0] = 1;
        }
        let ea: Vec<$fhe> = a.iter().map(|&v| <$fhe>::encrypt(v, ck)).collect();
        let eb: Vec<$fhe> = b.iter().map(|&v| <$fhe>::encrypt(v, ck)).collect();
        let want: $clear = match kernel {
            Kernel::One(Op::Add) => a[0].wrapping_add(b[0]),
            Kernel::One(Op::Sub) => a[0].wrapping_sub(b[0]),
            Kernel::One(Op::Mul) => a[0].wrapping_mul(b[0]),
            Kernel::One(Op::Div) => a[0] / b[0],
            Kernel::One(Op::Rem) => a[0] % b[0],
            Kernel::One(op) => return Err(PeerError::unsupported(op, "FheUint")),
            Kernel::Dot(_) => {
                (0..n).fold(0, |s: $clear, i| s.wrapping_add(a[i].wrapping_mul(b[i])))
            }
        };
        let samples = measure(
            1,
            || -> $fhe {
                match kernel {
                    Kernel::One(Op::Sub) => &ea[0] - &eb[0],
                    Kernel::One(Op::Mul) => &ea[0] * &eb[0],
                    Kernel::One(Op::Div) => &ea[0] / &eb[0],
                    Kernel::One(Op::Rem) => &ea[0] % &eb[0],
                    // Add (the plain result above refused every other operation).
                    Kernel::One(_) => &ea[0] + &eb[0],
                    Kernel::Dot(_) => {
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
                    return Err(PeerError::Failed(format!(
                        "TFHE-rs {kernel:?} gave {got}, expected {want}"
                    )));
                }
                Ok(())
            },
        )?;
        Ok(samples.median_ms)
    }};
}

/// Time of one `op` (`+ - *` wrapping, `/ %` by a nonzero divisor) on `bits`-bit `FheUint`
/// (8, 16 or 32), in milliseconds, on the current rayon pool; the result is decrypted and
/// checked. Errors: [`PeerError::Unsupported`] for another operation or width.
pub fn time_peer_uint(op: Op, bits: u32) -> Result<f64, PeerError> {
    time_kernel(Kernel::One(op), bits)
}

/// Time of `Σ a_i · b_i` over `n` terms of `bits`-bit `FheUint` as a sum of products
/// (TFHE-rs has no dot product of two encrypted vectors), as [`time_peer_uint`].
pub fn time_peer_dot(bits: u32, n: usize) -> Result<f64, PeerError> {
    time_kernel(Kernel::Dot(n), bits)
}

fn time_kernel(kernel: Kernel, bits: u32) -> Result<f64, PeerError> {
    match bits {
        8 => time_uint!(FheUint8, u8, kernel),
        16 => time_uint!(FheUint16, u16, kernel),
        32 => time_uint!(FheUint32, u32, kernel),
        _ => Err(PeerError::Unsupported(format!(
            "TFHE-rs has no FheUint{bits} here (8, 16, 32)"
        ))),
    }
}
