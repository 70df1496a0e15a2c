//! The functional packing keyswitch kernel: sixteen row values into one GLWE accumulator,
//! the key streamed block by block (with AVX2 or AVX-512 when the CPU has them).

// Unsafe code: the packing kernels call AVX2/AVX-512 intrinsics, each behind a runtime CPU-feature check.
#![allow(unsafe_code)]

use super::table::box_width;

/// `out = Σ_k w_k · e_k` over LWE ciphertexts stored back to back in `e`.
pub(super) fn combine(e: &[u64], size: usize, w: &[i64; 16], out: &mut [u64]) {
    out.fill(0);
    for (ek, &wk) in e.chunks_exact(size).zip(w) {
        if wk == 0 {
            continue;
        }
        let wk = wk as u64;
        for (o, x) in out.iter_mut().zip(ek) {
            *o = o.wrapping_add(x.wrapping_mul(wk));
        }
    }
}

/// Balanced decomposition of `a` into `levels` digits of `base_log` bits (most significant
/// first) after rounding to `base_log·levels` bits: `a ≈ Σ_l d_l·2^(64 − base_log·(l+1))`.
pub(super) fn decompose(a: u64, base_log: usize, levels: usize, out: &mut [i64]) {
    let bits = base_log * levels;
    let mut r = (a >> (64 - bits - 1)).wrapping_add(1) >> 1; // round to `bits` bits
    let base = 1u64 << base_log;
    for l in (0..levels).rev() {
        let mut d = (r & (base - 1)) as i64;
        r >>= base_log;
        if d >= (base / 2) as i64 {
            d -= base as i64;
            r = r.wrapping_add(1);
        }
        out[l] = d;
    }
}

/// Coefficient block of the packing kernel (a multiple of 8 dividing `B/2`).
const CHUNK: usize = 64;

/// For output block `c` and row value `j`: where the block's source starts in a key
/// polynomial, and the sign (`±1`) with which the key coefficient enters.
///
/// The output is `−Σ_j c_j·X^(p_j)·K` with `X^(p_0) = X^(−B/2) = −X^(N − B/2)` and
/// `p_j = j·B − B/2` otherwise; a coefficient of `X^q·K` at `i < q` wraps with a minus sign.
pub(super) fn block_table(n: usize) -> Vec<[(usize, i64); 16]> {
    let b = box_width(n);
    (0..n / CHUNK)
        .map(|c| {
            let s = c * CHUNK;
            std::array::from_fn(|j| {
                let (q, sigma) = if j == 0 {
                    (n - b / 2, -1)
                } else {
                    (j * b - b / 2, 1)
                };
                if s >= q {
                    (s - q, -sigma)
                } else {
                    (s + n - q, sigma)
                }
            })
        })
        .collect()
}

/// The packing kernel: for every key row `r` (a GLWE ciphertext of `n·glwe_size`
/// coefficients in `key`) and every output block, `out_block += Σ_j sign·c_{r,j}·key_r[src..]`.
/// Each key row is read once from memory; the output GLWE stays in the L1/L2 cache.
#[inline(always)]
fn pack_kernel(out: &mut [u64], key: &[u64], coeffs: &[[i64; 16]], table: &[[(usize, i64); 16]]) {
    let n = table.len() * CHUNK;
    let row_len = out.len();
    for (krow, cs) in key.chunks_exact(row_len).zip(coeffs) {
        for (opoly, kpoly) in out.chunks_exact_mut(n).zip(krow.chunks_exact(n)) {
            for (block, entry) in opoly.chunks_exact_mut(CHUNK).zip(table) {
                let mut acc = [0u64; CHUNK];
                acc.copy_from_slice(block);
                for (&c, &(src, sign)) in cs.iter().zip(entry) {
                    let m = c.wrapping_mul(sign) as u64;
                    let k = &kpoly[src..src + CHUNK];
                    for (a, x) in acc.iter_mut().zip(k) {
                        *a = a.wrapping_add(x.wrapping_mul(m));
                    }
                }
                block.copy_from_slice(&acc);
            }
        }
    }
}

/// [`pack_kernel`] compiled with the given target features (callers check them first).
macro_rules! pack_kernel_with {
    ($name:ident, $features:tt) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        unsafe fn $name(
            out: &mut [u64],
            key: &[u64],
            coeffs: &[[i64; 16]],
            table: &[[(usize, i64); 16]],
        ) {
            pack_kernel(out, key, coeffs, table)
        }
    };
}

pack_kernel_with!(pack_kernel_avx512, "avx512f,avx512dq");
pack_kernel_with!(pack_kernel_avx2, "avx2");

/// [`pack_kernel`] compiled for the best instruction set of the running CPU.
pub(super) fn pack_dispatch(
    out: &mut [u64],
    key: &[u64],
    coeffs: &[[i64; 16]],
    table: &[[(usize, i64); 16]],
) {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512dq") {
            // SAFETY: the required target features were detected at run time.
            return unsafe { pack_kernel_avx512(out, key, coeffs, table) };
        }
        if is_x86_feature_detected!("avx2") {
            // SAFETY: the required target feature was detected at run time.
            return unsafe { pack_kernel_avx2(out, key, coeffs, table) };
        }
    }
    pack_kernel(out, key, coeffs, table)
}
