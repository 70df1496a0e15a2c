//! Negacyclic number-theoretic transform over `tfhe-ntt`'s `prime64::Plan`.
//!
//! Forward transforms leave values in bit-reversed order; every operation in this crate
//! is pointwise in the NTT domain, so the order never matters.
//!
//! ```
//! use encint_fv::ntt::NttOperator;
//! use encint_fv::zq::primes::ntt_primes;
//! let p = ntt_primes(50, 16, 1, &[]).unwrap()[0];
//! let op = NttOperator::new(16, p).unwrap();
//! let mut a = vec![0u64; 16];
//! a[1] = 1; // X
//! let mut b = a.clone();
//! op.forward(&mut a);
//! op.forward(&mut b);
//! op.mul_assign(&mut a, &b);
//! op.backward(&mut a);
//! assert_eq!(a[2], 1); // X * X = X^2
//! ```

use crate::zq::Modulus;
use crate::FvError;
use tfhe_ntt::prime64::Plan;

/// A negacyclic NTT of size `n` modulo a prime `p = 1 mod 2n`.
#[derive(Clone, Debug)]
pub struct NttOperator {
    plan: Plan,
    modulus: Modulus,
}

impl NttOperator {
    /// A plan for `n` (a power of two, at least 16) and the prime `p`.
    pub fn new(n: usize, p: u64) -> Result<Self, FvError> {
        let modulus = Modulus::new(p)?;
        if !n.is_power_of_two() || !(16..=(1 << 17)).contains(&n) {
            return Err(FvError::InvalidDegree(n));
        }
        let plan = Plan::try_new(n, p).ok_or(FvError::InvalidModulus(
            p,
            "not a prime congruent to 1 modulo 2n",
        ))?;
        Ok(Self { plan, modulus })
    }

    /// The modulus of this transform.
    pub fn modulus(&self) -> &Modulus {
        &self.modulus
    }

    /// Degree of the transform.
    pub fn degree(&self) -> usize {
        self.plan.ntt_size()
    }

    /// Forward transform in place (input reduced).
    #[inline]
    pub fn forward(&self, a: &mut [u64]) {
        self.plan.fwd(a);
    }

    /// Backward transform in place, including the multiplication by `n^-1`.
    #[inline]
    pub fn backward(&self, a: &mut [u64]) {
        self.plan.inv(a);
        self.plan.normalize(a);
    }

    /// Backward transform without the `n^-1` factor (pair with [`Self::mul_assign_normalize`]).
    #[inline]
    pub fn backward_unnormalized(&self, a: &mut [u64]) {
        self.plan.inv(a);
    }

    /// Pointwise `a <- a * b`.
    #[inline]
    pub fn mul_assign(&self, a: &mut [u64], b: &[u64]) {
        let m = &self.modulus;
        for (x, y) in a.iter_mut().zip(b) {
            *x = m.mul(*x, *y);
        }
    }

    /// Pointwise `a <- a * b * n^-1` (vectorised).
    #[inline]
    pub fn mul_assign_normalize(&self, a: &mut [u64], b: &[u64]) {
        self.plan.mul_assign_normalize(a, b);
    }

    /// Pointwise `acc <- acc + a * b` (vectorised).
    #[inline]
    pub fn mul_accumulate(&self, acc: &mut [u64], a: &[u64], b: &[u64]) {
        self.plan.mul_accumulate(acc, a, b);
    }
}

/// Exact negacyclic product modulo `t` (through one NTT prime `p > 2 n t^2`).
pub fn plain_mul(a: &[u64], b: &[u64], t: u64) -> Result<Vec<u64>, FvError> {
    let n = a.len();
    let need = 2.0 * n as f64 * (t as f64) * (t as f64);
    if need >= 2f64.powi(60) {
        return Err(FvError::InvalidParameters(
            "plaintext too large for plain_mul".into(),
        ));
    }
    let p = crate::zq::primes::ntt_primes(61, n, 1, &[])?[0];
    let op = NttOperator::new(n, p)?;
    let (mut x, mut y) = (a.to_vec(), b.to_vec());
    op.forward(&mut x);
    op.forward(&mut y);
    op.mul_assign(&mut x, &y);
    op.backward(&mut x);
    Ok(x.iter()
        .map(|&v| {
            let c = op.modulus().center(v);
            c.rem_euclid(t as i64) as u64
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn plain_mul_matches_schoolbook() {
        let t = 65537u64;
        let n = 64;
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let a: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t)).collect();
        let b: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t)).collect();
        let mut c = vec![0i128; n];
        for i in 0..n {
            for j in 0..n {
                let p = a[i] as i128 * b[j] as i128;
                if i + j < n {
                    c[i + j] += p
                } else {
                    c[i + j - n] -= p
                }
            }
        }
        let want: Vec<u64> = c.iter().map(|x| x.rem_euclid(t as i128) as u64).collect();
        assert_eq!(plain_mul(&a, &b, t).unwrap(), want);
    }

    use super::*;
    use crate::zq::primes::ntt_primes;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Schoolbook negacyclic product mod p with i128 arithmetic.
    fn naive(a: &[u64], b: &[u64], p: u64) -> Vec<u64> {
        let n = a.len();
        let mut c = vec![0i128; n];
        for i in 0..n {
            for j in 0..n {
                let prod = (a[i] as i128 * b[j] as i128) % p as i128;
                if i + j < n {
                    c[i + j] += prod;
                } else {
                    c[i + j - n] -= prod;
                }
            }
        }
        c.iter().map(|x| x.rem_euclid(p as i128) as u64).collect()
    }

    #[test]
    fn products_match_schoolbook() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for (bits, n) in [(61u32, 64usize), (55, 256), (40, 32), (61, 1024)] {
            let p = ntt_primes(bits, n, 1, &[]).unwrap()[0];
            let op = NttOperator::new(n, p).unwrap();
            let a: Vec<u64> = (0..n).map(|_| rng.gen_range(0..p)).collect();
            let b: Vec<u64> = (0..n).map(|_| rng.gen_range(0..p)).collect();
            let expect = naive(&a, &b, p);
            let (mut x, mut y) = (a.clone(), b.clone());
            op.forward(&mut x);
            op.forward(&mut y);
            assert!(x.iter().all(|&v| v < p));
            let mut z = x.clone();
            op.mul_assign(&mut z, &y);
            op.backward(&mut z);
            assert_eq!(z, expect);
            let mut w = x.clone();
            op.mul_assign_normalize(&mut w, &y);
            op.backward_unnormalized(&mut w);
            assert_eq!(w, expect);
            let mut acc = vec![0u64; n];
            op.mul_accumulate(&mut acc, &x, &y);
            op.mul_accumulate(&mut acc, &x, &y);
            op.backward(&mut acc);
            let twice: Vec<u64> = expect
                .iter()
                .map(|&v| (2 * v as u128 % p as u128) as u64)
                .collect();
            assert_eq!(acc, twice);
            let mut back = x.clone();
            op.backward(&mut back);
            assert_eq!(back, a);
        }
    }

    #[test]
    fn rejects_bad_plans() {
        assert!(NttOperator::new(64, 65537 * 3).is_err());
        assert!(NttOperator::new(100, 65537).is_err());
        assert!(NttOperator::new(1 << 16, 65537).is_err()); // 2^17 does not divide 65536
        assert!(NttOperator::new(1 << 15, 65537).is_ok());
    }
}
