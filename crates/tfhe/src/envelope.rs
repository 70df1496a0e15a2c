//! Versioned, checked serialization of keys and ciphertexts.
//!
//! Layout of an envelope (all integers little endian):
//!
//! | bytes | content |
//! | --- | --- |
//! | 8 | magic `b"ENCINT\0T"` |
//! | 2 | format version (`u16`, currently [`FORMAT_VERSION`]) |
//! | 1 | [`Kind`] tag |
//! | 2 | length `L` of the parameter id (`u16`) |
//! | L | parameter id (UTF-8, [`crate::DigitParameters::id`]) |
//! | … | payload: bincode (fixed-int encoding, size-limited, no trailing bytes) |
//!
//! [`open`] checks magic, version, kind and parameter id before decoding the payload, decodes
//! with a size limit (random bytes cannot trigger huge allocations) and validates the decoded
//! value against the parameter set ([`Validate`]), so a ciphertext or key of the wrong size is
//! rejected as [`EnvelopeError::Malformed`] instead of causing a later panic.

use bincode::Options;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::params::DigitParameters;

/// Magic bytes at the start of every envelope.
pub const MAGIC: [u8; 8] = *b"ENCINT\0T";

/// Current format version (2: keys and integer ciphertexts record their [`crate::KeySetId`];
/// files of version 1 are refused as [`EnvelopeError::UnsupportedVersion`]).
pub const FORMAT_VERSION: u16 = 2;

const HEADER_FIXED: usize = MAGIC.len() + 2 + 1 + 2;

/// What an envelope contains.
///
/// Tree and packing keys have their own kinds (tags 5 and 6) since they were found given
/// as server keys, where their bytes read as a damaged server key; earlier releases wrote
/// them with the server-key kind, and the `roles` module still reads such files where a tree
/// or packing key is expected and names them where it is not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A [`crate::ClientKey`] (secret).
    ClientKey,
    /// A [`crate::ServerKey`] (ordinary or compressed).
    ServerKey,
    /// One or more ciphertexts ([`crate::Digit`], `Vec<Digit>`, …).
    Ciphertext,
    /// A [`crate::PublicKey`] (public: anyone may encrypt with it).
    PublicKey,
    /// A [`crate::TreeKey`] (the byte processor's tree LUTs; public).
    TreeKey,
    /// A [`crate::PackingKey`] (packs results for the downlink; public).
    PackingKey,
}

impl Kind {
    fn tag(self) -> u8 {
        match self {
            Kind::ClientKey => 1,
            Kind::ServerKey => 2,
            Kind::Ciphertext => 3,
            Kind::PublicKey => 4,
            Kind::TreeKey => 5,
            Kind::PackingKey => 6,
        }
    }

    fn from_tag(tag: u8) -> Option<Kind> {
        match tag {
            1 => Some(Kind::ClientKey),
            2 => Some(Kind::ServerKey),
            3 => Some(Kind::Ciphertext),
            4 => Some(Kind::PublicKey),
            5 => Some(Kind::TreeKey),
            6 => Some(Kind::PackingKey),
            _ => None,
        }
    }

    /// The kind's name in messages (`"a packing key"`; a client key's says it is secret).
    pub fn name(self) -> &'static str {
        match self {
            Kind::ClientKey => "a client key (secret)",
            Kind::ServerKey => "a server key",
            Kind::Ciphertext => "a ciphertext",
            Kind::PublicKey => "a public key",
            Kind::TreeKey => "a tree key",
            Kind::PackingKey => "a packing key",
        }
    }

    /// Largest payload accepted for this kind, in bytes (bounds every allocation of [`open`]).
    pub fn size_limit(self) -> u64 {
        match self {
            // Two binary keys of 918 + 2048 u64 plus the id: a few tens of KiB.
            Kind::ClientKey => 1 << 20,
            // Standard bootstrapping key (~60 MB) + keyswitching key (~30 MB, or ~60 MB on
            // the 64-bit-keyswitch set).
            Kind::ServerKey => 256 << 20,
            // 16 KiB per digit: up to 16384 digits per envelope.
            Kind::Ciphertext => 256 << 20,
            // A seed and 2048 body words plus the id: 16 KiB.
            Kind::PublicKey => 1 << 20,
            // The precise bootstrapping key in the Fourier domain and the packing rows:
            // 187 MB for the default parameters.
            Kind::TreeKey => 256 << 20,
            // 2048 x 2 x 2048 words: 64 MiB.
            Kind::PackingKey => 256 << 20,
        }
    }
}

/// Largest envelope of this kind that [`open`] can accept, header included: callers reading
/// an envelope from a file or socket should refuse to read more than this.
pub fn max_len(kind: Kind) -> u64 {
    HEADER_FIXED as u64 + u64::from(u16::MAX) + kind.size_limit()
}

/// Errors of [`seal`] and [`open`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// The bytes do not start with [`MAGIC`].
    #[error("not an encint envelope (bad magic bytes)")]
    BadMagic,
    /// The bytes end inside the header.
    #[error("envelope truncated")]
    Truncated,
    /// The envelope holds another kind of object.
    #[error("the envelope holds {}, not {}", found.name(), expected.name())]
    WrongKind {
        /// The kind the caller asked for.
        expected: Kind,
        /// The kind recorded in the envelope.
        found: Kind,
    },
    /// The format version is not supported by this build.
    #[error("unsupported envelope format version {0}")]
    UnsupportedVersion(u16),
    /// The envelope was made for another parameter set.
    #[error("envelope is for parameters {found:?}, expected {expected:?}")]
    WrongParameters {
        /// The parameter id the caller asked for.
        expected: String,
        /// The parameter id recorded in the envelope.
        found: String,
    },
    /// The envelope names a parameter set this build does not know (a newer release's, or
    /// a damaged header).
    #[error(
        "envelope names parameter set {found:?}, which this release does not know (known: {known})"
    )]
    UnknownParameters {
        /// The parameter id recorded in the envelope.
        found: String,
        /// The ids this build knows, comma-separated.
        known: String,
    },
    /// The header is valid but the payload is not (bad kind tag, undecodable or oversized
    /// payload, wrong dimensions, …).
    #[error("malformed envelope: {0}")]
    Malformed(String),
}

/// Checks of a decoded value against the parameter set named in its envelope.
///
/// Implemented for the crate's keys and ciphertexts and for `Vec`, `Option`, arrays, slices of
/// boxes and pairs of such values; implement it for your own containers of digits (returning
/// `Ok(())` for types that hold no ciphertext).
pub trait Validate {
    /// `Ok(())` when `self` is usable with `params`, else a description of the problem.
    fn validate(&self, params: &DigitParameters) -> Result<(), String>;
}

impl<T: Validate> Validate for Vec<T> {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        self.iter().try_for_each(|x| x.validate(params))
    }
}

impl<T: Validate> Validate for Box<T> {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        (**self).validate(params)
    }
}

impl<T: Validate> Validate for Option<T> {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        self.iter().try_for_each(|x| x.validate(params))
    }
}

impl<T: Validate, const N: usize> Validate for [T; N] {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        self.iter().try_for_each(|x| x.validate(params))
    }
}

impl<A: Validate, B: Validate> Validate for (A, B) {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        self.0.validate(params)?;
        self.1.validate(params)
    }
}

fn options(limit: u64) -> impl Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
        .with_limit(limit)
        .reject_trailing_bytes()
}

/// Serialize `value` into an envelope of the given kind for the parameter set `params_id`.
///
/// The payload is encoded directly into the returned buffer, allocated once at its final
/// size, so no intermediate copy of the value's bytes is left in freed memory (for a
/// [`Kind::ClientKey`], wrap the result in `zeroize::Zeroizing`).
pub fn seal<T: Serialize>(
    kind: Kind,
    params_id: &str,
    value: &T,
) -> Result<Vec<u8>, EnvelopeError> {
    let id_len = u16::try_from(params_id.len())
        .map_err(|_| EnvelopeError::Malformed("parameter id longer than 65535 bytes".into()))?;
    let encode_err =
        |e: bincode::Error| EnvelopeError::Malformed(format!("cannot encode payload: {e}"));
    let payload_len = options(kind.size_limit())
        .serialized_size(value)
        .map_err(encode_err)?;
    let total = usize::try_from(payload_len)
        .ok()
        .and_then(|n| n.checked_add(HEADER_FIXED + params_id.len()))
        .ok_or_else(|| EnvelopeError::Malformed("payload too large".into()))?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.push(kind.tag());
    out.extend_from_slice(&id_len.to_le_bytes());
    out.extend_from_slice(params_id.as_bytes());
    options(kind.size_limit())
        .serialize_into(&mut out, value)
        .map_err(encode_err)?;
    debug_assert_eq!(out.len(), total, "the buffer never grew (no stray copy)");
    Ok(out)
}

/// The header fields of an envelope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version.
    pub version: u16,
    /// Kind of the content.
    pub kind: Kind,
    /// Parameter id.
    pub params_id: String,
}

/// Parse and check the header; returns it and the payload.
pub fn read_header(bytes: &[u8]) -> Result<(Header, &[u8]), EnvelopeError> {
    let magic_len = MAGIC.len().min(bytes.len());
    if bytes[..magic_len] != MAGIC[..magic_len] {
        return Err(EnvelopeError::BadMagic);
    }
    if bytes.len() < HEADER_FIXED {
        return Err(EnvelopeError::Truncated);
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version != FORMAT_VERSION {
        return Err(EnvelopeError::UnsupportedVersion(version));
    }
    let kind = Kind::from_tag(bytes[10])
        .ok_or_else(|| EnvelopeError::Malformed(format!("unknown kind tag {}", bytes[10])))?;
    let id_len = u16::from_le_bytes([bytes[11], bytes[12]]) as usize;
    let rest = &bytes[HEADER_FIXED..];
    if rest.len() < id_len {
        return Err(EnvelopeError::Truncated);
    }
    let params_id = std::str::from_utf8(&rest[..id_len])
        .map_err(|_| EnvelopeError::Malformed("parameter id is not UTF-8".into()))?
        .to_owned();
    Ok((
        Header {
            version,
            kind,
            params_id,
        },
        &rest[id_len..],
    ))
}

/// Decode an envelope, checking magic, version, kind and parameter id, then validate the value
/// against the parameter set ([`Validate`]).
///
/// `params_id` must name a known parameter set ([`DigitParameters::from_id`]); otherwise the
/// result is [`EnvelopeError::UnknownParameters`]. Never panics, whatever the bytes.
pub fn open<T: DeserializeOwned + Validate>(
    bytes: &[u8],
    expected: Kind,
    params_id: &str,
) -> Result<T, EnvelopeError> {
    let (header, _) = read_header(bytes)?;
    if header.kind == expected && header.params_id == params_id {
        // Known before the payload is decoded.
        DigitParameters::from_id(params_id).ok_or_else(|| unknown(params_id))?;
    }
    let value: T = open_unvalidated(bytes, expected, params_id)?;
    let params = DigitParameters::from_id(params_id).ok_or_else(|| unknown(params_id))?;
    value.validate(&params).map_err(EnvelopeError::Malformed)?;
    Ok(value)
}

fn unknown(id: &str) -> EnvelopeError {
    EnvelopeError::UnknownParameters {
        found: id.to_owned(),
        known: [crate::DEFAULT_PARAMETERS.id(), crate::KS64_PARAMETERS.id()].join(", "),
    }
}

/// [`open`] for whichever known parameter set the envelope's header names (files written under
/// [`crate::KS64_PARAMETERS`] before the 32-bit keyswitch became the default, as well as new
/// ones): an unknown set is [`EnvelopeError::UnknownParameters`], naming the header's id.
/// Never panics.
pub fn open_known<T: DeserializeOwned + Validate>(
    bytes: &[u8],
    expected: Kind,
) -> Result<T, EnvelopeError> {
    let (header, _) = read_header(bytes)?;
    open(bytes, expected, &header.params_id)
}

/// The next field of a value decoded field by field (a key's `Visitor::visit_seq`): an
/// error `"<value> without <field>"` when the sequence ends before it.
pub(crate) fn next_field<'de, A, T>(seq: &mut A, value: &str, field: &str) -> Result<T, A::Error>
where
    A: serde::de::SeqAccess<'de>,
    T: serde::Deserialize<'de>,
{
    use serde::de::Error;
    seq.next_element()?
        .ok_or_else(|| A::Error::custom(format!("{value} without {field}")))
}

/// [`open`] without the [`Validate`] step (the header checks and the bounded decoding still
/// apply; the crate's own types validate their dimensions while decoding as well).
pub fn open_unvalidated<T: DeserializeOwned>(
    bytes: &[u8],
    expected: Kind,
    params_id: &str,
) -> Result<T, EnvelopeError> {
    let (header, payload) = read_header(bytes)?;
    if header.kind != expected {
        return Err(EnvelopeError::WrongKind {
            expected,
            found: header.kind,
        });
    }
    if header.params_id != params_id {
        return Err(EnvelopeError::WrongParameters {
            expected: params_id.to_owned(),
            found: header.params_id,
        });
    }
    options(expected.size_limit())
        .deserialize(payload)
        .map_err(|e| EnvelopeError::Malformed(format!("cannot decode payload: {e}")))
}

/// Runs `open_all` on 256 random envelopes of the default parameter set: a valid header of
/// every [`Kind`] and an empty payload, followed by up to 64 random bytes (the types' tests
/// check that reading them never panics).
#[cfg(test)]
pub(crate) fn after_valid_header(open_all: impl Fn(&[u8])) {
    use proptest::prelude::*;
    let id = crate::DEFAULT_PARAMETERS.id();
    let cases = (proptest::collection::vec(any::<u8>(), 0..64), 1u8..7);
    proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(256))
        .run(&cases, |(tail, tag)| {
            let kind = Kind::from_tag(tag).expect("a known tag");
            let mut bytes = seal(kind, id, &()).expect("an empty payload seals");
            bytes.extend_from_slice(&tail);
            open_all(&bytes);
            Ok(())
        })
        .expect("no case fails");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DEFAULT_PARAMETERS;
    use serde::Deserialize;

    /// A payload of the format's own (it knows nothing of digits or keys): a word that
    /// every parameter set accepts.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Word(u64);

    impl Validate for Word {
        fn validate(&self, _: &DigitParameters) -> Result<(), String> {
            Ok(())
        }
    }

    fn id() -> &'static str {
        DEFAULT_PARAMETERS.id()
    }

    fn words() -> Vec<Word> {
        vec![Word(3), Word(u64::MAX - 6)]
    }

    fn sample() -> Vec<u8> {
        seal(Kind::Ciphertext, id(), &words()).unwrap()
    }

    #[test]
    fn round_trip() {
        let bytes = sample();
        let back: Vec<Word> = open(&bytes, Kind::Ciphertext, id()).unwrap();
        assert_eq!(back, words());
        let (header, payload) = read_header(&bytes).unwrap();
        assert_eq!(
            header,
            Header {
                version: FORMAT_VERSION,
                kind: Kind::Ciphertext,
                params_id: id().to_owned()
            }
        );
        // A length prefix, then the two words.
        assert_eq!(payload.len(), 8 + 2 * 8);
    }

    #[test]
    fn header_errors() {
        let bytes = sample();
        assert_eq!(
            open::<Vec<Word>>(b"garbage!garbage!", Kind::Ciphertext, id()).unwrap_err(),
            EnvelopeError::BadMagic
        );
        assert_eq!(
            open::<Vec<Word>>(&bytes[..10], Kind::Ciphertext, id()).unwrap_err(),
            EnvelopeError::Truncated
        );
        assert_eq!(
            open::<Vec<Word>>(&bytes[..20], Kind::Ciphertext, id()).unwrap_err(),
            EnvelopeError::Truncated
        );
        assert_eq!(
            open::<Vec<Word>>(&bytes, Kind::ServerKey, id()).unwrap_err(),
            EnvelopeError::WrongKind {
                expected: Kind::ServerKey,
                found: Kind::Ciphertext
            }
        );
        let mut v2 = bytes.clone();
        v2[8] = 1;
        assert_eq!(
            open::<Vec<Word>>(&v2, Kind::Ciphertext, id()).unwrap_err(),
            EnvelopeError::UnsupportedVersion(1)
        );
        assert!(matches!(
            open::<Vec<Word>>(&bytes, Kind::Ciphertext, "other-params").unwrap_err(),
            EnvelopeError::WrongParameters { .. }
        ));
        // Sealed for an unknown id and opened with it: the id matches but no set is known.
        let foreign = seal(Kind::Ciphertext, "other-params", &Vec::<Word>::new()).unwrap();
        assert!(matches!(
            open::<Vec<Word>>(&foreign, Kind::Ciphertext, "other-params").unwrap_err(),
            EnvelopeError::UnknownParameters { found, .. } if found == "other-params"
        ));
        let mut bad_tag = bytes.clone();
        bad_tag[10] = 9;
        assert!(matches!(
            open::<Vec<Word>>(&bad_tag, Kind::Ciphertext, id()).unwrap_err(),
            EnvelopeError::Malformed(_)
        ));
        // Payload truncated by one byte, or one trailing byte added.
        assert!(matches!(
            open::<Vec<Word>>(&bytes[..bytes.len() - 1], Kind::Ciphertext, id()).unwrap_err(),
            EnvelopeError::Malformed(_)
        ));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            open::<Vec<Word>>(&longer, Kind::Ciphertext, id()).unwrap_err(),
            EnvelopeError::Malformed(_)
        ));
    }

    /// A flipped bit in the header's parameter id: the error names the id the file holds,
    /// and the ids this release knows, each in its place.
    #[test]
    fn damaged_parameter_id_is_named_in_the_error() {
        let bytes = sample();
        let at = bytes
            .windows(id().len())
            .position(|w| w == id().as_bytes())
            .unwrap();
        let mut flipped = bytes.clone();
        flipped[at + 3] ^= 0x01;
        let damaged = String::from_utf8(flipped[at..at + id().len()].to_vec()).unwrap();
        let err = open_known::<Vec<Word>>(&flipped, Kind::Ciphertext).unwrap_err();
        match &err {
            EnvelopeError::UnknownParameters { found, known } => {
                assert_eq!(found, &damaged);
                assert!(known.contains(DEFAULT_PARAMETERS.id()));
                assert!(known.contains(crate::KS64_PARAMETERS.id()));
            }
            other => panic!("{other:?}"),
        }
        let msg = err.to_string();
        let (before, after) = msg.split_once("which").unwrap();
        assert!(
            before.contains(&damaged) && after.contains(DEFAULT_PARAMETERS.id()),
            "{msg}"
        );
        // Opened for the default set by name: the header's id is what was found.
        match open::<Vec<Word>>(&flipped, Kind::Ciphertext, id()).unwrap_err() {
            EnvelopeError::WrongParameters { expected, found } => {
                assert_eq!(
                    (expected.as_str(), found.as_str()),
                    (id(), damaged.as_str())
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn huge_length_prefix_is_rejected_without_allocating() {
        let mut bytes = sample();
        let header = HEADER_FIXED + id().len();
        // Vec length prefix: claim 2^62 words.
        bytes[header..header + 8].copy_from_slice(&(1u64 << 62).to_le_bytes());
        assert!(matches!(
            open::<Vec<Word>>(&bytes, Kind::Ciphertext, id()).unwrap_err(),
            EnvelopeError::Malformed(_)
        ));
    }

    #[test]
    fn random_bytes_after_valid_header_never_panic() {
        after_valid_header(|bytes| {
            let _ = open::<Vec<Word>>(bytes, Kind::Ciphertext, id());
            let _ = open_unvalidated::<(Word, Word)>(bytes, Kind::ClientKey, id());
        });
    }
}
