//! The HPR variant (Bajard, Eynard, Martins, Sousa and Zucca, "An asymptotically faster
//! version of FV supported on HPR"): keys and encryption as in FV with HPR digits, MSD-only
//! decryption (Lemmas 1-2, eq. 7), multiplication of digit polynomials with the Karatsuba
//! pattern keeping the `d - 1` most significant digits and the carry of digit `d - 1`
//! (Lemma 3, Proposition 1), relinearisation with single-digit decompositions and truncated
//! keys (eq. 15, Remark 2) or the coarse decomposition (Remark 3).

use super::context::HprContext;
use super::keys::HprDecomposition;
use super::sampling;
use crate::poly::hpr::HprPoly;
use crate::poly::{mul_acc_flat, ntt_backward, ntt_forward};
use crate::FvError;
use rand::{CryptoRng, RngCore};

impl HprContext {
    fn n(&self) -> usize {
        self.arith.n
    }

    /// `m` digits uniform modulo `p`, centred and exact in all residues.
    fn uniform_digits<R: RngCore + CryptoRng>(&self, m: usize, rng: &mut R) -> HprPoly {
        let a = &self.arith;
        let n = a.n;
        let kn = a.k * n;
        let mut digits = Vec::with_capacity(m);
        for _ in 0..m {
            let mut dg = vec![0u64; a.width() * n];
            dg[..kn].copy_from_slice(&sampling::uniform(&a.moduli()[..a.k], n, rng));
            a.lift_exact(&mut dg);
            digits.push(dg);
        }
        HprPoly { digits, ntt: false }
    }

    /// `-(a s)` digit by digit (exact products, coefficient form), for `a` in coefficient form.
    fn neg_times_s(&self, a: &HprPoly, s: &[u64]) -> HprPoly {
        let ar = &self.arith;
        let n = ar.n;
        let mut out = a.clone();
        for dg in &mut out.digits {
            for (i, op) in ar.ntt_ops().iter().enumerate() {
                let r = i * n..(i + 1) * n;
                op.forward(&mut dg[r.clone()]);
                op.mul_assign_normalize(&mut dg[r.clone()], &s[r.clone()]);
                op.backward_unnormalized(&mut dg[r.clone()]);
                let m = op.modulus();
                for x in &mut dg[r] {
                    *x = m.neg(*x);
                }
            }
        }
        out
    }

    fn add_signed_digit(&self, dg: &mut [u64], e: &[i64]) {
        let n = self.n();
        for (i, m) in self.arith.moduli().iter().enumerate() {
            for (x, &v) in dg[i * n..(i + 1) * n].iter_mut().zip(e) {
                *x = m.add(*x, m.reduce_i64(v));
            }
        }
    }

    fn add_delta_m(&self, c: &mut HprPoly, m: &[u64]) {
        let n = self.n();
        for (l, dg) in c.digits.iter_mut().enumerate() {
            for (i, md) in self.arith.moduli().iter().enumerate() {
                let dl = self.delta_digits[l][i];
                let ds = md.shoup(dl);
                for (x, &v) in dg[i * n..(i + 1) * n].iter_mut().zip(m) {
                    *x = md.add(*x, md.mul_shoup(v, dl, ds));
                }
            }
        }
    }

    /// Public key `(-(a s + e), a)` with carries propagated, NTT form.
    pub(crate) fn keygen_pk<R: RngCore + CryptoRng>(
        &self,
        s: &[u64],
        sigma: f64,
        rng: &mut R,
    ) -> (HprPoly, HprPoly) {
        let mut a = self.uniform_digits(self.arith.d, rng);
        let mut b = self.neg_times_s(&a, s);
        let e: Vec<i64> = sampling::gaussian(self.n(), sigma, rng)
            .iter()
            .map(|x| -x)
            .collect();
        self.add_signed_digit(&mut b.digits[0], &e);
        self.arith.propagate(&mut b);
        self.arith.to_ntt(&mut a);
        self.arith.to_ntt(&mut b);
        (b, a)
    }

    /// Relinearisation key: for digit `i` (and prime `j` in the fine decomposition), an
    /// RLWE sample modulo `p^(m_i)` of `(p / p_j) s^2 p^i` (fine) or `s^2 p^i` (coarse).
    pub(crate) fn keygen_rlk<R: RngCore + CryptoRng>(
        &self,
        s: &[u64],
        sigma: f64,
        decomposition: HprDecomposition,
        truncated: bool,
        rng: &mut R,
    ) -> Vec<Vec<(HprPoly, HprPoly)>> {
        let ar = &self.arith;
        let n = ar.n;
        // s^2 exactly (|s^2| <= n), in all residues, coefficient form.
        let mut s2 = s.to_vec();
        for (i, op) in ar.ntt_ops().iter().enumerate() {
            let r = i * n..(i + 1) * n;
            op.mul_assign_normalize(&mut s2[r.clone()], &s[r.clone()]);
            op.backward_unnormalized(&mut s2[r]);
        }
        let full = vec![ar.d; ar.d];
        let (digits, js) = match (decomposition, truncated) {
            (HprDecomposition::Fine, true) => (&self.rlk_digits_fine, ar.k),
            (HprDecomposition::Coarse, true) => (&self.rlk_digits_coarse, 1),
            (HprDecomposition::Fine, false) => (&full, ar.k),
            (HprDecomposition::Coarse, false) => (&full, 1),
        };
        let mut keys = Vec::with_capacity(ar.d);
        for (i, &mi) in digits.iter().enumerate() {
            let mut row = Vec::with_capacity(js);
            for j in 0..js {
                let mut a = self.uniform_digits(mi, rng);
                let mut b = self.neg_times_s(&a, s);
                let e: Vec<i64> = sampling::gaussian(n, sigma, rng)
                    .iter()
                    .map(|x| -x)
                    .collect();
                self.add_signed_digit(&mut b.digits[0], &e);
                // + scalar * s^2 at digit i, scalar = p / p_j (fine) or 1 (coarse).
                for (idx, m) in ar.moduli().iter().enumerate() {
                    let scalar = match decomposition {
                        HprDecomposition::Fine => {
                            let pj = ar.moduli()[j].value();
                            let ph = ar.radix() / pj;
                            (ph % m.value()).try_into().unwrap_or(0u64)
                        }
                        HprDecomposition::Coarse => 1,
                    };
                    let sc = m.shoup(m.reduce(scalar));
                    let sr = m.reduce(scalar);
                    let dg = &mut b.digits[i][idx * n..(idx + 1) * n];
                    for (x, &v) in dg.iter_mut().zip(&s2[idx * n..(idx + 1) * n]) {
                        *x = m.add(*x, m.mul_shoup(v, sr, sc));
                    }
                }
                ar.propagate(&mut b);
                ar.lift_exact(&mut b.digits[mi - 1]);
                ar.to_ntt(&mut a);
                ar.to_ntt(&mut b);
                row.push((b, a));
            }
            keys.push(row);
        }
        keys
    }

    /// Public-key encryption: `(p0 u + e1 + Delta m, p1 u + e2)`, carries propagated.
    pub(crate) fn encrypt_pk<R: RngCore + CryptoRng>(
        &self,
        p0: &HprPoly,
        p1: &HprPoly,
        m: &[u64],
        sigma: f64,
        rng: &mut R,
    ) -> Vec<HprPoly> {
        let ar = &self.arith;
        let n = ar.n;
        let mut u = ar.digit_from_signed(&sampling::ternary(n, rng));
        ntt_forward(&mut u, ar.ntt_ops(), n);
        let mut out = Vec::with_capacity(2);
        for (idx, pk) in [p0, p1].into_iter().enumerate() {
            let mut c = HprPoly {
                digits: Vec::with_capacity(ar.d),
                ntt: false,
            };
            for pd in &pk.digits {
                let mut dg = u.clone();
                for (i, op) in ar.ntt_ops().iter().enumerate() {
                    let r = i * n..(i + 1) * n;
                    op.mul_assign_normalize(&mut dg[r.clone()], &pd[r.clone()]);
                    op.backward_unnormalized(&mut dg[r]);
                }
                c.digits.push(dg);
            }
            self.add_signed_digit(&mut c.digits[0], &sampling::gaussian(n, sigma, rng));
            if idx == 0 {
                self.add_delta_m(&mut c, m);
            }
            ar.propagate(&mut c);
            out.push(c);
        }
        out
    }

    /// Secret-key encryption: `(-(a s) + e + Delta m, a)`.
    pub(crate) fn encrypt_sk<R: RngCore + CryptoRng>(
        &self,
        s: &[u64],
        m: &[u64],
        sigma: f64,
        rng: &mut R,
    ) -> Vec<HprPoly> {
        let a = self.uniform_digits(self.arith.d, rng);
        let mut c0 = self.neg_times_s(&a, s);
        self.add_signed_digit(&mut c0.digits[0], &sampling::gaussian(self.n(), sigma, rng));
        self.add_delta_m(&mut c0, m);
        self.arith.propagate(&mut c0);
        vec![c0, a]
    }

    /// The phase's top digit, `c_{0,d-1} + c_{1,d-1} s` modulo `p` (k NTTs each way): the
    /// lower digits move it by at most `n + 1`, a rounding error of `t(n + 1)/p`.
    pub(crate) fn top_phase(&self, s: &[u64], c: &[HprPoly]) -> Vec<u64> {
        let ar = &self.arith;
        let n = ar.n;
        let k = ar.k;
        let d = ar.d;
        let mut x = c[1].digits[d - 1][..k * n].to_vec();
        for (i, op) in ar.ntt_ops()[..k].iter().enumerate() {
            let r = i * n..(i + 1) * n;
            op.forward(&mut x[r.clone()]);
            op.mul_assign_normalize(&mut x[r.clone()], &s[r.clone()]);
            op.backward_unnormalized(&mut x[r.clone()]);
            let m = op.modulus();
            for (v, &y) in x[r.clone()].iter_mut().zip(&c[0].digits[d - 1][r]) {
                *v = m.add(*v, y);
            }
        }
        x
    }

    /// The rounding distance of the top-digit phase (what decryption checks).
    pub(crate) fn rounding_distance(&self, s: &[u64], c: &[HprPoly]) -> f64 {
        let x = self.top_phase(s, c);
        self.arith
            .p_basis()
            .max_rounding_distance(&x, self.t, self.arith.n)
    }

    /// MSD-only decryption: the top-digit phase, then eq. (7) with the `gamma` correction
    /// (Lemma 2). A phase whose noise is at or past the decryption bound is refused
    /// ([`super::check_rounding`]).
    pub(crate) fn decrypt(&self, s: &[u64], c: &[HprPoly]) -> Result<Vec<u64>, FvError> {
        let x = self.top_phase(s, c);
        let n = self.arith.n;
        super::check_rounding(self.arith.p_basis().max_rounding_distance(&x, self.t, n))?;
        self.dec.scale(&x, n)
    }

    /// Digit-wise sum, carries propagated.
    pub(crate) fn add(&self, a: &[HprPoly], b: &[HprPoly]) -> Vec<HprPoly> {
        let ar = &self.arith;
        a.iter()
            .zip(b)
            .map(|(x, y)| {
                let mut z = x.clone();
                ar.add_digitwise(&mut z, y);
                ar.propagate(&mut z);
                z
            })
            .collect()
    }

    /// Multiplication without relinearisation (Lemma 3, Proposition 1): the tensor product
    /// of the digit polynomials (Karatsuba in the ciphertext components, schoolbook in `Y`
    /// restricted to the positions `d - 1 .. 2d - 2`), then the `d - 1` most significant
    /// digits with the carry of digit `d - 1`, and carry propagation.
    pub(crate) fn mul(&self, a: &[HprPoly], b: &[HprPoly]) -> Vec<HprPoly> {
        let ar = &self.arith;
        let n = ar.n;
        let d = ar.d;
        let w = ar.width();
        let t = self.t;
        let prep = |c: &HprPoly, scale: bool| -> HprPoly {
            let mut x = c.clone();
            ar.lift_exact(&mut x.digits[d - 1]);
            if scale {
                for dg in &mut x.digits {
                    for (i, m) in ar.moduli().iter().enumerate() {
                        let tm = m.reduce(t);
                        let ts = m.shoup(tm);
                        for v in &mut dg[i * n..(i + 1) * n] {
                            *v = m.mul_shoup(*v, tm, ts);
                        }
                    }
                }
            }
            ar.to_ntt(&mut x);
            x
        };
        let a0 = prep(&a[0], true);
        let a1 = prep(&a[1], true);
        let b0 = prep(&b[0], false);
        let b1 = prep(&b[1], false);
        let sum = |x: &HprPoly, y: &HprPoly| -> HprPoly {
            let mut z = x.clone();
            for (dz, dy) in z.digits.iter_mut().zip(&y.digits) {
                for (i, m) in ar.moduli().iter().enumerate() {
                    for (p, &q) in dz[i * n..(i + 1) * n]
                        .iter_mut()
                        .zip(&dy[i * n..(i + 1) * n])
                    {
                        *p = m.add(*p, q);
                    }
                }
            }
            z
        };
        let sa = sum(&a0, &a1);
        let sb = sum(&b0, &b1);
        // Positions d-1 ..= 2d-2 of the three products.
        let npos = d;
        let mut prods: Vec<Vec<Vec<u64>>> = (0..3).map(|_| Vec::with_capacity(npos)).collect();
        for pos in (d - 1)..=(2 * d - 2) {
            let lo = pos.saturating_sub(d - 1);
            let hi = pos.min(d - 1);
            let mut p0 = vec![0u64; w * n];
            let mut p2 = vec![0u64; w * n];
            let mut p1 = vec![0u64; w * n];
            for ia in lo..=hi {
                let ib = pos - ia;
                mul_acc_flat(&mut p0, &a0.digits[ia], &b0.digits[ib], ar.ntt_ops(), n);
                mul_acc_flat(&mut p2, &a1.digits[ia], &b1.digits[ib], ar.ntt_ops(), n);
                mul_acc_flat(&mut p1, &sa.digits[ia], &sb.digits[ib], ar.ntt_ops(), n);
            }
            for (i, m) in ar.moduli().iter().enumerate() {
                let r = i * n..(i + 1) * n;
                for ((x, &y), &z) in p1[r.clone()].iter_mut().zip(&p0[r.clone()]).zip(&p2[r]) {
                    *x = m.sub(m.sub(*x, y), z);
                }
            }
            for (slot, mut v) in prods.iter_mut().zip([p0, p1, p2]) {
                ntt_backward(&mut v, ar.ntt_ops(), n);
                slot.push(v);
            }
        }
        prods
            .into_iter()
            .map(|mut pv| {
                let mut out = ar.zero();
                for l in 0..d - 1 {
                    out.digits[l] = std::mem::take(&mut pv[l + 1]);
                }
                ar.carry(&mut pv[0], &mut out.digits[0], d == 1);
                ar.propagate(&mut out);
                out
            })
            .collect()
    }

    /// Relinearisation (eq. 15, Remark 2 / Remark 3).
    #[allow(clippy::needless_range_loop)]
    pub(crate) fn relin(
        &self,
        c: &[HprPoly],
        keys: &[Vec<(HprPoly, HprPoly)>],
        decomposition: HprDecomposition,
    ) -> Vec<HprPoly> {
        let ar = &self.arith;
        let n = ar.n;
        let d = ar.d;
        let k = ar.k;
        let kn = k * n;
        let w = ar.width();
        // All decomposition polynomials in NTT form, then one lazy (128-bit, reduced once)
        // inner product per position and residue.
        let c2 = &c[2];
        let nterms = match decomposition {
            HprDecomposition::Fine => d * k,
            HprDecomposition::Coarse => d,
        };
        let mut rs = vec![0u64; nterms * w * n];
        let mut tkeys: Vec<&(HprPoly, HprPoly)> = Vec::with_capacity(nterms);
        let mut signed = vec![0i64; n];
        let mut idx = 0;
        for i in 0..d {
            match decomposition {
                HprDecomposition::Fine => {
                    for j in 0..k {
                        let m = ar.moduli()[j];
                        let (wj, wjs) = ar.p_basis().qhat_inv(j);
                        for (s, &x) in signed.iter_mut().zip(&c2.digits[i][j * n..(j + 1) * n]) {
                            *s = m.center(m.mul_shoup(x, wj, wjs));
                        }
                        let r = &mut rs[idx * w * n..(idx + 1) * w * n];
                        for (ii, mm) in ar.moduli().iter().enumerate() {
                            for (o, &sv) in r[ii * n..(ii + 1) * n].iter_mut().zip(&signed) {
                                *o = mm.reduce_small_signed(sv);
                            }
                        }
                        ntt_forward(r, ar.ntt_ops(), n);
                        tkeys.push(&keys[i][j]);
                        idx += 1;
                    }
                }
                HprDecomposition::Coarse => {
                    let r = &mut rs[idx * w * n..(idx + 1) * w * n];
                    r.copy_from_slice(&c2.digits[i]);
                    // The digit's value is FBE(digit) after propagation; the MSD needs it
                    // computed (its auxiliary residues are not kept).
                    let (pp, bb) = r.split_at_mut(kn);
                    let _ = ar.p_to_bsk.fast_centered(pp, bb, n);
                    ntt_forward(r, ar.ntt_ops(), n);
                    tkeys.push(&keys[i][0]);
                    idx += 1;
                }
            }
        }
        let mut acc0 = vec![vec![0u64; w * n]; d];
        let mut acc1 = vec![vec![0u64; w * n]; d];
        let mut a0 = vec![0u128; n];
        let mut a1 = vec![0u128; n];
        for l in 0..d {
            let width = if l == d - 1 { k } else { w };
            for (ii, m) in ar.moduli()[..width].iter().enumerate() {
                a0.fill(0);
                a1.fill(0);
                let mut cnt = 0;
                for (t, key) in tkeys.iter().enumerate() {
                    if l >= key.0.digits.len() {
                        continue;
                    }
                    let rr = &rs[(t * w + ii) * n..(t * w + ii + 1) * n];
                    let k0 = &key.0.digits[l][ii * n..(ii + 1) * n];
                    let k1 = &key.1.digits[l][ii * n..(ii + 1) * n];
                    for c in 0..n {
                        let x = rr[c] as u128;
                        a0[c] += x * k0[c] as u128;
                        a1[c] += x * k1[c] as u128;
                    }
                    cnt += 1;
                    if cnt == 60 {
                        for v in a0.iter_mut().chain(a1.iter_mut()) {
                            *v = m.reduce_u128(*v) as u128;
                        }
                        cnt = 1;
                    }
                }
                let o0 = &mut acc0[l][ii * n..(ii + 1) * n];
                for (o, &v) in o0.iter_mut().zip(&a0) {
                    *o = m.reduce_u128(v);
                }
                let o1 = &mut acc1[l][ii * n..(ii + 1) * n];
                for (o, &v) in o1.iter_mut().zip(&a1) {
                    *o = m.reduce_u128(v);
                }
            }
        }
        let mut out = Vec::with_capacity(2);
        for (acc, ci) in [acc0, acc1].into_iter().zip(&c[..2]) {
            let mut p = HprPoly {
                digits: acc,
                ntt: true,
            };
            ar.to_coeff(&mut p);
            ar.add_digitwise(&mut p, ci);
            ar.propagate(&mut p);
            out.push(p);
        }
        out
    }
}
