//! Public-key encryption (`encint::io::public`) on real keys: a party holding only the public
//! key's bytes encrypts values of the typed family, exact integers and arrays; the server
//! expands them and computes, and the client decrypts the plain integers they came from.
//! Also the sizes against the goal, and the errors: another key set, truncated or altered
//! bytes, a public-key file read as another form.

use std::sync::OnceLock;

use encint::fhe::{FheArray, FheInteger, FheType};
use encint::io::public::{
    encrypt_array_public, encrypt_typed_public_as, CompactDigits, PublicArray, PublicTyped,
};
use encint::io::seeded::Seeded;
use encint::{
    FheBool, FheUint16, FheUint8, PublicInt, PublicKey, PublicKeyFile, SeededInt,
    DEFAULT_PARAMETERS,
};
use rand::{Rng, SeedableRng};

mod uploads;

use uploads::{keys, Bytes};

/// The public key's file: all an encrypting party holds.
fn public_key_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| keys().client.public_key().to_bytes().unwrap())
}

/// The public key as a party without the client key has it: read from its file.
fn pk() -> PublicKey {
    PublicKey::from_bytes(public_key_bytes()).unwrap()
}

/// `v` encrypted with the public key as a `FheInteger<N, S>`, through its bytes and the
/// family's reader, decrypts to itself.
fn typed_round_trip<const N: usize, const S: bool, C>(v: C, pk: &PublicKey)
where
    C: encint::fhe::Clear + PartialEq + std::fmt::Debug,
{
    let bytes = FheInteger::<N, S>::encrypt_public(v, pk)
        .unwrap()
        .to_bytes(&DEFAULT_PARAMETERS)
        .unwrap();
    let x = FheInteger::<N, S>::from_bytes(&bytes).unwrap();
    assert_eq!(x.decrypt::<C>(&keys().client).unwrap(), v);
}

fn rng(seed: u64) -> rand::rngs::StdRng {
    rand::rngs::StdRng::seed_from_u64(seed)
}

#[test]
fn typed_values_round_trip_through_public_key_bytes() {
    let k = keys();
    let p = DEFAULT_PARAMETERS;
    let pk = pk();
    assert_eq!(pk.key_set(), k.client.key_set());
    let mut r = rng(1);
    for _ in 0..3 {
        let (a, b, c, d) = (
            r.r#gen::<u8>(),
            r.r#gen::<u16>(),
            r.r#gen::<i32>(),
            r.r#gen::<u64>(),
        );
        let bytes = FheUint8::encrypt_public(a, &pk).bytes();
        let x: FheUint8 = uploads::expand_own::<_, CompactDigits>(&bytes, &k.key);
        assert_eq!(x.decrypt::<u8>(&k.client).unwrap(), a);
        // The family's ordinary reader takes the public-key file too.
        typed_round_trip::<16, false, _>(b, &pk);
        typed_round_trip::<32, true, _>(c, &pk);
        typed_round_trip::<64, false, _>(d, &pk);
    }
    uploads::booleans_round_trip(
        &k.client,
        |v| FheBool::encrypt_public(v, &pk),
        &[true, false, true],
        |vs| FheArray::<FheBool>::encrypt_public(vs, &[vs.len()], &pk),
    );
    assert!(FheUint8::encrypt_public(256u32, &pk).is_err());
    uploads::typed_forms(
        &k.client,
        |v, ty, form| encrypt_typed_public_as(&pk, v, ty, form)?.to_bytes(&p),
        |_| {},
    );
}

#[test]
fn public_key_values_compute_like_plain_integers() {
    let k = keys();
    let pk = pk();
    uploads::computes_like_plain(&k.client, &k.server, |v| FheUint16::encrypt_public(v, &pk));
}

#[test]
fn exact_integers_round_trip_and_multiply() {
    let k = keys();
    let pk = pk();
    uploads::exact_integers(&k.client, &k.server, &k.key, |v, digits| {
        PublicInt::encrypt(&pk, v, digits)
    });
}

#[test]
fn arrays_round_trip_in_one_compact_list() {
    let k = keys();
    let p = DEFAULT_PARAMETERS;
    let pk = pk();
    let mut r = rng(3);
    let values: Vec<u16> = (0..64).map(|_| r.r#gen()).collect();
    let s = FheArray::<FheUint16>::encrypt_public(&values, &[8, 8], &pk).unwrap();
    let bytes = s.to_bytes(&p).unwrap();
    // TFHE-rs 1.8.2's CompactCiphertextList of 64 u16 is 21,344 bytes.
    assert!(
        bytes.len() <= 21_344,
        "64 u16 under the public key in {} bytes",
        bytes.len()
    );
    let arr = PublicArray::<FheUint16>::from_bytes(&bytes)
        .unwrap()
        .expand_for(&k.key)
        .unwrap();
    assert_eq!(arr.shape(), &[8, 8]);
    assert_eq!(arr.decrypt::<u16>(&k.client).unwrap(), values);

    uploads::typed_array(
        &k.client,
        |vs, shape, ty, form| encrypt_array_public(&pk, vs, shape, ty, form)?.to_bytes(&p),
        |b| PublicTyped::from_bytes(b).unwrap().expand().unwrap(),
    );
}

#[test]
fn another_key_set_and_damaged_bytes_are_typed_errors() {
    let k = keys();
    let other_pk = k.other_client.public_key();
    uploads::other_key_set(
        k,
        FheUint16::encrypt_public(7u16, &other_pk).unwrap(),
        PublicInt::encrypt(&other_pk, 3, 4).unwrap(),
    );

    // The public key's file: truncated or altered is an error; it is not a ciphertext.
    let pkb = public_key_bytes();
    for cut in [0, 5, 13, 100, pkb.len() / 2, pkb.len() - 1] {
        assert!(PublicKey::from_bytes(&pkb[..cut]).is_err(), "cut {cut}");
    }
    let mut longer = pkb.to_vec();
    longer.push(0);
    assert!(PublicKey::from_bytes(&longer).is_err());
    assert!(FheUint16::from_bytes(pkb).is_err());

    // Public-key values truncated, altered or read as another form, type or kind.
    let pk = pk();
    let typed = FheUint16::encrypt_public(40000u16, &pk).bytes();
    let int = PublicInt::encrypt(&pk, -5, 4).bytes();
    let array = FheArray::<FheUint8>::encrypt_public(&[1u8, 2, 3], &[3], &pk).bytes();
    uploads::damaged_bytes::<CompactDigits>(&typed, &int, &array);
    assert!(Seeded::<FheUint16>::from_bytes(&typed).is_err());
    assert!(SeededInt::from_bytes(&int).is_err());
}
