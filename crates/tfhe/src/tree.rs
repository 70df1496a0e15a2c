//! Tree-based evaluation of 256-entry tables on two nibbles (LUTeval / MVLUTeval of
//! "Designing a General-Purpose 8-bit (T)FHE Processor Abstraction", Sections 2.3 and 3.2).
//!
//! A [`Table256`] `t` maps two nibbles `(hi, lo)` (digits with values in `0..16`) to
//! `t[16·hi + lo]`. Its evaluation is a two-level tree:
//!
//! 1. **First level** ([`TreeKey::first_level`]): one keyswitch, modulus switch and blind
//!    rotation of `hi` over the trivial test polynomial `TV0 = (Δ/2)·(1 + X + … + X^(N-1))`
//!    (multi-value bootstrapping, Carpov–Izabachène–Mollimard 2018). Every negacyclic table `g`
//!    on the 32 slots has a step-function test polynomial equal to `TV0·v_g` for a sparse integer
//!    polynomial `v_g = Σ D_k X^(p_k)` (the jumps `D_k` of the step function at the box
//!    boundaries `p_k = k·B − B/2`, `B = 2N/32`), so the rotated accumulator yields any number of
//!    univariate tables of `hi` ("singles") and, for every row table, the 16 values
//!    `t[16·hi + j]`, `j = 0..16`. The output noise is the blind-rotation noise times `‖v_g‖₂`
//!    (up to ≈ 64), so this rotation uses a second, *precise* bootstrapping key
//!    ([`PRECISE_PBS_BASE_LOG`], [`PRECISE_PBS_LEVEL`]) under the same secret keys and noise
//!    distribution (hence the same security) as the default one.
//! 2. **Packing** (inside [`TreeKey::first_level`] for every row table): a functional packing
//!    keyswitch turns the 16 row values into an encrypted second-level test polynomial
//!    ([`Accumulator`]) whose box `j` holds `t[16·hi + j]·Δ`. The box shape `1 + … + X^(B-1)` is
//!    baked into the packing key, so the per-coefficient keyswitch noise is not amplified.
//! 3. **Second level** ([`TreeKey::second_level`]): keyswitch `lo`, modulus switch, blind-rotate
//!    the encrypted accumulator with the default (fast) bootstrapping key and extract: the result
//!    encrypts `t[16·hi + lo]`.
//!
//! # Noise and failure probability
//!
//! Every blind-rotation input is an ordinary digit (the `hi` or `lo` argument), keyswitched and
//! modulus-switched exactly like in [`crate::ServerKey::bootstrap`]; under the usual rule
//! (quadratic weight ≤ [`crate::DigitParameters::max_quadratic_weight`]) each rotation fails
//! with probability ≤ `2^-129.6`, so a LUTeval fails with probability ≤ `2^-128.6` (union bound
//! over its two rotations) and an MVLUTeval over `k` tables with ≤ `(k + 1)·2^-129.6`.
//!
//! The outputs are not exactly fresh: in units of the variance of a fresh
//! [`crate::ServerKey::bootstrap`] output, a first-level single output has variance at most
//! [`FIRST_LEVEL_QWEIGHT_BOUND`] and a second-level output at most
//! [`SECOND_LEVEL_QWEIGHT_BOUND`] (see their documentation for the measurements). A circuit
//! executor should charge these weights when such outputs enter a linear combination.
//! Outputs of one first level share a blind rotation and are *not independent* of each other.

use std::fmt;
use std::sync::Arc;

use rayon::prelude::*;
use tfhe::core_crypto::commons::generators::DeterministicSeeder;
use tfhe::core_crypto::commons::math::random::Seed;
use tfhe::core_crypto::prelude::*;

use crate::bootstrap::{with_scratch, Scratch};
use crate::digit::{signed_rep, Digit, NegacyclicLut};
use crate::keys::{ClientKey, ServerKey, ServerKeyInner};
use crate::params::{DigitParameters, DIGIT_MODULUS, HALF_MODULUS};
use crate::TfheError;

type Gen = DefaultRandomGenerator;

/// Base log of the precise bootstrapping key used by the first level.
pub const PRECISE_PBS_BASE_LOG: usize = 15;
/// Level count of the precise bootstrapping key used by the first level.
pub const PRECISE_PBS_LEVEL: usize = 2;
/// Base log of the functional packing keyswitching key.
pub const PACKING_BASE_LOG: usize = 22;
/// Level count of the functional packing keyswitching key.
pub const PACKING_LEVEL: usize = 1;

/// Variance bound, in units of the variance of a fresh [`crate::ServerKey::bootstrap`] output,
/// of a first-level *single* output of [`TreeKey::first_level`] for the worst table.
///
/// Model: precise blind-rotation variance `2^-46.4` times `‖v‖² ≤ 4096` against the fresh
/// `2^-29.7` gives ≈ 0.04; measured 0.11 (σ ≈ 2^-16.4 against 2^-14.8, 400 samples,
/// alternating 0/15 table, `tests/tree.rs`). An executor may charge such an output quadratic
/// weight 1.
pub const FIRST_LEVEL_QWEIGHT_BOUND: f64 = 0.25;

/// Variance bound, in units of the variance of a fresh [`crate::ServerKey::bootstrap`] output,
/// of a second-level output ([`TreeKey::second_level`], [`TreeKey::lut_eval`],
/// [`TreeKey::mv_lut_eval`]) for the worst table.
///
/// It is the fresh blind-rotation noise (1) plus the accumulator noise (row value noise
/// ≈ 0.11 in the worst case plus packing rounding and key noise ≈ 0.01, model ≈ 1.12);
/// measured 1.19 ± 0.1 (400 samples, worst-case table, `tests/tree.rs`). An executor should
/// charge such an output quadratic weight 2 (integer weights) or 1.25 (real weights).
pub const SECOND_LEVEL_QWEIGHT_BOUND: f64 = 1.25;

/// A 256-entry table on two nibbles: `out = t[16·hi + lo]`.
///
/// Entries are digits taken mod 32 (usually nibbles `0..16`); `hi` and `lo` must be in `0..16`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Table256(pub [u8; 256]);

impl Table256 {
    /// The table of `f(hi, lo)` for `hi, lo in 0..16` (values taken mod 32).
    pub fn from_fn(f: impl Fn(u8, u8) -> u8) -> Table256 {
        let mut t = [0u8; 256];
        for (i, v) in t.iter_mut().enumerate() {
            *v = f((i / 16) as u8, (i % 16) as u8) % DIGIT_MODULUS as u8;
        }
        Table256(t)
    }

    /// `t[16·hi + lo]` mod 32 as a signed representative in `-16..=15` (plaintext reference of
    /// [`TreeKey::lut_eval`]; `hi` and `lo` are taken mod 16).
    pub fn eval(&self, hi: i64, lo: i64) -> i64 {
        let i = 16 * hi.rem_euclid(16) + lo.rem_euclid(16);
        signed_rep(self.0[i as usize] as i64)
    }

    /// The univariate table `hi ↦ t[16·hi + j]` of column `j`.
    fn column(&self, j: usize) -> NegacyclicLut {
        NegacyclicLut::from_fn(|m| self.0[16 * m as usize + j] as i64)
    }
}

/// An encrypted second-level test polynomial (GLWE ciphertext under the GLWE key): box `j`
/// holds `t[16·m + j]·Δ` where `m` is the first-level input. Produced by
/// [`TreeKey::first_level`], consumed by [`TreeKey::second_level`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    glwe: GlweCiphertextOwned<u64>,
}

/// Extra evaluation keys for tree-based LUT evaluation, generated client-side (they need the
/// secret keys): a precise Fourier bootstrapping key for the first level (≈ 120 MB) and the
/// functional packing keyswitching key (≈ 64 MB). Cloning is cheap (shared `Arc`).
#[derive(Clone)]
pub struct TreeKey {
    inner: Arc<TreeKeyInner>,
}

struct TreeKeyInner {
    params: DigitParameters,
    key_set: crate::KeySetId,
    fourier_bsk: FourierLweBootstrapKeyOwned,
    /// Rows `(t, l)`, `t` over the big key, `l` over the levels; each row a GLWE ciphertext
    /// (`k + 1` polynomials of `N`) of `s_t · box(X) · q / B^(l+1)`.
    packing: Vec<u64>,
}

impl fmt::Debug for TreeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TreeKey")
            .field("params", &self.inner.params.name)
            .finish_non_exhaustive()
    }
}

impl ClientKey {
    /// Generate the [`TreeKey`] of this client key from the operating system's entropy
    /// (same as [`TreeKey::generate`]).
    pub fn tree_key(&self) -> TreeKey {
        TreeKey::generate(self)
    }
}

/// Box width `B = 2N/32` of the test polynomials.
fn box_width(n: usize) -> usize {
    2 * n / DIGIT_MODULUS as usize
}

/// The sparse polynomial `v` (jumps at `p_k = k·B − B/2`, `k = 1..=16`) with
/// `TV0·v = test polynomial of lut`, `TV0 = (Δ/2)·Σ X^i`.
///
/// `TV0·X^p` has coefficient `+Δ/2` at `i ≥ p` and `−Δ/2` below, so `TV0·v` at `i` is
/// `(Δ/2)·Σ_k D_k·sign(i ≥ p_k)`. With `D_k = f(k) − f(k−1)` (`f(16) = −f(0)`) this is
/// `Δ·f(m)` on box `m` because `Σ D_k = −2f(0)`. The jumps are reduced to `[-16, 16]`; that
/// keeps `Σ D_k ≡ −2f(0) (mod 32)` only, and when the sum is off by 32 (mod 64) one jump is
/// moved by ±32 (the largest one, which costs least).
fn jumps(lut: &NegacyclicLut) -> [i64; 16] {
    let f = |m: usize| signed_rep(lut.values[m]);
    let mut d = [0i64; 16];
    for k in 1..16 {
        d[k - 1] = signed_rep(f(k) - f(k - 1));
    }
    d[15] = signed_rep(-f(0) - f(15));
    let s: i64 = d.iter().sum();
    if (s + 2 * f(0)).rem_euclid(64) != 0 {
        let (i, _) = d
            .iter()
            .enumerate()
            .max_by_key(|(_, x)| x.abs())
            .expect("16 jumps");
        d[i] += if d[i] < 0 { 32 } else { -32 };
    }
    d
}

/// Positions `p_k`, `k = 1..=16`, of the box boundaries.
fn boundaries(n: usize) -> [usize; 16] {
    let b = box_width(n);
    std::array::from_fn(|k| (k + 1) * b - b / 2)
}

/// Keyswitch `input` to the small key, modulus-switch it to `2N` and blind-rotate `s.acc`.
fn rotate(
    server: &ServerKeyInner,
    bsk: &FourierLweBootstrapKeyOwned,
    s: &mut Scratch,
    input: &Digit,
) {
    let msed = server.switched(input, s, 1);
    blind_rotate_assign_mem_optimized(&msed, &mut s.acc, bsk, s.fft.as_view(), s.buffers.stack());
}

/// `out = Σ_k w_k · e_k` over LWE ciphertexts stored back to back in `e`.
fn combine(e: &[u64], size: usize, w: &[i64; 16], out: &mut [u64]) {
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
fn decompose(a: u64, base_log: usize, levels: usize, out: &mut [i64]) {
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
fn block_table(n: usize) -> Vec<[(usize, i64); 16]> {
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

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn pack_kernel_avx512(
    out: &mut [u64],
    key: &[u64],
    coeffs: &[[i64; 16]],
    table: &[[(usize, i64); 16]],
) {
    pack_kernel(out, key, coeffs, table)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn pack_kernel_avx2(
    out: &mut [u64],
    key: &[u64],
    coeffs: &[[i64; 16]],
    table: &[[(usize, i64); 16]],
) {
    pack_kernel(out, key, coeffs, table)
}

/// [`pack_kernel`] compiled for the best instruction set of the running CPU.
fn pack_dispatch(out: &mut [u64], key: &[u64], coeffs: &[[i64; 16]], table: &[[(usize, i64); 16]]) {
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

/// Key rows handled by one rayon task of a packing (each task sums into its own GLWE).
const ROWS_PER_TASK: usize = 512;

impl TreeKeyInner {
    fn generate(client: &ClientKey, seeder: &mut dyn Seeder) -> TreeKeyInner {
        let p = *client.params();
        let (lwe_sk, glwe_sk) = client.secret_keys();
        let mut enc = EncryptionRandomGenerator::<Gen>::new(seeder.seed(), seeder);
        let bsk = par_allocate_and_generate_new_lwe_bootstrap_key(
            lwe_sk,
            glwe_sk,
            DecompositionBaseLog(PRECISE_PBS_BASE_LOG),
            DecompositionLevelCount(PRECISE_PBS_LEVEL),
            p.glwe_noise_distribution,
            p.ciphertext_modulus,
            &mut enc,
        );
        let mut fourier_bsk = FourierLweBootstrapKey::new(
            bsk.input_lwe_dimension(),
            bsk.glwe_size(),
            bsk.polynomial_size(),
            bsk.decomposition_base_log(),
            bsk.decomposition_level_count(),
        );
        par_convert_standard_lwe_bootstrap_key_to_fourier(&bsk, &mut fourier_bsk);
        drop(bsk);

        let n = p.polynomial_size.0;
        let glwe_size = p.glwe_dimension.to_glwe_size().0;
        let row_len = glwe_size * n;
        let big = p.big_lwe_dimension().0;
        let rows = big * PACKING_LEVEL;
        let mut packing = vec![0u64; rows * row_len];
        // One generator per group of rows, each seeded from the seeder, so that the rows can be
        // encrypted in parallel.
        const GROUP: usize = 64;
        let gens: Vec<EncryptionRandomGenerator<Gen>> = (0..rows.div_ceil(GROUP))
            .map(|_| EncryptionRandomGenerator::<Gen>::new(seeder.seed(), seeder))
            .collect();
        let key = glwe_sk.as_lwe_secret_key();
        let key = key.as_ref();
        let b = box_width(n);
        packing
            .par_chunks_mut(GROUP * row_len)
            .zip(gens)
            .enumerate()
            .for_each(|(g, (chunk, mut gen))| {
                let mut pt = PlaintextList::new(0u64, PlaintextCount(n));
                for (i, row) in chunk.chunks_exact_mut(row_len).enumerate() {
                    let r = g * GROUP + i;
                    let (t, l) = (r / PACKING_LEVEL, r - (r / PACKING_LEVEL) * PACKING_LEVEL);
                    let scale = 1u64 << (64 - PACKING_BASE_LOG * (l + 1));
                    let v = key[t].wrapping_mul(scale);
                    let data = pt.as_mut();
                    data[..b].fill(v);
                    data[b..].fill(0);
                    let mut glwe = GlweCiphertext::from_container(
                        row,
                        PolynomialSize(n),
                        p.ciphertext_modulus,
                    );
                    encrypt_glwe_ciphertext(
                        glwe_sk,
                        &mut glwe,
                        &pt,
                        p.glwe_noise_distribution,
                        &mut gen,
                    );
                }
                pt.as_mut().fill(0);
            });
        TreeKeyInner::new(p, client.key_set(), fourier_bsk, packing)
    }

    /// The key from its parts, its two large buffers on huge pages
    /// ([`crate::memory::prefer_huge_pages`]: every tree bootstrap reads both whole).
    fn new(
        params: DigitParameters,
        key_set: crate::KeySetId,
        fourier_bsk: FourierLweBootstrapKeyOwned,
        packing: Vec<u64>,
    ) -> TreeKeyInner {
        crate::memory::prefer_huge_pages(fourier_bsk.as_view().data());
        crate::memory::prefer_huge_pages(&packing);
        TreeKeyInner {
            params,
            key_set,
            fourier_bsk,
            packing,
        }
    }

    fn check_server(&self, server: &ServerKey) -> Result<(), TfheError> {
        let expected = self.params.lwe_dimension.0;
        let found = server.inner.params.lwe_dimension.0;
        let big = self.params.big_lwe_dimension().0;
        let sbig = server.inner.params.big_lwe_dimension().0;
        if expected != found {
            return Err(TfheError::DimensionMismatch { expected, found });
        }
        if big != sbig {
            return Err(TfheError::DimensionMismatch {
                expected: big,
                found: sbig,
            });
        }
        Ok(())
    }

    fn check_digit(&self, d: &Digit) -> Result<(), TfheError> {
        let expected = self.params.big_lwe_dimension().0;
        let found = d.lwe_dimension();
        if expected == found {
            Ok(())
        } else {
            Err(TfheError::DimensionMismatch { expected, found })
        }
    }

    fn check_acc(&self, a: &Accumulator) -> Result<(), TfheError> {
        let p = &self.params;
        let expected = p.big_lwe_dimension().0;
        let found = a.glwe.glwe_size().to_glwe_dimension().0 * a.glwe.polynomial_size().0;
        if a.glwe.polynomial_size() == p.polynomial_size && expected == found {
            Ok(())
        } else {
            Err(TfheError::DimensionMismatch { expected, found })
        }
    }

    /// The 16 extracted samples `E_k` = coefficient 0 of `X^(p_k)·acc` times −1 (back to back),
    /// after one blind rotation of `TV0` by `input`.
    fn rotate_tv0(&self, server: &ServerKeyInner, input: &Digit) -> Vec<u64> {
        let p = &self.params;
        let n = p.polynomial_size.0;
        let size = p.big_lwe_dimension().to_lwe_size().0;
        with_scratch(p, |s| {
            s.acc.get_mut_mask().as_mut().fill(0);
            // Δ/2 = 2^58.
            s.acc
                .get_mut_body()
                .as_mut()
                .fill(1u64 << (63 - crate::params::DIGIT_BITS));
            rotate(server, &self.fourier_bsk, s, input);
            let mut e = vec![0u64; 16 * size];
            for (ek, pk) in e.chunks_exact_mut(size).zip(boundaries(n)) {
                // (X^p·acc)[0] = −acc[N − p] for 0 < p < N.
                let mut lwe = LweCiphertext::from_container(ek, p.ciphertext_modulus);
                extract_lwe_sample_from_glwe_ciphertext(&s.acc, &mut lwe, MonomialDegree(n - pk));
            }
            e
        })
    }

    /// LWE of `lut(m)` from the extracted samples (weights `−D_k`, the samples are `−E_k`).
    fn single(&self, e: &[u64], lut: &NegacyclicLut) -> Digit {
        let p = &self.params;
        let size = p.big_lwe_dimension().to_lwe_size().0;
        let d = jumps(lut);
        let w = d.map(|x| -x);
        let mut ct = LweCiphertext::new(0u64, LweSize(size), p.ciphertext_modulus);
        combine(e, size, &w, ct.as_mut());
        Digit::from_ct(ct)
    }

    /// Functional packing: the accumulator whose box `j` holds the phase of `ys[j]`.
    fn pack(&self, ys: &[Digit]) -> Accumulator {
        let p = &self.params;
        let n = p.polynomial_size.0;
        let glwe_size = p.glwe_dimension.to_glwe_size().0;
        let big = p.big_lwe_dimension().0;
        let rows = big * PACKING_LEVEL;
        let b = box_width(n);
        // coeffs[t·L + l][j] = dec_l(a_{j,t}).
        let mut coeffs = vec![[0i64; 16]; rows];
        let mut digits = [0i64; PACKING_LEVEL];
        for (j, y) in ys.iter().enumerate() {
            let mask = &y.ct.as_ref()[..big];
            for (t, &a) in mask.iter().enumerate() {
                decompose(a, PACKING_BASE_LOG, PACKING_LEVEL, &mut digits);
                for (l, &d) in digits.iter().enumerate() {
                    coeffs[t * PACKING_LEVEL + l][j] = d;
                }
            }
        }
        let table = block_table(n);
        let mut glwe = GlweCiphertext::new(
            0u64,
            GlweSize(glwe_size),
            PolynomialSize(n),
            p.ciphertext_modulus,
        );
        let row_len = glwe_size * n;
        let tasks = rows.div_ceil(ROWS_PER_TASK);
        let partial = (0..tasks)
            .into_par_iter()
            .with_max_len(1)
            .map(|i| {
                let r = i * ROWS_PER_TASK..((i + 1) * ROWS_PER_TASK).min(rows);
                let mut out = vec![0u64; row_len];
                let key = &self.packing[r.start * row_len..r.end * row_len];
                pack_dispatch(&mut out, key, &coeffs[r], &table);
                out
            })
            .reduce_with(|mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    *x = x.wrapping_add(*y);
                }
                a
            })
            .unwrap_or_else(|| vec![0u64; row_len]);
        glwe.as_mut().copy_from_slice(&partial);
        // Body: + Σ_j X^(p_j)·box(X)·b_j.
        let body = &mut glwe.as_mut()[(glwe_size - 1) * n..];
        for (j, y) in ys.iter().enumerate() {
            let bj = *y.ct.get_body().data;
            if j == 0 {
                for c in &mut body[..b / 2] {
                    *c = c.wrapping_add(bj);
                }
                for c in &mut body[n - b / 2..] {
                    *c = c.wrapping_sub(bj);
                }
            } else {
                for c in &mut body[j * b - b / 2..j * b + b / 2] {
                    *c = c.wrapping_add(bj);
                }
            }
        }
        Accumulator { glwe }
    }

    /// Row accumulator of `t` from the extracted samples.
    fn row_acc(&self, e: &[u64], t: &Table256) -> Accumulator {
        let ys: Vec<Digit> = (0..HALF_MODULUS as usize)
            .map(|j| self.single(e, &t.column(j)))
            .collect();
        self.pack(&ys)
    }

    fn first_level(
        &self,
        server: &ServerKeyInner,
        input: &Digit,
        singles: &[NegacyclicLut],
        rows: &[&Table256],
    ) -> (Vec<Digit>, Vec<Accumulator>) {
        let e = self.rotate_tv0(server, input);
        let outs = singles.iter().map(|l| self.single(&e, l)).collect();
        let accs = rows.par_iter().map(|t| self.row_acc(&e, t)).collect();
        (outs, accs)
    }

    fn second_level(&self, server: &ServerKeyInner, acc: &Accumulator, lo: &Digit) -> Digit {
        let p = &self.params;
        with_scratch(p, |s| {
            s.acc.as_mut().copy_from_slice(acc.glwe.as_ref());
            rotate(server, &server.fourier_bsk, s, lo);
            let mut out = LweCiphertext::new(
                0u64,
                p.big_lwe_dimension().to_lwe_size(),
                p.ciphertext_modulus,
            );
            extract_lwe_sample_from_glwe_ciphertext(&s.acc, &mut out, MonomialDegree(0));
            Digit::from_ct(out)
        })
    }
}

impl TreeKey {
    /// Generate the tree key of `client` from the operating system's entropy. Takes a few
    /// seconds (parallel on the current rayon pool).
    pub fn generate(client: &ClientKey) -> TreeKey {
        let mut seeder = new_seeder();
        TreeKey {
            inner: Arc::new(TreeKeyInner::generate(client, seeder.as_mut())),
        }
    }

    /// Generate the tree key deterministically from `seed` (tests and reproducible benchmarks
    /// only: the key's encryption randomness is predictable).
    pub fn generate_seeded(client: &ClientKey, seed: u128) -> TreeKey {
        let mut seeder = DeterministicSeeder::<Gen>::new(Seed(seed));
        TreeKey {
            inner: Arc::new(TreeKeyInner::generate(client, &mut seeder)),
        }
    }

    /// The parameter set of this key.
    pub fn params(&self) -> &DigitParameters {
        &self.inner.params
    }

    /// The key set of the client key this tree key was generated from.
    pub fn key_set(&self) -> crate::KeySetId {
        self.inner.key_set
    }

    /// First level of the tree on `input`: one keyswitch, modulus switch and blind rotation
    /// (multi-value bootstrapping with the precise key).
    ///
    /// Returns one digit per `singles` table (its negacyclic evaluation on `input`, valid on
    /// the full 32-slot domain like [`ServerKey::bootstrap`]) and one [`Accumulator`] per
    /// `rows` table (the encrypted row `j ↦ t[16·m + j]` for input value `m`, which must be
    /// in `0..16`). Row packings run in parallel on the current rayon pool.
    pub fn first_level(
        &self,
        server: &ServerKey,
        input: &Digit,
        singles: &[NegacyclicLut],
        rows: &[&Table256],
    ) -> Result<(Vec<Digit>, Vec<Accumulator>), TfheError> {
        self.inner.check_server(server)?;
        self.inner.check_digit(input)?;
        Ok(self.inner.first_level(&server.inner, input, singles, rows))
    }

    /// Second level: keyswitch and modulus-switch `lo` (value in `0..16`), blind-rotate the
    /// encrypted accumulator with the default bootstrapping key and extract: the result
    /// encrypts `t[16·hi + lo]` for the accumulator of table `t` and first-level input `hi`.
    pub fn second_level(
        &self,
        server: &ServerKey,
        acc: &Accumulator,
        lo: &Digit,
    ) -> Result<Digit, TfheError> {
        self.inner.check_server(server)?;
        self.inner.check_acc(acc)?;
        self.inner.check_digit(lo)?;
        Ok(self.inner.second_level(&server.inner, acc, lo))
    }

    /// [`TreeKey::first_level`] for several jobs in parallel on the current rayon pool. All
    /// jobs are checked before any is run; output `i` belongs to job `i`.
    #[allow(clippy::type_complexity)]
    pub fn first_level_batch(
        &self,
        server: &ServerKey,
        jobs: &[(&Digit, &[NegacyclicLut], &[&Table256])],
    ) -> Result<Vec<(Vec<Digit>, Vec<Accumulator>)>, TfheError> {
        self.inner.check_server(server)?;
        for (d, _, _) in jobs {
            self.inner.check_digit(d)?;
        }
        Ok(jobs
            .par_iter()
            .with_max_len(1)
            .map(|(d, singles, rows)| self.inner.first_level(&server.inner, d, singles, rows))
            .collect())
    }

    /// [`TreeKey::second_level`] for several jobs in parallel on the current rayon pool. All
    /// jobs are checked before any is run; output `i` belongs to job `i`.
    pub fn second_level_batch(
        &self,
        server: &ServerKey,
        jobs: &[(&Accumulator, &Digit)],
    ) -> Result<Vec<Digit>, TfheError> {
        self.inner.check_server(server)?;
        for (a, d) in jobs {
            self.inner.check_acc(a)?;
            self.inner.check_digit(d)?;
        }
        Ok(jobs
            .par_iter()
            .with_max_len(1)
            .map(|(a, d)| self.inner.second_level(&server.inner, a, d))
            .collect())
    }

    /// LUTeval: `t[16·hi + lo]` for nibbles `hi`, `lo` (values in `0..16`) with two blind
    /// rotations and one packing keyswitch.
    pub fn lut_eval(
        &self,
        server: &ServerKey,
        hi: &Digit,
        lo: &Digit,
        t: &Table256,
    ) -> Result<Digit, TfheError> {
        self.inner.check_digit(lo)?;
        let (_, accs) = self.first_level(server, hi, &[], &[t])?;
        self.second_level(server, &accs[0], lo)
    }

    /// MVLUTeval: `ts[i][16·hi + los[i]]` for every `i`, sharing one first-level blind
    /// rotation on `hi` (`1 + k` blind rotations, one packing per *distinct* table). Packings
    /// and second levels run in parallel on the current rayon pool.
    ///
    /// Errors with [`TfheError::LengthMismatch`] when `los` and `ts` differ in length.
    pub fn mv_lut_eval(
        &self,
        server: &ServerKey,
        hi: &Digit,
        los: &[&Digit],
        ts: &[&Table256],
    ) -> Result<Vec<Digit>, TfheError> {
        if los.len() != ts.len() {
            return Err(TfheError::LengthMismatch {
                expected: ts.len(),
                found: los.len(),
            });
        }
        for lo in los {
            self.inner.check_digit(lo)?;
        }
        let mut distinct: Vec<&Table256> = Vec::new();
        let index: Vec<usize> = ts
            .iter()
            .map(|t| match distinct.iter().position(|d| *d == *t) {
                Some(i) => i,
                None => {
                    distinct.push(t);
                    distinct.len() - 1
                }
            })
            .collect();
        let (_, accs) = self.first_level(server, hi, &[], &distinct)?;
        let jobs: Vec<(&Accumulator, &Digit)> = index
            .iter()
            .zip(los)
            .map(|(&i, lo)| (&accs[i], *lo))
            .collect();
        self.second_level_batch(server, &jobs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digit::encode;

    /// The cause of the asm file-flow bug, and its fix: two FFT plans (tfhe picks one per
    /// process, by timing) store the same transform in different orders, and the standard
    /// order the tree key is now written in is the same for both.
    #[test]
    fn fourier_standard_order_does_not_depend_on_the_fft_plan() {
        use tfhe::core_crypto::fft_impl::fft64::c64;
        use tfhe::core_crypto::fft_impl::fft64::math::fft::{FftAlgo, Method, Plan};
        let n = 1024; // Fourier size of the 2048-coefficient polynomials of every parameter set
        let input: Vec<c64> = (0..n)
            .map(|k| c64::new((k * k % 97) as f64 - 48.0, (k % 13) as f64))
            .collect();
        let plans = [
            Plan::new(
                n,
                Method::UserProvided {
                    base_algo: FftAlgo::Dif4,
                    base_n: n,
                },
            ),
            Plan::new(
                n,
                Method::UserProvided {
                    base_algo: FftAlgo::Dit8,
                    base_n: 64,
                },
            ),
            Plan::new(
                n,
                Method::UserProvided {
                    base_algo: FftAlgo::Dif2,
                    base_n: 32,
                },
            ),
        ];
        let mut standard = Vec::new();
        let mut raw = Vec::new();
        for plan in &plans {
            let mut buffers = ComputationBuffers::new();
            buffers.resize(plan.fft_scratch().unaligned_bytes_required());
            let mut buf = input.clone();
            plan.fwd(&mut buf, buffers.stack());
            let positions = wire::standard_positions(n, |b| {
                wire::plan_to_standard(|ser| plan.serialize_fourier_buffer(ser, b))
            })
            .unwrap();
            standard.push(positions.iter().map(|&k| buf[k]).collect::<Vec<_>>());
            raw.push(buf);
        }
        let close = |a: &[c64], b: &[c64]| {
            a.iter()
                .zip(b)
                .all(|(x, y)| (x - y).norm() <= 1e-6 * (1.0 + x.norm()))
        };
        // The raw layouts differ: reading one plan's buffer with another plan is the bug.
        assert!(!close(&raw[0], &raw[1]) && !close(&raw[0], &raw[2]));
        // In the standard order they agree.
        assert!(close(&standard[0], &standard[1]) && close(&standard[0], &standard[2]));
    }

    /// `TV0·v` equals the direct test polynomial layout of `ServerKey::bootstrap`.
    #[test]
    fn jumps_reproduce_test_polynomial() {
        let n = 2048;
        let b = box_width(n);
        let luts = [
            NegacyclicLut::from_fn(|x| x),
            NegacyclicLut::from_fn(|x| if x % 2 == 0 { 0 } else { 15 }),
            NegacyclicLut::from_fn(|x| 3 * x * x + 7),
            NegacyclicLut::from_fn(|_| -16),
            NegacyclicLut::from_fn(|x| if x % 2 == 0 { -16 } else { 0 }),
            NegacyclicLut::from_fn(|x| 16 - x),
        ];
        for lut in &luts {
            let d = jumps(lut);
            assert!(d.iter().map(|x| x * x).sum::<i64>() <= 64 * 64);
            for i in 0..n {
                let mut acc = 0u64;
                for (dk, pk) in d.iter().zip(boundaries(n)) {
                    let s = if i >= pk { 1u64 } else { u64::MAX };
                    acc = acc.wrapping_add((*dk as u64).wrapping_mul(s).wrapping_mul(1 << 58));
                }
                let m = (i + b / 2) / b;
                let expected = if m < 16 {
                    lut.values[m]
                } else {
                    -lut.values[0]
                };
                assert_eq!(acc, encode(expected), "lut {lut:?} at {i}");
            }
        }
    }

    #[test]
    fn dimension_mismatches_are_typed_errors() {
        let p = crate::DEFAULT_PARAMETERS;
        let (ck, sk) = ClientKey::generate_seeded(&p, 11);
        let tk = TreeKey::generate_seeded(&ck, 12);
        let good = ck.encrypt_digit(1);
        let bad = Digit::from_ct(LweCiphertext::new(0u64, LweSize(100), p.ciphertext_modulus));
        let err = TfheError::DimensionMismatch {
            expected: 2048,
            found: 99,
        };
        let t = Table256([0; 256]);
        assert_eq!(tk.first_level(&sk, &bad, &[], &[]).unwrap_err(), err);
        assert_eq!(tk.lut_eval(&sk, &good, &bad, &t).unwrap_err(), err);
        assert_eq!(tk.mv_lut_eval(&sk, &bad, &[&good], &[&t]).unwrap_err(), err);
        assert_eq!(tk.mv_lut_eval(&sk, &good, &[&bad], &[&t]).unwrap_err(), err);
        let jobs: [(&Digit, &[NegacyclicLut], &[&Table256]); 2] =
            [(&good, &[], &[]), (&bad, &[], &[])];
        assert_eq!(tk.first_level_batch(&sk, &jobs).unwrap_err(), err);
        let (_, accs) = tk.first_level(&sk, &good, &[], &[&t]).unwrap();
        assert_eq!(tk.second_level(&sk, &accs[0], &bad).unwrap_err(), err);
        let small = Accumulator {
            glwe: GlweCiphertext::new(
                0u64,
                GlweSize(2),
                PolynomialSize(1024),
                p.ciphertext_modulus,
            ),
        };
        let acc_err = TfheError::DimensionMismatch {
            expected: 2048,
            found: 1024,
        };
        assert_eq!(tk.second_level(&sk, &small, &good).unwrap_err(), acc_err);
        assert_eq!(
            tk.second_level_batch(&sk, &[(&accs[0], &good), (&small, &good)])
                .unwrap_err(),
            acc_err
        );
        let out = tk.second_level(&sk, &accs[0], &good).unwrap();
        assert_eq!(ck.decrypt_digit(&out), 0);
    }

    #[test]
    fn decomposition_rounds_to_nearest() {
        let mut d = [0i64; 2];
        for &a in &[
            0u64,
            1,
            u64::MAX,
            1 << 63,
            0x1234_5678_9abc_def0,
            (1 << 42) - 1,
        ] {
            for (bl, lv) in [(22usize, 1usize), (15, 2)] {
                decompose(a, bl, lv, &mut d);
                let mut r = 0u64;
                for (l, &x) in d[..lv].iter().enumerate() {
                    assert!(x.abs() <= 1 << (bl - 1));
                    r = r.wrapping_add((x as u64).wrapping_mul(1 << (64 - bl * (l + 1))));
                }
                let err = a.wrapping_sub(r) as i64;
                assert!(err.unsigned_abs() <= 1 << (63 - bl * lv), "{a} {bl} {lv}");
            }
        }
    }
}

mod wire {
    //! The serialized form of a [`TreeKey`] (inside a checked envelope of kind
    //! [`crate::Kind::ServerKey`]): a layout tag, the parameter set's id, the Fourier
    //! coefficients of the precise bootstrapping key **in the standard order** and the packing
    //! rows. The dimensions come from the parameter set and every length is checked before the
    //! key is rebuilt; lengths read from the bytes only size plain vectors, which the envelope's
    //! limit bounds (tfhe's own Fourier-key deserializer would allocate whatever the bytes
    //! claim).
    //!
    //! # Why the standard order
    //!
    //! tfhe keeps Fourier coefficients in the order of the FFT plan it picked, and it picks the
    //! plan by timing candidates once per process (`Method::Measure`). Two processes can pick
    //! different plans, hence different orders: a key written in one process's order and read
    //! by another would blind-rotate with permuted coefficients and decrypt to garbage, silently
    //! and at random (this was the asm file-flow bug). So the coefficients are written in the
    //! plan-independent standard order that tfhe's `serialize_fourier_buffer` defines, and put
    //! back in the reading process's own order on load.

    use super::*;
    use crate::envelope::Validate;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use tfhe::core_crypto::fft_impl::fft64::c64;
    use tfhe::core_crypto::fft_impl::fft64::math::fft::{Fft, FftView};

    /// First field of every serialized tree key. Keys written before the layout was fixed start
    /// with the parameter id instead, so they are refused rather than read in the wrong order.
    const LAYOUT: &str = "tree-key/fourier-standard-order/1";

    #[derive(Serialize)]
    struct TreeKeyWireRef<'a> {
        layout: &'a str,
        params_id: &'a str,
        key_set: crate::KeySetId,
        fourier: &'a [c64],
        packing: &'a [u64],
    }

    /// A decoded tree key, before its lengths are checked.
    struct TreeKeyWire {
        params_id: String,
        key_set: crate::KeySetId,
        fourier: Vec<c64>,
        packing: Vec<u64>,
    }

    /// Reads the fields in order and checks the layout tag before anything else, so that a key
    /// of the old layout gets its own error rather than a decoding error further on.
    struct WireVisitor;

    impl<'de> serde::de::Visitor<'de> for WireVisitor {
        type Value = TreeKeyWire;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a tree key")
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<TreeKeyWire, A::Error> {
            use serde::de::Error;
            let missing = |what: &str| A::Error::custom(format!("tree key without its {what}"));
            let layout: String = seq.next_element()?.ok_or_else(|| missing("layout tag"))?;
            if layout != LAYOUT {
                return Err(A::Error::custom(
                    "tree key in the layout of encint before its Fourier-order fix (such a key \
                     can decrypt wrongly in any other process than the one that made it): \
                     generate the keys again",
                ));
            }
            Ok(TreeKeyWire {
                params_id: seq.next_element()?.ok_or_else(|| missing("parameter id"))?,
                key_set: seq.next_element()?.ok_or_else(|| missing("key set id"))?,
                fourier: seq
                    .next_element()?
                    .ok_or_else(|| missing("bootstrapping key"))?,
                packing: seq.next_element()?.ok_or_else(|| missing("packing key"))?,
            })
        }
    }

    /// `positions[i]`: where coefficient `i` of the standard order sits in a plan's own layout,
    /// for Fourier polynomials of `n` coefficients. `to_standard` reorders one polynomial from
    /// the plan's layout to the standard order (the plan's `serialize_fourier_buffer`); it is
    /// run once on the buffer `0, 1, …, n−1`, and its output must be a permutation of it.
    pub(super) fn standard_positions(
        n: usize,
        to_standard: impl FnOnce(&[c64]) -> Result<Vec<c64>, String>,
    ) -> Result<Vec<usize>, String> {
        let index: Vec<c64> = (0..n).map(|k| c64::new(k as f64, 0.0)).collect();
        let reordered = to_standard(&index)?;
        let mut seen = vec![false; n];
        let mut positions = Vec::with_capacity(n);
        for v in &reordered {
            let k = v.re as usize;
            if v.im != 0.0 || v.re != k as f64 || k >= n || seen[k] {
                return Err("the FFT plan's Fourier order is not a permutation".into());
            }
            seen[k] = true;
            positions.push(k);
        }
        if positions.len() != n {
            return Err(format!(
                "the FFT plan reordered {} of {n} Fourier coefficients",
                positions.len()
            ));
        }
        Ok(positions)
    }

    /// Reorders one polynomial from the plan's layout to the standard order, through the plan's
    /// own serializer (bincode in memory).
    pub(super) fn plan_to_standard(
        serialize: impl Fn(
            &mut bincode::Serializer<&mut Vec<u8>, bincode::DefaultOptions>,
        ) -> Result<(), bincode::Error>,
    ) -> Result<Vec<c64>, String> {
        use bincode::Options;
        let mut bytes = Vec::new();
        let mut ser = bincode::Serializer::new(&mut bytes, bincode::DefaultOptions::new());
        serialize(&mut ser).map_err(|e| format!("cannot reorder a Fourier polynomial: {e}"))?;
        bincode::DefaultOptions::new()
            .deserialize(&bytes)
            .map_err(|e| format!("cannot reorder a Fourier polynomial: {e}"))
    }

    /// [`standard_positions`] for this process's tfhe plan of Fourier size `n`.
    fn process_positions(fft: FftView<'_>, n: usize) -> Result<Vec<usize>, String> {
        standard_positions(n, |buf| {
            plan_to_standard(|ser| fft.serialize_fourier_buffer(ser, buf))
        })
    }

    impl Serialize for TreeKey {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            use serde::ser::Error;
            let p = &self.inner.params;
            let fft = Fft::new(p.polynomial_size);
            let n = p.polynomial_size.to_fourier_polynomial_size().0;
            let positions = process_positions(fft.as_view(), n).map_err(S::Error::custom)?;
            let reorder = |data: &[c64]| -> Vec<c64> {
                data.chunks_exact(n)
                    .flat_map(|poly| positions.iter().map(move |&k| poly[k]))
                    .collect()
            };
            TreeKeyWireRef {
                layout: LAYOUT,
                params_id: p.name,
                key_set: self.inner.key_set,
                fourier: &reorder(self.inner.fourier_bsk.as_view().data()),
                packing: &self.inner.packing,
            }
            .serialize(serializer)
        }
    }

    fn rebuild(p: DigitParameters, w: TreeKeyWire) -> Result<TreeKey, String> {
        let glwe_size = p.glwe_dimension.to_glwe_size();
        let mut fourier_bsk = FourierLweBootstrapKey::new(
            p.lwe_dimension,
            glwe_size,
            p.polynomial_size,
            DecompositionBaseLog(PRECISE_PBS_BASE_LOG),
            DecompositionLevelCount(PRECISE_PBS_LEVEL),
        );
        let n = p.polynomial_size.to_fourier_polynomial_size().0;
        let positions = process_positions(Fft::new(p.polynomial_size).as_view(), n)?;
        let dst = fourier_bsk.as_mut_view().data();
        if dst.len() != w.fourier.len() {
            return Err(format!(
                "tree bootstrapping key has {} coefficients, expected {}",
                w.fourier.len(),
                dst.len()
            ));
        }
        for (out, poly) in dst.chunks_exact_mut(n).zip(w.fourier.chunks_exact(n)) {
            for (&k, &v) in positions.iter().zip(poly) {
                out[k] = v;
            }
        }
        let packing_len =
            p.big_lwe_dimension().0 * PACKING_LEVEL * glwe_size.0 * p.polynomial_size.0;
        if w.packing.len() != packing_len {
            return Err(format!(
                "tree packing key has {} coefficients, expected {packing_len}",
                w.packing.len()
            ));
        }
        Ok(TreeKey {
            inner: Arc::new(TreeKeyInner::new(p, w.key_set, fourier_bsk, w.packing)),
        })
    }

    impl<'de> Deserialize<'de> for TreeKey {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            use serde::de::Error;
            const FIELDS: &[&str] = &["layout", "params_id", "key_set", "fourier", "packing"];
            let w = deserializer.deserialize_struct("TreeKeyWire", FIELDS, WireVisitor)?;
            let params = DigitParameters::from_id(&w.params_id).ok_or_else(|| {
                D::Error::custom(format!("unknown parameter set {}", w.params_id))
            })?;
            rebuild(params, w).map_err(D::Error::custom)
        }
    }

    impl Validate for TreeKey {
        fn validate(&self, params: &DigitParameters) -> Result<(), String> {
            if self.inner.params.name == params.name {
                Ok(())
            } else {
                Err(format!(
                    "tree key for {}, expected {}",
                    self.inner.params.name, params.name
                ))
            }
        }
    }
}
