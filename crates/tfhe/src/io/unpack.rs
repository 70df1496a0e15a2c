//! Decryption of packed digits on the client.

use tfhe::core_crypto::prelude::*;

use super::bits::read_bits;
use super::{check_count, same_key_set, IoError, PackedNibbles};
use crate::digit::decode;
use crate::envelope::Validate;
use crate::params::DIGIT_MODULUS;
use crate::{ClientKey, TfheError};

impl ClientKey {
    /// Decrypt packed digits: their values mod 32, in `0..32` (a nibble decrypts to itself).
    ///
    /// Errors with [`IoError::KeySetMismatch`] for digits packed with another key set's
    /// packing key, [`IoError::ParameterMismatch`] when the packed GLWE shape is not that of
    /// the key's parameters.
    pub fn decrypt_packed(&self, packed: &PackedNibbles) -> Result<Vec<u8>, TfheError> {
        let p = *self.params();
        same_key_set(self.key_set(), packed.key_set)?;
        packed.validate(&p).map_err(IoError::ParameterMismatch)?;
        check_count(packed.len())?;
        let (k, n) = (p.glwe_dimension.0, p.polynomial_size.0);
        let b = packed.log_modulus;
        let total = PackedNibbles::coefficient_count(packed.len(), k, n);
        if !(1..64).contains(&b) || packed.words.len() * 64 < total * b as usize {
            return Err(IoError::ParameterMismatch("inconsistent packed data".into()).into());
        }
        let shift = 64 - b;
        let mut out = Vec::with_capacity(packed.len());
        let mut next = 0usize;
        let mut glwe = GlweCiphertext::new(
            0u64,
            p.glwe_dimension.to_glwe_size(),
            p.polynomial_size,
            p.ciphertext_modulus,
        );
        let mut plain = PlaintextList::new(0u64, PlaintextCount(n));
        let mut remaining = packed.len();
        while remaining > 0 {
            let here = remaining.min(n);
            let coefs = glwe.as_mut();
            coefs.fill(0);
            for c in coefs[..k * n].iter_mut() {
                *c = read_bits(&packed.words, next, b) << shift;
                next += 1;
            }
            for c in coefs[k * n..k * n + here].iter_mut() {
                *c = read_bits(&packed.words, next, b) << shift;
                next += 1;
            }
            decrypt_glwe_ciphertext(self.glwe_secret_key(), &glwe, &mut plain);
            out.extend(
                plain.as_ref()[..here]
                    .iter()
                    .map(|&ph| decode(ph).rem_euclid(DIGIT_MODULUS as i64) as u8),
            );
            remaining -= here;
        }
        Ok(out)
    }
}
