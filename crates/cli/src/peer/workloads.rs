//! The workloads of `encint bench --workloads` on TFHE-rs, written as its users write
//! them: high-level `FheUint`/`FheInt` operators run eagerly, its `sum` over an iterator
//! for sums, and rayon's parallel iterators over independent operations (the server key
//! set on every thread of the current pool). Each function encrypts its clear inputs,
//! runs the program `runs` times (timed, without encryption or decryption), and returns
//! the times and the decrypted results, which the caller checks.

use std::time::Instant;

use rayon::prelude::*;
use tfhe::prelude::*;
use tfhe::{FheInt16, FheUint16, FheUint32, FheUint8};

use super::{keys, PeerError, PeerParams};

/// Times (milliseconds) and decrypted results of one workload on TFHE-rs.
#[derive(Clone, Debug, PartialEq)]
pub struct PeerRun {
    /// Each run's wall-clock time.
    pub times_ms: Vec<f64>,
    /// The results, in the order of the workload's outputs.
    pub outputs: Vec<i128>,
}

/// log2 of TFHE-rs' failure probability per bootstrap on this process's parameter set.
pub fn log2_p_fail() -> f64 {
    match super::peer_params() {
        PeerParams::Default => {
            tfhe::shortint::parameters::PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128.log2_p_fail
        }
        PeerParams::Ks32 => {
            tfhe::shortint::parameters::aliases::PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128
                .log2_p_fail
        }
    }
}

/// The client key, with the server key set on every thread of the current rayon pool
/// and on the calling thread.
fn pool_client_key() -> &'static tfhe::ClientKey {
    let (ck, sk) = keys();
    rayon::broadcast(|_| tfhe::set_server_key(sk.clone()));
    tfhe::set_server_key(sk.clone());
    ck
}

/// Encrypts each clear value of `xs` with `ck`.
fn encrypt_all<C: Copy, T: FheEncrypt<C, tfhe::ClientKey>>(
    ck: &tfhe::ClientKey,
    xs: &[C],
) -> Vec<T> {
    xs.iter().map(|&v| T::encrypt(v, ck)).collect()
}

/// Runs `program` `runs` times, timing each run; `decrypt` reads each result outside the
/// timed region, and every run must give the same values.
fn timed<T>(
    runs: usize,
    program: impl Fn() -> T,
    decrypt: impl Fn(&T) -> Vec<i128>,
) -> Result<PeerRun, PeerError> {
    super::check_runs(runs)?;
    let mut times_ms = Vec::with_capacity(runs);
    let mut outputs: Option<Vec<i128>> = None;
    for _ in 0..runs {
        let t = Instant::now();
        let r = program();
        times_ms.push(crate::timing::ms_since(t));
        let v = decrypt(&r);
        match &outputs {
            Some(o) if *o != v => {
                return Err(PeerError::Failed(format!(
                    "two runs disagree: {o:?} and {v:?}"
                )))
            }
            Some(_) => {}
            None => outputs = Some(v),
        }
    }
    Ok(PeerRun {
        times_ms,
        outputs: outputs.unwrap_or_default(),
    })
}

/// Decrypts TFHE-rs values of one clear type into `i128`s.
macro_rules! decrypt_all {
    ($ck:expr, $clear:ty, $xs:expr) => {
        $xs.iter()
            .map(|x| {
                let v: $clear = x.decrypt($ck);
                i128::from(v)
            })
            .collect::<Vec<i128>>()
    };
}

/// The sum of 16 u16: `iter().sum()`.
pub fn sum16_u16(x: &[u16], runs: usize) -> Result<PeerRun, PeerError> {
    let ck = pool_client_key();
    let xs: Vec<FheUint16> = encrypt_all(ck, x);
    timed(
        runs,
        || xs.iter().sum::<FheUint16>(),
        |r| decrypt_all!(ck, u16, [r]),
    )
}

/// The dot product of 32 u16 pairs: the products in parallel, then `sum`.
pub fn dot32_u16(a: &[u16], b: &[u16], runs: usize) -> Result<PeerRun, PeerError> {
    let ck = pool_client_key();
    let xs: Vec<FheUint16> = encrypt_all(ck, a);
    let ys: Vec<FheUint16> = encrypt_all(ck, b);
    timed(
        runs,
        || {
            let products: Vec<FheUint16> = xs.par_iter().zip(&ys).map(|(x, y)| x * y).collect();
            products.iter().sum::<FheUint16>()
        },
        |r| decrypt_all!(ck, u16, [r]),
    )
}

/// `((3x + 7)x + 11)x + 5`: one operator after another.
pub fn horner_u16(x: u16, runs: usize) -> Result<PeerRun, PeerError> {
    let ck = pool_client_key();
    let x = FheUint16::encrypt(x, ck);
    timed(
        runs,
        || &(&(&(&(&(&x * 3u16) + 7u16) * &x) + 11u16) * &x) + 5u16,
        |r| decrypt_all!(ck, u16, [r]),
    )
}

/// An odd-even transposition network over 8 u8: each round's min/max pairs in parallel.
pub fn sort8_u8(x: &[u8], runs: usize) -> Result<PeerRun, PeerError> {
    let ck = pool_client_key();
    let xs: Vec<FheUint8> = encrypt_all(ck, x);
    timed(
        runs,
        || {
            let mut v = xs.clone();
            for round in 0..v.len() {
                let firsts: Vec<usize> = (round % 2..v.len() - 1).step_by(2).collect();
                let pairs: Vec<(FheUint8, FheUint8)> = firsts
                    .par_iter()
                    .map(|&i| (v[i].min(&v[i + 1]), v[i].max(&v[i + 1])))
                    .collect();
                for (&i, (lo, hi)) in firsts.iter().zip(pairs) {
                    v[i] = lo;
                    v[i + 1] = hi;
                }
            }
            v
        },
        |r| decrypt_all!(ck, u8, r),
    )
}

/// The sum and the sum of squares of 16 u16 in u32: casts and squares in parallel, then
/// two `sum`s.
pub fn mean_var16_u16(x: &[u16], runs: usize) -> Result<PeerRun, PeerError> {
    let ck = pool_client_key();
    let xs: Vec<FheUint16> = encrypt_all(ck, x);
    timed(
        runs,
        || {
            let wide: Vec<FheUint32> = xs
                .par_iter()
                .map(|v| FheUint32::cast_from(v.clone()))
                .collect();
            let squares: Vec<FheUint32> = wide.par_iter().map(|v| v * v).collect();
            let (sum, sq) = rayon::join(
                || wide.iter().sum::<FheUint32>(),
                || squares.iter().sum::<FheUint32>(),
            );
            [sum, sq]
        },
        |r| decrypt_all!(ck, u32, r),
    )
}

/// 8 rounds of `x = ((x ^ (x >> 7)) * 0x9E37 + (x << 3)) ^ key` on u32, operator by operator.
pub fn hash_u32(
    x: u32,
    key: u32,
    mul: u32,
    rounds: usize,
    runs: usize,
) -> Result<PeerRun, PeerError> {
    let ck = pool_client_key();
    let (x, key) = (FheUint32::encrypt(x, ck), FheUint32::encrypt(key, ck));
    timed(
        runs,
        || {
            let mut v = x.clone();
            for _ in 0..rounds {
                v = &(&(&(&v ^ &(&v >> 7u32)) * mul) + &(&v << 3u32)) ^ &key;
            }
            v
        },
        |r| decrypt_all!(ck, u32, [r]),
    )
}

/// The product of two 4x4 u8 matrices (row-major): the 64 products in parallel, then each
/// entry's `sum`.
pub fn matmul4_u8(a: &[u8], b: &[u8], runs: usize) -> Result<PeerRun, PeerError> {
    let ck = pool_client_key();
    let xs: Vec<FheUint8> = encrypt_all(ck, a);
    let ys: Vec<FheUint8> = encrypt_all(ck, b);
    timed(
        runs,
        || {
            let products: Vec<FheUint8> = (0..64)
                .into_par_iter()
                .map(|p| {
                    let (i, j, t) = (p / 16, (p / 4) % 4, p % 4);
                    &xs[i * 4 + t] * &ys[t * 4 + j]
                })
                .collect();
            products
                .par_chunks(4)
                .map(|c| c.iter().sum::<FheUint8>())
                .collect::<Vec<FheUint8>>()
        },
        |r| decrypt_all!(ck, u8, r),
    )
}

/// One dense layer: weights `w` (8 rows of 16, row-major) times inputs `x` (16), both u8
/// cast to u16; the 128 products in parallel, each row's `sum`, then ReLU (`max(0)` on the
/// sum read as an i16).
pub fn mlp_u8(w: &[u8], x: &[u8], runs: usize) -> Result<PeerRun, PeerError> {
    let ck = pool_client_key();
    let ws: Vec<FheUint8> = encrypt_all(ck, w);
    let xs: Vec<FheUint8> = encrypt_all(ck, x);
    let n = xs.len();
    timed(
        runs,
        || {
            let wide = |v: &FheUint8| FheUint16::cast_from(v.clone());
            let w16: Vec<FheUint16> = ws.par_iter().map(wide).collect();
            let x16: Vec<FheUint16> = xs.par_iter().map(wide).collect();
            let products: Vec<FheUint16> = (0..w16.len())
                .into_par_iter()
                .map(|p| &w16[p] * &x16[p % n])
                .collect();
            products
                .par_chunks(n)
                .map(|row| FheInt16::cast_from(row.iter().sum::<FheUint16>()).max(0i16))
                .collect::<Vec<FheInt16>>()
        },
        |r| decrypt_all!(ck, i16, r),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn horner_on_tfhe_rs_matches_plain_arithmetic() {
        let pool = crate::timing::pool(Some(2)).unwrap();
        let x = 40_503u16;
        let r = pool.install(|| horner_u16(x, 1)).unwrap();
        let want = ((3u16.wrapping_mul(x).wrapping_add(7))
            .wrapping_mul(x)
            .wrapping_add(11))
        .wrapping_mul(x)
        .wrapping_add(5);
        assert_eq!(r.outputs, vec![i128::from(want)]);
        assert_eq!(r.times_ms.len(), 1);
        assert!(pool.install(|| horner_u16(x, 0)).is_err());
    }
}
