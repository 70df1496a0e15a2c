//! Binary arithmetic on bit vectors, written once on the boolean IR
//! ([`encint_core::bits`]): no crypto calls. The same circuits run on TFHE (lowered to
//! digit bootstraps) and cost out for FV. Multiplication sums its partial products in
//! carry-save columns (Trifan, Nicolau and Veidenbaum, "Enhancing the Privacy of Machine
//! Learning via faster arithmetic over Torus FHE"); division is non-restoring (Chen, Feng,
//! Liu and Wu, "Faster Binary Arithmetic Operations on Encrypted Integers").
//!
//! A [`Word`] is a vector of bits, least significant first, read as unsigned or
//! two's complement by the operation. Results wrap modulo `2^width` unless the
//! operation says otherwise (`mul_full`).
//!
//! The workhorse is [`sum_columns`]: columns of bits (column `k` weighs `2^k`)
//! reduced by counters, each one bootstrap per output bit of a weighted sum of up to
//! 15 (span) / 25 (quadratic weight) input bits. Addition, multiplication,
//! multi-operand sums and dot products all feed it.
//!
//! ```
//! use encint_arith::bits::{self, Word};
//! use encint_core::bits::BitBuilder;
//! let mut b = BitBuilder::new();
//! let x = Word::input(&mut b, 16);
//! let y = Word::input(&mut b, 16);
//! let p = bits::mul(&mut b, &x, &y);
//! let c = b.finish(p.bits.clone());
//! let mut ins = bits::to_bits(1234, 16);
//! ins.extend(bits::to_bits(567, 16));
//! assert_eq!(bits::from_bits(&c.eval(&ins).unwrap()), (1234 * 567) % 65536);
//! let cost = encint_core::bits::lower(&c).unwrap().cost();
//! assert!(cost.bootstraps <= 220);
//! ```

mod count;
mod div;
mod divconst;
pub mod leveled;
mod mul;
mod ops;
mod shift;

pub use count::{count_ones, highest_one, leading_zeros, reverse_bits, trailing_zeros};
pub use div::{div_rem_signed, div_rem_unsigned};
pub use divconst::{div_rem_const, MAX_CONST_DIV_BITS};
pub use mul::{conv2d, dot, dot_accumulate, mul, mul_csa, mul_full, mul_full_signed, ConvForm};
pub use ops::BitKernel;
pub use shift::{rotl, rotl_var, rotr, rotr_var, sar, sar_var, shl, shl_var, shr, shr_var};

use std::collections::{HashMap, HashSet};

use encint_core::bits::{Bit, BitBuilder, BitCircuit, MAX_COUNT_SPAN, QWEIGHT_BUDGET};

/// Records a traced bit-level function as one circuit: an input word of each width in
/// `widths` (in order), the words `build` returns (with their signedness) as the outputs.
/// Returns the circuit and the (width, signed) shape of each result, to split the outputs
/// again; shared by the executors of the boolean IR (TFHE and FV).
pub fn trace_words(
    widths: &[usize],
    build: impl FnOnce(&mut BitBuilder, &[Word]) -> Vec<(Word, bool)>,
) -> (BitCircuit, Vec<(usize, bool)>) {
    let mut b = BitBuilder::new();
    let words: Vec<Word> = widths.iter().map(|&w| Word::input(&mut b, w)).collect();
    let outs = build(&mut b, &words);
    let shapes = outs.iter().map(|(w, s)| (w.width(), *s)).collect();
    let flat = outs.into_iter().flat_map(|(w, _)| w.bits).collect();
    (b.finish(flat), shapes)
}

/// A bit vector, least significant bit first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    /// The bits.
    pub bits: Vec<Bit>,
}

impl Word {
    /// `width` fresh encrypted input bits.
    pub fn input(b: &mut BitBuilder, width: usize) -> Word {
        Word {
            bits: (0..width).map(|_| b.input()).collect(),
        }
    }

    /// A known value's low `width` bits.
    pub fn constant(b: &mut BitBuilder, value: u128, width: usize) -> Word {
        Word {
            bits: (0..width)
                .map(|k| b.constant(k < 128 && (value >> k) & 1 == 1))
                .collect(),
        }
    }

    /// Number of bits.
    pub fn width(&self) -> usize {
        self.bits.len()
    }

    /// The most significant bit (the sign in two's complement); constant 0 if empty.
    pub fn msb(&self, b: &mut BitBuilder) -> Bit {
        self.bits
            .last()
            .copied()
            .unwrap_or_else(|| b.constant(false))
    }

    /// Zero- (`signed == false`) or sign-extended (or truncated) to `width` bits.
    pub fn resize(&self, b: &mut BitBuilder, width: usize, signed: bool) -> Word {
        let fill = if signed {
            self.msb(b)
        } else {
            b.constant(false)
        };
        Word {
            bits: (0..width)
                .map(|k| self.bits.get(k).copied().unwrap_or(fill))
                .collect(),
        }
    }
}

/// The low `width` bits of `v` (test and client helper).
pub fn to_bits(v: u128, width: usize) -> Vec<bool> {
    (0..width).map(|k| k < 128 && (v >> k) & 1 == 1).collect()
}

/// The unsigned value of bits, least significant first (at most 128 of them count).
pub fn from_bits(bits: &[bool]) -> u128 {
    bits.iter()
        .take(128)
        .enumerate()
        .fold(0, |acc, (k, &x)| acc | (u128::from(x) << k))
}

/// The two's-complement value of bits (1..=128 of them).
pub fn from_bits_signed(bits: &[bool]) -> i128 {
    let w = bits.len().min(128);
    let u = from_bits(bits);
    if w == 0 || w == 128 || !bits[w - 1] {
        u as i128
    } else {
        (u as i128) - (1i128 << w)
    }
}

/// Reduces columns of bits (column `k` weighs `2^k`) to the `width` low bits of their
/// sum. Column by column from the least significant: a counter takes as many bits of the
/// column as the noise budget allows (span ≤ 15, quadratic weight ≤ 25), and when it
/// holds the whole column, also bits of the next two columns (weights 2 and 4: a
/// generalized parallel counter); its output bit `j` goes to column `k + j`, bits past
/// `width` are dropped (never built into the lowered circuit). Two operands become a
/// ripple of 3-bootstrap two-column counters; partial products a counter tree.
pub fn sum_columns(b: &mut BitBuilder, mut cols: Vec<Vec<Bit>>, width: usize) -> Word {
    cols.resize(cols.len().max(width + 2), Vec::new());
    let mut out = Vec::with_capacity(width);
    for k in 0..width {
        cols[k].retain(|&x| b.const_value(x) != Some(false));
        while cols[k].len() > 1 {
            let mut group: HashMap<Bit, u32> = HashMap::new();
            let (mut span, mut qw, mut offset) = (0u32, 0u64, 0u32);
            let mut try_add = |b: &BitBuilder, x: Bit, w: u32| -> bool {
                if b.const_value(x) == Some(true) {
                    offset += w;
                    return true;
                }
                let u = group.get(&x).copied().unwrap_or(0);
                let dq = u64::from(u + w).pow(2) - u64::from(u).pow(2);
                if span + w > MAX_COUNT_SPAN || qw + dq > QWEIGHT_BUDGET {
                    return false;
                }
                span += w;
                qw += dq;
                group.insert(x, u + w);
                true
            };
            let mut taken = 0;
            while taken < cols[k].len() && try_add(b, cols[k][taken], 1) {
                taken += 1;
            }
            let whole = taken == cols[k].len();
            cols[k].drain(..taken);
            if whole {
                for j in 1..=2 {
                    if k + j >= width {
                        break;
                    }
                    let mut t = 0;
                    while t < cols[k + j].len() && try_add(b, cols[k + j][t], 1 << j) {
                        t += 1;
                    }
                    cols[k + j].drain(..t);
                }
            }
            let mut terms: Vec<(Bit, u32)> = group.into_iter().collect();
            terms.sort();
            let outs = b
                .count(&terms, offset)
                .expect("groups are built within the counter budget");
            for (j, o) in outs.into_iter().enumerate() {
                if k + j < width {
                    cols[k + j].push(o);
                }
            }
            cols[k].retain(|&x| b.const_value(x) != Some(false));
        }
        out.push(
            cols[k]
                .first()
                .copied()
                .unwrap_or_else(|| b.constant(false)),
        );
    }
    Word { bits: out }
}

/// Columns of the given words (bit `k` of each into column `k`).
fn columns(words: &[&Word], width: usize) -> Vec<Vec<Bit>> {
    let mut cols = vec![Vec::new(); width];
    for w in words {
        for (k, &x) in w.bits.iter().enumerate().take(width) {
            cols[k].push(x);
        }
    }
    cols
}

/// `x + y` modulo `2^width` (width of the wider operand; the narrower is zero-extended):
/// a ripple of two-column counters (3 bootstraps per 2 bits, depth ≈ width / 2).
pub fn add(b: &mut BitBuilder, x: &Word, y: &Word) -> Word {
    let w = x.width().max(y.width());
    sum_columns(b, columns(&[x, y], w), w)
}

/// `Σ words` modulo `2^width` (a multi-operand sum: one counter tree).
pub fn sum(b: &mut BitBuilder, words: &[Word], width: usize) -> Word {
    let refs: Vec<&Word> = words.iter().collect();
    sum_columns(b, columns(&refs, width), width)
}

/// `x + y + cin` with a Sklansky parallel-prefix carry network: more bootstraps than
/// [`add`] (generate/propagate, `≈ w/2 · log2 w` prefix nodes, sums) but depth
/// `≈ log2 w + 2`; worth it only with many threads.
pub fn add_prefix(b: &mut BitBuilder, x: &Word, y: &Word) -> Word {
    let w = x.width().max(y.width());
    let (x, y) = (x.resize(b, w, false), y.resize(b, w, false));
    let mut g: Vec<Bit> = (0..w).map(|k| b.and(x.bits[k], y.bits[k])).collect();
    let p0: Vec<Bit> = (0..w).map(|k| b.xor(x.bits[k], y.bits[k])).collect();
    let mut p = p0.clone();
    // Sklansky: at step s, positions whose bit s is set combine with the top of the block below.
    let mut s = 1;
    while s < w {
        for k in 0..w {
            if k & s != 0 {
                let j = (k & !(s - 1)) - 1;
                // G = g_k ∨ (p_k ∧ g_j): g_k and p_k exclude each other, so it is [2g_k + p_k + g_j ≥ 2].
                let t = b
                    .count(&[(g[k], 2), (p[k], 1), (g[j], 1)], 14)
                    .expect("span 4, weight 6");
                g[k] = t[4];
                p[k] = b.and(p[k], p[j]);
            }
        }
        s <<= 1;
    }
    let mut out = vec![p0[0]];
    for k in 1..w {
        out.push(b.xor(p0[k], g[k - 1]));
    }
    Word { bits: out }
}

/// Estimated time of a lowered circuit in bootstrap rounds on `threads` threads, as the
/// CPU executor runs it: the fewer of the level schedule's rounds (each level's batch
/// takes `⌈bootstraps / threads⌉`) and the list schedule's
/// ([`encint_core::circuit::Circuit::schedule_for_threads`]: levels of at most `threads`
/// bootstraps, the critical path first).
pub fn makespan(circuit: &encint_core::circuit::Circuit, threads: usize) -> u64 {
    let t = threads.max(1) as u64;
    let levels: u64 = circuit
        .schedule()
        .iter()
        .map(|l| (l.bootstraps.len() as u64).div_ceil(t))
        .sum();
    let listed = circuit
        .schedule_for_threads(threads)
        .iter()
        .filter(|l| !l.bootstraps.is_empty())
        .count() as u64;
    levels.min(listed)
}

/// `x + y` by the adder with the smaller [`makespan`] at `threads` threads, chosen on
/// trial circuits of the same widths: the ripple of counters ([`add`]) with few threads,
/// the Sklansky prefix adder ([`add_prefix`]) when enough threads hide its extra
/// bootstraps.
pub fn add_for_threads(b: &mut BitBuilder, x: &Word, y: &Word, threads: usize) -> Word {
    let trial = |f: fn(&mut BitBuilder, &Word, &Word) -> Word| {
        let mut t = BitBuilder::new();
        let (p, q) = (
            Word::input(&mut t, x.width()),
            Word::input(&mut t, y.width()),
        );
        let out = f(&mut t, &p, &q);
        let c = t.finish(out.bits);
        encint_core::bits::lower(&c).map_or(u64::MAX, |d| makespan(&d, threads))
    };
    if trial(add_prefix) < trial(add) {
        add_prefix(b, x, y)
    } else {
        add(b, x, y)
    }
}

/// `¬x` bitwise (free).
pub fn not(b: &mut BitBuilder, x: &Word) -> Word {
    Word {
        bits: x.bits.iter().map(|&v| b.not(v)).collect(),
    }
}

fn zip_with(
    b: &mut BitBuilder,
    x: &Word,
    y: &Word,
    f: impl Fn(&mut BitBuilder, Bit, Bit) -> Bit,
) -> Word {
    let w = x.width().max(y.width());
    let (x, y) = (x.resize(b, w, false), y.resize(b, w, false));
    Word {
        bits: (0..w).map(|k| f(b, x.bits[k], y.bits[k])).collect(),
    }
}

/// Bitwise AND.
pub fn and(b: &mut BitBuilder, x: &Word, y: &Word) -> Word {
    zip_with(b, x, y, |b, p, q| b.and(p, q))
}

/// Bitwise OR.
pub fn or(b: &mut BitBuilder, x: &Word, y: &Word) -> Word {
    zip_with(b, x, y, |b, p, q| b.or(p, q))
}

/// Bitwise XOR.
pub fn xor(b: &mut BitBuilder, x: &Word, y: &Word) -> Word {
    zip_with(b, x, y, |b, p, q| b.xor(p, q))
}

/// `sel ? x : y` (one MUX per bit).
pub fn select(b: &mut BitBuilder, sel: Bit, x: &Word, y: &Word) -> Word {
    zip_with(b, x, y, |b, p, q| b.mux(sel, p, q))
}

/// `x - y` modulo `2^width`: `x + ¬y + 1`.
pub fn sub(b: &mut BitBuilder, x: &Word, y: &Word) -> Word {
    let w = x.width().max(y.width());
    let y = y.resize(b, w, false);
    let ny = not(b, &y);
    let mut cols = columns(&[x, &ny], w);
    cols[0].push(b.constant(true));
    sum_columns(b, cols, w)
}

/// `-x` modulo `2^width`: `¬x + 1`.
pub fn neg(b: &mut BitBuilder, x: &Word) -> Word {
    let nx = not(b, x);
    let w = x.width();
    let mut cols = columns(&[&nx], w);
    if w > 0 {
        cols[0].push(b.constant(true));
    }
    sum_columns(b, cols, w)
}

/// Whether all bits are 1: counters of up to 15 bits, `[Σ = h]` as bit 4 of
/// `16 - h + Σ`, in a tree. A bit that occurs more than once (the copies of a sign bit
/// in a sign-extended word or after an arithmetic shift) is counted once: the AND does
/// not change, and a counter of one bit of weight `k` would need `k²` of the noise
/// budget (eight copies of one bit weigh 64, over the 25 of a bootstrap).
pub fn all(b: &mut BitBuilder, bits: &[Bit]) -> Bit {
    let mut seen = HashSet::new();
    let distinct: Vec<Bit> = bits.iter().copied().filter(|&x| seen.insert(x)).collect();
    and_tree(b, &distinct, MAX_COUNT_SPAN as usize, |b, c| {
        let terms: Vec<(Bit, u32)> = c.iter().map(|&x| (x, 1)).collect();
        let outs = b
            .count(&terms, 16 - c.len() as u32)
            .expect("at most 15 unit bits");
        outs.get(4).copied().unwrap_or_else(|| b.constant(false))
    })
}

/// The AND of `bits` as a tree: each level replaces every group of up to `arity` bits by
/// `and(group)`; 1 for no bits.
fn and_tree(
    b: &mut BitBuilder,
    bits: &[Bit],
    arity: usize,
    mut and: impl FnMut(&mut BitBuilder, &[Bit]) -> Bit,
) -> Bit {
    let mut v = bits.to_vec();
    if v.is_empty() {
        return b.constant(true);
    }
    while v.len() > 1 {
        v = v.chunks(arity).map(|c| and(b, c)).collect();
    }
    v[0]
}

/// Whether any bit is 1 (`¬all(¬x)`).
pub fn any(b: &mut BitBuilder, bits: &[Bit]) -> Bit {
    let n: Vec<Bit> = bits.iter().map(|&x| b.not(x)).collect();
    let a = all(b, &n);
    b.not(a)
}

/// `x == y`.
pub fn eq(b: &mut BitBuilder, x: &Word, y: &Word) -> Bit {
    let w = x.width().max(y.width());
    let (x, y) = (x.resize(b, w, false), y.resize(b, w, false));
    let same: Vec<Bit> = (0..w)
        .map(|k| {
            let d = b.xor(x.bits[k], y.bits[k]);
            b.not(d)
        })
        .collect();
    all(b, &same)
}

/// `x ≥ y` unsigned: the carry out of `x + ¬y + 1` (only carries are built:
/// ≈ one bootstrap per two bits).
pub fn ge_unsigned(b: &mut BitBuilder, x: &Word, y: &Word) -> Bit {
    let w = x.width().max(y.width());
    let (x, y) = (x.resize(b, w, false), y.resize(b, w, false));
    let ny = not(b, &y);
    let mut cols = columns(&[&x, &ny], w + 1);
    cols[0].push(b.constant(true));
    sum_columns(b, cols, w + 1).bits[w]
}

/// `x < y` unsigned.
pub fn lt_unsigned(b: &mut BitBuilder, x: &Word, y: &Word) -> Bit {
    let ge = ge_unsigned(b, x, y);
    b.not(ge)
}

/// The two's-complement comparison of `x` and `y` that `unsigned` makes of unsigned
/// words: both sign-extended to one width, their sign bits flipped (which maps the signed
/// order onto the unsigned one).
fn signed_by_unsigned(
    b: &mut BitBuilder,
    x: &Word,
    y: &Word,
    unsigned: fn(&mut BitBuilder, &Word, &Word) -> Bit,
) -> Bit {
    let w = x.width().max(y.width());
    let [x, y] = [x, y].map(|v| {
        let mut v = v.resize(b, w, true);
        if let Some(m) = v.bits.last_mut() {
            *m = b.not(*m);
        }
        v
    });
    unsigned(b, &x, &y)
}

/// `x ≥ y` in two's complement (unsigned comparison with the sign bits flipped).
pub fn ge_signed(b: &mut BitBuilder, x: &Word, y: &Word) -> Bit {
    signed_by_unsigned(b, x, y, ge_unsigned)
}

/// `x < y` in two's complement.
pub fn lt_signed(b: &mut BitBuilder, x: &Word, y: &Word) -> Bit {
    let ge = ge_signed(b, x, y);
    b.not(ge)
}

/// `max(x, y)` unsigned.
pub fn max_unsigned(b: &mut BitBuilder, x: &Word, y: &Word) -> Word {
    let ge = ge_unsigned(b, x, y);
    select(b, ge, x, y)
}

/// `|x|` of a two's-complement word, modulo `2^width` (`|MIN| = MIN`): `(x ⊕ s) + s`.
pub fn abs(b: &mut BitBuilder, x: &Word) -> Word {
    let s = x.msb(b);
    cond_neg(b, x, s)
}

/// `s ? -x : x` modulo `2^width`.
pub fn cond_neg(b: &mut BitBuilder, x: &Word, s: Bit) -> Word {
    let w = x.width();
    let flipped = Word {
        bits: x.bits.iter().map(|&v| b.xor(v, s)).collect(),
    };
    let mut cols = columns(&[&flipped], w);
    if w > 0 {
        cols[0].push(s);
    }
    sum_columns(b, cols, w)
}
