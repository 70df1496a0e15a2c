//! Ciphertexts: two (or, after a multiplication without relinearisation, three)
//! polynomials, in RNS form (BEHZ, HPS) or HPR form, with their variant and parameters.

use super::{FvContext, Variant};
use crate::poly::hpr::HprPoly;
use crate::poly::RnsPoly;
use crate::FvError;

/// The polynomials of a ciphertext.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Parts {
    Rns(Vec<RnsPoly>),
    Hpr(Vec<HprPoly>),
}

/// An FV ciphertext. It records the variant that produced it, a fingerprint of its
/// parameter set and its multiplicative depth; operations refuse mismatches, and
/// products past the set's depth, with typed errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ciphertext {
    pub(crate) variant: Variant,
    pub(crate) ctx_id: u64,
    pub(crate) parts: Parts,
    /// Products (by ciphertexts or plaintexts) on the longest path from a fresh
    /// encryption; 0 for a fresh ciphertext or one rebuilt by [`Ciphertext::from_raw`].
    pub(crate) depth: u32,
}

impl Ciphertext {
    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Multiplicative depth: products on the longest path from a fresh encryption (0 for
    /// one rebuilt from raw residues, whose history is unknown; decryption still checks
    /// the noise).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Fingerprint of the parameter set ([`FvContext::id`]).
    pub fn context_id(&self) -> u64 {
        self.ctx_id
    }

    /// Number of polynomials (2, or 3 before relinearisation).
    pub fn len(&self) -> usize {
        match &self.parts {
            Parts::Rns(v) => v.len(),
            Parts::Hpr(v) => v.len(),
        }
    }

    /// Always false for a valid ciphertext.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reinterprets a BEHZ ciphertext as HPS or back: both use the same `q` and the same
    /// encryption, so their ciphertexts interoperate. HPR uses `q = p^d` and does not.
    pub fn with_variant(mut self, v: Variant) -> Result<Self, FvError> {
        match (self.variant, v) {
            (a, b) if a == b => Ok(self),
            (Variant::Behz, Variant::Hps) | (Variant::Hps, Variant::Behz) => {
                self.variant = v;
                Ok(self)
            }
            (a, b) => Err(FvError::VariantMismatch(format!(
                "cannot reinterpret a {a:?} ciphertext as {b:?}"
            ))),
        }
    }

    /// The raw residues: for each polynomial, for each HPR digit (one for RNS), the flat
    /// residues in coefficient representation.
    pub fn to_raw(&self) -> Vec<Vec<Vec<u64>>> {
        match &self.parts {
            Parts::Rns(v) => v.iter().map(|p| vec![p.data.clone()]).collect(),
            Parts::Hpr(v) => v.iter().map(|p| p.digits.clone()).collect(),
        }
    }

    /// Rebuilds a ciphertext from raw residues (as given by [`Self::to_raw`]), checking
    /// every size and that every residue is reduced.
    pub fn from_raw(
        ctx: &FvContext,
        variant: Variant,
        raw: Vec<Vec<Vec<u64>>>,
    ) -> Result<Self, FvError> {
        let n = ctx.parameters().n;
        if !(2..=3).contains(&raw.len()) {
            return Err(FvError::MalformedCiphertext(format!(
                "{} polynomials (expected 2 or 3)",
                raw.len()
            )));
        }
        let parts = match variant {
            Variant::Behz | Variant::Hps => {
                let moduli = ctx.rns.q.moduli();
                let mut v = Vec::new();
                for mut p in raw {
                    if p.len() != 1 {
                        return Err(FvError::MalformedCiphertext(
                            "RNS polynomial with digits".into(),
                        ));
                    }
                    let data = p.pop().unwrap_or_default();
                    check_residues(&data, moduli.iter().map(|m| m.value()), n)?;
                    v.push(RnsPoly::from_residues(data, n, moduli.len())?);
                }
                Parts::Rns(v)
            }
            Variant::Hpr => {
                let a = &ctx.hpr.arith;
                let mut v = Vec::new();
                for p in raw {
                    if p.len() != a.d {
                        return Err(FvError::MalformedCiphertext(format!(
                            "{} digits (expected {})",
                            p.len(),
                            a.d
                        )));
                    }
                    for dg in &p {
                        check_residues(dg, a.moduli().iter().map(|m| m.value()), n)?;
                    }
                    v.push(HprPoly {
                        digits: p,
                        ntt: false,
                    });
                }
                Parts::Hpr(v)
            }
        };
        Ok(Self {
            variant,
            ctx_id: ctx.id(),
            parts,
            depth: 0,
        })
    }
}

fn check_residues(
    data: &[u64],
    moduli: impl ExactSizeIterator<Item = u64>,
    n: usize,
) -> Result<(), FvError> {
    let k = moduli.len();
    if data.len() != k * n {
        return Err(FvError::MalformedCiphertext(format!(
            "{} residues (expected {})",
            data.len(),
            k * n
        )));
    }
    for (i, q) in moduli.enumerate() {
        if data[i * n..(i + 1) * n].iter().any(|&x| x >= q) {
            return Err(FvError::MalformedCiphertext(format!(
                "unreduced residue modulo {q}"
            )));
        }
    }
    Ok(())
}
