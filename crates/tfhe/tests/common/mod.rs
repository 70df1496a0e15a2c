//! Keys shared by the integration tests of this crate, each generated once per test binary.
#![allow(dead_code)]

use std::sync::OnceLock;

use encint_tfhe::io::{IoError, PackingKey, Upload};
use encint_tfhe::{ClientKey, Digit, PublicKey, ServerKey, TfheError, TreeKey, DEFAULT_PARAMETERS};

/// A client key of the default parameters, its server key and a key derived from it.
pub struct Keys<K> {
    pub ck: ClientKey,
    pub sk: ServerKey,
    pub pk: K,
}

/// The keys of `seed` with `derive(client key)` as `pk`, generated once into `cell`.
fn keys<K: Send + Sync>(
    cell: &'static OnceLock<Keys<K>>,
    seed: u128,
    derive: impl FnOnce(&ClientKey) -> K,
) -> &'static Keys<K> {
    cell.get_or_init(|| {
        let (ck, sk) = ClientKey::generate_seeded(&DEFAULT_PARAMETERS, seed);
        let pk = derive(&ck);
        Keys { ck, sk, pk }
    })
}

/// Keys of seed 2024 with their packing key.
pub fn packing_keys() -> &'static Keys<PackingKey> {
    static KEYS: OnceLock<Keys<PackingKey>> = OnceLock::new();
    keys(&KEYS, 2024, PackingKey::generate)
}

/// Keys of seed 4242 with their public key.
pub fn public_keys() -> &'static Keys<PublicKey> {
    static KEYS: OnceLock<Keys<PublicKey>> = OnceLock::new();
    keys(&KEYS, 4242, ClientKey::public_key)
}

/// Keys of `seed` with their tree key of `tree_seed` (client, server, tree), generated
/// once per test binary: the seeds of its first call.
pub fn tree_keys(
    seed: u128,
    tree_seed: u128,
) -> (&'static ClientKey, &'static ServerKey, &'static TreeKey) {
    static KEYS: OnceLock<Keys<TreeKey>> = OnceLock::new();
    let k = keys(&KEYS, seed, |ck| TreeKey::generate_seeded(ck, tree_seed));
    (&k.ck, &k.sk, &k.pk)
}

/// The ordinary digits of an upload (seeded or public-key), as its receiver expands them;
/// the encryption and the expansion must succeed.
pub fn expanded<U: Upload>(upload: Result<U, TfheError>) -> Vec<Digit> {
    upload.unwrap().expand().unwrap()
}

/// An upload of `n` digits under the keys `theirs` (client, server), through its
/// `expand_for`: the server key `sk` of another key set refuses to expand it
/// ([`IoError::KeySetMismatch`]), its own expands it.
pub fn assert_only_its_key_set_expands(
    expand_for: impl Fn(&ServerKey) -> Result<Vec<Digit>, TfheError>,
    sk: &ServerKey,
    theirs: (&ClientKey, &ServerKey),
    n: usize,
) {
    assert_eq!(
        expand_for(sk).unwrap_err(),
        TfheError::Io(IoError::KeySetMismatch {
            expected: sk.key_set(),
            found: theirs.0.key_set()
        })
    );
    assert_eq!(expand_for(theirs.1).unwrap().len(), n);
}
