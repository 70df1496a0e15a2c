//! Tables that share one blind rotation (several tables of one selector whose range is
//! known, side by side in one test polynomial) on real ciphertexts: a compiled program
//! whose circuit holds such rotations decrypts to plain wrapping arithmetic, and costs
//! fewer bootstraps than the same circuit with one rotation per table.

use encint::circuit::clear;
use encint::fhe::compile;
use encint::{FheUint16, FheUint8};

#[path = "common/keys.rs"]
mod keys;
use keys::client;

#[test]
fn a_polynomial_with_shared_rotations_decrypts_to_wrapping_arithmetic() {
    let client = client();
    let f =
        compile(|x: FheUint16| &(&(&(&(&(&x * 3u16) + 7u16) * &x) + 11u16) * &x) + 5u16).unwrap();
    let c = f.circuit();
    assert!(
        c.many_lut_count() > 0,
        "no shared rotation in the polynomial's circuit"
    );
    let apart = c.unpack_many();
    assert!(
        c.cost().bootstraps < apart.cost().bootstraps,
        "{} against {}",
        c.cost().bootstraps,
        apart.cost().bootstraps
    );
    let horner = |x: u16| {
        3u16.wrapping_mul(x)
            .wrapping_add(7)
            .wrapping_mul(x)
            .wrapping_add(11)
            .wrapping_mul(x)
            .wrapping_add(5)
    };
    // Every value in the clear (each shared rotation read at its tables' offsets).
    for x in 0..=u16::MAX {
        assert_eq!(
            f.run_clear(&[x.into()]).unwrap(),
            vec![i128::from(horner(x))],
            "x = {x}"
        );
    }
    for x in [0u16, 1, 0x00ff, 0x7fff, 0xffff, 12345] {
        let want = 3u16
            .wrapping_mul(x)
            .wrapping_add(7)
            .wrapping_mul(x)
            .wrapping_add(11)
            .wrapping_mul(x)
            .wrapping_add(5);
        let got = f.run(&FheUint16::encrypt(x, client).unwrap()).unwrap();
        assert_eq!(got.decrypt::<u16>(client).unwrap(), want, "x = {x}");
    }
}

#[test]
fn a_clear_weight_a_sum_and_logic_with_shared_rotations_decrypt_to_wrapping_arithmetic() {
    // `(5a + b) ^ (a >> 3)` on u8: a product by a clear weight, a sum and a logic step
    // on blocks, with shared rotations where a selector's range is small.
    let client = client();
    let f = compile(|(a, b): (FheUint8, FheUint8)| &(&(&a * 5u8) + &b) ^ &(&a >> 3u32)).unwrap();
    let c = f.circuit();
    assert!(c.many_lut_count() > 0, "no shared rotation in the circuit");
    // In the clear, over every pair of a and of b in steps of 7: the circuit with its
    // shared rotations (the clear executor reads each one's test polynomial at the tables'
    // offsets, as a bootstrap does) and the same circuit taken apart, against plain
    // arithmetic.
    let apart = c.unpack_many();
    for a in 0..=255u8 {
        for b in (0..=255u8).step_by(7) {
            let want = (a.wrapping_mul(5).wrapping_add(b)) ^ (a >> 3);
            assert_eq!(
                f.run_clear(&[a.into(), b.into()]).unwrap(),
                vec![i128::from(want)]
            );
            let digits: Vec<i64> = [a, b]
                .iter()
                .flat_map(|&v| (0..4).map(move |k| i64::from((v >> (2 * k)) & 3)))
                .collect();
            let (out, _) = clear::run(&apart, &digits).unwrap();
            let got = out.iter().rev().fold(0u32, |acc, &d| 4 * acc + d as u32);
            assert_eq!(got, u32::from(want), "taken apart: {a}, {b}");
        }
    }
    for (a, b) in [(0u8, 0u8), (255, 255), (17, 200), (128, 1), (99, 77)] {
        let want = (a.wrapping_mul(5).wrapping_add(b)) ^ (a >> 3);
        let x = FheUint8::encrypt(a, client).unwrap();
        let y = FheUint8::encrypt(b, client).unwrap();
        let got = f.run(&(x, y)).unwrap();
        assert_eq!(got.decrypt::<u8>(client).unwrap(), want, "{a}, {b}");
    }
}
