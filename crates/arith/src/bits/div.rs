//! Non-restoring division and remainder, unsigned and signed (Chen, Feng, Liu and Wu,
//! "Faster Binary Arithmetic Operations on Encrypted Integers").

use encint_core::bits::{Bit, BitBuilder};

use super::{abs, cond_neg, sum_columns, Word};

/// `(x / d, x % d)` of unsigned words, both `n` bits wide (`n` the wider width).
///
/// Non-restoring: an `n + 1`-bit two's-complement partial remainder `R`; for each
/// dividend bit from the top, `R ← 2R + x_i - d` if `R ≥ 0`, else `2R + x_i + d` (the
/// divisor's bits XORed with the operation bit, a ripple of full adders); the quotient bit is
/// `R ≥ 0`. A final step adds `d` back to a negative remainder.
///
/// Division by zero is defined: `x / 0 = 2^n - 1` (all ones) and `x % 0 = x`, which is
/// what the algorithm computes.
pub fn div_rem_unsigned(b: &mut BitBuilder, x: &Word, d: &Word) -> (Word, Word) {
    let n = x.width().max(d.width());
    let (x, d) = (x.resize(b, n, false), d.resize(b, n, false));
    let zero = b.constant(false);
    let mut r: Vec<Bit> = vec![zero; n + 1];
    let mut q = vec![zero; n];
    for i in (0..n).rev() {
        let sub = b.not(r[n]);
        // (2R + x_i) ± d: a ripple of full adders on (r, d_k ⊕ sub, carry), each one
        // counter whose XOR input the TFHE lowering fuses into its selector
        // (`r + c + 3(d_k + sub)`): two bootstraps per bit.
        let mut carry = sub;
        let mut next = Vec::with_capacity(n + 1);
        for k in 0..=n {
            let rk = if k == 0 { x.bits[i] } else { r[k - 1] };
            let dk = d.bits.get(k).copied().unwrap_or(zero);
            let t = b.xor(dk, sub);
            let outs = b
                .count(&[(rk, 1), (t, 1), (carry, 1)], 0)
                .expect("three unit bits");
            // A counter of constants only (a constant divisor's top steps) may have no
            // output bits: its value is then 0.
            next.push(outs.first().copied().unwrap_or(zero));
            carry = outs.get(1).copied().unwrap_or(zero);
        }
        r = next;
        q[i] = b.not(r[n]);
    }
    let neg = r[n];
    let mut cols: Vec<Vec<Bit>> = r[..n].iter().map(|&v| vec![v]).collect();
    for (k, col) in cols.iter_mut().enumerate() {
        col.push(b.and(d.bits[k], neg));
    }
    let rem = sum_columns(b, cols, n);
    (Word { bits: q }, rem)
}

/// `(x / d, x % d)` of two's-complement words, truncating like Rust's `wrapping_div` /
/// `wrapping_rem` (`MIN / -1 = MIN`, remainder 0): unsigned division of the magnitudes,
/// then the quotient negated if the signs differ and the remainder given the dividend's
/// sign.
///
/// Division by zero is defined: `x / 0 = -1` if `x ≥ 0` and `1` if `x < 0`, and
/// `x % 0 = x`.
pub fn div_rem_signed(b: &mut BitBuilder, x: &Word, d: &Word) -> (Word, Word) {
    let n = x.width().max(d.width());
    let (x, d) = (x.resize(b, n, true), d.resize(b, n, true));
    let (sx, sd) = (x.msb(b), d.msb(b));
    let (ax, ad) = (abs(b, &x), abs(b, &d));
    let (q, r) = div_rem_unsigned(b, &ax, &ad);
    let sq = b.xor(sx, sd);
    (cond_neg(b, &q, sq), cond_neg(b, &r, sx))
}
