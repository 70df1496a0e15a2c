//! Evaluation with a tree key: the multi-value first level (rotation of `TV0`, single
//! tables, row packings) and the second level (rotation of a row accumulator by `lo`).

use rayon::prelude::*;
use tfhe::core_crypto::prelude::*;

use super::keys::{TreeKey, TreeKeyInner};
use super::pack::{block_table, combine, decompose, pack_dispatch};
use super::table::{boundaries, box_width, jumps, Accumulator, Table256};
use super::{PACKING_BASE_LOG, PACKING_LEVEL};
use crate::digit::{Digit, NegacyclicLut};
use crate::keys::{ServerKey, ServerKeyInner};
use crate::params::HALF_MODULUS;
use crate::scratch::{with_scratch, Scratch};
use crate::TfheError;

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

/// Key rows handled by one rayon task of a packing (each task sums into its own GLWE).
const ROWS_PER_TASK: usize = 512;

impl TreeKeyInner {
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
