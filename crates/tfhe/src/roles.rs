//! Which key a key envelope holds, among the keys a server is given: server keys (ordinary
//! or compressed), tree keys and packing keys each have their own envelope kind
//! ([`Kind::ServerKey`], [`Kind::TreeKey`], [`Kind::PackingKey`]).
//!
//! Earlier releases wrote tree and packing keys with the server-key kind. Their payloads
//! differ from a server key's in the first bytes, so such a file is still read where a tree
//! or packing key is expected ([`open_tree_key`], [`open_packing_key`]) and named where a
//! server key is ([`open_server_key`]) without decoding it:
//!
//! - a tree key starts with its layout tag (`tree-key/...`), a server or packing key with
//!   its parameter id;
//! - after the id and the 16-byte key set, the first array of a server key is the
//!   bootstrapping key (`n · level · (k+1)² · N` words), that of a packing key the packing
//!   keyswitching key (`k·N · (k+1) · N` words): the two lengths differ for every known
//!   parameter set;
//! - a compressed server key starts with its own tag.

use serde::de::DeserializeOwned;

use crate::compressed::{is_compressed_server_key, CompressedServerKey, COMPRESSED_SERVER_KEY_TAG};
use crate::envelope::{self, EnvelopeError, Kind, Validate};
use crate::io::PACKING_KS_LEVEL;
use crate::params::DigitParameters;
use crate::{PackingKey, ServerKey, TreeKey};

/// The first bytes of a tree key's layout tag.
const TREE_LAYOUT_PREFIX: &[u8] = b"tree-key/";

/// The kind of key an envelope holds, from its header and the first bytes of its payload:
/// the header's kind, except that a server-key envelope of an earlier release holding a
/// tree or packing key is [`Kind::TreeKey`] or [`Kind::PackingKey`]. Errors only on a bad
/// header. Never panics.
pub fn key_kind(bytes: &[u8]) -> Result<Kind, EnvelopeError> {
    let (header, payload) = envelope::read_header(bytes)?;
    if header.kind != Kind::ServerKey {
        return Ok(header.kind);
    }
    Ok(legacy_kind(payload).unwrap_or(Kind::ServerKey))
}

/// What a server-key envelope's payload holds, when its first bytes say so.
fn legacy_kind(payload: &[u8]) -> Option<Kind> {
    if payload.get(..8) == Some(&COMPRESSED_SERVER_KEY_TAG[..]) {
        return Some(Kind::ServerKey);
    }
    let len = usize::try_from(word(payload, 0)?).ok()?;
    let first = payload.get(8..8usize.checked_add(len)?)?;
    if first.starts_with(TREE_LAYOUT_PREFIX) {
        return Some(Kind::TreeKey);
    }
    let params = DigitParameters::from_id(std::str::from_utf8(first).ok()?)?;
    // The id, the key set (16 bytes), then the length of the first array.
    let array = word(payload, 8 + len + 16)?;
    let glwe_size = params.glwe_dimension.to_glwe_size().0;
    let n = params.polynomial_size.0;
    let bootstrapping = params.lwe_dimension.0 * params.pbs_level.0 * glwe_size * glwe_size * n;
    let packing = params.big_lwe_dimension().0 * PACKING_KS_LEVEL.0 * glwe_size * n;
    match usize::try_from(array).ok()? {
        a if a == bootstrapping => Some(Kind::ServerKey),
        a if a == packing => Some(Kind::PackingKey),
        _ => None,
    }
}

/// The little-endian `u64` at `at`, if the bytes reach that far.
fn word(bytes: &[u8], at: usize) -> Option<u64> {
    let b = bytes.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(b.try_into().ok()?))
}

/// Opens a key envelope holding a key of kind `want`: its own kind, or a server-key
/// envelope of an earlier release whose payload is such a key (or tells nothing: it is
/// then decoded, and a key of an older layout explains itself). Anything else is
/// [`EnvelopeError::WrongKind`], naming what the envelope holds.
fn open_role<T: DeserializeOwned + Validate>(bytes: &[u8], want: Kind) -> Result<T, EnvelopeError> {
    let (header, payload) = envelope::read_header(bytes)?;
    let found = match header.kind {
        k if k == want => return envelope::open_known(bytes, want),
        Kind::ServerKey => match legacy_kind(payload) {
            None => return envelope::open_known(bytes, Kind::ServerKey),
            Some(k) if k == want => return envelope::open_known(bytes, Kind::ServerKey),
            Some(k) => k,
        },
        k => k,
    };
    Err(EnvelopeError::WrongKind {
        expected: want,
        found,
    })
}

/// Reads a server-key envelope of any known parameter set, ordinary or compressed (a
/// compressed key is decompressed: see [`CompressedServerKey::decompress`]). Every check
/// of [`envelope::open_known`]; a tree or packing key, or any other envelope, is
/// [`EnvelopeError::WrongKind`] naming what it holds ([`key_kind`]). Never
/// panics on bad bytes.
pub fn open_server_key(bytes: &[u8]) -> Result<ServerKey, EnvelopeError> {
    // A tree or packing key (also one an earlier release wrote with the server-key kind)
    // is named, not decoded as a damaged server key.
    match key_kind(bytes)? {
        Kind::ServerKey => {}
        found => {
            return Err(EnvelopeError::WrongKind {
                expected: Kind::ServerKey,
                found,
            })
        }
    }
    if is_compressed_server_key(bytes) {
        let c: CompressedServerKey = envelope::open_known(bytes, Kind::ServerKey)?;
        c.decompress()
    } else {
        envelope::open_known(bytes, Kind::ServerKey)
    }
}

/// Reads a tree-key envelope of any known parameter set ([`Kind::TreeKey`], or the
/// server-key kind an earlier release wrote it with). Every check of
/// [`envelope::open_known`]; another key is [`EnvelopeError::WrongKind`]. Never panics.
pub fn open_tree_key(bytes: &[u8]) -> Result<TreeKey, EnvelopeError> {
    open_role(bytes, Kind::TreeKey)
}

/// Reads a packing-key envelope of any known parameter set ([`Kind::PackingKey`], or the
/// server-key kind an earlier release wrote it with). Every check of
/// [`envelope::open_known`]; another key is [`EnvelopeError::WrongKind`]. Never panics.
pub fn open_packing_key(bytes: &[u8]) -> Result<PackingKey, EnvelopeError> {
    open_role(bytes, Kind::PackingKey)
}

/// The envelope of `tree` ([`Kind::TreeKey`], its parameter set).
pub fn seal_tree_key(tree: &TreeKey) -> Result<Vec<u8>, EnvelopeError> {
    envelope::seal(Kind::TreeKey, tree.params().id(), tree)
}

/// The envelope of `key` ([`Kind::PackingKey`], its parameter set).
pub fn seal_packing_key(key: &PackingKey) -> Result<Vec<u8>, EnvelopeError> {
    envelope::seal(Kind::PackingKey, key.params_id(), key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DEFAULT_PARAMETERS;

    /// A server-key envelope whose payload starts like a key of this kind would: its id
    /// (or layout tag), a key set and the length of its first array.
    fn legacy(first: &str, array: u64) -> Vec<u8> {
        let mut payload = Vec::new();
        payload.extend_from_slice(&(first.len() as u64).to_le_bytes());
        payload.extend_from_slice(first.as_bytes());
        payload.extend_from_slice(&[7u8; 16]);
        payload.extend_from_slice(&array.to_le_bytes());
        let mut bytes = envelope::seal(Kind::ServerKey, DEFAULT_PARAMETERS.id(), &()).unwrap();
        bytes.extend_from_slice(&payload);
        bytes
    }

    #[test]
    fn kinds_of_server_side_keys_old_and_new() {
        let p = DEFAULT_PARAMETERS;
        let (k, n) = (p.glwe_dimension.to_glwe_size().0, p.polynomial_size.0);
        let bsk = (p.lwe_dimension.0 * p.pbs_level.0 * k * k * n) as u64;
        let packing = (p.big_lwe_dimension().0 * k * n) as u64;
        assert_ne!(bsk, packing);
        let id = p.id();
        assert_eq!(key_kind(&legacy(id, bsk)).unwrap(), Kind::ServerKey);
        assert_eq!(key_kind(&legacy(id, packing)).unwrap(), Kind::PackingKey);
        let tree = "tree-key/fourier-standard-order/1";
        assert_eq!(key_kind(&legacy(tree, 3)).unwrap(), Kind::TreeKey);
        // Unknown shapes stay server keys for `key_kind`, and are decoded (and refused)
        // by the readers, never taken for another key.
        assert_eq!(key_kind(&legacy(id, 5)).unwrap(), Kind::ServerKey);
        assert!(matches!(
            open_tree_key(&legacy(id, packing)),
            Err(EnvelopeError::WrongKind {
                expected: Kind::TreeKey,
                found: Kind::PackingKey
            })
        ));
        assert!(matches!(
            open_packing_key(&legacy(tree, 3)),
            Err(EnvelopeError::WrongKind {
                expected: Kind::PackingKey,
                found: Kind::TreeKey
            })
        ));
        assert!(matches!(
            open_packing_key(&legacy(id, 5)),
            Err(EnvelopeError::Malformed(_))
        ));
        // New kinds are what their header says; a client key is never a server-side key.
        for kind in [
            Kind::TreeKey,
            Kind::PackingKey,
            Kind::ClientKey,
            Kind::PublicKey,
        ] {
            let b = envelope::seal(kind, id, &()).unwrap();
            assert_eq!(key_kind(&b).unwrap(), kind);
        }
        let client = envelope::seal(Kind::ClientKey, id, &()).unwrap();
        assert!(matches!(
            open_packing_key(&client),
            Err(EnvelopeError::WrongKind {
                found: Kind::ClientKey,
                ..
            })
        ));
        // Short or hostile payloads never panic, whatever reader they meet.
        for kind in [Kind::ServerKey, Kind::TreeKey, Kind::PackingKey] {
            let mut b = envelope::seal(kind, id, &()).unwrap();
            b.extend_from_slice(&[0xff; 40]);
            assert!(open_server_key(&b).is_err());
            assert!(open_tree_key(&b).is_err() && open_packing_key(&b).is_err());
        }
        for cut in 0..legacy(id, packing).len() {
            let _ = key_kind(&legacy(id, packing)[..cut]);
        }
        let mut huge = envelope::seal(Kind::ServerKey, id, &()).unwrap();
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(key_kind(&huge).unwrap(), Kind::ServerKey);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Random payloads after a valid header of every kind: every reader returns.
        #[test]
        fn random_payloads_never_panic(
            tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..96),
            kind in 0usize..6,
        ) {
            let kinds = [
                Kind::ClientKey,
                Kind::ServerKey,
                Kind::Ciphertext,
                Kind::PublicKey,
                Kind::TreeKey,
                Kind::PackingKey,
            ];
            let mut bytes = envelope::seal(kinds[kind], DEFAULT_PARAMETERS.id(), &()).unwrap();
            bytes.extend_from_slice(&tail);
            let _ = key_kind(&bytes);
            let _ = open_server_key(&bytes);
            let _ = open_tree_key(&bytes);
            let _ = open_packing_key(&bytes);
        }
    }
}
