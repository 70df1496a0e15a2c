//! Counting bits (`count_ones`, `count_zeros`, `leading_zeros`, `leading_ones`,
//! `trailing_zeros`, `trailing_ones`, `ilog2`, `checked_ilog2`, `reverse_bits`) against
//! Rust's own integers: in clear mode every value at 8 and 16 bits, signed and unsigned,
//! drawn and edge values at 32, 64 and 128 bits, and every width from 2 to 128 through
//! [`FheValue`]; on real keys at 8 and 16 bits, operands as encryption gives them.

use std::sync::Arc;

use encint::fhe::{
    compile, compile_with, FheBool, FheInt16, FheInt8, FheUint16, FheUint8, FheValue,
};
use encint::typed::{IntType, Op};
use encint::{set_server, ClientKey, FheInt, FheUint, Server, DEFAULT_PARAMETERS};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Rust's counts of `v` (a `$t`) in the order the compiled functions return them:
/// the seven counts, `checked_ilog2` as (logarithm, defined), then `reverse_bits`.
macro_rules! rust_counts {
    ($t:ty, $u:ty, $v:expr) => {{
        let v: $t = $v;
        let log = (v > 0).then(|| v.ilog2());
        // The highest one bit of the pattern (0 for 0): `ilog2` where it has no meaning.
        let highest = (v as $u).checked_ilog2().unwrap_or(0);
        vec![
            i128::from(v.count_ones()),
            i128::from(v.count_zeros()),
            i128::from(v.leading_zeros()),
            i128::from(v.leading_ones()),
            i128::from(v.trailing_zeros()),
            i128::from(v.trailing_ones()),
            i128::from(highest),
            i128::from(log.unwrap_or(highest)),
            i128::from(log.is_some()),
            v.reverse_bits() as i128,
        ]
    }};
}

/// Checks `$fhe` in clear mode on `$values` through one compiled function of every count.
macro_rules! clear_check {
    ($fhe:ty, $t:ty, $u:ty, $values:expr) => {{
        let f = compile(|x: $fhe| {
            let (log, positive) = x.checked_ilog2();
            let counts = (x.count_ones(), x.count_zeros(), x.leading_zeros());
            let more = (x.leading_ones(), x.trailing_zeros(), x.trailing_ones());
            (counts, more, (x.ilog2(), log, positive), x.reverse_bits())
        })
        .unwrap();
        let mut checked = 0;
        for v in $values {
            let v: $t = v;
            let want = rust_counts!($t, $u, v);
            let got = f.run_clear(&[v as i128]).unwrap();
            assert_eq!(got, want, "{} {v}", stringify!($t));
            checked += 1;
        }
        checked
    }};
}

/// Edge values of `$t`, single bits and their neighbours, and `$n` drawn values with any
/// number of leading and of trailing zeros.
macro_rules! values {
    ($t:ty, $u:ty, $rng:expr, $n:expr) => {{
        let bits = <$u>::BITS;
        let mut v: Vec<$t> = vec![<$t>::MIN, <$t>::MAX, 0, 1, <$t>::MAX - 1, <$t>::MIN + 1];
        for k in 0..bits {
            let p = (1 as $u) << k;
            v.extend([p as $t, (p - 1) as $t, (!p) as $t, (!(p - 1)) as $t]);
        }
        for _ in 0..$n {
            let p: $u = $rng.r#gen();
            let (s, t) = ($rng.gen_range(0..bits), $rng.gen_range(0..bits));
            v.extend([(p >> s) as $t, (p << t) as $t, ((p >> s) << t) as $t]);
        }
        v
    }};
}

#[test]
fn every_value_at_eight_and_sixteen_bits_in_clear_mode() {
    let n = clear_check!(FheUint8, u8, u8, 0..=u8::MAX);
    let m = clear_check!(FheInt8, i8, u8, i8::MIN..=i8::MAX);
    let p = clear_check!(FheUint16, u16, u16, 0..=u16::MAX);
    let q = clear_check!(FheInt16, i16, u16, i16::MIN..=i16::MAX);
    assert_eq!((n, m, p, q), (256, 256, 65536, 65536));
}

#[test]
fn wide_types_in_clear_mode() {
    let mut rng = StdRng::seed_from_u64(57);
    clear_check!(FheUint<32>, u32, u32, values!(u32, u32, rng, 20));
    clear_check!(FheInt<32>, i32, u32, values!(i32, u32, rng, 20));
    clear_check!(FheUint<64>, u64, u64, values!(u64, u64, rng, 20));
    clear_check!(FheInt<64>, i64, u64, values!(i64, u64, rng, 20));
    clear_check!(FheInt<128>, i128, u128, values!(i128, u128, rng, 20));
}

/// The counts of `p`, the pattern of a value of `n` bits, on `u128` (the reference of
/// the widths Rust has no type of).
fn pattern_counts(p: u128, n: u32) -> Vec<i128> {
    let mask = u128::MAX >> (128 - n);
    let pad = 128 - n;
    let ones = p.count_ones();
    let highest = p.checked_ilog2().unwrap_or(0);
    vec![
        ones.into(),
        (n - ones).into(),
        (p.leading_zeros() - pad).into(),
        ((p | !mask).leading_ones() - pad).into(),
        p.trailing_zeros().min(n).into(),
        p.trailing_ones().into(),
        highest.into(),
        (p.reverse_bits() >> pad) as i128,
    ]
}

#[test]
fn every_width_from_two_to_128_through_values() {
    let mut rng = StdRng::seed_from_u64(58);
    let ops = [
        Op::CountOnes,
        Op::CountZeros,
        Op::LeadingZeros,
        Op::LeadingOnes,
        Op::TrailingZeros,
        Op::TrailingOnes,
        Op::Ilog2,
        Op::ReverseBits,
    ];
    for n in 2..=128u32 {
        // Unsigned at odd widths, signed at even ones (a clear run reads `i128`).
        let ty = IntType::new(n as usize, n % 2 == 0).unwrap();
        let f = compile_with(ty, move |x: FheValue| {
            let [a, b, c, d, e, g, h, r] = ops.map(|op| x.unary(op).expect("a count of bits"));
            ((a, b), (c, d), (e, g), (h, r))
        })
        .unwrap();
        let mask = u128::MAX >> (128 - n);
        for _ in 0..12 {
            let p = (rng.r#gen::<u128>() & mask) >> rng.gen_range(0..n) << rng.gen_range(0..n);
            let p = p & mask;
            let value = ty.wrap(p as i128);
            let mut want = pattern_counts(p, n);
            // The reversed pattern read back as a value of the type.
            want[7] = ty.wrap(want[7]);
            assert_eq!(f.run_clear(&[value]).unwrap(), want, "{ty} pattern {p:#x}");
        }
    }
}

/// Checks `$fhe` on real keys, each method called on its own (one circuit each).
macro_rules! real_check {
    ($client:expr, $fhe:ty, $t:ty, $u:ty, $values:expr) => {{
        let client: &ClientKey = $client;
        for v in $values {
            let v: $t = v;
            let x = <$fhe>::encrypt(v, client).unwrap();
            let want = rust_counts!($t, $u, v);
            let d = |c: &FheUint<32>| i128::from(c.decrypt::<u32>(client).unwrap());
            let got = [
                d(&x.count_ones()),
                d(&x.count_zeros()),
                d(&x.leading_zeros()),
                d(&x.leading_ones()),
                d(&x.trailing_zeros()),
                d(&x.trailing_ones()),
                d(&x.ilog2()),
            ];
            assert_eq!(got[..], want[..7], "{} {v}", stringify!($t));
            let (log, positive) = x.checked_ilog2();
            let positive: bool = FheBool::decrypt(&positive, client).unwrap();
            assert_eq!(positive, v > 0, "checked_ilog2 {v}");
            if positive {
                assert_eq!(d(&log), want[7], "checked_ilog2 {v}");
            }
            let r = x.reverse_bits().decrypt::<$t>(client).unwrap();
            assert_eq!(r, v.reverse_bits(), "reverse_bits {v}");
        }
    }};
}

#[test]
fn on_real_keys_at_eight_and_sixteen_bits() {
    let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    set_server(Arc::new(Server::new(key)));
    let mut rng = StdRng::seed_from_u64(59);
    real_check!(&client, FheUint8, u8, u8, [0u8, 0x30, 0xff]);
    real_check!(&client, FheInt8, i8, u8, [-128i8, 6]);
    let drawn = rng.r#gen::<u16>() >> rng.gen_range(0..16);
    real_check!(&client, FheUint16, u16, u16, [drawn, 0x8000]);
    real_check!(&client, FheInt16, i16, u16, [-2i16, 0x0140]);
}
