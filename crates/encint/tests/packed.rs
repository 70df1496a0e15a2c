//! Packed results (`encint::io::packed`) on real keys: results of the server's circuits on
//! exact integers and on typed values of every form, packed with the client's packing key,
//! through their bytes, decrypt to the plain integers Rust computes; another key set's
//! packing or client key, truncated or altered bytes and the wrong kind are errors.

use std::sync::OnceLock;

use encint::io::packed::{pack_int, pack_typed, PackedKind, PackedResult};
use encint::keys::PackingKey;
use encint::typed::{encrypt_typed, encrypt_typed_as, EncTyped, Form, IntType, Op};
use encint::{ClientKey, Error, Server, DEFAULT_PARAMETERS};

struct Keys {
    client: ClientKey,
    server: Server,
    packing: PackingKey,
    other: ClientKey,
}

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        let (other, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
        Keys {
            packing: PackingKey::generate(&client),
            server: Server::new(key),
            client,
            other,
        }
    })
}

/// `x` packed, through its bytes.
fn packed(x: &EncTyped) -> PackedResult {
    let p = pack_typed(&keys().packing, x).unwrap();
    PackedResult::from_bytes(&p.to_bytes(&DEFAULT_PARAMETERS).unwrap()).unwrap()
}

#[test]
fn typed_results_of_every_form_round_trip() {
    let k = keys();
    let u16t = IntType::new(16, false).unwrap();
    let i8t = IntType::new(8, true).unwrap();
    let (a, b) = (51234u16, 40001u16);
    let x = encrypt_typed(&k.client, a.into(), u16t).unwrap();
    let y = encrypt_typed(&k.client, b.into(), u16t).unwrap();
    let (sum, _) = k.server.typed_apply(Op::Add, &[&x, &y]).unwrap();
    let p = packed(&sum);
    assert_eq!(p.kind(), PackedKind::Typed(u16t, sum.form()));
    assert_eq!(
        p.decrypt_typed(&k.client).unwrap(),
        i128::from(a.wrapping_add(b))
    );
    let (lt, _) = k.server.typed_apply(Op::LT, &[&x, &y]).unwrap();
    assert_eq!(
        packed(&lt).decrypt_typed(&k.client).unwrap(),
        i128::from(a < b)
    );
    let (c, d) = (-77i8, 93i8);
    let u = encrypt_typed(&k.client, c.into(), i8t).unwrap();
    let v = encrypt_typed(&k.client, d.into(), i8t).unwrap();
    let (prod, _) = k.server.typed_apply(Op::Mul, &[&u, &v]).unwrap();
    assert_eq!(
        packed(&prod).decrypt_typed(&k.client).unwrap(),
        i128::from(c.wrapping_mul(d))
    );
    // Every form, signed odd widths.
    let i13 = IntType::new(13, true).unwrap();
    for (v, form) in [
        (-4096i128, Form::Radix4),
        (4095, Form::Canonical),
        (-1, Form::Lazy),
    ] {
        let x = encrypt_typed_as(&k.client, v, i13, form).unwrap();
        let p = packed(&x);
        assert_eq!(p.kind(), PackedKind::Typed(i13, form));
        assert_eq!(p.decrypt_typed(&k.client).unwrap(), v);
        assert!(p.decrypt_int(&k.client).is_err());
    }
    // A u16 sum: radix-4 blocks, one GLWE mask (2048 coefficients) and 8 bodies of 14 bits.
    assert_eq!(sum.form(), Form::Radix4);
    assert_eq!(sum.as_int().len(), 8);
    let bytes = pack_typed(&k.packing, &sum)
        .unwrap()
        .to_bytes(&DEFAULT_PARAMETERS)
        .unwrap();
    // Envelope header (13 + the 83-byte name), tag and type (15), packed header (52) and
    // (2048 + 8) coefficients of 14 bits in 450 words.
    assert_eq!(bytes.len(), 96 + 15 + 52 + 8 * 450);
    // Against 8 digit ciphertexts of 2049 words each.
    assert!(bytes.len() * 30 < sum.to_bytes(&DEFAULT_PARAMETERS).unwrap().len());
}

#[test]
fn exact_results_round_trip() {
    let k = keys();
    let a = encint::encrypt(&k.client, -1234, 12).unwrap();
    let b = encint::encrypt(&k.client, 567, 12).unwrap();
    let prod = k.server.mul(&a, &b).unwrap();
    let p = pack_int(&k.packing, &prod).unwrap();
    assert_eq!(p.kind(), PackedKind::Int);
    assert_eq!(p.len(), prod.len());
    let back = PackedResult::from_bytes(&p.to_bytes(&DEFAULT_PARAMETERS).unwrap()).unwrap();
    assert_eq!(back.decrypt_int(&k.client).unwrap(), (-1234 * 567).into());
    assert!(back.decrypt_typed(&k.client).is_err());
    let z = encint::encrypt(&k.client, 0, 1).unwrap();
    assert_eq!(
        pack_int(&k.packing, &z)
            .unwrap()
            .decrypt_int(&k.client)
            .unwrap(),
        0.into()
    );
}

#[test]
fn another_key_set_and_damaged_bytes_are_errors() {
    let k = keys();
    let p = DEFAULT_PARAMETERS;
    let theirs = encint::encrypt(&k.other, 5, 4).unwrap();
    assert!(matches!(
        pack_int(&k.packing, &theirs),
        Err(Error::PackingKeyMismatch { .. })
    ));
    let u8t = IntType::new(8, false).unwrap();
    let x = encrypt_typed(&k.client, 200, u8t).unwrap();
    let bytes = pack_typed(&k.packing, &x).unwrap().to_bytes(&p).unwrap();
    let back = PackedResult::from_bytes(&bytes).unwrap();
    assert!(matches!(
        back.decrypt_typed(&k.other),
        Err(Error::WrongClientKey { .. })
    ));
    assert_eq!(back.decrypt_typed(&k.client).unwrap(), 200);
    for cut in (0..bytes.len()).step_by(29).chain([bytes.len() - 1]) {
        assert!(
            PackedResult::from_bytes(&bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(PackedResult::from_bytes(&longer).is_err());
    // The width, the form and the kind must match the digit count.
    let (_, payload) = encint::keys::envelope::read_header(&bytes).unwrap();
    let at = bytes.len() - payload.len();
    for (offset, value) in [(9, 9u8), (14, 2), (14, 3), (8, 2)] {
        let mut bad = bytes.clone();
        bad[at + offset] = value;
        assert!(
            PackedResult::from_bytes(&bad).is_err(),
            "byte {offset} = {value}"
        );
    }
    // A packed result is not a ciphertext of any other form, nor the reverse.
    assert!(EncTyped::from_bytes(&bytes).is_err());
    assert!(PackedResult::from_bytes(&x.to_bytes(&p).unwrap()).is_err());
}
