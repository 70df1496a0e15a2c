//! Rust's own arithmetic on a primitive integer type with TFHE-rs' rules where Rust panics
//! or differs (shared by the typed family's real-crypto tests and the command's clear-run
//! tests): wrapping results, shift and rotation amounts modulo the width, a division by
//! zero giving all ones unsigned, -1 (dividend >= 0) or 1 (dividend < 0) signed, and a
//! remainder by zero equal to the dividend; comparisons give 0 or 1.

/// `|op, a, b| a op b` on `$t`, `op` an operation's name (`"add"`, `"shl"`, `"lt"`, ...;
/// `neg`, `not` and `square` read `a` alone); a shift or rotation amount is `b`'s pattern
/// as `$u`, the unsigned type of the width.
macro_rules! wrapping_reference {
    ($t:ty, $u:ty) => {
        |op: &str, a: $t, b: $t| -> $t {
            let s = (b as $u as u32) % <$t>::BITS;
            match op {
                "add" => a.wrapping_add(b),
                "sub" => a.wrapping_sub(b),
                "mul" => a.wrapping_mul(b),
                "div" if b == 0 => {
                    if (a as i128) < 0 {
                        1
                    } else {
                        !0
                    }
                }
                "div" => a.wrapping_div(b),
                "rem" if b == 0 => a,
                "rem" => a.wrapping_rem(b),
                "and" => a & b,
                "or" => a | b,
                "xor" => a ^ b,
                "shl" => a.wrapping_shl(s),
                "shr" => a.wrapping_shr(s),
                "rotl" => a.rotate_left(s),
                "rotr" => a.rotate_right(s),
                "min" => a.min(b),
                "max" => a.max(b),
                "neg" => a.wrapping_neg(),
                "not" => !a,
                "square" => a.wrapping_mul(a),
                "lt" => <$t>::from(a < b),
                "le" => <$t>::from(a <= b),
                "gt" => <$t>::from(a > b),
                "ge" => <$t>::from(a >= b),
                "eq" => <$t>::from(a == b),
                "ne" => <$t>::from(a != b),
                other => panic!("no reference for {other}"),
            }
        }
    };
}
