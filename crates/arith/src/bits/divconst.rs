//! Division and remainder by a known constant: a multiplication by a precomputed
//! "magic" reciprocal and a shift (Granlund and Montgomery, "Division by invariant
//! integers using multiplication", PLDI 1994; Warren, *Hacker's Delight*, ch. 10), on the
//! boolean layer.
//!
//! For an `n`-bit `x` and a divisor `d ≠ 0` the quotient is read as
//! `⌊(m·x + B·[x < 0] + C) / 2^s⌋` for integers `m`, `B`, `C` and a shift `s`: every bit
//! of `x` enters a column sum ([`super::sum_columns`]) once per nonzero digit of its weight
//! (`m·2^i`, written in binary or in non-adjacent form; a negative digit is a free NOT and
//! a constant), and the constants fold into the counters' offsets. Only the columns up to
//! `s + w` are built, `w` the quotient's width (`⌈log2⌉` of its largest magnitude, not
//! `n`), and the columns below some `t ≤ s` can be dropped altogether when the error
//! they leave (at most the sum of their weights) provably cannot change the kept bits.
//!
//! **Exactness** is checked, not assumed. With `x = q·|d| + r`, the quantity
//! `g(x) = m·x + B·[x<0] - T(x)·2^s` (`T` the true quotient) is linear in `(q, r)` on each
//! sign of `x`, so its extremes over all `x` of the type are reached at the vertices of
//! that staircase region (at most six values of `x` per sign). A recipe is exact iff the
//! offset `C` can put `g + C - D` into `[0, 2^s)` for every dropped error `0 ≤ D ≤ Dmax`,
//! i.e. `max g - min g + Dmax < 2^s`. Among the exact recipes for the eight shifts just above
//! the smallest exact one, both multipliers (`⌊2^s/|d|⌋`, `⌈2^s/|d|⌉`), both recodings and
//! both column policies (all columns, or dropping the most that stays exact), the
//! cheapest lowered circuit (bootstraps, then depth) is kept. A divisor that is a power of
//! two gives `m = 1`: a free shift (and a free mask for the unsigned remainder).
//!
//! The remainder is `x - d·q` modulo `2^wr`, `wr` the remainder's width (`⌈log2 |d|⌉`
//! bits, one more when signed): one more column sum on the low bits only.
//!
//! Signed division truncates toward zero, like Rust's `wrapping_div` / `wrapping_rem`:
//! `MIN / -1 = MIN` (the true quotient `2^(n-1)` taken modulo `2^n`) and `MIN % -1 = 0`.
//!
//! Widths up to 64 bits (the constants are checked in 256-bit arithmetic); wider types
//! keep the general divider ([`super::div_rem_unsigned`]).

use encint_core::bits::{Bit, BitBuilder};
use encint_core::memo::Memo;

use super::{sum_columns, Word};

/// Widest operand [`div_rem_const`] handles.
pub const MAX_CONST_DIV_BITS: usize = 64;

/// A 256-bit two's-complement integer (little-endian 64-bit limbs), wrapping; every value
/// used here stays below `2^200` in magnitude.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct I256([u64; 4]);

impl I256 {
    const ZERO: I256 = I256([0; 4]);

    fn from_i128(v: i128) -> I256 {
        let lo = v as u128;
        let hi: u128 = if v < 0 { u128::MAX } else { 0 };
        I256([lo as u64, (lo >> 64) as u64, hi as u64, (hi >> 64) as u64])
    }

    fn pow2(k: usize) -> I256 {
        let mut l = [0u64; 4];
        if k < 256 {
            l[k / 64] = 1 << (k % 64);
        }
        I256(l)
    }

    fn add(self, o: I256) -> I256 {
        let mut l = [0u64; 4];
        let mut carry = 0u128;
        for (i, li) in l.iter_mut().enumerate() {
            let s = u128::from(self.0[i]) + u128::from(o.0[i]) + carry;
            *li = s as u64;
            carry = s >> 64;
        }
        I256(l)
    }

    fn neg(self) -> I256 {
        I256(self.0.map(|x| !x)).add(I256::from_i128(1))
    }

    fn sub(self, o: I256) -> I256 {
        self.add(o.neg())
    }

    fn mul(self, o: I256) -> I256 {
        let mut l = [0u64; 4];
        for i in 0..4 {
            let mut carry = 0u128;
            for j in 0..4 - i {
                let t = u128::from(self.0[i]) * u128::from(o.0[j]) + u128::from(l[i + j]) + carry;
                l[i + j] = t as u64;
                carry = t >> 64;
            }
        }
        I256(l)
    }

    fn is_neg(self) -> bool {
        self.0[3] >> 63 == 1
    }

    fn is_zero(self) -> bool {
        self.0 == [0; 4]
    }

    /// `self < o` (no overflow: magnitudes stay far below `2^255`).
    fn lt(self, o: I256) -> bool {
        self.sub(o).is_neg()
    }

    fn bit(self, k: usize) -> bool {
        k < 256 && (self.0[k / 64] >> (k % 64)) & 1 == 1
    }

    /// `self >> 1`, arithmetic.
    fn sar1(self) -> I256 {
        let mut l = [0u64; 4];
        for (i, li) in l.iter_mut().enumerate() {
            let next = if i < 3 {
                self.0[i + 1]
            } else if self.is_neg() {
                u64::MAX
            } else {
                0
            };
            *li = (self.0[i] >> 1) | (next << 63);
        }
        I256(l)
    }
}

/// How a weight is written as a sum of signed powers of two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Recoding {
    /// The weight modulo `2^W` in binary (positive digits only).
    Binary,
    /// Non-adjacent form (digits -1, 0, 1, no two adjacent nonzero).
    Naf,
}

/// The signed digits `(position, +1 | -1)` of `v` below position `width`.
fn digits(v: I256, width: usize, rec: Recoding) -> Vec<(usize, bool)> {
    let mut out = Vec::new();
    match rec {
        Recoding::Binary => {
            for k in 0..width {
                if v.bit(k) {
                    out.push((k, true));
                }
            }
        }
        Recoding::Naf => {
            let mut v = v;
            let mut k = 0;
            while k < width && !v.is_zero() {
                if v.0[0] & 1 == 1 {
                    // +1 when v ≡ 1 (mod 4), -1 when v ≡ 3.
                    let plus = v.0[0] & 2 == 0;
                    out.push((k, plus));
                    v = if plus {
                        v.sub(I256::from_i128(1))
                    } else {
                        v.add(I256::from_i128(1))
                    };
                }
                v = v.sar1();
                k += 1;
            }
        }
    }
    out
}

/// Bits with integer weights plus a constant, as columns modulo `2^width` (a negative
/// digit `-b·2^p` becomes `¬b·2^p - 2^p`); the variable entries of the columns below
/// `drop_below` are left out. Returns the columns (constant bits included, from
/// `drop_below` up, shifted down by `drop_below`) and the largest value the left-out
/// entries could have had.
fn columns(
    b: &mut BitBuilder,
    terms: &[(Bit, I256)],
    constant: I256,
    width: usize,
    drop_below: usize,
    rec: Recoding,
) -> (Vec<Vec<Bit>>, I256) {
    let mut c = constant;
    let mut entries: Vec<(usize, Bit)> = Vec::new();
    for &(x, w) in terms {
        for (p, plus) in digits(w, width, rec) {
            if plus {
                entries.push((p, x));
            } else {
                let nx = b.not(x);
                entries.push((p, nx));
                c = c.sub(I256::pow2(p));
            }
        }
    }
    let mut cols: Vec<Vec<Bit>> = vec![Vec::new(); width - drop_below];
    let mut dropped = I256::ZERO;
    for (p, x) in entries {
        if p < drop_below {
            dropped = dropped.add(I256::pow2(p));
        } else {
            cols[p - drop_below].push(x);
        }
    }
    for p in drop_below..width {
        if c.bit(p) {
            let one = b.constant(true);
            cols[p - drop_below].push(one);
        }
    }
    (cols, dropped)
}

/// The bit weights of `m·x + B·[x < 0]` for an `n`-bit `x` (two's complement when
/// `signed`).
fn weight_list(n: usize, m: I256, sign_extra: I256, signed: bool) -> Vec<I256> {
    (0..n)
        .map(|i| {
            let w = m.mul(I256::pow2(i));
            if signed && i == n - 1 {
                sign_extra.sub(w)
            } else {
                w
            }
        })
        .collect()
}

fn weights(xs: &[Bit], m: I256, sign_extra: I256, signed: bool) -> Vec<(Bit, I256)> {
    xs.iter()
        .copied()
        .zip(weight_list(xs.len(), m, sign_extra, signed))
        .collect()
}

/// One quotient recipe: `q = ⌊(m·x + B·[x<0] + C) / 2^s⌋ mod 2^w`, the variable entries of
/// the columns below `t` dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Recipe {
    s: usize,
    m: I256,
    sign_extra: I256,
    c: I256,
    t: usize,
    w: usize,
    rec: Recoding,
}

impl Recipe {
    /// The `w` quotient bits of `x`.
    fn build(&self, b: &mut BitBuilder, x: &Word, signed: bool) -> Word {
        if self.w == 0 {
            return Word::default();
        }
        let terms = weights(&x.bits, self.m, self.sign_extra, signed);
        let width = self.s + self.w;
        let (cols, _) = columns(b, &terms, self.c, width, self.t, self.rec);
        let sum = sum_columns(b, cols, width - self.t);
        Word {
            bits: sum.bits[self.s - self.t..].to_vec(),
        }
    }
}

/// The type's values `x` at which `g` (linear in `(q, r)` on each sign) can reach its
/// extremes: for `|x|` over `[a, b]` and `|x| = q·dd + r`, the ends and the first and last
/// complete blocks of `dd`.
fn corners(n: usize, signed: bool, dd: u128) -> Vec<i128> {
    let mut out = Vec::new();
    let mut push_range = |a: u128, b: u128, neg: bool| {
        let (qa, qb) = (a / dd, b / dd);
        let cand = [
            Some(a),
            Some(b),
            qa.checked_mul(dd).and_then(|v| v.checked_add(dd - 1)),
            qa.checked_add(1).and_then(|v| v.checked_mul(dd)),
            qb.checked_mul(dd),
            qb.checked_mul(dd).and_then(|v| v.checked_sub(1)),
        ];
        for y in cand.into_iter().flatten() {
            if a <= y && y <= b {
                let y = y as i128;
                out.push(if neg { -y } else { y });
            }
        }
    };
    if signed {
        let half = 1u128 << (n - 1);
        push_range(0, half - 1, false);
        push_range(1, half, true);
    } else {
        push_range(0, (1u128 << n) - 1, false);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The true quotient (truncating; `MIN / -1` is `2^(n-1)`, wrapped by the caller).
fn true_quotient(x: i128, d: i128) -> i128 {
    // |x| ≤ 2^64 and |d| ≤ 2^64: no overflow in i128.
    x / d
}

/// The width of the quotient's bits that must be computed: every quotient, reduced modulo
/// `2^w`, must give back the result (`n` bits) by zero- or sign-extension.
fn quotient_width(n: usize, signed: bool, d: i128) -> usize {
    let ty_min = if signed { -(1i128 << (n - 1)) } else { 0 };
    let ty_max = if signed {
        (1i128 << (n - 1)) - 1
    } else {
        (1i128 << n) - 1
    };
    let (q1, q2) = (true_quotient(ty_min, d), true_quotient(ty_max, d));
    let (lo, hi) = (q1.min(q2), q1.max(q2));
    let w = if signed {
        (0..=n)
            .find(|&w| w > 0 && -(1i128 << (w - 1)) <= lo && hi < (1i128 << (w - 1)))
            .unwrap_or(n)
    } else {
        (0..=n).find(|&w| hi < (1i128 << w)).unwrap_or(n)
    };
    w.min(n)
}

/// `(min, max)` of `g(x) = m·x + B·[x<0] - T(x)·2^s` over the corners of one sign.
fn g_range(xs: &[i128], d: i128, s: usize, m: I256, sign_extra: I256) -> Option<(I256, I256)> {
    let mut r: Option<(I256, I256)> = None;
    for &x in xs {
        let mut g = m
            .mul(I256::from_i128(x))
            .sub(I256::from_i128(true_quotient(x, d)).mul(I256::pow2(s)));
        if x < 0 {
            g = g.add(sign_extra);
        }
        r = Some(match r {
            None => (g, g),
            Some((lo, hi)) => (if g.lt(lo) { g } else { lo }, if hi.lt(g) { g } else { hi }),
        });
    }
    r
}

/// A division to compute: `n`-bit `x` (two's complement when `signed`) by `d`, the low
/// `w` bits of the quotient.
#[derive(Debug, Clone, Copy)]
struct Problem {
    n: usize,
    signed: bool,
    d: i128,
    w: usize,
}

/// The exact recipe for shift `s` and multiplier `m`, if one exists: the sign bit's extra
/// weight aligns the two signs' ranges of `g`, and with `drop` the columns below the
/// largest `t ≤ s` whose dropped entries keep it exact are left out.
fn exact_recipe(p: Problem, s: usize, m: I256, rec: Recoding, drop: bool) -> Option<Recipe> {
    let Problem { n, signed, d, w } = p;
    let dd = d.unsigned_abs();
    let all = corners(n, signed, dd);
    let (neg, pos): (Vec<i128>, Vec<i128>) = all.iter().partition(|&&x| x < 0);
    let limit = I256::pow2(s);
    let (plo, phi) = g_range(&pos, d, s, m, I256::ZERO)?;
    let sign_extra = match g_range(&neg, d, s, m, I256::ZERO) {
        // Align the two signs' minima with the sign bit's extra weight.
        Some((nlo, _)) => plo.sub(nlo),
        None => I256::ZERO,
    };
    let (lo, hi) = match g_range(&neg, d, s, m, sign_extra) {
        Some((nlo, nhi)) => (
            if nlo.lt(plo) { nlo } else { plo },
            if phi.lt(nhi) { nhi } else { phi },
        ),
        None => (plo, phi),
    };
    let spread = hi.sub(lo);
    if !spread.lt(limit) {
        return None;
    }
    // The largest t ≤ s whose dropped entries keep `spread + Dmax < 2^s`.
    let mut t = 0;
    let mut dmax = I256::ZERO;
    if drop {
        // Dmax(t): the sum of 2^p over the variable entries at positions p < t.
        let mut positions: Vec<usize> = weight_list(n, m, sign_extra, signed)
            .into_iter()
            .flat_map(|v| digits(v, s + w, rec).into_iter().map(|(p, _)| p))
            .collect();
        positions.sort_unstable();
        for cand in (1..=s).rev() {
            let dm = positions
                .iter()
                .take_while(|&&p| p < cand)
                .fold(I256::ZERO, |acc, &p| acc.add(I256::pow2(p)));
            if spread.add(dm).lt(limit) {
                t = cand;
                dmax = dm;
                break;
            }
        }
    }
    Some(Recipe {
        s,
        m,
        sign_extra,
        c: dmax.sub(lo),
        t,
        w,
        rec,
    })
}

/// The cheapest exact recipe (bootstraps of the lowered circuit, then depth) for the low
/// `w` bits of `x / d`, or `None` when the search finds none.
fn best_recipe(n: usize, signed: bool, d: i128, w: usize) -> Option<Recipe> {
    type Key = (usize, bool, i128, usize);
    static RECIPES: Memo<Key, Option<Recipe>> = Memo::new(MAX_RECIPES); // bounded cache: at most MAX_RECIPES (1024) entries
    RECIPES.get_or_insert_with((n, signed, d, w), |&(n, signed, d, w)| {
        search(n, signed, d, w)
    })
}

/// The most recipes [`best_recipe`] remembers for the whole process (a program divides by a
/// few clear divisors at a few widths), the oldest forgotten first.
const MAX_RECIPES: usize = 1024;

/// Exact shifts tried per multiplier kind.
const SHIFTS_TRIED: usize = 8;

fn search(n: usize, signed: bool, d: i128, w: usize) -> Option<Recipe> {
    if w == 0 {
        return Some(Recipe {
            s: 0,
            m: I256::ZERO,
            sign_extra: I256::ZERO,
            c: I256::ZERO,
            t: 0,
            w: 0,
            rec: Recoding::Binary,
        });
    }
    let prob = Problem { n, signed, d, w };
    let dd = d.unsigned_abs();
    let l = (128 - (dd - 1).leading_zeros()) as usize; // ⌈log2 |d|⌉
    let s_max = (n + l + 1).min(126);
    // Candidates: for each multiplier kind, the first few shifts that are exact (the
    // cheapest is rarely past the fourth: a larger shift widens the columns but leaves
    // more room to drop low ones).
    let mut recipes: Vec<Recipe> = Vec::new();
    for ceil in [false, true] {
        let mut found = 0;
        for s in 0..=s_max {
            let p = 1u128 << s;
            let mut m = p / dd;
            if ceil && !p.is_multiple_of(dd) {
                m += 1;
            }
            if m == 0 {
                continue;
            }
            let m = if d < 0 {
                I256::from_i128(m as i128).neg()
            } else {
                I256::from_i128(m as i128)
            };
            if exact_recipe(prob, s, m, Recoding::Naf, false).is_none() {
                continue;
            }
            for rec in [Recoding::Binary, Recoding::Naf] {
                for drop in [false, true] {
                    if let Some(r) = exact_recipe(prob, s, m, rec, drop) {
                        recipes.push(r);
                    }
                }
            }
            found += 1;
            if found == SHIFTS_TRIED {
                break;
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    recipes.retain(|r| seen.insert(*r));
    recipes
        .into_iter()
        .map(|r| {
            let mut t = BitBuilder::new();
            let x = Word::input(&mut t, n);
            let q = r.build(&mut t, &x, signed);
            let c = t.finish(q.bits);
            let cost = encint_core::bits::lower(&c)
                .map(|l| {
                    let c = l.cost();
                    (c.bootstraps, c.depth)
                })
                .unwrap_or((u64::MAX, u32::MAX));
            (cost, r)
        })
        .min_by_key(|&(cost, _)| cost)
        .map(|(_, r)| r)
}

/// `x / d` and `x % d` (as requested) of an `n`-bit word by a known `d ≠ 0`, `n ≤`
/// [`MAX_CONST_DIV_BITS`], unsigned or two's complement (`signed`; truncating toward
/// zero, `MIN / -1 = MIN`, `MIN % -1 = 0`); `d` is read as a value of the type (an
/// unsigned `d` must be positive). Returns `None` for `d = 0`, a `d` outside the type, a
/// width outside `1..=64`, or when no exact recipe is found (never seen; the caller then
/// keeps the general divider).
///
/// ```
/// use encint_arith::bits::{self, Word};
/// use encint_core::bits::BitBuilder;
/// let mut b = BitBuilder::new();
/// let x = Word::input(&mut b, 8);
/// let (q, r) = bits::div_rem_const(&mut b, &x, 7, false, true, true).unwrap();
/// let mut outs = q.unwrap().bits;
/// outs.extend(r.unwrap().bits);
/// let c = b.finish(outs);
/// let got = c.eval(&bits::to_bits(200, 8)).unwrap();
/// assert_eq!(bits::from_bits(&got[..8]), 200 / 7);
/// assert_eq!(bits::from_bits(&got[8..]), 200 % 7);
/// // Far fewer bootstraps than the general divider (102 for the quotient alone).
/// assert!(encint_core::bits::lower(&c).unwrap().cost().bootstraps < 60);
/// ```
pub fn div_rem_const(
    b: &mut BitBuilder,
    x: &Word,
    d: i128,
    signed: bool,
    want_quotient: bool,
    want_remainder: bool,
) -> Option<(Option<Word>, Option<Word>)> {
    let n = x.width();
    if n == 0 || n > MAX_CONST_DIV_BITS || d == 0 {
        return None;
    }
    let (lo, hi) = if signed {
        (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1)
    } else {
        (1, (1i128 << n) - 1)
    };
    if d < lo || d > hi {
        return None;
    }
    let dd = d.unsigned_abs();
    let w = quotient_width(n, signed, d);
    // The remainder's width: |r| < |d|, plus a sign bit when signed.
    let wr = {
        let mag = (128 - (dd - 1).leading_zeros()) as usize;
        (mag + usize::from(signed)).min(n)
    };
    let need = if want_quotient { w } else { w.min(wr) };
    let recipe = best_recipe(n, signed, d, need)?;
    let q = recipe.build(b, x, signed);
    let quotient = want_quotient.then(|| q.resize(b, n, signed));
    let remainder = want_remainder.then(|| {
        // r = x - d·q (mod 2^wr): the low bits of x and q only.
        let qe = q.resize(b, wr, signed);
        let mut terms: Vec<(Bit, I256)> = x
            .bits
            .iter()
            .take(wr)
            .enumerate()
            .map(|(i, &v)| (v, I256::pow2(i)))
            .collect();
        let md = I256::from_i128(d).neg();
        terms.extend(
            qe.bits
                .iter()
                .enumerate()
                .map(|(j, &v)| (v, md.mul(I256::pow2(j)))),
        );
        let (cols, _) = columns(b, &terms, I256::ZERO, wr, 0, Recoding::Naf);
        sum_columns(b, cols, wr).resize(b, n, signed)
    });
    Some((quotient, remainder))
}
