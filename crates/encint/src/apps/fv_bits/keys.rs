//! Keys and bit-sliced words: key generation, encryption and decryption.

use std::sync::Arc;

use encint_fv::bfv::{BatchEncoder, Ciphertext, FvContext, RelinKey, SecretKey};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

use super::sets::FvBitSet;
use super::{FvBitsError, Result, VARIANT};

fn key_id() -> u64 {
    ChaCha20Rng::from_entropy().next_u64()
}

/// `Name(set, key id)`: what the keys show of themselves (never key material).
fn fmt_key(
    f: &mut std::fmt::Formatter<'_>,
    name: &str,
    set: &FvBitSet,
    id: u64,
) -> std::fmt::Result {
    write!(f, "{name}({}, {id:#018x})", set.name())
}

/// The client side: secret key, encryption and decryption of bit-sliced words.
pub struct FvBitsClientKey {
    pub(super) ctx: Arc<FvContext>,
    pub(super) sk: SecretKey,
    pub(super) encoder: BatchEncoder,
    pub(super) set: FvBitSet,
    pub(super) key_id: u64,
}

impl std::fmt::Debug for FvBitsClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fmt_key(f, "FvBitsClientKey", &self.set, self.key_id)
    }
}

/// The server side: relinearisation key and the executor.
#[derive(Clone)]
pub struct FvBitsServerKey {
    pub(super) ctx: Arc<FvContext>,
    pub(super) rlk: Arc<RelinKey>,
    pub(super) set: FvBitSet,
    pub(super) key_id: u64,
}

impl std::fmt::Debug for FvBitsServerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fmt_key(f, "FvBitsServerKey", &self.set, self.key_id)
    }
}

/// A vector of up to `n` encrypted integers of one width (1..=64 bits), bit-sliced:
/// ciphertext `i` holds bit `i` of every integer.
#[derive(Debug, Clone, PartialEq)]
pub struct FvWord {
    pub(super) bits: Vec<Ciphertext>,
    pub(super) signed: bool,
    pub(super) count: usize,
    pub(super) level: u32,
    pub(super) key_id: u64,
}

impl FvWord {
    /// Width in bits.
    pub fn width(&self) -> usize {
        self.bits.len()
    }
    /// Number of integers held (slots used).
    pub fn len(&self) -> usize {
        self.count
    }
    /// Whether it holds no integer (never, for a word made by this module).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// Whether the integers read as two's complement.
    pub fn is_signed(&self) -> bool {
        self.signed
    }
    /// Multiplicative depth already used (0 for fresh encryptions).
    pub fn level(&self) -> u32 {
        self.level
    }
    /// Id of the key set it belongs to.
    pub fn key_id(&self) -> u64 {
        self.key_id
    }
}

pub(super) fn check_width(width: usize) -> Result<()> {
    if (1..=64).contains(&width) {
        Ok(())
    } else {
        Err(FvBitsError::InvalidInput(format!(
            "width {width} outside 1..=64"
        )))
    }
}

impl FvBitsClientKey {
    /// Fresh keys for `set` (choose it with [`choose_set`](super::choose_set) from the
    /// circuit's depth).
    pub fn generate(set: &FvBitSet) -> Result<(Self, FvBitsServerKey)> {
        let ctx = Arc::new(FvContext::new(set.params.clone())?);
        let encoder = BatchEncoder::new(&ctx)?;
        let mut rng = ChaCha20Rng::from_entropy();
        let sk = SecretKey::generate(&ctx, &mut rng);
        let rlk = ctx.generate_relin_key(&sk, VARIANT, &mut rng)?;
        let key_id = key_id();
        Ok((
            Self {
                ctx: ctx.clone(),
                sk,
                encoder,
                set: set.clone(),
                key_id,
            },
            FvBitsServerKey {
                ctx,
                rlk: Arc::new(rlk),
                set: set.clone(),
                key_id,
            },
        ))
    }

    /// The parameter set.
    pub fn set(&self) -> &FvBitSet {
        &self.set
    }

    /// The key set id recorded in words.
    pub fn key_id(&self) -> u64 {
        self.key_id
    }

    /// Encrypts up to `n` integers of `width` bits (1..=64), unsigned
    /// (`0 ≤ v < 2^width`) or two's complement (given as `i64` cast to `u64`, i.e.
    /// `v as u64`, and range-checked as signed).
    pub fn encrypt(&self, values: &[u64], width: usize, signed: bool) -> Result<FvWord> {
        check_width(width)?;
        let n = self.set.slots();
        if values.is_empty() || values.len() > n {
            return Err(FvBitsError::InvalidInput(format!(
                "{} values for {n} slots",
                values.len()
            )));
        }
        for &v in values {
            let ok = if signed {
                let s = v as i64;
                width == 64 || (-(1i64 << (width - 1))..(1i64 << (width - 1))).contains(&s)
            } else {
                width == 64 || v < (1u64 << width)
            };
            if !ok {
                return Err(FvBitsError::InvalidInput(format!(
                    "{} does not fit {width} {} bits",
                    if signed {
                        (v as i64).to_string()
                    } else {
                        v.to_string()
                    },
                    if signed { "signed" } else { "unsigned" }
                )));
            }
        }
        let bits = (0..width)
            .into_par_iter()
            .map(|i| {
                let mut slots = vec![0u64; n];
                for (s, &v) in slots.iter_mut().zip(values) {
                    *s = (v >> i) & 1;
                }
                let pt = self.encoder.encode(&self.ctx, &slots)?;
                let mut rng = ChaCha20Rng::from_entropy();
                Ok(self
                    .ctx
                    .encrypt_symmetric(&self.sk, &pt, VARIANT, &mut rng)?)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(FvWord {
            bits,
            signed,
            count: values.len(),
            level: 0,
            key_id: self.key_id,
        })
    }

    /// Encrypts signed integers as `width`-bit two's complement.
    pub fn encrypt_signed(&self, values: &[i64], width: usize) -> Result<FvWord> {
        let u: Vec<u64> = values.iter().map(|&v| v as u64).collect();
        self.encrypt(&u, width, true)
    }

    pub(super) fn check(&self, x: &FvWord) -> Result<()> {
        self.check_id(x.key_id)
    }

    pub(super) fn check_id(&self, found: u64) -> Result<()> {
        if found != self.key_id {
            return Err(FvBitsError::WrongKeySet {
                expected: self.key_id,
                found,
            });
        }
        Ok(())
    }

    /// Decrypts to the unsigned values (the low `width` bits), one per integer held.
    /// Errors if a slot is not 0 or 1.
    pub fn decrypt(&self, x: &FvWord) -> Result<Vec<u64>> {
        self.check(x)?;
        let planes = x
            .bits
            .par_iter()
            .map(|c| Ok(self.encoder.decode(&self.ctx.decrypt(&self.sk, c)?)?))
            .collect::<Result<Vec<Vec<u64>>>>()?;
        let mut out = vec![0u64; x.count];
        for (bit, plane) in planes.iter().enumerate() {
            for (slot, o) in out.iter_mut().enumerate() {
                match plane[slot] {
                    0 => {}
                    1 => *o |= 1 << bit,
                    value => return Err(FvBitsError::NotABit { bit, slot, value }),
                }
            }
        }
        Ok(out)
    }

    /// Decrypts two's-complement values (sign-extended from the word's width).
    pub fn decrypt_signed(&self, x: &FvWord) -> Result<Vec<i64>> {
        let w = x.width();
        Ok(self
            .decrypt(x)?
            .into_iter()
            .map(|u| {
                if w < 64 && (u >> (w - 1)) & 1 == 1 {
                    (u as i64) - (1i64 << w)
                } else {
                    u as i64
                }
            })
            .collect())
    }

    /// The smallest invariant noise budget (bits) over the word's ciphertexts: a test
    /// and diagnosis tool (it needs the secret key).
    pub fn noise_budget(&self, x: &FvWord) -> Result<f64> {
        self.check(x)?;
        let mut m = f64::INFINITY;
        for c in &x.bits {
            m = m.min(self.ctx.noise_budget(&self.sk, c)?);
        }
        Ok(m)
    }
}
