//! The reference of the typed operations: plain i128 arithmetic on canonical values
//! (shared by the clear property tests and the real-crypto tests).

use encint_arith::typed::{IntOp, IntType};

/// The reference: the operation on canonical values with i128 arithmetic.
pub fn reference(op: IntOp, ty: IntType, args: &[i128]) -> i128 {
    let n = ty.bits;
    let w = |v: i128| ty.wrap(v);
    let unsigned = IntType {
        bits: n,
        signed: false,
    };
    let c: Vec<i128> = args.iter().map(|&v| w(v)).collect();
    let shift_left = |x: i128, s: i128| if s >= n as i128 { 0 } else { w(x << s) };
    let shift_right = |x: i128, s: i128| {
        let s = s.min(127) as u32;
        if s as usize >= n {
            if ty.signed && x < 0 {
                -1
            } else {
                0
            }
        } else {
            x >> s
        }
    };
    let rotate_left = |x: i128, s: i128| {
        let u = unsigned.wrap(x);
        let r = s.rem_euclid(n as i128);
        w((u << r) | (u >> (n as i128 - r)))
    };
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
        IntOp::Shl(k) => shift_left(c[0], i128::from(k)),
        IntOp::Shr(k) => shift_right(c[0], i128::from(k)),
        IntOp::Rotl(k) => rotate_left(c[0], i128::from(k)),
        IntOp::Rotr(k) => rotate_left(c[0], -i128::from(k)),
        IntOp::ShlVar => shift_left(c[0], unsigned.wrap(c[1])),
        IntOp::ShrVar => shift_right(c[0], unsigned.wrap(c[1])),
        IntOp::RotlVar => rotate_left(c[0], unsigned.wrap(c[1])),
        IntOp::RotrVar => rotate_left(c[0], -unsigned.wrap(c[1])),
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
