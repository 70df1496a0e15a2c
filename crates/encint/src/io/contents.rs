//! What a file holds: every key and ciphertext file of the library, the command-line tool
//! and the Python package is one envelope (`encint::keys::envelope`), and [`identify`]
//! names its content from the header and the first bytes of the payload (nothing is
//! decoded), so that a file given in the wrong place is refused with an error that says
//! what it is and what was expected, before any work ("this file holds a packing key;
//! --server-key needs a server key").
//!
//! - keys: by the envelope's kind (client, server, public, tree and packing keys); a
//!   compressed server key by its tag; tree and packing keys that earlier releases wrote
//!   with the server-key kind by their first bytes ([`encint_tfhe::roles`]);
//! - ciphertexts: by their payload's tag (the tags are defined here, and re-exported where
//!   their payloads are: `wire`, `seeded`, `packed`, `processor`); an untagged payload is an
//!   exact integer's digits, or the bare nibbles of a byte-processor link of an earlier
//!   release (told apart by their first fields: a seeded list's LWE dimension, a packed
//!   list's GLWE shape, where an exact integer has its first digit's length);
//! - the bit-sliced FV files by their parameter id (`fv-bits/...`).

use encint_tfhe::envelope::{self, EnvelopeError, Kind};

/// The tag that starts a bits payload.
pub const BITS_TAG: [u8; 8] = *b"ENCBITS1";
/// The tag that starts a canonical or lazy typed payload.
pub const TYPED_TAG: [u8; 8] = *b"ENCTYPE1";
/// The tag that starts a radix-4 typed payload.
pub const TYPED_RADIX4_TAG: [u8; 8] = *b"ENCTYR41";
/// The tag that starts a seeded exact integer's payload.
pub const SEEDED_INT_TAG: [u8; 8] = *b"ENCSINT1";
/// The tag that starts a seeded typed value's (or array's) payload.
pub const SEEDED_TYPED_TAG: [u8; 8] = *b"ENCSTYP1";
/// The tag that starts a public-key exact integer's payload.
pub const PUBLIC_INT_TAG: [u8; 8] = *b"ENCPINT1";
/// The tag that starts a public-key typed value's (or array's) payload.
pub const PUBLIC_TYPED_TAG: [u8; 8] = *b"ENCPTYP1";
/// The tag that starts a packed result's payload.
pub const PACKED_TAG: [u8; 8] = *b"ENCPACK1";
/// The tag that starts a byte-processor uplink's payload (a program's encrypted inputs).
pub const INPUTS_TAG: [u8; 8] = *b"ENCASMI1";
/// The tag that starts a byte-processor downlink's payload (a program's encrypted
/// outputs).
pub const OUTPUTS_TAG: [u8; 8] = *b"ENCASMO1";

/// The tags of the payloads read as a typed value: canonical or lazy, radix-4, seeded and
/// public-key.
pub(crate) const TYPED_TAGS: [[u8; 8]; 4] = [
    TYPED_TAG,
    TYPED_RADIX4_TAG,
    SEEDED_TYPED_TAG,
    PUBLIC_TYPED_TAG,
];

/// Bytes that suffice to identify any envelope: the fixed header, the longest parameter id
/// and the first fields of the payload. Read this much of a file before deciding to read
/// all of it.
pub const IDENTIFY_LEN: usize = 13 + u16::MAX as usize + 64;

/// What an envelope holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Content {
    /// A client key: secret, never given to a server.
    ClientKey,
    /// A server key.
    ServerKey,
    /// A server key with seeded masks (`keygen --compressed`).
    CompressedServerKey,
    /// The byte processor's tree key.
    TreeKey,
    /// A packing key (packed results, the byte processor's downlink).
    PackingKey,
    /// A public key.
    PublicKey,
    /// A bit-sliced FV client key (secret).
    FvClientKey,
    /// A bit-sliced FV server key.
    FvServerKey,
    /// Bit-sliced FV ciphertexts.
    FvWords,
    /// An exact integer (expanded, seeded or public-key encrypted).
    Int,
    /// A typed integer (expanded, seeded or public-key encrypted; an array of them too).
    Typed,
    /// Bits of an earlier release's `EncBits` (read as a typed integer).
    Bits,
    /// A packed result (`eval --packed`).
    Packed,
    /// A byte-processor program's encrypted inputs (the uplink).
    ProcessorInputs,
    /// A byte-processor program's encrypted outputs (the downlink).
    ProcessorOutputs,
    /// An earlier release's uplink: bare nibbles without the program's input signature.
    OldProcessorInputs,
    /// An earlier release's downlink: bare nibbles without the program's output signature.
    OldProcessorOutputs,
}

impl Content {
    /// The content's name in messages, with its article (`"a packing key"`).
    pub fn name(self) -> &'static str {
        match self {
            Content::ClientKey => "a client key (secret)",
            Content::ServerKey => "a server key",
            Content::CompressedServerKey => "a compressed server key",
            Content::TreeKey => "a tree key",
            Content::PackingKey => "a packing key",
            Content::PublicKey => "a public key",
            Content::FvClientKey => "a bit-sliced FV client key (secret)",
            Content::FvServerKey => "a bit-sliced FV server key",
            Content::FvWords => "bit-sliced FV ciphertexts",
            Content::Int => "an exact integer",
            Content::Typed => "a typed integer",
            Content::Bits => "a bit vector of an earlier release",
            Content::Packed => "a packed result",
            Content::ProcessorInputs => "a byte-processor program's encrypted inputs",
            Content::ProcessorOutputs => "a byte-processor program's encrypted result",
            Content::OldProcessorInputs => {
                "byte-processor inputs of an earlier release, without the program's input \
                 signature (encrypt them again with `encint asm encrypt`)"
            }
            Content::OldProcessorOutputs => {
                "a byte-processor result of an earlier release, without the program's \
                 output signature (run the program again)"
            }
        }
    }

    /// Whether the content is secret (a client key).
    pub fn is_secret(self) -> bool {
        matches!(self, Content::ClientKey | Content::FvClientKey)
    }

    /// Whether the content is an encrypted value that `eval` computes on and `decrypt`
    /// reads (an exact or typed integer, or bits of an earlier release).
    pub fn is_value(self) -> bool {
        matches!(self, Content::Int | Content::Typed | Content::Bits)
    }

    /// Whether the envelope is of the ciphertext kind (values, packed results, links, FV
    /// words), not a key.
    pub fn is_ciphertext(self) -> bool {
        !matches!(
            self,
            Content::ClientKey
                | Content::ServerKey
                | Content::CompressedServerKey
                | Content::TreeKey
                | Content::PackingKey
                | Content::PublicKey
                | Content::FvClientKey
                | Content::FvServerKey
        )
    }
}

/// What the envelope `bytes` holds (its first [`IDENTIFY_LEN`] bytes suffice). Errors only
/// when the bytes are no envelope (bad magic, a truncated header, another format version,
/// an unknown kind). Never panics.
pub fn identify(bytes: &[u8]) -> Result<Content, EnvelopeError> {
    let (header, payload) = envelope::read_header(bytes)?;
    if header.params_id.starts_with("fv-bits/") {
        return Ok(match header.kind {
            Kind::ClientKey => Content::FvClientKey,
            Kind::Ciphertext => Content::FvWords,
            _ => Content::FvServerKey,
        });
    }
    Ok(match encint_tfhe::key_kind(bytes)? {
        Kind::ClientKey => Content::ClientKey,
        Kind::ServerKey if encint_tfhe::compressed::is_compressed_server_key(bytes) => {
            Content::CompressedServerKey
        }
        Kind::ServerKey => Content::ServerKey,
        Kind::TreeKey => Content::TreeKey,
        Kind::PackingKey => Content::PackingKey,
        Kind::PublicKey => Content::PublicKey,
        Kind::Ciphertext => ciphertext(payload),
    })
}

/// The content of a ciphertext payload.
fn ciphertext(payload: &[u8]) -> Content {
    let tag: Option<[u8; 8]> = payload.get(..8).and_then(|t| t.try_into().ok());
    match tag {
        Some(t) if t == SEEDED_INT_TAG || t == PUBLIC_INT_TAG => Content::Int,
        Some(t) if TYPED_TAGS.contains(&t) => Content::Typed,
        Some(t) if t == BITS_TAG => Content::Bits,
        Some(t) if t == PACKED_TAG => Content::Packed,
        Some(t) if t == INPUTS_TAG => Content::ProcessorInputs,
        Some(t) if t == OUTPUTS_TAG => Content::ProcessorOutputs,
        _ => untagged(payload),
    }
}

/// An untagged payload: an exact integer (`key_set`, the digit count, then the first
/// digit's coefficient count 2049 at byte 24), or the bare nibbles of an earlier
/// release's link: seeded (`key_set`, a 128-bit seed, the LWE dimension 2048 at byte 32)
/// or packed (`key_set`, the count, the GLWE dimension 1 at byte 24 and the polynomial
/// size 2048 at byte 32).
fn untagged(payload: &[u8]) -> Content {
    let word = |at: usize| {
        payload
            .get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
    };
    let big_dimensions = [
        encint_tfhe::DEFAULT_PARAMETERS.big_lwe_dimension().0 as u64,
        encint_tfhe::KS64_PARAMETERS.big_lwe_dimension().0 as u64,
    ];
    let digit_len = big_dimensions.map(|d| d + 1);
    match (word(24), word(32)) {
        (Some(1), Some(2048)) => Content::OldProcessorOutputs,
        (Some(a), Some(n)) if big_dimensions.contains(&n) && !digit_len.contains(&a) => {
            Content::OldProcessorInputs
        }
        _ => Content::Int,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use encint_tfhe::DEFAULT_PARAMETERS;

    fn sealed(kind: Kind, payload: &[u8]) -> Vec<u8> {
        let mut b = envelope::seal(kind, DEFAULT_PARAMETERS.id(), &()).unwrap();
        b.extend_from_slice(payload);
        b
    }

    /// A payload of 48 bytes with `w24` and `w32` at bytes 24 and 32.
    fn fields(w24: u64, w32: u64) -> Vec<u8> {
        let mut p = vec![9u8; 48];
        p[24..32].copy_from_slice(&w24.to_le_bytes());
        p[32..40].copy_from_slice(&w32.to_le_bytes());
        p
    }

    #[test]
    fn every_tag_and_kind_is_named() {
        let id = |kind, payload: &[u8]| identify(&sealed(kind, payload)).unwrap();
        assert_eq!(id(Kind::ClientKey, &[]), Content::ClientKey);
        assert_eq!(id(Kind::PublicKey, &[]), Content::PublicKey);
        assert_eq!(id(Kind::TreeKey, &[]), Content::TreeKey);
        assert_eq!(id(Kind::PackingKey, &[]), Content::PackingKey);
        assert_eq!(id(Kind::ServerKey, &[]), Content::ServerKey);
        for (tag, want) in [
            (TYPED_TAG, Content::Typed),
            (TYPED_RADIX4_TAG, Content::Typed),
            (SEEDED_TYPED_TAG, Content::Typed),
            (PUBLIC_TYPED_TAG, Content::Typed),
            (SEEDED_INT_TAG, Content::Int),
            (PUBLIC_INT_TAG, Content::Int),
            (BITS_TAG, Content::Bits),
            (PACKED_TAG, Content::Packed),
            (INPUTS_TAG, Content::ProcessorInputs),
            (OUTPUTS_TAG, Content::ProcessorOutputs),
        ] {
            assert_eq!(id(Kind::Ciphertext, &tag), want, "{tag:?}");
        }
        // Untagged: an exact integer's first digit has 2049 coefficients.
        assert_eq!(id(Kind::Ciphertext, &fields(2049, 12345)), Content::Int);
        assert_eq!(id(Kind::Ciphertext, &[]), Content::Int);
        assert_eq!(
            id(Kind::Ciphertext, &fields(77, 2048)),
            Content::OldProcessorInputs
        );
        assert_eq!(
            id(Kind::Ciphertext, &fields(1, 2048)),
            Content::OldProcessorOutputs
        );
        let fv = envelope::seal(Kind::Ciphertext, "fv-bits/A", &()).unwrap();
        assert_eq!(identify(&fv).unwrap(), Content::FvWords);
        assert!(identify(b"not an envelope").is_err());
        assert!(Content::ClientKey.is_secret() && !Content::ServerKey.is_secret());
        assert!(Content::Typed.is_value() && !Content::Packed.is_value());
        assert!(Content::Packed.is_ciphertext() && !Content::TreeKey.is_ciphertext());
    }
}
