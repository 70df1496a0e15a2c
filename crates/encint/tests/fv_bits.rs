//! Bit-sliced FV (J. Chen, Y. Feng, Y. Liu and W. Wu, *Faster Binary Arithmetic Operations
//! on Encrypted Integers*): every operation's FV result against the clear run of the
//! same circuit on every slot and against plain u64/i64 arithmetic, on random full
//! batches. In CI at the smallest set that fits (128-8192); the paper's rows behind
//! `--ignored`.

use encint::fv_bits::{
    choose_set, plan_adder, FvBitSet, FvBitsClientKey, FvBitsError, FvBitsServerKey, FvProgram,
    FvWord,
};
use encint_arith::bits::{from_bits, leveled, leveled::Adder, to_bits, Word};
use encint_core::bits::{fv, Bit, BitBuilder, BitCircuit};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

type Build = dyn Fn(&mut BitBuilder, &Word, &Word) -> Vec<Bit>;
type Reference = Box<dyn Fn(u64, u64) -> u64>;

fn circuit(w: usize, f: &Build) -> BitCircuit {
    let mut b = BitBuilder::new();
    let (x, y) = (Word::input(&mut b, w), Word::input(&mut b, w));
    let o = f(&mut b, &x, &y);
    b.finish(o)
}

fn mask(w: usize) -> u64 {
    if w == 64 {
        u64::MAX
    } else {
        (1 << w) - 1
    }
}

fn sext(v: u64, w: usize) -> i64 {
    if w < 64 && (v >> (w - 1)) & 1 == 1 {
        (v as i64) - (1i64 << w)
    } else {
        v as i64
    }
}

/// Runs `c` on FV over full random batches, checks every slot against the clear run of
/// `c` and against `reference(x, y)` (the plain integer result), returns the run's depth.
fn check_op(
    client: &FvBitsClientKey,
    server: &FvBitsServerKey,
    w: usize,
    c: &BitCircuit,
    reference: &dyn Fn(u64, u64) -> u64,
    rng: &mut ChaCha20Rng,
) -> u32 {
    let n = client.set().slots();
    let m = mask(w);
    let mut xs: Vec<u64> = (0..n).map(|_| rng.r#gen::<u64>() & m).collect();
    let mut ys: Vec<u64> = (0..n).map(|_| rng.r#gen::<u64>() & m).collect();
    // Edge values in the first slots.
    for (i, (a, b)) in [(0, 0), (m, m), (m, 0), (0, m), (m, 1), (1, m)]
        .into_iter()
        .enumerate()
    {
        xs[i] = a;
        ys[i] = b;
    }
    let a = client.encrypt(&xs, w, false).unwrap();
    let b = client.encrypt(&ys, w, false).unwrap();
    let (out, stats) = server.run(c, &[&a, &b]).unwrap();
    assert!(client.noise_budget(&out).unwrap() > 0.0);
    let got = client.decrypt(&out).unwrap();
    assert_eq!(got.len(), n);
    for slot in 0..n {
        let mut ins = to_bits(u128::from(xs[slot]), w);
        ins.extend(to_bits(u128::from(ys[slot]), w));
        let clear = from_bits(&c.eval(&ins).unwrap()) as u64;
        assert_eq!(got[slot], clear, "slot {slot}: FV vs clear circuit");
        assert_eq!(
            got[slot],
            reference(xs[slot], ys[slot]),
            "slot {slot}: {} and {}",
            xs[slot],
            ys[slot]
        );
    }
    stats.depth
}

#[test]
fn programs_match_circuits_and_the_cost_model() {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let cases: Vec<(usize, Box<Build>)> = vec![
        (
            8,
            Box::new(|b, x, y| leveled::add_ripple(b, x, y, None).bits),
        ),
        (
            16,
            Box::new(|b, x, y| leveled::add_sklansky(b, x, y, None).bits),
        ),
        (
            8,
            Box::new(|b, x, y| leveled::mul(b, Adder::Sklansky, x, y).bits),
        ),
        (
            4,
            Box::new(|b, x, y| {
                let (q, r) = leveled::div_rem_unsigned(b, x, y);
                [q.bits, r.bits].concat()
            }),
        ),
        // The TFHE-oriented counter circuits compile too (counters expanded).
        (8, Box::new(|b, x, y| encint_arith::bits::add(b, x, y).bits)),
    ];
    for (w, f) in &cases {
        let c = circuit(*w, f.as_ref());
        let p = FvProgram::compile(&c).unwrap();
        // Sharing a full adder's products never deepens it.
        assert!(p.depth() <= fv::cost(&c).depth);
        assert!(p.products() <= fv::cost(&c).products);
        for _ in 0..50 {
            let ins: Vec<bool> = (0..2 * w).map(|_| rng.r#gen()).collect();
            let clear: Vec<u64> = c.eval(&ins).unwrap().into_iter().map(u64::from).collect();
            assert_eq!(p.eval_clear(&ins).unwrap(), clear);
        }
    }
}

#[test]
fn parameter_choice_follows_depth_and_refuses_before_keys() {
    assert_eq!(choose_set(0).unwrap().name(), "128-8192");
    assert_eq!(choose_set(4).unwrap().name(), "128-8192");
    assert_eq!(choose_set(5).unwrap().name(), "128-16384");
    assert_eq!(choose_set(25).unwrap().name(), "128-32768");
    // 8-bit division: depth 48 > every set; typed error naming both depths, no key made.
    let div8 = circuit(8, &|b, x, y| leveled::div_rem_unsigned(b, x, y).0.bits);
    let d = FvProgram::compile(&div8).unwrap().depth();
    match choose_set(d) {
        Err(FvBitsError::DepthTooLarge {
            needed,
            largest,
            set,
        }) => {
            assert_eq!(needed, d);
            assert_eq!(largest, 25);
            assert_eq!(set, "128-32768");
        }
        other => panic!("expected DepthTooLarge, got {other:?}"),
    }
    // Depth-aware adder choice: 64-bit ripple needs depth 64 (no set): prefix adder.
    let (a64, s64) = plan_adder(64).unwrap();
    assert_eq!((a64, s64.name()), (Adder::Sklansky, "128-16384"));
    // 4 bits: both fit 128-8192, ripple has no more products.
    assert_eq!(plan_adder(4).unwrap().0, Adder::Ripple);
    // 16 bits: ripple (depth 16) would need 128-32768, prefix (6) fits 128-16384.
    assert_eq!(plan_adder(16).unwrap().0, Adder::Sklansky);
}

#[test]
fn full_batches_match_clear_runs_and_integers_at_the_smallest_set() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let w = 4;
    let m = mask(w);
    let ops: Vec<(&str, Box<Build>, Reference)> = vec![
        (
            "add",
            Box::new(|b, x, y| leveled::add_sklansky(b, x, y, None).bits),
            Box::new(move |x, y| x.wrapping_add(y) & m),
        ),
        (
            "add ripple",
            Box::new(|b, x, y| leveled::add_ripple(b, x, y, None).bits),
            Box::new(move |x, y| x.wrapping_add(y) & m),
        ),
        (
            "sub",
            Box::new(|b, x, y| leveled::sub(b, Adder::Sklansky, x, y).bits),
            Box::new(move |x, y| x.wrapping_sub(y) & m),
        ),
        (
            "lt, lt signed, eq",
            Box::new(|b, x, y| {
                vec![
                    leveled::lt_unsigned(b, x, y),
                    leveled::lt_signed(b, x, y),
                    leveled::eq(b, x, y),
                ]
            }),
            Box::new(move |x, y| {
                u64::from(x < y) | u64::from(sext(x, 4) < sext(y, 4)) << 1 | u64::from(x == y) << 2
            }),
        ),
        (
            "select by x < y",
            Box::new(|b, x, y| {
                let s = leveled::lt_unsigned(b, x, y);
                encint_arith::bits::select(b, s, x, y).bits
            }),
            Box::new(|x, y| x.min(y)),
        ),
    ];
    let circuits: Vec<BitCircuit> = ops.iter().map(|(_, f, _)| circuit(w, f.as_ref())).collect();
    let mut depth = 0;
    for c in &circuits {
        depth = depth.max(FvProgram::compile(c).unwrap().depth());
    }
    let set = choose_set(depth).unwrap();
    assert_eq!(set.name(), "128-8192", "CI runs at the smallest set");
    let (client, server) = FvBitsClientKey::generate(&set).unwrap();
    for ((name, _, reference), c) in ops.iter().zip(&circuits) {
        let d = check_op(&client, &server, w, c, reference.as_ref(), &mut rng);
        assert!(d <= set.usable_depth, "{name}");
    }
    // 2-bit multiplication fits the smallest set too.
    let mul2 = circuit(2, &|b, x, y| leveled::mul(b, Adder::Sklansky, x, y).bits);
    check_op(&client, &server, 2, &mul2, &|x, y| (x * y) & 3, &mut rng);
    // The eager API: signed words against i64 arithmetic.
    let n = set.slots();
    let xs: Vec<i64> = (0..n).map(|_| rng.gen_range(-8..8)).collect();
    let ys: Vec<i64> = (0..n).map(|_| rng.gen_range(-8..8)).collect();
    let a = client.encrypt_signed(&xs, 4).unwrap();
    let b = client.encrypt_signed(&ys, 4).unwrap();
    let wrap = |v: i64| sext((v as u64) & 15, 4);
    let sum = client.decrypt_signed(&server.add(&a, &b).unwrap()).unwrap();
    let dif = client.decrypt_signed(&server.sub(&a, &b).unwrap()).unwrap();
    let lt = client.decrypt(&server.lt(&a, &b).unwrap()).unwrap();
    let eq = client.decrypt(&server.eq(&a, &b).unwrap()).unwrap();
    let sel = server.lt(&a, &b).unwrap();
    let min = client
        .decrypt_signed(&server.select(&sel, &a, &b).unwrap())
        .unwrap();
    for i in 0..n {
        assert_eq!(sum[i], wrap(xs[i] + ys[i]));
        assert_eq!(dif[i], wrap(xs[i] - ys[i]));
        assert_eq!(lt[i], u64::from(xs[i] < ys[i]));
        assert_eq!(eq[i], u64::from(xs[i] == ys[i]));
        assert_eq!(min[i], xs[i].min(ys[i]));
    }
}

#[test]
fn foreign_words_and_too_deep_circuits_are_refused() {
    let set = FvBitSet::by_name("128-8192").unwrap();
    let (c1, s1) = FvBitsClientKey::generate(&set).unwrap();
    let (c2, s2) = FvBitsClientKey::generate(&set).unwrap();
    let a = c1.encrypt(&[1, 2, 3], 4, false).unwrap();
    let b = c2.encrypt(&[1, 2, 3], 4, false).unwrap();
    assert!(matches!(
        s2.add(&a, &a),
        Err(FvBitsError::WrongKeySet { .. })
    ));
    assert!(matches!(
        s1.add(&a, &b),
        Err(FvBitsError::WrongKeySet { .. })
    ));
    assert!(matches!(
        c2.decrypt(&a),
        Err(FvBitsError::WrongKeySet { .. })
    ));
    // A word of another parameter set: refused by its parameter fingerprint.
    let big = FvBitSet::by_name("128-16384").unwrap();
    let (c3, _s3) = FvBitsClientKey::generate(&big).unwrap();
    let d = c3.encrypt(&[1, 2, 3], 4, false).unwrap();
    assert!(matches!(
        s1.add(&d, &d),
        Err(FvBitsError::Fv(encint_fv::FvError::ParameterMismatch(_)))
    ));
    // 4-bit multiplication needs depth 6 > 4: refused before any product.
    match s1.mul(&a, &a) {
        Err(FvBitsError::DepthExceedsKeys {
            needed, available, ..
        }) => assert_eq!((needed, available), (6, 4)),
        other => panic!("expected DepthExceedsKeys, got {other:?}"),
    }
    // Levels accumulate: after an addition (depth 4) nothing deeper fits.
    let s = s1.add(&a, &a).unwrap();
    assert_eq!(s.level(), 4);
    assert!(matches!(
        s1.eq(&s, &s),
        Err(FvBitsError::DepthExceedsKeys { input_level: 4, .. })
    ));
    // Shapes and ranges.
    assert!(matches!(
        c1.encrypt(&[16], 4, false),
        Err(FvBitsError::InvalidInput(_))
    ));
    assert!(matches!(
        c1.encrypt(&vec![0; 8193], 4, false),
        Err(FvBitsError::InvalidInput(_))
    ));
    assert!(matches!(
        c1.encrypt(&[1], 65, false),
        Err(FvBitsError::InvalidInput(_))
    ));
    let e = c1.encrypt(&[1, 2], 4, false).unwrap();
    assert!(matches!(s1.add(&a, &e), Err(FvBitsError::InvalidInput(_))));
    let f = c1.encrypt(&[1, 2, 3], 3, false).unwrap();
    assert!(matches!(s1.add(&a, &f), Err(FvBitsError::InvalidInput(_))));
    let _: &FvWord = &f;
}

/// The benchmark rows of Chen, Feng, Liu and Wu at the sets the executor picks, full random
/// batches (minutes).
#[test]
#[ignore]
fn seed_rows_full_batches() {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    type Row = (usize, Box<Build>, Reference);
    let rows: Vec<Row> = vec![
        (
            16,
            Box::new(|b, x, y| leveled::add_ripple(b, x, y, None).bits),
            Box::new(|x, y| (x + y) & 0xffff),
        ),
        (
            16,
            Box::new(|b, x, y| leveled::add_sklansky(b, x, y, None).bits),
            Box::new(|x, y| (x + y) & 0xffff),
        ),
        (
            64,
            Box::new(|b, x, y| leveled::add_sklansky(b, x, y, None).bits),
            Box::new(|x, y| x.wrapping_add(y)),
        ),
        (
            16,
            Box::new(|b, x, y| leveled::sub(b, Adder::Sklansky, x, y).bits),
            Box::new(|x, y| x.wrapping_sub(y) & 0xffff),
        ),
        (
            64,
            Box::new(|b, x, y| leveled::sub(b, Adder::Sklansky, x, y).bits),
            Box::new(|x, y| x.wrapping_sub(y)),
        ),
        (
            8,
            Box::new(|b, x, y| leveled::mul(b, Adder::Sklansky, x, y).bits),
            Box::new(|x, y| (x * y) & 0xff),
        ),
        (
            16,
            Box::new(|b, x, y| leveled::mul(b, Adder::Sklansky, x, y).bits),
            Box::new(|x, y| (x * y) & 0xffff),
        ),
        (
            4,
            Box::new(|b, x, y| leveled::div_rem_unsigned(b, x, y).0.bits),
            Box::new(|x, y| x.checked_div(y).unwrap_or(15)),
        ),
        (
            4,
            Box::new(|b, x, y| leveled::div_rem_unsigned(b, x, y).1.bits),
            Box::new(|x, y| if y == 0 { x } else { x % y }),
        ),
    ];
    let mut keys: Vec<(String, FvBitsClientKey, FvBitsServerKey)> = Vec::new();
    for (w, f, reference) in &rows {
        let c = circuit(*w, f.as_ref());
        let set = choose_set(FvProgram::compile(&c).unwrap().depth()).unwrap();
        if !keys.iter().any(|(n, _, _)| n == set.name()) {
            let (cl, sv) = FvBitsClientKey::generate(&set).unwrap();
            keys.push((set.name().to_string(), cl, sv));
        }
        let (_, cl, sv) = keys.iter().find(|(n, _, _)| n == set.name()).unwrap();
        check_op(cl, sv, *w, &c, reference.as_ref(), &mut rng);
    }
}

#[test]
fn keys_and_words_round_trip_through_checked_envelopes() {
    let set = FvBitSet::by_name("128-8192").unwrap();
    let (client, server) = FvBitsClientKey::generate(&set).unwrap();
    let xs: Vec<u64> = (0..100).map(|i| (i * 7) % 16).collect();
    let ys: Vec<u64> = (0..100).map(|i| (i * 3 + 1) % 16).collect();
    let a = client.encrypt(&xs, 4, false).unwrap();
    let b = client.encrypt(&ys, 4, false).unwrap();
    // Client key, server key and words travel as bytes.
    let client2 = FvBitsClientKey::from_bytes(&client.to_bytes().unwrap()).unwrap();
    let server2 = FvBitsServerKey::from_bytes(&server.to_bytes().unwrap()).unwrap();
    let a2 = server2
        .word_from_bytes(&client.word_to_bytes(&a).unwrap())
        .unwrap();
    let b2 = server2
        .word_from_bytes(&client.word_to_bytes(&b).unwrap())
        .unwrap();
    let s = server2.add(&a2, &b2).unwrap();
    let back = client2
        .word_from_bytes(&server2.word_to_bytes(&s).unwrap())
        .unwrap();
    let got = client2.decrypt(&back).unwrap();
    for i in 0..100 {
        assert_eq!(got[i], (xs[i] + ys[i]) % 16);
    }
    // Tampering: truncated, wrong kind, flipped bytes, another key set.
    let bytes = client.word_to_bytes(&a).unwrap();
    assert!(matches!(
        server.word_from_bytes(&bytes[..bytes.len() - 1]),
        Err(FvBitsError::Envelope(_))
    ));
    assert!(matches!(
        server.word_from_bytes(&bytes[..5]),
        Err(FvBitsError::Envelope(_))
    ));
    let kb = server.to_bytes().unwrap();
    assert!(matches!(
        server.word_from_bytes(&kb),
        Err(FvBitsError::Envelope(_))
    ));
    let mut bad = bytes.clone();
    let last = bad.len() - 1;
    bad[last] = 0xff; // top byte of the last residue: unreduced
    assert!(matches!(
        server.word_from_bytes(&bad),
        Err(FvBitsError::Fv(encint_fv::FvError::MalformedCiphertext(_)))
    ));
    let (_, other) = FvBitsClientKey::generate(&set).unwrap();
    assert!(matches!(
        other.word_from_bytes(&bytes),
        Err(FvBitsError::WrongKeySet { .. })
    ));
    assert!(FvBitsServerKey::from_bytes(&bytes).is_err());
    assert!(FvBitsClientKey::from_bytes(&kb).is_err());
}
