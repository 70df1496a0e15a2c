//! Keys: the (ternary) secret key, shared by all variants; public and relinearisation keys
//! per variant (BEHZ and HPS keys are interchangeable: same `q`, same gadget).

use super::sampling;
use super::{FvContext, Variant};
use crate::poly::hpr::HprPoly;
use crate::poly::{ntt_forward, RnsPoly};
use crate::FvError;
use rand::{CryptoRng, RngCore};
use zeroize::Zeroize;

/// The secret key `s`, ternary. Its NTT forms for the RNS and HPR moduli are cached.
/// All of it is zeroized on drop; it has no serialisation.
pub struct SecretKey {
    pub(crate) coeffs: Vec<i64>,
    pub(crate) ctx_id: u64,
    /// `s` in NTT form modulo `q_1..q_K`.
    pub(crate) s_q: Vec<u64>,
    /// `s` in NTT form modulo the `2k + 1` HPR moduli.
    pub(crate) s_hpr: Vec<u64>,
}

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SecretKey {{ n: {}, .. }}", self.coeffs.len())
    }
}

impl Drop for SecretKey {
    fn drop(&mut self) {
        self.coeffs.zeroize();
        self.s_q.zeroize();
        self.s_hpr.zeroize();
    }
}

impl SecretKey {
    /// A fresh uniform ternary secret key.
    pub fn generate<R: RngCore + CryptoRng>(ctx: &FvContext, rng: &mut R) -> Self {
        let s = sampling::ternary(ctx.parameters().n, rng);
        Self::build(ctx, s)
    }

    /// The ternary coefficients (for the client's own key storage, e.g. a sealed
    /// envelope: never give them to a server).
    pub fn coefficients(&self) -> &[i64] {
        &self.coeffs
    }

    /// A secret key from given coefficients, each in `{-1, 0, 1}`.
    pub fn from_coefficients(ctx: &FvContext, coeffs: &[i64]) -> Result<Self, FvError> {
        let n = ctx.parameters().n;
        FvError::check_len(n, coeffs.len())?;
        if coeffs.iter().any(|c| c.abs() > 1) {
            return Err(FvError::InvalidParameters(
                "secret key must be ternary".into(),
            ));
        }
        Ok(Self::build(ctx, coeffs.to_vec()))
    }

    fn build(ctx: &FvContext, coeffs: Vec<i64>) -> Self {
        let n = ctx.parameters().n;
        let mut q = RnsPoly::from_signed(&coeffs, ctx.rns.q.moduli());
        q.to_ntt(&ctx.rns.ntt_q);
        let a = &ctx.hpr.arith;
        let mut h = a.digit_from_signed(&coeffs);
        ntt_forward(&mut h, a.ntt_ops(), n);
        Self {
            ctx_id: ctx.id(),
            coeffs,
            s_q: std::mem::take(&mut q.data),
            s_hpr: h,
        }
    }

    /// Fingerprint of the parameter set.
    pub fn context_id(&self) -> u64 {
        self.ctx_id
    }
}

#[derive(Debug, Clone)]
pub(crate) enum PkData {
    Rns { p0: Vec<u64>, p1: Vec<u64> },
    Hpr { p0: HprPoly, p1: HprPoly },
}

/// The variant a key of variant `from` can serve as `to`: BEHZ and HPS keys are
/// the same RNS objects and interchange; HPR keys serve HPR only.
fn reinterpret(from: Variant, to: Variant) -> Result<Variant, FvError> {
    if (from == Variant::Hpr || to == Variant::Hpr) && from != to {
        return Err(FvError::VariantMismatch("HPR keys are not RNS keys".into()));
    }
    Ok(to)
}

/// Declares a key of one variant family: its variant, the fingerprint of its context and
/// its `data`, with `variant()` and `with_variant` (a BEHZ key serves as HPS and back).
macro_rules! variant_key {
    (
        $(#[doc = $doc:literal])* $name:ident($data:ty);
        variant: $variant_doc:literal;
        with_variant: $with_doc:literal;
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone)]
        pub struct $name {
            pub(crate) variant: Variant,
            pub(crate) ctx_id: u64,
            pub(crate) data: $data,
        }

        impl $name {
            #[doc = $variant_doc]
            pub fn variant(&self) -> Variant {
                self.variant
            }

            #[doc = $with_doc]
            pub fn with_variant(mut self, v: Variant) -> Result<Self, FvError> {
                self.variant = reinterpret(self.variant, v)?;
                Ok(self)
            }
        }
    };
}

variant_key! {
    /// A public key `(-(a s + e), a)` in NTT form, for one variant family (BEHZ and HPS share).
    PublicKey(PkData);
    variant: "The variant of the ciphertexts this key produces.";
    with_variant: "Reinterprets a BEHZ key as HPS or back (same `q`).";
}

/// The decomposition used by HPR relinearisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HprDecomposition {
    /// Single-digit decomposition of eq. (15): `d k` key components, truncated (Remark 2).
    Fine,
    /// The coarse decomposition of Remark 3: `d` key components, larger noise, fewer NTTs.
    Coarse,
}

#[derive(Debug, Clone)]
pub(crate) enum RlkData {
    /// `K` pairs in NTT form.
    Rns {
        k0: Vec<Vec<u64>>,
        k1: Vec<Vec<u64>>,
    },
    /// `[i][j]` pairs of truncated HPR polynomials in NTT form.
    Hpr {
        keys: Vec<Vec<(HprPoly, HprPoly)>>,
        decomposition: HprDecomposition,
    },
}

/// The raw parts `(k0, k1)` of an RNS relinearisation key ([`RelinKey::to_raw_rns`]).
pub type RawRnsKey<'a> = (&'a [Vec<u64>], &'a [Vec<u64>]);

variant_key! {
    /// A relinearisation key (pseudo-encryptions of the gadget times `s^2`).
    RelinKey(RlkData);
    variant: "The variant this key serves.";
    with_variant: "Reinterprets a BEHZ key as HPS or back (same `q`, same RNS gadget).";
}

impl RelinKey {
    /// The raw RNS key `(k0, k1)`: `K` pairs of flat residue vectors in NTT form (BEHZ
    /// and HPS keys); `None` for an HPR key.
    pub fn to_raw_rns(&self) -> Option<RawRnsKey<'_>> {
        match &self.data {
            RlkData::Rns { k0, k1 } => Some((k0, k1)),
            RlkData::Hpr { .. } => None,
        }
    }

    /// Rebuilds a BEHZ or HPS key from [`Self::to_raw_rns`]'s parts, checking the number
    /// of components, every length and that every residue is reduced.
    pub fn from_raw_rns(
        ctx: &FvContext,
        variant: Variant,
        k0: Vec<Vec<u64>>,
        k1: Vec<Vec<u64>>,
    ) -> Result<Self, FvError> {
        if variant == Variant::Hpr {
            return Err(FvError::VariantMismatch(
                "an RNS key cannot serve HPR".into(),
            ));
        }
        let moduli = ctx.rns.q.moduli();
        let (k, n) = (moduli.len(), ctx.parameters().n);
        if k0.len() != k || k1.len() != k {
            return Err(FvError::InvalidParameters(format!(
                "relinearisation key with {} and {} components, expected {k}",
                k0.len(),
                k1.len()
            )));
        }
        for v in k0.iter().chain(&k1) {
            FvError::check_len(k * n, v.len())?;
            for (i, m) in moduli.iter().enumerate() {
                if v[i * n..(i + 1) * n].iter().any(|&x| x >= m.value()) {
                    return Err(FvError::InvalidParameters(
                        "unreduced relinearisation key residue".into(),
                    ));
                }
            }
        }
        Ok(Self {
            variant,
            ctx_id: ctx.id(),
            data: RlkData::Rns { k0, k1 },
        })
    }

    /// Number of polynomials stored (each of `n` words per residue), a measure of size.
    pub fn size_words(&self) -> usize {
        match &self.data {
            RlkData::Rns { k0, k1 } => k0.iter().chain(k1).map(|v| v.len()).sum(),
            RlkData::Hpr { keys, .. } => keys
                .iter()
                .flatten()
                .map(|(a, b)| {
                    a.digits
                        .iter()
                        .chain(&b.digits)
                        .map(|d| d.len())
                        .sum::<usize>()
                })
                .sum(),
        }
    }
}
