//! The reference of the typed operations: arbitrary-precision (`BigInt`) arithmetic on the
//! values of the type, widths 1..=128 (shared by the clear property tests and the
//! real-crypto tests).
// Each including test uses part of it.
#![allow(dead_code)]

use encint_arith::typed::{IntType, Op};
use num_bigint::{BigInt, BigUint};

/// `2^k` as a `BigInt`.
pub fn pow2(k: usize) -> BigInt {
    BigInt::from(1) << k
}

/// The value of `ty` congruent to `v` modulo `2^bits` (written here, independently of
/// [`IntType::wrap`]).
pub fn wrap_big(ty: IntType, v: &BigInt) -> BigInt {
    let m = pow2(ty.bits);
    let mut u = v % &m;
    if u < BigInt::from(0) {
        u += &m;
    }
    if ty.signed && u >= pow2(ty.bits - 1) {
        u -= &m;
    }
    u
}

/// The unsigned `bits`-bit pattern of `v` (its two's complement modulo `2^bits`).
pub fn pattern_big(ty: IntType, v: &BigInt) -> BigUint {
    let unsigned = IntType {
        bits: ty.bits,
        signed: false,
    };
    wrap_big(unsigned, v)
        .to_biguint()
        .expect("an unsigned value is not negative")
}

/// `v` (at most 128 bits) as an `i128` congruent to it modulo `2^128`: itself when it fits,
/// else (an unsigned value past `i128::MAX`) `v - 2^128`.
pub fn to_i128(v: &BigInt) -> i128 {
    i128::try_from(v)
        .unwrap_or_else(|_| i128::try_from(v - pow2(128)).expect("a value of at most 128 bits"))
}

/// The operation on values of `ty` with `BigInt` arithmetic (any integers may be given:
/// they are read modulo `2^bits`; the select condition by its parity).
pub fn reference_big(op: Op, ty: IntType, args: &[BigInt]) -> BigInt {
    let n = ty.bits;
    let zero = BigInt::from(0);
    let w = |v: BigInt| wrap_big(ty, &v);
    let c: Vec<BigInt> = args.iter().map(|v| wrap_big(ty, v)).collect();
    let from_pattern = |u: BigUint| wrap_big(ty, &BigInt::from(u));
    let mask = (BigUint::from(1u8) << n) - 1u8;
    let width = BigUint::from(n);
    // Shift amounts: an encrypted amount is its operand's unsigned n-bit pattern.
    let amount = |v: &BigInt| pattern_big(ty, v);
    let shift_left = |x: &BigInt, s: &BigUint| {
        if *s >= width {
            zero.clone()
        } else {
            w(x * pow2(usize::try_from(s).expect("below the width")))
        }
    };
    let shift_right = |x: &BigInt, s: &BigUint| {
        if *s >= width {
            if ty.signed && *x < zero {
                BigInt::from(-1)
            } else {
                zero.clone()
            }
        } else {
            // Floor division by 2^s (an arithmetic shift for negative values).
            let d = pow2(usize::try_from(s).expect("below the width"));
            let q = x / &d;
            if *x < zero && &q * &d != *x {
                q - 1
            } else {
                q
            }
        }
    };
    // Rotation left by `s mod n` (right by `s`: left by `n - s mod n`).
    let rotate_left = |x: &BigInt, s: &BigUint| {
        let u = pattern_big(ty, x);
        let r = usize::try_from(s % &width).expect("below the width");
        if r == 0 {
            from_pattern(u)
        } else {
            from_pattern(((&u << r) | (&u >> (n - r))) & &mask)
        }
    };
    let right_amount = |s: &BigUint| (&width - s % &width) % &width;
    let div = |x: &BigInt, d: &BigInt| {
        if *d == zero {
            if !ty.signed || *x >= zero {
                w(BigInt::from(-1))
            } else {
                w(BigInt::from(1))
            }
        } else {
            // `/` truncates towards zero; MIN / -1 wraps to MIN.
            w(x / d)
        }
    };
    let rem = |x: &BigInt, d: &BigInt| {
        if *d == zero {
            x.clone()
        } else {
            w(x % d)
        }
    };
    let b = |v: bool| BigInt::from(u8::from(v));
    let big = |k: i128| BigInt::from(k);
    let bitwise = |f: fn(&BigUint, &BigUint) -> BigUint| {
        from_pattern(f(&pattern_big(ty, &c[0]), &pattern_big(ty, &c[1])))
    };
    match op {
        Op::Add => w(&c[0] + &c[1]),
        Op::Sub => w(&c[0] - &c[1]),
        Op::Neg => w(-&c[0]),
        Op::Mul => w(&c[0] * &c[1]),
        Op::Square => w(&c[0] * &c[0]),
        Op::ScalarMul(k) => w(&c[0] * w(big(k))),
        Op::And => bitwise(|p, q| p & q),
        Op::Or => bitwise(|p, q| p | q),
        Op::Xor => bitwise(|p, q| p ^ q),
        Op::Not => from_pattern(&mask - pattern_big(ty, &c[0])),
        Op::Shl(k) => shift_left(&c[0], &BigUint::from(k)),
        Op::Shr(k) => shift_right(&c[0], &BigUint::from(k)),
        Op::Rotl(k) => rotate_left(&c[0], &BigUint::from(k)),
        Op::Rotr(k) => rotate_left(&c[0], &right_amount(&BigUint::from(k))),
        Op::ShlVar => shift_left(&c[0], &amount(&c[1])),
        Op::ShrVar => shift_right(&c[0], &amount(&c[1])),
        Op::RotlVar => rotate_left(&c[0], &amount(&c[1])),
        Op::RotrVar => rotate_left(&c[0], &right_amount(&amount(&c[1]))),
        Op::Select => {
            if &args[0] % 2 != zero {
                c[1].clone()
            } else {
                c[2].clone()
            }
        }
        Op::Min => c[0].clone().min(c[1].clone()),
        Op::Max => c[0].clone().max(c[1].clone()),
        Op::LT => b(c[0] < c[1]),
        Op::LE => b(c[0] <= c[1]),
        Op::GT => b(c[0] > c[1]),
        Op::GE => b(c[0] >= c[1]),
        Op::EQ => b(c[0] == c[1]),
        Op::NE => b(c[0] != c[1]),
        Op::Div => div(&c[0], &c[1]),
        Op::Rem => rem(&c[0], &c[1]),
        Op::DivScalar(k) => div(&c[0], &w(big(k))),
        Op::RemScalar(k) => rem(&c[0], &w(big(k))),
        Op::Cast(to) => wrap_big(to, &c[0]),
        Op::CountOnes => BigInt::from(pattern_big(ty, &c[0]).count_ones()),
        Op::CountZeros => BigInt::from(n as u64 - pattern_big(ty, &c[0]).count_ones()),
        Op::LeadingZeros => BigInt::from(n as u64 - pattern_big(ty, &c[0]).bits()),
        Op::LeadingOnes => BigInt::from(n as u64 - (&mask - pattern_big(ty, &c[0])).bits()),
        Op::TrailingZeros => {
            BigInt::from(pattern_big(ty, &c[0]).trailing_zeros().unwrap_or(n as u64))
        }
        Op::TrailingOnes => BigInt::from(
            (&mask - pattern_big(ty, &c[0]))
                .trailing_zeros()
                .unwrap_or(n as u64),
        ),
        Op::Ilog2 => BigInt::from(pattern_big(ty, &c[0]).bits().saturating_sub(1)),
        Op::ReverseBits => {
            let p = pattern_big(ty, &c[0]);
            let r = (0..n as u64)
                .filter(|&i| p.bit(i))
                .fold(BigUint::from(0u8), |acc, i| {
                    acc | (BigUint::from(1u8) << (n as u64 - 1 - i))
                });
            from_pattern(r)
        }
        Op::MulLow | Op::FloorDiv | Op::Mod | Op::Abs | Op::Signum | Op::Round(_) => {
            panic!("{op} is not an operation of the typed planner")
        }
    }
}

/// [`reference_big`] on `i128` values: an unsigned 128-bit value past `i128::MAX` is given
/// and returned as its `i128` pattern (negative), as [`IntType::wrap`] reads it.
pub fn reference(op: Op, ty: IntType, args: &[i128]) -> i128 {
    let big: Vec<BigInt> = args.iter().map(|&v| BigInt::from(v)).collect();
    to_i128(&reference_big(op, ty, &big))
}
