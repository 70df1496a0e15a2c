//! Batching: for a prime `t = 1 mod 2n`, `R_t` is isomorphic to `Z_t^n` through the
//! negacyclic NTT modulo `t`; encoding puts `n` integers in the slots, so that addition
//! and multiplication of plaintexts (and ciphertexts) act slot-wise.

use super::{FvContext, Plaintext};
use crate::ntt::NttOperator;
use crate::FvError;

/// Packs `n` integers modulo `t` into a plaintext.
///
/// ```no_run
/// use encint_fv::bfv::{BatchEncoder, FvContext, FvParameters};
/// let ctx = FvContext::new(FvParameters::set_a()).unwrap();
/// let enc = BatchEncoder::new(&ctx).unwrap();
/// let v: Vec<u64> = (0..8192).collect();
/// let pt = enc.encode(&ctx, &v).unwrap();
/// assert_eq!(enc.decode(&pt).unwrap(), v);
/// ```
#[derive(Debug, Clone)]
pub struct BatchEncoder {
    op: NttOperator,
}

impl BatchEncoder {
    /// An encoder; errors unless `t` is a prime with `t = 1 mod 2n`.
    pub fn new(ctx: &FvContext) -> Result<Self, FvError> {
        let p = ctx.parameters();
        let op = NttOperator::new(p.n, p.t)
            .map_err(|_| FvError::BatchingUnsupported { t: p.t, n: p.n })?;
        Ok(Self { op })
    }

    /// Encodes `n` values (each `< t`).
    pub fn encode(&self, ctx: &FvContext, values: &[u64]) -> Result<Plaintext, FvError> {
        let t = self.op.modulus().value();
        let n = self.op.degree();
        FvError::check_len(n, values.len())?;
        if let Some(&v) = values.iter().find(|&&v| v >= t) {
            return Err(FvError::PlaintextOutOfRange {
                value: v,
                modulus: t,
            });
        }
        let mut c = values.to_vec();
        self.op.backward(&mut c);
        Plaintext::new(ctx, c)
    }

    /// Decodes the slots of a plaintext (errors if its degree is not this encoder's).
    pub fn decode(&self, pt: &Plaintext) -> Result<Vec<u64>, FvError> {
        let n = self.op.degree();
        FvError::check_len(n, pt.coeffs.len())?;
        let mut v = pt.coeffs.clone();
        self.op.forward(&mut v);
        Ok(v)
    }
}
