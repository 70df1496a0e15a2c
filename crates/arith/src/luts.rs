//! The lookup tables of the algorithms, built from their defining functions
//! (so every table is checked to be negacyclic when it is made).

use encint_core::lut::NegacyclicLut;

fn make(domain: impl IntoIterator<Item = i64>, f: impl Fn(i64) -> i64) -> NegacyclicLut {
    NegacyclicLut::from_fn(domain, f).expect("algorithm LUTs are negacyclic by design")
}

/// The three-valued step: 1 from `up` on, -1 up to `down`, 0 between.
fn step(up: i64, down: i64) -> impl Fn(i64) -> i64 {
    move |s| {
        if s >= up {
            1
        } else if s <= down {
            -1
        } else {
            0
        }
    }
}

/// Carry of parallel addition from the selector `w_{i-1} + 3 w_i` (eq. 10: `≷ ±4`).
pub fn carry() -> NegacyclicLut {
    make(-8..=8, step(4, -4))
}

/// Identity on a digit (refresh).
pub fn identity() -> NegacyclicLut {
    make(-2..=2, |s| s)
}

/// Product of two signed bits from `3x + y` (Algorithm 4).
pub fn bit_product() -> NegacyclicLut {
    make(-4..=4, |s| {
        let x = (s + 1).div_euclid(3);
        let y = s - 3 * x;
        x * y
    })
}

/// `2^scale · sgn(v)` on `[-15, 15]` (Algorithm 6, line 9).
pub fn scaled_sign(scale: u32) -> NegacyclicLut {
    make(-15..=15, |v| v.signum() << scale)
}

/// Bit `k` of `v²` for `|v| <= max` (Algorithm 10).
pub fn square_bit(k: u32, max: i64) -> NegacyclicLut {
    make(-max..=max, |v| ((v * v) >> k) & 1)
}

/// A final comparison table on a group sum of range `±range`.
pub fn final_table(range: i64, f: fn(i64) -> i64) -> Option<NegacyclicLut> {
    NegacyclicLut::from_fn(-range..=range, f).ok()
}

/// Parmesan's maximum selector `s + 2 x_i + 6 y_i`, `s = [X >= Y]` (Algorithm 7).
pub fn max_select() -> NegacyclicLut {
    let mut domain = Vec::new();
    for s in 0..=1 {
        for x in -1..=1 {
            for y in -1..=1 {
                domain.push((s, x, y));
            }
        }
    }
    let f = |sel: i64| -> i64 {
        for &(s, x, y) in &domain {
            if s + 2 * x + 6 * y == sel {
                return if s == 1 { x } else { y };
            }
        }
        0
    };
    make(domain.iter().map(|&(s, x, y)| s + 2 * x + 6 * y), f)
}

/// `s · d` from the selector `s + 3 d`, `s ∈ {0, 1}`, `d ∈ [-2, 2]` (maximum within
/// a noise budget of 25: weight 1 + 9·2 = 19).
pub fn gated_difference() -> NegacyclicLut {
    let sels: Vec<i64> = (0..=1)
        .flat_map(|s| (-2..=2).map(move |d| s + 3 * d))
        .collect();
    make(sels, |sel| {
        let s = sel.rem_euclid(3);
        let d = (sel - s) / 3;
        s * d
    })
}

/// Rounding's `⌊r⌉` from the selector `2 x_{i-1} + s` (Algorithm 8, Figure 7),
/// rounding half up.
pub fn round_bit() -> NegacyclicLut {
    make(-3..=3, step(2, -3))
}

/// `[x = 1]` on a digit: rounding at position 1, half up.
pub fn is_one() -> NegacyclicLut {
    make(-1..=1, |x| i64::from(x == 1))
}
