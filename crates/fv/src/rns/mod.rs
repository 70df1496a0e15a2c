//! Residue number systems: CRT bases and the conversions FV needs.
//!
//! - [`RnsBasis`]: a set of pairwise coprime moduli with CRT constants;
//! - [`BaseConverter`]: fast base extension (inexact, `x + alpha*Q` with `0 <= alpha < K`),
//!   its centred form, and the exact extension of HPS with a floating-point estimate of
//!   `alpha`;
//! - [`ShenoyKumaresan`]: exact extension with a redundant modulus;
//! - [`MontgomeryCorrector`]: BEHZ's Montgomery-style removal of `alpha*Q`;
//! - [`ScaleRounder`]: exact `round(t * x / Q)` from `Q` (or `Q u P`) to other moduli.
//!
//! Polynomials are passed as flat slices: residue `i` of coefficient `c` at `i * n + c`.

mod convert;
mod scale;

pub use convert::{BaseConverter, MontgomeryCorrector, ShenoyKumaresan};
pub use scale::{GammaScaler, ScaleRounder};

use crate::zq::Modulus;
use crate::FvError;
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};

/// A CRT basis: pairwise coprime moduli `q_1 .. q_K`, `Q` their product.
#[derive(Debug, Clone)]
pub struct RnsBasis {
    moduli: Vec<Modulus>,
    product: BigUint,
    /// `(Q/q_i)^-1 mod q_i`.
    qhat_inv: Vec<u64>,
    qhat_inv_shoup: Vec<u64>,
}

impl RnsBasis {
    /// A basis from its moduli (each `< 2^62`, pairwise coprime, at least one).
    pub fn new(moduli: &[u64]) -> Result<Self, FvError> {
        if moduli.is_empty() {
            return Err(FvError::InvalidParameters("empty RNS basis".into()));
        }
        let ms = moduli
            .iter()
            .map(|&q| Modulus::new(q))
            .collect::<Result<Vec<_>, _>>()?;
        for i in 0..moduli.len() {
            for j in 0..i {
                if moduli[i].gcd(&moduli[j]) != 1 {
                    return Err(FvError::InvalidModulus(
                        moduli[i],
                        "moduli not pairwise coprime",
                    ));
                }
            }
        }
        let product = moduli.iter().fold(BigUint::one(), |acc, &q| acc * q);
        let mut qhat_inv = Vec::with_capacity(ms.len());
        let mut qhat_inv_shoup = Vec::with_capacity(ms.len());
        for m in &ms {
            let qhat = (&product / m.value()) % m.value();
            let inv = m
                .inv(qhat.to_u64().unwrap_or(0))
                .ok_or(FvError::InvalidModulus(m.value(), "not invertible"))?;
            qhat_inv.push(inv);
            qhat_inv_shoup.push(m.shoup(inv));
        }
        Ok(Self {
            moduli: ms,
            product,
            qhat_inv,
            qhat_inv_shoup,
        })
    }

    /// Number of moduli.
    pub fn len(&self) -> usize {
        self.moduli.len()
    }

    /// Always false: a basis has at least one modulus.
    pub fn is_empty(&self) -> bool {
        self.moduli.is_empty()
    }

    /// The moduli.
    pub fn moduli(&self) -> &[Modulus] {
        &self.moduli
    }

    /// The product `Q`.
    pub fn product(&self) -> &BigUint {
        &self.product
    }

    /// `(Q/q_i)^-1 mod q_i` and its Shoup constant.
    pub fn qhat_inv(&self, i: usize) -> (u64, u64) {
        (self.qhat_inv[i], self.qhat_inv_shoup[i])
    }

    /// The largest distance between `t·x/Q` and its nearest integer over `n` values given
    /// by their residues (residue `i` of value `c` at `i * n + c`), in `[0, 1/2]`.
    ///
    /// This is the rounding step of FV decryption seen from the secret key's side: a
    /// phase `x = Δm + v` rounds to `m` while `t·|v|/Q < 1/2`, and the distance is that
    /// ratio. Computed in floating point as `Σ_i [x_i·t·(Q/q_i)^-1]_{q_i} / q_i mod 1`
    /// (error about `K·2^-52`): precise enough to tell a phase that decrypts with a
    /// margin from one whose noise has wrapped around.
    pub fn max_rounding_distance(&self, x: &[u64], t: u64, n: usize) -> f64 {
        let k = self.moduli.len();
        debug_assert_eq!(x.len(), k * n);
        let factors: Vec<(Modulus, u64, f64)> = self
            .moduli
            .iter()
            .zip(&self.qhat_inv)
            .map(|(m, &inv)| (*m, m.mul(m.reduce(t), inv), m.value() as f64))
            .collect();
        let mut worst = 0.0f64;
        for c in 0..n {
            let mut s = 0.0f64;
            for (i, (m, f, q)) in factors.iter().enumerate() {
                s += m.mul(x[i * n + c], *f) as f64 / q;
            }
            worst = worst.max((s - s.round()).abs());
        }
        worst
    }

    /// Residues of a non-negative integer.
    pub fn residues(&self, x: &BigUint) -> Vec<u64> {
        self.moduli
            .iter()
            .map(|m| (x % m.value()).to_u64().unwrap_or(0))
            .collect()
    }

    /// CRT reconstruction in `[0, Q)` of one residue vector.
    pub fn reconstruct(&self, residues: &[u64]) -> BigUint {
        let mut acc = BigUint::zero();
        for (i, m) in self.moduli.iter().enumerate() {
            let y = m.mul(m.reduce(residues[i]), self.qhat_inv[i]);
            acc += (&self.product / m.value()) * y;
        }
        acc % &self.product
    }

    /// A basis made of the moduli of `self` followed by those of `other`.
    pub fn concat(&self, other: &RnsBasis) -> Result<RnsBasis, FvError> {
        let v: Vec<u64> = self
            .moduli
            .iter()
            .chain(other.moduli.iter())
            .map(|m| m.value())
            .collect();
        RnsBasis::new(&v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crt_roundtrip() {
        let b = RnsBasis::new(&[65537, 1_000_000_007, (1 << 61) - 1]).unwrap();
        let x = BigUint::parse_bytes(b"123456789012345678901234567890", 10).unwrap() % b.product();
        assert_eq!(b.reconstruct(&b.residues(&x)), x);
        assert!(RnsBasis::new(&[6, 9]).is_err());
        assert!(RnsBasis::new(&[]).is_err());
    }
}

#[cfg(test)]
mod conversion_tests {
    use super::*;
    use crate::zq::primes::ntt_primes;
    use num_bigint::{BigInt, RandBigInt, Sign};
    use num_integer::Integer;
    use num_traits::Signed;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn setup(k: usize, l: usize) -> (RnsBasis, Vec<u64>, u64) {
        let q = ntt_primes(55, 16, k, &[]).unwrap();
        let b = ntt_primes(61, 16, l + 1, &[]).unwrap();
        (RnsBasis::new(&q).unwrap(), b[..l].to_vec(), b[l])
    }

    fn flat(basis: &RnsBasis, xs: &[BigInt]) -> Vec<u64> {
        let n = xs.len();
        let mut out = vec![0u64; basis.len() * n];
        for (i, m) in basis.moduli().iter().enumerate() {
            for (c, x) in xs.iter().enumerate() {
                out[i * n + c] = x.mod_floor(&BigInt::from(m.value())).to_u64().unwrap();
            }
        }
        out
    }

    fn modu(x: &BigInt, m: u64) -> u64 {
        x.mod_floor(&BigInt::from(m)).to_u64().unwrap()
    }

    fn centered(x: &BigInt, q: &BigUint) -> BigInt {
        let qi = BigInt::from_biguint(Sign::Plus, q.clone());
        let r = x.mod_floor(&qi);
        if &r * 2 >= qi {
            r - qi
        } else {
            r
        }
    }

    #[test]
    fn fast_and_exact_extensions() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let n = 100;
        for k in [1usize, 3, 7] {
            let (q, b, _) = setup(k, 4);
            let qi = BigInt::from_biguint(Sign::Plus, q.product().clone());
            let xs: Vec<BigInt> = (0..n).map(|_| rng.gen_bigint_range(&-&qi, &qi)).collect();
            let input = flat(&q, &xs);
            let conv = BaseConverter::new(&q, &b).unwrap();
            let mut out = vec![0u64; b.len() * n];
            conv.exact_hps(&input, &mut out, n).unwrap();
            for (c, x) in xs.iter().enumerate() {
                let cx = centered(x, q.product());
                for (j, &bj) in b.iter().enumerate() {
                    assert_eq!(out[j * n + c], modu(&cx, bj));
                }
            }
            conv.fast(&input, &mut out, n).unwrap();
            for (c, x) in xs.iter().enumerate() {
                let ux = x.mod_floor(&qi);
                // Some alpha in [0, K) must explain every output residue at once.
                let ok = (0..k as i64).any(|a| {
                    let v = &ux + &qi * a;
                    b.iter()
                        .enumerate()
                        .all(|(j, &bj)| out[j * n + c] == modu(&v, bj))
                });
                assert!(ok);
            }
            conv.fast_centered(&input, &mut out, n).unwrap();
            for (c, x) in xs.iter().enumerate() {
                let ux = x.mod_floor(&qi);
                let ok = (-(k as i64)..=k as i64).any(|a| {
                    let v = &ux + &qi * a;
                    2 * a.abs() <= k as i64 + 1
                        && b.iter()
                            .enumerate()
                            .all(|(j, &bj)| out[j * n + c] == modu(&v, bj))
                });
                assert!(ok);
            }
        }
    }

    #[test]
    fn shenoy_kumaresan_is_exact() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let n = 64;
        let (q, bv, msk) = setup(3, 4);
        let bb = RnsBasis::new(&bv).unwrap();
        let sk = ShenoyKumaresan::new(
            &bb,
            msk,
            &q.moduli().iter().map(|m| m.value()).collect::<Vec<_>>(),
        )
        .unwrap();
        let lim = BigInt::from_biguint(Sign::Plus, bb.product().clone()) * 1000;
        let xs: Vec<BigInt> = (0..n).map(|_| rng.gen_bigint_range(&-&lim, &lim)).collect();
        let mut input = flat(&bb, &xs);
        input.extend(xs.iter().map(|x| modu(x, msk)));
        let mut out = vec![0u64; q.len() * n];
        sk.extend(&input, &mut out, n).unwrap();
        assert_eq!(out, flat(&q, &xs));
        assert!(sk.extend(&input[1..], &mut out, n).is_err());
    }

    #[test]
    fn montgomery_corrector_bounds_alpha() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let n = 64;
        let (q, b, msk) = setup(5, 5);
        let mut bsk = b.clone();
        bsk.push(msk);
        let mc = MontgomeryCorrector::new(&q, &bsk, 1 << 32).unwrap();
        let qi = BigInt::from_biguint(Sign::Plus, q.product().clone());
        let xs: Vec<BigInt> = (0..n)
            .map(|_| rng.gen_bigint_range(&BigInt::from(0), &qi))
            .collect();
        let mut out = vec![0u64; bsk.len() * n];
        mc.convert(&flat(&q, &xs), &mut out, n).unwrap();
        let bb = RnsBasis::new(&bsk).unwrap();
        let bprod = BigInt::from_biguint(Sign::Plus, bb.product().clone());
        for (c, x) in xs.iter().enumerate() {
            let col: Vec<u64> = (0..bsk.len()).map(|j| out[j * n + c]).collect();
            let v = centered(
                &BigInt::from_biguint(Sign::Plus, bb.reconstruct(&col)),
                bb.product(),
            );
            assert!(v.abs() < bprod);
            let diff = &v - x;
            assert!(diff.mod_floor(&qi) == BigInt::from(0));
            // |v| <= Q (1/2 + small): alpha in {-1, 0, 1}
            assert!(v.abs() <= qi);
        }
    }

    #[test]
    fn scale_and_round_matches_bigint() {
        let mut rng = ChaCha8Rng::seed_from_u64(10);
        let n = 80;
        let t = 65537u64;
        let (q, p, _) = setup(4, 5);
        // From Q only, x in [0, Q).
        let sr = ScaleRounder::new(&q, &[t], t, false).unwrap();
        let qi = BigInt::from_biguint(Sign::Plus, q.product().clone());
        let xs: Vec<BigInt> = (0..n)
            .map(|_| rng.gen_bigint_range(&BigInt::from(0), &qi))
            .collect();
        let mut out = vec![0u64; n];
        sr.scale(&flat(&q, &xs), &mut out, n).unwrap();
        for (c, x) in xs.iter().enumerate() {
            let num: BigInt = x * BigInt::from(t) * 2 + &qi;
            let r: BigInt = num.div_floor(&(&qi * 2)); // round(t x / Q)
            assert_eq!(out[c], modu(&r, t));
        }
        // From Q u P, centred x.
        let qp = q.concat(&RnsBasis::new(&p).unwrap()).unwrap();
        let sr = ScaleRounder::new(&q, &p, t, true).unwrap();
        let mi = BigInt::from_biguint(Sign::Plus, qp.product().clone());
        let lim = &mi / (2 * t);
        let xs: Vec<BigInt> = (0..n).map(|_| rng.gen_bigint_range(&-&lim, &lim)).collect();
        let mut out = vec![0u64; p.len() * n];
        sr.scale(&flat(&qp, &xs), &mut out, n).unwrap();
        for (c, x) in xs.iter().enumerate() {
            let num: BigInt = x * BigInt::from(t) * 2 + &qi;
            let r: BigInt = num.div_floor(&(&qi * 2));
            for (j, &pj) in p.iter().enumerate() {
                assert_eq!(out[j * n + c], modu(&r, pj));
            }
        }
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;
    use crate::zq::primes::ntt_primes;

    /// Set D's shapes (36 moduli of 61 bits, 37 auxiliary) fit the 128-bit accumulators.
    #[test]
    fn set_d_shapes_are_accepted() {
        let q = ntt_primes(61, 1 << 16, 36, &[]).unwrap();
        let a = ntt_primes(61, 1 << 16, 37, &q).unwrap();
        let qb = RnsBasis::new(&q).unwrap();
        let ab = RnsBasis::new(&a).unwrap();
        assert!(ScaleRounder::new(&qb, &a, 65537, true).is_ok());
        assert!(BaseConverter::new(&qb, &a).is_ok());
        assert!(BaseConverter::new(&ab, &q).is_ok());
        assert!(GammaScaler::new(&qb, 65537).is_ok());
        // Far too many large moduli are refused, not overflowed.
        let many = ntt_primes(61, 16, 80, &[]).unwrap();
        let mb = RnsBasis::new(&many).unwrap();
        assert!(ScaleRounder::new(&mb, &a, 65537, true).is_err());
    }
}
