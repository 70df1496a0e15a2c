//! Key generation, encryption and decryption.

use std::fmt;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use tfhe::core_crypto::commons::generators::DeterministicSeeder;
use tfhe::core_crypto::commons::math::random::Seed;
use tfhe::core_crypto::prelude::*;
use zeroize::Zeroize;

use crate::digit::{decode, encode, Digit};
use crate::envelope::{next_field, Validate};
use crate::params::{DigitParameters, Keyswitch};

type Gen = DefaultRandomGenerator;

/// The identifier of a key set (one client key and the server key generated with it).
///
/// 128 random bits drawn at key generation, after and independently of the secret key's
/// randomness (a fresh output of the key generation's seeder), so it reveals nothing about
/// the secret. Every key and every integer ciphertext records it; the server refuses to
/// combine ciphertexts of different key sets and decryption refuses a ciphertext of another
/// set, so a mix-up is a typed error instead of a garbage value. It is a label, not an
/// authenticator: whoever can modify a file can also change its identifier.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KeySetId(pub [u8; 16]);

impl fmt::Display for KeySetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for KeySetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeySetId({self})")
    }
}

/// The secret key: the small LWE key (keyswitch target) and the GLWE key (whose LWE reading is
/// the big key digits are encrypted under).
///
/// Key material is overwritten with zeros on drop. It is never part of a [`ServerKey`].
/// Encryption uses an internal CSPRNG behind a mutex, so a `ClientKey` can be shared between
/// threads.
pub struct ClientKey {
    params: DigitParameters,
    key_set: KeySetId,
    pub(crate) lwe_sk: LweSecretKeyOwned<u64>,
    glwe_sk: GlweSecretKeyOwned<u64>,
    rng: Mutex<EncryptionRandomGenerator<Gen>>,
}

impl Drop for ClientKey {
    fn drop(&mut self) {
        self.lwe_sk.as_mut().zeroize();
        self.glwe_sk.as_mut().zeroize();
    }
}

/// The `Debug` form of every key: its type and parameter set, never key material.
pub(crate) fn debug_key(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    params: &DigitParameters,
) -> fmt::Result {
    f.debug_struct(name)
        .field("params", &params.name)
        .finish_non_exhaustive()
}

impl fmt::Debug for ClientKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_key(f, "ClientKey", &self.params)
    }
}

/// The public evaluation key: Fourier bootstrapping key (small key → GLWE key) and keyswitching
/// key (big key → small key). Cloning is cheap (shared `Arc`).
///
/// The standard-domain bootstrapping key is kept next to its Fourier form so that the key can be
/// serialized portably (the Fourier layout depends on the FFT backend of the machine) and so
/// that deserialization never trusts sizes read from untrusted bytes. Memory: about 60 MB each
/// for the two forms of the bootstrapping key, and 30 MB for the keyswitching key
/// ([`crate::DEFAULT_PARAMETERS`]; 60 MB with [`crate::KS64_PARAMETERS`]).
#[derive(Clone)]
pub struct ServerKey {
    pub(crate) inner: Arc<ServerKeyInner>,
}

pub(crate) struct ServerKeyInner {
    pub(crate) params: DigitParameters,
    pub(crate) key_set: KeySetId,
    pub(crate) bsk: LweBootstrapKeyOwned<u64>,
    pub(crate) fourier_bsk: FourierLweBootstrapKeyOwned,
    pub(crate) ksk: Ksk,
}

/// The keyswitching key (big LWE key → small LWE key), on the torus of the parameters'
/// [`Keyswitch`].
pub(crate) enum Ksk {
    Native64(LweKeyswitchKeyOwned<u64>),
    Native32(LweKeyswitchKeyOwned<u32>),
}

impl fmt::Debug for ServerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_key(f, "ServerKey", &self.inner.params)
    }
}

impl ClientKey {
    /// Generate a fresh key pair from the operating system's entropy.
    pub fn generate(params: &DigitParameters) -> (ClientKey, ServerKey) {
        let mut seeder = new_seeder();
        let seeder = seeder.as_mut();
        let secret = SecretRandomGenerator::<Gen>::new(seeder.seed());
        let enc = EncryptionRandomGenerator::<Gen>::new(seeder.seed(), seeder);
        let id = KeySetId(seeder.seed().0.to_le_bytes());
        Self::generate_with(params, id, secret, enc)
    }

    /// Generate a key pair deterministically from `seed` (tests and reproducible benchmarks
    /// only: anyone knowing the seed knows the secret key). Later encryptions are deterministic
    /// too.
    pub fn generate_seeded(params: &DigitParameters, seed: u128) -> (ClientKey, ServerKey) {
        let mut seeder = DeterministicSeeder::<Gen>::new(Seed(seed));
        let secret = SecretRandomGenerator::<Gen>::new(seeder.seed());
        let enc = EncryptionRandomGenerator::<Gen>::new(seeder.seed(), &mut seeder);
        let id = KeySetId(seeder.seed().0.to_le_bytes());
        Self::generate_with(params, id, secret, enc)
    }

    fn generate_with(
        params: &DigitParameters,
        key_set: KeySetId,
        mut secret: SecretRandomGenerator<Gen>,
        mut enc: EncryptionRandomGenerator<Gen>,
    ) -> (ClientKey, ServerKey) {
        let lwe_sk: LweSecretKeyOwned<u64> =
            allocate_and_generate_new_binary_lwe_secret_key(params.lwe_dimension, &mut secret);
        let glwe_sk: GlweSecretKeyOwned<u64> = allocate_and_generate_new_binary_glwe_secret_key(
            params.glwe_dimension,
            params.polynomial_size,
            &mut secret,
        );
        let ksk = match params.keyswitch {
            Keyswitch::Native64 { noise } => {
                Ksk::Native64(allocate_and_generate_new_lwe_keyswitch_key(
                    &glwe_sk.as_lwe_secret_key(),
                    &lwe_sk,
                    params.ks_base_log,
                    params.ks_level,
                    noise,
                    params.ciphertext_modulus,
                    &mut enc,
                ))
            }
            Keyswitch::Native32 { noise } => Ksk::Native32(with_u32_key(&lwe_sk, |small| {
                allocate_and_generate_new_lwe_keyswitch_key(
                    &glwe_sk.as_lwe_secret_key(),
                    small,
                    params.ks_base_log,
                    params.ks_level,
                    noise,
                    CiphertextModulus::new_native(),
                    &mut enc,
                )
            })),
        };
        let bsk = par_allocate_and_generate_new_lwe_bootstrap_key(
            &lwe_sk,
            &glwe_sk,
            params.pbs_base_log,
            params.pbs_level,
            params.glwe_noise_distribution,
            params.ciphertext_modulus,
            &mut enc,
        );
        let server = ServerKey::from_parts(*params, key_set, bsk, ksk);
        let client = ClientKey {
            params: *params,
            key_set,
            lwe_sk,
            glwe_sk,
            rng: Mutex::new(enc),
        };
        (client, server)
    }

    /// The parameter set of this key.
    pub fn params(&self) -> &DigitParameters {
        &self.params
    }

    /// The key set this key belongs to.
    pub fn key_set(&self) -> KeySetId {
        self.key_set
    }

    /// The GLWE secret key (its LWE reading is the big key of every [`Digit`]).
    pub(crate) fn glwe_secret_key(&self) -> &GlweSecretKeyOwned<u64> {
        &self.glwe_sk
    }

    /// Run `f` with the key's encryption CSPRNG (locked for the duration of `f`).
    pub(crate) fn with_rng<R>(
        &self,
        f: impl FnOnce(&mut EncryptionRandomGenerator<Gen>) -> R,
    ) -> R {
        let mut rng = self.rng.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut rng)
    }

    /// Encrypt `m mod 32` under the big key (noise: the GLWE noise distribution, far below a
    /// bootstrap output's).
    pub fn encrypt_digit(&self, m: i64) -> Digit {
        let mut ct = LweCiphertext::new(
            0u64,
            self.params.big_lwe_dimension().to_lwe_size(),
            self.params.ciphertext_modulus,
        );
        // A poisoned mutex only means another thread panicked while encrypting; the generator
        // state is still a valid CSPRNG state.
        let mut rng = self.rng.lock().unwrap_or_else(|e| e.into_inner());
        encrypt_lwe_ciphertext(
            &self.glwe_sk.as_lwe_secret_key(),
            &mut ct,
            Plaintext(encode(m)),
            self.params.glwe_noise_distribution,
            &mut rng,
        );
        Digit::from_ct(ct)
    }

    fn phase(&self, c: &Digit) -> u64 {
        let key = self.glwe_sk.as_lwe_secret_key();
        let (mask, body) = c.ct.get_mask_and_body();
        let dot = mask
            .as_ref()
            .iter()
            .zip(key.as_ref())
            .fold(0u64, |acc, (a, s)| acc.wrapping_add(a.wrapping_mul(*s)));
        body.data.wrapping_sub(dot)
    }

    /// Decrypt: the phase rounded to the nearest multiple of `Δ`, as a signed representative in
    /// `-16..=15`.
    ///
    /// A digit of another parameter set decrypts to garbage (only the common prefix of the key
    /// is used); it cannot panic.
    pub fn decrypt_digit(&self, c: &Digit) -> i64 {
        decode(self.phase(c))
    }

    /// Noise measurement: `phase - expected·Δ` as a signed fraction of the torus, in
    /// `[-1/2, 1/2)`. Decryption is correct while this is in `(-1/64, 1/64)` (`±Δ/2`).
    pub fn phase_error(&self, c: &Digit, expected: i64) -> f64 {
        let e = self.phase(c).wrapping_sub(encode(expected)) as i64;
        e as f64 / 2f64.powi(64)
    }

    /// The number of ones of the big key: noise models of errors weighted by the key need it
    /// (as [`ClientKey::phase_error`], a measurement for the client's own checks; it is
    /// derived from the secret and is not meant to be published).
    pub fn big_key_weight(&self) -> usize {
        self.glwe_sk.as_ref().iter().filter(|&&b| b != 0).count()
    }

    /// The small LWE key and the GLWE key (for client-side generation of extra evaluation keys).
    pub(crate) fn secret_keys(&self) -> (&LweSecretKeyOwned<u64>, &GlweSecretKeyOwned<u64>) {
        (&self.lwe_sk, &self.glwe_sk)
    }
}

/// The Fourier form of a standard bootstrapping key (converted on the current rayon pool).
pub(crate) fn to_fourier(bsk: &LweBootstrapKeyOwned<u64>) -> FourierLweBootstrapKeyOwned {
    let mut fourier_bsk = FourierLweBootstrapKey::new(
        bsk.input_lwe_dimension(),
        bsk.glwe_size(),
        bsk.polynomial_size(),
        bsk.decomposition_base_log(),
        bsk.decomposition_level_count(),
    );
    par_convert_standard_lwe_bootstrap_key_to_fourier(bsk, &mut fourier_bsk);
    fourier_bsk
}

impl ServerKey {
    pub(crate) fn from_parts(
        params: DigitParameters,
        key_set: KeySetId,
        bsk: LweBootstrapKeyOwned<u64>,
        ksk: Ksk,
    ) -> ServerKey {
        let fourier_bsk = to_fourier(&bsk);
        // The two keys every bootstrap reads whole.
        crate::memory::prefer_huge_pages(fourier_bsk.as_view().data());
        match &ksk {
            Ksk::Native64(k) => crate::memory::prefer_huge_pages(k.as_ref()),
            Ksk::Native32(k) => crate::memory::prefer_huge_pages(k.as_ref()),
        }
        ServerKey {
            inner: Arc::new(ServerKeyInner {
                params,
                key_set,
                bsk,
                fourier_bsk,
                ksk,
            }),
        }
    }

    /// The parameter set of this key.
    pub fn params(&self) -> &DigitParameters {
        &self.inner.params
    }

    /// The key set this key belongs to (that of the client key it was generated with).
    pub fn key_set(&self) -> KeySetId {
        self.inner.key_set
    }

    /// The standard-domain bootstrapping key (small LWE key → GLWE key): public evaluation-key
    /// material, for backends that convert it to their own layout (the GPU backend uploads it
    /// once and converts it to the device's Fourier form).
    pub fn bootstrap_key(&self) -> &LweBootstrapKeyOwned<u64> {
        &self.inner.bsk
    }

    /// The keyswitching key (big LWE key → small LWE key) of a 64-bit-keyswitch set
    /// ([`crate::KS64_PARAMETERS`]): public evaluation-key material, for backends that keyswitch
    /// in other memory (the GPU backend). `None` for a set that keyswitches to the 32-bit torus
    /// ([`crate::DEFAULT_PARAMETERS`]).
    pub fn keyswitch_key(&self) -> Option<&LweKeyswitchKeyOwned<u64>> {
        match &self.inner.ksk {
            Ksk::Native64(k) => Some(k),
            Ksk::Native32(_) => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Serialization: wire structs carrying the parameter id, validated before use.

#[derive(Serialize)]
struct ClientKeyWireRef<'a> {
    params_id: &'a str,
    key_set: KeySetId,
    lwe_sk: &'a LweSecretKeyOwned<u64>,
    glwe_sk: &'a GlweSecretKeyOwned<u64>,
}

#[derive(Deserialize)]
struct ClientKeyWire {
    params_id: String,
    key_set: KeySetId,
    lwe_sk: LweSecretKeyOwned<u64>,
    glwe_sk: GlweSecretKeyOwned<u64>,
}

impl Drop for ClientKeyWire {
    fn drop(&mut self) {
        self.lwe_sk.as_mut().zeroize();
        self.glwe_sk.as_mut().zeroize();
    }
}

impl Serialize for ClientKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ClientKeyWireRef {
            params_id: self.params.name,
            key_set: self.key_set,
            lwe_sk: &self.lwe_sk,
            glwe_sk: &self.glwe_sk,
        }
        .serialize(serializer)
    }
}

fn binary(key: &[u64]) -> bool {
    key.iter().all(|&b| b <= 1)
}

impl<'de> Deserialize<'de> for ClientKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut w = ClientKeyWire::deserialize(deserializer)?;
        let params = DigitParameters::from_id(&w.params_id)
            .ok_or_else(|| D::Error::custom(format!("unknown parameter set {}", w.params_id)))?;
        if w.lwe_sk.as_ref().len() != params.lwe_dimension.0 || !binary(w.lwe_sk.as_ref()) {
            return Err(D::Error::custom("malformed small LWE secret key"));
        }
        if w.glwe_sk.polynomial_size() != params.polynomial_size
            || w.glwe_sk.as_ref().len() != params.big_lwe_dimension().0
            || !binary(w.glwe_sk.as_ref())
        {
            return Err(D::Error::custom("malformed GLWE secret key"));
        }
        let mut seeder = new_seeder();
        let seeder = seeder.as_mut();
        let rng = EncryptionRandomGenerator::<Gen>::new(seeder.seed(), seeder);
        // Move the keys out (the wire struct zeroizes whatever is left in it on drop).
        let lwe_sk = std::mem::replace(&mut w.lwe_sk, LweSecretKey::from_container(vec![0u64]));
        let glwe_sk = std::mem::replace(
            &mut w.glwe_sk,
            GlweSecretKey::from_container(vec![0u64], PolynomialSize(1)),
        );
        Ok(ClientKey {
            params,
            key_set: w.key_set,
            lwe_sk,
            glwe_sk,
            rng: Mutex::new(rng),
        })
    }
}

impl Validate for ClientKey {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        if self.params.name == params.name {
            Ok(())
        } else {
            Err(format!(
                "client key for {}, expected {}",
                self.params.name, params.name
            ))
        }
    }
}

// The wire layout is `(params_id, key_set, bsk, ksk)` with the keyswitching key's words of the
// set's keyswitch torus (`u64` or `u32`), so files of the 64-bit sets written before the 32-bit
// keyswitch existed read unchanged. Reading decides the key's word type from `params_id`, read
// first.

#[derive(Serialize)]
struct ServerKeyWireRef<'a> {
    params_id: &'a str,
    key_set: KeySetId,
    bsk: &'a LweBootstrapKeyOwned<u64>,
    ksk: &'a Ksk,
}

impl Serialize for Ksk {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Ksk::Native64(k) => k.serialize(serializer),
            Ksk::Native32(k) => k.serialize(serializer),
        }
    }
}

impl Serialize for ServerKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ServerKeyWireRef {
            params_id: self.inner.params.name,
            key_set: self.inner.key_set,
            bsk: &self.inner.bsk,
            ksk: &self.inner.ksk,
        }
        .serialize(serializer)
    }
}

/// The checks shared by both keyswitch tori: the decomposition, the output size and the
/// length of a keyswitching key.
fn check_ksk<T: UnsignedInteger>(
    p: &DigitParameters,
    ksk: &LweKeyswitchKeyOwned<T>,
) -> Result<(), String> {
    if ksk.decomposition_base_log() != p.ks_base_log
        || ksk.decomposition_level_count() != p.ks_level
        || ksk.output_lwe_size() != p.lwe_dimension.to_lwe_size()
        || !ksk.ciphertext_modulus().is_native_modulus()
    {
        return Err("keyswitching key does not match the parameters".into());
    }
    let ksk_len = p.big_lwe_dimension().0 * p.ks_level.0 * p.lwe_dimension.to_lwe_size().0;
    if ksk.as_ref().len() != ksk_len {
        return Err(format!(
            "keyswitching key has {} coefficients, expected {ksk_len}",
            ksk.as_ref().len()
        ));
    }
    Ok(())
}

pub(crate) fn check_server_parts(
    p: &DigitParameters,
    bsk: &LweBootstrapKeyOwned<u64>,
    ksk: &Ksk,
) -> Result<(), String> {
    // Check the stored fields first: the derived dimensions divide by them.
    let glwe_size = p.glwe_dimension.to_glwe_size();
    if bsk.glwe_size() != glwe_size
        || bsk.polynomial_size() != p.polynomial_size
        || bsk.decomposition_base_log() != p.pbs_base_log
        || bsk.decomposition_level_count() != p.pbs_level
        || !bsk.ciphertext_modulus().is_native_modulus()
    {
        return Err("bootstrapping key does not match the parameters".into());
    }
    let bsk_len =
        p.lwe_dimension.0 * p.pbs_level.0 * glwe_size.0 * glwe_size.0 * p.polynomial_size.0;
    if bsk.as_ref().len() != bsk_len {
        return Err(format!(
            "bootstrapping key has {} coefficients, expected {bsk_len}",
            bsk.as_ref().len()
        ));
    }
    match (p.keyswitch, ksk) {
        (Keyswitch::Native64 { .. }, Ksk::Native64(k)) => check_ksk(p, k),
        (Keyswitch::Native32 { .. }, Ksk::Native32(k)) => check_ksk(p, k),
        _ => Err("keyswitching key on another torus than the parameters'".into()),
    }
}

/// Runs `f` on the binary key `lwe_sk` as 32-bit words (the key of a keyswitch onto the
/// 32-bit torus), then zeroizes that copy.
pub(crate) fn with_u32_key<R>(
    lwe_sk: &LweSecretKeyOwned<u64>,
    f: impl FnOnce(&LweSecretKeyOwned<u32>) -> R,
) -> R {
    let mut small = LweSecretKey::from_container(
        lwe_sk
            .as_ref()
            .iter()
            .map(|&b| b as u32)
            .collect::<Vec<u32>>(),
    );
    let r = f(&small);
    small.as_mut().zeroize();
    r
}

/// Reads the wire layout field by field: the parameter id first, which decides the type of the
/// keyswitching key's words.
struct ServerKeyVisitor;

impl<'de> serde::de::Visitor<'de> for ServerKeyVisitor {
    type Value = ServerKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a server key (parameter id, key set, bootstrapping and keyswitching keys)")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<ServerKey, A::Error> {
        use serde::de::Error;
        const KEY: &str = "server key";
        let params_id: String = next_field(&mut seq, KEY, "parameter id")?;
        let params = DigitParameters::from_id(&params_id)
            .ok_or_else(|| A::Error::custom(format!("unknown parameter set {params_id}")))?;
        let key_set: KeySetId = next_field(&mut seq, KEY, "key set")?;
        let bsk: LweBootstrapKeyOwned<u64> = next_field(&mut seq, KEY, "bootstrapping key")?;
        let ksk = match params.keyswitch {
            Keyswitch::Native64 { .. } => {
                Ksk::Native64(next_field(&mut seq, KEY, "keyswitching key")?)
            }
            Keyswitch::Native32 { .. } => {
                Ksk::Native32(next_field(&mut seq, KEY, "keyswitching key")?)
            }
        };
        check_server_parts(&params, &bsk, &ksk).map_err(A::Error::custom)?;
        Ok(ServerKey::from_parts(params, key_set, bsk, ksk))
    }
}

impl<'de> Deserialize<'de> for ServerKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct(
            "ServerKeyWire",
            &["params_id", "key_set", "bsk", "ksk"],
            ServerKeyVisitor,
        )
    }
}

impl Validate for ServerKey {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        if self.inner.params.name == params.name {
            Ok(())
        } else {
            Err(format!(
                "server key for {}, expected {}",
                self.inner.params.name, params.name
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DEFAULT_PARAMETERS;

    fn sigma(xs: &[f64]) -> f64 {
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)).sqrt()
    }

    /// The modulus switch dominates the blind-rotation input noise: switching to `2N/2` for a
    /// two-table bootstrap roughly doubles the standard deviation even for fresh inputs.
    #[test]
    fn many_lut_switch_noise_is_about_k_times_larger() {
        let (ck, sk) = ClientKey::generate_seeded(&DEFAULT_PARAMETERS, 99);
        let cts: Vec<(i64, Digit)> = (0..96)
            .map(|i| (i % 32, ck.encrypt_digit(i % 32)))
            .collect();
        let e1: Vec<f64> = cts
            .iter()
            .map(|(m, c)| ck.pre_rotation_error_k(&sk, c, *m, 1))
            .collect();
        let e2: Vec<f64> = cts
            .iter()
            .map(|(m, c)| ck.pre_rotation_error_k(&sk, c, *m, 2))
            .collect();
        let (s1, s2) = (sigma(&e1), sigma(&e2));
        // Model: centered switch variance n/48 steps² (n = 918) plus keyswitch noise; k = 2
        // quadruples the first term: ratio ≈ 1.9.
        let ratio = s2 / s1;
        let measured = format!(
            "pre-rotation σ, fresh inputs: k=1 {:.2} positions of 2N, k=2 {:.2} (σ1 = {s1}, \
             σ2 = {s2})",
            s1 * 4096.0,
            s2 * 4096.0
        );
        assert!((1.5..2.3).contains(&ratio), "{measured}");
        // Fresh inputs already use most of the margin at k = 1: σ1 ≈ 2^-9.8 of the torus.
        assert!(s1 > 2f64.powi(-10) && s1 < 2f64.powi(-9), "{measured}");
    }
}
