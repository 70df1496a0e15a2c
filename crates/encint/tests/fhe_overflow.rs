//! Overflow-reporting arithmetic (`overflowing_add`, `overflowing_sub`, `overflowing_neg`),
//! parity (`is_even`, `is_odd`) and `if_then_zero` against Rust's own integers: in clear
//! mode, every pair at 8 bits and drawn and edge values at 16, 32 and 64 bits, signed and
//! unsigned, and at 128 bits signed (a clear run takes and gives `i128`, which holds no
//! `u128` above `i128::MAX`); on real keys at 8 and 16 bits, operands as encryption gives them.

use std::sync::Arc;

use encint::fhe::{compile, FheBool, FheInt16, FheInt8, FheUint16, FheUint8};
use encint::{set_server, ClientKey, FheInt, FheUint, Server, DEFAULT_PARAMETERS};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Checks one type in clear mode: `$pairs` of `$t` through the compiled methods of `$fhe`.
macro_rules! clear_check {
    ($fhe:ty, $t:ty, $pairs:expr) => {{
        let f = compile(|(a, b): ($fhe, $fhe)| {
            let (s, so) = a.overflowing_add(&b);
            let (d, dob) = a.overflowing_sub(&b);
            let (n, no) = a.overflowing_neg();
            let z = b.is_even().if_then_zero(&a);
            ((s, so), (d, dob), (n, no), (a.is_even(), a.is_odd(), z))
        })
        .unwrap();
        let mut checked = 0;
        for (a, b) in $pairs {
            let (a, b): ($t, $t) = (a, b);
            let (s, so) = a.overflowing_add(b);
            let (d, dob) = a.overflowing_sub(b);
            let (n, no) = a.overflowing_neg();
            let z = if b % 2 == 0 { a } else { 0 };
            let want: Vec<i128> = vec![
                s as i128,
                so.into(),
                d as i128,
                dob.into(),
                n as i128,
                no.into(),
                (a % 2 == 0).into(),
                (a % 2 != 0).into(),
                z as i128,
            ];
            let got = f.run_clear(&[a as i128, b as i128]).unwrap();
            assert_eq!(got, want, "{} {a} {b}", stringify!($t));
            checked += 1;
        }
        checked
    }};
}

/// Edge values of `$t` and `n` drawn ones, paired every way with each other.
macro_rules! pairs {
    ($t:ty, $rng:expr, $n:expr) => {{
        let mut v: Vec<$t> = vec![<$t>::MIN, <$t>::MAX, 0, 1, <$t>::MAX - 1, <$t>::MIN + 1];
        v.extend((0..$n).map(|_| $rng.r#gen::<$t>()));
        let w = v.clone();
        v.into_iter()
            .flat_map(move |a| w.clone().into_iter().map(move |b| (a, b)))
            .collect::<Vec<_>>()
    }};
}

#[test]
fn every_pair_at_eight_bits_in_clear_mode() {
    let all = |lo: i16, hi: i16| (lo..=hi).flat_map(move |a| (lo..=hi).map(move |b| (a, b)));
    let n = clear_check!(FheUint8, u8, all(0, 255).map(|(a, b)| (a as u8, b as u8)));
    let m = clear_check!(FheInt8, i8, all(-128, 127).map(|(a, b)| (a as i8, b as i8)));
    assert_eq!((n, m), (65536, 65536));
}

#[test]
fn wide_types_in_clear_mode() {
    let mut rng = StdRng::seed_from_u64(55);
    clear_check!(FheUint16, u16, pairs!(u16, rng, 10));
    clear_check!(FheInt16, i16, pairs!(i16, rng, 10));
    clear_check!(FheUint<32>, u32, pairs!(u32, rng, 10));
    clear_check!(FheInt<32>, i32, pairs!(i32, rng, 10));
    clear_check!(FheUint<64>, u64, pairs!(u64, rng, 10));
    clear_check!(FheInt<64>, i64, pairs!(i64, rng, 10));
    clear_check!(FheInt<128>, i128, pairs!(i128, rng, 6));
}

/// Checks `$fhe` on real keys, each method called on its own (one circuit each).
macro_rules! real_check {
    ($client:expr, $fhe:ty, $t:ty, $pairs:expr) => {{
        let client: &ClientKey = $client;
        for (a, b) in $pairs {
            let (a, b): ($t, $t) = (a, b);
            let (x, y) = (
                <$fhe>::encrypt(a, client).unwrap(),
                <$fhe>::encrypt(b, client).unwrap(),
            );
            let d = |v: &$fhe| v.decrypt::<$t>(client).unwrap();
            let bit = |v: &FheBool| v.decrypt(client).unwrap();
            let (s, so) = x.overflowing_add(&y);
            assert_eq!((d(&s), bit(&so)), a.overflowing_add(b), "add {a} {b}");
            let (s, so) = x.overflowing_sub(&y);
            assert_eq!((d(&s), bit(&so)), a.overflowing_sub(b), "sub {a} {b}");
            let (s, so) = x.overflowing_neg();
            assert_eq!((d(&s), bit(&so)), a.overflowing_neg(), "neg {a}");
            assert_eq!(
                (bit(&x.is_even()), bit(&x.is_odd())),
                (a % 2 == 0, a % 2 != 0),
                "parity {a}"
            );
            let z = y.is_odd().if_then_zero(&x);
            assert_eq!(
                d(&z),
                if b % 2 != 0 { a } else { 0 },
                "if_then_zero {a} {b}"
            );
        }
    }};
}

#[test]
fn on_real_keys_at_eight_and_sixteen_bits() {
    let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    set_server(Arc::new(Server::new(key)));
    let mut rng = StdRng::seed_from_u64(56);
    real_check!(
        &client,
        FheUint8,
        u8,
        [(200, 100), (3, 7), (0, 0), (255, 1)]
    );
    real_check!(
        &client,
        FheInt8,
        i8,
        [(100, 100), (-128, 1), (-5, 7), (127, -1)]
    );
    let draw = |rng: &mut StdRng| (rng.r#gen::<u16>(), rng.r#gen::<u16>());
    let (p, q) = (draw(&mut rng), draw(&mut rng));
    real_check!(&client, FheUint16, u16, [p, (u16::MAX, 2), (1, 2)]);
    let signed = |(a, b): (u16, u16)| (a as i16, b as i16);
    real_check!(
        &client,
        FheInt16,
        i16,
        [signed(q), (i16::MIN, 0), (i16::MAX, -2)]
    );
}
