//! Overflow-reporting arithmetic (`overflowing_add`, `overflowing_sub`, `overflowing_neg`,
//! `overflowing_mul`, the last also at widths from 65 to 128 bits),
//! parity (`is_even`, `is_odd`) and `if_then_zero` against Rust's own integers: in clear
//! mode, every pair at 8 bits and drawn and edge values at 16, 32 and 64 bits, signed and
//! unsigned, and at 128 bits signed (a clear run takes and gives `i128`, which holds no
//! `u128` above `i128::MAX`); on real keys at 8 and 16 bits, operands as encryption gives them.

use std::sync::Arc;

use encint::fhe::{
    compile, compile_with, FheBool, FheInt16, FheInt8, FheUint16, FheUint8, FheValue,
};
use encint::typed::IntType;
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
            let (m, mo) = a.overflowing_mul(&b);
            let z = b.is_even().if_then_zero(&a);
            let (q, r) = a.div_rem(&b);
            (
                (s, so),
                (d, dob),
                ((n, no), (m, mo), (q, r)),
                (a.is_even(), a.is_odd(), z),
            )
        })
        .unwrap();
        let mut checked = 0;
        for (a, b) in $pairs {
            let (a, b): ($t, $t) = (a, b);
            let (s, so) = a.overflowing_add(b);
            let (d, dob) = a.overflowing_sub(b);
            let (n, no) = a.overflowing_neg();
            let (m, mo) = a.overflowing_mul(b);
            let z = if b % 2 == 0 { a } else { 0 };
            // TFHE-rs' division by zero: all ones (unsigned), -1 or 1 by the dividend's
            // sign (signed); the remainder is the dividend.
            #[allow(unused_comparisons)]
            let (q, r) = match b {
                0 if a < 0 => (1, a),
                0 => (!0, a),
                _ => (a.wrapping_div(b), a.wrapping_rem(b)),
            };
            let want: Vec<i128> = vec![
                s as i128,
                so.into(),
                d as i128,
                dob.into(),
                n as i128,
                no.into(),
                m as i128,
                mo.into(),
                q as i128,
                r as i128,
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

/// `overflowing_mul` of `ty` (65 to 128 bits, where the product is checked by halves)
/// against `i128` / `u128` arithmetic: the wrapped product and whether the exact one is
/// outside the type.
fn wide_product(ty: IntType, a: i128, b: i128) -> Vec<i128> {
    let n = ty.bits as u32;
    let over = if ty.signed {
        let (min, max) = (ty.min(), ty.max());
        a.checked_mul(b).is_none_or(|p| p < min || p > max)
    } else {
        (a as u128)
            .checked_mul(b as u128)
            .is_none_or(|p| n < 128 && p >> n != 0)
    };
    vec![ty.wrap(a.wrapping_mul(b)), over.into()]
}

#[test]
fn products_from_65_to_128_bits_in_clear_mode() {
    let mut rng = StdRng::seed_from_u64(57);
    // Odd and even widths, both halves' rules (the circuits take seconds each to build).
    for n in [65usize, 66, 77, 96, 127, 128] {
        for signed in [false, true] {
            // A clear run reads i128: unsigned 128-bit values stop at i128::MAX.
            let ty = IntType::new(n, signed).unwrap();
            let f = compile_with((ty, ty), |(a, b): (FheValue, FheValue)| {
                a.overflowing_mul(&b).expect("two values of one type")
            })
            .unwrap();
            let (lo, hi) = (ty.min(), ty.max());
            let draw = |rng: &mut StdRng| -> i128 {
                // Any magnitude: a uniform value shifted right by 0..n bits.
                ty.wrap(rng.r#gen::<i128>()).clamp(lo, hi) >> rng.gen_range(0..n as u32)
            };
            let mut cases = vec![
                (hi, 1),
                (hi, 2),
                (lo, 1),
                (lo, -1),
                (0, hi),
                (1i128 << (n / 2), 1i128 << (n / 2)),
            ];
            cases.retain(|&(a, b)| (lo..=hi).contains(&a) && (lo..=hi).contains(&b));
            cases.extend((0..16).map(|_| (draw(&mut rng), draw(&mut rng))));
            for (a, b) in cases {
                let got = f.run_clear(&[a, b]).unwrap();
                assert_eq!(got, wide_product(ty, a, b), "{ty}: {a} * {b}");
            }
        }
    }
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
            // The products and quotients on real keys at 8 bits (16 bits: in clear mode).
            if std::mem::size_of::<$t>() == 1 {
                let (s, so) = x.overflowing_mul(&y);
                assert_eq!((d(&s), bit(&so)), a.overflowing_mul(b), "mul {a} {b}");
                if b != 0 {
                    let (q, r) = x.div_rem(&y);
                    let want = (a.wrapping_div(b), a.wrapping_rem(b));
                    assert_eq!((d(&q), d(&r)), want, "div_rem {a} {b}");
                }
            }
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
