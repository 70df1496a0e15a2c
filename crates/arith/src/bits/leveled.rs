//! Depth-aware bit-vector circuits for leveled schemes (the binary circuits of Chen, Feng,
//! Liu and Wu, "Faster Binary Arithmetic Operations on Encrypted Integers", on FV): only
//! AND / XOR / NOT / MUX gates, no counters, chosen for a small multiplicative depth
//! ([`encint_core::bits::fv::cost`]). On FV a slot holds one bit, AND and MUX cost one
//! product, XOR one product, NOT none; the depth decides the parameter set and so the
//! speed. The TFHE-oriented circuits of [`super`] (counters) are not shallow on FV.
//!
//! - [`add_ripple`]: ripple carry, carry `c' = p ? c : x` (one MUX per bit), depth `w`.
//! - [`add_sklansky`]: parallel prefix (Sklansky), `G = p_hi ? G_lo : G_hi` (the two
//!   cases exclude each other, so one MUX), depth `ceil(log2 w) + 2`.
//! - [`mul`]: partial products reduced column by column with full adders that always
//!   take the three shallowest bits (a tree balanced by depth), then a prefix adder.
//! - [`div_rem_unsigned`]: restoring division, one prefix subtraction and one MUX row
//!   per quotient bit.
//!
//! ```
//! use encint_arith::bits::{self, leveled, Word};
//! use encint_core::bits::{fv, BitBuilder};
//! let mut b = BitBuilder::new();
//! let (x, y) = (Word::input(&mut b, 16), Word::input(&mut b, 16));
//! let s = leveled::add_sklansky(&mut b, &x, &y, None);
//! let c = b.finish(s.bits);
//! let mut ins = bits::to_bits(40000, 16);
//! ins.extend(bits::to_bits(30000, 16));
//! assert_eq!(bits::from_bits(&c.eval(&ins).unwrap()), (40000 + 30000) % 65536);
//! assert_eq!(fv::cost(&c).depth, 6);
//! ```

use std::collections::HashMap;

use encint_core::bits::{fv, Bit, BitBuilder};

use super::Word;

/// FV multiplicative depths of the bits of a builder (memoised).
#[derive(Debug, Default, Clone)]
pub struct Depths {
    memo: HashMap<Bit, u32>,
}

impl Depths {
    /// An empty memo.
    pub fn new() -> Self {
        Self::default()
    }

    /// The FV depth of `x` (products on its longest path).
    pub fn of(&mut self, b: &BitBuilder, x: Bit) -> u32 {
        if let Some(&d) = self.memo.get(&x) {
            return d;
        }
        let mut stack = vec![x];
        while let Some(&top) = stack.last() {
            if self.memo.contains_key(&top) {
                stack.pop();
                continue;
            }
            let g = b.gate(top);
            let ops = encint_core::bits::operands(g);
            let missing: Vec<Bit> = ops
                .iter()
                .copied()
                .filter(|o| !self.memo.contains_key(o))
                .collect();
            if missing.is_empty() {
                let (_, depth) = fv::gate_cost_by(g, |o| self.memo[o]);
                self.memo.insert(top, depth);
                stack.pop();
            } else {
                stack.extend(missing);
            }
        }
        self.memo[&x]
    }
}

fn same_width(b: &mut BitBuilder, x: &Word, y: &Word) -> (Word, Word) {
    let w = x.width().max(y.width());
    (x.resize(b, w, false), y.resize(b, w, false))
}

/// `x + y + cin` modulo `2^w` by ripple carry: `p = x ⊕ y`, `s = p ⊕ c`,
/// `c' = p ? c : x`. Depth `w` (16 for 16 bits); `w - 1` MUXes and `2w - 1` XORs.
pub fn add_ripple(b: &mut BitBuilder, x: &Word, y: &Word, cin: Option<Bit>) -> Word {
    let (x, y) = same_width(b, x, y);
    let w = x.width();
    let mut out = Vec::with_capacity(w);
    let mut c = cin;
    for k in 0..w {
        let p = b.xor(x.bits[k], y.bits[k]);
        out.push(match c {
            Some(c) => b.xor(p, c),
            None => p,
        });
        if k + 1 < w {
            c = Some(match c {
                Some(c) => b.mux(p, c, x.bits[k]),
                None => b.and(x.bits[k], y.bits[k]),
            });
        }
    }
    Word { bits: out }
}

/// Carries of `x + y + cin` by a Sklansky prefix network: element `k` is the carry out
/// of bits `0..=k`. Also returns the propagate bits `x ⊕ y`.
fn prefix_carries(
    b: &mut BitBuilder,
    x: &Word,
    y: &Word,
    cin: Option<Bit>,
) -> (Vec<Bit>, Vec<Bit>) {
    let w = x.width();
    let p0: Vec<Bit> = (0..w).map(|k| b.xor(x.bits[k], y.bits[k])).collect();
    let mut g: Vec<Bit> = (0..w).map(|k| b.and(x.bits[k], y.bits[k])).collect();
    let mut p = p0.clone();
    if let (Some(c), true) = (cin, w > 0) {
        g[0] = match b.const_value(c) {
            // Carry in 1 (subtraction): the carry out of bit 0 is x_0 ∨ y_0 (depth 1).
            Some(true) => b.or(x.bits[0], y.bits[0]),
            Some(false) => g[0],
            None => b.mux(p[0], c, g[0]),
        };
    }
    let mut s = 1;
    while s < w {
        for k in 0..w {
            if k & s != 0 {
                let j = (k & !(s - 1)) - 1;
                // g_k and p_k exclude each other: G = p_k ? G_j : g_k.
                g[k] = b.mux(p[k], g[j], g[k]);
                p[k] = b.and(p[k], p[j]);
            }
        }
        s <<= 1;
    }
    (g, p0)
}

/// `x + y + cin` modulo `2^w` by a Sklansky parallel-prefix adder: depth
/// `ceil(log2 w) + 2` (6 for 16 bits, 8 for 64), about `w/2 · log2 w` MUXes.
pub fn add_sklansky(b: &mut BitBuilder, x: &Word, y: &Word, cin: Option<Bit>) -> Word {
    let (x, y) = same_width(b, x, y);
    let w = x.width();
    let (g, p0) = prefix_carries(b, &x, &y, cin);
    let mut out = Vec::with_capacity(w);
    for k in 0..w {
        let c = if k == 0 { cin } else { Some(g[k - 1]) };
        out.push(match c {
            Some(c) => b.xor(p0[k], c),
            None => p0[k],
        });
    }
    Word { bits: out }
}

/// Which adder a leveled circuit uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Adder {
    /// Ripple carry ([`add_ripple`]): fewest products, depth `w`.
    Ripple,
    /// Sklansky parallel prefix ([`add_sklansky`]): depth `log2 w + 2`.
    Sklansky,
}

impl Adder {
    /// `ripple` or `sklansky`.
    pub fn name(self) -> &'static str {
        match self {
            Adder::Ripple => "ripple",
            Adder::Sklansky => "sklansky",
        }
    }

    /// `x + y + cin` with this adder.
    pub fn add(self, b: &mut BitBuilder, x: &Word, y: &Word, cin: Option<Bit>) -> Word {
        match self {
            Adder::Ripple => add_ripple(b, x, y, cin),
            Adder::Sklansky => add_sklansky(b, x, y, cin),
        }
    }
}

/// `x - y` modulo `2^w`: `x + ¬y + 1`.
pub fn sub(b: &mut BitBuilder, adder: Adder, x: &Word, y: &Word) -> Word {
    let (x, y) = same_width(b, x, y);
    let ny = super::not(b, &y);
    let one = b.constant(true);
    adder.add(b, &x, &ny, Some(one))
}

/// `x ≥ y` unsigned: the carry out of `x + ¬y + 1` (prefix network, depth
/// `ceil(log2 w) + 2`).
pub fn ge_unsigned(b: &mut BitBuilder, x: &Word, y: &Word) -> Bit {
    let (x, y) = same_width(b, x, y);
    if x.width() == 0 {
        return b.constant(true);
    }
    let ny = super::not(b, &y);
    let one = b.constant(true);
    let (g, _) = prefix_carries(b, &x, &ny, Some(one));
    g[x.width() - 1]
}

/// `x < y` unsigned.
pub fn lt_unsigned(b: &mut BitBuilder, x: &Word, y: &Word) -> Bit {
    let ge = ge_unsigned(b, x, y);
    b.not(ge)
}

/// `x < y` in two's complement (unsigned comparison with the sign bits flipped).
pub fn lt_signed(b: &mut BitBuilder, x: &Word, y: &Word) -> Bit {
    super::signed_by_unsigned(b, x, y, lt_unsigned)
}

/// AND of all bits as a balanced tree (depth `ceil(log2 n)`).
pub fn all(b: &mut BitBuilder, bits: &[Bit]) -> Bit {
    super::and_tree(b, bits, 2, |b, c| match *c {
        [x, y] => b.and(x, y),
        [x] => x,
        _ => unreachable!("groups of one or two bits"),
    })
}

/// `x == y` (XNOR per bit, then a balanced AND tree).
pub fn eq(b: &mut BitBuilder, x: &Word, y: &Word) -> Bit {
    let (x, y) = same_width(b, x, y);
    let same: Vec<Bit> = (0..x.width())
        .map(|k| {
            let d = b.xor(x.bits[k], y.bits[k]);
            b.not(d)
        })
        .collect();
    all(b, &same)
}

/// `x · y` modulo `2^w` (the low half; the same bits for unsigned and two's
/// complement): partial products, column compression with full and half adders that
/// always combine the three shallowest bits of a column, then `adder` on the last two
/// rows.
pub fn mul(b: &mut BitBuilder, adder: Adder, x: &Word, y: &Word) -> Word {
    let (x, y) = same_width(b, x, y);
    let w = x.width();
    let mut depths = Depths::new();
    let mut cols: Vec<Vec<Bit>> = vec![Vec::new(); w];
    for i in 0..w {
        for j in 0..w - i {
            cols[i + j].push(b.and(x.bits[j], y.bits[i]));
        }
    }
    for k in 0..w {
        while cols[k].len() > 2 {
            let mut col = std::mem::take(&mut cols[k]);
            col.sort_by_key(|&v| (depths.of(b, v), v));
            let (a, bb, c) = (col[0], col[1], col[2]);
            let s = b.xor3(a, bb, c);
            if k + 1 < w {
                let carry = b.maj(a, bb, c);
                cols[k + 1].push(carry);
            }
            col.drain(..3);
            col.push(s);
            cols[k] = col;
        }
    }
    let zero = b.constant(false);
    let row = |i: usize| Word {
        bits: cols
            .iter()
            .map(|c| c.get(i).copied().unwrap_or(zero))
            .collect(),
    };
    let (r0, r1) = (row(0), row(1));
    adder.add(b, &r0, &r1, None)
}

/// Unsigned `(x / y, x mod y)` by restoring division: per quotient bit, the partial
/// remainder shifted in a bit of `x`, one prefix subtraction of `y` whose carry out is
/// the quotient bit, and a MUX row keeping the difference or the remainder. Division
/// by zero gives `(2^w - 1, x)` (as TFHE-rs' unsigned division does).
pub fn div_rem_unsigned(b: &mut BitBuilder, x: &Word, y: &Word) -> (Word, Word) {
    let (x, y) = same_width(b, x, y);
    let w = x.width();
    let y1 = y.resize(b, w + 1, false);
    let zero = b.constant(false);
    let mut r: Vec<Bit> = vec![zero; w];
    let mut q = vec![zero; w];
    for i in (0..w).rev() {
        // r' = 2r + x_i, w + 1 bits.
        let mut shifted = vec![x.bits[i]];
        shifted.extend_from_slice(&r);
        let sw = Word { bits: shifted };
        let ny = super::not(b, &y1);
        let one = b.constant(true);
        let (g, p0) = prefix_carries(b, &sw, &ny, Some(one));
        let qi = g[w];
        let diff: Vec<Bit> = (0..w)
            .map(|k| {
                let c = if k == 0 { one } else { g[k - 1] };
                b.xor(p0[k], c)
            })
            .collect();
        r = (0..w).map(|k| b.mux(qi, diff[k], sw.bits[k])).collect();
        q[i] = qi;
    }
    (Word { bits: q }, Word { bits: r })
}

#[cfg(test)]
mod tests {
    use super::super::{from_bits, from_bits_signed, to_bits};
    use super::*;
    use encint_core::bits::BitCircuit;
    use rand::{Rng, SeedableRng};

    fn binary(w: usize, f: impl FnOnce(&mut BitBuilder, &Word, &Word) -> Vec<Bit>) -> BitCircuit {
        let mut b = BitBuilder::new();
        let (x, y) = (Word::input(&mut b, w), Word::input(&mut b, w));
        let out = f(&mut b, &x, &y);
        b.finish(out)
    }

    fn run(c: &BitCircuit, w: usize, x: u64, y: u64) -> Vec<bool> {
        let mut ins = to_bits(x as u128, w);
        ins.extend(to_bits(y as u128, w));
        c.eval(&ins).unwrap()
    }

    #[test]
    fn every_circuit_matches_integer_arithmetic() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for w in [1usize, 3, 4, 8, 13, 16, 64] {
            let m = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let sx = |v: u64| from_bits_signed(&to_bits(v as u128, w));
            let circuits: Vec<(&str, BitCircuit)> = vec![
                ("add_r", binary(w, |b, x, y| add_ripple(b, x, y, None).bits)),
                (
                    "add_s",
                    binary(w, |b, x, y| add_sklansky(b, x, y, None).bits),
                ),
                (
                    "sub_r",
                    binary(w, |b, x, y| sub(b, Adder::Ripple, x, y).bits),
                ),
                (
                    "sub_s",
                    binary(w, |b, x, y| sub(b, Adder::Sklansky, x, y).bits),
                ),
                (
                    "mul",
                    binary(w, |b, x, y| mul(b, Adder::Sklansky, x, y).bits),
                ),
                (
                    "cmp",
                    binary(w, |b, x, y| {
                        vec![lt_unsigned(b, x, y), lt_signed(b, x, y), eq(b, x, y)]
                    }),
                ),
            ];
            let mut cases: Vec<(u64, u64)> = (0..40)
                .map(|_| (rng.gen::<u64>() & m, rng.gen::<u64>() & m))
                .collect();
            cases.extend([(0, 0), (m, m), (m, 0), (0, m), (m, 1)]);
            for (x, y) in cases {
                for (name, c) in &circuits {
                    let out = run(c, w, x, y);
                    let v = from_bits(&out) as u64;
                    match *name {
                        "add_r" | "add_s" => assert_eq!(v, x.wrapping_add(y) & m, "{name} {w}"),
                        "sub_r" | "sub_s" => assert_eq!(v, x.wrapping_sub(y) & m, "{name} {w}"),
                        "mul" => assert_eq!(v, x.wrapping_mul(y) & m, "{name} {w}"),
                        _ => {
                            assert_eq!(out[0], x < y);
                            assert_eq!(out[1], sx(x) < sx(y));
                            assert_eq!(out[2], x == y);
                        }
                    }
                }
            }
            if w <= 16 {
                let div = binary(w, |b, x, y| {
                    let (q, r) = div_rem_unsigned(b, x, y);
                    [q.bits, r.bits].concat()
                });
                for i in 0..40 {
                    let (x, y) = (rng.gen::<u64>() & m, rng.gen::<u64>() & m);
                    // Division by zero at least once.
                    let y = if i == 0 { 0 } else { y };
                    let out = run(&div, w, x, y);
                    let (q, r) = (from_bits(&out[..w]) as u64, from_bits(&out[w..]) as u64);
                    let expect = match (x.checked_div(y), x.checked_rem(y)) {
                        (Some(q), Some(r)) => (q, r),
                        _ => (m, x),
                    };
                    assert_eq!((q, r), expect, "{x} / {y}, {w} bits");
                }
            }
        }
    }

    #[test]
    fn depths_are_logarithmic_where_promised() {
        let d = |c: &BitCircuit| fv::cost(c).depth;
        let add = |w, a: Adder| binary(w, |b, x, y| a.add(b, x, y, None).bits);
        assert_eq!(d(&add(16, Adder::Ripple)), 16);
        assert_eq!(d(&add(16, Adder::Sklansky)), 6);
        assert_eq!(d(&add(64, Adder::Sklansky)), 8);
        // The prefix adder is shallower, the ripple adder has fewer products.
        assert!(
            fv::cost(&add(16, Adder::Ripple)).products
                < fv::cost(&add(16, Adder::Sklansky)).products
        );
        // Depth memo agrees with the cost model.
        let mut b = BitBuilder::new();
        let (x, y) = (Word::input(&mut b, 8), Word::input(&mut b, 8));
        let p = mul(&mut b, Adder::Sklansky, &x, &y);
        let mut dm = Depths::new();
        let top = p.bits.iter().map(|&v| dm.of(&b, v)).max().unwrap();
        let c = b.finish(p.bits);
        assert_eq!(top, d(&c));
    }
}
