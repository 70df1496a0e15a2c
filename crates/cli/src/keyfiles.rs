//! Reading keys and ciphertexts from envelope files, with the envelope's size limit checked
//! before reading and the path named in every error.

use std::path::Path;

use encint::keys::envelope::{self, Kind};
use encint::{ClientKey, EncInt, ServerKey};
use zeroize::Zeroizing;

use crate::AnyResult;

/// Reads an envelope file of the given kind, refusing files larger than the envelope's
/// own limit ([`envelope::max_len`]) before reading them.
pub fn read_envelope(path: &Path, kind: Kind) -> AnyResult<Vec<u8>> {
    Ok(encint::files::read_bounded(path, envelope::max_len(kind))?)
}

/// Opens an envelope read from `path`, naming the path in errors.
fn open_at<T: serde::de::DeserializeOwned + encint::keys::Validate>(
    path: &Path,
    bytes: &[u8],
    kind: Kind,
) -> AnyResult<T> {
    envelope::open_known(bytes, kind).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// Loads a client key file (the buffer that held the key's bytes is zeroized).
pub fn load_client(path: &Path) -> AnyResult<ClientKey> {
    let bytes = Zeroizing::new(read_envelope(path, Kind::ClientKey)?);
    open_at(path, &bytes, Kind::ClientKey)
}

/// Loads a server key file, ordinary or compressed (`keygen --compressed`: the masks are
/// regenerated from their seeds on load).
pub fn load_server(path: &Path) -> AnyResult<ServerKey> {
    let bytes = read_envelope(path, Kind::ServerKey)?;
    encint::keys::open_server_key(&bytes).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// Loads a public key file (`keygen`'s public.key).
pub fn load_public(path: &Path) -> AnyResult<encint::PublicKey> {
    let bytes = read_envelope(path, Kind::PublicKey)?;
    open_at(path, &bytes, Kind::PublicKey)
}

/// Loads a packing key file (`encint packing-key`, or `asm keygen`'s packing.key; also one
/// an earlier release wrote with the server-key kind).
pub fn load_packing(path: &Path) -> AnyResult<encint::keys::PackingKey> {
    let bytes = read_envelope(path, Kind::PackingKey)?;
    encint::keys::open_packing_key(&bytes).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// Loads an exact integer's ciphertext file, expanded or seeded (the masks of a seeded one
/// are regenerated from its seed).
pub fn load_ct(path: &Path) -> AnyResult<EncInt> {
    let bytes = read_envelope(path, Kind::Ciphertext)?;
    EncInt::from_bytes_known(&bytes).map_err(|e| format!("{}: {e}", path.display()).into())
}
