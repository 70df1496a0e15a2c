//! Random values the server draws without the secret key, on real keys: the bits are 0
//! or 1 and balanced (a binomial count within five standard deviations), their nibbles
//! uniform (a chi-square bound that a uniform source exceeds with probability below
//! 10^-6), a seed gives the same value again and another seed another one, a bounded draw
//! stays in its range, a signed draw takes both signs, and a bad bound is an error.

use std::sync::Arc;

use encint::fhe::{FheBool, FheInt8, FheUint64, FheUint8, FheValue};
use encint::typed::{decrypt_typed, IntType};
use encint::{set_server, ClientKey, Error, Server, DEFAULT_PARAMETERS};

#[test]
fn random_values_on_real_keys() {
    let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    let server = Arc::new(Server::new(key));
    set_server(server.clone());

    // 1024 bits from eight 128-bit draws.
    let u128t = IntType::new(128, false).unwrap();
    let mut bits = Vec::new();
    for seed in 0..8u128 {
        let x = server.typed_random(u128t, 1000 + seed, 128).unwrap();
        let v = decrypt_typed(&client, &x).unwrap() as u128;
        bits.extend((0..128).map(|i| (v >> i) & 1));
    }
    let ones: u128 = bits.iter().sum();
    // Binomial(1024, 1/2): mean 512, standard deviation 16.
    assert!(
        (512 - 80..=512 + 80).contains(&ones),
        "{ones} ones in 1024 bits"
    );
    let mut counts = [0u32; 16];
    for nibble in bits.chunks(4) {
        let v = nibble.iter().enumerate().map(|(i, b)| b << i).sum::<u128>();
        counts[v as usize] += 1;
    }
    // 256 nibbles, 16 expected per value; chi-square with 15 degrees of freedom exceeds
    // 55 with probability about 10^-6.
    let chi2: f64 = counts
        .iter()
        .map(|&c| (f64::from(c) - 16.0).powi(2) / 16.0)
        .sum();
    assert!(chi2 < 55.0, "chi-square {chi2} of {counts:?}");

    // A seed gives its value again; another seed another value.
    let a = FheUint64::generate_oblivious_pseudo_random(7).unwrap();
    let b = FheUint64::generate_oblivious_pseudo_random(7).unwrap();
    let c = FheUint64::generate_oblivious_pseudo_random(8).unwrap();
    let d = |x: &FheUint64| x.decrypt::<u64>(&client).unwrap();
    assert_eq!(d(&a), d(&b));
    assert_ne!(d(&a), d(&c)); // equal with probability 2^-64

    // Bounded draws stay below 2^bits; signed draws take both signs (all of one sign in
    // 24 draws: probability 2^-23).
    for seed in 0..6 {
        let r = FheUint8::generate_oblivious_pseudo_random_bounded(seed, 3).unwrap();
        assert!(r.decrypt::<u8>(&client).unwrap() < 8);
    }
    let signs: Vec<bool> = (0..24)
        .map(|seed| {
            let v = FheInt8::generate_oblivious_pseudo_random(50 + seed).unwrap();
            v.decrypt::<i8>(&client).unwrap() < 0
        })
        .collect();
    assert!(signs.contains(&true) && signs.contains(&false), "{signs:?}");
    let flag = FheBool::generate_oblivious_pseudo_random(3).unwrap();
    flag.decrypt(&client).unwrap();

    // A random value is an operand like any other.
    let r = FheUint8::generate_oblivious_pseudo_random_bounded(9, 4).unwrap();
    let rv = r.decrypt::<u8>(&client).unwrap();
    assert_eq!(
        (&r + 200u8).decrypt::<u8>(&client).unwrap(),
        rv.wrapping_add(200)
    );

    // More random bits than the width: an error, not a panic.
    assert!(matches!(
        FheUint8::generate_oblivious_pseudo_random_bounded(1, 9),
        Err(Error::OutOfRange(_))
    ));
    let u5 = IntType::new(5, false).unwrap();
    let v = FheValue::generate_oblivious_pseudo_random(u5, 4, 5).unwrap();
    assert_eq!(v.ty(), u5);
    assert!((0..32).contains(&v.decrypt(&client).unwrap()));
}

#[test]
fn a_draw_without_a_server_key_is_an_error() {
    std::thread::spawn(|| {
        assert!(matches!(
            FheUint8::generate_oblivious_pseudo_random(1),
            Err(Error::NoServer)
        ));
    })
    .join()
    .unwrap();
}

/// 4096 four-bit draws, one per seed, against the uniform distribution: chi-square with
/// 15 degrees of freedom below 37.7 (exceeded by a uniform source with probability 0.001).
#[test]
#[ignore = "heavy: 16,384 blind rotations (about two minutes on two cores)"]
fn uniform_nibbles() {
    let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    let server = Server::new(key);
    let u4 = IntType::new(4, false).unwrap();
    let mut counts = [0u32; 16];
    for seed in 0..4096u128 {
        let x = server.typed_random(u4, seed, 4).unwrap();
        counts[decrypt_typed(&client, &x).unwrap() as usize] += 1;
    }
    let chi2: f64 = counts
        .iter()
        .map(|&c| (f64::from(c) - 256.0).powi(2) / 256.0)
        .sum();
    println!("4096 draws: counts {counts:?}, chi-square {chi2:.2}");
    assert!(chi2 < 37.7, "chi-square {chi2} of {counts:?}");
}
