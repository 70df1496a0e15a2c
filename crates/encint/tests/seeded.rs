//! Seeded uploads (`encint::io::seeded`) and compressed server keys on real keys: values of
//! the typed family, exact integers and arrays go through their seeded bytes, expand on
//! the server side and decrypt to the plain integers they came from, with the noise of a
//! fresh encryption; operations on expanded values agree with Rust's arithmetic. Also the
//! sizes against the goals, and the errors: another key set, truncated or altered bytes,
//! another type, an array read as one value.

use std::sync::Arc;

use encint::fhe::{FheArray, FheType};
use encint::io::seeded::{encrypt_array_seeded, encrypt_typed_seeded, SeededArray};
use encint::keys::{open_server_key, CompressedServerKey, SeededDigits};
use encint::typed::{EncTyped, IntType};
use encint::{
    set_server, ClientKey, Error, FheBool, FheInt8, FheUint16, FheUint64, FheUint8, SeededInt,
    SeededTyped, Server, DEFAULT_PARAMETERS,
};
use rand::{Rng, SeedableRng};

mod uploads;

use uploads::{keys, Bytes};

fn rng(seed: u64) -> rand::rngs::StdRng {
    rand::rngs::StdRng::seed_from_u64(seed)
}

/// Every digit of `x` decrypts with the noise of a fresh encryption (GLWE distribution,
/// σ ≈ 2^-47.8; a bootstrap output has σ ≈ 2^-15.7).
fn fresh_noise(client: &ClientKey, x: &EncTyped) {
    for d in x.as_int().digits() {
        let m = client.decrypt_digit(d);
        let e = client.phase_error(d, m).abs();
        assert!(e < 2f64.powi(-40), "phase error {e}");
    }
}

#[test]
fn typed_values_round_trip_through_seeded_bytes() {
    let k = keys();
    let p = DEFAULT_PARAMETERS;
    let mut r = rng(1);
    for _ in 0..4 {
        let (a, b, c, d) = (
            r.r#gen::<u8>(),
            r.r#gen::<u16>(),
            r.r#gen::<i8>(),
            r.r#gen::<u64>(),
        );
        let bytes = FheUint8::encrypt_seeded(a, &k.client).bytes();
        let x: FheUint8 = uploads::expand_own::<_, SeededDigits>(&bytes, &k.key);
        assert_eq!(x.decrypt::<u8>(&k.client).unwrap(), a);
        fresh_noise(&k.client, x.as_typed().unwrap());

        // The family's ordinary reader takes the seeded file too.
        let bytes = FheUint16::encrypt_seeded(b, &k.client).bytes();
        assert!(bytes.len() <= 980, "a u16 upload of {} bytes", bytes.len());
        let y = FheUint16::from_bytes(&bytes).unwrap();
        assert_eq!(y.decrypt::<u16>(&k.client).unwrap(), b);

        let z = FheInt8::from_bytes(&FheInt8::encrypt_seeded(c, &k.client).bytes()).unwrap();
        assert_eq!(z.decrypt::<i8>(&k.client).unwrap(), c);

        let w = FheUint64::from_bytes(&FheUint64::encrypt_seeded(d, &k.client).bytes()).unwrap();
        assert_eq!(w.decrypt::<u64>(&k.client).unwrap(), d);
    }
    uploads::booleans_round_trip(
        &k.client,
        |v| FheBool::encrypt_seeded(v, &k.client),
        &[true, false, false, true, true],
        |vs| FheArray::<FheBool>::encrypt_seeded(vs, &[vs.len()], &k.client),
    );
    // Radix-4 and signed odd widths through the typed layer.
    uploads::typed_forms(
        &k.client,
        |v, ty, form| {
            encint::io::seeded::encrypt_typed_seeded_as(&k.client, v, ty, form)?.to_bytes(&p)
        },
        |x| fresh_noise(&k.client, x),
    );
}

#[test]
fn expanded_values_compute_like_plain_integers() {
    let k = keys();
    uploads::computes_like_plain(&k.client, &k.server, |v| {
        FheUint16::encrypt_seeded(v, &k.client)
    });
}

#[test]
fn exact_integers_round_trip_and_multiply() {
    let k = keys();
    uploads::exact_integers(&k.client, &k.server, &k.key, |v, digits| {
        SeededInt::encrypt(&k.client, v, digits)
    });
}

#[test]
fn arrays_round_trip_under_one_seed() {
    let k = keys();
    let p = DEFAULT_PARAMETERS;
    let mut r = rng(3);
    let values: Vec<u16> = (0..64).map(|_| r.r#gen()).collect();
    let s = FheArray::<FheUint16>::encrypt_seeded(&values, &[8, 8], &k.client).unwrap();
    let bytes = s.to_bytes(&p).unwrap();
    assert!(
        bytes.len() <= 21_300,
        "64 u16 uploaded in {} bytes",
        bytes.len()
    );
    let back = SeededArray::<FheUint16>::from_bytes(&bytes).unwrap();
    assert_eq!(back.as_typed().shape(), &[8, 8]);
    let arr = back.expand_for(&k.key).unwrap();
    assert_eq!(arr.shape(), &[8, 8]);
    assert_eq!(arr.decrypt::<u16>(&k.client).unwrap(), values);

    // The typed layer: an array of radix-4 i7 values, expanded in order.
    uploads::typed_array(
        &k.client,
        |vs, shape, ty, form| {
            let s = encrypt_array_seeded(&k.client, vs, shape, ty, form)?;
            assert_eq!(s.digit_count(), vs.len() * form.digits(ty));
            s.to_bytes(&p)
        },
        |b| SeededTyped::from_bytes(b).unwrap().expand().unwrap(),
    );
}

#[test]
fn seeded_bytes_are_far_smaller_than_expanded_ones() {
    let k = keys();
    let p = DEFAULT_PARAMETERS;
    for bits in [8usize, 16, 32, 64] {
        let ty = IntType::new(bits, false).unwrap();
        let seeded = encrypt_typed_seeded(&k.client, 5, ty)
            .unwrap()
            .to_bytes(&p)
            .unwrap()
            .len();
        let expanded = encint::typed::encrypt_typed(&k.client, 5, ty)
            .unwrap()
            .to_bytes(&p)
            .unwrap()
            .len();
        // Eight bytes per digit beside 2049 words, plus a header of under 250 bytes.
        assert!(seeded <= 8 * bits + 250, "u{bits}: {seeded} bytes");
        assert!(expanded > 16_000 * bits, "u{bits}: {expanded} bytes");
    }
}

#[test]
fn another_key_set_is_a_typed_error() {
    let k = keys();
    // Read without a check it expands, and then the client key and the server refuse it.
    let x = uploads::other_key_set(
        k,
        FheUint16::encrypt_seeded(7u16, &k.other_client).unwrap(),
        SeededInt::encrypt(&k.other_client, 3, 4).unwrap(),
    );
    let mine = FheUint16::encrypt(1u16, &k.client).unwrap();
    set_server(k.server.clone());
    assert!(matches!(
        x.try_binary(encint::typed::Op::Add, &mine),
        Err(Error::KeySetMismatch { .. })
    ));
    let a = FheArray::<FheUint8>::encrypt_seeded(&[1u8, 2], &[2], &k.other_client).unwrap();
    assert!(matches!(
        a.expand_for(&k.key),
        Err(Error::KeySetMismatch { .. })
    ));
}

#[test]
fn truncated_altered_or_mistyped_bytes_are_errors() {
    let k = keys();
    let p = DEFAULT_PARAMETERS;
    let typed = FheUint16::encrypt_seeded(40000u16, &k.client).bytes();
    let int = SeededInt::encrypt(&k.client, -5, 4).bytes();
    let array = FheArray::<FheUint8>::encrypt_seeded(&[1u8, 2, 3], &[3], &k.client).bytes();
    uploads::damaged_bytes::<SeededDigits>(&typed, &int, &array);
    // The expanded form of the current release still loads.
    let old = encint::typed::encrypt_typed(&k.client, 300, IntType::new(16, false).unwrap())
        .unwrap()
        .to_bytes(&p)
        .unwrap();
    assert_eq!(
        FheUint16::from_bytes(&old)
            .unwrap()
            .decrypt::<u16>(&k.client)
            .unwrap(),
        300
    );
    assert!(SeededTyped::from_bytes(&old).is_err());
}

#[test]
fn compressed_server_key_bootstraps_like_the_ordinary_one() {
    let k = keys();
    let t = std::time::Instant::now();
    let compressed = CompressedServerKey::generate(&k.client);
    let generated = t.elapsed();
    let bytes = compressed.to_bytes().unwrap();
    assert!(
        bytes.len() <= 40_000_000,
        "compressed server key of {} bytes",
        bytes.len()
    );
    let t = std::time::Instant::now();
    let key = open_server_key(&bytes).unwrap();
    eprintln!(
        "compressed server key: {} bytes, generated in {:.1} s, loaded in {:.1} s",
        bytes.len(),
        generated.as_secs_f64(),
        t.elapsed().as_secs_f64()
    );
    assert_eq!(key.key_set(), k.client.key_set());
    let server = Arc::new(Server::new(key));
    set_server(server.clone());
    let mut r = rng(4);
    for _ in 0..2 {
        let (a, b) = (r.r#gen::<u8>(), r.r#gen::<u8>());
        let x = FheUint8::encrypt(a, &k.client).unwrap();
        let y = FheUint8::from_bytes(&FheUint8::encrypt_seeded(b, &k.client).bytes()).unwrap();
        assert_eq!(
            (&x * &y).decrypt::<u8>(&k.client).unwrap(),
            a.wrapping_mul(b)
        );
    }
    // A truncated key is an error, never a panic.
    for cut in [0, 10, 200, bytes.len() / 2, bytes.len() - 1] {
        assert!(open_server_key(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    // The ordinary form still loads through the same reader.
    let ordinary = encint::keys::envelope::seal(
        encint::keys::envelope::Kind::ServerKey,
        DEFAULT_PARAMETERS.id(),
        &k.other_key,
    )
    .unwrap();
    assert_eq!(
        open_server_key(&ordinary).unwrap().key_set(),
        k.other_client.key_set()
    );
}
