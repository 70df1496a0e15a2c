//! Signum-based operations (Parmesan, §4): signum (Algorithm 6), comparisons,
//! maximum and minimum (Algorithm 7), rounding (Algorithm 8), absolute value and
//! floor division by a power of two.

use encint_core::circuit::{Builder, NodeId};

use crate::add::refresh;
use crate::mul::digit_product;
use crate::{luts, Arith, SInt};

/// The function a sign reduction ends with, on the value `v` of the last group
/// (which has the sign of the whole input).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Final {
    Sign,
    NonNegative,
    Negative,
    Zero,
    NonZero,
}

impl Final {
    fn f(self) -> fn(i64) -> i64 {
        match self {
            Final::Sign => i64::signum,
            Final::NonNegative => |v| i64::from(v >= 0),
            Final::Negative => |v| i64::from(v < 0),
            Final::Zero => |v| i64::from(v == 0),
            Final::NonZero => |v| i64::from(v != 0),
        }
    }

    /// Largest group range `±r` on which the final table is negacyclic: 15 for
    /// odd-like functions, 7 for the others (there the negative half lands on
    /// table entries the positive half does not use).
    fn max_range(self) -> i64 {
        if luts::final_table(15, self.f()).is_some() {
            15
        } else {
            7
        }
    }
}

impl Arith {
    /// Digits per group in the first (bootstrap-free) level: `Σ_{i<g} 4^i` must fit
    /// the noise budget (4 digits = 85 for Parmesan's form, 3 digits = 21 within 25).
    fn first_group(&self) -> usize {
        (1..=4)
            .rev()
            .find(|&g| (0..g).map(|i| 1u64 << (2 * i)).sum::<u64>() <= self.config.max_qweight)
            .unwrap_or(1)
    }

    /// Algorithm 6 with the first-level saving: groups of raw digits are summed
    /// with weights `2^i` (no bootstrap), then each level bootstraps `2^i·sgn` of
    /// every group value and sums groups of 4, until one group remains and the
    /// final function is applied.
    pub(crate) fn sign_reduce(&self, b: &mut Builder, digits: &[NodeId], fin: Final) -> NodeId {
        let f = fin.f();
        if digits.is_empty() {
            return b.constant(f(0));
        }
        let limit = fin.max_range();
        // A single raw digit already is its own signum.
        if digits.len() == 1 && fin == Final::Sign {
            return digits[0];
        }
        let g0 = self.first_group();
        // (node, range) of the current elements, least significant first.
        let mut elems: Vec<(NodeId, i64)> = digits
            .chunks(g0)
            .map(|c| {
                let terms: Vec<(NodeId, i64)> =
                    c.iter().enumerate().map(|(i, &d)| (d, 1i64 << i)).collect();
                (b.linear(&terms, 0), (1i64 << c.len()) - 1)
            })
            .collect();
        loop {
            if elems.len() == 1 && elems[0].1 <= limit {
                let table = luts::final_table(elems[0].1, f).expect("range within limit");
                return b.lut(elems[0].0, &table);
            }
            // Group size: 4 (range 15) as in the paper; near the end, pick it so
            // that the last group's range suits the final table.
            let gamma = if elems.len() <= 4 {
                if ((1i64 << elems.len()) - 1) <= limit {
                    elems.len()
                } else {
                    2
                }
            } else {
                4
            };
            elems = elems
                .chunks(gamma)
                .map(|c| {
                    let terms: Vec<(NodeId, i64)> = c
                        .iter()
                        .enumerate()
                        .map(|(i, &(e, _))| (b.lut(e, &luts::scaled_sign(i as u32)), 1))
                        .collect();
                    (b.linear(&terms, 0), (1i64 << c.len()) - 1)
                })
                .collect();
        }
    }

    /// `sgn(x)` as one digit.
    pub fn signum(&self, b: &mut Builder, x: &SInt) -> NodeId {
        b.labelled("sgn", |b| self.sign_reduce(b, &x.digits, Final::Sign))
    }

    fn compare(&self, b: &mut Builder, x: &SInt, y: &SInt, fin: Final, label: &str) -> NodeId {
        b.labelled(label, |b| {
            let r = self.sub(b, x, y);
            b.labelled(label, |b| self.sign_reduce(b, &r.digits, fin))
        })
    }

    /// `[x < y]` as a 0/1 digit.
    pub fn lt(&self, b: &mut Builder, x: &SInt, y: &SInt) -> NodeId {
        self.compare(b, x, y, Final::Negative, "lt")
    }
    /// `[x <= y]`.
    pub fn le(&self, b: &mut Builder, x: &SInt, y: &SInt) -> NodeId {
        self.compare(b, y, x, Final::NonNegative, "le")
    }
    /// `[x > y]`.
    pub fn gt(&self, b: &mut Builder, x: &SInt, y: &SInt) -> NodeId {
        self.compare(b, y, x, Final::Negative, "gt")
    }
    /// `[x >= y]`.
    pub fn ge(&self, b: &mut Builder, x: &SInt, y: &SInt) -> NodeId {
        self.compare(b, x, y, Final::NonNegative, "ge")
    }
    /// `[x == y]`.
    pub fn eq(&self, b: &mut Builder, x: &SInt, y: &SInt) -> NodeId {
        self.compare(b, x, y, Final::Zero, "eq")
    }
    /// `[x != y]`.
    pub fn ne(&self, b: &mut Builder, x: &SInt, y: &SInt) -> NodeId {
        self.compare(b, x, y, Final::NonZero, "ne")
    }

    /// `max(x, y)` (Algorithm 7). In Parmesan's form one LUT per digit on
    /// `s + 2x_i + 6y_i` (quadratic weight 41); within a smaller budget,
    /// `t_i = s·(x_i - y_i)` from `s + 3(x_i - y_i)` (weight 19) and the digit
    /// `y_i + t_i` refreshed: one more bootstrap per digit and one more level.
    pub fn max(&self, b: &mut Builder, x: &SInt, y: &SInt) -> SInt {
        b.labelled("max", |b| {
            let r = self.sub(b, x, y);
            let s = b.labelled("max", |b| {
                self.sign_reduce(b, &r.digits, Final::NonNegative)
            });
            let n = x.len().max(y.len());
            let zero = b.constant(0);
            let digits = (0..n)
                .map(|i| {
                    let (xi, yi) = (x.digit(i, zero), y.digit(i, zero));
                    if self.config.max_qweight >= 41 {
                        let sel = b.linear(&[(s, 1), (xi, 2), (yi, 6)], 0);
                        b.lut(sel, &luts::max_select())
                    } else {
                        let sel = b.linear(&[(s, 1), (xi, 3), (yi, -3)], 0);
                        let t = b.lut(sel, &luts::gated_difference());
                        let m = b.linear(&[(yi, 1), (t, 1)], 0);
                        refresh(b, m)
                    }
                })
                .collect();
            SInt { digits }.trimmed(b)
        })
    }

    /// `min(x, y) = -max(-x, -y)` (negations are free).
    pub fn min(&self, b: &mut Builder, x: &SInt, y: &SInt) -> SInt {
        b.labelled("min", |b| {
            let (nx, ny) = (x.neg(b), y.neg(b));
            let m = self.max(b, &nx, &ny);
            m.neg(b)
        })
    }

    /// `|x|`: the signum, then every digit times it (one LUT per digit).
    pub fn abs(&self, b: &mut Builder, x: &SInt) -> SInt {
        b.labelled("abs", |b| {
            let s = self.sign_reduce(b, &x.digits, Final::Sign);
            let digits = x.digits.iter().map(|&d| digit_product(b, d, s)).collect();
            SInt { digits }.trimmed(b)
        })
    }

    /// Rounding at bit `i` (Algorithm 8): `⌊x / 2^i + 1/2⌋ · 2^i` (half up).
    pub fn round_at(&self, b: &mut Builder, x: &SInt, i: usize) -> SInt {
        b.labelled("round", |b| {
            let n = x.len();
            if i == 0 {
                return x.clone();
            }
            if i > n {
                return SInt::default();
            }
            let t = if i == 1 {
                // s is the sign of nothing (0): the selector is 2·x_0.
                b.lut(x.digits[0], &luts::is_one())
            } else {
                let s = self.sign_reduce(b, &x.digits[..i - 1], Final::Sign);
                let sel = b.linear(&[(x.digits[i - 1], 2), (s, 1)], 0);
                b.lut(sel, &luts::round_bit())
            };
            let high = SInt {
                digits: x.digits[i..].to_vec(),
            };
            let u = self.add(b, &high, &SInt { digits: vec![t] });
            u.shl(b, i)
        })
    }

    /// `⌊x / 2^k⌋` (floor division by a power of two): the high digits plus
    /// `-[low part < 0]`.
    pub fn shr(&self, b: &mut Builder, x: &SInt, k: usize) -> SInt {
        b.labelled("shr", |b| {
            if k == 0 {
                return x.clone();
            }
            if k >= x.len() {
                // The value is the sign-floor of x / 2^k: 0 or -1.
                let neg = self.sign_reduce(b, &x.digits, Final::Negative);
                let d = b.neg(neg);
                return SInt { digits: vec![d] }.trimmed(b);
            }
            let neg = self.sign_reduce(b, &x.digits[..k], Final::Negative);
            let t = b.neg(neg);
            let high = SInt {
                digits: x.digits[k..].to_vec(),
            };
            self.add(b, &high, &SInt { digits: vec![t] })
        })
    }
}
