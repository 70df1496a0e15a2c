//! The precomputed context of a parameter set: moduli, NTT plans, base converters.
//!
//! Memory: everything here is linear in the number of moduli (per-modulus NTT tables of
//! `4n` words, converter tables of `K x (K + 1)` words), never quadratic in polynomials.

use super::parameters::FvParameters;
use crate::ntt::NttOperator;
use crate::poly::hpr::HprArith;
use crate::rns::{
    BaseConverter, GammaScaler, MontgomeryCorrector, RnsBasis, ScaleRounder, ShenoyKumaresan,
};
use crate::zq::primes::ntt_primes;
use crate::FvError;
use num_bigint::BigUint;
use num_traits::ToPrimitive;

/// Montgomery modulus of BEHZ (`m~`).
pub(crate) const MTILDE: u64 = 1 << 32;

/// Precomputation shared by the BEHZ and HPS variants (same `q`).
#[derive(Debug)]
pub(crate) struct RnsContext {
    pub n: usize,
    pub q: RnsBasis,
    /// Auxiliary basis: HPS's `P` and BEHZ's `B_sk = B u {m_sk}` (K + 1 primes of 61 bits).
    pub aux: RnsBasis,
    pub ntt_q: Vec<NttOperator>,
    /// NTT operators of `Q` followed by `aux`.
    pub ntt_qa: Vec<NttOperator>,
    /// `floor(Q / t) mod q_i`.
    pub delta_q: Vec<u64>,
    /// `(Q / q_i) mod q_i` (the gadget of the relinearisation key).
    pub qhat_mod_q: Vec<u64>,
    // HPS
    pub hps_q_to_aux: BaseConverter,
    pub hps_scale: ScaleRounder,
    pub hps_aux_to_q: BaseConverter,
    pub hps_dec: ScaleRounder,
    // BEHZ
    pub behz_mont: MontgomeryCorrector,
    pub behz_floor: BaseConverter,
    pub behz_q_inv_aux: Vec<(u64, u64)>,
    pub behz_t_aux: Vec<u64>,
    pub behz_sk: ShenoyKumaresan,
    pub behz_dec: GammaScaler,
}

/// Precomputation of the HPR variant.
#[derive(Debug)]
pub(crate) struct HprContext {
    pub arith: HprArith,
    pub t: u64,
    /// Digits of `Delta = floor(q / t)`, reduced modulo each of the `2k + 1` moduli.
    pub delta_digits: Vec<Vec<u64>>,
    pub dec: GammaScaler,
    /// Digits kept in the relinearisation key of digit `i` (fine decomposition).
    pub rlk_digits_fine: Vec<usize>,
    /// Same for the coarse decomposition of Remark 3.
    pub rlk_digits_coarse: Vec<usize>,
}

/// A parameter set with all its precomputation. Build once, share by reference.
///
/// ```no_run
/// use encint_fv::bfv::{FvContext, FvParameters};
/// let ctx = FvContext::new(FvParameters::set_a()).unwrap();
/// assert_eq!(ctx.parameters().n, 8192);
/// ```
#[derive(Debug)]
pub struct FvContext {
    params: FvParameters,
    id: u64,
    pub(crate) rns: RnsContext,
    pub(crate) hpr: HprContext,
}

fn fnv(words: &[u64]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x100000001b3);
        }
    }
    h
}

fn truncation_digits(p_bits: f64, d: usize, log2_x: f64) -> Vec<usize> {
    // Guard G = ceil(log_p X): digit i's key is kept modulo p^(i+1) when the wrap-around
    // term (at most X p^(i+1) / ... , see docs/FV.md) stays below q / 2^8 t.
    let g = (log2_x / p_bits).ceil().max(0.0) as usize;
    (0..d)
        .map(|i| if d >= i + 1 + g { i + 1 } else { d })
        .collect()
}

impl FvContext {
    /// Builds the context (primes, NTT plans, converters) of a parameter set.
    pub fn new(params: FvParameters) -> Result<Self, FvError> {
        params.validate()?;
        let n = params.n;
        let t = params.t;
        let k_rns = params.rns_count;
        let qv = ntt_primes(params.rns_bits, n, k_rns, &[])?;
        let av = ntt_primes(61, n, k_rns + 1, &qv)?;
        if qv.contains(&t) || av.contains(&t) {
            return Err(FvError::InvalidParameters(
                "t equals a ciphertext modulus".into(),
            ));
        }
        let q = RnsBasis::new(&qv)?;
        let aux = RnsBasis::new(&av)?;
        let ntt_q = qv
            .iter()
            .map(|&m| NttOperator::new(n, m))
            .collect::<Result<Vec<_>, _>>()?;
        let mut ntt_qa = ntt_q.clone();
        for &m in &av {
            ntt_qa.push(NttOperator::new(n, m)?);
        }
        let delta: BigUint = q.product() / t;
        let delta_q = q.residues(&delta);
        let qhat_mod_q = q
            .moduli()
            .iter()
            .map(|m| {
                ((q.product() / m.value()) % m.value())
                    .to_u64()
                    .unwrap_or(0)
            })
            .collect();
        let hps_q_to_aux = BaseConverter::new(&q, &av)?;
        let hps_scale = ScaleRounder::new(&q, &av, t, true)?;
        let hps_aux_to_q = BaseConverter::new(&aux, &qv)?;
        let hps_dec = ScaleRounder::new(&q, &[t], t, false)?;
        let behz_mont = MontgomeryCorrector::new(&q, &av, MTILDE)?;
        let behz_floor = BaseConverter::with_scale(&q, &av, t)?;
        let mut behz_q_inv_aux = Vec::new();
        let mut behz_t_aux = Vec::new();
        for m in aux.moduli() {
            let qm = (q.product() % m.value()).to_u64().unwrap_or(0);
            let inv = m
                .inv(qm)
                .ok_or(FvError::InvalidModulus(m.value(), "Q not invertible"))?;
            behz_q_inv_aux.push((inv, m.shoup(inv)));
            behz_t_aux.push(m.reduce(t));
        }
        let b_basis = RnsBasis::new(&av[..k_rns])?;
        let behz_sk = ShenoyKumaresan::new(&b_basis, av[k_rns], &qv)?;
        let behz_dec = GammaScaler::new(&q, t)?;
        let rns = RnsContext {
            n,
            q,
            aux,
            ntt_q,
            ntt_qa,
            delta_q,
            qhat_mod_q,
            hps_q_to_aux,
            hps_scale,
            hps_aux_to_q,
            hps_dec,
            behz_mont,
            behz_floor,
            behz_q_inv_aux,
            behz_t_aux,
            behz_sk,
            behz_dec,
        };

        // HPR
        let (k, d) = (params.hpr_k, params.hpr_d);
        let pv = ntt_primes(params.hpr_bits, n, k, &[])?;
        let bv = ntt_primes(61, n, k + 1, &pv)?;
        if pv.contains(&t) || bv.contains(&t) {
            return Err(FvError::InvalidParameters("t equals an HPR modulus".into()));
        }
        let arith = HprArith::new(n, &pv, &bv[..k], bv[k], d)?;
        let hq = arith.modulus().clone();
        let mut rem = &hq / t;
        let mut delta_digits = Vec::with_capacity(d);
        for _ in 0..d {
            let dig = &rem % arith.radix();
            delta_digits.push(
                arith
                    .moduli()
                    .iter()
                    .map(|m| (&dig % m.value()).to_u64().unwrap_or(0))
                    .collect(),
            );
            rem /= arith.radix();
        }
        let dec = GammaScaler::new(arith.p_basis(), t)?;
        let p_bits = (k as f64) * (params.hpr_bits as f64 - 1.0);
        let base = 1.0
            + (t as f64).log2()
            + (k as f64).log2()
            + (d as f64).log2()
            + 2.0 * (n as f64).log2()
            + 8.0;
        let rlk_digits_fine = truncation_digits(p_bits, d, base + params.hpr_bits as f64);
        let rlk_digits_coarse = truncation_digits(
            p_bits,
            d,
            base + (k as f64).log2() + k as f64 * params.hpr_bits as f64,
        );
        let hpr = HprContext {
            arith,
            t,
            delta_digits,
            dec,
            rlk_digits_fine,
            rlk_digits_coarse,
        };
        let mut words: Vec<u64> = vec![n as u64, t];
        words.extend(&qv);
        words.extend(&pv);
        words.push(d as u64);
        Ok(Self {
            id: fnv(&words),
            params,
            rns,
            hpr,
        })
    }

    /// The parameters.
    pub fn parameters(&self) -> &FvParameters {
        &self.params
    }

    /// A fingerprint of the parameters, recorded in keys and ciphertexts.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The RNS moduli `q_i` of the BEHZ and HPS variants.
    pub fn rns_moduli(&self) -> Vec<u64> {
        self.rns.q.moduli().iter().map(|m| m.value()).collect()
    }

    /// The primes `p_j` of the HPR radix.
    pub fn hpr_moduli(&self) -> Vec<u64> {
        self.hpr
            .arith
            .p_basis()
            .moduli()
            .iter()
            .map(|m| m.value())
            .collect()
    }

    /// Number of digits kept in each HPR relinearisation key component (Remark 2 with
    /// guard digits; `fine = false` for the coarse decomposition of Remark 3).
    pub fn hpr_key_digits(&self, fine: bool) -> &[usize] {
        if fine {
            &self.hpr.rlk_digits_fine
        } else {
            &self.hpr.rlk_digits_coarse
        }
    }
}
