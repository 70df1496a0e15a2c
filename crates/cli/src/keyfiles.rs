//! Reading keys and ciphertexts from envelope files: what a file holds is checked from its
//! first bytes before it is read whole ([`expect`]: a packing key given as `--server-key`
//! is named, never decoded as a damaged server key, and a client key is never read as a
//! server-side input), the envelope's size limit is checked before reading, and the path
//! is named in every error.

use std::io::Read;
use std::path::Path;

use encint::io::contents::{identify, Content, IDENTIFY_LEN};
use encint::keys::envelope::{self, Kind};
use encint::{ClientKey, EncInt, ServerKey};
use zeroize::Zeroizing;

use crate::error::{file, CliError};
use crate::AnyResult;

/// What `--key` takes.
pub const CLIENT_KEY: &[Content] = &[Content::ClientKey];
/// What `--server-key` takes.
pub const SERVER_KEY: &[Content] = &[Content::ServerKey, Content::CompressedServerKey];
/// What `--public-key` takes.
pub const PUBLIC_KEY: &[Content] = &[Content::PublicKey];
/// What `--packed` and a byte-processor key directory's packing.key take.
pub const PACKING_KEY: &[Content] = &[Content::PackingKey];
/// What a byte-processor key directory's tree.key takes.
pub const TREE_KEY: &[Content] = &[Content::TreeKey];
/// What `eval` computes on.
pub const VALUES: &[Content] = &[Content::Int, Content::Typed, Content::Bits];
/// What `decrypt` reads.
pub const RESULTS: &[Content] = &[Content::Int, Content::Typed, Content::Bits, Content::Packed];

/// What the envelope file `path` holds, from its first bytes (the file is not read whole).
pub fn content(path: &Path) -> AnyResult<Content> {
    let f = std::fs::File::open(path).map_err(|e| file(path, format!("cannot read: {e}")))?;
    let mut head = Vec::with_capacity(4096);
    f.take(IDENTIFY_LEN as u64)
        .read_to_end(&mut head)
        .map_err(|e| file(path, format!("cannot read: {e}")))?;
    identify(&head).map_err(|e| file(path, e))
}

/// Errors unless the file `path` holds one of `wants`, saying what it holds and what
/// `needs` (`"--key needs a client key"`) asked for; checked from the file's first bytes,
/// before anything is read whole.
pub fn expect(path: &Path, wants: &[Content], needs: &str) -> AnyResult<Content> {
    let found = content(path)?;
    if wants.contains(&found) {
        return Ok(found);
    }
    Err(file(
        path,
        format!("this file holds {}; {needs}", found.name()),
    ))
}

/// [`expect`] for a file the server reads: a secret key given there is refused with a
/// reminder that it stays with the client.
pub fn expect_server_side(path: &Path, wants: &[Content], needs: &str) -> AnyResult<Content> {
    expect(path, wants, needs).map_err(|e| match (e, content(path)) {
        (CliError::File { path, message }, Ok(found)) if found.is_secret() => CliError::File {
            path,
            message: format!("{message}; the client key never leaves the client"),
        },
        (e, _) => e,
    })
}

/// Reads an envelope file of the given kind, refusing files larger than the envelope's
/// own limit ([`envelope::max_len`]) before reading them.
pub fn read_envelope(path: &Path, kind: Kind) -> AnyResult<Vec<u8>> {
    Ok(encint::io::files::read_bounded(
        path,
        envelope::max_len(kind),
    )?)
}

/// Opens an envelope read from `path`, naming the path in errors.
fn open_at<T: serde::de::DeserializeOwned + encint::keys::Validate>(
    path: &Path,
    bytes: &[u8],
    kind: Kind,
) -> AnyResult<T> {
    envelope::open_known(bytes, kind).map_err(|e| file(path, e))
}

/// Loads a client key file (`--key`; the buffer that held the key's bytes is zeroized).
pub fn load_client(path: &Path) -> AnyResult<ClientKey> {
    expect(
        path,
        CLIENT_KEY,
        "--key needs a client key (client.key of `encint keygen`)",
    )?;
    let bytes = Zeroizing::new(read_envelope(path, Kind::ClientKey)?);
    open_at(path, &bytes, Kind::ClientKey)
}

/// The check of a `--server-key` file, before it is loaded.
pub fn expect_server(path: &Path) -> AnyResult<Content> {
    expect_server_side(
        path,
        SERVER_KEY,
        "--server-key needs a server key (server.key of `encint keygen`)",
    )
}

/// Loads a server key file, ordinary or compressed (`keygen --compressed`: the masks are
/// regenerated from their seeds on load).
pub fn load_server(path: &Path) -> AnyResult<ServerKey> {
    expect_server(path)?;
    let bytes = read_envelope(path, Kind::ServerKey)?;
    encint::keys::open_server_key(&bytes).map_err(|e| file(path, e))
}

/// Loads a public key file (`--public-key`: `keygen`'s public.key).
pub fn load_public(path: &Path) -> AnyResult<encint::PublicKey> {
    expect(
        path,
        PUBLIC_KEY,
        "--public-key needs a public key (public.key of `encint keygen`)",
    )?;
    let bytes = read_envelope(path, Kind::PublicKey)?;
    open_at(path, &bytes, Kind::PublicKey)
}

/// Loads a packing key file (`--packed`: `encint packing-key`, or `asm keygen`'s
/// packing.key; also one an earlier release wrote with the server-key kind).
pub fn load_packing(path: &Path) -> AnyResult<encint::keys::PackingKey> {
    expect_server_side(
        path,
        PACKING_KEY,
        "--packed needs a packing key (`encint packing-key`)",
    )?;
    let bytes = read_envelope(path, Kind::PackingKey)?;
    encint::keys::open_packing_key(&bytes).map_err(|e| file(path, e))
}

/// Loads an exact integer's ciphertext file, expanded or seeded (the masks of a seeded one
/// are regenerated from its seed).
pub fn load_ct(path: &Path) -> AnyResult<EncInt> {
    let bytes = read_envelope(path, Kind::Ciphertext)?;
    EncInt::from_bytes_known(&bytes).map_err(|e| file(path, e))
}
