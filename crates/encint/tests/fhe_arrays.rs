//! Arrays of the typed family and compiled functions on real ciphertexts, against the same
//! computation on plain `u8`/`i8` values (wrapping, as NumPy's `uint8`/`int8` arrays
//! compute): elementwise operations with arrays and broadcast scalars, comparisons and
//! `select`, sums, dot and matrix products, reductions; a polynomial and a dot product
//! compiled before any key exists, run on fresh and on lazy-form arguments.

use encint::fhe::{compile, compile_with, FheType};
use encint::typed::{encrypt_typed_as, Form, IntType};
use encint::{FheArray, FheBool, FheInt8, FheUint8};

#[path = "common/keys.rs"]
mod keys;
use keys::client;

#[test]
fn elementwise_and_reductions_against_plain_u8() {
    let client = client();
    let (xs, ws) = ([200u8, 3, 17, 250], [9u8, 100, 17, 6]);
    let x = FheArray::<FheUint8>::encrypt(&xs, &[4], client).unwrap();
    let w = FheArray::<FheUint8>::encrypt(&ws, &[4], client).unwrap();
    let plain =
        |f: fn(u8, u8) -> u8| -> Vec<u8> { xs.iter().zip(&ws).map(|(&a, &b)| f(a, b)).collect() };
    assert_eq!(
        (&x + &w).decrypt::<u8>(client).unwrap(),
        plain(u8::wrapping_add)
    );
    assert_eq!(
        (&x * 7u8).decrypt::<u8>(client).unwrap(),
        xs.map(|a| a.wrapping_mul(7)).to_vec()
    );
    assert_eq!(
        x.maximum(&w).unwrap().decrypt::<u8>(client).unwrap(),
        plain(u8::max)
    );
    let lt = x.lt(&w).unwrap();
    assert_eq!(
        lt.decrypt(client).unwrap(),
        plain(|a, b| u8::from(a < b))
            .iter()
            .map(|&v| v == 1)
            .collect::<Vec<_>>()
    );
    let picked = lt.select(&x, 0u8).unwrap();
    assert_eq!(
        picked.decrypt::<u8>(client).unwrap(),
        plain(|a, b| if a < b { a } else { 0 })
    );
    let sum: u8 = xs.iter().fold(0u8, |s, &a| s.wrapping_add(a));
    assert_eq!(x.sum().unwrap().decrypt::<u8>(client).unwrap(), sum);
    assert_eq!(x.min().unwrap().decrypt::<u8>(client).unwrap(), 3);
    let dot = xs
        .iter()
        .zip(&ws)
        .fold(0u8, |s, (&a, &b)| s.wrapping_add(a.wrapping_mul(b)));
    assert_eq!(x.dot(&w).unwrap().decrypt::<u8>(client).unwrap(), dot);
    // A broadcast encrypted scalar.
    let k = FheUint8::encrypt(5u8, client).unwrap();
    assert_eq!(
        x.sub(&k).unwrap().decrypt::<u8>(client).unwrap(),
        xs.map(|a| a.wrapping_sub(5)).to_vec()
    );
}

#[test]
fn signed_matmul_against_plain_i8() {
    let client = client();
    let a = [-3i8, 7, 12, -100, 5, 0]; // 2 x 3
    let b = [4i8, -1, 2, 9, -8, 3]; // 3 x 2
    let x = FheArray::<FheInt8>::encrypt(&a, &[2, 3], client).unwrap();
    let y = FheArray::<FheInt8>::encrypt(&b, &[3, 2], client).unwrap();
    let mut want = Vec::new();
    for i in 0..2 {
        for j in 0..2 {
            want.push((0..3).fold(0i8, |s, t| {
                s.wrapping_add(a[i * 3 + t].wrapping_mul(b[t * 2 + j]))
            }));
        }
    }
    let p = x.matmul(&y).unwrap();
    assert_eq!(p.shape(), &[2, 2]);
    assert_eq!(p.decrypt::<i8>(client).unwrap(), want);
    // Shapes that do not fit are errors.
    assert!(x.matmul(&x).is_err());
    assert!(x.add(&y).is_err());
    assert!(FheArray::<FheInt8>::encrypt(&a, &[4], client).is_err());
}

#[test]
fn compiled_functions_cost_before_keys_and_run() {
    // Compiled before the keys exist: the cost is known.
    let poly = compile(|(x, y): (FheUint8, FheUint8)| &(&x * &x) + &(&y * 3u8) + 7u8).unwrap();
    assert!(poly.cost().bootstraps > 0);
    let dot = compile_with(
        (vec![3], vec![3]),
        |(x, w): (FheArray<FheUint8>, FheArray<FheUint8>)| x.dot(&w).expect("two vectors of three"),
    )
    .unwrap();
    let both = compile(|(x, b): (FheUint8, FheBool)| b.select(&x, &(&x >> 1u32))).unwrap();
    assert!(both.cost().bootstraps > 0);

    let client = client();
    for (a, b) in [(9u8, 20u8), (255, 255)] {
        let x = FheUint8::encrypt(a, client).unwrap();
        let y = FheUint8::encrypt(b, client).unwrap();
        let want = a
            .wrapping_mul(a)
            .wrapping_add(b.wrapping_mul(3))
            .wrapping_add(7);
        assert_eq!(
            poly.run(&(x.clone(), y))
                .unwrap()
                .decrypt::<u8>(client)
                .unwrap(),
            want
        );
        // The same function on a lazy-form argument (any representative modulo 2^8).
        let lazy = encrypt_typed_as(
            client,
            i128::from(b),
            IntType::new(8, false).unwrap(),
            Form::Lazy,
        )
        .unwrap();
        let lazy = FheUint8::from_typed(lazy).unwrap();
        assert_eq!(
            poly.run(&(x, lazy)).unwrap().decrypt::<u8>(client).unwrap(),
            want
        );
    }
    let (xs, ws) = ([1u8, 2, 3], [40u8, 50, 60]);
    let x = FheArray::<FheUint8>::encrypt(&xs, &[3], client).unwrap();
    let w = FheArray::<FheUint8>::encrypt(&ws, &[3], client).unwrap();
    assert_eq!(
        dot.run(&(x, w)).unwrap().decrypt::<u8>(client).unwrap(),
        (40 + 100 + 180) as u8
    );
    // Arguments of another layout are refused.
    let short = FheArray::<FheUint8>::encrypt(&[1u8], &[1], client).unwrap();
    assert!(dot.run(&(short.clone(), short)).is_err());
    let x = FheUint8::encrypt(77u8, client).unwrap();
    for flag in [true, false] {
        let b = FheBool::encrypt(flag, client).unwrap();
        let r = both
            .run(&(x.clone(), b))
            .unwrap()
            .decrypt::<u8>(client)
            .unwrap();
        assert_eq!(r, if flag { 77 } else { 38 });
    }
}
