//! Serialization of keys and words: the TFHE side's versioned, checked envelope
//! ([`encint_tfhe::envelope`]) with the parameter id `fv-bits/<set>`; every decoded ciphertext
//! and key is checked against the set (sizes, reduced residues, ternary secret) before use.

use std::sync::Arc;

use encint_fv::bfv::{BatchEncoder, Ciphertext, FvContext, RelinKey, SecretKey};
use encint_fv::FvError;
use encint_tfhe::envelope::{self, EnvelopeError, Kind};

use super::keys::{check_width, FvBitsClientKey, FvBitsServerKey, FvWord};
use super::sets::FvBitSet;
use super::{FvBitsError, Result, VARIANT};

fn params_id(set: &FvBitSet) -> String {
    format!("fv-bits/{}", set.name())
}

fn malformed(what: impl Into<String>) -> FvBitsError {
    EnvelopeError::Malformed(what.into()).into()
}

fn set_of_envelope(bytes: &[u8]) -> Result<FvBitSet> {
    let (h, _) = envelope::read_header(bytes)?;
    let name = h
        .params_id
        .strip_prefix("fv-bits/")
        .ok_or_else(|| malformed(format!("not a bit-sliced FV envelope ({})", h.params_id)))?;
    FvBitSet::by_name(name)
}

/// Opens a key envelope of `kind`: the set it names, a context for that set, its payload.
fn open_key<P: serde::de::DeserializeOwned>(
    bytes: &[u8],
    kind: Kind,
) -> Result<(FvBitSet, Arc<FvContext>, P)> {
    let set = set_of_envelope(bytes)?;
    let payload = envelope::open_unvalidated(bytes, kind, &params_id(&set))?;
    let ctx = Arc::new(FvContext::new(set.params.clone())?);
    Ok((set, ctx, payload))
}

#[derive(serde::Serialize, serde::Deserialize)]
struct WordPayload {
    key_id: u64,
    signed: bool,
    count: u64,
    level: u32,
    bits: Vec<Vec<Vec<Vec<u64>>>>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct ServerPayload {
    key_id: u64,
    k0: Vec<Vec<u64>>,
    k1: Vec<Vec<u64>>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct ClientPayload {
    key_id: u64,
    coeffs: Vec<i8>,
}

fn word_to_bytes(set: &FvBitSet, x: &FvWord) -> Result<Vec<u8>> {
    let p = WordPayload {
        key_id: x.key_id,
        signed: x.signed,
        count: x.count as u64,
        level: x.level,
        bits: x.bits.iter().map(|c| c.to_raw()).collect(),
    };
    Ok(envelope::seal(Kind::Ciphertext, &params_id(set), &p)?)
}

fn word_from_bytes(ctx: &FvContext, set: &FvBitSet, key_id: u64, bytes: &[u8]) -> Result<FvWord> {
    let p: WordPayload = envelope::open_unvalidated(bytes, Kind::Ciphertext, &params_id(set))?;
    if p.key_id != key_id {
        return Err(FvBitsError::WrongKeySet {
            expected: key_id,
            found: p.key_id,
        });
    }
    check_width(p.bits.len())?;
    if p.count == 0 || p.count > set.slots() as u64 || p.level > set.usable_depth {
        return Err(malformed("word with an impossible count or level"));
    }
    let bits = p
        .bits
        .into_iter()
        .map(|raw| {
            let c = Ciphertext::from_raw(ctx, VARIANT, raw)?;
            if c.len() != 2 {
                return Err(FvError::MalformedCiphertext("not relinearised".into()));
            }
            Ok(c)
        })
        .collect::<std::result::Result<Vec<_>, FvError>>()?;
    Ok(FvWord {
        bits,
        signed: p.signed,
        count: p.count as usize,
        level: p.level,
        key_id,
    })
}

impl FvBitsServerKey {
    /// The key in a versioned, checked envelope (a few to ~130 MiB: `K` pairs of
    /// `K·n` words).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let (k0, k1) = self
            .rlk
            .to_raw_rns()
            .ok_or_else(|| malformed("not an RNS key"))?;
        let p = ServerPayload {
            key_id: self.key_id,
            k0: k0.to_vec(),
            k1: k1.to_vec(),
        };
        Ok(envelope::seal(Kind::ServerKey, &params_id(&self.set), &p)?)
    }

    /// Reads a key written by [`Self::to_bytes`] (its set is named in the envelope).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let (set, ctx, p): (_, _, ServerPayload) = open_key(bytes, Kind::ServerKey)?;
        let rlk = RelinKey::from_raw_rns(&ctx, VARIANT, p.k0, p.k1)?;
        Ok(Self {
            ctx,
            rlk: Arc::new(rlk),
            set,
            key_id: p.key_id,
        })
    }

    /// A word in a versioned, checked envelope (bounded at 256 MiB: a 64-bit word of
    /// `128-32768` is too large and is refused with a typed error).
    pub fn word_to_bytes(&self, x: &FvWord) -> Result<Vec<u8>> {
        word_to_bytes(&self.set, x)
    }

    /// Reads a word of this key set (its set, key id, sizes and residues checked).
    pub fn word_from_bytes(&self, bytes: &[u8]) -> Result<FvWord> {
        word_from_bytes(&self.ctx, &self.set, self.key_id, bytes)
    }
}

impl FvBitsClientKey {
    /// The secret key in an envelope (keep it on the client; wrap the bytes in a zeroizing
    /// buffer if they stay in memory).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let p = ClientPayload {
            key_id: self.key_id,
            coeffs: self.sk.coefficients().iter().map(|&c| c as i8).collect(),
        };
        Ok(envelope::seal(Kind::ClientKey, &params_id(&self.set), &p)?)
    }

    /// Reads a client key written by [`Self::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let (set, ctx, p): (_, _, ClientPayload) = open_key(bytes, Kind::ClientKey)?;
        let coeffs: Vec<i64> = p.coeffs.iter().map(|&c| i64::from(c)).collect();
        let sk = SecretKey::from_coefficients(&ctx, &coeffs)?;
        let encoder = BatchEncoder::new(&ctx)?;
        Ok(Self {
            ctx,
            sk,
            encoder,
            set,
            key_id: p.key_id,
        })
    }

    /// A word in an envelope (see [`FvBitsServerKey::word_to_bytes`]).
    pub fn word_to_bytes(&self, x: &FvWord) -> Result<Vec<u8>> {
        self.check(x)?;
        word_to_bytes(&self.set, x)
    }

    /// Reads a word of this key set.
    pub fn word_from_bytes(&self, bytes: &[u8]) -> Result<FvWord> {
        word_from_bytes(&self.ctx, &self.set, self.key_id, bytes)
    }
}
