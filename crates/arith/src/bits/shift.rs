//! Shifts and rotations, by a constant (free wiring) and by an encrypted amount
//! (a barrel shifter: one MUX per bit per amount bit).

use encint_core::bits::{Bit, BitBuilder};

use super::{any, Word};

/// `x << k` (zeros in; `k ≥ width` gives 0).
pub fn shl(b: &mut BitBuilder, x: &Word, k: usize) -> Word {
    let zero = b.constant(false);
    Word {
        bits: (0..x.width())
            .map(|i| if i >= k { x.bits[i - k] } else { zero })
            .collect(),
    }
}

fn shr_fill(x: &Word, k: usize, fill: Bit) -> Word {
    Word {
        bits: (0..x.width())
            .map(|i| x.bits.get(i + k).copied().unwrap_or(fill))
            .collect(),
    }
}

/// `x >> k`, logical (zeros in).
pub fn shr(b: &mut BitBuilder, x: &Word, k: usize) -> Word {
    let zero = b.constant(false);
    shr_fill(x, k, zero)
}

/// `x >> k`, arithmetic (copies of the sign bit in).
pub fn sar(b: &mut BitBuilder, x: &Word, k: usize) -> Word {
    let s = x.msb(b);
    shr_fill(x, k, s)
}

/// `x` rotated left by `k mod width`.
pub fn rotl(x: &Word, k: usize) -> Word {
    let w = x.width();
    if w == 0 {
        return x.clone();
    }
    Word {
        bits: (0..w).map(|i| x.bits[(i + w - k % w) % w]).collect(),
    }
}

/// `x` rotated right by `k mod width`.
pub fn rotr(x: &Word, k: usize) -> Word {
    let w = x.width();
    if w == 0 {
        return x.clone();
    }
    rotl(x, w - k % w)
}

/// Barrel shifter: for each bit `j` of `amount` whose shift `2^j` is below the width,
/// `x ← amount_j ? step(x, 2^j) : x`; bits of `amount` at or above the width force `big`.
fn barrel(
    b: &mut BitBuilder,
    x: &Word,
    amount: &Word,
    step: impl Fn(&mut BitBuilder, &Word, usize) -> Word,
    big: Option<Bit>,
) -> Word {
    let w = x.width();
    let mut cur = x.clone();
    let mut high = Vec::new();
    for (j, &s) in amount.bits.iter().enumerate() {
        if j < usize::BITS as usize && (1usize << j) < w {
            let moved = step(b, &cur, 1 << j);
            cur = super::select(b, s, &moved, &cur);
        } else {
            high.push(s);
        }
    }
    match big {
        Some(fill) if !high.is_empty() && w > 0 => {
            let over = any(b, &high);
            let fills = Word {
                bits: vec![fill; w],
            };
            super::select(b, over, &fills, &cur)
        }
        _ => cur,
    }
}

/// `x << amount` (unsigned encrypted amount; `amount ≥ width` gives 0).
pub fn shl_var(b: &mut BitBuilder, x: &Word, amount: &Word) -> Word {
    let zero = b.constant(false);
    barrel(b, x, amount, shl, Some(zero))
}

/// `x >> amount`, logical (`amount ≥ width` gives 0).
pub fn shr_var(b: &mut BitBuilder, x: &Word, amount: &Word) -> Word {
    let zero = b.constant(false);
    barrel(b, x, amount, shr, Some(zero))
}

/// `x >> amount`, arithmetic (`amount ≥ width` gives all sign bits).
pub fn sar_var(b: &mut BitBuilder, x: &Word, amount: &Word) -> Word {
    let s = x.msb(b);
    barrel(b, x, amount, sar, Some(s))
}

/// `x` rotated left by `amount mod width` (every amount bit `j` rotates by `2^j mod width`).
pub fn rotl_var(b: &mut BitBuilder, x: &Word, amount: &Word) -> Word {
    rot_var(b, x, amount, true)
}

/// `x` rotated right by `amount mod width`.
pub fn rotr_var(b: &mut BitBuilder, x: &Word, amount: &Word) -> Word {
    rot_var(b, x, amount, false)
}

fn rot_var(b: &mut BitBuilder, x: &Word, amount: &Word, left: bool) -> Word {
    let w = x.width();
    let mut cur = x.clone();
    if w <= 1 {
        return cur;
    }
    for (j, &s) in amount.bits.iter().enumerate() {
        let k = if j < 64 {
            ((1u128 << j) % w as u128) as usize
        } else {
            // 2^j mod w for large j, by repeated doubling.
            (0..j).fold(1usize, |acc, _| (acc * 2) % w)
        };
        if k == 0 {
            continue;
        }
        let moved = if left { rotl(&cur, k) } else { rotr(&cur, k) };
        cur = super::select(b, s, &moved, &cur);
    }
    cur
}
