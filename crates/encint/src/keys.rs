//! The TFHE layer (the `encint-tfhe` crate through the facade): parameter sets, the client
//! key and the server-side keys, digit ciphertexts and the tables a server key bootstraps
//! them with, the byte processor's compressed links, and the checked [`envelope`] format
//! every key and ciphertext file is stored in.
//!
//! The most used of these are also at the crate root ([`crate::ClientKey`],
//! [`crate::ServerKey`], [`crate::KeySetId`], [`crate::DEFAULT_PARAMETERS`],
//! [`crate::KS64_PARAMETERS`]).
//!
//! ```no_run
//! use encint::keys::envelope::{self, Kind};
//! use encint::keys::{ClientKey, ServerKey, DEFAULT_PARAMETERS};
//!
//! let (client, server) = ClientKey::generate(&DEFAULT_PARAMETERS);
//! let id = DEFAULT_PARAMETERS.id();
//! let bytes = envelope::seal(Kind::ServerKey, id, &server).unwrap();
//! let back: ServerKey = envelope::open(&bytes, Kind::ServerKey, id).unwrap();
//! assert_eq!(back.key_set(), client.key_set());
//! ```

pub use encint_tfhe::{
    key_kind, open_packing_key, open_server_key, open_tree_key, retain_freed_memory,
    seal_packing_key, seal_tree_key, ClientKey, CompactDigits, CompressedServerKey, Digit,
    DigitParameters, EnvelopeError, IoError, KeySetId, Keyswitch, NegacyclicLut, PackedNibbles,
    PackingKey, PublicKey, SeededDigits, SeededNibbles, ServerKey, TfheError, TreeKey, Upload,
    Validate, DEFAULT_PARAMETERS, KS64_PARAMETERS,
};

/// Versioned, checked envelopes: a header (magic, format version, [`envelope::Kind`], key
/// set) before the serialized value, sealed by [`envelope::seal`] and opened and validated
/// by [`envelope::open`].
pub use encint_tfhe::envelope;
