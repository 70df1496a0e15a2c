//! Keys shared by the integration tests of this crate.

use std::sync::OnceLock;

use encint_tfhe::{ClientKey, ServerKey, DEFAULT_PARAMETERS};

/// A client key of the default parameters, its server key and a key derived from it.
pub struct Keys<K> {
    pub ck: ClientKey,
    pub sk: ServerKey,
    pub pk: K,
}

/// The keys of `seed` with `derive(client key)` as `pk`, generated once into `cell`.
pub fn keys<K: Send + Sync>(
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
