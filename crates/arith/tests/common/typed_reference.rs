//! The reference of the typed operations: plain i128 arithmetic on canonical values
//! (shared by the clear property tests and the real-crypto tests).

use encint_arith::typed::{IntOp, IntType};

/// The reference: the operation on canonical values with i128 arithmetic.
pub fn reference(op: IntOp, ty: IntType, args: &[i128]) -> i128 {
    let n = ty.bits;
    let w = |v: i128| ty.wrap(v);
    let c: Vec<i128> = args.iter().map(|&v| w(v)).collect();
    // Shift amounts and rotated patterns as `u128`, so that every width up to 128 works
    // (an unsigned 128-bit value past `i128::MAX` is a negative `i128` pattern).
    let mask = if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    };
    let amount = |v: i128| (v as u128) & mask;
    let shift_left = |x: i128, s: u128| if s >= n as u128 { 0 } else { w(x << s) };
    let shift_right = |x: i128, s: u128| {
        if s >= n as u128 {
            if ty.signed && x < 0 {
                -1
            } else {
                0
            }
        } else if ty.signed {
            x >> s
        } else {
            w((((x as u128) & mask) >> s) as i128)
        }
    };
    // Rotation left by `s mod n` (right by `s`: left by `n - s mod n`).
    let rotate_left = |x: i128, s: u128| {
        let u = (x as u128) & mask;
        let r = (s % n as u128) as u32;
        let rotated = if r == 0 {
            u
        } else {
            ((u << r) | (u >> (n as u32 - r))) & mask
        };
        w(rotated as i128)
    };
    let right_amount = |s: u128| (n as u128 - s % n as u128) % n as u128;
    let div = |x: i128, d: i128| {
        if d == 0 {
            if !ty.signed || x >= 0 {
                w(-1)
            } else {
                w(1)
            }
        } else {
            w(x.wrapping_div(d))
        }
    };
    let rem = |x: i128, d: i128| if d == 0 { x } else { w(x.wrapping_rem(d)) };
    let b = |v: bool| i128::from(v);
    match op {
        IntOp::WrappingAdd => w(c[0] + c[1]),
        IntOp::WrappingSub => w(c[0] - c[1]),
        IntOp::WrappingNeg => w(-c[0]),
        IntOp::WrappingMul => w(c[0] * c[1]),
        IntOp::WrappingSquare => w(c[0] * c[0]),
        IntOp::WrappingScalarMul(k) => w(c[0] * w(k)),
        IntOp::And => w(c[0] & c[1]),
        IntOp::Or => w(c[0] | c[1]),
        IntOp::Xor => w(c[0] ^ c[1]),
        IntOp::Not => w(!c[0]),
        IntOp::Shl(k) => shift_left(c[0], u128::from(k)),
        IntOp::Shr(k) => shift_right(c[0], u128::from(k)),
        IntOp::Rotl(k) => rotate_left(c[0], u128::from(k)),
        IntOp::Rotr(k) => rotate_left(c[0], right_amount(u128::from(k))),
        IntOp::ShlVar => shift_left(c[0], amount(c[1])),
        IntOp::ShrVar => shift_right(c[0], amount(c[1])),
        IntOp::RotlVar => rotate_left(c[0], amount(c[1])),
        IntOp::RotrVar => rotate_left(c[0], right_amount(amount(c[1]))),
        IntOp::Select => {
            if args[0].rem_euclid(2) == 1 {
                c[1]
            } else {
                c[2]
            }
        }
        IntOp::Min => c[0].min(c[1]),
        IntOp::Max => c[0].max(c[1]),
        IntOp::Lt => b(c[0] < c[1]),
        IntOp::Le => b(c[0] <= c[1]),
        IntOp::Gt => b(c[0] > c[1]),
        IntOp::Ge => b(c[0] >= c[1]),
        IntOp::Eq => b(c[0] == c[1]),
        IntOp::Ne => b(c[0] != c[1]),
        IntOp::Div => div(c[0], c[1]),
        IntOp::Rem => rem(c[0], c[1]),
        IntOp::DivScalar(k) => div(c[0], k),
        IntOp::RemScalar(k) => rem(c[0], k),
        IntOp::Cast(to) => to.wrap(c[0]),
    }
}
