//! Public-key encryption: a compact public key derived from the client key, with which
//! anyone can encrypt digits that the server computes on and only the client decrypts.
//!
//! # The key
//!
//! [`PublicKey`] is an LWE *compact* public key (TFHE-rs' `LweCompactPublicKey`, the key of
//! its `CompactPublicKey`; the construction is Marc Joye's, "TFHE Public-Key Encryption
//! Revisited", CT-RSA 2024) under the big key `s` (the GLWE key read as an LWE key,
//! dimension `k·N = 2048`, binary): one RLWE sample `(a, b = a·s + e_pk)` in
//! `Z_{2^64}[X]/(X^N + 1)` with `a` uniform and `e_pk` TUniform with bound `2^17`, as
//! TFHE-rs' own `CompactPublicKey` of a parameter set that encrypts under the big key. The mask `a` is drawn from a public
//! 128-bit seed, so the key holds the seed and the `N` body words (16 KB); a reader
//! regenerates `a` once on load.
//!
//! These are the RLWE dimension, the key distribution and the noise of TFHE-rs 1.8.2's
//! public-key parameter set `PARAM_PKE_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128`
//! (`encryption_lwe_dimension 2048`, `encryption_noise_distribution TUniform(17)`, native
//! modulus), which TFHE-rs publishes at 128-bit security, and the same RLWE samples as the
//! bootstrapping key of [`crate::DEFAULT_PARAMETERS`] (the GLWE key, `k = 1`, `N = 2048`,
//! TUniform `2^17`): the public key reveals nothing the server key does not already rest on.
//!
//! # Encryption
//!
//! [`PublicKey::encrypt_digits`] encrypts a list of digits as one compact list (TFHE-rs'
//! `encrypt_lwe_compact_ciphertext_list_with_compact_public_key`): for every `N` digits one
//! binary polynomial `r` and TUniform(`2^17`) polynomials `e1`, `e2`, giving the mask
//! `a·r + e1` (one polynomial for `N` digits) and the bodies `b·r + e2 + m·Δ`. The
//! security of the ciphertexts is that of RLWE with secret `r`, the same dimension and
//! noise as the key. Every word is then rounded from `2^64` to `2^32`
//! ([`COMPACT_LOG_MODULUS`], a public operation on the ciphertext: security unchanged), so
//! a list of `c` digits takes `4·(⌈c/N⌉·N + c)` bytes: 12 KB for the 1024 digits of 64
//! `u16`.
//!
//! # Expansion
//!
//! [`CompactDigits::expand`] lifts the words back to `2^64` and expands the list
//! (TFHE-rs' `expand_lwe_compact_ciphertext_list`: digit `i`'s mask is the mask polynomial
//! read negacyclically from position `i`): ordinary digits under the big key, exactly what
//! seeded expansion gives, with no bootstrap and no keyswitch.
//!
//! # Noise
//!
//! In units of `2^-64` of the torus, with `σ_t² = (2^35 + 1)/6 ≈ 2^32.4` the variance of
//! TUniform(`2^17`) and `h ≈ N/2` the Hamming weight of `s`, the phase error of an expanded
//! digit is `(e_pk·r)_i + e2_i − (e1·s)_i` plus the rounding errors:
//!
//! * `Var(e_pk·r) = (N/2)·σ_t²` (`r` uniform binary), `Var(e1·s) = h·σ_t²`,
//!   `Var(e2) = σ_t²`: together `(1 + N/2 + h)·σ_t² ≈ 2049·σ_t² ≈ 2^43.4`
//!   (`σ ≈ 2^-42.3` of the torus, 2^5.5 times a secret-key encryption's `2^-47.8`);
//! * rounding to `2^32`: each word's error is uniform on `[-2^31, 2^31)`, variance
//!   `2^64/12`; the `N` mask errors are weighted by the key (`h` ones) and the body's adds
//!   once: `(h + 1)·2^64/12 ≈ 2^70.4` (`σ ≈ 2^-28.8` of the torus).
//!
//! Total `σ_pk ≈ 2^-28.8` ([`compact_phase_variance`] gives the model for a key of weight
//! `h`), below a bootstrap output's by a factor `2^13` (measured `σ ≈ 2^-15.7`, bounded by
//! `σ_out = σ_max / 5 ≈ 2^-12.0`). Every circuit counts an input digit at quadratic weight
//! 1, the noise of one bootstrap output.
//!
//! Unlike bootstrap outputs, the digits of one list have *correlated* errors (they share the
//! mask's rounding errors, `r` and `e1`), so the quadratic-weight rule, which adds
//! variances, does not apply to them as it stands. It holds anyway: whatever the
//! correlation, `σ(Σ w_i·e_i) <= Σ |w_i|·σ_pk <= (Σ w_i²)·σ_pk` for integer weights, and
//! `(Σ w_i²)²·σ_pk² <= (Σ w_i²)·σ_b²` (`σ_b ≈ 2^-15.7`, a bootstrap output's noise) as long
//! as `Σ w_i² <= σ_b²/σ_pk² ≈ 2^26`, far above the budget of 25. So a combination of
//! public-key digits within the budget is never noisier than the independent bootstrap
//! outputs the budget is computed for, and the failure probability of every bootstrap stays
//! at most `2^-129.6` (see [`crate::params`]).
//! `public_key_noise_matches_model` in `crates/tfhe/tests/public.rs` measures the variance
//! against this model.

use serde::{Deserialize, Serialize};
use tfhe::core_crypto::commons::math::random::Seed;
use tfhe::core_crypto::prelude::*;

use crate::digit::{encode, Digit};
use crate::envelope::{EnvelopeError, Validate};
use crate::io::{check_count, check_digit_list, validate_digit_list, IoError, Upload};
use crate::params::DigitParameters;
use crate::{ClientKey, KeySetId, TfheError};

/// Bits kept of every word of a [`CompactDigits`] list (rounded from the native `2^64`).
pub const COMPACT_LOG_MODULUS: u32 = 32;

/// The variance of TUniform with bound `2^bound_log2`, in squared units of `2^-64` of the
/// torus: `(2^(2b+1) + 1) / 6`.
pub fn t_uniform_variance(bound_log2: u32) -> f64 {
    (2f64.powi(2 * bound_log2 as i32 + 1) + 1.0) / 6.0
}

/// The model variance of an expanded [`CompactDigits`] digit's phase error, as a squared
/// fraction of the torus, for a big key of Hamming weight `key_weight` (see the
/// [module documentation](self)): `(1 + N/2 + h)·σ_t² + (h + 1)·2^(2·(64 − b))/12`.
pub fn compact_phase_variance(params: &DigitParameters, key_weight: usize) -> f64 {
    let n = params.big_lwe_dimension().0 as f64;
    let h = key_weight as f64;
    let sigma_t2 = t_uniform_variance(glwe_noise_bound_log2(params));
    let step = 2f64.powi(64 - COMPACT_LOG_MODULUS as i32);
    let units = (1.0 + n / 2.0 + h) * sigma_t2 + (h + 1.0) * step * step / 12.0;
    units / 2f64.powi(128)
}

/// The bound (log2) of the parameters' TUniform GLWE noise (17 for the known sets).
fn glwe_noise_bound_log2(params: &DigitParameters) -> u32 {
    match params.glwe_noise_distribution {
        DynamicDistribution::TUniform(t) => t.bound_log2(),
        // The known sets all use TUniform; a Gaussian set would need its own model.
        DynamicDistribution::Gaussian(_) => 17,
    }
}

checked_wire! {
    /// The compact public key of a client key ([`ClientKey::public_key`]): public, 16 KB.
    ///
    /// Serialized (bincode) as `params_id: String, key_set: [u8; 16], seed: u128,
    /// body: Vec<u64>`; deserialization accepts only a known parameter set and exactly
    /// `k·N` body words, then regenerates the mask from the seed.
    #[derive(Clone, Serialize, Deserialize)]
    #[serde(try_from = "PublicKeyWire")]
    pub struct PublicKey via PublicKeyWire {
        params_id: String,
        key_set: KeySetId,
        seed: u128,
        body: Vec<u64>,
        #[serde(skip)]
        expanded: Option<(DigitParameters, LweCompactPublicKeyOwned<u64>)>,
    }
    debug params_id
}

impl PartialEq for PublicKey {
    fn eq(&self, other: &Self) -> bool {
        (&self.params_id, self.key_set, self.seed, &self.body)
            == (&other.params_id, other.key_set, other.seed, &other.body)
    }
}

impl Eq for PublicKey {}

fn check_body(params: &DigitParameters, body: &[u64]) -> Result<(), String> {
    let n = params.big_lwe_dimension().0;
    if body.len() == n {
        Ok(())
    } else {
        Err(format!(
            "public key of {} body words, expected {n}",
            body.len()
        ))
    }
}

/// The mask regenerated from `seed` beside `body`: the usable key.
fn expand_key(params: &DigitParameters, seed: u128, body: &[u64]) -> LweCompactPublicKeyOwned<u64> {
    let mut data = vec![0u64; 2 * body.len()];
    data[body.len()..].copy_from_slice(body);
    let seeded = SeededLweCompactPublicKey::from_container(
        data[body.len()..].to_vec(),
        Seed(seed).into(),
        params.ciphertext_modulus,
    );
    let mut key = LweCompactPublicKey::from_container(data, params.ciphertext_modulus);
    decompress_seeded_lwe_compact_public_key::<_, _, _, DefaultRandomGenerator>(&mut key, &seeded);
    key
}

impl TryFrom<PublicKeyWire> for PublicKey {
    type Error = String;

    fn try_from(w: PublicKeyWire) -> Result<Self, String> {
        let params = DigitParameters::from_id(&w.params_id)
            .ok_or_else(|| format!("unknown parameter set {}", w.params_id))?;
        check_body(&params, &w.body)?;
        let key = expand_key(&params, w.seed, &w.body);
        Ok(PublicKey {
            params_id: w.params_id,
            key_set: w.key_set,
            seed: w.seed,
            body: w.body,
            expanded: Some((params, key)),
        })
    }
}

impl Validate for PublicKey {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        if self.params_id != params.name {
            return Err(format!(
                "public key for {}, expected {}",
                self.params_id, params.name
            ));
        }
        check_body(params, &self.body)
    }
}

impl ClientKey {
    /// The compact public key of this client key (see the [module docs](crate::public)): its
    /// mask seed and the noise come from the operating system's entropy.
    pub fn public_key(&self) -> PublicKey {
        let params = *self.params();
        let mut seeder = new_seeder();
        let seeder = seeder.as_mut();
        let seed = seeder.seed().0;
        let mut seeded = SeededLweCompactPublicKey::new(
            0u64,
            params.big_lwe_dimension(),
            Seed(seed).into(),
            params.ciphertext_modulus,
        );
        // The mask from `seed`, the noise from a separate generator seeded by the seeder.
        generate_seeded_lwe_compact_public_key(
            &self.glwe_secret_key().as_lwe_secret_key(),
            &mut seeded,
            params.glwe_noise_distribution,
            seeder,
        );
        let body = seeded.into_container();
        let key = expand_key(&params, seed, &body);
        PublicKey {
            params_id: params.name.to_owned(),
            key_set: self.key_set(),
            seed,
            body,
            expanded: Some((params, key)),
        }
    }
}

impl PublicKey {
    /// The key set of the client key this public key was derived from.
    pub fn key_set(&self) -> KeySetId {
        self.key_set
    }

    /// The parameter set.
    pub fn params(&self) -> Result<DigitParameters, TfheError> {
        self.expanded.as_ref().map(|(p, _)| *p).ok_or_else(|| {
            IoError::ParameterMismatch(format!("unknown parameter set {}", self.params_id)).into()
        })
    }

    /// Encoded size in bytes (bincode) of a public key of parameter set `params`.
    pub fn encoded_len(params: &DigitParameters) -> usize {
        8 + params.name.len() + 16 + 16 + 8 + 8 * params.big_lwe_dimension().0
    }

    /// Encrypt digits (each `values[i]` taken mod 32) as one compact list under this public
    /// key (see the [module docs](crate::public)): no secret is needed, the randomness comes
    /// from the operating system's entropy.
    ///
    /// Errors: [`IoError::TooMany`] beyond [`crate::io::MAX_NIBBLES`] values (inside
    /// [`TfheError::Io`]).
    pub fn encrypt_digits(&self, values: &[i64]) -> Result<CompactDigits, TfheError> {
        check_count(values.len())?;
        let p = self.params()?;
        let Some((_, key)) = &self.expanded else {
            unreachable!("params() checked the expanded key")
        };
        let lwe_dimension = p.big_lwe_dimension();
        let mut out = CompactDigits {
            key_set: self.key_set,
            lwe_dimension: lwe_dimension.0 as u64,
            masks: Vec::new(),
            bodies: Vec::new(),
        };
        if values.is_empty() {
            return Ok(out);
        }
        let mut list = LweCompactCiphertextList::new(
            0u64,
            lwe_dimension.to_lwe_size(),
            LweCiphertextCount(values.len()),
            p.ciphertext_modulus,
        );
        let plaintexts =
            PlaintextList::from_container(values.iter().map(|&v| encode(v)).collect::<Vec<_>>());
        let mut seeder = new_seeder();
        let seeder = seeder.as_mut();
        let mut rng =
            EncryptionRandomGenerator::<DefaultRandomGenerator>::new(seeder.seed(), seeder);
        par_encrypt_lwe_compact_ciphertext_list_with_compact_public_key(
            key,
            &mut list,
            &plaintexts,
            p.glwe_noise_distribution,
            p.glwe_noise_distribution,
            rng.noise_generator_mut(),
        );
        let words = list.into_container();
        let (masks, bodies) = words.split_at(words.len() - values.len());
        out.masks = masks.iter().map(|&w| round_word(w)).collect();
        out.bodies = bodies.iter().map(|&w| round_word(w)).collect();
        Ok(out)
    }
}

/// `w` rounded from `2^64` to `2^32`.
fn round_word(w: u64) -> u32 {
    (w.wrapping_add(1 << (63 - COMPACT_LOG_MODULUS)) >> (64 - COMPACT_LOG_MODULUS)) as u32
}

checked_wire! {
    /// Digits encrypted under a [`PublicKey`]: one compact LWE list, its words rounded to
    /// [`COMPACT_LOG_MODULUS`] bits (see the [module docs](crate::public)).
    ///
    /// Serialized (bincode) as `key_set: [u8; 16], lwe_dimension: u64, masks: Vec<u32>,
    /// bodies: Vec<u32>` ([`CompactDigits::encoded_len`] bytes): `⌈c/N⌉·N` mask words and one
    /// body word per digit. Deserialization accepts only the big LWE dimension of a known
    /// parameter set, at most [`crate::io::MAX_NIBBLES`] bodies and exactly the mask words
    /// they need.
    #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(try_from = "CompactDigitsWire")]
    pub struct CompactDigits via CompactDigitsWire {
        key_set: KeySetId,
        lwe_dimension: u64,
        masks: Vec<u32>,
        bodies: Vec<u32>,
    }
    checked by check_compact_digits
}

/// The known parameter set of big LWE dimension `n`, and the mask word count of `count`
/// digits.
fn compact_shape(n: u64, count: usize) -> Result<(DigitParameters, usize), IoError> {
    let params = check_digit_list(n, count)?;
    let n = params.big_lwe_dimension().0;
    Ok((params, count.div_ceil(n) * n))
}

/// The checks of a decoded [`CompactDigits`]: a known big LWE dimension, the count
/// bound and the mask words of that many digits.
fn check_compact_digits(w: &CompactDigitsWire) -> Result<(), String> {
    let (_, masks) = compact_shape(w.lwe_dimension, w.bodies.len()).map_err(|e| e.to_string())?;
    if w.masks.len() != masks {
        return Err(format!(
            "{} mask words for {} digits, expected {masks}",
            w.masks.len(),
            w.bodies.len()
        ));
    }
    Ok(())
}

impl Validate for CompactDigits {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        let n = self.bodies.len();
        validate_digit_list("compact digits", self.lwe_dimension, n, params)
    }
}

impl Upload for CompactDigits {
    fn len(&self) -> usize {
        self.bodies.len()
    }

    fn key_set(&self) -> KeySetId {
        self.key_set
    }

    /// The ordinary digits under the big key (on the current rayon pool): the words lifted
    /// back to `2^64` and the list expanded. No bootstrap and no keyswitch.
    ///
    /// Errors with [`IoError::ParameterMismatch`] only for a value that did not come from
    /// [`PublicKey::encrypt_digits`] or a validated decoding.
    fn expand(&self) -> Result<Vec<Digit>, TfheError> {
        let (p, mask_words) = compact_shape(self.lwe_dimension, self.bodies.len())?;
        if self.masks.len() != mask_words {
            return Err(IoError::ParameterMismatch("inconsistent compact list".into()).into());
        }
        if self.bodies.is_empty() {
            return Ok(Vec::new());
        }
        let shift = 64 - COMPACT_LOG_MODULUS;
        let data: Vec<u64> = self
            .masks
            .iter()
            .chain(&self.bodies)
            .map(|&w| u64::from(w) << shift)
            .collect();
        let list = LweCompactCiphertextList::from_container(
            data,
            p.big_lwe_dimension().to_lwe_size(),
            LweCiphertextCount(self.bodies.len()),
            p.ciphertext_modulus,
        );
        Ok(crate::io::digits_of(
            &list.par_expand_into_lwe_ciphertext_list(),
        ))
    }
}

impl CompactDigits {
    /// Encoded size in bytes of `count` compact digits for the default parameters: key set
    /// (16), dimension (8), two length prefixes (16), `⌈count/N⌉·N` mask words and `count`
    /// body words of 4 bytes.
    pub fn encoded_len(count: usize) -> usize {
        let n = crate::DEFAULT_PARAMETERS.big_lwe_dimension().0;
        16 + 8 + 16 + 4 * (count.div_ceil(n) * n + count)
    }

    /// Serialize (bincode, fixed-width little-endian integers).
    pub fn to_bytes(&self) -> Vec<u8> {
        crate::io::to_bytes(self)
    }

    /// Deserialize and validate [`CompactDigits::to_bytes`] output. Never panics; bad bytes
    /// give [`EnvelopeError::Malformed`].
    pub fn from_bytes(bytes: &[u8]) -> Result<CompactDigits, EnvelopeError> {
        crate::io::from_bytes(bytes)
    }
}

#[cfg(test)]
mod tests {
    use crate::envelope::{after_valid_header, open, Kind};
    use crate::{ClientKey, Digit, PublicKey, ServerKey, DEFAULT_PARAMETERS};

    /// Reading digits and keys from an envelope (the public key here, the digits and the
    /// client and server keys below it) never panics on random bytes after a valid header.
    #[test]
    fn random_bytes_after_valid_header_never_panic() {
        let id = DEFAULT_PARAMETERS.id();
        after_valid_header(|bytes| {
            let _ = open::<Vec<Digit>>(bytes, Kind::Ciphertext, id);
            let _ = open::<ClientKey>(bytes, Kind::ClientKey, id);
            let _ = open::<ServerKey>(bytes, Kind::ServerKey, id);
            let _ = open::<PublicKey>(bytes, Kind::PublicKey, id);
        });
    }
}
