//! Hybrid Position-Residue (HPR) polynomials (Bajard, Eynard, Martins, Sousa and Zucca, "An
//! asymptotically faster version of FV supported on HPR", Section II-B): an element of
//! `R_q` with `q = p^d`, `p = p_1 ... p_k`, written as `d` positional digits `a(Y) = sum_i
//! a_i Y^i` (evaluated at `Y = p`), each digit an integer polynomial kept in RNS over `P u
//! B u {b_sk}` (`2k + 1` residues). The most significant digit (MSD) is only meaningful
//! modulo `p` (its `B u {b_sk}` residues are ignored), since anything above it is a
//! multiple of `q`.
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
    // Fused carry kernel constants.
    /// `(p/p_j)^-1 mod p_j` (value, Shoup).
    phi: Vec<(u64, u64)>,
    /// `(p/p_j) mod b_l` at `l * k + j`, for `b_l` in `B_sk`.
    fbe_w: Vec<u64>,
    /// `-p mod b_l`.
    neg_p_mod_b: Vec<u64>,
    /// `(B/b_l)^-1 mod b_l` (value, Shoup).
    bhat_inv: Vec<(u64, u64)>,
    /// `(B/b_l) mod p_j` at `j * k + l`, and `(B/b_l) mod b_sk`.
    sk_w: Vec<u64>,
    sk_w_msk: Vec<u64>,
    /// `B^-1 mod b_sk`, `B mod p_j`.
    b_inv_msk: u64,
    b_mod_p: Vec<u64>,
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
        // Validates the Shenoy-Kumaresan setting (B coprime with b_sk, sizes).
        ShenoyKumaresan::new(&b_basis, bsk, p_moduli)?;
        if k > 8 {
            return Err(FvError::InvalidParameters("HPR supports k <= 8".into()));
        }
        let phi = (0..k).map(|j| p_basis.qhat_inv(j)).collect();
        let mut fbe_w = Vec::new();
        let mut neg_p_mod_b = Vec::new();
        for m in &moduli[k..] {
            for &pj in p_moduli {
                fbe_w.push(((&p / pj) % m.value()).to_u64().unwrap_or(0));
            }
            neg_p_mod_b.push(m.neg((&p % m.value()).to_u64().unwrap_or(0)));
        }
        let bprod = b_basis.product();
        let bhat_inv = (0..k).map(|l| b_basis.qhat_inv(l)).collect();
        let mut sk_w = Vec::new();
        for &pj in p_moduli {
            for &bl in b_moduli {
                sk_w.push(((bprod / bl) % pj).to_u64().unwrap_or(0));
            }
        }
        let sk_w_msk = b_moduli
            .iter()
            .map(|&bl| ((bprod / bl) % bsk).to_u64().unwrap_or(0))
            .collect();
        let msk_m = Modulus::new(bsk)?;
        let b_inv_msk = msk_m
            .inv((bprod % bsk).to_u64().unwrap_or(0))
            .ok_or(FvError::InvalidModulus(bsk, "B not invertible modulo b_sk"))?;
        let b_mod_p = p_moduli
            .iter()
            .map(|&pj| (bprod % pj).to_u64().unwrap_or(0))
            .collect();
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
            phi,
            fbe_w,
            neg_p_mod_b,
            bhat_inv,
            sk_w,
            sk_w_msk,
            b_inv_msk,
            b_mod_p,
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
    ///
    /// Fused kernel, one coefficient at a time: centred `FBE` from `P` to `B_sk`, exact carry
    /// `(a - FBE(a)) p^-1` in `B_sk`, Shenoy-Kumaresan extension of the carry to `P`.
    #[allow(clippy::needless_range_loop)]
    pub fn carry(&self, digit: &mut [u64], next: &mut [u64], next_is_msd: bool) {
        let n = self.n;
        let k = self.k;
        let pm = &self.moduli[..k];
        let bm = &self.moduli[k..];
        let msk = &bm[k];
        let mut y = [0u64; 8];
        let mut cb = [0u64; 9];
        let mut z = [0u64; 8];
        for c in 0..n {
            let mut neg = 0u64;
            for j in 0..k {
                let m = &pm[j];
                let v = m.mul_shoup(digit[j * n + c], self.phi[j].0, self.phi[j].1);
                neg += (v > m.value() >> 1) as u64;
                y[j] = v;
            }
            for (l, b) in bm.iter().enumerate() {
                let mut acc = neg as u128 * self.neg_p_mod_b[l] as u128;
                let w = &self.fbe_w[l * k..(l + 1) * k];
                for j in 0..k {
                    acc += y[j] as u128 * w[j] as u128;
                }
                let f = b.reduce_u128(acc);
                let idx = (k + l) * n + c;
                let (pi, pis) = self.p_inv_bsk[l];
                cb[l] = b.mul_shoup(b.sub(digit[idx], f), pi, pis);
                digit[idx] = f;
            }
            for l in 0..k {
                z[l] = bm[l].mul_shoup(cb[l], self.bhat_inv[l].0, self.bhat_inv[l].1);
            }
            let mut acc: u128 = 0;
            for l in 0..k {
                acc += z[l] as u128 * self.sk_w_msk[l] as u128;
            }
            let conv_sk = msk.reduce_u128(acc);
            let alpha = msk.center(msk.mul(msk.sub(conv_sk, cb[k]), self.b_inv_msk));
            for (j, m) in pm.iter().enumerate() {
                let w = &self.sk_w[j * k..(j + 1) * k];
                let mut acc: u128 = 0;
                for l in 0..k {
                    acc += z[l] as u128 * w[l] as u128;
                }
                let bmp = self.b_mod_p[j];
                let corr = if alpha >= 0 { m.neg(bmp) } else { bmp };
                acc += alpha.unsigned_abs() as u128 * corr as u128;
                let idx = j * n + c;
                next[idx] = m.add(next[idx], m.reduce_u128(acc));
            }
            if !next_is_msd {
                for (l, b) in bm.iter().enumerate() {
                    let idx = (k + l) * n + c;
                    next[idx] = b.add(next[idx], cb[l]);
                }
            }
        }
    }

    /// `a += b` digit by digit, each residue modulo its prime, without carry propagation.
    pub(crate) fn add_digitwise(&self, a: &mut HprPoly, b: &HprPoly) {
        let n = self.n;
        for (da, db) in a.digits.iter_mut().zip(&b.digits) {
            for (i, m) in self.moduli().iter().enumerate() {
                for (p, &q) in da[i * n..(i + 1) * n]
                    .iter_mut()
                    .zip(&db[i * n..(i + 1) * n])
                {
                    *p = m.add(*p, q);
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
        FvError::check_len(self.n, coeffs.len())?;
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
