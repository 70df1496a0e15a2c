//! Seeded uploads (`encint::seeded`) and compressed server keys on real keys: values of
//! the typed family, exact integers and arrays go through their seeded bytes, expand on
//! the server side and decrypt to the plain integers they came from, with the noise of a
//! fresh encryption; operations on expanded values agree with Rust's arithmetic. Also the
//! sizes against the goals, and the errors: another key set, truncated or altered bytes,
//! another type, an array read as one value.

use std::sync::{Arc, OnceLock};

use encint::fhe::{FheArray, FheType};
use encint::keys::{open_server_key, CompressedServerKey};
use encint::seeded::{encrypt_array_seeded, encrypt_typed_seeded, Seeded, SeededArray};
use encint::typed::{decrypt_typed, EncTyped, Form, IntType};
use encint::{
    set_server, ClientKey, EncInt, Error, FheBool, FheInt8, FheUint16, FheUint64, FheUint8,
    SeededInt, SeededTyped, Server, ServerKey, DEFAULT_PARAMETERS,
};
use rand::{Rng, SeedableRng};

struct Keys {
    client: ClientKey,
    key: ServerKey,
    server: Arc<Server>,
    /// Another key set's keys.
    other_client: ClientKey,
    other_key: ServerKey,
}

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        let (other_client, other_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        Keys {
            client,
            server: Arc::new(Server::new(key.clone())),
            key,
            other_client,
            other_key,
        }
    })
}

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
        let (a, b, c, d) = (r.gen::<u8>(), r.gen::<u16>(), r.gen::<i8>(), r.gen::<u64>());
        let bytes = FheUint8::encrypt_seeded(a, &k.client)
            .unwrap()
            .to_bytes(&p)
            .unwrap();
        let x = Seeded::<FheUint8>::from_bytes(&bytes)
            .unwrap()
            .expand_for(&k.key)
            .unwrap();
        assert_eq!(x.decrypt::<u8>(&k.client).unwrap(), a);
        fresh_noise(&k.client, x.as_typed().unwrap());

        // The family's ordinary reader takes the seeded file too.
        let bytes = FheUint16::encrypt_seeded(b, &k.client)
            .unwrap()
            .to_bytes(&p)
            .unwrap();
        assert!(bytes.len() <= 980, "a u16 upload of {} bytes", bytes.len());
        let y = FheUint16::from_bytes(&bytes).unwrap();
        assert_eq!(y.decrypt::<u16>(&k.client).unwrap(), b);

        let bytes = FheInt8::encrypt_seeded(c, &k.client)
            .unwrap()
            .to_bytes(&p)
            .unwrap();
        let z = FheInt8::from_bytes(&bytes).unwrap();
        assert_eq!(z.decrypt::<i8>(&k.client).unwrap(), c);

        let w = FheUint64::from_bytes(
            &FheUint64::encrypt_seeded(d, &k.client)
                .unwrap()
                .to_bytes(&p)
                .unwrap(),
        )
        .unwrap();
        assert_eq!(w.decrypt::<u64>(&k.client).unwrap(), d);
    }
    for v in [false, true] {
        let bytes = FheBool::encrypt_seeded(v, &k.client)
            .unwrap()
            .to_bytes(&p)
            .unwrap();
        assert_eq!(
            FheBool::from_bytes(&bytes)
                .unwrap()
                .decrypt(&k.client)
                .unwrap(),
            v
        );
    }
    // Radix-4 and signed odd widths through the typed layer.
    let i13 = IntType::new(13, true).unwrap();
    for (v, form) in [
        (-4096i128, Form::Radix4),
        (4095, Form::Canonical),
        (-1, Form::Lazy),
    ] {
        let s = encint::seeded::encrypt_typed_seeded_as(&k.client, v, i13, form).unwrap();
        let x = EncTyped::from_bytes(&s.to_bytes(&p).unwrap()).unwrap();
        assert_eq!((x.ty(), x.form()), (i13, form));
        assert_eq!(decrypt_typed(&k.client, &x).unwrap(), v);
        fresh_noise(&k.client, &x);
    }
}

#[test]
fn expanded_values_compute_like_plain_integers() {
    let k = keys();
    set_server(k.server.clone());
    let p = DEFAULT_PARAMETERS;
    let mut r = rng(2);
    let (a, b) = (r.gen::<u16>(), r.gen::<u16>());
    let up = |v: u16| {
        FheUint16::encrypt_seeded(v, &k.client)
            .unwrap()
            .to_bytes(&p)
            .unwrap()
    };
    let x = FheUint16::from_bytes(&up(a)).unwrap();
    let y = FheUint16::from_bytes(&up(b)).unwrap();
    // An expanded value and an ordinary encryption mix freely.
    let z = FheUint16::encrypt(b, &k.client).unwrap();
    assert_eq!(
        (&x + &y).decrypt::<u16>(&k.client).unwrap(),
        a.wrapping_add(b)
    );
    assert_eq!(
        (&x * &z).decrypt::<u16>(&k.client).unwrap(),
        a.wrapping_mul(b)
    );
    assert_eq!(x.lt(&y).decrypt(&k.client).unwrap(), a < b);
}

#[test]
fn exact_integers_round_trip_and_multiply() {
    let k = keys();
    let p = DEFAULT_PARAMETERS;
    for (v, digits) in [
        (-1234i128, 12usize),
        (0, 1),
        (4095, 12),
        (-(1 << 40) + 7, 41),
    ] {
        let s = SeededInt::encrypt(&k.client, v, digits).unwrap();
        assert_eq!(s.len(), digits);
        let bytes = s.to_bytes(&p).unwrap();
        // Both readers of exact integers take the seeded file.
        let x = EncInt::from_bytes(&bytes, &p).unwrap();
        assert_eq!(x.len(), digits);
        assert_eq!(encint::decrypt(&k.client, &x).unwrap(), v);
        let y = EncInt::from_bytes_known(&bytes).unwrap();
        assert_eq!(encint::decrypt(&k.client, &y).unwrap(), v);
        let z = SeededInt::from_bytes(&bytes)
            .unwrap()
            .expand_for(&k.key)
            .unwrap();
        assert_eq!(encint::decrypt(&k.client, &z).unwrap(), v);
    }
    assert!(SeededInt::encrypt(&k.client, 4096, 12).is_err());
    let a = EncInt::from_bytes(
        &SeededInt::encrypt(&k.client, -77, 8)
            .unwrap()
            .to_bytes(&p)
            .unwrap(),
        &p,
    )
    .unwrap();
    let b = encint::encrypt(&k.client, 93, 8).unwrap();
    let prod = k.server.mul(&a, &b).unwrap();
    assert_eq!(encint::decrypt(&k.client, &prod).unwrap(), -77 * 93);
}

#[test]
fn arrays_round_trip_under_one_seed() {
    let k = keys();
    let p = DEFAULT_PARAMETERS;
    let mut r = rng(3);
    let values: Vec<u16> = (0..64).map(|_| r.gen()).collect();
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

    let bools = [true, false, false, true, true];
    let s = FheArray::<FheBool>::encrypt_seeded(&bools, &[5], &k.client).unwrap();
    let arr = SeededArray::<FheBool>::from_bytes(&s.to_bytes(&p).unwrap())
        .unwrap()
        .expand()
        .unwrap();
    assert_eq!(arr.decrypt(&k.client).unwrap(), bools);

    // The typed layer: an array of radix-4 i7 values, expanded in order.
    let i7 = IntType::new(7, true).unwrap();
    let vs = [-64i128, 63, 0, -1, 17, -30];
    let s = encrypt_array_seeded(&k.client, &vs, &[2, 3], i7, Form::Radix4).unwrap();
    assert_eq!((s.len(), s.digit_count()), (6, 6 * 4));
    let xs = SeededTyped::from_bytes(&s.to_bytes(&p).unwrap())
        .unwrap()
        .expand()
        .unwrap();
    let got: Vec<i128> = xs
        .iter()
        .map(|x| decrypt_typed(&k.client, x).unwrap())
        .collect();
    assert_eq!(got, vs);
    // A value outside the type, a count that does not match the shape.
    assert!(encrypt_array_seeded(&k.client, &[64], &[1], i7, Form::Canonical).is_err());
    assert!(encrypt_array_seeded(&k.client, &[1, 2], &[3], i7, Form::Canonical).is_err());
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
    let p = DEFAULT_PARAMETERS;
    let s = FheUint16::encrypt_seeded(7u16, &k.other_client).unwrap();
    assert!(matches!(
        s.expand_for(&k.key),
        Err(Error::KeySetMismatch { .. })
    ));
    let bytes = s.to_bytes(&p).unwrap();
    // Read without a check it expands, and then the client key and the server refuse it.
    let x = FheUint16::from_bytes(&bytes).unwrap();
    assert!(matches!(
        x.decrypt::<u16>(&k.client),
        Err(Error::WrongClientKey { .. })
    ));
    assert_eq!(x.decrypt::<u16>(&k.other_client).unwrap(), 7);
    let mine = FheUint16::encrypt(1u16, &k.client).unwrap();
    set_server(k.server.clone());
    assert!(matches!(
        x.try_binary(encint::typed::Op::Add, &mine),
        Err(Error::KeySetMismatch { .. })
    ));
    let i = SeededInt::encrypt(&k.other_client, 3, 4).unwrap();
    assert!(matches!(
        i.expand_for(&k.key),
        Err(Error::KeySetMismatch { .. })
    ));
    assert!(i.expand_for(&k.other_key).is_ok());
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
    let typed = FheUint16::encrypt_seeded(40000u16, &k.client)
        .unwrap()
        .to_bytes(&p)
        .unwrap();
    let int = SeededInt::encrypt(&k.client, -5, 4)
        .unwrap()
        .to_bytes(&p)
        .unwrap();
    let array = FheArray::<FheUint8>::encrypt_seeded(&[1u8, 2, 3], &[3], &k.client)
        .unwrap()
        .to_bytes(&p)
        .unwrap();
    for bytes in [&typed, &int, &array] {
        for cut in 0..bytes.len() {
            let b = &bytes[..cut];
            assert!(SeededTyped::from_bytes(b).is_err(), "cut at {cut}");
            assert!(SeededInt::from_bytes(b).is_err(), "cut at {cut}");
            assert!(EncTyped::from_bytes(b).is_err(), "cut at {cut}");
            assert!(EncInt::from_bytes(b, &p).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(SeededTyped::from_bytes(&longer).is_err());
        assert!(SeededInt::from_bytes(&longer).is_err());
    }
    // The width, the form and the shape must match the digit count.
    let (_, payload) = encint::keys::envelope::read_header(&typed).unwrap();
    let at = typed.len() - payload.len();
    let mut wider = typed.clone();
    wider[at + 8..at + 12].copy_from_slice(&17u32.to_le_bytes());
    assert!(SeededTyped::from_bytes(&wider).is_err());
    let mut form = typed.clone();
    form[at + 13] = 3;
    assert!(SeededTyped::from_bytes(&form).is_err());
    let mut radix = typed.clone();
    radix[at + 13] = 2;
    assert!(SeededTyped::from_bytes(&radix).is_err());
    // Another type, an array read as one value, one kind read as another.
    assert!(Seeded::<FheUint8>::from_bytes(&typed).is_err());
    assert!(FheUint8::from_bytes(&typed).is_err());
    assert!(Seeded::<FheUint8>::from_bytes(&array).is_err());
    assert!(FheUint8::from_bytes(&array).is_err());
    assert!(SeededArray::<FheUint16>::from_bytes(&array).is_err());
    assert!(SeededArray::<FheUint8>::from_bytes(&array).is_ok());
    assert!(EncInt::from_bytes(&typed, &p).is_err());
    assert!(EncTyped::from_bytes(&int).is_err());
    assert!(SeededInt::from_bytes(&typed).is_err());
    assert!(SeededTyped::from_bytes(&int).is_err());
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
        let (a, b) = (r.gen::<u8>(), r.gen::<u8>());
        let x = FheUint8::encrypt(a, &k.client).unwrap();
        let y = FheUint8::from_bytes(
            &FheUint8::encrypt_seeded(b, &k.client)
                .unwrap()
                .to_bytes(&DEFAULT_PARAMETERS)
                .unwrap(),
        )
        .unwrap();
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
