//! The tree key: a precise bootstrapping key and the packing keyswitching key, generated
//! client-side, and its checks against server keys, digits and accumulators.

use std::fmt;
use std::sync::Arc;

use rayon::prelude::*;
use tfhe::core_crypto::commons::generators::DeterministicSeeder;
use tfhe::core_crypto::commons::math::random::Seed;
use tfhe::core_crypto::prelude::*;

use super::table::{box_width, Accumulator};
use super::{Gen, PACKING_BASE_LOG, PACKING_LEVEL, PRECISE_PBS_BASE_LOG, PRECISE_PBS_LEVEL};
use crate::digit::Digit;
use crate::keys::{debug_key, to_fourier, ClientKey, ServerKey};
use crate::params::DigitParameters;
use crate::TfheError;

/// Extra evaluation keys for tree-based LUT evaluation, generated client-side (they need the
/// secret keys): a precise Fourier bootstrapping key for the first level (≈ 120 MB) and the
/// functional packing keyswitching key (≈ 64 MB). Cloning is cheap (shared `Arc`).
#[derive(Clone)]
pub struct TreeKey {
    pub(super) inner: Arc<TreeKeyInner>,
}

pub(super) struct TreeKeyInner {
    pub(super) params: DigitParameters,
    pub(super) key_set: crate::KeySetId,
    pub(super) fourier_bsk: FourierLweBootstrapKeyOwned,
    /// Rows `(t, l)`, `t` over the big key, `l` over the levels; each row a GLWE ciphertext
    /// (`k + 1` polynomials of `N`) of `s_t · box(X) · q / B^(l+1)`.
    pub(super) packing: Vec<u64>,
}

impl fmt::Debug for TreeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_key(f, "TreeKey", &self.inner.params)
    }
}

impl ClientKey {
    /// Generate the [`TreeKey`] of this client key from the operating system's entropy
    /// (same as [`TreeKey::generate`]).
    pub fn tree_key(&self) -> TreeKey {
        TreeKey::generate(self)
    }
}

impl TreeKeyInner {
    pub(super) fn generate(client: &ClientKey, seeder: &mut dyn Seeder) -> TreeKeyInner {
        let p = *client.params();
        let (lwe_sk, glwe_sk) = client.secret_keys();
        let mut enc = EncryptionRandomGenerator::<Gen>::new(seeder.seed(), seeder);
        let bsk = par_allocate_and_generate_new_lwe_bootstrap_key(
            lwe_sk,
            glwe_sk,
            DecompositionBaseLog(PRECISE_PBS_BASE_LOG),
            DecompositionLevelCount(PRECISE_PBS_LEVEL),
            p.glwe_noise_distribution,
            p.ciphertext_modulus,
            &mut enc,
        );
        let fourier_bsk = to_fourier(&bsk);
        drop(bsk);

        let n = p.polynomial_size.0;
        let glwe_size = p.glwe_dimension.to_glwe_size().0;
        let row_len = glwe_size * n;
        let big = p.big_lwe_dimension().0;
        let rows = big * PACKING_LEVEL;
        let mut packing = vec![0u64; rows * row_len];
        // One generator per group of rows, each seeded from the seeder, so that the rows can be
        // encrypted in parallel.
        const GROUP: usize = 64;
        let gens: Vec<EncryptionRandomGenerator<Gen>> = (0..rows.div_ceil(GROUP))
            .map(|_| EncryptionRandomGenerator::<Gen>::new(seeder.seed(), seeder))
            .collect();
        let key = glwe_sk.as_lwe_secret_key();
        let key = key.as_ref();
        let b = box_width(n);
        packing
            .par_chunks_mut(GROUP * row_len)
            .zip(gens)
            .enumerate()
            .for_each(|(g, (chunk, mut gen))| {
                let mut pt = PlaintextList::new(0u64, PlaintextCount(n));
                for (i, row) in chunk.chunks_exact_mut(row_len).enumerate() {
                    let r = g * GROUP + i;
                    let (t, l) = (r / PACKING_LEVEL, r - (r / PACKING_LEVEL) * PACKING_LEVEL);
                    let scale = 1u64 << (64 - PACKING_BASE_LOG * (l + 1));
                    let v = key[t].wrapping_mul(scale);
                    let data = pt.as_mut();
                    data[..b].fill(v);
                    data[b..].fill(0);
                    let mut glwe = GlweCiphertext::from_container(
                        row,
                        PolynomialSize(n),
                        p.ciphertext_modulus,
                    );
                    encrypt_glwe_ciphertext(
                        glwe_sk,
                        &mut glwe,
                        &pt,
                        p.glwe_noise_distribution,
                        &mut gen,
                    );
                }
                pt.as_mut().fill(0);
            });
        TreeKeyInner::new(p, client.key_set(), fourier_bsk, packing)
    }

    /// The key from its parts, its two large buffers on huge pages
    /// ([`crate::memory::prefer_huge_pages`]: every tree bootstrap reads both whole).
    pub(super) fn new(
        params: DigitParameters,
        key_set: crate::KeySetId,
        fourier_bsk: FourierLweBootstrapKeyOwned,
        packing: Vec<u64>,
    ) -> TreeKeyInner {
        crate::memory::prefer_huge_pages(fourier_bsk.as_view().data());
        crate::memory::prefer_huge_pages(&packing);
        TreeKeyInner {
            params,
            key_set,
            fourier_bsk,
            packing,
        }
    }

    pub(super) fn check_server(&self, server: &ServerKey) -> Result<(), TfheError> {
        let expected = self.params.lwe_dimension.0;
        let found = server.inner.params.lwe_dimension.0;
        let big = self.params.big_lwe_dimension().0;
        let sbig = server.inner.params.big_lwe_dimension().0;
        if expected != found {
            return Err(TfheError::DimensionMismatch { expected, found });
        }
        if big != sbig {
            return Err(TfheError::DimensionMismatch {
                expected: big,
                found: sbig,
            });
        }
        Ok(())
    }

    pub(super) fn check_digit(&self, d: &Digit) -> Result<(), TfheError> {
        d.check_dimension(self.params.big_lwe_dimension().0)
    }

    pub(super) fn check_acc(&self, a: &Accumulator) -> Result<(), TfheError> {
        let p = &self.params;
        let expected = p.big_lwe_dimension().0;
        let found = a.glwe.glwe_size().to_glwe_dimension().0 * a.glwe.polynomial_size().0;
        if a.glwe.polynomial_size() == p.polynomial_size && expected == found {
            Ok(())
        } else {
            Err(TfheError::DimensionMismatch { expected, found })
        }
    }
}

impl TreeKey {
    /// Generate the tree key of `client` from the operating system's entropy. Takes a few
    /// seconds (parallel on the current rayon pool).
    pub fn generate(client: &ClientKey) -> TreeKey {
        let mut seeder = new_seeder();
        TreeKey {
            inner: Arc::new(TreeKeyInner::generate(client, seeder.as_mut())),
        }
    }

    /// Generate the tree key deterministically from `seed` (tests and reproducible benchmarks
    /// only: the key's encryption randomness is predictable).
    pub fn generate_seeded(client: &ClientKey, seed: u128) -> TreeKey {
        let mut seeder = DeterministicSeeder::<Gen>::new(Seed(seed));
        TreeKey {
            inner: Arc::new(TreeKeyInner::generate(client, &mut seeder)),
        }
    }

    /// The parameter set of this key.
    pub fn params(&self) -> &DigitParameters {
        &self.inner.params
    }

    /// The key set of the client key this tree key was generated from.
    pub fn key_set(&self) -> crate::KeySetId {
        self.inner.key_set
    }
}
