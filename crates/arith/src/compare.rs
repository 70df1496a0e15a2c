//! Signum-based operations (Parmesan, §4): signum (Algorithm 6), comparisons,
//! maximum and minimum (Algorithm 7), rounding (Algorithm 8), absolute value and
//! floor division by a power of two.

use encint_core::circuit::{Builder, NodeId};

use crate::add::refresh;
use crate::mul::digit_product;
use crate::{luts, Arith, Relation, SInt};

/// The function a sign reduction ends with, on the value `v` of the last group
/// (which has the sign of the whole input).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

/// The final function of the reduction of a difference for relation `rel`, and whether
/// the difference is `y − x` instead of `x − y`.
fn reduction(rel: Relation) -> (Final, bool) {
    match rel {
        Relation::Lt => (Final::Negative, false),
        Relation::Le => (Final::NonNegative, true),
        Relation::Gt => (Final::Negative, true),
        Relation::Ge => (Final::NonNegative, false),
        Relation::Eq => (Final::Zero, false),
        Relation::Ne => (Final::NonZero, false),
    }
}

/// How a comparison is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareForm {
    /// Parmesan's: the difference `x − y` (a parallel subtraction, two bootstraps per
    /// digit), then its signum (Algorithm 6); logarithmic depth.
    Signum,
    /// The carries of `x − y` in radix 4, rippled over digit pairs: one bootstrap per
    /// two digits, as deep (`carry_sign`); equality from the two strict comparisons
    /// and one more bootstrap.
    Carries,
}

/// Quadratic weight of the selectors of [`carry_sign`]: `1 + 1 + 4 + 4 + 1`.
const CARRY_QWEIGHT: u64 = 11;

/// `f(s)` of the last selector of the radix-4 carry ripple of `x − y`: with
/// `s = (x₂ₖ − y₂ₖ) + 2(x₂ₖ₊₁ − y₂ₖ₊₁) + cₖ` over the digit pairs (least significant
/// first, the last pair possibly one digit), the carry `cₖ₊₁ = ⌊s/4⌋` in {-2, …, 1} (so
/// `s` spans at most the 16 values `-8..=7`, one table each) and
/// `x − y = Σ rₖ 4^k + c_K 4^K` with every `rₖ = s mod 4` in `0..=3`: the last `s` is
/// negative exactly when `x < y`. `⌈max(|x|, |y|)/2⌉` bootstraps.
fn carry_sign(b: &mut Builder, x: &SInt, y: &SInt, f: fn(i64) -> i64) -> NodeId {
    let n = x.len().max(y.len());
    let zero = b.constant(0);
    if n == 0 {
        return b.constant(f(0));
    }
    let (mut carry, mut lo, mut hi) = (zero, 0i64, 0i64);
    let mut k = 0;
    loop {
        let pair = k + 1 < n;
        let w = if pair { 2 } else { 0 };
        let terms = [
            (x.digit(k, zero), 1),
            (y.digit(k, zero), -1),
            (x.digit(k + 1, zero), w),
            (y.digit(k + 1, zero), -w),
            (carry, 1),
        ];
        let s = b.linear(&terms, 0);
        let (slo, shi) = (lo - 2 - 2 * w, hi + 2 + 2 * w);
        if k + 2 >= n {
            return crate::blocks::table(b, s, slo, shi, f);
        }
        carry = crate::blocks::table(b, s, slo, shi, |v| v.div_euclid(4));
        (lo, hi) = (slo.div_euclid(4), shi.div_euclid(4));
        k += 2;
    }
}

/// The methods `lt`, `le`, ... of [`Arith`]: each [`Arith::cmp`] with one relation.
macro_rules! relation_methods {
    ($($(#[doc = $doc:literal])* $name:ident $rel:ident;)*) => {
        $(
            $(#[doc = $doc])*
            pub fn $name(&self, b: &mut Builder, x: &SInt, y: &SInt) -> NodeId {
                self.cmp(b, Relation::$rel, x, y)
            }
        )*
    };
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
        b.labelled(label, |b| match self.compare_form(fin, x.len(), y.len()) {
            CompareForm::Carries => self.compare_carries(b, x, y, fin),
            CompareForm::Signum => self.compare_signum(b, x, y, fin),
        })
    }

    /// The form the cost model picks for a comparison of operands of these lengths:
    /// fewer bootstraps, then smaller depth; [`CompareForm::Carries`] only when the
    /// budget allows its selectors' weight 11. Memoised.
    fn compare_form(&self, fin: Final, lx: usize, ly: usize) -> CompareForm {
        if self.config.max_qweight < CARRY_QWEIGHT {
            return CompareForm::Signum;
        }
        let key = (fin, lx, ly);
        if let Ok(Some(f)) = self.compare_forms.lock().map(|m| m.get(&key).copied()) {
            return f;
        }
        let cost = |form: CompareForm| {
            let mut sb = Builder::new();
            let x = SInt::input(&mut sb, lx);
            let y = SInt::input(&mut sb, ly);
            let out = match form {
                CompareForm::Carries => self.compare_carries(&mut sb, &x, &y, fin),
                CompareForm::Signum => self.compare_signum(&mut sb, &x, &y, fin),
            };
            let c = sb.finish(vec![out]).cost();
            (c.bootstraps, c.depth)
        };
        let best = if cost(CompareForm::Carries) <= cost(CompareForm::Signum) {
            CompareForm::Carries
        } else {
            CompareForm::Signum
        };
        if let Ok(mut m) = self.compare_forms.lock() {
            m.insert(key, best);
        }
        best
    }

    /// The form [`Arith::lt`] and the other comparisons take for operands of lengths `lx`
    /// and `ly` (`rel` one of them), as the cost model picks it.
    pub fn relation_form(&self, rel: Relation, lx: usize, ly: usize) -> CompareForm {
        let (fin, swap) = reduction(rel);
        let (a, c) = if swap { (ly, lx) } else { (lx, ly) };
        self.compare_form(fin, a, c)
    }

    /// `x R y` as a 0/1 digit, built in the given form.
    pub fn relation(
        &self,
        b: &mut Builder,
        x: &SInt,
        y: &SInt,
        rel: Relation,
        form: CompareForm,
    ) -> NodeId {
        let (fin, swap) = reduction(rel);
        let (x, y) = if swap { (y, x) } else { (x, y) };
        match form {
            CompareForm::Carries => self.compare_carries(b, x, y, fin),
            CompareForm::Signum => self.compare_signum(b, x, y, fin),
        }
    }

    /// Parmesan's form: `x - y`, then its sign reduction (Algorithm 6).
    fn compare_signum(&self, b: &mut Builder, x: &SInt, y: &SInt, fin: Final) -> NodeId {
        let r = self.sub(b, x, y);
        self.sign_reduce(b, &r.digits, fin)
    }

    /// The carries of `x − y` in radix 4 ([`CompareForm::Carries`]); equality from the two
    /// strict comparisons.
    fn compare_carries(&self, b: &mut Builder, x: &SInt, y: &SInt, fin: Final) -> NodeId {
        match fin {
            Final::Negative => carry_sign(b, x, y, |s| i64::from(s < 0)),
            Final::NonNegative => carry_sign(b, x, y, |s| i64::from(s >= 0)),
            Final::Zero | Final::NonZero => {
                let lt = carry_sign(b, x, y, |s| i64::from(s < 0));
                let gt = carry_sign(b, y, x, |s| i64::from(s < 0));
                let sel = b.linear(&[(lt, 1), (gt, 2)], 0);
                let want = i64::from(fin == Final::Zero);
                crate::blocks::table(b, sel, 0, 3, move |v| if v == 0 { want } else { 1 - want })
            }
            Final::Sign => unreachable!("comparisons end with a 0/1 function"),
        }
    }

    /// `[x R y]` as a 0/1 digit, in the form of [`Arith::relation_form`].
    pub fn cmp(&self, b: &mut Builder, rel: Relation, x: &SInt, y: &SInt) -> NodeId {
        let (fin, swap) = reduction(rel);
        let (x, y) = if swap { (y, x) } else { (x, y) };
        self.compare(b, x, y, fin, rel.name())
    }

    relation_methods! {
        /// `[x < y]` as a 0/1 digit, in the form of [`Arith::relation_form`].
        lt Lt;
        /// `[x <= y]`.
        le Le;
        /// `[x > y]`.
        gt Gt;
        /// `[x >= y]`.
        ge Ge;
        /// `[x == y]`.
        eq Eq;
        /// `[x != y]`.
        ne Ne;
    }

    /// `max(x, y)` (Algorithm 7), from `s = [x >= y]` in the comparison form of
    /// [`Arith::relation_form`]. In Parmesan's form one LUT per digit on
    /// `s + 2x_i + 6y_i` (quadratic weight 41); within a smaller budget,
    /// `t_i = s·(x_i - y_i)` from `s + 3(x_i - y_i)` (weight 19) and the digit
    /// `y_i + t_i` refreshed: one more bootstrap per digit and one more level.
    pub fn max(&self, b: &mut Builder, x: &SInt, y: &SInt) -> SInt {
        b.labelled("max", |b| {
            let s = b.labelled("max", |b| {
                let form = self.relation_form(Relation::Ge, x.len(), y.len());
                self.relation(b, x, y, Relation::Ge, form)
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
