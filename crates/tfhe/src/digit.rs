//! Encrypted digits and their linear (bootstrap-free) operations, and negacyclic tables.

use serde::{Deserialize, Serialize};
use tfhe::core_crypto::prelude::{LweCiphertext, LweCiphertextOwned, LweSize};

use crate::envelope::Validate;
use crate::params::{DigitParameters, DELTA, DIGIT_MODULUS, HALF_MODULUS};
use crate::TfheError;

/// The signed representative of `v mod 32`, in `-16..=15`.
pub fn signed_rep(v: i64) -> i64 {
    let r = v.rem_euclid(DIGIT_MODULUS as i64);
    if r >= HALF_MODULUS as i64 {
        r - DIGIT_MODULUS as i64
    } else {
        r
    }
}

/// Encode a digit (taken mod 32) as the torus element `m·Δ`.
pub(crate) fn encode(m: i64) -> u64 {
    // (m mod 2^64)·2^59 mod 2^64 == (m mod 32)·2^59: negative digits wrap correctly.
    (m as u64).wrapping_mul(DELTA)
}

/// Round a torus element to the nearest multiple of `Δ` and return the digit, in `-16..=15`.
pub(crate) fn decode(phase: u64) -> i64 {
    let m = phase.wrapping_add(DELTA / 2) / DELTA; // 0..32
    signed_rep(m as i64)
}

/// One encrypted digit `m ∈ Z_32`: an LWE ciphertext of `m·Δ` under the big LWE key (the GLWE
/// key read as an LWE key), the format a bootstrap outputs.
///
/// Linear operations need no key and no bootstrap; the noise variance of a result is
/// `Σ w_i² · σ_i²`, so a combination of bootstrap outputs may be bootstrapped again while its
/// quadratic weight `Σ w_i²` stays within [`DigitParameters::max_quadratic_weight`] (25 for the
/// default set). Terms must be *independent* bootstrap outputs: adding a digit to itself counts
/// as weight 2 (quadratic weight 4), not as two weight-1 terms.
///
/// Deserialization accepts only the LWE dimensions of known parameter sets, so every `Digit`
/// has the dimension of a known set; with the single set [`crate::DEFAULT_PARAMETERS`] all
/// digits are compatible with each other and with every [`crate::ServerKey`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "DigitWire", into = "DigitWire")]
pub struct Digit {
    pub(crate) ct: LweCiphertextOwned<u64>,
}

/// Serialized form of a [`Digit`], validated on deserialization.
#[derive(Serialize, Deserialize)]
struct DigitWire {
    ct: LweCiphertextOwned<u64>,
}

impl TryFrom<DigitWire> for Digit {
    type Error = String;

    fn try_from(w: DigitWire) -> Result<Self, String> {
        let size = w.ct.as_ref().len();
        let known = [crate::DEFAULT_PARAMETERS]
            .iter()
            .any(|p| p.big_lwe_dimension().to_lwe_size().0 == size);
        if !known {
            return Err(format!(
                "ciphertext of LWE size {size} matches no known parameter set"
            ));
        }
        if !w.ct.ciphertext_modulus().is_native_modulus() {
            return Err("ciphertext modulus is not the native 2^64".into());
        }
        Ok(Digit { ct: w.ct })
    }
}

impl From<Digit> for DigitWire {
    fn from(d: Digit) -> Self {
        DigitWire { ct: d.ct }
    }
}

impl Validate for Digit {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        let expected = params.big_lwe_dimension().0;
        let found = self.lwe_dimension();
        if found != expected {
            return Err(format!(
                "ciphertext has LWE dimension {found}, parameters require {expected}"
            ));
        }
        Ok(())
    }
}

impl Digit {
    pub(crate) fn from_ct(ct: LweCiphertextOwned<u64>) -> Self {
        Digit { ct }
    }

    /// A noiseless ("trivial") encryption of `m mod 32`: mask zero, body `m·Δ`.
    ///
    /// It carries no noise and counts as weight 0 in the noise budget, but it is *not* secret.
    pub fn trivial(m: i64, params: &DigitParameters) -> Digit {
        let mut ct = LweCiphertext::new(
            0u64,
            LweSize(params.big_lwe_dimension().0 + 1),
            params.ciphertext_modulus,
        );
        *ct.get_mut_body().data = encode(m);
        Digit { ct }
    }

    /// The ciphertext's coefficients (mask, then body), for backends that move digits to other
    /// memory (the GPU backend uploads them as they are).
    pub fn as_raw(&self) -> &[u64] {
        self.ct.as_ref()
    }

    /// A digit from coefficients read back from other memory (mask, then body): the inverse of
    /// [`Digit::as_raw`]. Errors unless `data` has the LWE size of `params`.
    pub fn from_raw(data: Vec<u64>, params: &DigitParameters) -> Result<Digit, TfheError> {
        let expected = params.big_lwe_dimension().0;
        if data.len() != expected + 1 {
            return Err(TfheError::DimensionMismatch {
                expected,
                found: data.len().saturating_sub(1),
            });
        }
        Ok(Digit {
            ct: LweCiphertext::from_container(data, params.ciphertext_modulus),
        })
    }

    /// LWE dimension of the ciphertext (2048 for the default parameters).
    pub fn lwe_dimension(&self) -> usize {
        self.ct.as_ref().len() - 1
    }

    /// Errors with [`TfheError::DimensionMismatch`] unless this digit has LWE dimension
    /// `expected` (the big LWE dimension of the key it is used with).
    pub(crate) fn check_dimension(&self, expected: usize) -> Result<(), TfheError> {
        let found = self.lwe_dimension();
        if expected == found {
            Ok(())
        } else {
            Err(TfheError::DimensionMismatch { expected, found })
        }
    }

    fn check_same(&self, other: &Digit) -> Result<(), TfheError> {
        if self.ct.as_ref().len() == other.ct.as_ref().len() {
            Ok(())
        } else {
            Err(TfheError::DimensionMismatch {
                expected: self.lwe_dimension(),
                found: other.lwe_dimension(),
            })
        }
    }

    /// `self += other` (digits add mod 32).
    ///
    /// # Panics
    /// If the digits come from different parameter sets (impossible while
    /// [`crate::DEFAULT_PARAMETERS`] is the only set); see [`Digit::try_add_assign`].
    pub fn add_assign(&mut self, other: &Digit) {
        self.try_add_assign(other)
            .expect("digits of different parameter sets");
    }

    /// `self += other`, checking that both digits have the same dimension.
    pub fn try_add_assign(&mut self, other: &Digit) -> Result<(), TfheError> {
        self.zip_assign(other, u64::wrapping_add)
    }

    /// `self -= other` (digits subtract mod 32).
    ///
    /// # Panics
    /// If the digits come from different parameter sets (impossible while
    /// [`crate::DEFAULT_PARAMETERS`] is the only set); see [`Digit::try_sub_assign`].
    pub fn sub_assign(&mut self, other: &Digit) {
        self.try_sub_assign(other)
            .expect("digits of different parameter sets");
    }

    /// `self -= other`, checking that both digits have the same dimension.
    pub fn try_sub_assign(&mut self, other: &Digit) -> Result<(), TfheError> {
        self.zip_assign(other, u64::wrapping_sub)
    }

    /// `self[i] = f(self[i], other[i])` on every coefficient, checking that both digits have
    /// the same dimension.
    fn zip_assign(&mut self, other: &Digit, f: fn(u64, u64) -> u64) -> Result<(), TfheError> {
        self.check_same(other)?;
        for (a, b) in self.ct.as_mut().iter_mut().zip(other.ct.as_ref()) {
            *a = f(*a, *b);
        }
        Ok(())
    }

    /// `w · self` for an integer weight `w` (any sign; the noise standard deviation is
    /// multiplied by `|w|`).
    pub fn scale(&self, w: i64) -> Digit {
        let mut out = self.clone();
        out.scale_assign(w);
        out
    }

    /// `self *= w` in place.
    pub fn scale_assign(&mut self, w: i64) {
        let w = w as u64;
        for a in self.ct.as_mut() {
            *a = a.wrapping_mul(w);
        }
    }

    /// `self += m` for a plaintext digit `m` (adds `m·Δ` to the body; no noise).
    pub fn add_constant(&mut self, m: i64) {
        let body = self.ct.get_mut_body().data;
        *body = body.wrapping_add(encode(m));
    }

    /// `Σ w_i · c_i + constant` over at least one term.
    ///
    /// Errors with [`TfheError::EmptyLinearCombination`] when `terms` is empty (use
    /// [`Digit::trivial`] for a constant) and [`TfheError::DimensionMismatch`] when the terms
    /// come from different parameter sets.
    pub fn linear(terms: &[(&Digit, i64)], constant: i64) -> Result<Digit, TfheError> {
        let (first, rest) = terms
            .split_first()
            .ok_or(TfheError::EmptyLinearCombination)?;
        let mut out = first.0.scale(first.1);
        for (d, w) in rest {
            out.check_same(d)?;
            let w = *w as u64;
            for (a, b) in out.ct.as_mut().iter_mut().zip(d.ct.as_ref()) {
                *a = a.wrapping_add(b.wrapping_mul(w));
            }
        }
        out.add_constant(constant);
        Ok(out)
    }
}

/// A negacyclic table on `Z_32`: `values[x] = f(x)` for `x in 0..16`, and
/// `f(x + 16) = -f(x) (mod 32)`.
///
/// Values are taken mod 32 (any `i64` is accepted). Without a padding bit a bootstrap can only
/// evaluate negacyclic functions; this type makes that restriction explicit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NegacyclicLut {
    /// `f(0), …, f(15)`.
    pub values: [i64; 16],
}

impl NegacyclicLut {
    /// The table with the given values for `x in 0..16`.
    pub fn new(values: [i64; 16]) -> Self {
        NegacyclicLut { values }
    }

    /// The table of `f` restricted to `0..16` (its negacyclic extension is used on `16..32`,
    /// whatever `f` does there).
    pub fn from_fn(f: impl Fn(i64) -> i64) -> Self {
        let mut values = [0; 16];
        for (x, v) in values.iter_mut().enumerate() {
            *v = f(x as i64);
        }
        NegacyclicLut { values }
    }

    /// `f(x) = x` on `0..16`. Its negacyclic extension is `f(x) = 16 - x` on `16..32`, so this
    /// is the identity only for inputs in `0..16` (e.g. it maps `-3 ≡ 29` to `-13`).
    pub fn identity() -> Self {
        Self::from_fn(|x| x)
    }

    /// The negacyclic extension evaluated at `x mod 32`, as a signed representative in
    /// `-16..=15`. This is the plaintext reference for [`crate::ServerKey::bootstrap`].
    pub fn eval(&self, x: i64) -> i64 {
        let x = x.rem_euclid(DIGIT_MODULUS as i64) as usize;
        let h = HALF_MODULUS as usize;
        if x < h {
            signed_rep(self.values[x])
        } else {
            signed_rep(-self.values[x - h])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_decode_all_digits() {
        for m in -40i64..40 {
            assert_eq!(decode(encode(m)), signed_rep(m));
            // Noise strictly inside (-Δ/2, Δ/2) still decodes to m.
            let e = DELTA / 2 - 1;
            assert_eq!(decode(encode(m).wrapping_add(e)), signed_rep(m));
            assert_eq!(decode(encode(m).wrapping_sub(e)), signed_rep(m));
        }
    }

    #[test]
    fn signed_rep_range() {
        for v in -100i64..100 {
            let r = signed_rep(v);
            assert!((-16..16).contains(&r));
            assert_eq!((v - r).rem_euclid(32), 0);
        }
    }

    #[test]
    fn lut_eval_is_negacyclic() {
        let lut = NegacyclicLut::from_fn(|x| 3 * x * x + 1);
        for x in 0..32 {
            assert_eq!(signed_rep(lut.eval(x + 16) + lut.eval(x)), 0);
        }
        assert_eq!(lut.eval(2), 13);
        assert_eq!(lut.eval(18), signed_rep(-13));
        assert_eq!(NegacyclicLut::identity().eval(-3), -13);
        assert_eq!(NegacyclicLut::identity().eval(7), 7);
    }

    #[test]
    fn trivial_digits_linear_ops() {
        let p = crate::DEFAULT_PARAMETERS;
        let a = Digit::trivial(7, &p);
        let b = Digit::trivial(-5, &p);
        let phase = |d: &Digit| decode(*d.ct.get_body().data);
        let mut c = a.clone();
        c.add_assign(&b);
        assert_eq!(phase(&c), 2);
        c.sub_assign(&b);
        c.sub_assign(&b);
        assert_eq!(phase(&c), 12);
        assert_eq!(phase(&a.scale(-3)), signed_rep(-21));
        let l = Digit::linear(&[(&a, 2), (&b, 3)], 4).unwrap();
        assert_eq!(phase(&l), signed_rep(14 - 15 + 4));
        assert_eq!(
            Digit::linear(&[], 1),
            Err(TfheError::EmptyLinearCombination)
        );
    }

    /// The digits' reading from an envelope: checked, bounded, never panicking.
    mod envelope {
        use super::*;
        use crate::envelope::{open, read_header, seal, EnvelopeError, Kind};
        use crate::DEFAULT_PARAMETERS;
        use proptest::prelude::*;

        fn id() -> &'static str {
            DEFAULT_PARAMETERS.id()
        }

        fn sample() -> Vec<u8> {
            let digits = vec![
                Digit::trivial(3, &DEFAULT_PARAMETERS),
                Digit::trivial(-7, &DEFAULT_PARAMETERS),
            ];
            seal(Kind::Ciphertext, id(), &digits).unwrap()
        }

        #[test]
        fn round_trip_trivial_digits() {
            let bytes = sample();
            let back: Vec<Digit> = open(&bytes, Kind::Ciphertext, id()).unwrap();
            assert_eq!(back[0], Digit::trivial(3, &DEFAULT_PARAMETERS));
            assert_eq!(back[1], Digit::trivial(-7, &DEFAULT_PARAMETERS));
        }

        #[test]
        fn wrong_dimension_is_malformed() {
            // Hand-build a ciphertext payload of LWE size 5 (a valid LweCiphertext encoding).
            let ct = LweCiphertext::new(0u64, LweSize(5), DEFAULT_PARAMETERS.ciphertext_modulus);
            // Digit's wire form is a struct with a single field `ct`.
            let bytes = seal(Kind::Ciphertext, id(), &(ct,)).unwrap();
            let err = open::<Digit>(&bytes, Kind::Ciphertext, id()).unwrap_err();
            assert!(
                matches!(err, EnvelopeError::Malformed(ref m) if m.contains("LWE size 5")),
                "{err:?}"
            );
        }

        #[test]
        fn huge_length_prefix_is_rejected_without_allocating() {
            let bytes = sample();
            let header = bytes.len() - read_header(&bytes).unwrap().1.len();
            // Vec length prefix: claim 2^62 digits.
            let mut long_vec = bytes.clone();
            long_vec[header..header + 8].copy_from_slice(&(1u64 << 62).to_le_bytes());
            assert!(matches!(
                open::<Vec<Digit>>(&long_vec, Kind::Ciphertext, id()).unwrap_err(),
                EnvelopeError::Malformed(_)
            ));
            // Inner ciphertext length prefix: claim 2^61 coefficients.
            let mut long_ct = bytes;
            long_ct[header + 8..header + 16].copy_from_slice(&(1u64 << 61).to_le_bytes());
            assert!(matches!(
                open::<Vec<Digit>>(&long_ct, Kind::Ciphertext, id()).unwrap_err(),
                EnvelopeError::Malformed(_)
            ));
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
                let _ = open::<Vec<Digit>>(&bytes, Kind::Ciphertext, id());
                let _ = open::<Digit>(&bytes, Kind::Ciphertext, id());
            }

            #[test]
            fn mutated_envelopes_never_panic(
                cut in 0usize..40_000,
                flips in proptest::collection::vec((0usize..40_000, 0u8..8), 0..4),
            ) {
                let mut bytes = sample();
                for (pos, bit) in flips {
                    let n = bytes.len();
                    bytes[pos % n] ^= 1 << bit;
                }
                bytes.truncate(cut);
                // Flips in the coefficients give another valid ciphertext of the right size.
                if let Ok(v) = open::<Vec<Digit>>(&bytes, Kind::Ciphertext, id()) {
                    prop_assert!(v.iter().all(|d| d.lwe_dimension() == 2048));
                }
            }
        }
    }
}
