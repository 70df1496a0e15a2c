//! Bit-level circuits on real ciphertexts at small widths (`encint::bit_circuits::run_bit_circuit`,
//! what `encint bits bench` times), against plain integer arithmetic and against the clear
//! run of the same boolean circuit.

use std::sync::OnceLock;

use encint::arith::bits::{self, BitKernel};
use encint::bit_circuits::run_bit_circuit;
use encint::circuit::bits::lower;
use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
use rand::{Rng, SeedableRng};

fn keys() -> &'static (ClientKey, Server) {
    static KEYS: OnceLock<(ClientKey, Server)> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        (client, Server::new(key))
    })
}

/// The value of `bits` (least significant first), two's complement when `signed`.
fn value(bits: &[bool], signed: bool) -> i128 {
    let u = bits::from_bits(bits) as i128;
    let w = bits.len();
    if signed && bits[w - 1] {
        u - (1 << w)
    } else {
        u
    }
}

/// `v` as a signed `w`-bit value.
fn wrap(v: i128, w: usize) -> i128 {
    let u = v.rem_euclid(1 << w);
    if u >= 1 << (w - 1) {
        u - (1 << w)
    } else {
        u
    }
}

#[test]
fn kernels_at_four_bits_match_plain_arithmetic() {
    let (client, server) = keys();
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let w = 4;
    for _ in 0..2 {
        let (x, y): (u128, u128) = (rng.gen_range(0..16), rng.gen_range(0..16));
        let want = [
            (BitKernel::Add, (x + y) % 16),
            (BitKernel::Sub, (x + 16 - y) % 16),
            (BitKernel::Mul, (x * y) % 16),
            // Unsigned division by zero: all ones, and the dividend as the remainder.
            (BitKernel::Div, x.checked_div(y).unwrap_or(15)),
            (BitKernel::Rem, x.checked_rem(y).unwrap_or(x)),
        ];
        for (op, want) in want {
            let c = op.digit_circuit(w, 1).unwrap();
            let run = run_bit_circuit(client, server, &c, &[x, y], w).unwrap();
            assert_eq!(bits::from_bits(&run.bits), want, "{op:?} {x} {y}");
            assert_eq!(run.cost.bootstraps, c.cost().bootstraps);
            assert!(run.seconds > 0.0);
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
        let run = run_bit_circuit(client, server, &lower(&c).unwrap(), &vals, w).unwrap();
        assert!(run.cost.max_qweight <= 25);
        let clear: Vec<bool> = vals.iter().flat_map(|&v| bits::to_bits(v, w)).collect();
        assert_eq!(run.bits, c.eval(&clear).unwrap(), "{op:?}");
    }
}

#[test]
fn traced_circuit_of_every_other_operation_at_three_bits() {
    let (client, server) = keys();
    let w = 3;
    let (c, shapes) = bits::trace_words(&[w, w], |b, v| {
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
    });
    let digits = lower(&c).unwrap();
    for (x, y) in [(3i128, 2i128), (-4, 3), (-1, -4)] {
        let (ux, uy) = (x.rem_euclid(8), y.rem_euclid(8));
        let run = run_bit_circuit(client, server, &digits, &[ux as u128, uy as u128], w).unwrap();
        assert!(run.cost.max_qweight <= 25);
        let mut it = run.bits.iter().copied();
        let d: Vec<i128> = shapes
            .iter()
            .map(|&(width, signed)| value(&it.by_ref().take(width).collect::<Vec<_>>(), signed))
            .collect();
        let sh = |v: i128| if uy >= 3 { 0 } else { v };
        let k = (uy % 3) as u32;
        let want = vec![
            sh((ux << uy.min(3)) & 7),
            sh(ux >> uy.min(3)),
            if uy >= 3 { x >> 2 } else { x >> uy },
            ((ux << k) | (ux >> ((3 - k) % 3))) & 7,
            wrap(-x, w),
            x.abs().rem_euclid(8),
            x.max(y),
            i128::from(x == y),
            wrap(x + y, w),
            x * y,
            ux.max(uy),
        ];
        assert_eq!(d, want, "x = {x}, y = {y}");
    }
}

/// Bad words, a circuit of another input count and a server of another key set are typed
/// errors, before anything runs.
#[test]
fn bad_input_and_another_key_set_are_refused() {
    let (client, server) = keys();
    let c = BitKernel::Add.digit_circuit(4, 1).unwrap();
    let err = |r: encint::Result<_>| r.map(|_: encint::bit_circuits::BitRun| ()).unwrap_err();
    assert!(matches!(
        err(run_bit_circuit(client, server, &c, &[16, 1], 4)),
        encint::Error::OutOfRange(_)
    ));
    assert!(matches!(
        err(run_bit_circuit(client, server, &c, &[1], 4)),
        encint::Error::ShapeMismatch(_)
    ));
    assert!(matches!(
        err(run_bit_circuit(client, server, &c, &[1, 1], 0)),
        encint::Error::TypeMismatch(_)
    ));
    let (other_client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    assert!(matches!(
        err(run_bit_circuit(&other_client, server, &c, &[5, 3], 4)),
        encint::Error::KeySetMismatch { position: 0, .. }
    ));
    let run = run_bit_circuit(client, server, &c, &[5, 3], 4).unwrap();
    assert_eq!(bits::from_bits(&run.bits), 8);
}
