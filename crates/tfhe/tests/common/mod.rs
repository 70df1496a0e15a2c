//! Keys shared by the integration tests of this crate, each generated once per test binary.
#![allow(dead_code)]

use std::sync::OnceLock;

use encint_tfhe::io::PackingKey;
use encint_tfhe::{ClientKey, PublicKey, ServerKey, DEFAULT_PARAMETERS};

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
