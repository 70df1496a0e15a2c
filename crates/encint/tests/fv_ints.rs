//! Integers in FV slots: polynomial interpolation against the function it interpolates,
//! and on real keys (128-8192, full random batches) linear combinations, dot products,
//! polynomials and bit-sliced words against plain integer arithmetic on every slot;
//! refusals (depth past the keys' set, another key set, out-of-range values).

use encint::fv_bits::{FvBitSet, FvBitsClientKey, FvBitsError, SlotPoly};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

#[test]
fn interpolation_equals_the_function_on_its_range() {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    for (lo, hi) in [(0, 0), (3, 4), (-8, 7), (-256, 255), (-40, 700)] {
        let table: Vec<i64> = (lo..=hi).map(|_| rng.gen_range(-30000..=30000)).collect();
        let f = |v: i64| table[(v - lo) as usize];
        let p = SlotPoly::interpolate(lo, hi, f).unwrap();
        assert!(p.degree() as i64 <= hi - lo, "{lo}..={hi}");
        for v in lo..=hi {
            assert_eq!(p.eval(v), f(v), "{lo}..={hi} at {v}");
        }
        // Depth within one level of the least possible, ceil(log2(degree + 1)).
        let least = (p.degree() as f64 + 1.0).log2().ceil() as u32;
        assert!(p.depth() <= least + 1, "{lo}..={hi}: depth {}", p.depth());
    }
    // A clipped, shifted ReLU on the range of a 9-bit accumulator: degree below 512.
    let p = SlotPoly::interpolate(-256, 255, |v| (v.max(0) >> 4).min(7)).unwrap();
    assert!((-256..=255).all(|v| p.eval(v) == (v.max(0) >> 4).min(7)));
    assert!(SlotPoly::interpolate(0, 5000, |v| v).is_err());
}

#[test]
fn slot_arithmetic_matches_plain_integers_on_every_slot() {
    let set = FvBitSet::by_name("128-8192").unwrap();
    let (client, server) = FvBitsClientKey::generate(&set).unwrap();
    let n = set.slots();
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let xs: Vec<i64> = (0..n).map(|_| rng.gen_range(-8..=7)).collect();
    let ys: Vec<i64> = (0..n).map(|_| rng.gen_range(-100..=100)).collect();
    let (x, y) = (
        client.encrypt_ints(&xs, false).unwrap(),
        client.encrypt_ints(&ys, false).unwrap(),
    );
    // 3x - 2y + 5.
    let l = server.linear_ints(&[(&x, 3), (&y, -2)], 5).unwrap();
    let want: Vec<i64> = xs.iter().zip(&ys).map(|(a, b)| 3 * a - 2 * b + 5).collect();
    assert_eq!(client.decrypt_ints(&l).unwrap(), want);
    // x·y + x·x - 7, one level.
    let d = server.dot_ints(&[(&x, &y), (&x, &x)], -7).unwrap();
    assert_eq!(d.level(), 1);
    let want: Vec<i64> = xs.iter().zip(&ys).map(|(a, b)| a * b + a * a - 7).collect();
    assert_eq!(client.decrypt_ints(&d).unwrap(), want);
    // A ReLU clipped at 5 on -8..=7 (degree 15, depth 4: the set's usable depth), on x.
    let f = |v: i64| v.clamp(0, 5);
    let p = SlotPoly::interpolate(-8, 7, f).unwrap();
    assert!(p.depth() <= set.usable_depth);
    let r = server.poly_ints(&x, &p).unwrap();
    assert_eq!(r.level(), p.depth());
    let want: Vec<i64> = xs.iter().map(|&v| f(v)).collect();
    assert_eq!(client.decrypt_ints(&r).unwrap(), want);
    assert!(client.noise_budget_ints(&r).unwrap() > 0.0);
    // A constant broadcast to every slot, times x.
    let c = client.encrypt_ints(&[-3], true).unwrap();
    assert_eq!(c.len(), n);
    let cx = server.dot_ints(&[(&c, &x)], 0).unwrap();
    let want: Vec<i64> = xs.iter().map(|v| -3 * v).collect();
    assert_eq!(client.decrypt_ints(&cx).unwrap(), want);
    // A bit-sliced signed word read as integers.
    let ws: Vec<i64> = (0..n).map(|_| rng.gen_range(-16..=15)).collect();
    let w = client.encrypt_signed(&ws, 5).unwrap();
    let wi = server.word_ints(&w).unwrap();
    assert_eq!(client.decrypt_ints(&wi).unwrap(), ws);
}

#[test]
fn refusals_are_typed_errors() {
    let set = FvBitSet::by_name("128-8192").unwrap();
    let (client, server) = FvBitsClientKey::generate(&set).unwrap();
    let (other, _) = FvBitsClientKey::generate(&set).unwrap();
    let x = client.encrypt_ints(&[1, 2, 3], false).unwrap();
    let y = other.encrypt_ints(&[1, 2, 3], false).unwrap();
    assert!(matches!(
        server.linear_ints(&[(&x, 1), (&y, 1)], 0),
        Err(FvBitsError::WrongKeySet { .. })
    ));
    assert!(matches!(
        client.decrypt_ints(&y),
        Err(FvBitsError::WrongKeySet { .. })
    ));
    assert!(client.encrypt_ints(&[40000], false).is_err());
    assert!(client.encrypt_ints(&[], false).is_err());
    assert!(client
        .encrypt_ints(&vec![0; set.slots() + 1], false)
        .is_err());
    // Degree 255 needs depth 8 or 9, past the smallest set's.
    let p = SlotPoly::interpolate(0, 255, |v| v / 3).unwrap();
    assert!(p.depth() > set.measured_depth);
    assert!(matches!(server.poly_ints(&x, &p), Err(FvBitsError::Fv(_))));
}
