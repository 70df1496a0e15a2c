//! The FV scheme (Fan and Vercauteren, "Somewhat Practical Fully Homomorphic Encryption")
//! in three variants sharing the meaning of keys and ciphertexts: the two full-RNS ones
//! (BEHZ, HPS) and the HPR one.
//!
//! ```no_run
//! use encint_fv::bfv::{FvContext, FvParameters, Plaintext, SecretKey, Variant};
//! use rand::SeedableRng;
//! let ctx = FvContext::new(FvParameters::set_a()).unwrap();
//! let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
//! let sk = SecretKey::generate(&ctx, &mut rng);
//! for v in [Variant::Behz, Variant::Hps, Variant::Hpr] {
//!     let pk = ctx.generate_public_key(&sk, v, &mut rng).unwrap();
//!     let rlk = ctx.generate_relin_key(&sk, v, &mut rng).unwrap();
//!     let mut m = vec![0u64; 8192];
//!     m[0] = 3;
//!     let pt = Plaintext::new(&ctx, m).unwrap();
//!     let ct = ctx.encrypt(&pk, &pt, &mut rng).unwrap();
//!     let sq = ctx.mul_relin(&ct, &ct, &rlk).unwrap();
//!     assert_eq!(ctx.decrypt(&sk, &sq).unwrap().coefficients()[0], 9);
//! }
//! ```

mod ciphertext;
mod context;
mod encoder;
mod hpr_ops;
mod keys;
mod linear;
mod parameters;
mod plaintext;
mod rns_ops;
pub mod sampling;

pub use ciphertext::Ciphertext;
pub use context::FvContext;
pub use encoder::BatchEncoder;
pub use keys::{HprDecomposition, PublicKey, RawRnsKey, RelinKey, SecretKey};
pub use parameters::FvParameters;
pub use plaintext::Plaintext;

use crate::FvError;
use ciphertext::Parts;
use keys::{PkData, RlkData};
use rand::{CryptoRng, RngCore};

/// The three FV variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Full-RNS FV of Bajard, Eynard, Hasan and Zucca (SAC 2016).
    Behz,
    /// Full-RNS FV of Halevi, Polyakov and Shoup (CT-RSA 2019), floating-point extensions.
    Hps,
    /// FV on the Hybrid Position-Residue system (Bajard et al., ARITH 2020).
    Hpr,
}

impl Variant {
    /// All variants.
    pub const ALL: [Variant; 3] = [Variant::Behz, Variant::Hps, Variant::Hpr];

    /// Lower-case name.
    pub fn name(&self) -> &'static str {
        match self {
            Variant::Behz => "behz",
            Variant::Hps => "hps",
            Variant::Hpr => "hpr",
        }
    }

    /// Parses `behz`, `hps` or `hpr`.
    pub fn parse(s: &str) -> Result<Self, FvError> {
        match s.to_ascii_lowercase().as_str() {
            "behz" => Ok(Variant::Behz),
            "hps" => Ok(Variant::Hps),
            "hpr" => Ok(Variant::Hpr),
            _ => Err(FvError::UnknownName {
                kind: "variant",
                name: s.into(),
            }),
        }
    }
}

impl FvContext {
    fn check_ctx(&self, id: u64, what: &str) -> Result<(), FvError> {
        if id != self.id() {
            return Err(FvError::ParameterMismatch(format!(
                "{what} belongs to another parameter set"
            )));
        }
        Ok(())
    }

    fn check_ct(&self, ct: &Ciphertext, len: &[usize]) -> Result<(), FvError> {
        self.check_ctx(ct.ctx_id, "ciphertext")?;
        if !len.contains(&ct.len()) {
            return Err(FvError::MalformedCiphertext(format!(
                "{} polynomials, expected {:?}",
                ct.len(),
                len
            )));
        }
        let n = self.parameters().n;
        match (&ct.parts, ct.variant) {
            (Parts::Rns(v), Variant::Behz | Variant::Hps) => {
                let kn = self.rns.q.len() * n;
                if v.iter().any(|p| p.data.len() != kn || p.ntt) {
                    return Err(FvError::MalformedCiphertext(
                        "wrong RNS polynomial size".into(),
                    ));
                }
            }
            (Parts::Hpr(v), Variant::Hpr) => {
                let a = &self.hpr.arith;
                let wn = a.width() * n;
                if v.iter().any(|p| {
                    p.ntt || p.digits.len() != a.d || p.digits.iter().any(|d| d.len() != wn)
                }) {
                    return Err(FvError::MalformedCiphertext(
                        "wrong HPR polynomial size".into(),
                    ));
                }
            }
            _ => {
                return Err(FvError::MalformedCiphertext(
                    "representation does not match the variant".into(),
                ))
            }
        }
        Ok(())
    }

    /// The depth of a product of operands of depth `operands`, or
    /// [`FvError::DepthExceeded`] past the set's measured depth.
    pub(crate) fn product_depth(&self, operands: u32) -> Result<u32, FvError> {
        let depth = operands.saturating_add(1);
        let p = self.parameters();
        match p.max_depth {
            Some(max) if depth > max => Err(FvError::DepthExceeded {
                depth,
                max,
                set: p.name.clone(),
            }),
            _ => Ok(depth),
        }
    }

    fn check_pt(&self, pt: &Plaintext) -> Result<(), FvError> {
        let p = self.parameters();
        FvError::check_len(p.n, pt.coeffs.len())?;
        if let Some(&v) = pt.coeffs.iter().find(|&&v| v >= p.t) {
            return Err(FvError::PlaintextOutOfRange {
                value: v,
                modulus: p.t,
            });
        }
        Ok(())
    }

    /// A fresh ternary secret key (shared by all variants).
    pub fn generate_secret_key<R: RngCore + CryptoRng>(&self, rng: &mut R) -> SecretKey {
        SecretKey::generate(self, rng)
    }

    /// A public key for `variant`.
    pub fn generate_public_key<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        variant: Variant,
        rng: &mut R,
    ) -> Result<PublicKey, FvError> {
        self.check_ctx(sk.ctx_id, "secret key")?;
        let sigma = self.parameters().sigma;
        let data = match variant {
            Variant::Behz | Variant::Hps => {
                let (p0, p1) = self.rns.keygen_pk(&sk.s_q, sigma, rng);
                PkData::Rns { p0, p1 }
            }
            Variant::Hpr => {
                let (p0, p1) = self.hpr.keygen_pk(&sk.s_hpr, sigma, rng);
                PkData::Hpr { p0, p1 }
            }
        };
        Ok(PublicKey {
            variant,
            ctx_id: self.id(),
            data,
        })
    }

    /// A relinearisation key for `variant` (HPR: the fine decomposition with truncated keys).
    pub fn generate_relin_key<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        variant: Variant,
        rng: &mut R,
    ) -> Result<RelinKey, FvError> {
        self.check_ctx(sk.ctx_id, "secret key")?;
        let sigma = self.parameters().sigma;
        let data = match variant {
            Variant::Behz | Variant::Hps => {
                let (k0, k1) = self.rns.keygen_rlk(&sk.s_q, sigma, rng);
                RlkData::Rns { k0, k1 }
            }
            Variant::Hpr => {
                return self.generate_relin_key_hpr(sk, HprDecomposition::Fine, false, rng)
            }
        };
        Ok(RelinKey {
            variant,
            ctx_id: self.id(),
            data,
        })
    }

    /// An HPR relinearisation key with the chosen decomposition.
    ///
    /// `truncated` selects the truncated keys of Remark 2 (component `i` kept modulo
    /// `p^(i+1)`, with guard digits where `p` is small, see
    /// [`FvContext::hpr_key_digits`]): smaller keys and fewer products, but the
    /// wrap-around term `r p^(i+1) u` of a sample modulo `p^(i+1)` adds noise of about
    /// `n^2 p_j p^(i+1)`, which costs depth (see docs/FV.md). The default key
    /// ([`FvContext::generate_relin_key`]) is not truncated.
    pub fn generate_relin_key_hpr<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        decomposition: HprDecomposition,
        truncated: bool,
        rng: &mut R,
    ) -> Result<RelinKey, FvError> {
        self.check_ctx(sk.ctx_id, "secret key")?;
        let keys = self.hpr.keygen_rlk(
            &sk.s_hpr,
            self.parameters().sigma,
            decomposition,
            truncated,
            rng,
        );
        Ok(RelinKey {
            variant: Variant::Hpr,
            ctx_id: self.id(),
            data: RlkData::Hpr {
                keys,
                decomposition,
            },
        })
    }

    /// Public-key encryption; the ciphertext has the key's variant.
    pub fn encrypt<R: RngCore + CryptoRng>(
        &self,
        pk: &PublicKey,
        pt: &Plaintext,
        rng: &mut R,
    ) -> Result<Ciphertext, FvError> {
        self.check_ctx(pk.ctx_id, "public key")?;
        self.check_pt(pt)?;
        let sigma = self.parameters().sigma;
        let parts = match &pk.data {
            PkData::Rns { p0, p1 } => {
                Parts::Rns(self.rns.encrypt_pk(p0, p1, &pt.coeffs, sigma, rng))
            }
            PkData::Hpr { p0, p1 } => {
                Parts::Hpr(self.hpr.encrypt_pk(p0, p1, &pt.coeffs, sigma, rng))
            }
        };
        Ok(Ciphertext {
            variant: pk.variant,
            ctx_id: self.id(),
            parts,
            depth: 0,
        })
    }

    /// Secret-key encryption for `variant`.
    pub fn encrypt_symmetric<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        pt: &Plaintext,
        variant: Variant,
        rng: &mut R,
    ) -> Result<Ciphertext, FvError> {
        self.check_ctx(sk.ctx_id, "secret key")?;
        self.check_pt(pt)?;
        let sigma = self.parameters().sigma;
        let parts = match variant {
            Variant::Behz | Variant::Hps => {
                Parts::Rns(self.rns.encrypt_sk(&sk.s_q, &pt.coeffs, sigma, rng))
            }
            Variant::Hpr => Parts::Hpr(self.hpr.encrypt_sk(&sk.s_hpr, &pt.coeffs, sigma, rng)),
        };
        Ok(Ciphertext {
            variant,
            ctx_id: self.id(),
            parts,
            depth: 0,
        })
    }

    /// Decryption of a two-part ciphertext, with the ciphertext's variant's algorithm.
    ///
    /// The noise is checked first ([`FvContext::rounding_distance`]): a ciphertext that
    /// would decrypt to a wrong plaintext gives [`FvError::NoiseBudgetExhausted`].
    pub fn decrypt(&self, sk: &SecretKey, ct: &Ciphertext) -> Result<Plaintext, FvError> {
        self.check_ctx(sk.ctx_id, "secret key")?;
        self.check_ct(ct, &[2])?;
        let coeffs = match &ct.parts {
            Parts::Rns(v) => {
                self.rns
                    .decrypt(&sk.s_q, v, ct.variant == Variant::Behz, self.parameters().t)?
            }
            Parts::Hpr(v) => self.hpr.decrypt(&sk.s_hpr, v)?,
        };
        Ok(Plaintext { coeffs })
    }

    /// What decryption checks: the largest distance, over the coefficients, between the
    /// scaled phase `t·(c0 + c1·s)/q` and its rounded value, in `[0, 1/2]`. Decryption
    /// refuses a ciphertext whose distance passes 1/4 (less than one bit of noise budget
    /// left, or noise that has wrapped around) with [`FvError::NoiseBudgetExhausted`].
    /// Floating point; every variant (HPR from the top digit). Needs the secret key.
    pub fn rounding_distance(&self, sk: &SecretKey, ct: &Ciphertext) -> Result<f64, FvError> {
        self.check_ctx(sk.ctx_id, "secret key")?;
        self.check_ct(ct, &[2])?;
        let p = self.parameters();
        Ok(match &ct.parts {
            Parts::Rns(v) => {
                let x = self.rns.phase(&sk.s_q, v);
                self.rns.q.max_rounding_distance(&x, p.t, p.n)
            }
            Parts::Hpr(v) => self.hpr.rounding_distance(&sk.s_hpr, v),
        })
    }

    fn same_variant(a: &Ciphertext, b: &Ciphertext) -> Result<(), FvError> {
        if a.variant != b.variant {
            return Err(FvError::VariantMismatch(format!(
                "{:?} and {:?} ciphertexts",
                a.variant, b.variant
            )));
        }
        Ok(())
    }

    /// Homomorphic addition of two ciphertexts of the same size and variant.
    pub fn add(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext, FvError> {
        self.check_ct(a, &[2, 3])?;
        self.check_ct(b, &[a.len()])?;
        Self::same_variant(a, b)?;
        let parts = match (&a.parts, &b.parts) {
            (Parts::Rns(x), Parts::Rns(y)) => Parts::Rns(self.rns.add(x, y)),
            (Parts::Hpr(x), Parts::Hpr(y)) => Parts::Hpr(self.hpr.add(x, y)),
            _ => return Err(FvError::VariantMismatch("representations differ".into())),
        };
        Ok(Ciphertext {
            variant: a.variant,
            ctx_id: self.id(),
            parts,
            depth: a.depth.max(b.depth),
        })
    }

    /// Homomorphic multiplication without relinearisation (three-part result).
    ///
    /// Refused with [`FvError::DepthExceeded`], before any work, when the product's depth
    /// would pass the set's [`FvParameters::max_depth`].
    pub fn mul(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext, FvError> {
        self.check_ct(a, &[2])?;
        self.check_ct(b, &[2])?;
        Self::same_variant(a, b)?;
        let depth = self.product_depth(a.depth.max(b.depth))?;
        let parts = match (&a.parts, &b.parts, a.variant) {
            (Parts::Rns(x), Parts::Rns(y), Variant::Behz) => Parts::Rns(self.rns.mul_behz(x, y)?),
            (Parts::Rns(x), Parts::Rns(y), Variant::Hps) => Parts::Rns(self.rns.mul_hps(x, y)?),
            (Parts::Hpr(x), Parts::Hpr(y), Variant::Hpr) => Parts::Hpr(self.hpr.mul(x, y)),
            _ => return Err(FvError::VariantMismatch("representations differ".into())),
        };
        Ok(Ciphertext {
            variant: a.variant,
            ctx_id: self.id(),
            parts,
            depth,
        })
    }

    /// Relinearisation of a three-part ciphertext.
    pub fn relinearize(&self, ct: &Ciphertext, rlk: &RelinKey) -> Result<Ciphertext, FvError> {
        self.check_ct(ct, &[3])?;
        self.check_ctx(rlk.ctx_id, "relinearisation key")?;
        let parts = match (&ct.parts, &rlk.data) {
            (Parts::Rns(c), RlkData::Rns { k0, k1 }) => Parts::Rns(self.rns.relin(c, k0, k1)),
            (
                Parts::Hpr(c),
                RlkData::Hpr {
                    keys,
                    decomposition,
                },
            ) => Parts::Hpr(self.hpr.relin(c, keys, *decomposition)),
            _ => {
                return Err(FvError::VariantMismatch(format!(
                    "{:?} ciphertext with a {:?} relinearisation key",
                    ct.variant, rlk.variant
                )))
            }
        };
        Ok(Ciphertext {
            variant: ct.variant,
            ctx_id: self.id(),
            parts,
            depth: ct.depth,
        })
    }

    /// Multiplication followed by relinearisation.
    pub fn mul_relin(
        &self,
        a: &Ciphertext,
        b: &Ciphertext,
        rlk: &RelinKey,
    ) -> Result<Ciphertext, FvError> {
        if (a.variant == Variant::Hpr) != (rlk.variant == Variant::Hpr) {
            return Err(FvError::VariantMismatch(format!(
                "{:?} ciphertext with a {:?} relinearisation key",
                a.variant, rlk.variant
            )));
        }
        let c = self.mul(a, b)?;
        self.relinearize(&c, rlk)
    }
}

/// Largest rounding distance ([`crate::rns::RnsBasis::max_rounding_distance`]) that
/// decryption accepts. A phase that decrypts correctly has its distance below it unless
/// less than one bit of noise budget is left; a phase whose noise has wrapped around is
/// near 1/2 in some of its `n` coefficients with overwhelming probability.
pub(crate) const MAX_ROUNDING_DISTANCE: f64 = 0.25;

/// [`FvError::NoiseBudgetExhausted`] when `distance` passes [`MAX_ROUNDING_DISTANCE`].
pub(crate) fn check_rounding(distance: f64) -> Result<(), FvError> {
    if distance > MAX_ROUNDING_DISTANCE {
        return Err(FvError::NoiseBudgetExhausted {
            distance_permille: (distance * 1000.0).round() as u32,
        });
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests;
