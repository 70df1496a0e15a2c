//! Cryptographic parameter sets for encrypted `Z_32` digits.
//!
//! A digit `m ∈ Z_32` is encoded *without* a padding bit as the torus element `m·Δ` with
//! `Δ = 2^59` on the native `u64` torus (`2^64 / 32`). Because there is no padding bit, every
//! programmable bootstrap evaluates a *negacyclic* function (`f(x + 16) = -f(x) mod 32`), see
//! [`crate::NegacyclicLut`].
//!
//! The parameter values are not retyped here: they are read from the TFHE-rs shortint constant
//! they come from, so they follow that constant exactly.

use tfhe::core_crypto::prelude::{
    CiphertextModulus, DecompositionBaseLog, DecompositionLevelCount, DynamicDistribution,
    GlweDimension, LweDimension, PolynomialSize,
};
use tfhe::shortint::parameters::{ClassicPBSParameters, KeySwitch32PBSParameters};

/// log2 of the number of digit values (`32 = 2^5`).
pub const DIGIT_BITS: u32 = 5;

/// Number of digit values: digits live in `Z_32`.
pub const DIGIT_MODULUS: u64 = 1 << DIGIT_BITS;

/// Half the digit modulus: `f(x + HALF_MODULUS) = -f(x)` for every negacyclic table.
pub const HALF_MODULUS: u64 = DIGIT_MODULUS / 2;

/// Scaling factor of the encoding: digit `m` is encrypted as plaintext `m·Δ`, `Δ = 2^59`.
pub const DELTA: u64 = 1 << (64 - DIGIT_BITS);

/// A complete, named parameter set for keyswitch-then-PBS evaluation on `Z_32` digits.
///
/// Ciphertexts ([`crate::Digit`]) live under the "big" LWE key (the GLWE key read as an LWE key,
/// dimension `glwe_dimension · polynomial_size`); a bootstrap first keyswitches to the small key
/// (dimension `lwe_dimension`) and then blind-rotates back to the big key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DigitParameters {
    /// Stable identifier of this parameter set, recorded in every serialized envelope.
    pub name: &'static str,
    /// Dimension `n` of the small LWE secret key (keyswitch output, blind rotation input).
    pub lwe_dimension: LweDimension,
    /// GLWE dimension `k` of the accumulator.
    pub glwe_dimension: GlweDimension,
    /// Polynomial size `N` of the accumulator.
    pub polynomial_size: PolynomialSize,
    /// The torus the keyswitch lands on, with the noise distribution of the keyswitching key
    /// (encryptions under the small LWE key).
    pub keyswitch: Keyswitch,
    /// Noise distribution of encryptions under the GLWE key (bootstrapping key, fresh digits).
    pub glwe_noise_distribution: DynamicDistribution<u64>,
    /// Base log of the bootstrapping-key gadget decomposition.
    pub pbs_base_log: DecompositionBaseLog,
    /// Level count of the bootstrapping-key gadget decomposition.
    pub pbs_level: DecompositionLevelCount,
    /// Base log of the keyswitching-key gadget decomposition.
    pub ks_base_log: DecompositionBaseLog,
    /// Level count of the keyswitching-key gadget decomposition.
    pub ks_level: DecompositionLevelCount,
    /// Ciphertext modulus (native `2^64` for the default set).
    pub ciphertext_modulus: CiphertextModulus<u64>,
    /// log2 of the failure probability of one bootstrap whose input is a linear combination of
    /// bootstrap outputs with 2-norm at most [`DigitParameters::max_two_norm`].
    pub log2_p_fail: f64,
    /// Largest 2-norm `sqrt(Σ w_i²)` of integer weights applied to independent bootstrap outputs
    /// for which `log2_p_fail` holds.
    pub max_two_norm: u64,
}

/// The TFHE-rs shortint parameter set [`KS64_PARAMETERS`] is read from.
const SOURCE: ClassicPBSParameters =
    tfhe::shortint::parameters::PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128;

/// The 64-bit-keyswitch parameters: 128-bit security, p-fail `2^-129.6` per bootstrap at 2-norm 5.
///
/// The default before the keyswitch moved to the 32-bit torus ([`DEFAULT_PARAMETERS`]); still
/// the set of the GPU backend (its device keyswitch works on the 64-bit torus) and of the key
/// files written before that change, which load as they are.
///
/// Taken from TFHE-rs 1.8.2 `tfhe::shortint::parameters::PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128`
/// (an alias of `V1_8_…`, itself `V1_4_PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128`):
/// `n = 918`, `k = 1`, `N = 2048`, TUniform noise with bound `2^45` (LWE) and `2^17` (GLWE),
/// PBS decomposition `(base_log 23, level 1)`, keyswitch decomposition `(base_log 4, level 4)`,
/// native `2^64` modulus, keyswitch-then-PBS with the centered-mean modulus switch.
///
/// That set encodes 4 message+carry bits plus one padding bit, i.e. `Δ = 2^63 / 16 = 2^59`,
/// exactly our `Δ` for 32 values without padding, so the noise margin (`Δ/2`) and hence the
/// failure probability carry over unchanged. The failure probability `2^-129.581` holds for
/// bootstrap inputs whose noise is at most that of a linear combination of independent bootstrap
/// outputs with 2-norm 5, i.e. **LUT inputs of quadratic weight `Σ w_i² <= 25`**
/// ([`DigitParameters::max_quadratic_weight`]).
pub const KS64_PARAMETERS: DigitParameters = DigitParameters {
    name: "encint-tfhe/v1/PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128/tfhe-1.8.2/z32-nopad",
    lwe_dimension: SOURCE.lwe_dimension,
    glwe_dimension: SOURCE.glwe_dimension,
    polynomial_size: SOURCE.polynomial_size,
    keyswitch: Keyswitch::Native64 {
        noise: SOURCE.lwe_noise_distribution,
    },
    glwe_noise_distribution: SOURCE.glwe_noise_distribution,
    pbs_base_log: SOURCE.pbs_base_log,
    pbs_level: SOURCE.pbs_level,
    ks_base_log: SOURCE.ks_base_log,
    ks_level: SOURCE.ks_level,
    ciphertext_modulus: SOURCE.ciphertext_modulus,
    log2_p_fail: SOURCE.log2_p_fail,
    // `SOURCE.max_noise_level` is `MaxNoiseLevel::new(5)`; its getter is not `const`, the unit
    // test `default_matches_source` checks the two agree.
    max_two_norm: 5,
};

/// The TFHE-rs parameter set [`DEFAULT_PARAMETERS`] is read from.
const SOURCE_KS32: KeySwitch32PBSParameters =
    tfhe::shortint::parameters::aliases::PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128;

/// Default parameters: 128-bit security, p-fail `2^-129.6` per bootstrap at 2-norm 5, with the
/// keyswitch on the 32-bit torus.
///
/// Taken from TFHE-rs 1.8.2
/// `tfhe::shortint::parameters::aliases::PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128` (an
/// alias of `V1_8_…`): the same `n = 918`, `k = 1`, `N = 2048`, GLWE noise, PBS decomposition
/// `(23, 1)`, keyswitch decomposition `(4, 4)`, failure probability `2^-129.581` and 2-norm 5
/// as [`KS64_PARAMETERS`], but the keyswitch writes its output on the native `2^32` torus
/// (TUniform noise with bound `2^13` there, the `2^45` of the 64-bit set scaled by `2^-32`),
/// which the centered-mean modulus switch then takes to `2N`. The keyswitching key holds
/// `u32` instead of `u64`: half the memory (30 MB) read per keyswitch, about 9 % off each
/// bootstrap here (`cargo run --release -p encint-tfhe --example bench_pbs`). Everything the
/// noise budget relies on (`Δ`, the margin, the quadratic weight 25) is that of
/// [`KS64_PARAMETERS`]; the unit test `ks32_matches_its_source` checks the fields.
pub const DEFAULT_PARAMETERS: DigitParameters = DigitParameters {
    name: "encint-tfhe/v1/PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128/tfhe-1.8.2/z32-nopad",
    lwe_dimension: SOURCE_KS32.lwe_dimension,
    glwe_dimension: SOURCE_KS32.glwe_dimension,
    polynomial_size: SOURCE_KS32.polynomial_size,
    keyswitch: Keyswitch::Native32 {
        noise: SOURCE_KS32.lwe_noise_distribution,
    },
    glwe_noise_distribution: SOURCE_KS32.glwe_noise_distribution,
    pbs_base_log: SOURCE_KS32.pbs_base_log,
    pbs_level: SOURCE_KS32.pbs_level,
    ks_base_log: SOURCE_KS32.ks_base_log,
    ks_level: SOURCE_KS32.ks_level,
    ciphertext_modulus: SOURCE_KS32.ciphertext_modulus,
    log2_p_fail: SOURCE_KS32.log2_p_fail,
    // `MaxNoiseLevel::new(5)`, checked by `ks32_matches_its_source`.
    max_two_norm: 5,
};

/// Where a bootstrap's keyswitch writes its output, and the keyswitching key's noise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Keyswitch {
    /// On the native `2^64` torus (TFHE-rs' `KS_PBS` atomic pattern): a `u64` keyswitching key.
    Native64 {
        /// Noise of the keyswitching key's encryptions.
        noise: DynamicDistribution<u64>,
    },
    /// On the native `2^32` torus (TFHE-rs' `KS32_PBS`): a `u32` keyswitching key.
    Native32 {
        /// Noise of the keyswitching key's encryptions.
        noise: DynamicDistribution<u32>,
    },
}

impl DigitParameters {
    /// Largest quadratic weight `Σ w_i²` of a linear combination of independent bootstrap
    /// outputs that may be fed to a bootstrap at the documented failure probability
    /// (`max_two_norm²`, 25 for [`DEFAULT_PARAMETERS`]).
    pub fn max_quadratic_weight(&self) -> u64 {
        self.max_two_norm * self.max_two_norm
    }

    /// Stable identifier of the parameter set (recorded in serialized envelopes).
    pub fn id(&self) -> &str {
        self.name
    }

    /// Dimension of the big LWE key (`glwe_dimension · polynomial_size`), i.e. the LWE dimension
    /// of every [`crate::Digit`].
    pub fn big_lwe_dimension(&self) -> LweDimension {
        LweDimension(self.glwe_dimension.0 * self.polynomial_size.0)
    }

    /// Bytes of one [`crate::Digit`] in memory: an LWE ciphertext of
    /// [`big_lwe_dimension`](Self::big_lwe_dimension) + 1 words of 64 bits (16,392 for
    /// [`DEFAULT_PARAMETERS`]).
    pub fn digit_bytes(&self) -> u64 {
        (self.big_lwe_dimension().0 as u64 + 1) * 8
    }

    /// Look up a known parameter set by its [`DigitParameters::id`].
    pub fn from_id(id: &str) -> Option<DigitParameters> {
        [DEFAULT_PARAMETERS, KS64_PARAMETERS]
            .into_iter()
            .find(|p| p.name == id)
    }

    /// Standard deviation (as a fraction of the torus) that a centered Gaussian error must not
    /// exceed for `P(|e| >= Δ/2) <= 2^log2_p_fail`: `σ_max = (Δ/2) / z` with
    /// `erfc(z/√2) = 2^log2_p_fail`.
    ///
    /// For the default set (`2^-129.581`) `z ≈ 13.2` ([`gaussian_tail_z`]), so
    /// `σ_max ≈ 2^-9.7` of the torus. This bounds the standard deviation of the *whole*
    /// pre-rotation error (input noise, keyswitch and modulus switch) at the failure probability
    /// of the set; the noise of one bootstrap output is therefore at most
    /// `σ_max / max_two_norm`.
    pub fn max_total_sigma(&self) -> f64 {
        let half_delta = 0.5 / DIGIT_MODULUS as f64;
        half_delta / gaussian_tail_z(self.log2_p_fail)
    }
}

/// The `z` such that a standard normal variable satisfies `P(|X| >= z) = 2^log2_p`.
///
/// Computed by bisection on the asymptotically exact bound of `erfc`, accurate to well below
/// 1 % for the tiny probabilities used here (`log2_p < -20`).
pub fn gaussian_tail_z(log2_p: f64) -> f64 {
    let target = log2_p * std::f64::consts::LN_2; // ln P
                                                  // ln P(|X| >= z) = ln erfc(z/√2) ≈ -z²/2 - ln(z·sqrt(π/2)) + ln(1 - 1/z² + 3/z⁴)
    let ln_tail = |z: f64| {
        let z2 = z * z;
        -z2 / 2.0 - (z * (std::f64::consts::PI / 2.0).sqrt()).ln()
            + (1.0 - 1.0 / z2 + 3.0 / (z2 * z2)).ln()
    };
    let (mut lo, mut hi) = (2.0_f64, 100.0_f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if ln_tail(mid) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfhe::shortint::parameters::{EncryptionKeyChoice, ModulusSwitchType};

    #[test]
    fn ks64_matches_its_source() {
        let p = KS64_PARAMETERS;
        assert_eq!(SOURCE.max_noise_level.get(), p.max_two_norm);
        assert_eq!(
            SOURCE.message_modulus.0 * SOURCE.carry_modulus.0 * 2,
            DIGIT_MODULUS
        );
        assert_eq!(SOURCE.encryption_key_choice, EncryptionKeyChoice::Big);
        assert_eq!(
            SOURCE.modulus_switch_noise_reduction_params,
            ModulusSwitchType::CenteredMeanNoiseReduction
        );
        assert_eq!(p.lwe_dimension.0, 918);
        assert_eq!(p.polynomial_size.0, 2048);
        assert_eq!(p.glwe_dimension.0, 1);
        assert_eq!(p.max_quadratic_weight(), 25);
        assert!((p.log2_p_fail + 129.581).abs() < 1e-9);
        assert!(p.ciphertext_modulus.is_native_modulus());
        assert_eq!(p.big_lwe_dimension().0, 2048);
        assert_eq!(DigitParameters::from_id(p.id()), Some(p));
        assert_eq!(DigitParameters::from_id("nope"), None);
        assert_eq!(
            p.keyswitch,
            Keyswitch::Native64 {
                noise: SOURCE.lwe_noise_distribution
            }
        );
    }

    #[test]
    fn ks32_matches_its_source() {
        let (p, q, s) = (DEFAULT_PARAMETERS, KS64_PARAMETERS, SOURCE_KS32);
        assert_eq!(s.max_noise_level.get(), p.max_two_norm);
        assert_eq!(s.message_modulus.0 * s.carry_modulus.0 * 2, DIGIT_MODULUS);
        assert_eq!(
            s.modulus_switch_noise_reduction_params,
            ModulusSwitchType::CenteredMeanNoiseReduction
        );
        assert!(s.post_keyswitch_ciphertext_modulus.is_native_modulus());
        assert_eq!(
            p.keyswitch,
            Keyswitch::Native32 {
                noise: s.lwe_noise_distribution
            }
        );
        // Everything but the keyswitch's torus is the 64-bit set's.
        assert_eq!(
            DigitParameters {
                name: q.name,
                keyswitch: q.keyswitch,
                ..p
            },
            q
        );
        assert_eq!(DigitParameters::from_id(p.id()), Some(p));
        assert_ne!(p.id(), q.id());
    }

    #[test]
    fn tail_z_matches_known_values() {
        // P(|X| >= 1.959964) = 0.05, P(|X| >= 6) = 1.973e-9.
        assert!((gaussian_tail_z(0.05f64.log2()) - 1.96).abs() < 0.05);
        assert!((gaussian_tail_z(1.973e-9f64.log2()) - 6.0).abs() < 0.01);
        let z = gaussian_tail_z(-129.581);
        assert!(z > 13.0 && z < 13.3, "z = {z}");
    }
}
