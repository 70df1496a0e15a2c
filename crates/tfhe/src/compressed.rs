//! Compressed server keys: the bootstrapping and keyswitching keys with every mask drawn
//! from a seed, so that only the seeds and the bodies are stored or sent.
//!
//! A [`ServerKey`] file holds the standard-domain bootstrapping key (`n · (k+1)² · N`
//! words, 60 MB for the default set) and the keyswitching key (`k·N · ℓ · (n+1)` words,
//! 30 MB on the 32-bit torus). Both are lists of LWE/GLWE encryptions whose masks are
//! uniform: [`CompressedServerKey::generate`] draws them from two CSPRNG seeds (TFHE-rs'
//! `par_generate_seeded_lwe_bootstrap_key` and `generate_seeded_lwe_keyswitch_key`), so
//! the bootstrapping key keeps `n · (k+1) · N` words (one body polynomial per GLWE row:
//! 30.1 MB) and the keyswitching key `k·N · ℓ` words (one body per level: 64 KB as stored
//! here, 64-bit words for both tori). The noise is that of [`crate::ClientKey::generate`]'s
//! keys (same distributions); the seeds and the noise come from the operating system's
//! entropy.
//!
//! [`CompressedServerKey::decompress`] regenerates the masks (on the current rayon pool)
//! and converts the bootstrapping key to the Fourier domain, as loading an ordinary key
//! does: the server pays the CSPRNG pass over 90 MB of masks once per load.

use serde::{Deserialize, Serialize};
use tfhe::core_crypto::commons::math::random::Seed;
use tfhe::core_crypto::prelude::*;

use crate::envelope::{self, EnvelopeError, Kind, Validate};
use crate::keys::{check_server_parts, with_u32_key, Ksk};
use crate::params::{DigitParameters, Keyswitch};
use crate::{ClientKey, KeySetId, ServerKey};

/// The tag that starts a compressed server key's payload. (An ordinary server key's
/// payload starts with the length of its parameter id, which is never these 8 bytes.)
pub const COMPRESSED_SERVER_KEY_TAG: [u8; 8] = *b"ENCCSK01";

checked_wire! {
    /// A server key with seeded masks (see the [module docs](self)); public, like the
    /// [`ServerKey`] it decompresses to.
    #[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(try_from = "CompressedWire")]
    pub struct CompressedServerKey via CompressedWire {
        tag: [u8; 8],
        params_id: String,
        key_set: KeySetId,
        bsk_seed: u128,
        bsk_bodies: Vec<u64>,
        ksk_seed: u128,
        ksk_bodies: Vec<u64>,
    }
    checked by check
    debug params_id
}

/// Stored words of the seeded bootstrapping key: one body polynomial per GLWE row.
fn bsk_len(p: &DigitParameters) -> usize {
    p.lwe_dimension.0 * p.pbs_level.0 * p.glwe_dimension.to_glwe_size().0 * p.polynomial_size.0
}

/// Stored words of the seeded keyswitching key: one body per level and input coefficient.
fn ksk_len(p: &DigitParameters) -> usize {
    p.big_lwe_dimension().0 * p.ks_level.0
}

fn check(w: &CompressedWire) -> Result<DigitParameters, String> {
    if w.tag != COMPRESSED_SERVER_KEY_TAG {
        return Err("not a compressed server key".into());
    }
    let p = DigitParameters::from_id(&w.params_id)
        .ok_or_else(|| format!("unknown parameter set {}", w.params_id))?;
    if w.bsk_bodies.len() != bsk_len(&p) {
        return Err(format!(
            "seeded bootstrapping key of {} words, expected {}",
            w.bsk_bodies.len(),
            bsk_len(&p)
        ));
    }
    if w.ksk_bodies.len() != ksk_len(&p) {
        return Err(format!(
            "seeded keyswitching key of {} words, expected {}",
            w.ksk_bodies.len(),
            ksk_len(&p)
        ));
    }
    if matches!(p.keyswitch, Keyswitch::Native32 { .. })
        && w.ksk_bodies.iter().any(|&b| b > u64::from(u32::MAX))
    {
        return Err("a 32-bit keyswitching key word out of range".into());
    }
    Ok(p)
}

impl Validate for CompressedServerKey {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        if self.params_id == params.name {
            Ok(())
        } else {
            Err(format!(
                "compressed server key for {}, expected {}",
                self.params_id, params.name
            ))
        }
    }
}

impl CompressedServerKey {
    /// Generate a compressed server key of `client`'s key set (a few seconds; fresh seeds
    /// and noise from the operating system's entropy). It decompresses to a server key
    /// equivalent to the one [`ClientKey::generate`] returned (other encryptions of the
    /// same secret keys, with the same noise distributions).
    pub fn generate(client: &ClientKey) -> CompressedServerKey {
        let p = *client.params();
        let (lwe_sk, glwe_sk) = client.secret_keys();
        let mut seeder = new_seeder();
        let seeder = seeder.as_mut();
        let bsk_seed = seeder.seed();
        let mut bsk = SeededLweBootstrapKeyOwned::new(
            0u64,
            p.glwe_dimension.to_glwe_size(),
            p.polynomial_size,
            p.pbs_base_log,
            p.pbs_level,
            p.lwe_dimension,
            bsk_seed.into(),
            p.ciphertext_modulus,
        );
        par_generate_seeded_lwe_bootstrap_key(
            lwe_sk,
            glwe_sk,
            &mut bsk,
            p.glwe_noise_distribution,
            &mut *seeder,
        );
        let ksk_seed = seeder.seed();
        let big = glwe_sk.as_lwe_secret_key();
        let ksk_bodies: Vec<u64> = match p.keyswitch {
            Keyswitch::Native64 { noise } => {
                let mut ksk = SeededLweKeyswitchKeyOwned::new(
                    0u64,
                    p.ks_base_log,
                    p.ks_level,
                    p.big_lwe_dimension(),
                    p.lwe_dimension,
                    ksk_seed.into(),
                    p.ciphertext_modulus,
                );
                generate_seeded_lwe_keyswitch_key(&big, lwe_sk, &mut ksk, noise, &mut *seeder);
                ksk.into_container()
            }
            Keyswitch::Native32 { noise } => with_u32_key(lwe_sk, |small| {
                let mut ksk = SeededLweKeyswitchKeyOwned::new(
                    0u32,
                    p.ks_base_log,
                    p.ks_level,
                    p.big_lwe_dimension(),
                    p.lwe_dimension,
                    ksk_seed.into(),
                    CiphertextModulus::new_native(),
                );
                generate_seeded_lwe_keyswitch_key(&big, small, &mut ksk, noise, &mut *seeder);
                ksk.into_container().into_iter().map(u64::from).collect()
            }),
        };
        CompressedServerKey {
            tag: COMPRESSED_SERVER_KEY_TAG,
            params_id: p.name.to_owned(),
            key_set: client.key_set(),
            bsk_seed: bsk_seed.0,
            bsk_bodies: bsk.into_container(),
            ksk_seed: ksk_seed.0,
            ksk_bodies,
        }
    }

    /// The key set of the client key it was generated from.
    pub fn key_set(&self) -> KeySetId {
        self.key_set
    }

    /// The parameter set.
    pub fn params(&self) -> Option<DigitParameters> {
        DigitParameters::from_id(&self.params_id)
    }

    /// The server key: masks regenerated from the seeds (on the current rayon pool), the
    /// bootstrapping key converted to the Fourier domain. Errors only for a value that did
    /// not come from [`CompressedServerKey::generate`] or a validated decoding.
    pub fn decompress(&self) -> Result<ServerKey, EnvelopeError> {
        let p = DigitParameters::from_id(&self.params_id).ok_or_else(|| {
            EnvelopeError::Malformed(format!("unknown parameter set {}", self.params_id))
        })?;
        if self.bsk_bodies.len() != bsk_len(&p) || self.ksk_bodies.len() != ksk_len(&p) {
            return Err(EnvelopeError::Malformed(
                "compressed server key of the wrong size".into(),
            ));
        }
        let seeded_bsk = SeededLweBootstrapKey::from_container(
            self.bsk_bodies.clone(),
            p.glwe_dimension.to_glwe_size(),
            p.polynomial_size,
            p.pbs_base_log,
            p.pbs_level,
            Seed(self.bsk_seed).into(),
            p.ciphertext_modulus,
        );
        let bsk = seeded_bsk.par_decompress_into_lwe_bootstrap_key();
        let output_size = p.lwe_dimension.to_lwe_size();
        let ksk = match p.keyswitch {
            Keyswitch::Native64 { .. } => Ksk::Native64(
                SeededLweKeyswitchKey::from_container(
                    self.ksk_bodies.clone(),
                    p.ks_base_log,
                    p.ks_level,
                    output_size,
                    Seed(self.ksk_seed).into(),
                    p.ciphertext_modulus,
                )
                .par_decompress_into_lwe_keyswitch_key(),
            ),
            Keyswitch::Native32 { .. } => {
                let words = self
                    .ksk_bodies
                    .iter()
                    .map(|&b| u32::try_from(b))
                    .collect::<Result<Vec<u32>, _>>()
                    .map_err(|_| {
                        EnvelopeError::Malformed(
                            "a 32-bit keyswitching key word out of range".into(),
                        )
                    })?;
                Ksk::Native32(
                    SeededLweKeyswitchKey::from_container(
                        words,
                        p.ks_base_log,
                        p.ks_level,
                        output_size,
                        Seed(self.ksk_seed).into(),
                        CiphertextModulus::new_native(),
                    )
                    .par_decompress_into_lwe_keyswitch_key(),
                )
            }
        };
        check_server_parts(&p, &bsk, &ksk).map_err(EnvelopeError::Malformed)?;
        Ok(ServerKey::from_parts(p, self.key_set, bsk, ksk))
    }

    /// Encoded payload size in bytes for `params`: tag (8), parameter id (8 + its length),
    /// key set (16), two seeds (16 each), two lengths (8 each) and the bodies.
    pub fn encoded_len(params: &DigitParameters) -> usize {
        8 + 8 + params.name.len() + 16 + 2 * (16 + 8) + 8 * (bsk_len(params) + ksk_len(params))
    }

    /// The server-key envelope of this compressed key ([`Kind::ServerKey`], its parameter
    /// set; read by [`crate::open_server_key`]).
    pub fn to_bytes(&self) -> Result<Vec<u8>, EnvelopeError> {
        envelope::seal(Kind::ServerKey, &self.params_id, self)
    }
}

/// Whether a server-key envelope holds a compressed key (its payload starts with
/// [`COMPRESSED_SERVER_KEY_TAG`]).
pub fn is_compressed_server_key(bytes: &[u8]) -> bool {
    match envelope::read_header(bytes) {
        Ok((h, payload)) => {
            h.kind == Kind::ServerKey && payload.get(..8) == Some(&COMPRESSED_SERVER_KEY_TAG[..])
        }
        Err(_) => false,
    }
}
