//! Linear operations of the RNS variants (BEHZ, HPS) and the noise-budget query:
//! negation, subtraction, integer linear combinations with a constant, plaintext
//! addition and multiplication. They cost no relinearisation and almost no noise (a
//! weight `w` multiplies the noise by `|w|`); the bit-sliced executor of
//! `encint::fv_bits` builds XOR, NOT and MUX from them.
//!
//! HPR ciphertexts (`q = p^d`) are refused with [`FvError::VariantMismatch`]: their
//! digit form needs carry propagation that these slot-wise helpers do not implement.

use super::ciphertext::Parts;
use super::{Ciphertext, FvContext, Plaintext, SecretKey, Variant};
use crate::poly::RnsPoly;
use crate::FvError;
use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

impl FvContext {
    fn rns_parts<'a>(&self, ct: &'a Ciphertext) -> Result<&'a [RnsPoly], FvError> {
        self.check_ct(ct, &[2, 3])?;
        match &ct.parts {
            Parts::Rns(v) => Ok(v),
            Parts::Hpr(_) => Err(FvError::VariantMismatch(
                "linear operations are implemented for BEHZ and HPS ciphertexts only".into(),
            )),
        }
    }

    /// `Σ w_i · c_i + k` for ciphertexts of one size and variant, integer weights and a
    /// constant `k` added to every slot (the constant polynomial `k`, so in batching
    /// every slot gets `k`). With no terms, errors (the result would have no variant).
    ///
    /// ```no_run
    /// # use encint_fv::bfv::*; use rand::SeedableRng;
    /// let ctx = FvContext::new(FvParameters::default_8192()).unwrap();
    /// let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
    /// let sk = SecretKey::generate(&ctx, &mut rng);
    /// let enc = BatchEncoder::new(&ctx).unwrap();
    /// let a = ctx.encrypt_symmetric(&sk, &enc.encode(&ctx, &vec![1; 8192]).unwrap(),
    ///     Variant::Hps, &mut rng).unwrap();
    /// // 1 - a (NOT of a bit), then 3a + 2
    /// let not_a = ctx.linear_combination(&[(&a, -1)], 1).unwrap();
    /// let l = ctx.linear_combination(&[(&a, 3)], 2).unwrap();
    /// assert_eq!(enc.decode(&ctx.decrypt(&sk, &not_a).unwrap()).unwrap()[0], 0);
    /// assert_eq!(enc.decode(&ctx.decrypt(&sk, &l).unwrap()).unwrap()[5], 5);
    /// ```
    pub fn linear_combination(
        &self,
        terms: &[(&Ciphertext, i64)],
        constant: u64,
    ) -> Result<Ciphertext, FvError> {
        let (first, _) = terms.first().ok_or_else(|| {
            FvError::InvalidParameters("a linear combination needs at least one term".into())
        })?;
        let len = first.len();
        let variant = first.variant;
        let mut parts: Vec<&[RnsPoly]> = Vec::with_capacity(terms.len());
        for (c, _) in terms {
            let p = self.rns_parts(c)?;
            if c.len() != len {
                return Err(FvError::MalformedCiphertext(format!(
                    "{} and {} polynomials in one linear combination",
                    len,
                    c.len()
                )));
            }
            Self::same_variant(first, c)?;
            parts.push(p);
        }
        let t = self.parameters().t;
        if constant >= t {
            return Err(FvError::PlaintextOutOfRange {
                value: constant,
                modulus: t,
            });
        }
        let n = self.parameters().n;
        let moduli = self.rns.q.moduli();
        let mut out: Vec<RnsPoly> = (0..len).map(|_| RnsPoly::zero(moduli.len(), n)).collect();
        for (i, m) in moduli.iter().enumerate() {
            let r = i * n..(i + 1) * n;
            for (p, (_, w)) in parts.iter().zip(terms) {
                let wq = m.reduce_i64(*w);
                if wq == 0 {
                    continue;
                }
                let ws = m.shoup(wq);
                for (o, src) in out.iter_mut().zip(p.iter()) {
                    for (x, &y) in o.data[r.clone()].iter_mut().zip(&src.data[r.clone()]) {
                        *x = m.add(*x, m.mul_shoup(y, wq, ws));
                    }
                }
            }
            if constant != 0 {
                let d = m.mul(self.rns.delta_q[i], constant);
                out[0].data[i * n] = m.add(out[0].data[i * n], d);
            }
        }
        Ok(Ciphertext {
            variant,
            ctx_id: self.id(),
            parts: Parts::Rns(out),
            depth: terms.iter().map(|(c, _)| c.depth).max().unwrap_or(0),
        })
    }

    /// `-a`.
    pub fn neg(&self, a: &Ciphertext) -> Result<Ciphertext, FvError> {
        self.linear_combination(&[(a, -1)], 0)
    }

    /// `a - b`.
    pub fn sub(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext, FvError> {
        self.linear_combination(&[(a, 1), (b, -1)], 0)
    }

    /// `w · a` for an integer `w`.
    pub fn mul_scalar(&self, a: &Ciphertext, w: i64) -> Result<Ciphertext, FvError> {
        self.linear_combination(&[(a, w)], 0)
    }

    /// `a + m` for a plaintext `m` (in batching: slot-wise addition).
    pub fn add_plain(&self, a: &Ciphertext, m: &Plaintext) -> Result<Ciphertext, FvError> {
        self.check_pt(m)?;
        let mut out = self.linear_combination(&[(a, 1)], 0)?;
        if let Parts::Rns(v) = &mut out.parts {
            self.rns.add_delta_m(&mut v[0].data, &m.coeffs);
        }
        Ok(out)
    }

    /// `a · m` for a plaintext `m` (in batching: slot-wise product). The noise grows by
    /// the size of `m`'s coefficients (centred in `(-t/2, t/2]`) times `n`, as much as a
    /// product of ciphertexts, so it counts as one level of depth.
    pub fn mul_plain(&self, a: &Ciphertext, m: &Plaintext) -> Result<Ciphertext, FvError> {
        self.check_pt(m)?;
        let parts = self.rns_parts(a)?;
        let depth = self.product_depth(a.depth)?;
        let t = self.parameters().t;
        let n = self.parameters().n;
        let centred: Vec<i64> = m
            .coeffs
            .iter()
            .map(|&v| {
                if v > t / 2 {
                    v as i64 - t as i64
                } else {
                    v as i64
                }
            })
            .collect();
        let mut mp = RnsPoly::from_signed(&centred, self.rns.q.moduli());
        mp.to_ntt(&self.rns.ntt_q);
        let out = parts
            .iter()
            .map(|p| {
                let mut x = p.clone();
                x.to_ntt(&self.rns.ntt_q);
                for (i, op) in self.rns.ntt_q.iter().enumerate() {
                    let r = i * n..(i + 1) * n;
                    op.mul_assign(&mut x.data[r.clone()], &mp.data[r]);
                }
                x.to_coeff(&self.rns.ntt_q);
                x
            })
            .collect();
        Ok(Ciphertext {
            variant: a.variant,
            ctx_id: self.id(),
            parts: Parts::Rns(out),
            depth,
        })
    }

    /// The invariant noise budget of a two-part ciphertext, in bits (SEAL's definition):
    /// `log2 q - log2 ‖t·[c0 + c1·s]_q‖∞ - 1` with the centred representative, floored
    /// at 0. Decryption is correct while it is positive. Needs the secret key, so it is
    /// a test and diagnosis tool, never part of a server computation. BEHZ/HPS only.
    pub fn noise_budget(&self, sk: &SecretKey, ct: &Ciphertext) -> Result<f64, FvError> {
        self.check_ctx(sk.ctx_id, "secret key")?;
        self.check_ct(ct, &[2])?;
        let parts = self.rns_parts(ct)?;
        if !matches!(ct.variant, Variant::Behz | Variant::Hps) {
            return Err(FvError::VariantMismatch("noise budget of HPR".into()));
        }
        let x = self.rns.phase(&sk.s_q, parts);
        let q = self.rns.q.product().clone();
        let half = &q >> 1u32;
        let t = BigUint::from(self.parameters().t);
        let k = self.rns.q.len();
        let n = self.parameters().n;
        let mut worst = BigUint::zero();
        for c in 0..n {
            let col: Vec<u64> = (0..k).map(|i| x[i * n + c]).collect();
            let v = (self.rns.q.reconstruct(&col) * &t) % &q;
            let a = if v > half { &q - v } else { v };
            if a > worst {
                worst = a;
            }
        }
        let log = |b: &BigUint| -> f64 {
            let bits = b.bits();
            if bits <= 60 {
                b.to_f64().unwrap_or(0.0).max(1.0).log2()
            } else {
                let top = (b >> (bits - 53)).to_f64().unwrap_or(1.0);
                top.log2() + (bits - 53) as f64
            }
        };
        Ok((log(&q) - log(&worst) - 1.0).max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::parameter_mismatch;
    use super::super::{BatchEncoder, FvParameters};
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn linear_ops_and_plaintext_ops_are_slotwise() {
        let ctx = FvContext::new(FvParameters::default_8192()).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let sk = SecretKey::generate(&ctx, &mut rng);
        let enc = BatchEncoder::new(&ctx).unwrap();
        let (n, t) = (ctx.parameters().n, ctx.parameters().t);
        let a: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t)).collect();
        let b: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t)).collect();
        let m: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t)).collect();
        for v in [Variant::Behz, Variant::Hps] {
            let ca = ctx
                .encrypt_symmetric(&sk, &enc.encode(&ctx, &a).unwrap(), v, &mut rng)
                .unwrap();
            let cb = ctx
                .encrypt_symmetric(&sk, &enc.encode(&ctx, &b).unwrap(), v, &mut rng)
                .unwrap();
            let pm = enc.encode(&ctx, &m).unwrap();
            let dec = |c: &Ciphertext| enc.decode(&ctx.decrypt(&sk, c).unwrap()).unwrap();
            let fresh = ctx.noise_budget(&sk, &ca).unwrap();
            assert!(fresh > 100.0, "fresh budget {fresh}");
            let lc = ctx.linear_combination(&[(&ca, 3), (&cb, -2)], 7).unwrap();
            let sub = ctx.sub(&ca, &cb).unwrap();
            let neg = ctx.neg(&ca).unwrap();
            let ap = ctx.add_plain(&ca, &pm).unwrap();
            let mp = ctx.mul_plain(&ca, &pm).unwrap();
            let (dl, ds, dn, da, dm) = (dec(&lc), dec(&sub), dec(&neg), dec(&ap), dec(&mp));
            for i in 0..n {
                let (x, y, z) = (a[i] as u128, b[i] as u128, m[i] as u128);
                let tt = t as u128;
                assert_eq!(dl[i] as u128, (3 * x + 2 * (tt - y) + 7) % tt);
                assert_eq!(ds[i] as u128, (x + tt - y) % tt);
                assert_eq!(dn[i] as u128, (tt - x) % tt);
                assert_eq!(da[i] as u128, (x + z) % tt);
                assert_eq!(dm[i] as u128, (x * z) % tt);
            }
            // A product costs budget; the query sees it.
            let rlk = ctx.generate_relin_key(&sk, v, &mut rng).unwrap();
            let sq = ctx.mul_relin(&ca, &cb, &rlk).unwrap();
            let after = ctx.noise_budget(&sk, &sq).unwrap();
            assert!(after < fresh - 10.0, "budget {fresh} -> {after}");
            assert!(after > 0.0);
        }
    }

    #[test]
    fn hpr_and_mismatches_are_refused() {
        let ctx = FvContext::new(FvParameters::default_8192()).unwrap();
        let other = FvContext::new(FvParameters::set_a()).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(12);
        let sk = SecretKey::generate(&ctx, &mut rng);
        let sk2 = SecretKey::generate(&other, &mut rng);
        let pt = Plaintext::new(&ctx, vec![0; 8192]).unwrap();
        let h = ctx
            .encrypt_symmetric(&sk, &pt, Variant::Hpr, &mut rng)
            .unwrap();
        assert!(matches!(ctx.neg(&h), Err(FvError::VariantMismatch(_))));
        let c = ctx
            .encrypt_symmetric(&sk, &pt, Variant::Hps, &mut rng)
            .unwrap();
        assert!(matches!(
            ctx.linear_combination(&[], 0),
            Err(FvError::InvalidParameters(_))
        ));
        assert!(matches!(
            ctx.linear_combination(&[(&c, 1)], 65537),
            Err(FvError::PlaintextOutOfRange { .. })
        ));
        let pt2 = Plaintext::new(&other, vec![0; 8192]).unwrap();
        let c2 = other
            .encrypt_symmetric(&sk2, &pt2, Variant::Hps, &mut rng)
            .unwrap();
        assert!(parameter_mismatch(ctx.sub(&c, &c2)));
        assert!(parameter_mismatch(ctx.noise_budget(&sk2, &c)));
    }
}
