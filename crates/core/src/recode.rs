//! Recodings of clear scalars into signed binary: NAF, Koyama-Tsuruoka, and the sliding
//! window split used by scalar multiplication (Klemsa and Önen, "Parmesan: Parallel
//! ARithMETicS over ENcrypted data", §3.2.3).

use crate::signed::SignedDigit;

/// Bit `i` of `k`.
fn bit(k: u128, i: usize) -> i8 {
    if i < 128 {
        ((k >> i) & 1) as i8
    } else {
        0
    }
}

fn trim(mut digits: Vec<SignedDigit>) -> Vec<SignedDigit> {
    while digits.last() == Some(&0) {
        digits.pop();
    }
    digits
}

/// The non-adjacent form of `k` (least significant first): no two adjacent
/// digits are non-zero, and the Hamming weight is minimal.
///
/// ```
/// use encint_core::recode::naf;
/// assert_eq!(naf(7), vec![-1, 0, 0, 1]); // 7 = 8 - 1
/// ```
pub fn naf(k: u64) -> Vec<SignedDigit> {
    let mut digits = Vec::new();
    let mut k = u128::from(k);
    while k != 0 {
        if k & 1 == 1 {
            let d: i8 = if k & 3 == 3 { -1 } else { 1 };
            digits.push(d);
            if d == -1 {
                k += 1;
            } else {
                k -= 1;
            }
        } else {
            digits.push(0);
        }
        k >>= 1;
    }
    digits
}

/// The Koyama-Tsuruoka recoding of `k` (least significant first).
///
/// A walk `y` goes up on every 1 bit and down on every 0 bit; a run of the
/// binary expansion is rewritten as `2^top - 2^bottom + ...` as soon as the walk
/// climbs 3 above its last minimum, and closed when it falls 3 below its last
/// maximum. The result has minimal Hamming weight and, on average, longer runs of
/// zeros than NAF, which suits the window method (Koyama and Tsuruoka, CRYPTO '92;
/// Parmesan §3.2.3). Implemented from the algorithm's description; unlike at least
/// one published implementation, the result represents exactly `k`.
///
/// ```
/// use encint_core::{recode::koyama_tsuruoka, signed::to_i128};
/// let d = koyama_tsuruoka(950048719935);
/// assert_eq!(to_i128(&d).unwrap(), 950048719935);
/// ```
pub fn koyama_tsuruoka(k: u128) -> Vec<SignedDigit> {
    if k == 0 {
        return Vec::new();
    }
    let len = 128 - k.leading_zeros() as usize;
    let mut out = vec![0i8; len + 1];
    let (mut j, mut x) = (0usize, 0usize);
    let mut in_run = false; // m in the usual description
    let (mut y, mut z, mut v) = (0i64, 0i64, 0i64);
    let (mut u, mut w) = (0usize, 0usize);
    while x < len {
        y += if bit(k, x) == 1 { 1 } else { -1 };
        x += 1;
        if !in_run {
            if y - z >= 3 {
                while j < w {
                    out[j] = bit(k, j);
                    j += 1;
                }
                out[j] = -1;
                j += 1;
                v = y;
                u = x;
                in_run = true;
            } else if y < z {
                z = y;
                w = x;
            }
        } else if v - y >= 3 {
            while j < u {
                out[j] = bit(k, j) - 1;
                j += 1;
            }
            out[j] = 1;
            j += 1;
            z = y;
            w = x;
            in_run = false;
        } else if y > v {
            v = y;
            u = x;
        }
    }
    if !in_run {
        while j < x {
            out[j] = bit(k, j);
            j += 1;
        }
    } else if v <= y {
        // The walk ends at its maximum: close the run at the very top.
        while j < x {
            out[j] = bit(k, j) - 1;
            j += 1;
        }
        out[x] = 1;
    } else {
        while j < u {
            out[j] = bit(k, j) - 1;
            j += 1;
        }
        out[j] = 1;
        j += 1;
        while j < x {
            out[j] = bit(k, j);
            j += 1;
        }
    }
    trim(out)
}

/// One window of the sliding window method: `value · 2^shift`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Window {
    /// Signed value of the window; odd, `|value| < 2^width`.
    pub value: i64,
    /// Position of the window's least significant digit.
    pub shift: u32,
}

/// Splits a signed digit vector into windows of at most `width` digits, scanning
/// from the most significant digit; each window starts and ends on a non-zero
/// digit, so its value is odd (Parmesan, Figure 3).
///
/// `Σ value · 2^shift` equals the value of `digits`. `width` must be in 1..=62.
///
/// ```
/// use encint_core::recode::{koyama_tsuruoka, sliding_windows, Window};
/// let w = sliding_windows(&koyama_tsuruoka(950048719935), 12);
/// assert_eq!(w, vec![
///     Window { value: 885, shift: 30 },
///     Window { value: -3247, shift: 16 },
///     Window { value: 1087, shift: 0 },
/// ]);
/// ```
pub fn sliding_windows(digits: &[SignedDigit], width: u32) -> Vec<Window> {
    assert!((1..=62).contains(&width), "window width must be in 1..=62");
    let mut windows = Vec::new();
    let mut i = digits.len();
    while i > 0 {
        let top = i - 1;
        if digits[top] == 0 {
            i -= 1;
            continue;
        }
        let mut low = (top + 1).saturating_sub(width as usize);
        while digits[low] == 0 {
            low += 1;
        }
        let value = digits[low..=top]
            .iter()
            .rev()
            .fold(0i64, |acc, &d| acc * 2 + i64::from(d));
        windows.push(Window {
            value,
            shift: low as u32,
        });
        i = low;
    }
    windows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signed::{hamming_weight, to_i128};
    use proptest::prelude::*;

    fn value(d: &[i8]) -> i128 {
        d.iter().rev().fold(0i128, |a, &x| a * 2 + i128::from(x))
    }

    #[test]
    fn naf_is_exact_and_non_adjacent() {
        for k in 0u64..(1 << 14) {
            let d = naf(k);
            assert_eq!(value(&d), k as i128, "k = {k}");
            assert!(d.windows(2).all(|p| p[0] == 0 || p[1] == 0), "k = {k}");
        }
        assert_eq!(value(&naf(u64::MAX)), i128::from(u64::MAX));
    }

    #[test]
    fn kt_is_exact_and_minimal_weight() {
        for k in 0u128..(1 << 16) {
            let d = koyama_tsuruoka(k);
            assert_eq!(to_i128(&d).unwrap(), k as i128, "k = {k}");
            // NAF has the minimal Hamming weight among signed binary representations.
            assert_eq!(
                hamming_weight(&d),
                hamming_weight(&naf(k as u64)),
                "k = {k}"
            );
        }
    }

    #[test]
    fn paper_figure_3() {
        let d = koyama_tsuruoka(950048719935);
        let w = sliding_windows(&d, 12);
        assert_eq!(
            w,
            vec![
                Window {
                    value: 885,
                    shift: 30
                },
                Window {
                    value: -3247,
                    shift: 16
                },
                Window {
                    value: 1087,
                    shift: 0
                }
            ]
        );
    }

    proptest! {
        #[test]
        fn kt_exact_random(k in any::<u64>()) {
            prop_assert_eq!(to_i128(&koyama_tsuruoka(u128::from(k))).unwrap(), i128::from(k));
        }

        #[test]
        fn windows_reassemble(k in any::<u64>(), width in 1u32..=16) {
            let d = koyama_tsuruoka(u128::from(k));
            let ws = sliding_windows(&d, width);
            let mut sum = 0i128;
            for w in &ws {
                prop_assert!(w.value % 2 != 0);
                prop_assert!(w.value.unsigned_abs() < 1u64 << width);
                sum += i128::from(w.value) << w.shift;
            }
            prop_assert_eq!(sum, i128::from(k));
        }
    }
}
