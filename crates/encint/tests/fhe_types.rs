//! The typed family (`FheUint8`, `FheInt8`, `FheBool`, odd widths) on real ciphertexts,
//! through its operators and methods, against Rust's own `u8`/`i8` arithmetic with
//! TFHE-rs' semantics: wrapping results, shifts and rotations by the amount modulo the
//! width, division by an encrypted zero giving all ones (unsigned) or -1/1 (signed) and a
//! remainder equal to the dividend. Also the errors: values outside the type, decryption
//! into a type too small, operands of two key sets, no server key, clear division by zero.

use std::sync::{Arc, OnceLock};

use encint::fhe::FheType;
use encint::typed::Op;
use encint::{
    set_server, unset_server, ClientKey, Error, FheBool, FheInt, FheInt8, FheUint, FheUint8,
    Server, DEFAULT_PARAMETERS,
};

fn keys() -> &'static (ClientKey, Arc<Server>) {
    static KEYS: OnceLock<(ClientKey, Arc<Server>)> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        (client, Arc::new(Server::new(key)))
    })
}

/// The client key, with the server set on this test's thread.
fn client() -> &'static ClientKey {
    let (client, server) = keys();
    set_server(server.clone());
    client
}

#[macro_use]
#[path = "../../arith/tests/common/wrapping_reference.rs"]
mod wrapping_reference;

/// Every operator and method of `$fhe` on `(a, b)`, clear right operands included, checked
/// against `$t`.
macro_rules! sweep {
    ($fhe:ty, $t:ty, $u:ty, $pairs:expr) => {{
        let client = client();
        let reference = wrapping_reference!($t, $u);
        for (a, b) in $pairs {
            let x = <$fhe>::encrypt(a, client).unwrap();
            let y = <$fhe>::encrypt(b, client).unwrap();
            let amount = FheUint::<{ <$t>::BITS as usize }>::encrypt(b as $u, client).unwrap();
            let d = |v: $fhe| v.decrypt::<$t>(client).unwrap() as i128;
            let bit = |v: FheBool| i128::from(v.decrypt(client).unwrap());
            let mut results: Vec<(&str, i128)> = vec![
                ("add", d(&x + &y)),
                ("add", d(&x + b)),
                ("sub", d(&x - &y)),
                ("sub", d(x.clone() - b)),
                ("mul", d(&x * &y)),
                ("mul", d(&x * b)),
                ("div", d(&x / &y)),
                ("rem", d(&x % &y)),
                ("and", d(&x & &y)),
                ("or", d(&x | b)),
                ("xor", d(&x ^ &y)),
                ("shl", d(&x << &amount)),
                ("shr", d(&x >> &amount)),
                ("shl", d(&x << (b as $u))),
                ("shr", d(&x >> (b as $u))),
                ("rotl", d(x.rotate_left(&amount))),
                ("rotr", d(x.rotate_right(b as $u))),
                ("min", d(x.min(&y))),
                ("max", d(x.max(b))),
                ("neg", d(-&x)),
                ("not", d(!&x)),
                ("square", d(x.square())),
                ("lt", bit(x.lt(&y))),
                ("le", bit(x.le(b))),
                ("gt", bit(x.gt(&y))),
                ("ge", bit(x.ge(&y))),
                ("eq", bit(x.eq(&y))),
                ("ne", bit(x.ne(b))),
            ];
            if b != 0 {
                results.push(("div", d(&x / b)));
                results.push(("rem", d(&x % b)));
            }
            let mut acc = x.clone();
            acc += &y;
            acc *= 3 as $t;
            let expected_acc = (a.wrapping_add(b)).wrapping_mul(3) as i128;
            assert_eq!(
                d(acc),
                expected_acc,
                "(a + b) * 3 by assignment, a={a} b={b}"
            );
            for (name, got) in results {
                assert_eq!(
                    got,
                    reference(name, a, b) as i128,
                    "{name}({a}, {b}) on {}",
                    stringify!($fhe)
                );
            }
        }
    }};
}

#[test]
fn unsigned_8_bits_against_u8() {
    // Random-looking values (an amount past the width), a zero divisor.
    sweep!(FheUint8, u8, u8, [(201u8, 77u8), (154, 0)]);
}

#[test]
fn signed_8_bits_against_i8() {
    // MIN / -1 (and an amount pattern of 255, read unsigned), a negative dividend over zero.
    sweep!(FheInt8, i8, u8, [(-128i8, -1i8), (-77, 0)]);
}

#[test]
fn booleans_and_select() {
    let client = client();
    for (p, q) in [(false, true), (true, true)] {
        let a = FheBool::encrypt(p, client).unwrap();
        let b = FheBool::encrypt(q, client).unwrap();
        let d = |v: FheBool| v.decrypt(client).unwrap();
        assert_eq!(d(&a & &b), p & q);
        assert_eq!(d(&a | false), p);
        assert_eq!(d(a.clone() ^ &b), p ^ q);
        assert_eq!(d(!&a), !p);
        assert_eq!(d(a.eq(&b)), p == q);
        assert_eq!(d(a.ne(true)), !p);
        let x = FheUint8::encrypt(10u8, client).unwrap();
        let y = FheUint8::encrypt(200u8, client).unwrap();
        let s: FheUint8 = a.select(&x, &y);
        assert_eq!(s.decrypt::<u8>(client).unwrap(), if p { 10 } else { 200 });
        let t: FheUint8 = a.if_then_else(&x, 7u8);
        assert_eq!(t.decrypt::<u8>(client).unwrap(), if p { 10 } else { 7 });
        let n: FheInt8 = a.cast_into();
        assert_eq!(n.decrypt::<i8>(client).unwrap(), i8::from(p));
    }
}

#[test]
fn abs_and_casts_against_as() {
    let client = client();
    for v in [-128i8, -5, 0, 77] {
        let x = FheInt8::encrypt(v, client).unwrap();
        assert_eq!(x.abs().decrypt::<i8>(client).unwrap(), v.wrapping_abs());
        let wide: FheUint<16> = x.cast_into();
        assert_eq!(wide.decrypt::<u16>(client).unwrap(), v as u16);
        let narrow = FheInt::<4>::cast_from(&x);
        let want = ((v as i128).rem_euclid(16) ^ 8) - 8; // the low 4 bits, signed
        assert_eq!(narrow.decrypt::<i8>(client).unwrap() as i128, want);
        let nonzero: FheBool = x.cast_into();
        assert_eq!(nonzero.decrypt(client).unwrap(), v != 0);
    }
}

#[test]
fn odd_widths() {
    let client = client();
    // u5: 0..32; i3: -4..4.
    let a = FheUint::<5>::encrypt(29u8, client).unwrap();
    let b = FheUint::<5>::encrypt(7u8, client).unwrap();
    assert_eq!((&a + &b).decrypt::<u8>(client).unwrap(), (29 + 7) % 32);
    assert_eq!((&a * &b).decrypt::<u8>(client).unwrap(), (29 * 7) % 32);
    // A shift amount of 7 on 5 bits shifts by 7 mod 5 = 2.
    assert_eq!((&a << &b).decrypt::<u8>(client).unwrap(), (29 << 2) % 32);
    let c = FheInt::<3>::encrypt(-4i8, client).unwrap();
    assert_eq!((-&c).decrypt::<i8>(client).unwrap(), -4);
    assert_eq!((&c - 1i8).decrypt::<i8>(client).unwrap(), 3);
}

#[test]
fn bad_input_is_an_error() {
    let client = client();
    let err = |r: Result<FheUint8, Error>| r.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err(FheUint8::encrypt(256u16, client)).contains("not a value of u8"));
    assert!(err(FheUint8::encrypt(-1i32, client)).contains("not a value of u8"));
    assert!(FheInt8::encrypt(128i32, client).is_err());
    let x = FheUint8::encrypt(200u8, client).unwrap();
    assert!(x.decrypt::<i8>(client).is_err(), "200 does not fit in i8");
    assert_eq!(x.decrypt::<u64>(client).unwrap(), 200);
    // A clear division by zero.
    assert!(x.try_binary(Op::Div, 0u8).is_err());
    assert!(x.try_binary(Op::LT, &x).is_err(), "lt is a comparison");
    assert!(x.try_shift(Op::ShlVar, -1i32).is_err());
    // Operands of two key sets.
    let (other, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    let y = FheUint8::encrypt(1u8, &other).unwrap();
    assert!(matches!(
        x.try_binary(Op::Add, &y),
        Err(Error::KeySetMismatch { .. })
    ));
    assert!(matches!(
        y.decrypt::<u8>(client),
        Err(Error::WrongClientKey { .. })
    ));
    // Digits of another type.
    assert!(FheInt8::from_typed(x.as_typed().unwrap().clone()).is_err());
    // No server on this thread.
    unset_server();
    assert!(matches!(x.try_binary(Op::Add, 1u8), Err(Error::NoServer)));
}

#[test]
fn files_round_trip_and_refuse_other_kinds() {
    let client = client();
    let params = client.params();
    let x = FheInt8::encrypt(-77i8, client).unwrap();
    let bytes = x.to_bytes(params).unwrap();
    let back = FheInt8::from_bytes(&bytes).unwrap();
    assert_eq!(back.decrypt::<i8>(client).unwrap(), -77);
    // Another type of the family, an exact integer, a boolean: errors, not wrong values.
    assert!(FheUint8::from_bytes(&bytes).is_err());
    assert!(FheInt::<16>::from_bytes(&bytes).is_err());
    assert!(FheBool::from_bytes(&bytes).is_err());
    assert!(encint::EncInt::from_bytes(&bytes, params).is_err());
    let exact = encint::encrypt(client, -77, 8).unwrap();
    let exact_bytes = exact.to_bytes(params).unwrap();
    assert!(FheInt8::from_bytes(&exact_bytes).is_err());
    let b = FheBool::encrypt(true, client).unwrap();
    let back = FheBool::from_bytes(&b.to_bytes(params).unwrap()).unwrap();
    assert!(back.decrypt(client).unwrap());
    // A truncated file.
    assert!(FheInt8::from_bytes(&bytes[..bytes.len() / 2]).is_err());
}

#[test]
fn runtime_typed_values_against_i16() {
    use encint::fhe::FheValue;
    use encint::typed::IntType;
    let client = client();
    let i16t = IntType::new(16, true).unwrap();
    let u16t = IntType::new(16, false).unwrap();
    let a = FheValue::encrypt(-300, i16t, client).unwrap();
    let b = FheValue::encrypt(7, i16t, client).unwrap();
    let d = |v: FheValue| v.decrypt(client).unwrap();
    assert_eq!(d(a.binary(Op::Div, &b).unwrap()), (-300i16 / 7) as i128);
    assert_eq!(d(a.binary(Op::Rem, 7).unwrap()), (-300i16 % 7) as i128);
    assert_eq!(d(a.binary(Op::LT, &b).unwrap()), 1);
    assert_eq!(d(a.abs().unwrap()), 300);
    assert_eq!(
        d(a.unary(Op::Cast(u16t)).unwrap()),
        i128::from(-300i16 as u16)
    );
    // A shift amount must be unsigned of the width; 19 mod 16 = 3.
    let s = FheValue::encrypt(19, u16t, client).unwrap();
    assert_eq!(
        d(a.binary(Op::ShlVar, &s).unwrap()),
        i128::from((-300i16).wrapping_shl(19))
    );
    assert!(a.binary(Op::ShlVar, &b).is_err(), "a signed amount");
    let u = FheValue::encrypt(5, u16t, client).unwrap();
    assert!(a.binary(Op::Add, &u).is_err(), "mixed types");
    assert!(a.select(&a, &b).is_err(), "a non-boolean condition");
}

#[test]
fn unsigned_128_bits_past_i128_max() {
    use encint::FheUint128;
    let client = client();
    let x = FheUint128::encrypt(i128::MAX, client).unwrap();
    let y = &x + 1u8; // 2^127: only a u128 holds it
    assert_eq!(y.decrypt::<u128>(client).unwrap(), 1u128 << 127);
    assert!(y.decrypt::<i128>(client).is_err());
}

/// Exact integers into the family and back: `from_int` keeps the value modulo `2^N` (as
/// `as` converts), `to_int` gives the exact value of canonical, lazy and radix-4 digits.
#[test]
fn exact_integers_in_and_out() {
    use encint::fhe::FheValue;
    use encint::typed::{encrypt_typed_as, Form, IntType};
    let client = client();
    let exact = |v: i128, digits: usize| encint::encrypt(client, v, digits).unwrap();
    let back = |x: &encint::EncInt| encint::decrypt(client, x).unwrap();
    // -4095 in 12 digits is 1 modulo 256 as a u8, and 1 as an i8; 300 is 44.
    let x = FheUint8::from_int(&exact(-4095, 12)).unwrap();
    assert_eq!(x.decrypt::<u8>(client).unwrap(), (-4095i32) as u8);
    assert_eq!(back(&x.to_int().unwrap()), i128::from((-4095i32) as u8));
    let y = FheInt8::from_int(&exact(300, 10)).unwrap();
    assert_eq!(y.decrypt::<i8>(client).unwrap(), 300i32 as i8);
    assert_eq!(back(&y.to_int().unwrap()), i128::from(300i32 as i8));
    // Canonical digits: free, signed and unsigned.
    let z = FheInt8::encrypt(-100i8, client).unwrap();
    assert_eq!(back(&z.to_int().unwrap()), -100);
    // A lazy result (a wrapping sum) and radix-4 blocks.
    let s = &z + &z; // -200 wraps to 56
    assert_eq!(
        back(&s.to_int().unwrap()),
        i128::from((-100i8).wrapping_add(-100))
    );
    let i5 = IntType::new(5, true).unwrap();
    let r = encrypt_typed_as(client, -13, i5, Form::Radix4).unwrap();
    let r = FheValue::from_typed(r).unwrap();
    assert_eq!(back(&r.to_int().unwrap()), -13);
    let w = FheValue::from_int(&exact(-13, 6), i5).unwrap();
    assert_eq!(w.decrypt(client).unwrap(), -13);
    assert!(FheValue::from_int(
        &exact(1, 2),
        IntType {
            bits: 0,
            signed: false
        }
    )
    .is_err());
}

/// Bit vectors written by earlier releases (the `ENCBITS1` payload) read as values of the
/// family of their width and signedness, and compute like fresh ones.
#[test]
fn bit_vector_files_of_earlier_releases_load() {
    use encint::fhe::FheValue;
    let client = client();
    let params = client.params();
    let bits = |v: i128, w: usize| {
        let pattern = v.rem_euclid(1 << w);
        let digits = (0..w)
            .map(|k| client.encrypt_digit(((pattern >> k) & 1) as i64))
            .collect();
        encint::EncInt::from_digits(digits, client.key_set())
    };
    let signed = encint::io::wire::seal_bits(&bits(-5, 6), true, params).unwrap();
    let x = FheValue::from_bytes(&signed).unwrap();
    assert_eq!((x.ty().bits, x.ty().signed), (6, true));
    assert_eq!(x.decrypt(client).unwrap(), -5);
    assert_eq!(
        x.binary(Op::ShrVar, 1).unwrap().decrypt(client).unwrap(),
        -5 >> 1
    );
    assert_eq!(x.binary(Op::LT, 0).unwrap().decrypt(client).unwrap(), 1);
    let unsigned = encint::io::wire::seal_bits(&bits(59, 6), false, params).unwrap();
    let u = FheInt::<6>::from_bytes(&unsigned);
    assert!(u.is_err(), "an unsigned file is not a signed value");
    let u = FheUint::<6>::from_bytes(&unsigned).unwrap();
    assert_eq!(u.decrypt::<u8>(client).unwrap(), 59);
    assert_eq!(
        (&u ^ 0b10_1010u8).decrypt::<u8>(client).unwrap(),
        59 ^ 0b10_1010
    );
}
