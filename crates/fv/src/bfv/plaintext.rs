//! Plaintexts: polynomials of `R_t`.

use super::FvContext;
use crate::FvError;

/// A plaintext polynomial with `n` coefficients in `[0, t)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plaintext {
    pub(crate) coeffs: Vec<u64>,
}

impl Plaintext {
    /// A plaintext from coefficients, checked against the context (length `n`, values `< t`).
    pub fn new(ctx: &FvContext, coeffs: Vec<u64>) -> Result<Self, FvError> {
        let n = ctx.parameters().n;
        let t = ctx.parameters().t;
        FvError::check_len(n, coeffs.len())?;
        if let Some(&v) = coeffs.iter().find(|&&v| v >= t) {
            return Err(FvError::PlaintextOutOfRange {
                value: v,
                modulus: t,
            });
        }
        Ok(Self { coeffs })
    }

    /// The coefficients.
    pub fn coefficients(&self) -> &[u64] {
        &self.coeffs
    }
}
