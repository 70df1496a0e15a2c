//! Encrypted random bits that the server draws without learning them.
//!
//! A blind rotation needs no ciphertext to start from: a modulus-switched input whose mask
//! is drawn uniformly (here from a seeded CSPRNG) and whose body is 0 has the phase
//! `−⟨a, s⟩ mod 2N`, uniform under the secret key `s` and unknown to whoever holds only
//! the server key. Rotating a constant test polynomial `Δ/2` by that phase gives `+Δ/2`
//! for half of the phases and `−Δ/2` (its negacyclic wrap) for the other half; adding
//! `Δ/2` gives the digit 1 or 0, each with probability exactly 1/2, with the noise of any
//! bootstrap output. The same seed gives the same bits (under the same key set).

use rayon::prelude::*;
use tfhe::core_crypto::commons::math::random::{RandomGenerator, Seed};
use tfhe::core_crypto::prelude::*;

use crate::bootstrap::Switched;
use crate::digit::Digit;
use crate::keys::ServerKey;
use crate::params::DELTA;
use crate::scratch::with_scratch;

impl ServerKey {
    /// `count` encrypted bits (digits 0 or 1), independent and uniform, drawn from `seed`
    /// without the secret key: the same seed gives the same bits, so draw each time with a
    /// new one. One blind rotation per bit (no keyswitch), on the current rayon pool.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint_tfhe::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, server) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let bits = server.oblivious_random_bits(7, 32);
    /// let ones: i64 = bits.iter().map(|b| client.decrypt_digit(b)).sum();
    /// assert!(bits.iter().all(|b| (0..=1).contains(&client.decrypt_digit(b))));
    /// assert!(ones > 0 && ones < 32); // all equal: probability 2^-31
    /// ```
    pub fn oblivious_random_bits(&self, seed: u128, count: usize) -> Vec<Digit> {
        let inner = &*self.inner;
        let p = &inner.params;
        let log_modulus = p.polynomial_size.to_blind_rotation_input_modulus_log();
        let below = (1usize << log_modulus.0) - 1;
        let mut rng = RandomGenerator::<DefaultRandomGenerator>::new(Seed(seed));
        let inputs: Vec<Switched> = (0..count)
            .map(|_| Switched {
                mask: (0..p.lwe_dimension.0)
                    .map(|_| rng.random_uniform::<u64>() as usize & below)
                    .collect(),
                body: 0,
                log_modulus,
            })
            .collect();
        inputs
            .par_iter()
            .map(|sw| {
                with_scratch(p, |s| {
                    // The constant test polynomial Δ/2: ±Δ/2 by the phase's half.
                    inner.rotate_onto(sw, s, |body| body.fill(DELTA / 2));
                    let mut out = LweCiphertext::new(
                        0u64,
                        p.big_lwe_dimension().to_lwe_size(),
                        p.ciphertext_modulus,
                    );
                    extract_lwe_sample_from_glwe_ciphertext(&s.acc, &mut out, MonomialDegree(0));
                    let b = out.get_mut_body().data;
                    *b = b.wrapping_add(DELTA / 2);
                    Digit::from_ct(out)
                })
            })
            .collect()
    }
}
