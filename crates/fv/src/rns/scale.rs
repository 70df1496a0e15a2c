//! Exact scale-and-round `round(t * x / Q)` (HPS-style: integer parts by table, fractional
//! parts summed in 128-bit fixed point, so that the rounding is exact except within about
//! `K * 2^-63` of a half-integer).

use super::RnsBasis;
use crate::zq::Modulus;
use crate::FvError;
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};

/// Computes `round(t * x / Q) mod o_j` where `x` is given either by its residues modulo
/// `Q` (then `x` is read in `[0, Q)`), or by its residues modulo `Q` and modulo the output
/// moduli `O` (then `x` is the centred value modulo `Q * O`).
#[derive(Debug, Clone)]
pub struct ScaleRounder {
    k: usize,
    q_moduli: Vec<Modulus>,
    out: Vec<Modulus>,
    with_out_residues: bool,
    /// Integer parts `floor(t * P * c_i / q_i) mod o_j` at `j * K + i`.
    omega: Vec<u64>,
    /// Fractional parts as 128-bit fixed point.
    theta: Vec<u128>,
    /// Coefficient of the residue modulo `o_j` itself (when `with_out_residues`).
    lambda: Vec<u64>,
}

impl ScaleRounder {
    /// Scaler by `t / Q` from `q` to the moduli `out`; `with_out_residues` selects the
    /// input form (see the type's documentation).
    pub fn new(
        q: &RnsBasis,
        out: &[u64],
        t: u64,
        with_out_residues: bool,
    ) -> Result<Self, FvError> {
        let out_m = out
            .iter()
            .map(|&o| Modulus::new(o))
            .collect::<Result<Vec<_>, _>>()?;
        let p: BigUint = if with_out_residues {
            out.iter().fold(BigUint::one(), |a, &o| a * o)
        } else {
            BigUint::one()
        };
        let m = q.product() * &p;
        let k = q.len();
        let maxq = q
            .moduli()
            .iter()
            .map(|m| m.value() as f64)
            .fold(0.0, f64::max);
        let maxo = out.iter().map(|&o| o as f64).fold(0.0, f64::max);
        if (k as f64 + 4.0) * maxq * maxo.max(maxq) >= 2f64.powi(128) {
            return Err(FvError::InvalidParameters(
                "scale-and-round: too many or too large moduli for 128-bit accumulation".into(),
            ));
        }
        let two128 = BigUint::one() << 128u32;
        let mut omega = vec![0u64; k * out.len()];
        let mut theta = vec![0u128; k];
        for (i, qi) in q.moduli().iter().enumerate() {
            let qi = qi.value();
            let mhat = &m / qi;
            let mhat_mod = (&mhat % qi).to_u64().unwrap_or(0);
            let c = Modulus::new(qi)?
                .inv(mhat_mod)
                .ok_or(FvError::InvalidModulus(
                    qi,
                    "not invertible in scale-and-round",
                ))?;
            let num = BigUint::from(t) * &p * c;
            let (int, rem) = num.div_rem(&BigUint::from(qi));
            for (j, &o) in out.iter().enumerate() {
                omega[j * k + i] = (&int % o).to_u64().unwrap_or(0);
            }
            theta[i] = ((rem * &two128) / qi).to_u128().unwrap_or(0);
        }
        let mut lambda = Vec::new();
        if with_out_residues {
            for &o in out {
                let om = Modulus::new(o)?;
                let mhat_mod = ((&m / o) % o).to_u64().unwrap_or(0);
                let c = om
                    .inv(mhat_mod)
                    .ok_or(FvError::InvalidModulus(o, "output modulus not coprime"))?;
                let ph = ((&p / o) % o).to_u64().unwrap_or(0);
                lambda.push(om.mul(om.mul(om.reduce(t), ph), c));
            }
        }
        if !q.product().gcd(&p).is_one() && !p.is_zero() {
            return Err(FvError::InvalidParameters("Q and O not coprime".into()));
        }
        Ok(Self {
            k,
            q_moduli: q.moduli().to_vec(),
            out: out_m,
            with_out_residues,
            omega,
            theta,
            lambda,
        })
    }

    /// `input`: `K * n` residues (followed by `|O| * n` residues modulo `O` when built
    /// `with_out_residues`); `output`: `|O| * n`.
    pub fn scale(&self, input: &[u64], output: &mut [u64], n: usize) -> Result<(), FvError> {
        let k = self.k;
        let no = self.out.len();
        let need = if self.with_out_residues {
            (k + no) * n
        } else {
            k * n
        };
        FvError::check_len(need, input.len())?;
        FvError::check_len(no * n, output.len())?;
        const BLOCK: usize = 64;
        let mut x = vec![0u64; k * BLOCK];
        let mut rounded = [0u128; BLOCK];
        let mut c0 = 0;
        while c0 < n {
            let bl = BLOCK.min(n - c0);
            for i in 0..k {
                let m = &self.q_moduli[i];
                for (c, &v) in input[i * n + c0..i * n + c0 + bl].iter().enumerate() {
                    x[c * k + i] = m.reduce(v);
                }
            }
            for (c, r) in rounded[..bl].iter_mut().enumerate() {
                let mut int_acc: u128 = 0;
                let mut frac_acc: u128 = 0;
                for (&xv, &th) in x[c * k..(c + 1) * k].iter().zip(&self.theta) {
                    let xv = xv as u128;
                    let tot = xv * (th >> 64) + ((xv * (th as u64 as u128)) >> 64); // units of 2^-64
                    int_acc += tot >> 64;
                    frac_acc += tot as u64 as u128;
                }
                *r = int_acc + ((frac_acc + (1u128 << 63)) >> 64);
            }
            for (j, o) in self.out.iter().enumerate() {
                let w = &self.omega[j * k..(j + 1) * k];
                let lam = if self.with_out_residues {
                    self.lambda[j]
                } else {
                    0
                };
                for c in 0..bl {
                    // One 128-bit accumulator: K products, the rounded fraction (< K 2^61)
                    // and the residue term, reduced once.
                    let mut acc: u128 = rounded[c];
                    for (&xv, &wi) in x[c * k..(c + 1) * k].iter().zip(w) {
                        acc += xv as u128 * wi as u128;
                    }
                    if self.with_out_residues {
                        let xo = input[(k + j) * n + c0 + c];
                        acc += xo as u128 * lam as u128;
                    }
                    output[j * n + c0 + c] = o.reduce_u128(acc);
                }
            }
            c0 += bl;
        }
        Ok(())
    }
}

/// BEHZ's exact decryption scaling with the `gamma` correction (also the HPR decryption of
/// eq. 7): from residues of `x` in a basis `Q`, computes `round(t x / Q) mod t` through a
/// fast conversion to the single modulus `gamma * t` and the centred remainder modulo
/// `gamma` (a power of two), correct when the noise is below the bound of BEHZ Lemma 4
/// (HPR Lemma 2).
#[derive(Debug, Clone)]
pub struct GammaScaler {
    moduli: Vec<Modulus>,
    /// `gamma t (Q/q_i)^-1 mod q_i` and Shoup constants.
    a: Vec<(u64, u64)>,
    /// `(Q/q_i) * (-Q^-1) mod gamma t`.
    w: Vec<u64>,
    gt: Modulus,
    log_gamma: u32,
    t: u64,
}

impl GammaScaler {
    /// Scaler for basis `q`, plaintext modulus `t < 2^29` and `gamma = 2^32`.
    pub fn new(q: &RnsBasis, t: u64) -> Result<Self, FvError> {
        let log_gamma = 32;
        if !(2..(1 << 29)).contains(&t) {
            return Err(FvError::InvalidParameters(format!(
                "plaintext modulus {t} must be in [2, 2^29)"
            )));
        }
        let gt_v = t << log_gamma;
        let gt = Modulus::new(gt_v)?;
        let qm = (q.product() % gt_v).to_u64().unwrap_or(0);
        let inv = gt.inv(qm).ok_or(FvError::InvalidParameters(
            "Q not coprime with gamma t".into(),
        ))?;
        let neg_inv = gt.neg(inv);
        let mut a = Vec::new();
        let mut w = Vec::new();
        for (i, m) in q.moduli().iter().enumerate() {
            let v = m.mul(q.qhat_inv(i).0, m.reduce(gt_v));
            a.push((v, m.shoup(v)));
            let qhat = ((q.product() / m.value()) % gt_v).to_u64().unwrap_or(0);
            w.push(gt.mul(qhat, neg_inv));
        }
        if (q.len() as f64 + 1.0)
            * (gt_v as f64)
            * q.moduli()
                .iter()
                .map(|m| m.value() as f64)
                .fold(0.0, f64::max)
            >= 2f64.powi(128)
        {
            return Err(FvError::InvalidParameters(
                "gamma scaler: basis too large".into(),
            ));
        }
        Ok(Self {
            moduli: q.moduli().to_vec(),
            a,
            w,
            gt,
            log_gamma,
            t,
        })
    }

    /// `input`: `K * n` residues; returns `n` values modulo `t`.
    pub fn scale(&self, input: &[u64], n: usize) -> Result<Vec<u64>, FvError> {
        let k = self.moduli.len();
        FvError::check_len(k * n, input.len())?;
        let mut acc = vec![0u128; n];
        for (i, m) in self.moduli.iter().enumerate() {
            let (ai, ais) = self.a[i];
            let wi = self.w[i] as u128;
            for (s, &x) in acc.iter_mut().zip(&input[i * n..(i + 1) * n]) {
                *s += m.mul_shoup(x, ai, ais) as u128 * wi;
            }
        }
        let g = 1i64 << self.log_gamma;
        let t = self.t as i64;
        Ok(acc
            .iter()
            .map(|&v| {
                // r = -FBE(|gamma t x|_Q) / Q mod gamma t = gamma m + small (eq. 7).
                let r = self.gt.reduce_u128(v) as i64;
                let mut rc = r & (g - 1);
                if rc >= g >> 1 {
                    rc -= g;
                }
                let m = (r - rc) >> self.log_gamma; // in [0, t]
                (if m >= t { m - t } else { m }) as u64
            })
            .collect())
    }
}
