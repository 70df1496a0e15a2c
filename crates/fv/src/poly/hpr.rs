//! Hybrid Position-Residue (HPR) polynomials (seed 002, Section II-B): an element of
//! `R_q` with `q = p^d`, `p = p_1 ... p_k`, written as `d` positional digits
//! `a(Y) = sum_i a_i Y^i` (evaluated at `Y = p`), each digit an integer polynomial kept in
//! RNS over `P u B u {b_sk}` (`2k + 1` residues). The most significant digit (MSD) is only
//! meaningful modulo `p` (its `B u {b_sk}` residues are ignored), since anything above it
//! is a multiple of `q`.
//!
//! Carry propagation: for digit `i`, `FBE(a_i, P, B_sk) = [a_i]_p + alpha p` (centred
//! residues, `|alpha| <= k/2`) replaces the digit's `B_sk` residues, the carry
//! `(a_i - FBE(a_i)) / p` is computed exactly in `B_sk`, extended to `P` with
//! Shenoy-Kumaresan and added to digit `i + 1`. After propagation every non-MSD digit
//! satisfies `|a_i| <= (k + 1) p / 2`.

use crate::ntt::NttOperator;
use crate::rns::{BaseConverter, RnsBasis, ShenoyKumaresan};
use crate::zq::Modulus;
use crate::FvError;
use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};

/// An HPR polynomial: `d` digits of `(2k + 1) * n` residues each (`P`, then `B`, then
/// `b_sk`), all in the same representation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HprPoly {
    pub(crate) digits: Vec<Vec<u64>>,
    pub(crate) ntt: bool,
}

impl HprPoly {
    /// Number of digits.
    pub fn num_digits(&self) -> usize {
        self.digits.len()
    }

    /// Digit `i` (flat residues).
    pub fn digit(&self, i: usize) -> &[u64] {
        &self.digits[i]
    }

    /// Whether the digits are in NTT representation.
    pub fn is_ntt(&self) -> bool {
        self.ntt
    }
}

/// Arithmetic on HPR polynomials for fixed `n`, `P`, `B`, `b_sk` and `d`.
#[derive(Debug, Clone)]
pub struct HprArith {
    pub(crate) n: usize,
    pub(crate) k: usize,
    pub(crate) d: usize,
    pub(crate) p_basis: RnsBasis,
    /// All `2k + 1` moduli: `P`, `B`, `b_sk`.
    pub(crate) moduli: Vec<Modulus>,
    pub(crate) ntt: Vec<NttOperator>,
    /// `P -> B u {b_sk}` (centred fast extension for carries, HPS-exact for lifting).
    pub(crate) p_to_bsk: BaseConverter,
    /// `p^-1 mod b` for `b` in `B_sk`, with Shoup constants.
    p_inv_bsk: Vec<(u64, u64)>,
    sk: ShenoyKumaresan,
    p: BigUint,
    q: BigUint,
}

impl HprArith {
    /// Arithmetic for degree `n`, digit moduli `p_moduli` (`k` of them), auxiliary moduli
    /// `b_moduli` (`k`), redundant modulus `bsk`, and `d` digits.
    pub fn new(
        n: usize,
        p_moduli: &[u64],
        b_moduli: &[u64],
        bsk: u64,
        d: usize,
    ) -> Result<Self, FvError> {
        let k = p_moduli.len();
        if k == 0 || b_moduli.len() != k || d == 0 {
            return Err(FvError::InvalidParameters(
                "HPR needs k >= 1 digit moduli, k auxiliary moduli and d >= 1".into(),
            ));
        }
        let all: Vec<u64> = p_moduli
            .iter()
            .chain(b_moduli)
            .chain(std::iter::once(&bsk))
            .copied()
            .collect();
        // Pairwise coprimality of everything.
        RnsBasis::new(&all)?;
        let p_basis = RnsBasis::new(p_moduli)?;
        let b_basis = RnsBasis::new(b_moduli)?;
        let moduli = all
            .iter()
            .map(|&m| Modulus::new(m))
            .collect::<Result<Vec<_>, _>>()?;
        let ntt = all
            .iter()
            .map(|&m| NttOperator::new(n, m))
            .collect::<Result<Vec<_>, _>>()?;
        let bsk_list: Vec<u64> = all[k..].to_vec();
        let p_to_bsk = BaseConverter::new(&p_basis, &bsk_list)?;
        let p = p_basis.product().clone();
        let mut p_inv_bsk = Vec::new();
        for m in &moduli[k..] {
            let pm = (&p % m.value()).to_u64().unwrap_or(0);
            let inv = m
                .inv(pm)
                .ok_or(FvError::InvalidModulus(m.value(), "p not invertible"))?;
            p_inv_bsk.push((inv, m.shoup(inv)));
        }
        let sk = ShenoyKumaresan::new(&b_basis, bsk, p_moduli)?;
        let q = num_traits::pow(p.clone(), d);
        Ok(Self {
            n,
            k,
            d,
            p_basis,
            moduli,
            ntt,
            p_to_bsk,
            p_inv_bsk,
            sk,
            p,
            q,
        })
    }

    /// Number of residues per digit (`2k + 1`).
    pub fn width(&self) -> usize {
        2 * self.k + 1
    }

    /// The radix `p`.
    pub fn radix(&self) -> &BigUint {
        &self.p
    }

    /// The modulus `q = p^d`.
    pub fn modulus(&self) -> &BigUint {
        &self.q
    }

    /// The digit moduli `P`.
    pub fn p_basis(&self) -> &RnsBasis {
        &self.p_basis
    }

    /// All moduli of a digit (`P`, `B`, `b_sk`).
    pub fn moduli(&self) -> &[Modulus] {
        &self.moduli
    }

    /// NTT operators for the moduli of a digit.
    pub fn ntt_ops(&self) -> &[NttOperator] {
        &self.ntt
    }

    /// The zero polynomial (coefficient representation).
    pub fn zero(&self) -> HprPoly {
        HprPoly {
            digits: vec![vec![0; self.width() * self.n]; self.d],
            ntt: false,
        }
    }

    /// A single digit holding small signed coefficients (in all `2k + 1` residues).
    pub fn digit_from_signed(&self, coeffs: &[i64]) -> Vec<u64> {
        let n = self.n;
        let mut out = vec![0u64; self.width() * n];
        for (i, m) in self.moduli.iter().enumerate() {
            for (o, &c) in out[i * n..(i + 1) * n].iter_mut().zip(coeffs) {
                *o = m.reduce_small_signed(c);
            }
        }
        out
    }

    /// Replaces the `B_sk` residues of a digit by the exact extension of its centred value
    /// modulo `p` (HPS floating-point extension), so that the digit is `[a]_p`.
    pub fn lift_exact(&self, digit: &mut [u64]) {
        let kn = self.k * self.n;
        let (pp, bb) = digit.split_at_mut(kn);
        // Lengths are correct by construction.
        let _ = self.p_to_bsk.exact_hps(pp, bb, self.n);
    }

    /// One carry step: normalises digit `i` (`B_sk` residues become `FBE(a_i)`) and adds
    /// its carry to `next` (all residues, or only `P` when `next_is_msd`).
    pub fn carry(&self, digit: &mut [u64], next: &mut [u64], next_is_msd: bool) {
        let n = self.n;
        let k = self.k;
        let kn = k * n;
        let mut fbe = vec![0u64; (k + 1) * n];
        let _ = self.p_to_bsk.fast_centered(&digit[..kn], &mut fbe, n);
        let mut carry = vec![0u64; (k + 1) * n];
        for (j, m) in self.moduli[k..].iter().enumerate() {
            let (pi, pis) = self.p_inv_bsk[j];
            let a = &mut digit[kn + j * n..kn + (j + 1) * n];
            let f = &fbe[j * n..(j + 1) * n];
            let cr = &mut carry[j * n..(j + 1) * n];
            for c in 0..n {
                cr[c] = m.mul_shoup(m.sub(a[c], f[c]), pi, pis);
                a[c] = f[c];
            }
        }
        let mut carry_p = vec![0u64; kn];
        let _ = self.sk.extend(&carry, &mut carry_p, n);
        for (i, m) in self.moduli[..k].iter().enumerate() {
            for (x, &y) in next[i * n..(i + 1) * n]
                .iter_mut()
                .zip(&carry_p[i * n..(i + 1) * n])
            {
                *x = m.add(*x, y);
            }
        }
        if !next_is_msd {
            for (j, m) in self.moduli[k..].iter().enumerate() {
                let r = kn + j * n..kn + (j + 1) * n;
                for (x, &y) in next[r.clone()].iter_mut().zip(&carry[j * n..(j + 1) * n]) {
                    *x = m.add(*x, y);
                }
            }
        }
    }

    /// Propagates carries through all digits but the MSD (coefficient representation).
    pub fn propagate(&self, a: &mut HprPoly) {
        let d = a.digits.len();
        for i in 0..d.saturating_sub(1) {
            let (lo, hi) = a.digits.split_at_mut(i + 1);
            self.carry(&mut lo[i], &mut hi[0], i + 1 == d - 1);
        }
    }

    /// Forward NTT of every digit.
    pub fn to_ntt(&self, a: &mut HprPoly) {
        if !a.ntt {
            for dg in &mut a.digits {
                super::ntt_forward(dg, &self.ntt, self.n);
            }
            a.ntt = true;
        }
    }

    /// Backward NTT of every digit.
    pub fn to_coeff(&self, a: &mut HprPoly) {
        if a.ntt {
            for dg in &mut a.digits {
                super::ntt_backward(dg, &self.ntt, self.n);
            }
            a.ntt = false;
        }
    }

    /// The integer value of one (non-MSD) digit's coefficients, from all `2k + 1` residues
    /// (centred CRT), for tests and conversions.
    pub fn digit_values(&self, digit: &[u64]) -> Vec<BigInt> {
        let basis = RnsBasis::new(&self.moduli.iter().map(|m| m.value()).collect::<Vec<_>>())
            .expect("valid basis");
        let prod = BigInt::from_biguint(Sign::Plus, basis.product().clone());
        let n = self.n;
        (0..n)
            .map(|c| {
                let col: Vec<u64> = (0..self.width()).map(|i| digit[i * n + c]).collect();
                let v = BigInt::from_biguint(Sign::Plus, basis.reconstruct(&col));
                if &v * 2 >= prod {
                    v - &prod
                } else {
                    v
                }
            })
            .collect()
    }

    /// Conversion HPR -> integers: coefficients of `sum_i a_i p^i mod q` in `[0, q)`
    /// (non-MSD digits read exactly, the MSD modulo `p`). Coefficient representation.
    pub fn to_biguint(&self, a: &HprPoly) -> Vec<BigUint> {
        let n = self.n;
        let d = a.digits.len();
        let qi = BigInt::from_biguint(Sign::Plus, self.q.clone());
        let pi = BigInt::from_biguint(Sign::Plus, self.p.clone());
        let mut acc = vec![BigInt::zero(); n];
        let mut scale = BigInt::one();
        for (i, dg) in a.digits.iter().enumerate() {
            let vals: Vec<BigInt> = if i + 1 == d {
                let kn = self.k * n;
                (0..n)
                    .map(|c| {
                        let col: Vec<u64> = (0..self.k).map(|j| dg[j * n + c]).collect();
                        let _ = kn;
                        BigInt::from_biguint(Sign::Plus, self.p_basis.reconstruct(&col))
                    })
                    .collect()
            } else {
                self.digit_values(dg)
            };
            for (x, v) in acc.iter_mut().zip(vals) {
                *x += v * &scale;
            }
            scale *= &pi;
        }
        acc.iter()
            .map(|x| x.mod_floor(&qi).to_biguint().unwrap_or_default())
            .collect()
    }

    /// Conversion integers -> HPR: canonical digits in `[0, p)` of each coefficient taken
    /// modulo `q`.
    pub fn from_biguint(&self, coeffs: &[BigUint]) -> Result<HprPoly, FvError> {
        if coeffs.len() != self.n {
            return Err(FvError::LengthMismatch {
                expected: self.n,
                got: coeffs.len(),
            });
        }
        let n = self.n;
        let mut out = self.zero();
        for (c, x) in coeffs.iter().enumerate() {
            let mut v = x % &self.q;
            for i in 0..self.d {
                let (qd, r) = v.div_rem(&self.p);
                for (j, m) in self.moduli.iter().enumerate() {
                    out.digits[i][j * n + c] = (&r % m.value()).to_u64().unwrap_or(0);
                }
                v = qd;
            }
        }
        Ok(out)
    }
}

impl HprArith {
    /// RNS -> HPR: the coefficients of `a` (coefficient representation), read as integers
    /// in `[0, Q)` of `basis`, written as canonical HPR digits modulo `q = p^d`.
    pub fn from_rns(&self, a: &super::RnsPoly, basis: &RnsBasis) -> Result<HprPoly, FvError> {
        if a.is_ntt() {
            return Err(FvError::InvalidParameters(
                "convert from coefficient representation".into(),
            ));
        }
        if a.num_moduli() != basis.len() || a.degree() != self.n {
            return Err(FvError::LengthMismatch {
                expected: basis.len() * self.n,
                got: a.data().len(),
            });
        }
        self.from_biguint(&a.to_biguint(basis))
    }

    /// HPR -> RNS: the integers `sum_i a_i p^i mod q` in `[0, q)`, reduced modulo each
    /// modulus of `basis`.
    pub fn to_rns(&self, a: &HprPoly, basis: &RnsBasis) -> Result<super::RnsPoly, FvError> {
        if a.ntt {
            return Err(FvError::InvalidParameters(
                "convert from coefficient representation".into(),
            ));
        }
        let xs = self.to_biguint(a);
        let n = self.n;
        let mut data = vec![0u64; basis.len() * n];
        for (c, x) in xs.iter().enumerate() {
            for (i, r) in basis.residues(x).into_iter().enumerate() {
                data[i * n + c] = r;
            }
        }
        super::RnsPoly::from_residues(data, n, basis.len())
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;
    use crate::zq::primes::ntt_primes;
    use num_bigint::RandBigInt;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn arith(k: usize, d: usize) -> HprArith {
        let n = 32;
        let p = ntt_primes(50, n, k, &[]).unwrap();
        let b = ntt_primes(61, n, k + 1, &[]).unwrap();
        HprArith::new(n, &p, &b[..k], b[k], d).unwrap()
    }

    #[test]
    fn conversions_roundtrip() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for (k, d) in [(1, 4), (3, 3), (2, 1)] {
            let h = arith(k, d);
            let xs: Vec<BigUint> = (0..h.n)
                .map(|_| rng.gen_biguint_below(h.modulus()))
                .collect();
            let a = h.from_biguint(&xs).unwrap();
            assert_eq!(h.to_biguint(&a), xs);
        }
    }

    #[test]
    fn rns_hpr_conversions() {
        let h = arith(3, 2);
        let n = h.n;
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        // An RNS basis larger than q, so that integers below q survive both ways.
        let big = RnsBasis::new(&ntt_primes(61, n, 5, &[]).unwrap()).unwrap();
        let xs: Vec<BigUint> = (0..n).map(|_| rng.gen_biguint_below(h.modulus())).collect();
        let mut data = vec![0u64; big.len() * n];
        for (c, x) in xs.iter().enumerate() {
            for (i, r) in big.residues(x).into_iter().enumerate() {
                data[i * n + c] = r;
            }
        }
        let a = crate::poly::RnsPoly::from_residues(data, n, big.len()).unwrap();
        let hp = h.from_rns(&a, &big).unwrap();
        assert_eq!(h.to_biguint(&hp), xs);
        assert_eq!(h.to_rns(&hp, &big).unwrap(), a);
        let small = RnsBasis::new(&[65537]).unwrap();
        assert!(h.from_rns(&a, &small).is_err());
    }

    #[test]
    fn carry_propagation_preserves_value_and_bounds_digits() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for (k, d) in [(1, 4), (3, 3), (2, 5)] {
            let h = arith(k, d);
            let n = h.n;
            // Digits with large signed values (up to 2^40 p) in every non-MSD position.
            let mut a = h.zero();
            let lim = BigInt::from_biguint(Sign::Plus, h.radix().clone()) << 40u32;
            for i in 0..d {
                let vals: Vec<BigInt> =
                    (0..n).map(|_| rng.gen_bigint_range(&-&lim, &lim)).collect();
                for (j, m) in h.moduli().iter().enumerate() {
                    for c in 0..n {
                        a.digits[i][j * n + c] = vals[c]
                            .mod_floor(&BigInt::from(m.value()))
                            .to_u64()
                            .unwrap();
                    }
                }
            }
            let before = h.to_biguint(&a);
            h.propagate(&mut a);
            assert_eq!(h.to_biguint(&a), before);
            let bound = BigInt::from_biguint(Sign::Plus, h.radix().clone()) * (k as u64 + 1) / 2u32;
            for i in 0..d - 1 {
                for v in h.digit_values(&a.digits[i]) {
                    assert!(v.magnitude() <= bound.magnitude(), "digit {i} too large");
                }
            }
            let _ = rng.gen::<u8>();
        }
    }

    #[test]
    fn exact_lift_centres_digit() {
        let h = arith(3, 2);
        let n = h.n;
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let xs: Vec<BigUint> = (0..n).map(|_| rng.gen_biguint_below(h.radix())).collect();
        let mut dg = vec![0u64; h.width() * n];
        for (j, m) in h.moduli().iter().enumerate().take(3) {
            for c in 0..n {
                dg[j * n + c] = (&xs[c] % m.value()).to_u64().unwrap();
            }
        }
        h.lift_exact(&mut dg);
        let p = BigInt::from_biguint(Sign::Plus, h.radix().clone());
        for (c, v) in h.digit_values(&dg).into_iter().enumerate() {
            let x = BigInt::from_biguint(Sign::Plus, xs[c].clone());
            let want = if &x * 2 >= p { x - &p } else { x };
            assert_eq!(v, want);
        }
    }
}
