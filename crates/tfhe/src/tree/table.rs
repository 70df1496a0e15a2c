//! 256-entry tables on two nibbles, the encrypted row accumulators built from them, and the
//! sparse jump polynomials that turn a table into a test polynomial over `TV0`.

use tfhe::core_crypto::prelude::*;

use crate::digit::{signed_rep, NegacyclicLut};
use crate::params::DIGIT_MODULUS;

/// A 256-entry table on two nibbles: `out = t[16·hi + lo]`.
///
/// Entries are digits taken mod 32 (usually nibbles `0..16`); `hi` and `lo` must be in `0..16`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Table256(pub [u8; 256]);

impl Table256 {
    /// The table of `f(hi, lo)` for `hi, lo in 0..16` (values taken mod 32).
    pub fn from_fn(f: impl Fn(u8, u8) -> u8) -> Table256 {
        let mut t = [0u8; 256];
        for (i, v) in t.iter_mut().enumerate() {
            *v = f((i / 16) as u8, (i % 16) as u8) % DIGIT_MODULUS as u8;
        }
        Table256(t)
    }

    /// `t[16·hi + lo]` mod 32 as a signed representative in `-16..=15` (plaintext reference of
    /// [`TreeKey::lut_eval`](super::TreeKey::lut_eval); `hi` and `lo` are taken mod 16).
    pub fn eval(&self, hi: i64, lo: i64) -> i64 {
        let i = 16 * hi.rem_euclid(16) + lo.rem_euclid(16);
        signed_rep(self.0[i as usize] as i64)
    }

    /// The univariate table `hi ↦ t[16·hi + j]` of column `j`.
    pub(super) fn column(&self, j: usize) -> NegacyclicLut {
        NegacyclicLut::from_fn(|m| self.0[16 * m as usize + j] as i64)
    }
}

/// An encrypted second-level test polynomial (GLWE ciphertext under the GLWE key): box `j`
/// holds `t[16·m + j]·Δ` where `m` is the first-level input. Produced by
/// [`TreeKey::first_level`](super::TreeKey::first_level), consumed by
/// [`TreeKey::second_level`](super::TreeKey::second_level).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    pub(super) glwe: GlweCiphertextOwned<u64>,
}

/// Box width `B = 2N/32` of the test polynomials.
pub(super) fn box_width(n: usize) -> usize {
    2 * n / DIGIT_MODULUS as usize
}

/// The sparse polynomial `v` (jumps at `p_k = k·B − B/2`, `k = 1..=16`) with
/// `TV0·v = test polynomial of lut`, `TV0 = (Δ/2)·Σ X^i`.
///
/// `TV0·X^p` has coefficient `+Δ/2` at `i ≥ p` and `−Δ/2` below, so `TV0·v` at `i` is
/// `(Δ/2)·Σ_k D_k·sign(i ≥ p_k)`. With `D_k = f(k) − f(k−1)` (`f(16) = −f(0)`) this is
/// `Δ·f(m)` on box `m` because `Σ D_k = −2f(0)`. The jumps are reduced to `[-16, 16]`; that
/// keeps `Σ D_k ≡ −2f(0) (mod 32)` only, and when the sum is off by 32 (mod 64) one jump is
/// moved by ±32 (the largest one, which costs least).
pub(super) fn jumps(lut: &NegacyclicLut) -> [i64; 16] {
    let f = |m: usize| signed_rep(lut.values[m]);
    let mut d = [0i64; 16];
    for k in 1..16 {
        d[k - 1] = signed_rep(f(k) - f(k - 1));
    }
    d[15] = signed_rep(-f(0) - f(15));
    let s: i64 = d.iter().sum();
    if (s + 2 * f(0)).rem_euclid(64) != 0 {
        let (i, _) = d
            .iter()
            .enumerate()
            .max_by_key(|(_, x)| x.abs())
            .expect("16 jumps");
        d[i] += if d[i] < 0 { 32 } else { -32 };
    }
    d
}

/// Positions `p_k`, `k = 1..=16`, of the box boundaries.
pub(super) fn boundaries(n: usize) -> [usize; 16] {
    let b = box_width(n);
    std::array::from_fn(|k| (k + 1) * b - b / 2)
}
