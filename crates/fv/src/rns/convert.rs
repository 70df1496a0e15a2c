//! Base extensions: fast (BEHZ / HPR `FBE`), exact with a floating-point correction (HPS),
//! exact with a redundant modulus (Shenoy-Kumaresan), and BEHZ's Montgomery correction.

use super::RnsBasis;
use crate::zq::Modulus;
use crate::FvError;
use num_traits::ToPrimitive;

/// Coefficients processed together, so that the `K` scaled residues stay in L1 cache.
const BLOCK: usize = 64;

/// Fast base conversion from a basis `Q` to moduli `b_j`:
/// `FBE(x) = sum_i [x_i * (Q/q_i)^-1 * s]_{q_i} * (Q/q_i) mod b_j` for an optional input
/// scale `s` (1 by default).
#[derive(Debug, Clone)]
pub struct BaseConverter {
    from: RnsBasis,
    to: Vec<Modulus>,
    /// `s * (Q/q_i)^-1 mod q_i` and Shoup constants.
    yscale: Vec<u64>,
    yscale_shoup: Vec<u64>,
    /// `(Q/q_i) mod b_j` at `j * K + i`.
    qhat_mod_to: Vec<u64>,
    /// `Q mod b_j`.
    q_mod_to: Vec<u64>,
    /// `1 / q_i` as floats.
    inv_q: Vec<f64>,
    /// Number of 128-bit products that can be summed without overflow.
    chunk: usize,
}

impl BaseConverter {
    /// Converter from `from` to the moduli `to`.
    pub fn new(from: &RnsBasis, to: &[u64]) -> Result<Self, FvError> {
        Self::with_scale(from, to, 1)
    }

    /// Converter computing the extension of `s * x` (the scaling is folded into the
    /// per-residue constants).
    pub fn with_scale(from: &RnsBasis, to: &[u64], s: u64) -> Result<Self, FvError> {
        let to = to
            .iter()
            .map(|&b| Modulus::new(b))
            .collect::<Result<Vec<_>, _>>()?;
        let k = from.len();
        let mut yscale = Vec::with_capacity(k);
        let mut yscale_shoup = Vec::with_capacity(k);
        for (i, m) in from.moduli().iter().enumerate() {
            let v = m.mul(from.qhat_inv(i).0, m.reduce(s));
            yscale.push(v);
            yscale_shoup.push(m.shoup(v));
        }
        let mut qhat_mod_to = Vec::with_capacity(k * to.len());
        let mut q_mod_to = Vec::with_capacity(to.len());
        for b in &to {
            for m in from.moduli() {
                let qhat = from.product() / m.value();
                qhat_mod_to.push((qhat % b.value()).to_u64().unwrap_or(0));
            }
            q_mod_to.push((from.product() % b.value()).to_u64().unwrap_or(0));
        }
        let inv_q = from
            .moduli()
            .iter()
            .map(|m| 1.0 / m.value() as f64)
            .collect();
        let maxf = from.moduli().iter().map(|m| m.value()).max().unwrap_or(2) as u128;
        let maxt = to.iter().map(|m| m.value()).max().unwrap_or(2) as u128;
        let chunk = ((u128::MAX / (maxf * maxt)) as usize).clamp(2, 1 << 20);
        Ok(Self {
            from: from.clone(),
            to,
            yscale,
            yscale_shoup,
            qhat_mod_to,
            q_mod_to,
            inv_q,
            chunk,
        })
    }

    /// Source basis.
    pub fn from(&self) -> &RnsBasis {
        &self.from
    }

    /// Target moduli.
    pub fn to(&self) -> &[Modulus] {
        &self.to
    }

    fn check(&self, input: &[u64], output: &[u64], n: usize) -> Result<(), FvError> {
        FvError::check_len(self.from.len() * n, input.len())?;
        FvError::check_len(self.to.len() * n, output.len())?;
        Ok(())
    }

    /// Shared kernel. `mode`: 0 = fast (unsigned), 1 = fast with centred residues,
    /// 2 = exact with the HPS floating-point correction.
    ///
    /// Scaled residues are stored coefficient-major per block so that each output is one
    /// contiguous dot product accumulated in 128 bits and reduced once.
    fn run(&self, input: &[u64], output: &mut [u64], n: usize, mode: u8) -> Result<(), FvError> {
        self.check(input, output, n)?;
        let k = self.from.len();
        // Room for the K products plus the correction term in one accumulator.
        let single = k < self.chunk;
        let mut y = vec![0u64; k * BLOCK];
        let mut corr = [0u64; BLOCK];
        let mut c0 = 0;
        while c0 < n {
            let bl = BLOCK.min(n - c0);
            for (i, m) in self.from.moduli().iter().enumerate() {
                let src = &input[i * n + c0..i * n + c0 + bl];
                let (w, ws) = (self.yscale[i], self.yscale_shoup[i]);
                for (c, &x) in src.iter().enumerate() {
                    y[c * k + i] = m.mul_shoup(x, w, ws);
                }
            }
            match mode {
                1 => {
                    for (c, cc) in corr[..bl].iter_mut().enumerate() {
                        let row = &y[c * k..(c + 1) * k];
                        *cc = row
                            .iter()
                            .zip(self.from.moduli())
                            .map(|(&v, m)| (v > m.value() >> 1) as u64)
                            .sum();
                    }
                }
                2 => {
                    for (c, cc) in corr[..bl].iter_mut().enumerate() {
                        let row = &y[c * k..(c + 1) * k];
                        let f: f64 = row
                            .iter()
                            .zip(&self.inv_q)
                            .map(|(&v, &iq)| v as f64 * iq)
                            .sum();
                        *cc = f.round() as u64;
                    }
                }
                _ => {}
            }
            for (j, b) in self.to.iter().enumerate() {
                let w = &self.qhat_mod_to[j * k..(j + 1) * k];
                let neg_qm = b.neg(self.q_mod_to[j]) as u128;
                let out = &mut output[j * n + c0..j * n + c0 + bl];
                if single {
                    for (c, o) in out.iter_mut().enumerate() {
                        let row = &y[c * k..(c + 1) * k];
                        let mut acc: u128 = 0;
                        for (&a, &wi) in row.iter().zip(w) {
                            acc += a as u128 * wi as u128;
                        }
                        if mode != 0 {
                            acc += corr[c] as u128 * neg_qm;
                        }
                        *o = b.reduce_u128(acc);
                    }
                } else {
                    for (c, o) in out.iter_mut().enumerate() {
                        let row = &y[c * k..(c + 1) * k];
                        let mut red = 0u64;
                        for (rc, wc) in row.chunks(self.chunk - 1).zip(w.chunks(self.chunk - 1)) {
                            let mut acc: u128 = 0;
                            for (&a, &wi) in rc.iter().zip(wc) {
                                acc += a as u128 * wi as u128;
                            }
                            red = b.add(red, b.reduce_u128(acc));
                        }
                        if mode != 0 {
                            red = b.add(red, b.reduce_u128(corr[c] as u128 * neg_qm));
                        }
                        *o = red;
                    }
                }
            }
            c0 += bl;
        }
        Ok(())
    }

    /// Fast base extension: each output is `x + alpha * Q` mod `b_j` with
    /// `0 <= alpha < K`, where `x` is the value in `[0, Q)`.
    pub fn fast(&self, input: &[u64], output: &mut [u64], n: usize) -> Result<(), FvError> {
        self.run(input, output, n, 0)
    }

    /// Fast base extension with centred residues: `x + alpha * Q` with `|alpha| <= K/2`,
    /// the HPR paper's `FBE`.
    pub fn fast_centered(
        &self,
        input: &[u64],
        output: &mut [u64],
        n: usize,
    ) -> Result<(), FvError> {
        self.run(input, output, n, 1)
    }

    /// Exact extension of the centred value `[x]_Q` in `[-Q/2, Q/2)`, with `alpha`
    /// estimated in double precision as in HPS (wrong by one only when
    /// `x / Q` is within about `K * 2^-52` of `1/2`).
    pub fn exact_hps(&self, input: &[u64], output: &mut [u64], n: usize) -> Result<(), FvError> {
        self.run(input, output, n, 2)
    }
}

/// Exact extension from a basis `B` with a redundant modulus `m_sk` (Shenoy-Kumaresan):
/// a value `|x| < lambda * B` given by its residues in `B` and modulo `m_sk` is recovered
/// exactly in the target moduli when `m_sk >= 2 (|B| + lambda)`.
#[derive(Debug, Clone)]
pub struct ShenoyKumaresan {
    /// Converter from `B` to the targets followed by `m_sk`.
    conv: BaseConverter,
    msk: Modulus,
    b_inv_msk: u64,
    /// `B mod target_j`.
    b_mod_to: Vec<u64>,
}

impl ShenoyKumaresan {
    /// Extension from `b` (with redundant modulus `msk`) to `to`.
    pub fn new(b: &RnsBasis, msk: u64, to: &[u64]) -> Result<Self, FvError> {
        let mut targets = to.to_vec();
        targets.push(msk);
        let conv = BaseConverter::new(b, &targets)?;
        let msk_m = Modulus::new(msk)?;
        let bm = (b.product() % msk).to_u64().unwrap_or(0);
        let b_inv_msk = msk_m.inv(bm).ok_or(FvError::InvalidModulus(
            msk,
            "redundant modulus not coprime with B",
        ))?;
        let b_mod_to = to
            .iter()
            .map(|&t| (b.product() % t).to_u64().unwrap_or(0))
            .collect();
        Ok(Self {
            conv,
            msk: msk_m,
            b_inv_msk,
            b_mod_to,
        })
    }

    /// `input`: residues in `B` (`|B| * n`) followed by residues mod `m_sk` (`n`);
    /// `output`: `|to| * n` residues of the (signed) value.
    pub fn extend(&self, input: &[u64], output: &mut [u64], n: usize) -> Result<(), FvError> {
        let lb = self.conv.from().len();
        FvError::check_len((lb + 1) * n, input.len())?;
        let nt = self.b_mod_to.len();
        FvError::check_len(nt * n, output.len())?;
        let mut tmp = vec![0u64; (nt + 1) * n];
        self.conv.fast(&input[..lb * n], &mut tmp, n)?;
        let xsk = &input[lb * n..];
        let msk = &self.msk;
        let (conv_t, conv_sk) = tmp.split_at(nt * n);
        let alphas: Vec<i64> = (0..n)
            .map(|c| {
                let a = msk.mul(msk.sub(conv_sk[c], msk.reduce(xsk[c])), self.b_inv_msk);
                msk.center(a)
            })
            .collect();
        for (j, t) in self.conv.to()[..nt].iter().enumerate() {
            let bm = self.b_mod_to[j];
            let bms = t.shoup(bm);
            for c in 0..n {
                let a = alphas[c];
                let corr = t.mul_shoup(a.unsigned_abs(), bm, bms);
                let v = conv_t[j * n + c];
                output[j * n + c] = if a >= 0 {
                    t.sub(v, corr)
                } else {
                    t.add(v, corr)
                };
            }
        }
        Ok(())
    }
}

/// BEHZ's fast conversion to `B_sk` followed by the Montgomery-style reduction with an
/// extra modulus `m~`: from `x` in `Q`, it outputs in `B_sk` a value congruent to `x` mod
/// `Q` and bounded by about `Q` (the `alpha * Q` of the fast conversion is removed).
#[derive(Debug, Clone)]
pub struct MontgomeryCorrector {
    /// Fast conversion of `m~ * x` from `Q` to `B_sk` followed by `m~`.
    conv: BaseConverter,
    mtilde: Modulus,
    /// `-Q^-1 mod m~`.
    neg_q_inv_mt: u64,
    /// `Q mod b` and `m~^-1 mod b`, for `b` in `B_sk`.
    q_mod_b: Vec<u64>,
    mt_inv_b: Vec<u64>,
}

impl MontgomeryCorrector {
    /// Corrector from `q` to the moduli `bsk`, with Montgomery modulus `mtilde`.
    pub fn new(q: &RnsBasis, bsk: &[u64], mtilde: u64) -> Result<Self, FvError> {
        let mut targets = bsk.to_vec();
        targets.push(mtilde);
        let conv = BaseConverter::with_scale(q, &targets, mtilde)?;
        let mt = Modulus::new(mtilde)?;
        let qm = (q.product() % mtilde).to_u64().unwrap_or(0);
        let qinv = mt
            .inv(qm)
            .ok_or(FvError::InvalidModulus(mtilde, "m~ not coprime with Q"))?;
        let mut q_mod_b = Vec::new();
        let mut mt_inv_b = Vec::new();
        for &b in bsk {
            let bm = Modulus::new(b)?;
            q_mod_b.push((q.product() % b).to_u64().unwrap_or(0));
            mt_inv_b.push(
                bm.inv(mtilde)
                    .ok_or(FvError::InvalidModulus(b, "m~ not invertible"))?,
            );
        }
        Ok(Self {
            conv,
            mtilde: mt,
            neg_q_inv_mt: mt.neg(qinv),
            q_mod_b,
            mt_inv_b,
        })
    }

    /// `input`: `K * n` residues in `Q`; `output`: `|B_sk| * n` residues.
    pub fn convert(&self, input: &[u64], output: &mut [u64], n: usize) -> Result<(), FvError> {
        let nb = self.q_mod_b.len();
        FvError::check_len(nb * n, output.len())?;
        let mut tmp = vec![0u64; (nb + 1) * n];
        self.conv.fast(input, &mut tmp, n)?;
        let (cb, cm) = tmp.split_at(nb * n);
        let mt = &self.mtilde;
        let r: Vec<i64> = cm
            .iter()
            .map(|&v| mt.center(mt.mul(v, self.neg_q_inv_mt)))
            .collect();
        for (j, b) in self.conv.to()[..nb].iter().enumerate() {
            let (qb, mi) = (self.q_mod_b[j], self.mt_inv_b[j]);
            let (qbs, mis) = (b.shoup(qb), b.shoup(mi));
            for c in 0..n {
                let a = r[c];
                let corr = b.mul_shoup(a.unsigned_abs(), qb, qbs);
                let v = cb[j * n + c];
                let s = if a >= 0 {
                    b.add(v, corr)
                } else {
                    b.sub(v, corr)
                };
                output[j * n + c] = b.mul_shoup(s, mi, mis);
            }
        }
        Ok(())
    }
}
