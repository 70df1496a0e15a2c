//! The full-RNS variants: BEHZ (Bajard, Eynard, Hasan and Zucca, "A Full RNS Variant of FV
//! like Somewhat Homomorphic Encryption Schemes") and HPS (Halevi, Polyakov and Shoup, "An
//! Improved RNS Variant of the BFV Homomorphic Encryption Scheme").
//!
//! They share `q`, keys, encryption and relinearisation (RNS-digit gadget); they differ in
//! decryption (BEHZ: `gamma` correction; HPS: fractional scale-and-round) and in the
//! multiplication (BEHZ: fast extension + Montgomery correction, floor, Shenoy-Kumaresan;
//! HPS: exact floating-point extension, exact scale-and-round, exact extension back).

use super::context::RnsContext;
use super::sampling;
use crate::poly::{add_flat, mul_acc_flat, ntt_backward, ntt_forward, RnsPoly};
use crate::FvError;
use rand::{CryptoRng, RngCore};

impl RnsContext {
    fn k(&self) -> usize {
        self.q.len()
    }

    fn signed_ntt(&self, c: &[i64]) -> Vec<u64> {
        let mut p = RnsPoly::from_signed(c, self.q.moduli());
        p.to_ntt(&self.ntt_q);
        p.data
    }

    /// `(-(a s + e), a)` in NTT form.
    pub(crate) fn keygen_pk<R: RngCore + CryptoRng>(
        &self,
        s_q: &[u64],
        sigma: f64,
        rng: &mut R,
    ) -> (Vec<u64>, Vec<u64>) {
        let n = self.n;
        let a = sampling::uniform(self.q.moduli(), n, rng);
        let e = self.signed_ntt(&sampling::gaussian(n, sigma, rng));
        let mut p0 = a.clone();
        for (i, op) in self.ntt_q.iter().enumerate() {
            let m = op.modulus();
            let r = i * n..(i + 1) * n;
            op.mul_assign(&mut p0[r.clone()], &s_q[r.clone()]);
            for (x, &y) in p0[r.clone()].iter_mut().zip(&e[r]) {
                *x = m.neg(m.add(*x, y));
            }
        }
        (p0, a)
    }

    /// `K` pairs `(-(a_i s + e_i) + (Q/q_i) [(Q/q_i)^-1]_{q_i} s^2, a_i)`, NTT form.
    pub(crate) fn keygen_rlk<R: RngCore + CryptoRng>(
        &self,
        s_q: &[u64],
        sigma: f64,
        rng: &mut R,
    ) -> (Vec<Vec<u64>>, Vec<Vec<u64>>) {
        let n = self.n;
        let mut s2 = s_q.to_vec();
        for (i, op) in self.ntt_q.iter().enumerate() {
            let r = i * n..(i + 1) * n;
            op.mul_assign(&mut s2[r.clone()], &s_q[r]);
        }
        let mut k0 = Vec::new();
        let mut k1 = Vec::new();
        for i in 0..self.k() {
            let (mut b, a) = self.keygen_pk(s_q, sigma, rng);
            let m = self.q.moduli()[i];
            let g = self.qhat_mod_q[i];
            for c in 0..n {
                b[i * n + c] = m.add(b[i * n + c], m.mul(s2[i * n + c], g));
            }
            k0.push(b);
            k1.push(a);
        }
        (k0, k1)
    }

    pub(crate) fn add_delta_m(&self, c0: &mut [u64], m: &[u64]) {
        let n = self.n;
        for (i, md) in self.q.moduli().iter().enumerate() {
            let dl = self.delta_q[i];
            let ds = md.shoup(dl);
            for (x, &v) in c0[i * n..(i + 1) * n].iter_mut().zip(m) {
                *x = md.add(*x, md.mul_shoup(v, dl, ds));
            }
        }
    }

    fn add_signed(&self, c: &mut [u64], e: &[i64]) {
        let n = self.n;
        for (i, md) in self.q.moduli().iter().enumerate() {
            for (x, &v) in c[i * n..(i + 1) * n].iter_mut().zip(e) {
                *x = md.add(*x, md.reduce_i64(v));
            }
        }
    }

    /// Public-key encryption of `m` (coefficients `< t`): `(p0 u + e1 + Delta m, p1 u + e2)`.
    pub(crate) fn encrypt_pk<R: RngCore + CryptoRng>(
        &self,
        p0: &[u64],
        p1: &[u64],
        m: &[u64],
        sigma: f64,
        rng: &mut R,
    ) -> Vec<RnsPoly> {
        let n = self.n;
        let u = self.signed_ntt(&sampling::ternary(n, rng));
        let mut out = Vec::with_capacity(2);
        for (idx, pk) in [p0, p1].into_iter().enumerate() {
            let mut c = u.clone();
            for (i, op) in self.ntt_q.iter().enumerate() {
                let r = i * n..(i + 1) * n;
                op.mul_assign_normalize(&mut c[r.clone()], &pk[r.clone()]);
                op.backward_unnormalized(&mut c[r]);
            }
            self.add_signed(&mut c, &sampling::gaussian(n, sigma, rng));
            if idx == 0 {
                self.add_delta_m(&mut c, m);
            }
            out.push(RnsPoly {
                data: c,
                n,
                ntt: false,
            });
        }
        out
    }

    /// Secret-key encryption: `(-(a s) + e + Delta m, a)`.
    pub(crate) fn encrypt_sk<R: RngCore + CryptoRng>(
        &self,
        s_q: &[u64],
        m: &[u64],
        sigma: f64,
        rng: &mut R,
    ) -> Vec<RnsPoly> {
        let n = self.n;
        let a = sampling::uniform(self.q.moduli(), n, rng);
        let mut c0 = a.clone();
        ntt_forward(&mut c0, &self.ntt_q, n);
        for (i, op) in self.ntt_q.iter().enumerate() {
            let r = i * n..(i + 1) * n;
            op.mul_assign(&mut c0[r.clone()], &s_q[r.clone()]);
            op.backward(&mut c0[r.clone()]);
            let md = op.modulus();
            for x in &mut c0[r] {
                *x = md.neg(*x);
            }
        }
        self.add_signed(&mut c0, &sampling::gaussian(n, sigma, rng));
        self.add_delta_m(&mut c0, m);
        vec![
            RnsPoly {
                data: c0,
                n,
                ntt: false,
            },
            RnsPoly {
                data: a,
                n,
                ntt: false,
            },
        ]
    }

    /// `c0 + c1 s` in coefficient form.
    pub(crate) fn phase(&self, s_q: &[u64], c: &[RnsPoly]) -> Vec<u64> {
        let n = self.n;
        let mut x = c[1].data.clone();
        for (i, op) in self.ntt_q.iter().enumerate() {
            let r = i * n..(i + 1) * n;
            op.forward(&mut x[r.clone()]);
            op.mul_assign_normalize(&mut x[r.clone()], &s_q[r.clone()]);
            op.backward_unnormalized(&mut x[r]);
        }
        add_flat(&mut x, &c[0].data, self.q.moduli(), n);
        x
    }

    /// Decryption, BEHZ (`behz = true`) or HPS; refuses a phase whose noise is at or past
    /// the decryption bound ([`super::check_rounding`]).
    pub(crate) fn decrypt(
        &self,
        s_q: &[u64],
        c: &[RnsPoly],
        behz: bool,
        t: u64,
    ) -> Result<Vec<u64>, FvError> {
        let x = self.phase(s_q, c);
        super::check_rounding(self.q.max_rounding_distance(&x, t, self.n))?;
        if behz {
            self.behz_dec.scale(&x, self.n)
        } else {
            let mut out = vec![0u64; self.n];
            self.hps_dec.scale(&x, &mut out, self.n)?;
            Ok(out)
        }
    }

    /// Pointwise tensor product of extended ciphertexts (NTT form, `Q u aux`) with the
    /// Karatsuba pattern; returns the three products in coefficient form.
    fn tensor(&self, a: [Vec<u64>; 2], b: [Vec<u64>; 2]) -> [Vec<u64>; 3] {
        let n = self.n;
        let [a0, a1] = a;
        let [b0, b1] = b;
        let mut d0 = a0.clone();
        let mut d2 = a1.clone();
        let mut s = a0;
        let mut sb = b0.clone();
        for (i, op) in self.ntt_qa.iter().enumerate() {
            let r = i * n..(i + 1) * n;
            let m = op.modulus();
            op.mul_assign_normalize(&mut d0[r.clone()], &b0[r.clone()]);
            op.mul_assign_normalize(&mut d2[r.clone()], &b1[r.clone()]);
            for ((x, &y), (z, &w)) in s[r.clone()]
                .iter_mut()
                .zip(&a1[r.clone()])
                .zip(sb[r.clone()].iter_mut().zip(&b1[r.clone()]))
            {
                *x = m.add(*x, y);
                *z = m.add(*z, w);
            }
            op.mul_assign_normalize(&mut s[r.clone()], &sb[r.clone()]);
            for ((x, &y), &z) in s[r.clone()]
                .iter_mut()
                .zip(&d0[r.clone()])
                .zip(&d2[r.clone()])
            {
                *x = m.sub(m.sub(*x, y), z);
            }
            op.backward_unnormalized(&mut d0[r.clone()]);
            op.backward_unnormalized(&mut s[r.clone()]);
            op.backward_unnormalized(&mut d2[r]);
        }
        [d0, s, d2]
    }

    /// The product of `a` and `b` without relinearisation, shared by HPS and BEHZ: every
    /// component is extended from `Q` to `Q ∪ aux` with `extend` (from the `Q` residues to
    /// the aux ones) and moved to NTT form, the tensor product is taken, and each of its
    /// three parts is scaled by `t/q` back to `Q` with `scale` (from `Q ∪ aux` residues to
    /// `Q` residues).
    fn scaled_product(
        &self,
        a: &[RnsPoly],
        b: &[RnsPoly],
        extend: impl Fn(&[u64], &mut [u64]) -> Result<(), FvError>,
        scale: impl Fn(&[u64], &mut [u64]) -> Result<(), FvError>,
    ) -> Result<Vec<RnsPoly>, FvError> {
        let n = self.n;
        let kn = self.k() * n;
        let ext = |c: &RnsPoly| -> Result<Vec<u64>, FvError> {
            let mut v = vec![0u64; self.ntt_qa.len() * n];
            v[..kn].copy_from_slice(&c.data);
            let (q, aux) = v.split_at_mut(kn);
            extend(&*q, aux)?;
            ntt_forward(&mut v, &self.ntt_qa, n);
            Ok(v)
        };
        let prods = self.tensor([ext(&a[0])?, ext(&a[1])?], [ext(&b[0])?, ext(&b[1])?]);
        prods
            .iter()
            .map(|d| {
                let mut in_q = vec![0u64; kn];
                scale(d, &mut in_q)?;
                Ok(RnsPoly {
                    data: in_q,
                    n,
                    ntt: false,
                })
            })
            .collect()
    }

    /// HPS multiplication (without relinearisation).
    pub(crate) fn mul_hps(&self, a: &[RnsPoly], b: &[RnsPoly]) -> Result<Vec<RnsPoly>, FvError> {
        let n = self.n;
        let na = self.aux.len();
        self.scaled_product(
            a,
            b,
            |q, aux| self.hps_q_to_aux.exact_hps(q, aux, n),
            |d, in_q| {
                let mut in_aux = vec![0u64; na * n];
                self.hps_scale.scale(d, &mut in_aux, n)?;
                self.hps_aux_to_q.exact_hps(&in_aux, in_q, n)
            },
        )
    }

    /// BEHZ multiplication (without relinearisation).
    pub(crate) fn mul_behz(&self, a: &[RnsPoly], b: &[RnsPoly]) -> Result<Vec<RnsPoly>, FvError> {
        let n = self.n;
        let kn = self.k() * n;
        let na = self.aux.len();
        self.scaled_product(
            a,
            b,
            |q, aux| self.behz_mont.convert(q, aux, n),
            |d, in_q| {
                // Fast floor: (t x - FBE(|t x|_q)) / q in B_sk.
                let mut conv = vec![0u64; na * n];
                self.behz_floor.fast(&d[..kn], &mut conv, n)?;
                for (j, m) in self.aux.moduli().iter().enumerate() {
                    let (qi, qis) = self.behz_q_inv_aux[j];
                    let tb = self.behz_t_aux[j];
                    let xs = &d[kn + j * n..kn + (j + 1) * n];
                    let cs = &mut conv[j * n..(j + 1) * n];
                    for (cv, &x) in cs.iter_mut().zip(xs) {
                        *cv = m.mul_shoup(m.sub(m.mul(x, tb), *cv), qi, qis);
                    }
                }
                self.behz_sk.extend(&conv, in_q, n)
            },
        )
    }

    /// Relinearisation with the RNS-digit gadget: `c2 = sum_i [c2 (Q/q_i)^-1]_{q_i} (Q/q_i)`.
    pub(crate) fn relin(&self, c: &[RnsPoly], k0: &[Vec<u64>], k1: &[Vec<u64>]) -> Vec<RnsPoly> {
        let n = self.n;
        let k = self.k();
        let mut acc0 = vec![0u64; k * n];
        let mut acc1 = vec![0u64; k * n];
        let mut r = vec![0u64; k * n];
        let mut signed = vec![0i64; n];
        for i in 0..k {
            let mi = self.q.moduli()[i];
            let (w, ws) = self.q.qhat_inv(i);
            for (s, &x) in signed.iter_mut().zip(c[2].residues(i)) {
                *s = mi.center(mi.mul_shoup(x, w, ws));
            }
            for (j, mj) in self.q.moduli().iter().enumerate() {
                for (o, &s) in r[j * n..(j + 1) * n].iter_mut().zip(&signed) {
                    *o = mj.reduce_small_signed(s);
                }
            }
            ntt_forward(&mut r, &self.ntt_q, n);
            mul_acc_flat(&mut acc0, &r, &k0[i], &self.ntt_q, n);
            mul_acc_flat(&mut acc1, &r, &k1[i], &self.ntt_q, n);
        }
        ntt_backward(&mut acc0, &self.ntt_q, n);
        ntt_backward(&mut acc1, &self.ntt_q, n);
        add_flat(&mut acc0, &c[0].data, self.q.moduli(), n);
        add_flat(&mut acc1, &c[1].data, self.q.moduli(), n);
        vec![
            RnsPoly {
                data: acc0,
                n,
                ntt: false,
            },
            RnsPoly {
                data: acc1,
                n,
                ntt: false,
            },
        ]
    }

    /// Residue-wise sum.
    pub(crate) fn add(&self, a: &[RnsPoly], b: &[RnsPoly]) -> Vec<RnsPoly> {
        a.iter()
            .zip(b)
            .map(|(x, y)| {
                let mut z = x.clone();
                z.add_assign(y, self.q.moduli());
                z
            })
            .collect()
    }
}
