//! Bit-vector operations on real ciphertexts at small widths, against plain arithmetic
//! and against the clear run of the same boolean circuit.

use std::sync::OnceLock;

use encint::bits::{decrypt_bits, encrypt_bits, EncBits};
use encint::{decrypt, encrypt, ClientKey, Server, DEFAULT_PARAMETERS};
use encint_arith::bits::{self, BitKernel};
use rand::{Rng, SeedableRng};

fn keys() -> &'static (ClientKey, Server) {
    static KEYS: OnceLock<(ClientKey, Server)> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        (client, Server::new(key))
    })
}

fn wrap(v: i128, w: usize, signed: bool) -> i128 {
    let u = v.rem_euclid(1 << w);
    if signed && u >= 1 << (w - 1) {
        u - (1 << w)
    } else {
        u
    }
}

#[test]
fn eager_operations_at_four_bits() {
    let (client, server) = keys();
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let w = 4;
    for signed in [false, true] {
        let (lo, hi) = if signed { (-8i128, 7i128) } else { (0, 15) };
        for _ in 0..2 {
            let (x, y) = (rng.gen_range(lo..=hi), rng.gen_range(lo..=hi));
            let (ex, ey) = (
                encrypt_bits(client, x, w, signed).unwrap(),
                encrypt_bits(client, y, w, signed).unwrap(),
            );
            let d = |r: EncBits| decrypt_bits(client, &r).unwrap();
            assert_eq!(
                d(server.bits_add(&ex, &ey).unwrap()),
                wrap(x + y, w, signed)
            );
            assert_eq!(
                d(server.bits_sub(&ex, &ey).unwrap()),
                wrap(x - y, w, signed)
            );
            assert_eq!(
                d(server.bits_mul(&ex, &ey).unwrap()),
                wrap(x * y, w, signed)
            );
            assert_eq!(
                d(server.bits_xor(&ex, &ey).unwrap()),
                wrap(x ^ y, w, signed)
            );
            assert_eq!(d(server.bits_lt(&ex, &ey).unwrap()), i128::from(x < y));
            let (q, r) = if y == 0 {
                (
                    if signed && x < 0 {
                        1
                    } else {
                        wrap(-1, w, signed)
                    },
                    x,
                )
            } else {
                (wrap(x.wrapping_div(y), w, signed), x.wrapping_rem(y))
            };
            assert_eq!(d(server.bits_div(&ex, &ey).unwrap()), q, "{x} / {y}");
            assert_eq!(d(server.bits_rem(&ex, &ey).unwrap()), r, "{x} % {y}");
        }
    }
}

#[test]
fn named_rows_match_the_clear_circuit() {
    let (client, server) = keys();
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    for (op, w, n) in [
        (BitKernel::MulFull, 3, 1),
        (BitKernel::Dot, 3, 2),
        (BitKernel::ConvV2, 2, 1),
    ] {
        let c = op.circuit(w, n).unwrap();
        let vals: Vec<u128> = (0..op.input_words(n))
            .map(|_| rng.gen_range(0..1u128 << w))
            .collect();
        let ins: Vec<EncBits> = vals
            .iter()
            .map(|&v| encrypt_bits(client, v as i128, w, false).unwrap())
            .collect();
        let refs: Vec<&EncBits> = ins.iter().collect();
        let (out, cost) = server.bits_run(&c, &refs, false).unwrap();
        assert!(cost.max_qweight <= 25);
        let clear: Vec<bool> = vals.iter().flat_map(|&v| bits::to_bits(v, w)).collect();
        let want = bits::from_bits(&c.eval(&clear).unwrap());
        assert_eq!(decrypt_bits(client, &out).unwrap() as u128, want, "{op:?}");
    }
}

#[test]
fn conversions_between_digits_and_bits() {
    let (client, server) = keys();
    for v in [-7i128, 0, 5] {
        let x = encrypt(client, v, 3).unwrap();
        let b = server.bits_from_int(&x, 5).unwrap();
        assert_eq!(decrypt_bits(client, &b).unwrap(), v);
        let back = server.bits_to_int(&b).unwrap();
        assert_eq!(decrypt(client, &back).unwrap(), v);
    }
    assert!(encrypt_bits(client, 16, 4, false).is_err());
    assert!(encrypt_bits(client, -9, 4, true).is_err());
    assert!(encrypt_bits(client, 1, 0, false).is_err());
}

#[test]
fn traced_circuit_of_every_other_operation_at_three_bits() {
    let (client, server) = keys();
    let w = 3;
    for (x, y) in [(3i128, 2i128), (-4, 3), (-1, -4)] {
        let ex = encrypt_bits(client, x, w, true).unwrap();
        let ey = encrypt_bits(client, y, w, true).unwrap();
        let (out, cost) = server
            .bits_eval(&[&ex, &ey], |b, v| {
                let (a, s) = (&v[0], &v[1]);
                let sel = bits::ge_signed(b, a, s);
                let eq = bits::eq(b, a, s);
                vec![
                    (bits::shl_var(b, a, s), false),
                    (bits::shr_var(b, a, s), false),
                    (bits::sar_var(b, a, s), true),
                    (bits::rotl_var(b, a, s), false),
                    (bits::neg(b, a), true),
                    (bits::abs(b, a), false),
                    (bits::select(b, sel, a, s), true),
                    (bits::Word { bits: vec![eq] }, false),
                    (bits::add_prefix(b, a, s), true),
                    (bits::mul_full_signed(b, a, s), true),
                    (bits::max_unsigned(b, a, s), false),
                ]
            })
            .unwrap();
        assert!(cost.max_qweight <= 25);
        let d: Vec<i128> = out
            .iter()
            .map(|r| decrypt_bits(client, r).unwrap())
            .collect();
        let (ux, uy) = (x.rem_euclid(8), y.rem_euclid(8));
        let sh = |v: i128| if uy >= 3 { 0 } else { v };
        let k = (uy % 3) as u32;
        let want = vec![
            sh((ux << uy.min(3)) & 7),
            sh(ux >> uy.min(3)),
            if uy >= 3 { x >> 2 } else { x >> uy },
            ((ux << k) | (ux >> ((3 - k) % 3))) & 7,
            wrap(-x, w, true),
            x.abs().rem_euclid(8),
            x.max(y),
            i128::from(x == y),
            wrap(x + y, w, true),
            x * y,
            ux.max(uy),
        ];
        assert_eq!(d, want, "x = {x}, y = {y}");
    }
}

/// Bits of another key set are refused by the server and by the other client key, with
/// typed errors (the key-set binding of ciphertexts, applied to bit vectors).
#[test]
fn bits_of_another_key_set_are_refused() {
    let (client, server) = keys();
    let (other_client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    let mine = encrypt_bits(client, 5, 4, false).unwrap();
    let theirs = encrypt_bits(&other_client, 3, 4, false).unwrap();
    assert!(matches!(
        server.bits_add(&mine, &theirs),
        Err(encint::Error::KeySetMismatch { position: 1, .. })
    ));
    assert!(matches!(
        server.bits_to_int(&theirs),
        Err(encint::Error::KeySetMismatch { position: 0, .. })
    ));
    assert!(matches!(
        decrypt_bits(&other_client, &mine),
        Err(encint::Error::WrongClientKey { .. })
    ));
    assert_eq!(decrypt_bits(client, &mine).unwrap(), 5);
}
