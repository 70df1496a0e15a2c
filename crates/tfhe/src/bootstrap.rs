//! Keyswitch + programmable bootstrap with thread-local scratch memory.

use rayon::prelude::*;
use tfhe::core_crypto::prelude::*;

use crate::digit::{encode, Digit, NegacyclicLut};
use crate::keys::{ClientKey, Ksk, ServerKey, ServerKeyInner};
use crate::params::{DELTA, DIGIT_MODULUS, HALF_MODULUS};
use crate::scratch::{with_scratch, Scratch};
use crate::TfheError;

/// Write the test polynomial of `lut` with `k` interleaved functions into `body`.
///
/// The switched phase of digit `m` is `m·2N/32` (plus noise); box `m` covers the `2N/32`
/// positions centered on it (`[m·B - B/2, m·B + B/2)`, `B = 2N/32`). The blind rotation reads
/// coefficient `p` for `p < N` and `-coefficient (p - N)` for `p >= N`, which realizes the
/// negacyclic extension `f(x + 16) = -f(x)` automatically. With `k > 1` tables the phase is
/// rounded to a multiple of `k` and table `j` is read at offset `j`.
#[cfg(test)]
fn fill_test_polynomial(body: &mut [u64], luts: &[NegacyclicLut]) {
    fill_test_polynomial_scaled(body, luts, false);
}

/// [`fill_test_polynomial`] with values in units of `Δ` or, when `half`, of `Δ/2`.
fn fill_test_polynomial_scaled(body: &mut [u64], luts: &[NegacyclicLut], half: bool) {
    let n = body.len();
    let k = luts.len();
    let boxw = 2 * n / DIGIT_MODULUS as usize;
    for (i, c) in body.iter_mut().enumerate() {
        // Position i in units of k-slots: i = slot·k + j.
        let (slot, j) = (i / k, i % k);
        let pos = slot * k;
        let m = (pos + boxw / 2) / boxw;
        let v = if m < HALF_MODULUS as usize {
            luts[j].values[m]
        } else {
            -luts[j].values[0]
        };
        *c = if half {
            (v as u64).wrapping_mul(DELTA / 2)
        } else {
            encode(v)
        };
    }
}

/// The body of the accumulator (test polynomial, mask zero) that [`ServerKey::bootstrap`]
/// blind-rotates for `lut`, for a polynomial size of `polynomial_size`: values in units of `Δ`,
/// or of `Δ/2` when `half` (the half-step bootstrap of
/// [`ServerKey::try_bootstrap_half_batch`], whose outputs then get `Δ/2` added to the body).
/// Backends that blind-rotate elsewhere (the GPU backend) use exactly this polynomial, so both
/// evaluate the same table with the same boxes.
pub fn test_polynomial(lut: &NegacyclicLut, half: bool, polynomial_size: usize) -> Vec<u64> {
    let mut body = vec![0u64; polynomial_size];
    fill_test_polynomial_scaled(&mut body, std::slice::from_ref(lut), half);
    body
}

impl ServerKeyInner {
    fn check(&self, input: &Digit) -> Result<(), TfheError> {
        input.check_dimension(self.params.big_lwe_dimension().0)
    }

    /// Keyswitch `input` to the small key (on the torus of [`crate::Keyswitch`]) and
    /// modulus-switch it for a blind rotation of `k` interleaved tables (`k` a power of two).
    pub(crate) fn switched(&self, input: &Digit, s: &mut Scratch, k: usize) -> Switched {
        let log_mod = self
            .params
            .polynomial_size
            .to_blind_rotation_input_modulus_log();
        match &self.ksk {
            Ksk::Native64(ksk) => {
                keyswitch_lwe_ciphertext(ksk, &input.ct, &mut s.small);
                Switched::new(s.small.as_view(), log_mod, k)
            }
            Ksk::Native32(ksk) => {
                keyswitch_lwe_ciphertext_with_scalar_change(ksk, &input.ct, &mut s.small32);
                Switched::new(s.small32.as_view(), log_mod, k)
            }
        }
    }

    /// Keyswitch, modulus switch (for `luts.len()` interleaved tables) and blind rotation of
    /// `input` over the test polynomial of `luts` (in units of `Δ/2` when `half`), into the
    /// scratch accumulator `s.acc`.
    fn rotate(&self, input: &Digit, luts: &[NegacyclicLut], half: bool, s: &mut Scratch) {
        let msed = self.switched(input, s, luts.len());
        self.rotate_switched(&msed, luts, half, s);
    }

    /// Blind rotation of the switched input `msed` over the test polynomial of `luts` (in
    /// units of `Δ/2` when `half`), into the scratch accumulator `s.acc`.
    fn rotate_switched(
        &self,
        msed: &Switched,
        luts: &[NegacyclicLut],
        half: bool,
        s: &mut Scratch,
    ) {
        self.rotate_onto(msed, s, |body| {
            fill_test_polynomial_scaled(body, luts, half)
        });
    }

    /// Blind rotation of `msed` over the test polynomial `fill` writes (mask zero), into
    /// the scratch accumulator `s.acc`.
    pub(crate) fn rotate_onto(
        &self,
        msed: &Switched,
        s: &mut Scratch,
        fill: impl FnOnce(&mut [u64]),
    ) {
        s.acc.get_mut_mask().as_mut().fill(0);
        fill(s.acc.get_mut_body().as_mut());
        blind_rotate_assign_mem_optimized(
            msed,
            &mut s.acc,
            &self.fourier_bsk,
            s.fft.as_view(),
            s.buffers.stack(),
        );
    }

    /// Keyswitch + modulus switch + blind rotation of `input` over the test polynomial of
    /// `luts`, then extract `luts.len()` samples.
    fn bootstrap_impl(&self, input: &Digit, luts: &[NegacyclicLut]) -> Vec<Digit> {
        self.bootstrap_scaled(input, luts, false)
    }

    /// Bootstrap with table values in units of `Δ/2` when `half`, then `Δ/2` added to each
    /// output (see [`ServerKey::try_bootstrap_half_batch`]).
    fn bootstrap_scaled(&self, input: &Digit, luts: &[NegacyclicLut], half: bool) -> Vec<Digit> {
        let p = &self.params;
        with_scratch(p, |s| {
            self.rotate(input, luts, half, s);

            let k = luts.len();
            (0..k)
                .map(|j| {
                    let mut out = LweCiphertext::new(
                        0u64,
                        p.big_lwe_dimension().to_lwe_size(),
                        p.ciphertext_modulus,
                    );
                    extract_lwe_sample_from_glwe_ciphertext(&s.acc, &mut out, MonomialDegree(j));
                    if half {
                        let b = out.get_mut_body().data;
                        *b = b.wrapping_add(DELTA / 2);
                    }
                    Digit::from_ct(out)
                })
                .collect()
        })
    }
}

/// A blind-rotation input: the centered-mean modulus switch of a keyswitched ciphertext to
/// `2N / k`, multiplied by `k` (so the switched phase is a multiple of `k`; `k = 1` is the plain
/// switch to `2N`).
pub(crate) struct Switched {
    pub(crate) mask: Vec<usize>,
    pub(crate) body: usize,
    pub(crate) log_modulus: CiphertextModulusLog,
}

impl Switched {
    fn new<T>(lwe: LweCiphertextView<'_, T>, log_mod: CiphertextModulusLog, k: usize) -> Self
    where
        T: UnsignedInteger + CastInto<usize>,
    {
        let log_k = k.trailing_zeros() as usize;
        let coarse = CiphertextModulusLog(log_mod.0 - log_k);
        let msed = lwe_ciphertext_centered_binary_modulus_switch::<T, usize, _>(lwe, coarse);
        let full = (1usize << log_mod.0) - 1;
        Switched {
            mask: msed.mask().map(|a| (a << log_k) & full).collect(),
            body: (msed.body() << log_k) & full,
            log_modulus: log_mod,
        }
    }
}

impl ModulusSwitchedLweCiphertext<usize> for Switched {
    fn log_modulus(&self) -> CiphertextModulusLog {
        self.log_modulus
    }

    fn lwe_dimension(&self) -> LweDimension {
        LweDimension(self.mask.len())
    }

    fn body(&self) -> usize {
        self.body
    }

    fn mask(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.mask.iter().copied()
    }
}

impl ServerKey {
    /// Programmable bootstrap: keyswitch `input` to the small key, then blind-rotate the test
    /// polynomial of `lut`; the result encrypts `lut.eval(m)` under the big key with fresh
    /// (input-independent) noise.
    ///
    /// Correct with the failure probability of the parameters when the noise of `input` is at
    /// most that of a combination of independent bootstrap outputs of quadratic weight
    /// [`crate::DigitParameters::max_quadratic_weight`]. The bootstrap dominates the cost of
    /// every operation (measure it with `examples/bench_pbs.rs`); linear operations on digits
    /// are orders of magnitude cheaper.
    ///
    /// # Panics
    /// If `input` belongs to another parameter set (impossible while
    /// [`crate::DEFAULT_PARAMETERS`] is the only set); see [`ServerKey::try_bootstrap`].
    pub fn bootstrap(&self, input: &Digit, lut: &NegacyclicLut) -> Digit {
        self.try_bootstrap(input, lut)
            .expect("digit of another parameter set")
    }

    /// [`ServerKey::bootstrap`], returning an error instead of panicking on a digit of another
    /// parameter set.
    pub fn try_bootstrap(&self, input: &Digit, lut: &NegacyclicLut) -> Result<Digit, TfheError> {
        self.inner.check(input)?;
        let mut out = self.inner.bootstrap_impl(input, std::slice::from_ref(lut));
        Ok(out.pop().expect("one table gives one output"))
    }

    /// Bootstrap every `(input, table)` pair in parallel on the current rayon pool (one batch =
    /// one circuit level). Output `i` corresponds to job `i`.
    ///
    /// # Panics
    /// As [`ServerKey::bootstrap`]; see [`ServerKey::try_bootstrap_batch`].
    pub fn bootstrap_batch(&self, jobs: &[(&Digit, &NegacyclicLut)]) -> Vec<Digit> {
        self.try_bootstrap_batch(jobs)
            .expect("digit of another parameter set")
    }

    /// [`ServerKey::bootstrap_batch`], checking every input first.
    pub fn try_bootstrap_batch(
        &self,
        jobs: &[(&Digit, &NegacyclicLut)],
    ) -> Result<Vec<Digit>, TfheError> {
        self.batch(jobs, false)
    }

    /// Checked, parallel single-table bootstraps (`half`: see
    /// [`ServerKey::try_bootstrap_half_batch`]).
    fn batch(
        &self,
        jobs: &[(&Digit, &NegacyclicLut)],
        half: bool,
    ) -> Result<Vec<Digit>, TfheError> {
        for (d, _) in jobs {
            self.inner.check(d)?;
        }
        Ok(jobs
            .par_iter()
            .with_max_len(1)
            .map(|(d, l)| {
                let mut out = self
                    .inner
                    .bootstrap_scaled(d, std::slice::from_ref(*l), half);
                out.pop().expect("one table gives one output")
            })
            .collect())
    }

    /// Half-step bootstraps: each table holds *odd* values `h(x)` in units of `Δ/2` (with the
    /// negacyclic extension `h(x + 16) = -h(x)`), and `Δ/2` is added after the rotation, so
    /// job `(d, h)` returns an encryption of `(h(m) + 1) / 2` for the digit `m` of `d`. This
    /// evaluates functions with `f(x + 16) = 1 - f(x) (mod 32)`, e.g. the carry `[x >= 16]`
    /// of a sum `x` in `0..32` at unit scale, which no ordinary negacyclic table can. Same
    /// cost, noise and failure probability as [`ServerKey::bootstrap`]; values must be odd
    /// ([`TfheError::EvenHalfStep`] otherwise). Runs in parallel on the current rayon pool.
    pub fn try_bootstrap_half_batch(
        &self,
        jobs: &[(&Digit, &NegacyclicLut)],
    ) -> Result<Vec<Digit>, TfheError> {
        for (_, l) in jobs {
            if let Some(&v) = l.values.iter().find(|v| v.rem_euclid(2) == 0) {
                return Err(TfheError::EvenHalfStep(v));
            }
        }
        self.batch(jobs, true)
    }

    /// Evaluate `k = luts.len()` tables (`k ∈ {1, 2}`) on one input with a single keyswitch and
    /// blind rotation ("many-LUT" bootstrap): about the cost of one [`ServerKey::bootstrap`].
    ///
    /// **Noise cost — read before use.** The phase is switched to `2N/k` instead of `2N`, so the
    /// modulus-switch error is `k` times larger. With the default parameters that error
    /// *dominates* the blind-rotation input noise: measured standard deviation ≈ 4.8 of the
    /// 2N = 4096 positions for `k = 1` (fresh or quadratic weight 25 alike), against a margin
    /// of ±64 positions. So the usual "margin / k, quadratic-weight budget / k²" rule does not
    /// rescue `k = 2`: even for a fresh input the standard deviation is ≈ 10 positions (≈ 6.4σ
    /// margin, failure probability around `2^-32` per call instead of `2^-129.6`), and input
    /// weight barely matters. `k = 4` (≈ 3.2σ) would fail about once in 700 calls and is
    /// rejected. Use `k = 2` only where a `~2^-32` failure rate is acceptable. The outputs have
    /// the noise of ordinary bootstrap outputs but are *not independent* of each other (they
    /// share the blind rotation), which matters when they are later combined linearly.
    pub fn bootstrap_many(
        &self,
        input: &Digit,
        luts: &[NegacyclicLut],
    ) -> Result<Vec<Digit>, TfheError> {
        if !matches!(luts.len(), 1 | 2) {
            return Err(TfheError::UnsupportedLutCount(luts.len()));
        }
        self.inner.check(input)?;
        Ok(self.inner.bootstrap_impl(input, luts))
    }
}

impl ServerKeyInner {
    /// One blind rotation of `input` over the test polynomial of `lut`, read at each of
    /// `offsets` (see [`ServerKey::try_bootstrap_offsets_batch`]).
    fn bootstrap_offsets(&self, input: &Digit, lut: &NegacyclicLut, offsets: &[u8]) -> Vec<Digit> {
        with_scratch(&self.params, |s| {
            self.rotate(input, std::slice::from_ref(lut), false, s);
            self.extract_offsets(s, offsets)
        })
    }

    /// The rotated accumulator in `s` read at each of `offsets` (see
    /// [`ServerKey::try_bootstrap_offsets_batch`]).
    fn extract_offsets(&self, s: &Scratch, offsets: &[u8]) -> Vec<Digit> {
        let p = &self.params;
        let boxw = 2 * p.polynomial_size.0 / DIGIT_MODULUS as usize;
        offsets
            .iter()
            .map(|&o| {
                let mut out = LweCiphertext::new(
                    0u64,
                    p.big_lwe_dimension().to_lwe_size(),
                    p.ciphertext_modulus,
                );
                // Coefficient `o·B` holds the table at `m + o`; past `N`, the negacyclic
                // wrap: coefficient `(o − 16)·B` negated.
                let half = o as usize >= HALF_MODULUS as usize;
                let degree = (o as usize % HALF_MODULUS as usize) * boxw;
                extract_lwe_sample_from_glwe_ciphertext(&s.acc, &mut out, MonomialDegree(degree));
                if half {
                    lwe_ciphertext_opposite_assign(&mut out);
                }
                Digit::from_ct(out)
            })
            .collect()
    }

    /// One blind rotation of the switched input `msed` over `lut`, read as `reading` says.
    fn read_switched(&self, msed: &Switched, lut: &NegacyclicLut, reading: Reading) -> Vec<Digit> {
        let half = matches!(reading, Reading::Half);
        with_scratch(&self.params, |s| {
            self.rotate_switched(msed, std::slice::from_ref(lut), half, s);
            let mut outs = self.extract_offsets(s, reading.offsets());
            if half {
                for d in &mut outs {
                    let b = d.ct.get_mut_body().data;
                    *b = b.wrapping_add(DELTA / 2);
                }
            }
            outs
        })
    }
}

/// How a blind rotation of [`ServerKey::try_bootstrap_shared_batch`] is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading<'a> {
    /// One output, the table's value: [`ServerKey::bootstrap`].
    Plain,
    /// One output of a half-step bootstrap: [`ServerKey::try_bootstrap_half_batch`].
    Half,
    /// One output per offset: [`ServerKey::try_bootstrap_offsets_batch`].
    Offsets(&'a [u8]),
}

impl Reading<'_> {
    /// The coefficients read: offset 0 alone for a plain or half-step reading.
    fn offsets(&self) -> &[u8] {
        match self {
            Reading::Plain | Reading::Half => &[0],
            Reading::Offsets(o) => o,
        }
    }
}

impl ServerKey {
    /// Several blind rotations of one input after a single keyswitch and modulus switch: job
    /// `(d, rotations)` gives, for each `(lut, reading)` of `rotations`, the outputs of
    /// [`ServerKey::bootstrap`] (`Reading::Plain`), of a half-step bootstrap
    /// (`Reading::Half`, see [`ServerKey::try_bootstrap_half_batch`]) or of a rotation read
    /// at offsets (`Reading::Offsets`, see [`ServerKey::try_bootstrap_offsets_batch`]) of
    /// `lut` on `d`. The keyswitch and the modulus switch (about a tenth of a bootstrap
    /// here) are done once per job; every rotation then runs on the same switched input, so
    /// each output is exactly what the single-table call on `d` would give for the same
    /// keyswitch, with its boxes, margin and failure probability. Jobs, and the rotations
    /// of a job, run in parallel on the current rayon pool. Every job is checked first:
    /// an even half-step value or an offset of 32 or more is an error.
    #[allow(clippy::type_complexity)]
    pub fn try_bootstrap_shared_batch(
        &self,
        jobs: &[(&Digit, Vec<(&NegacyclicLut, Reading<'_>)>)],
    ) -> Result<Vec<Vec<Vec<Digit>>>, TfheError> {
        for (d, rotations) in jobs {
            self.inner.check(d)?;
            for (lut, reading) in rotations {
                match reading {
                    Reading::Half => {
                        if let Some(&v) = lut.values.iter().find(|v| v.rem_euclid(2) == 0) {
                            return Err(TfheError::EvenHalfStep(v));
                        }
                    }
                    Reading::Offsets(o) => {
                        if let Some(&o) = o.iter().find(|&&o| u64::from(o) >= DIGIT_MODULUS) {
                            return Err(TfheError::OffsetOutOfRange(o));
                        }
                    }
                    Reading::Plain => {}
                }
            }
        }
        let inner = &self.inner;
        Ok(jobs
            .par_iter()
            .with_max_len(1)
            .map(|(d, rotations)| {
                let msed = with_scratch(&inner.params, |s| inner.switched(d, s, 1));
                rotations
                    .par_iter()
                    .with_max_len(1)
                    .map(|&(lut, reading)| inner.read_switched(&msed, lut, reading))
                    .collect()
            })
            .collect())
    }
}

impl ServerKey {
    /// Reads one table at several points per blind rotation: job `(d, lut, offsets)` returns,
    /// for each `o` of `offsets` (each below 32), an encryption of `lut.eval(m + o)` for the
    /// digit `m` of `d`, all from one keyswitch and one blind rotation. The rotated test
    /// polynomial holds the table at `m` in its coefficient 0 and at `m + o` in coefficient
    /// `o·2N/32` (negated past `N`), so every output is one ordinary sample extraction: the
    /// boxes, the input's noise margin and hence the failure probability are those of
    /// [`ServerKey::bootstrap`], and each output has the noise of a bootstrap output. With
    /// tables side by side in `lut` (table `j` on slots `j·w .. (j+1)·w`) this evaluates
    /// `16 / w` functions of an input known to lie in `w` consecutive values (the layout of
    /// TFHE-rs' many-LUT bootstrap). Runs in parallel on the current rayon pool; an offset of
    /// 32 or more is an error.
    pub fn try_bootstrap_offsets_batch(
        &self,
        jobs: &[(&Digit, &NegacyclicLut, &[u8])],
    ) -> Result<Vec<Vec<Digit>>, TfheError> {
        for (d, _, offsets) in jobs {
            self.inner.check(d)?;
            if let Some(&o) = offsets.iter().find(|&&o| u64::from(o) >= DIGIT_MODULUS) {
                return Err(TfheError::OffsetOutOfRange(o));
            }
        }
        Ok(jobs
            .par_iter()
            .with_max_len(1)
            .map(|(d, l, offsets)| self.inner.bootstrap_offsets(d, l, offsets))
            .collect())
    }
}

impl ServerKey {
    /// [`ServerKey::bootstrap_many`] for several inputs in parallel on the current rayon pool
    /// (the many-LUT part of one circuit level). Output `i` holds the `luts_i.len()` results of
    /// job `i`. All jobs are checked before any is run.
    pub fn bootstrap_many_batch(
        &self,
        jobs: &[(&Digit, &[NegacyclicLut])],
    ) -> Result<Vec<Vec<Digit>>, TfheError> {
        for (d, luts) in jobs {
            if !matches!(luts.len(), 1 | 2) {
                return Err(TfheError::UnsupportedLutCount(luts.len()));
            }
            self.inner.check(d)?;
        }
        Ok(jobs
            .par_iter()
            .with_max_len(1)
            .map(|(d, luts)| self.inner.bootstrap_impl(d, luts))
            .collect())
    }
}

impl ClientKey {
    /// Noise of the *blind-rotation input* of a bootstrap of `c`: keyswitch `c` with `server`,
    /// modulus-switch it to `2N` like [`ServerKey::bootstrap`] does, and return the error of the
    /// switched phase with respect to `expected·Δ`, as a fraction of the torus. This is the
    /// quantity whose magnitude must stay below `Δ/2 = 1/64` for the bootstrap to be correct.
    pub fn pre_rotation_error(&self, server: &ServerKey, c: &Digit, expected: i64) -> f64 {
        self.pre_rotation_error_k(server, c, expected, 1)
    }

    /// [`ClientKey::pre_rotation_error`] for a many-LUT bootstrap of `k` tables (`k` a power
    /// of two), whose modulus switch targets `2N / k`.
    pub(crate) fn pre_rotation_error_k(
        &self,
        server: &ServerKey,
        c: &Digit,
        expected: i64,
        k: u32,
    ) -> f64 {
        let inner = &server.inner;
        let msed = with_scratch(&inner.params, |s| inner.switched(c, s, k as usize));
        // `2N`: the switched phase carries its modulus.
        let modulus = 1u64 << msed.log_modulus().0;
        let dot = msed
            .mask
            .iter()
            .zip(self.lwe_sk.as_ref())
            .fold(0u64, |acc, (&a, s)| {
                acc.wrapping_add((a as u64).wrapping_mul(*s))
            });
        // A multiple of `k`: the phase switched to `2N / k`, times `k`.
        let phase = (msed.body as u64).wrapping_sub(dot) % modulus;
        // The centered switch subtracts half a step (of `2N / k`), so the switched phase `p`
        // stands for the torus point (p + k/2) / 2N; box `m` of the test polynomial is
        // centered on m·Δ.
        let torus = (phase as f64 + k as f64 / 2.0) / modulus as f64;
        let expected = encode(expected) as f64 / 2f64.powi(64);
        let e = torus - expected;
        e - e.round()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_test_polynomial_centres_each_box_on_its_digit() {
        let lut = NegacyclicLut::from_fn(|x| 3 * x - 7);
        let (n, boxw) = (2048usize, 128usize);
        let full = test_polynomial(&lut, false, n);
        let half_lut = NegacyclicLut::from_fn(|x| 2 * x + 1);
        let half = test_polynomial(&half_lut, true, n);
        for m in 0..16i64 {
            // Box m spans [m·B - B/2, m·B + B/2); its centre and both ends hold f(m).
            let c = m as usize * boxw;
            for pos in [c.saturating_sub(boxw / 2), c, c + boxw / 2 - 1] {
                assert_eq!(full[pos], encode(3 * m - 7), "m = {m}, pos = {pos}");
                assert_eq!(half[pos], ((2 * m + 1) as u64).wrapping_mul(DELTA / 2));
            }
        }
        // The last half box belongs to x = 16: f(16) = -f(0).
        assert_eq!(full[n - 1], encode(7));
    }

    #[test]
    fn test_polynomial_layout() {
        let lut = NegacyclicLut::from_fn(|x| x + 1);
        let mut body = vec![0u64; 2048];
        fill_test_polynomial(&mut body, &[lut]);
        let boxw = 128;
        // Box 0 is centered on 0: positions [0, 64) hold f(0); [64, 192) hold f(1)...
        assert_eq!(body[0], encode(1));
        assert_eq!(body[63], encode(1));
        assert_eq!(body[64], encode(2));
        assert_eq!(body[boxw * 15 + 63], encode(16));
        // ... and the last half box belongs to x = 16: f(16) = -f(0).
        assert_eq!(body[2047], encode(-1));
    }
}
