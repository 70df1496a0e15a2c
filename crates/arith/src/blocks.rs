//! Radix-4 block products on the digit IR (TFHE): sums of products of bit vectors with
//! two bits per bootstrap input instead of one.
//!
//! A bit vector's bits pair up into blocks `A = a₀ + 2a₁` (values 0..=3; a linear
//! combination, no bootstrap). One operand's blocks are refreshed (one identity
//! bootstrap each, so their noise is that of a fresh digit); then a single bootstrap of
//! the selector `4A + B` (16 values, quadratic weight `16·1 + 5 = 21` within the default
//! budget of 25) reads any function of the two blocks: the low digit `(A·B) mod 4` of the
//! block product into column `i + j` (weight `4^(i+j)`), and its high digit `(A·B) div 4`
//! into column `i + j + 1`. Bit by bit, the same product needs four AND gates.
//!
//! Each column of digits (values `0..=3`, weight `4^c`) is then reduced from the least
//! significant column up: up to five digits (span ≤ 15) are summed linearly and two
//! bootstraps read the sum's low digit (back into the column) and its carry digit (into
//! the next one); a column whose digits fit one sum gives its two result bits and its
//! carry directly. Columns past the result width are never built.
//!
//! 16-bit wrapping multiplication: 112 bootstraps (bit by bit with counters, 193;
//! TFHE-rs 1.8.2 on 2-bit blocks, 111). The result bits are fresh bootstrap outputs.
//!
//! On stored radix-4 blocks (fresh digits `0..=3`, [`crate::typed::Form::Radix4`]) the
//! same machinery needs no operand refresh and reduces each column to one block:
//! [`mul_blocks`], 96 bootstraps at 16 bits. Beside it: [`add_blocks`] (a ripple of
//! carries, `2k − 1` bootstraps), [`bitwise_blocks`] (one table per block),
//! [`not_blocks`] (linear), [`eq_blocks`], [`compare_blocks`] (chains of block
//! differences, 9 bootstraps at 16 bits), [`select_blocks`], [`scalar_mul_blocks`]
//! (columns of scaled blocks), [`shift_blocks`] (shifts and rotations by a constant: free
//! for whole blocks, one bootstrap per block otherwise), [`shift_var_blocks`] (by an
//! encrypted amount: one bootstrap per block for each amount bit, two for the lowest;
//! [`shift_var_bits`] on bits), [`cast_blocks`] (truncation and extension, free for whole
//! blocks), [`divide_blocks`] (non-restoring division with the partial remainder in
//! blocks: 115 bootstraps for 8-bit unsigned division, 423 at 16 bits; TFHE-rs 164 and
//! 518), and the conversions [`blocks_from_bits`] / [`bits_from_blocks`].
//!
//! ```
//! use encint_arith::blocks;
//! use encint_core::{circuit::Builder, clear};
//! let mut b = Builder::new();
//! let x: Vec<_> = (0..16).map(|_| b.input()).collect();
//! let y: Vec<_> = (0..16).map(|_| b.input()).collect();
//! let p = blocks::mul(&mut b, &x, &y, 16, 25);
//! let c = b.finish(p);
//! let bits = |v: u32| (0..16).map(move |k| i64::from((v >> k) & 1));
//! let inputs: Vec<i64> = bits(1234).chain(bits(567)).collect();
//! let (out, cost) = clear::run(&c, &inputs).unwrap();
//! let value = out.iter().enumerate().fold(0u32, |acc, (k, &d)| acc | ((d as u32) << k));
//! assert_eq!(value, (1234 * 567) % 65536);
//! assert!(cost.bootstraps <= 120);
//! ```

use encint_core::circuit::{Builder, NodeId};
use encint_core::lut::NegacyclicLut;

/// Largest span of a bootstrap selector: 16 consecutive values (one negacyclic
/// half-period of the 5-bit digit space).
const MAX_SPAN: i64 = 15;

/// A digit node whose value lies in `0..=max`.
#[derive(Debug, Clone, Copy)]
struct Digit {
    node: NodeId,
    max: i64,
    /// For a table output: its selector, the selector's largest value (from 0), and the
    /// digit's value at each selector value; so a column left with this digit alone reads
    /// its bits from the selector directly.
    origin: Option<(NodeId, i64, [i8; 16])>,
}

impl Digit {
    fn new(node: NodeId, max: i64) -> Digit {
        Digit {
            node,
            max,
            origin: None,
        }
    }
}

/// One bootstrap of `f` on `node`, whose values lie in `lo..=hi`.
pub(crate) fn table(
    b: &mut Builder,
    node: NodeId,
    lo: i64,
    hi: i64,
    f: impl Fn(i64) -> i64,
) -> NodeId {
    let lut =
        NegacyclicLut::from_fn(lo..=hi, f).expect("selectors span at most 16 consecutive values");
    b.lut(node, &lut)
}

/// The blocks `bits[2i] + 2·bits[2i+1]` of a bit vector (the last one a single bit when
/// the length is odd), at most `count` of them.
fn blocks_of(b: &mut Builder, bits: &[NodeId], count: usize) -> Vec<Digit> {
    bits.chunks(2)
        .take(count)
        .map(|pair| match *pair {
            [lo, hi] => Digit::new(b.linear(&[(lo, 1), (hi, 2)], 0), 3),
            [lo] => Digit::new(lo, 1),
            _ => unreachable!("chunks of two"),
        })
        .collect()
}

/// `d` with the noise of a fresh digit: itself when it already has it (or is a
/// constant), else one identity bootstrap.
fn fresh(b: &mut Builder, d: Digit) -> Digit {
    let node = fresh_node(b, d.node, d.max);
    if node == d.node {
        d
    } else {
        Digit::new(node, d.max)
    }
}

/// `node` (values in `0..=max`) with the noise of a fresh digit: itself when it already
/// has it (quadratic weight at most 1, or a constant), else one identity bootstrap.
pub(crate) fn fresh_node(b: &mut Builder, node: NodeId, max: i64) -> NodeId {
    if b.const_value(node).is_some() || b.qweight(node) <= 1 {
        node
    } else {
        table(b, node, 0, max, |x| x)
    }
}

/// The low `width` bits of `Σ xₖ·yₖ` over `pairs` of unsigned bit vectors (least
/// significant bit first; each node a digit holding 0 or 1): fresh bits, one digit node
/// each. `budget` is the parameter set's quadratic-weight budget at a bootstrap input
/// (25 for the default set); bits of any noise within it are accepted (noisier blocks are
/// refreshed before use).
pub fn mul_sum(
    b: &mut Builder,
    pairs: &[(&[NodeId], &[NodeId])],
    width: usize,
    budget: u64,
) -> Vec<NodeId> {
    sum_products(b, pairs, &[], width, budget)
}

/// The low `width` bits of `Σ xₖ·yₖ + Σ zₗ` over `pairs` and `addends` (unsigned bit
/// vectors): [`mul_sum`] with the addends' blocks joining the digit columns as they are
/// (linear, no bootstrap of their own).
pub fn sum_products(
    b: &mut Builder,
    pairs: &[(&[NodeId], &[NodeId])],
    addends: &[&[NodeId]],
    width: usize,
    budget: u64,
) -> Vec<NodeId> {
    let ncols = width.div_ceil(2);
    let terms: Vec<Product> = pairs
        .iter()
        .map(|&(x, y)| Product {
            x: blocks_of(b, x, ncols),
            y: blocks_of(b, y, ncols),
            square: std::ptr::eq(x, y),
        })
        .collect();
    let addends: Vec<Vec<Digit>> = addends.iter().map(|z| blocks_of(b, z, ncols)).collect();
    sum_digit_products(b, &terms, &addends, width, budget, Out::Bits)
}

/// One product of block vectors (a square when `square`: `x` twice).
struct Product {
    x: Vec<Digit>,
    y: Vec<Digit>,
    square: bool,
}

/// What [`reduce_columns`] gives: the result's bits, or its radix-4 blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Out {
    Bits,
    Blocks,
}

/// The low `width` bits of `Σ products + Σ addends` over block vectors, as bits or as
/// blocks.
fn sum_digit_products(
    b: &mut Builder,
    products: &[Product],
    addends: &[Vec<Digit>],
    width: usize,
    budget: u64,
    out: Out,
) -> Vec<NodeId> {
    let ncols = width.div_ceil(2);
    let mut cols: Vec<Vec<Digit>> = vec![Vec::new(); ncols];
    let mut offsets: Vec<i64> = vec![0; ncols];
    for z in addends {
        for (c, &d) in z.iter().take(ncols).enumerate() {
            push_digit(b, &mut cols[c], &mut offsets[c], d);
        }
    }
    for p in products {
        if p.square {
            square_into(b, &p.x, &mut cols, &mut offsets, budget);
            continue;
        }
        let (mut a, mut c) = (p.x.clone(), p.y.clone());
        a.truncate(ncols);
        c.truncate(ncols);
        // Refresh the side with fewer blocks; the other enters the selector linearly.
        if a.len() > c.len() {
            std::mem::swap(&mut a, &mut c);
        }
        let a: Vec<Digit> = a.into_iter().map(|d| fresh(b, d)).collect();
        let mut c_fresh: Vec<Option<Digit>> = vec![None; c.len()];
        for (i, &ai) in a.iter().enumerate() {
            for j in 0..c.len().min(ncols.saturating_sub(i)) {
                let mut cj = c[j];
                if b.linear_qweight(&[(ai.node, cj.max + 1), (cj.node, 1)]) > budget {
                    cj = *c_fresh[j].get_or_insert_with(|| fresh(b, c[j]));
                }
                product_into(b, ai, cj, i + j, 1, &mut cols, &mut offsets);
            }
        }
    }
    reduce_columns(b, cols, offsets, width, budget, out)
}

/// The digits of `times · a·c` (`a` fresh, `c` within the budget at weight 1 beside `a`
/// at weight `c.max + 1`) into column `col` (low digit) and the next (high digit): one
/// bootstrap of the selector `(c.max + 1)·a + c` per digit; `times` copies of each.
fn product_into(
    b: &mut Builder,
    a: Digit,
    c: Digit,
    col: usize,
    times: usize,
    cols: &mut [Vec<Digit>],
    offsets: &mut [i64],
) {
    let m = c.max + 1;
    let sel = b.linear(&[(a.node, m), (c.node, 1)], 0);
    digits_into(
        b,
        sel,
        a.max * m + c.max,
        move |s| (s / m) * (s % m),
        col,
        times,
        cols,
        offsets,
    );
}

/// The low and high radix-4 digits of `f(sel)` (`sel` in `0..=hi`, `f ≥ 0`) into column
/// `col` and the next, `times` copies of each.
#[allow(clippy::too_many_arguments)]
fn digits_into(
    b: &mut Builder,
    sel: NodeId,
    hi: i64,
    f: impl Fn(i64) -> i64 + Copy,
    col: usize,
    times: usize,
    cols: &mut [Vec<Digit>],
    offsets: &mut [i64],
) {
    let fmax = (0..=hi).map(f).max().unwrap_or(0);
    let lo = table(b, sel, 0, hi, move |s| f(s) % 4);
    let mut values = [0i8; 16];
    for (s, v) in values.iter_mut().enumerate().take(hi as usize + 1) {
        *v = (f(s as i64) % 4) as i8;
    }
    for _ in 0..times {
        let mut d = Digit::new(lo, fmax.min(3));
        d.origin = Some((sel, hi, values));
        push_digit(b, &mut cols[col], &mut offsets[col], d);
    }
    if fmax >= 4 && col + 1 < cols.len() {
        let high = table(b, sel, 0, hi, move |s| f(s) / 4);
        for _ in 0..times {
            push(b, &mut cols[col + 1], &mut offsets[col + 1], high, fmax / 4);
        }
    }
}

/// The digits of `x²` into the columns: `A_i²` from one fresh block, each `A_i·A_j`
/// (`i < j`) once, counted twice.
fn square_into(
    b: &mut Builder,
    lin: &[Digit],
    cols: &mut [Vec<Digit>],
    offsets: &mut [i64],
    budget: u64,
) {
    let ncols = cols.len();
    let lin = &lin[..lin.len().min(ncols)];
    let a: Vec<Digit> = lin.iter().map(|&d| fresh(b, d)).collect();
    for i in 0..a.len() {
        if 2 * i < ncols {
            digits_into(b, a[i].node, a[i].max, |s| s * s, 2 * i, 1, cols, offsets);
        }
        for j in i + 1..a.len().min(ncols.saturating_sub(i)) {
            let c = if b.linear_qweight(&[(a[i].node, lin[j].max + 1), (lin[j].node, 1)]) > budget {
                a[j]
            } else {
                lin[j]
            };
            product_into(b, a[i], c, i + j, 2, cols, offsets);
        }
    }
}

/// Appends a digit to a column (a constant joins the column's offset instead).
fn push(b: &Builder, col: &mut Vec<Digit>, offset: &mut i64, node: NodeId, max: i64) {
    push_digit(b, col, offset, Digit::new(node, max));
}

fn push_digit(b: &Builder, col: &mut Vec<Digit>, offset: &mut i64, d: Digit) {
    match b.const_value(d.node) {
        Some(v) => *offset += v,
        None if d.max > 0 => col.push(d),
        None => {}
    }
}

/// Reduces digit columns (column `c` weighs `4^c`, plus its constant offset) to the low
/// `width` bits of their sum: `width` bits, or (`Out::Blocks`) `⌈width/2⌉` fresh radix-4
/// blocks, the last one a single bit when `width` is odd.
fn reduce_columns(
    b: &mut Builder,
    mut cols: Vec<Vec<Digit>>,
    mut offsets: Vec<i64>,
    width: usize,
    budget: u64,
    mode: Out,
) -> Vec<NodeId> {
    let ncols = cols.len();
    let mut out = Vec::with_capacity(width);
    for c in 0..ncols {
        let want_hi = 2 * c + 1 < width;
        let has_next = c + 1 < ncols;
        // Constant offsets carry whole multiples of 4 to the next column.
        if has_next && offsets[c] >= 4 {
            offsets[c + 1] += offsets[c] / 4;
            offsets[c] %= 4;
        }
        let mut col = std::mem::take(&mut cols[c]);
        loop {
            let offset = offsets[c];
            let total: i64 = offset + col.iter().map(|d| d.max).sum::<i64>();
            let terms: Vec<(NodeId, i64)> = col.iter().map(|d| (d.node, 1)).collect();
            if let ([d], 0) = (col.as_slice(), offset) {
                if mode == Out::Blocks && want_hi && d.max <= 3 && b.qweight(d.node) <= 1 {
                    // A lone fresh digit below 4 is the column's block as it is.
                    out.push(d.node);
                    break;
                }
                if let Some((sel, hi, values)) = d.origin {
                    // A lone table digit: its bits from its own selector (no carry: < 4).
                    if mode == Out::Blocks {
                        // Only the low bit is wanted (the last block of an odd width).
                        out.push(table(b, sel, 0, hi, move |s| {
                            i64::from(values[s as usize]) & 1
                        }));
                        break;
                    }
                    for k in 0..if want_hi { 2 } else { 1 } {
                        let bit = table(b, sel, 0, hi, move |s| {
                            (i64::from(values[s as usize]) >> k) & 1
                        });
                        out.push(bit);
                    }
                    break;
                }
            }
            if total - offset <= MAX_SPAN && b.linear_qweight(&terms) <= budget {
                // The whole column in one sum: its bits (or block), and its carry.
                let s = b.linear(&terms, offset);
                let constant = b.const_value(s);
                let read = |b: &mut Builder, f: fn(i64) -> i64| match constant {
                    Some(v) => b.constant(f(v)),
                    None => table(b, s, offset, total, f),
                };
                match mode {
                    Out::Bits => {
                        out.push(read(b, |x| x & 1));
                        if want_hi {
                            out.push(read(b, |x| (x >> 1) & 1));
                        }
                    }
                    Out::Blocks if want_hi => out.push(read(b, |x| x & 3)),
                    Out::Blocks => out.push(read(b, |x| x & 1)),
                }
                if has_next && total >= 4 {
                    let carry = read(b, |x| x >> 2);
                    push(b, &mut cols[c + 1], &mut offsets[c + 1], carry, total / 4);
                }
                break;
            }
            // A group of the oldest digits that fits one sum (at least two of them).
            let mut take = 0;
            let mut span = 0;
            while take < col.len() {
                let d = col[take];
                let trial: Vec<(NodeId, i64)> = col[..=take].iter().map(|d| (d.node, 1)).collect();
                if span + d.max > MAX_SPAN || b.linear_qweight(&trial) > budget {
                    break;
                }
                span += d.max;
                take += 1;
            }
            if take < 2 {
                // Noisy digits (not produced here): refresh the first one and retry.
                let d = col.remove(0);
                let f = fresh(b, d);
                col.push(f);
                continue;
            }
            let group: Vec<Digit> = col.drain(..take).collect();
            let terms: Vec<(NodeId, i64)> = group.iter().map(|d| (d.node, 1)).collect();
            let s = b.linear(&terms, 0);
            let low = table(b, s, 0, span, |x| x % 4);
            col.push(Digit::new(low, span.min(3)));
            if has_next && span >= 4 {
                let carry = table(b, s, 0, span, |x| x / 4);
                push(b, &mut cols[c + 1], &mut offsets[c + 1], carry, span / 4);
            }
        }
    }
    let len = match mode {
        Out::Bits => width,
        Out::Blocks => ncols,
    };
    out.truncate(len);
    while out.len() < len {
        let zero = b.constant(0);
        out.push(zero);
    }
    out
}

/// The low `width` bits of `x·y` (unsigned bit vectors, least significant first): the
/// wrapping product when `width` is the operands' width, the full product at twice it.
/// See [`mul_sum`].
pub fn mul(b: &mut Builder, x: &[NodeId], y: &[NodeId], width: usize, budget: u64) -> Vec<NodeId> {
    mul_sum(b, &[(x, y)], width, budget)
}

/// Differences of two bit vectors of one width, two bits at a time: `(x₀ − y₀) +
/// 2(x₁ − y₁)` in `-3..=3` (linear; quadratic weight 10 on fresh bits), least
/// significant pair first; zero exactly when the pair is equal, and of the sign of the
/// pair's comparison. With `signed`, the top bit weighs negatively (two's complement).
fn pair_differences(b: &mut Builder, x: &[NodeId], y: &[NodeId], signed: bool) -> Vec<NodeId> {
    let n = x.len().min(y.len());
    (0..n)
        .step_by(2)
        .map(|i| {
            let mut terms = Vec::with_capacity(4);
            for (k, w) in [(i, 1), (i + 1, 2)] {
                if k < n {
                    let w = if signed && k == n - 1 { -w } else { w };
                    terms.push((x[k], w));
                    terms.push((y[k], -w));
                }
            }
            b.linear(&terms, 0)
        })
        .collect()
}

/// `[x == y]` for bit vectors of one width (each node a digit 0 or 1), as a bit: one
/// bootstrap per two bits (`[(x₀ − y₀) + 2(x₁ − y₁) = 0]`), then the indicators ANDed
/// fifteen at a time (`[Σ e = k]`). 16 bits: 9 bootstraps, depth 2.
pub fn eq(b: &mut Builder, x: &[NodeId], y: &[NodeId]) -> NodeId {
    let diffs = pair_differences(b, x, y, false);
    all_zero(b, diffs)
}

/// `[every difference is 0]` for differences in `-3..=3`: one indicator bootstrap each,
/// then ANDed fifteen at a time.
fn all_zero(b: &mut Builder, diffs: Vec<NodeId>) -> NodeId {
    let ind: Vec<NodeId> = diffs
        .into_iter()
        .map(|d| table(b, d, -3, 3, |v| i64::from(v == 0)))
        .collect();
    and_all(b, ind)
}

/// The AND of fresh bits, fifteen at a time (`[Σ e = k]`); 1 for none.
fn and_all(b: &mut Builder, mut ind: Vec<NodeId>) -> NodeId {
    while ind.len() > 1 {
        ind = ind
            .chunks(MAX_SPAN as usize)
            .map(|g| {
                let k = g.len() as i64;
                let terms: Vec<(NodeId, i64)> = g.iter().map(|&e| (e, 1)).collect();
                let s = b.linear(&terms, 0);
                table(b, s, 0, k, move |v| i64::from(v == k))
            })
            .collect();
    }
    ind.pop().unwrap_or_else(|| b.constant(1))
}

/// Where the sign of one position's comparison comes from (least significant first).
enum SignSource {
    /// A difference in `-3..=3` (linear), of the comparison's sign.
    Difference(NodeId),
    /// A selector whose value `v` (in `lo..lo + sign.len()`) has sign `sign[v - lo]`.
    Table {
        node: NodeId,
        lo: i64,
        sign: Vec<i64>,
    },
}

/// Longest chain of differences read one after another (see [`merge_signs`]).
const CHAIN: usize = 4;

/// `pred(sign(x − y))` for bit vectors of one width (unsigned, or two's complement with
/// `signed`), as a bit: the sign of each pair's difference in one bootstrap, then merged
/// in a tree (`merge_signs`). 8 bits: 5 bootstraps, depth 2; 16 bits: 11, depth 3.
pub fn compare(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    signed: bool,
    pred: fn(i64) -> bool,
) -> NodeId {
    let diffs = pair_differences(b, x, y, signed);
    let sources = diffs.into_iter().map(SignSource::Difference).collect();
    merge_signs(b, sources, pred)
}

/// What the least significant position of a merge reports: its full sign, or only on
/// which side of the predicate's boundary it lies, which is all a lexicographic
/// comparison needs from it once every higher position is 0.
#[derive(Debug, Clone, Copy)]
enum Low {
    /// `−[s < 0]`: the boundary lies between −1 and 0 (`<`, `≥`).
    Below,
    /// `[s > 0]`: the boundary lies between 0 and 1 (`>`, `≤`).
    Above,
    /// `s` itself (a predicate without a single boundary).
    Sign,
}

impl Low {
    fn of(pred: fn(i64) -> bool) -> Low {
        match (pred(-1), pred(0), pred(1)) {
            (n, z, p) if n != z && z == p => Low::Below,
            (n, z, p) if n == z && z != p => Low::Above,
            _ => Low::Sign,
        }
    }

    /// The value reported for sign `s`.
    fn value(self, s: i64) -> i64 {
        match self {
            Low::Below => -i64::from(s < 0),
            Low::Above => i64::from(s > 0),
            Low::Sign => s,
        }
    }

    /// The smallest and largest reported values.
    fn range(self) -> (i64, i64) {
        match self {
            Low::Below => (-1, 0),
            Low::Above => (0, 1),
            Low::Sign => (-1, 1),
        }
    }

    /// The weight of the first sign beside the low value in a merge: 1 beside a
    /// one-sided value (`t + s₁ + 2s₂ + 4s₃`, 16 values: a nonzero `s₁ + 2s₂ + 4s₃`
    /// outweighs `t`, and `t` alone tells the predicate when it is 0), 2 beside a sign.
    fn first_weight(self) -> i64 {
        match self {
            Low::Sign => 2,
            _ => 1,
        }
    }

    /// How many signs a merge can read beside the low value within [`MAX_SPAN`].
    fn siblings(self) -> usize {
        match self {
            Low::Sign => 2,
            _ => 3,
        }
    }
}

/// The shapes of merge trees over runs of chain outputs, for a depth bound.
///
/// A sign tree merges two or three sign trees; over `len` outputs its fewest merges are
/// `⌈(len − 1)/2⌉`, reachable within depth `d` when `len ≤ 3^d` (parts of odd sizes, at most
/// one even). A low tree merges a low tree (its least significant part) and up to
/// [`Low::siblings`] sign trees; its fewest merges are found over the size of that first
/// part (memoised).
struct MergePlan {
    low: Low,
    memo: std::collections::HashMap<(usize, usize), Option<(usize, usize)>>,
}

impl MergePlan {
    /// The most outputs a sign tree of depth `depth` covers (saturating).
    fn sign_cover(depth: usize) -> usize {
        3usize.saturating_pow(depth as u32)
    }

    /// The sizes of `parts` sign trees over `len` outputs, each at most `cap`, with the
    /// fewest merges: all odd but at most one (least significant first).
    fn split(len: usize, parts: usize, cap: usize) -> Vec<usize> {
        let mut sizes = vec![1; parts];
        let mut left = len - parts;
        for s in sizes.iter_mut() {
            let add = (cap.saturating_sub(*s) / 2 * 2).min(left / 2 * 2);
            *s += add;
            left -= add;
        }
        // An odd remainder goes to a part below the cap; past every cap (a tree deeper
        // than planned, never the case for a depth `low_tree` accepted) to the last part.
        let spare = sizes.iter().position(|&s| s < cap).unwrap_or(parts - 1);
        sizes[spare] += left;
        sizes
    }

    /// The fewest merges of a low tree over `len` outputs within `depth`, and the size of
    /// its least significant part (itself a low tree); `None` if none fits.
    fn low_tree(&mut self, len: usize, depth: usize) -> Option<(usize, usize)> {
        if len == 1 {
            return Some((0, 0));
        }
        if depth == 0 {
            return None;
        }
        if let Some(&r) = self.memo.get(&(len, depth)) {
            return r;
        }
        let (siblings, cap) = (self.low.siblings(), Self::sign_cover(depth - 1));
        let mut best: Option<(usize, usize)> = None;
        for head in 1..len {
            let rest = len - head;
            if rest > siblings.saturating_mul(cap) {
                continue;
            }
            let Some((head_merges, _)) = self.low_tree(head, depth - 1) else {
                continue;
            };
            let total = 1 + head_merges + (rest - rest.min(siblings)).div_ceil(2);
            if best.is_none_or(|(m, _)| total < m) {
                best = Some((total, head));
            }
        }
        self.memo.insert((len, depth), best);
        best
    }

    /// The sizes of the root's parts of the tree over `len` outputs within `depth` (a low
    /// tree's first part is its low part); empty for one output. Every output is in a
    /// part whatever the depth: a depth too small gives a deeper tree, never a wrong one.
    fn parts(&mut self, low: bool, len: usize, depth: usize) -> Vec<usize> {
        if len <= 1 {
            return Vec::new();
        }
        let cap = Self::sign_cover(depth.saturating_sub(1));
        if !low {
            return Self::split(len, len.min(3), cap);
        }
        let head = self.low_tree(len, depth).map_or(1, |(_, head)| head);
        let rest = len - head;
        let mut sizes = vec![head];
        sizes.extend(Self::split(rest, rest.min(self.low.siblings()), cap));
        sizes
    }
}

/// `pred` of the sign of the most significant nonzero source (0 when all are 0).
///
/// Runs of up to [`CHAIN`] consecutive differences are read as chains, from the least
/// significant up: `s = sign(d₀)`, then `s = sign(2dᵢ + s)` (in `-7..=7`, quadratic weight
/// 9; `|s| < 2` cannot outweigh a nonzero `dᵢ`), one bootstrap per source. A table source
/// stands alone. The chains' results are then merged in a tree of the least depth, and
/// of the fewest merges at that depth:
/// - a merge of signs reads `sign(s₁ + 2s₂ + 4s₃)` (quadratic weight 21);
/// - the least significant chain reports only its [`Low`] value `t` (`−[s < 0]` for `<`
///   and `≥`), and the merges above it read `t + s₁ + 2s₂ + 4s₃` (16 values, quadratic
///   weight 22): one more position per merge than signs alone;
/// - the last merge (or, for one chain, its last step) reads `pred` directly.
///
/// 8 bits of canonical bits (four differences): 5 bootstraps, depth 2.
fn merge_signs(b: &mut Builder, sources: Vec<SignSource>, pred: fn(i64) -> bool) -> NodeId {
    let bit = move |v: i64| i64::from(pred(v.signum()));
    let low = Low::of(pred);
    // The chains: runs of differences (at most CHAIN long) and lone tables.
    let mut chains: Vec<Vec<SignSource>> = Vec::new();
    for s in sources {
        // `2d + s` within the budget (fresh blocks' differences; bit pairs' are too noisy
        // and stand alone).
        let joins = matches!(s, SignSource::Difference(d)
            if 4 * b.qweight(d) < encint_core::bits::QWEIGHT_BUDGET);
        match chains.last_mut() {
            Some(c) if joins && c.len() < CHAIN && matches!(c[0], SignSource::Difference(_)) => {
                c.push(s)
            }
            _ => chains.push(vec![s]),
        }
    }
    let count = chains.len();
    let mut outs = Vec::with_capacity(count);
    for (i, chain) in chains.into_iter().enumerate() {
        let len = chain.len();
        let mut acc: Option<NodeId> = None;
        for (k, s) in chain.into_iter().enumerate() {
            let f: Box<dyn Fn(i64) -> i64> = match (count, i, k + 1 == len) {
                (1, _, true) => Box::new(bit),
                (_, 0, true) => Box::new(move |v: i64| low.value(v.signum())),
                _ => Box::new(i64::signum),
            };
            acc = Some(match (s, acc) {
                (SignSource::Difference(d), None) => table(b, d, -3, 3, f),
                (SignSource::Difference(d), Some(prev)) => {
                    let sel = b.linear(&[(d, 2), (prev, 1)], 0);
                    table(b, sel, -7, 7, f)
                }
                (SignSource::Table { node, lo, sign }, _) => {
                    let hi = lo + sign.len() as i64 - 1;
                    table(b, node, lo, hi, move |v| f(sign[(v - lo) as usize]))
                }
            });
        }
        outs.extend(acc);
    }
    match outs.as_slice() {
        [] => return b.constant(bit(0)),
        [s] => return *s,
        _ => {}
    }
    let mut plan = MergePlan {
        low,
        memo: std::collections::HashMap::new(),
    };
    // A chain of low merges, each taking one more output, always fits: the least depth
    // is at most count − 1.
    let depth = (1..count)
        .find(|&d| plan.low_tree(count, d).is_some())
        .unwrap_or(count - 1);
    merge_tree(b, &mut plan, &outs, true, depth, Some(&bit))
}

/// The merge tree `plan` chose over `outs` (least significant first) within `depth`: a
/// low tree when `low` (reading `root`'s predicate when given), else a sign tree.
fn merge_tree(
    b: &mut Builder,
    plan: &mut MergePlan,
    outs: &[NodeId],
    low: bool,
    depth: usize,
    root: Option<&dyn Fn(i64) -> i64>,
) -> NodeId {
    let sizes = plan.parts(low, outs.len(), depth);
    if sizes.is_empty() {
        return outs[0];
    }
    let mut terms = Vec::with_capacity(sizes.len());
    let (mut lo, mut hi) = (0, 0);
    let mut weight = 1;
    let mut start = 0;
    for (j, &size) in sizes.iter().enumerate() {
        let part = &outs[start..start + size];
        start += size;
        if low && j == 0 {
            let node = merge_tree(b, plan, part, true, depth.saturating_sub(1), None);
            let (l, h) = plan.low.range();
            terms.push((node, 1));
            (lo, hi) = (l, h);
            weight = plan.low.first_weight();
        } else {
            let node = merge_tree(b, plan, part, false, depth.saturating_sub(1), None);
            terms.push((node, weight));
            (lo, hi) = (lo - weight, hi + weight);
            weight *= 2;
        }
    }
    let sel = b.linear(&terms, 0);
    let kind = plan.low;
    match root {
        Some(f) => table(b, sel, lo, hi, f),
        None if low => table(b, sel, lo, hi, move |v| kind.value(v.signum())),
        None => table(b, sel, lo, hi, i64::signum),
    }
}

// Radix-4 blocks: a `bits`-bit pattern (unsigned, or two's complement read as its
// unsigned pattern) as `⌈bits/2⌉` digits `Xᵢ = x₂ᵢ + 2x₂ᵢ₊₁` in `0..=3`, the last one a
// single bit when `bits` is odd. The functions below take fresh blocks (quadratic
// weight 1, as encrypted or as a bootstrap gives them) and give fresh blocks.

/// The largest value of block `i` of a `bits`-bit pattern: 3, or 1 for the last block
/// of an odd width.
pub fn block_max(bits: usize, i: usize) -> i64 {
    if 2 * i + 1 == bits {
        1
    } else {
        3
    }
}

fn block_digits(x: &[NodeId], bits: usize) -> Vec<Digit> {
    x.iter()
        .enumerate()
        .map(|(i, &node)| Digit::new(node, block_max(bits, i)))
        .collect()
}

/// `x + y` (or `x − y` with `subtract`) modulo `2^bits` on blocks, by a ripple of carries:
/// block `i` reads `t = Xᵢ ± Yᵢ + cᵢ` (in `0..=7`, quadratic weight 3) in two tables, its
/// block `t mod 4` and its carry `[t ≥ 4]`: `2k − 1` bootstraps for `k` blocks, depth
/// `k`. An empty `x` is 0 (so `x − y` with an empty `x` is `−y`).
pub fn add_blocks(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
    subtract: bool,
) -> Vec<NodeId> {
    // Subtraction adds the complement `(m − 1) − Yᵢ` of each block and a carry-in of 1.
    let carry_in = b.constant(i64::from(subtract));
    ripple(b, bits.div_ceil(2), Some(carry_in), Out::Blocks, |_, i| {
        let m = block_max(bits, i) + 1;
        let mut terms = Vec::new();
        let mut constant = 0;
        if let Some(&xi) = x.get(i) {
            terms.push((xi, 1));
        }
        if let Some(&yi) = y.get(i) {
            if subtract {
                terms.push((yi, -1));
                constant += m - 1;
            } else {
                terms.push((yi, 1));
            }
        } else if subtract {
            constant += m - 1;
        }
        RippleBlock {
            terms,
            constant,
            hi: 2 * m - 1,
            m,
        }
    })
}

/// Block `i` of a [`ripple`]: its terms (besides the carry in), their constant, the
/// largest value of the sum with the carry, and the block's modulus.
struct RippleBlock {
    terms: Vec<(NodeId, i64)>,
    constant: i64,
    hi: i64,
    m: i64,
}

/// A ripple of carries over `k` blocks: block `i` reads `t = cᵢ + Σ termsᵢ + constantᵢ`
/// (`c₀ = carry_in`, none when `None`) in a table for its result (`t mod m`, or with
/// [`Out::Bits`] its one or two bits) and, below the top block, one for its carry
/// `t div m`.
fn ripple(
    b: &mut Builder,
    k: usize,
    carry_in: Option<NodeId>,
    out: Out,
    mut block: impl FnMut(&mut Builder, usize) -> RippleBlock,
) -> Vec<NodeId> {
    let mut result = Vec::with_capacity(2 * k);
    let mut carry = carry_in;
    for i in 0..k {
        let RippleBlock {
            mut terms,
            constant,
            hi,
            m,
        } = block(b, i);
        terms.extend(carry.map(|c| (c, 1)));
        let t = b.linear(&terms, constant);
        match out {
            Out::Blocks => result.push(table(b, t, 0, hi, move |v| v % m)),
            Out::Bits => {
                result.push(table(b, t, 0, hi, |v| v & 1));
                if m == 4 {
                    result.push(table(b, t, 0, hi, |v| (v >> 1) & 1));
                }
            }
        }
        if i + 1 < k {
            carry = Some(table(b, t, 0, hi, move |v| v / m));
        }
    }
    result
}

/// `f(Xᵢ, Yᵢ)` per block (bitwise logic): one bootstrap of `m·Xᵢ + Yᵢ` each (quadratic
/// weight 17).
pub fn bitwise_blocks(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
    f: fn(i64, i64) -> i64,
) -> Vec<NodeId> {
    (0..bits.div_ceil(2))
        .map(|i| {
            let m = block_max(bits, i) + 1;
            let s = b.linear(&[(x[i], m), (y[i], 1)], 0);
            table(b, s, 0, m * m - 1, move |v| f(v / m, v % m))
        })
        .collect()
}

/// `!x` on blocks: `(m − 1) − Xᵢ`, linear (no bootstrap).
pub fn not_blocks(b: &mut Builder, x: &[NodeId], bits: usize) -> Vec<NodeId> {
    x.iter()
        .enumerate()
        .map(|(i, &xi)| b.linear(&[(xi, -1)], block_max(bits, i)))
        .collect()
}

/// The low `bits` bits of `x·y` on blocks, as blocks: the block products of
/// [`mul_sum`] (operands already fresh, so no refresh) with each column reduced to its
/// block (one bootstrap where a column is one sum) instead of two bits. `x` and `y` the
/// same slice: a square.
pub fn mul_blocks(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
    budget: u64,
) -> Vec<NodeId> {
    let product = Product {
        x: block_digits(x, bits),
        y: block_digits(y, bits),
        square: std::ptr::eq(x, y),
    };
    sum_digit_products(b, &[product], &[], bits, budget, Out::Blocks)
}

/// `[x == y]` on blocks: one indicator per block difference `Xᵢ − Yᵢ`, ANDed.
pub fn eq_blocks(b: &mut Builder, x: &[NodeId], y: &[NodeId]) -> NodeId {
    let diffs = x
        .iter()
        .zip(y)
        .map(|(&xi, &yi)| b.linear(&[(xi, 1), (yi, -1)], 0))
        .collect();
    all_zero(b, diffs)
}

/// `pred(sign(x − y))` on blocks (two's complement with `signed`): the sign of each block
/// difference, the top block of a signed pattern by one table of `4X + Y` (a two-bit
/// block is then `−2·x₁ + x₀`), then merged as in [`compare`].
pub fn compare_blocks(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
    signed: bool,
    pred: fn(i64) -> bool,
) -> NodeId {
    let k = bits.div_ceil(2);
    let sources = (0..k)
        .map(|i| {
            let top = signed && i + 1 == k;
            match (top, block_max(bits, i)) {
                // A one-bit sign block weighs −1: the sign of Y − X.
                (true, 1) => SignSource::Difference(b.linear(&[(x[i], -1), (y[i], 1)], 0)),
                (true, _) => {
                    let sx = |v: i64| if v >= 2 { v - 4 } else { v };
                    SignSource::Table {
                        node: b.linear(&[(x[i], 4), (y[i], 1)], 0),
                        lo: 0,
                        sign: (0..16).map(|s| (sx(s / 4) - sx(s % 4)).signum()).collect(),
                    }
                }
                _ => SignSource::Difference(b.linear(&[(x[i], 1), (y[i], -1)], 0)),
            }
        })
        .collect();
    merge_signs(b, sources, pred)
}

/// `c ? x : y` on bit vectors of one width for a fresh bit `c`: one bootstrap per bit,
/// the table of `4c + 2xᵢ + yᵢ` (8 values, quadratic weight 21 on fresh bits; a noisier
/// bit is refreshed first). The results are fresh bits.
pub fn select_bits(b: &mut Builder, c: NodeId, x: &[NodeId], y: &[NodeId]) -> Vec<NodeId> {
    let c = fresh_node(b, c, 1);
    x.iter()
        .zip(y)
        .map(|(&xi, &yi)| {
            let (xi, yi) = (fresh_node(b, xi, 1), fresh_node(b, yi, 1));
            let sel = b.linear(&[(c, 4), (xi, 2), (yi, 1)], 0);
            table(b, sel, 0, 7, |v| if v >= 4 { (v >> 1) & 1 } else { v & 1 })
        })
        .collect()
}

/// `min` or `max` of bit vectors of one width (unsigned, or two's complement with
/// `signed`): `[x ≥ y]` by [`compare`], then [`select_bits`]. 8 bits: 13 bootstraps in
/// depth 3 (the comparison's 5 in depth 2, then one level of 8).
pub fn min_max_bits(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    signed: bool,
    max: bool,
) -> Vec<NodeId> {
    let ge = compare(b, x, y, signed, |s| s >= 0);
    if max {
        select_bits(b, ge, x, y)
    } else {
        select_bits(b, ge, y, x)
    }
}

/// `c ? x : y` on blocks for a fresh bit `c`: per block, the tables `c·Xᵢ` of `m·c + Xᵢ`
/// and `(1 − c)·Yᵢ` of `m·c + Yᵢ`, summed and refreshed: three bootstraps per block.
pub fn select_blocks(
    b: &mut Builder,
    c: NodeId,
    x: &[NodeId],
    y: &[NodeId],
    bits: usize,
) -> Vec<NodeId> {
    (0..bits.div_ceil(2))
        .map(|i| {
            let m = block_max(bits, i) + 1;
            let sx = b.linear(&[(c, m), (x[i], 1)], 0);
            let sy = b.linear(&[(c, m), (y[i], 1)], 0);
            let tx = table(b, sx, 0, 2 * m - 1, move |v| if v >= m { v - m } else { 0 });
            let ty = table(b, sy, 0, 2 * m - 1, move |v| if v >= m { 0 } else { v });
            let sum = b.add(tx, ty);
            table(b, sum, 0, m - 1, |v| v)
        })
        .collect()
}

/// Fresh blocks of a bit vector: each pair `x₂ᵢ + 2x₂ᵢ₊₁` refreshed by one identity
/// bootstrap (a lone last bit as it is, when fresh).
pub fn blocks_from_bits(b: &mut Builder, bits: &[NodeId]) -> Vec<NodeId> {
    blocks_of(b, bits, bits.len().div_ceil(2))
        .into_iter()
        .map(|d| fresh(b, d).node)
        .collect()
}

/// The bits of `bits`-bit blocks (the low bit and the high bit of each block one
/// bootstrap each; a one-bit block is its bit).
pub fn bits_from_blocks(b: &mut Builder, x: &[NodeId], bits: usize) -> Vec<NodeId> {
    let mut out = Vec::with_capacity(bits);
    for (i, &xi) in x.iter().enumerate().take(bits.div_ceil(2)) {
        if block_max(bits, i) == 1 && b.qweight(xi) <= 1 {
            out.push(xi);
            continue;
        }
        out.push(table(b, xi, 0, 3, |v| v & 1));
        if 2 * i + 1 < bits {
            out.push(table(b, xi, 0, 3, |v| v >> 1));
        }
    }
    out
}

/// `k·x` modulo `2^bits` on blocks, for `k` taken modulo `2^bits`: a power of two
/// `2^s` is [`shift_blocks`] by `s`. Otherwise `k` is recoded in radix 4 with digits
/// `kⱼ` in `{-1, 0, 1, 2}` (a digit 3 becomes `-1` and a carry), each block `Xᵢ` joins
/// column `i + j` as `kⱼ·Xᵢ` (linear, no bootstrap; `-Xᵢ` as its complement `max − Xᵢ`
/// with `−max` in the column's constant), and the columns are reduced to fresh blocks as
/// in [`mul_blocks`]. 16-bit `805·x`: 20 bootstraps; `4095·x` (`4^6 − 1`): 15.
pub fn scalar_mul_blocks(
    b: &mut Builder,
    x: &[NodeId],
    bits: usize,
    k: u128,
    budget: u64,
) -> Vec<NodeId> {
    let k = if bits >= 128 {
        k
    } else {
        k & ((1u128 << bits) - 1)
    };
    if k.is_power_of_two() {
        return shift_blocks(b, x, bits, Shift::Left, k.trailing_zeros().into());
    }
    let ncols = bits.div_ceil(2);
    let mut digits = Vec::with_capacity(ncols);
    let mut carry = 0;
    for j in 0..ncols {
        let d = ((k >> (2 * j)) & 3) as i64 + carry;
        let (digit, next) = if d >= 3 { (d - 4, 1) } else { (d, 0) };
        digits.push(digit);
        carry = next;
    }
    let mut cols: Vec<Vec<Digit>> = vec![Vec::new(); ncols];
    let mut offsets: Vec<i64> = vec![0; ncols];
    for (i, &xi) in x.iter().enumerate().take(ncols) {
        let max = block_max(bits, i);
        for (c, col) in cols.iter_mut().enumerate().skip(i) {
            let (node, span) = match digits[c - i] {
                0 => continue,
                -1 => {
                    offsets[c] -= max;
                    (b.linear(&[(xi, -1)], max), max)
                }
                kj => (b.linear(&[(xi, kj)], 0), kj * max),
            };
            push(b, col, &mut offsets[c], node, span);
        }
    }
    // Negative constants borrow from the next column; the top column's is taken
    // modulo its block (adding multiples of 2^bits).
    for c in 0..ncols {
        if offsets[c] < 0 {
            if c + 1 < ncols {
                let q = (3 - offsets[c]) / 4;
                offsets[c] += 4 * q;
                offsets[c + 1] -= q;
            } else {
                offsets[c] = offsets[c].rem_euclid(block_max(bits, c) + 1);
            }
        }
    }
    reduce_columns(b, cols, offsets, bits, budget, Out::Blocks)
}

/// A shift or rotation of a `bits`-bit pattern, by an amount given apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shift {
    /// `x << t` (zeros in; `t ≥ bits` gives 0).
    Left,
    /// `x >> t`, logical (zeros in; `t ≥ bits` gives 0).
    Right,
    /// `x >> t`, arithmetic (copies of bit `bits − 1` in).
    RightArith,
    /// `x` rotated left by `t mod bits`.
    RotateLeft,
    /// `x` rotated right by `t mod bits`.
    RotateRight,
}

impl Shift {
    /// The input bit that result bit `p` of a `bits`-bit pattern copies after a shift by
    /// `t` (`None`: a zero).
    pub fn source(self, bits: usize, t: u128, p: usize) -> Option<usize> {
        let (p128, n) = (p as u128, bits as u128);
        match self {
            Shift::Left => p128.checked_sub(t).map(|q| q as usize),
            Shift::Right => p128.checked_add(t).filter(|&q| q < n).map(|q| q as usize),
            Shift::RightArith => Some(p128.saturating_add(t).min(n - 1) as usize),
            Shift::RotateLeft => Some(((p128 + n - t % n) % n) as usize),
            Shift::RotateRight => Some(((p128 + t % n) % n) as usize),
        }
    }

    fn rotates(self) -> bool {
        matches!(self, Shift::RotateLeft | Shift::RotateRight)
    }
}

/// The source blocks of result block `i` when result bit `p` copies input bit
/// `src(p)`: sorted, without repeats.
fn source_blocks(bits: usize, i: usize, src: impl Fn(usize) -> Option<usize>) -> Vec<usize> {
    let mut ms: Vec<usize> = (2 * i..(2 * i + 2).min(bits))
        .filter_map(|p| src(p).map(|q| q / 2))
        .collect();
    ms.sort_unstable();
    ms.dedup();
    ms
}

/// The bits of source block `m` (holding `v`) that `src` sends to result block `i`, in
/// their places there.
fn part(bits: usize, i: usize, m: usize, v: i64, src: impl Fn(usize) -> Option<usize>) -> i64 {
    (2 * i..(2 * i + 2).min(bits))
        .filter_map(|p| src(p).filter(|q| q / 2 == m).map(|q| (p, q)))
        .fold(0, |acc, (p, q)| acc | (((v >> (q % 2)) & 1) << (p - 2 * i)))
}

/// `x` shifted or rotated by a constant `t` on fresh blocks: a result block that is an
/// input block as it is costs nothing (every block, for an even `t` on an even width);
/// any other reads its (at most two) source blocks in one bootstrap of `m·Xₐ + X_b`
/// (quadratic weight 17). Equal tables (the sign fill of an arithmetic shift) are built
/// once.
pub fn shift_blocks(
    b: &mut Builder,
    x: &[NodeId],
    bits: usize,
    kind: Shift,
    t: u128,
) -> Vec<NodeId> {
    gather_blocks(b, x, bits, bits, |p| kind.source(bits, t, p))
}

/// The fresh blocks of a `bits`-bit pattern (unsigned, or two's complement with
/// `signed`) cast to `to` bits: truncated, or extended with zeros or copies of the sign
/// bit. Whole blocks are kept as they are; a one-bit top block of an odd `to` is one
/// table, and the sign fill one table shared by every block it fills.
pub fn cast_blocks(
    b: &mut Builder,
    x: &[NodeId],
    bits: usize,
    signed: bool,
    to: usize,
) -> Vec<NodeId> {
    gather_blocks(b, x, bits, to, |p| match p {
        p if p < bits => Some(p),
        _ if signed => Some(bits - 1),
        _ => None,
    })
}

/// The `out_bits`-bit pattern whose bit `p` is bit `src(p)` of the `in_bits`-bit pattern
/// held in the fresh blocks `x` (`None`: 0), as fresh blocks (see [`shift_blocks`]).
fn gather_blocks(
    b: &mut Builder,
    x: &[NodeId],
    in_bits: usize,
    out_bits: usize,
    src: impl Fn(usize) -> Option<usize> + Copy,
) -> Vec<NodeId> {
    let size = |m: usize| block_max(in_bits, m) + 1;
    let mut memo: std::collections::HashMap<(Vec<usize>, Vec<i64>), NodeId> =
        std::collections::HashMap::new();
    (0..out_bits.div_ceil(2))
        .map(|i| {
            let ms = source_blocks(out_bits, i, src);
            let (sel, radix) = match *ms.as_slice() {
                [] => return b.constant(0),
                [m] => (x[m], size(m)),
                [lo, hi] => (b.linear(&[(x[hi], size(lo)), (x[lo], 1)], 0), size(lo)),
                _ => unreachable!("a block has two bits"),
            };
            let hi_value = ms.iter().map(|&m| size(m)).product::<i64>() - 1;
            let f = |s: i64| match *ms.as_slice() {
                [m] => part(out_bits, i, m, s, src),
                [lo, hi] => {
                    part(out_bits, i, lo, s % radix, src) | part(out_bits, i, hi, s / radix, src)
                }
                _ => 0,
            };
            let values: Vec<i64> = (0..=hi_value).map(f).collect();
            if let [m] = *ms.as_slice() {
                let identity = values.iter().enumerate().all(|(v, &f)| f == v as i64);
                if identity && size(m) == block_max(out_bits, i) + 1 {
                    return x[m];
                }
            }
            *memo
                .entry((ms.clone(), values.clone()))
                .or_insert_with(|| table(b, sel, 0, hi_value, |s| values[s as usize]))
        })
        .collect()
}

/// One stage of a shifter: the blocks of `cur` moved as `src(v, ·)` says for the value
/// `v` (in `0..=smax`) of the fresh selector `sel`. Each result block sums, over its
/// source blocks `m`, one bootstrap of `(max + 1)·sel + Curₘ` giving the bits block `m`
/// sends it for that `v` (a noisy `Curₘ` beyond the budget is refreshed first). The
/// results are sums of as many table outputs as they have sources.
fn shift_stage(
    b: &mut Builder,
    cur: &mut [NodeId],
    bits: usize,
    sel: NodeId,
    smax: i64,
    src: impl Fn(i64, usize) -> Option<usize>,
    budget: u64,
) -> Vec<NodeId> {
    let mut memo: std::collections::HashMap<(usize, Vec<i64>), NodeId> =
        std::collections::HashMap::new();
    (0..bits.div_ceil(2))
        .map(|i| {
            let mut ms: Vec<usize> = (0..=smax)
                .flat_map(|v| source_blocks(bits, i, |p| src(v, p)))
                .collect();
            ms.sort_unstable();
            ms.dedup();
            let terms: Vec<(NodeId, i64)> = ms
                .into_iter()
                .map(|m| {
                    let radix = block_max(bits, m) + 1;
                    if b.linear_qweight(&[(sel, radix), (cur[m], 1)]) > budget {
                        cur[m] = table(b, cur[m], 0, radix - 1, |v| v);
                    }
                    let hi = (smax + 1) * radix - 1;
                    let values: Vec<i64> = (0..=hi)
                        .map(|s| part(bits, i, m, s % radix, |p| src(s / radix, p)))
                        .collect();
                    let node = *memo.entry((m, values.clone())).or_insert_with(|| {
                        let s = b.linear(&[(sel, radix), (cur[m], 1)], 0);
                        table(b, s, 0, hi, |s| values[s as usize])
                    });
                    (node, 1)
                })
                .collect();
            b.linear(&terms, 0)
        })
        .collect()
}

/// `[every block is 0]` for fresh blocks (values `0..=max`): sums of up to
/// [`MAX_SPAN`] in value, one indicator bootstrap each, then ANDed.
fn blocks_all_zero(b: &mut Builder, blocks: &[(NodeId, i64)], budget: u64) -> NodeId {
    let mut ind = Vec::new();
    let mut group: Vec<(NodeId, i64)> = Vec::new();
    let mut span = 0;
    let flush = |b: &mut Builder, group: &mut Vec<(NodeId, i64)>, span: i64, ind: &mut Vec<_>| {
        if !group.is_empty() {
            let s = b.linear(group, 0);
            ind.push(table(b, s, 0, span, |v| i64::from(v == 0)));
            group.clear();
        }
    };
    for &(node, max) in blocks {
        let mut trial = group.clone();
        trial.push((node, 1));
        if span + max > MAX_SPAN || b.linear_qweight(&trial) > budget {
            flush(b, &mut group, span, &mut ind);
            span = 0;
        }
        group.push((node, 1));
        span += max;
    }
    flush(b, &mut group, span, &mut ind);
    and_all(b, ind)
}

/// `x` shifted or rotated by the fresh blocks `amount` (an unsigned `bits`-bit pattern;
/// a shift by `bits` or more gives 0, or the sign for [`Shift::RightArith`]; a rotation
/// is by the amount modulo `bits`).
///
/// - Each amount bit `d ≥ 2` is one `binary_stage`: the value moves by `2^d` bits when
///   the bit is set, at one bootstrap per block (each reads the amount block as it is).
/// - Amount block 0 (a move by `0..=3` bits) comes last. From 7 bits on, while the binary
///   stages leave the blocks quiet enough (up to 32 bits with the default budget), its
///   bit 1 is one more binary stage and its bit 0 a `last_bit_stage`: two bootstraps
///   per block whose outputs are fresh, so no refresh follows. Otherwise it is one
///   `shift_stage` (three bootstraps per block) and a refresh of every block.
/// - The amount bits worth `bits` or more only decide `over = [any is set]`. A logical
///   shift zeroes the result when `over`, in the table that makes each block fresh
///   anyway; an arithmetic shift sets every other amount bit when `over` (a shift by
///   `bits − 1` or more).
///
/// Bootstraps for `x << y` at 8 / 16 / 32 / 64 bits: 19 / 44 / 102 / 260 (TFHE-rs 1.8.2:
/// 21 / 50 / 119, whose block stages use many-LUT bootstraps, two tables per blind
/// rotation); rotations: 16 / 40 / 96 / 256.
pub fn shift_var_blocks(
    b: &mut Builder,
    x: &[NodeId],
    amount: &[NodeId],
    bits: usize,
    kind: Shift,
    budget: u64,
) -> Vec<NodeId> {
    let k = bits.div_ceil(2);
    let cur = x[..k.min(x.len())].to_vec();
    shift_var(
        b,
        cur,
        Amount::Blocks(amount),
        bits,
        kind,
        Out::Blocks,
        budget,
    )
}

/// [`shift_var_blocks`] on fresh bits (least significant first), as fresh bits: the value's
/// bits pair into blocks linearly, the amount's bits are the stages' selectors as they
/// are, and the last stage reads out bits instead of blocks (one more table per block).
/// 32-bit `x << y`: 131 bootstraps, where a barrel shifter of bits needs 179.
pub fn shift_var_bits(
    b: &mut Builder,
    x: &[NodeId],
    amount: &[NodeId],
    bits: usize,
    kind: Shift,
    budget: u64,
) -> Vec<NodeId> {
    let cur = blocks_of(b, &x[..bits.min(x.len())], bits.div_ceil(2))
        .into_iter()
        .map(|d| d.node)
        .collect();
    shift_var(b, cur, Amount::Bits(amount), bits, kind, Out::Bits, budget)
}

/// An encrypted shift amount: fresh radix-4 blocks or fresh bits.
#[derive(Debug, Clone, Copy)]
enum Amount<'a> {
    Blocks(&'a [NodeId]),
    Bits(&'a [NodeId]),
}

impl Amount<'_> {
    /// Where bit `d` of a `bits`-bit amount lives: its node, the node's largest value, and
    /// the bit's place in it.
    fn bit(self, bits: usize, d: usize) -> Option<(NodeId, i64, u32)> {
        if d >= bits {
            return None;
        }
        match self {
            Amount::Blocks(a) => a
                .get(d / 2)
                .map(|&node| (node, block_max(bits, d / 2), (d % 2) as u32)),
            Amount::Bits(a) => a.get(d).map(|&node| (node, 1, 0)),
        }
    }
}

/// The shifter of [`shift_var_blocks`] and [`shift_var_bits`]: `cur` holds the value's
/// blocks (of any noise within the budget).
fn shift_var(
    b: &mut Builder,
    mut cur: Vec<NodeId>,
    amount: Amount,
    bits: usize,
    kind: Shift,
    out: Out,
    budget: u64,
) -> Vec<NodeId> {
    let k = bits.div_ceil(2);
    let n = bits as u128;
    // Amount bits d ≥ 2 that move the value: (node, its largest value, the bit's place,
    // the move in bits).
    let mut stages: Vec<(NodeId, i64, u32, u128)> = Vec::new();
    // Amount digits (or the high bits of blocks) worth `bits` or more: (node, largest value).
    let mut over: Vec<(NodeId, i64)> = Vec::new();
    for d in 2..bits {
        let Some((node, max, place)) = amount.bit(bits, d) else {
            break;
        };
        // d ≤ 127: an amount has at most 128 bits.
        let t = 1u128 << d;
        if kind.rotates() {
            if !t.is_multiple_of(n) {
                stages.push((node, max, place, t % n));
            }
        } else if t < n {
            stages.push((node, max, place, t));
        } else if place == 0 {
            // The whole digit is past the width (a block's high bit too).
            over.push((node, max));
        } else if t / 2 < n {
            // Only a block's high bit is past the width.
            over.push((table(b, node, 0, 3, |v| v >> 1), 1));
        }
    }
    let keep = (!over.is_empty()).then(|| blocks_all_zero(b, &over, budget));
    let arith_keep = keep.filter(|_| kind == Shift::RightArith);
    let logical_keep = keep.filter(|_| kind != Shift::RightArith);
    // Each stage reads its amount digit as it is (its bit picked inside the tables); for
    // an arithmetic shift past the width, the digit clamped to all ones first.
    let mut clamped: std::collections::HashMap<NodeId, NodeId> = std::collections::HashMap::new();
    let mut sel_of = |b: &mut Builder, node: NodeId, max: i64| match arith_keep {
        Some(kp) => *clamped
            .entry(node)
            .or_insert_with(|| clamp_unless(b, kp, node, max)),
        None => node,
    };
    // Amount bits 0 and 1 move by 0..=3 bits. Either bit 1 is one more binary stage and
    // bit 0 a last stage that makes every block fresh ([`last_bit_stage`]), or both are one
    // [`shift_stage`] followed by a refresh; whichever costs fewer bootstraps, counting
    // the refreshes the noise calls for (a binary stage adds 2 to the quadratic weight,
    // and every selector reads a block beside 16 for the amount).
    let one_bit = |p| kind.source(bits, 1, p);
    let q0 = cur.iter().map(|&c| b.qweight(c)).max().unwrap_or(1);
    let refreshes = |stages: usize| {
        let (mut q, mut r) = (q0, 0u64);
        for _ in 0..stages {
            if q + 16 > budget {
                (q, r) = (1, r + 1);
            }
            q += 2;
        }
        r + u64::from(q + 16 > budget)
    };
    let (kk, ss, outw) = (
        k as u64,
        stages.len() as u64,
        if out == Out::Bits { 2 } else { 1 },
    );
    let split_cost = kk * (ss + 1) + kk * refreshes(stages.len() + 1) + kk + kk * outw;
    let stage_cost = kk * ss + kk * refreshes(stages.len()) + 3 * kk - 3 + kk * outw;
    let neighbours: Option<Vec<Neighbour>> =
        (0..k).map(|i| other_source(bits, i, one_bit)).collect();
    let bit0 = amount.bit(bits, 0);
    let bit1 = amount.bit(bits, 1);
    let neighbours = neighbours.filter(|_| bit1.is_some() && k >= 4 && split_cost <= stage_cost);
    if let (Some(_), Some((node, max, place))) = (&neighbours, bit1) {
        let t1 = if kind.rotates() { 2 % n } else { 2 };
        if t1 != 0 {
            stages.push((node, max, place, t1));
        }
    }
    for (node, max, place, t) in stages {
        let sel = sel_of(b, node, max);
        let src = |p| kind.source(bits, t, p);
        cur = binary_stage(b, &mut cur, bits, (sel, max, place), src, budget);
    }
    if let (Some(neighbours), Some((node0, max0, _))) = (neighbours, bit0) {
        // Off (bit 0 clear), on, or zero (a logical shift past the width).
        let gate = match logical_keep {
            Some(kp) => {
                let s = keyed(b, kp, node0, max0);
                let g = table(b, s, 0, 2 * max0 + 1, move |v| {
                    unkeyed(v, max0).map_or(2, |a| a & 1)
                });
                (g, 2, Gate::from_three as fn(i64) -> Gate)
            }
            None => (
                sel_of(b, node0, max0),
                max0,
                Gate::from_low_bit as fn(i64) -> Gate,
            ),
        };
        return last_bit_stage(b, &mut cur, bits, gate, (&neighbours, one_bit), out, budget);
    }
    // Bits 0 and 1 as one digit `0..=3` (a bit alone for a one-bit amount).
    let low = match (amount, bit0, bit1) {
        (Amount::Blocks(_), Some((node, max, _)), _) => Some((sel_of(b, node, max), max)),
        (Amount::Bits(_), Some((b0, _, _)), Some((b1, _, _))) => {
            let s = b.linear(&[(b0, 1), (b1, 2)], 0);
            let a0 = table(b, s, 0, 3, |v| v);
            Some((sel_of(b, a0, 3), 3))
        }
        (Amount::Bits(_), Some((b0, _, _)), None) => Some((sel_of(b, b0, 1), 1)),
        _ => None,
    };
    if let Some((sel, smax)) = low {
        let src = move |v: i64, p: usize| kind.source(bits, v as u128, p);
        cur = shift_stage(b, &mut cur, bits, sel, smax, src, budget);
    }
    let mut result = Vec::with_capacity(bits);
    for (i, &c) in cur.iter().enumerate() {
        let max = block_max(bits, i);
        // The block's value as a selector: `c`, or `c` keyed by `keep` (0 unless keep).
        let (s, hi) = match logical_keep {
            Some(kp) => {
                let mut c = c;
                if b.linear_qweight(&[(kp, max + 1), (c, 1)]) > budget {
                    c = table(b, c, 0, max, |v| v);
                }
                (keyed(b, kp, c, max), 2 * max + 1)
            }
            None => (c, max),
        };
        let keyed_by = logical_keep.is_some();
        let f = move |v: i64| {
            if keyed_by {
                unkeyed(v, max).unwrap_or(0)
            } else {
                v
            }
        };
        match out {
            Out::Blocks if logical_keep.is_none() => result.push(fresh_node(b, c, max)),
            Out::Blocks => result.push(table(b, s, 0, hi, f)),
            Out::Bits => {
                for j in 0..if max == 3 { 2 } else { 1 } {
                    result.push(table(b, s, 0, hi, |v| (f(v) >> j) & 1));
                }
            }
        }
    }
    result
}

/// What the last bit stage does for a value of its gate selector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gate {
    /// Keep the block (a move by 0).
    Off,
    /// Move by one bit.
    On,
    /// Zero (a logical shift past the width).
    Zero,
}

impl Gate {
    /// An amount block: its bit 0.
    fn from_low_bit(v: i64) -> Gate {
        if v & 1 == 1 {
            Gate::On
        } else {
            Gate::Off
        }
    }

    /// A three-valued gate: 0 off, 1 on, 2 zero.
    fn from_three(v: i64) -> Gate {
        match v {
            0 => Gate::Off,
            1 => Gate::On,
            _ => Gate::Zero,
        }
    }
}

/// The block other than a result block's own that a one-bit move sends bits to it from
/// (`None`: no other block), and the distinct values it sends.
type Neighbour = (Option<usize>, Vec<i64>);

/// Result block `i`'s [`Neighbour`] under a one-bit move: at most one other block, and
/// at most two distinct values (one bit); `None` when the move does not fit
/// [`last_bit_stage`].
fn other_source(
    bits: usize,
    i: usize,
    src: impl Fn(usize) -> Option<usize> + Copy,
) -> Option<Neighbour> {
    let others: Vec<usize> = source_blocks(bits, i, src)
        .into_iter()
        .filter(|&m| m != i)
        .collect();
    match *others.as_slice() {
        [] => Some((None, vec![0])),
        [o] => {
            let mut values: Vec<i64> = (0..=block_max(bits, o))
                .map(|v| part(bits, i, o, v, src))
                .collect();
            values.sort_unstable();
            values.dedup();
            (values.len() <= 2).then_some((Some(o), values))
        }
        _ => None,
    }
}

/// The last stage of a shifter when it moves by one bit: every result block fresh, in
/// two bootstraps per block and no refresh after.
///
/// - `Tₒ`, one table of `(max + 1)·gate + Curₒ` for the block `o` that sends result block
///   `i` one bit: 0 when the gate is off, `1 + that bit` when on, 3 for zero (blocks with
///   no such neighbour share one table of the gate alone).
/// - Result block `i`: one table of `Curᵢ + (max + 1)·Tₒ` (span 16): `Curᵢ` for 0, 0 for
///   3, else its own bits moved plus the neighbour's bit. With [`Out::Bits`], two tables
///   of the same selector give the block's two bits instead.
///
/// Both selectors weigh 16 beside the block's own noise, so a block above `budget − 16`
/// is refreshed first.
fn last_bit_stage(
    b: &mut Builder,
    cur: &mut [NodeId],
    bits: usize,
    (gate, gmax, gate_of): (NodeId, i64, fn(i64) -> Gate),
    (neighbours, src): (&[Neighbour], impl Fn(usize) -> Option<usize> + Copy),
    out: Out,
    budget: u64,
) -> Vec<NodeId> {
    refresh_unless(b, cur, bits, |b, node, radix| {
        b.linear_qweight(&[(gate, radix), (node, 1)]) <= budget
            && b.qweight(node) + (radix * radix) as u64 <= budget
    });
    let code = move |g: i64, sent: Option<usize>| match gate_of(g) {
        Gate::Off => 0,
        Gate::On => 1 + sent.unwrap_or(0) as i64,
        Gate::Zero => 3,
    };
    let mut memo: std::collections::HashMap<(Option<usize>, Vec<i64>), NodeId> =
        std::collections::HashMap::new();
    let mut result = Vec::with_capacity(bits);
    for (i, (o, values)) in neighbours.iter().enumerate() {
        let o = *o;
        // The table's values, which also name it (equal tables are built once).
        let (sel, tv): (NodeId, Vec<i64>) = match o {
            Some(o) => {
                let radix = block_max(bits, o) + 1;
                let tv = (0..(gmax + 1) * radix)
                    .map(|v| {
                        let p = part(bits, i, o, v % radix, src);
                        code(v / radix, values.iter().position(|&x| x == p))
                    })
                    .collect();
                (b.linear(&[(gate, radix), (cur[o], 1)], 0), tv)
            }
            None => (gate, (0..=gmax).map(|g| code(g, None)).collect()),
        };
        let hi = tv.len() as i64 - 1;
        let t = *memo
            .entry((o, tv.clone()))
            .or_insert_with(|| table(b, sel, 0, hi, |v| tv[v as usize]));
        let radix = block_max(bits, i) + 1;
        let s = b.linear(&[(cur[i], 1), (t, radix)], 0);
        let f = |v: i64| {
            let (x, t) = (v % radix, v / radix);
            match t {
                0 => x,
                3 => 0,
                // (A code the gate never gives reads as the first value.)
                _ => part(bits, i, i, x, src) | values.get(t as usize - 1).unwrap_or(&0),
            }
        };
        match out {
            Out::Blocks => result.push(table(b, s, 0, 4 * radix - 1, f)),
            Out::Bits => {
                for j in 0..if radix == 4 { 2 } else { 1 } {
                    result.push(table(b, s, 0, 4 * radix - 1, |v| (f(v) >> j) & 1));
                }
            }
        }
    }
    result
}

/// Refreshes (one identity bootstrap) each block of `cur` for which `fits(b, block,
/// radix)` is false.
fn refresh_unless(
    b: &mut Builder,
    cur: &mut [NodeId],
    bits: usize,
    fits: impl Fn(&Builder, NodeId, i64) -> bool,
) {
    for (m, node) in cur.iter_mut().enumerate() {
        let radix = block_max(bits, m) + 1;
        if !fits(b, *node, radix) {
            *node = table(b, *node, 0, radix - 1, |v| v);
        }
    }
}

/// The fresh block `a` (values `0..=max`) when `keep` is 1, else `max`: one bootstrap.
fn clamp_unless(b: &mut Builder, keep: NodeId, a: NodeId, max: i64) -> NodeId {
    let s = keyed(b, keep, a, max);
    table(b, s, 0, 2 * max + 1, move |v| {
        unkeyed(v, max).unwrap_or(max)
    })
}

/// The selector `(max + 1)·keep + a` of a fresh bit `keep` and a digit `a` in `0..=max`
/// (values `0..=2·max + 1`; read back with [`unkeyed`]).
fn keyed(b: &mut Builder, keep: NodeId, a: NodeId, max: i64) -> NodeId {
    b.linear(&[(keep, max + 1), (a, 1)], 0)
}

/// `Some(a)` for a value `v` of a [`keyed`] selector with `keep` set, `None` without.
fn unkeyed(v: i64, max: i64) -> Option<i64> {
    (v > max).then_some(v - max - 1)
}

/// One binary stage of a shifter: the blocks of `cur` moved as `src` says (result bit `p`
/// copies bit `src(p)`, `None`: 0) when bit `bit` of the fresh selector `sel` (values
/// `0..=smax`) is 1, else kept.
///
/// For each source block `m` and each way it is cut for a result block, one bootstrap of
/// `(max + 1)·sel + Curₘ` gives that part when the bit is 1 and 0 otherwise (the selector
/// is an amount block as it is: no bootstrap to read its bit); the part that stays is
/// `Curᵢ` minus its own such table (linear: no bootstrap for the kept value). Aligned
/// moves (whole blocks) cost one bootstrap per block. A result is its block's sum plus
/// two fresh terms (quadratic weight + 2); a block too noisy for the selector is
/// refreshed first.
fn binary_stage(
    b: &mut Builder,
    cur: &mut [NodeId],
    bits: usize,
    (sel, smax, bit): (NodeId, i64, u32),
    src: impl Fn(usize) -> Option<usize> + Copy,
    budget: u64,
) -> Vec<NodeId> {
    let k = bits.div_ceil(2);
    refresh_unless(b, cur, bits, |b, node, radix| {
        b.linear_qweight(&[(sel, radix), (node, 1)]) <= budget
    });
    let mut memo: std::collections::HashMap<(usize, Vec<i64>), NodeId> =
        std::collections::HashMap::new();
    // `[bit of sel]·f(Curₘ)` for the values `f` takes on `0..radix`.
    let mut gated = |b: &mut Builder, m: usize, values: Vec<i64>| -> NodeId {
        let radix = block_max(bits, m) + 1;
        let x = cur[m];
        *memo.entry((m, values.clone())).or_insert_with(|| {
            let s = b.linear(&[(sel, radix), (x, 1)], 0);
            table(b, s, 0, (smax + 1) * radix - 1, |v| {
                if ((v / radix) >> bit) & 1 == 1 {
                    values[(v % radix) as usize]
                } else {
                    0
                }
            })
        })
    };
    (0..k)
        .map(|i| {
            let radix = block_max(bits, i) + 1;
            let own = gated(b, i, (0..radix).collect());
            let mut terms = vec![(cur[i], 1), (own, -1)];
            for m in source_blocks(bits, i, src) {
                let values: Vec<i64> = (0..=block_max(bits, m))
                    .map(|v| part(bits, i, m, v, src))
                    .collect();
                terms.push((gated(b, m, values), 1));
            }
            b.linear(&terms, 0)
        })
        .collect()
}

/// `(x / d, x % d)` of unsigned `bits`-bit values on blocks, as blocks: non-restoring
/// division (as [`crate::bits::div_rem_unsigned`]) with the partial remainder in radix-4
/// blocks instead of bits.
///
/// The remainder `R` lives in `K = ⌈(bits + 1)/2⌉` two-bit blocks (two's complement mod
/// `4^K`). For each dividend bit `xᵢ` from the top, with `s = [R ≥ 0]`:
/// `R ← 2R + xᵢ − d` if `s`, else `2R + xᵢ + d`, and the quotient bit is the new `[R ≥ 0]`.
/// - `2R` is free: each block doubled (digits up to 6; the ripple below absorbs them).
/// - `±d` is `d` or its complement `~d` plus a carry-in `s`: one table `4s + Dⱼ` per divisor
///   block, and `3s` (linear) for the blocks above the divisor.
/// - A ripple of carries: block `j` reads `Sⱼ = 2Rⱼ + Eⱼ + cⱼ` (`0..=11`, quadratic weight
///   6) in tables for its new block `Sⱼ mod 4`, its carry `Sⱼ div 4` and, at the top, the
///   new sign.
///
/// About `3·bits/2` bootstraps and depth `bits/2 + 2` per quotient bit, where the bit
/// circuit needs `2·bits` and `bits`. At the end a negative remainder gets `d` added back.
/// Division by zero is defined as in the bit circuit: `x / 0` is all ones and `x % 0 = x`.
///
/// Takes the dividend as fresh bits and the divisor as blocks; gives the quotient as fresh
/// bits, or with `rem` the remainder as blocks or bits.
fn div_rem_unsigned_blocks(
    b: &mut Builder,
    xbits: &[NodeId],
    d: &[NodeId],
    bits: usize,
    rem: Option<Out>,
    budget: u64,
) -> Vec<NodeId> {
    let k = bits.div_ceil(2);
    let big = (bits + 1).div_ceil(2);
    let zero = b.constant(0);
    let mut r: Vec<NodeId> = vec![zero; big];
    let mut s = b.constant(1);
    let mut q = vec![zero; bits];
    for i in (0..bits).rev() {
        let mut carry = None;
        let mut next = Vec::with_capacity(big);
        let mut sign = zero;
        for (j, &rj) in r.iter().enumerate() {
            // Eⱼ: the divisor's block, or its complement when subtracting.
            let e = match (d.get(j).filter(|_| j < k), b.const_value(s)) {
                (Some(&dj), Some(c)) if c != 0 => b.linear(&[(dj, -1)], 3),
                (Some(&dj), Some(_)) => dj,
                (Some(&dj), None) => {
                    let sel = b.linear(&[(s, 4), (dj, 1)], 0);
                    table(b, sel, 0, 7, |v| if v >= 4 { 3 - (v - 4) } else { v })
                }
                (None, _) => b.linear(&[(s, 3)], 0),
            };
            let mut terms = vec![(rj, 2), (e, 1)];
            match carry {
                Some(c) => terms.push((c, 1)),
                None => terms.extend([(xbits[i], 1), (s, 1)]),
            }
            let t = b.linear(&terms, 0);
            let block_carry = (j + 1 < big).then(|| table(b, t, 0, 11, |v| v / 4));
            // The last step's blocks, read only by the remainder's correction below, are
            // `Sⱼ − 4cⱼ₊₁` without a bootstrap when the correction's input stays within the
            // budget.
            let linear = match block_carry {
                Some(c) if i == 0 => {
                    let l = b.linear(&[(t, 1), (c, -4)], 0);
                    (b.qweight(l) + 2 <= budget).then_some(l)
                }
                _ => None,
            };
            next.push(linear.unwrap_or_else(|| table(b, t, 0, 11, |v| v % 4)));
            match block_carry {
                Some(c) => carry = Some(c),
                None => sign = table(b, t, 0, 11, |v| i64::from(v % 4 < 2)),
            }
        }
        r = next;
        s = sign;
        q[i] = sign;
    }
    let Some(out) = rem else {
        return q;
    };
    // A negative remainder (s = 0) gets d added back: Fⱼ = Dⱼ if not s, else 0. (The
    // blocks of `r` are full two-bit blocks, so every sum lies in 0..=7.)
    ripple(b, k, None, out, |b, j| {
        let sel = b.linear(&[(s, 4), (d[j], 1)], 0);
        let f = table(b, sel, 0, 7, |v| if v >= 4 { 0 } else { v });
        RippleBlock {
            terms: vec![(r[j], 1), (f, 1)],
            constant: 0,
            hi: 7,
            m: block_max(bits, j) + 1,
        }
    })
}

/// `x / d` (or `x % d` with `remainder`) of `bits`-bit values on blocks, as blocks, with
/// Rust's `wrapping_div` / `wrapping_rem` semantics: non-restoring division with the
/// partial remainder in radix-4 blocks (about `3·bits/2` bootstraps and depth `bits/2 + 2`
/// per quotient bit, where the bit circuit needs `2·bits` and `bits`); signed values are divided as magnitudes, then the quotient
/// is negated when the signs differ and the remainder takes the dividend's sign
/// (`MIN / −1 = MIN`). Division by zero is defined as in [`crate::bits::div_rem_unsigned`]
/// and [`crate::bits::div_rem_signed`]: `x / 0` is all ones unsigned, `−1` (`x ≥ 0`) or `1`
/// (`x < 0`) signed, and `x % 0 = x`.
///
/// ```
/// use encint_arith::blocks;
/// use encint_core::{circuit::Builder, clear};
/// let mut b = Builder::new();
/// let x: Vec<_> = (0..4).map(|_| b.input()).collect();
/// let d: Vec<_> = (0..4).map(|_| b.input()).collect();
/// let q = blocks::divide_blocks(&mut b, &x, &d, 8, false, false, 25);
/// let c = b.finish(q);
/// let blocks = |v: i64| (0..4).map(move |j| (v >> (2 * j)) & 3);
/// let inputs: Vec<i64> = blocks(200).chain(blocks(7)).collect();
/// let (out, cost) = clear::run(&c, &inputs).unwrap();
/// let value = out.iter().rev().fold(0, |acc, &v| 4 * acc + v);
/// assert_eq!(value, 200 / 7);
/// assert!(cost.bootstraps < 164); // TFHE-rs 1.8.2, FheUint8
/// ```
pub fn divide_blocks(
    b: &mut Builder,
    x: &[NodeId],
    d: &[NodeId],
    bits: usize,
    signed: bool,
    remainder: bool,
    budget: u64,
) -> Vec<NodeId> {
    let rem = remainder.then_some(Out::Blocks);
    if !signed {
        let xbits = bits_from_blocks(b, x, bits);
        let out = div_rem_unsigned_blocks(b, &xbits, d, bits, rem, budget);
        return if remainder {
            out
        } else {
            blocks_from_bits(b, &out)
        };
    }
    let (sx, sd) = (sign_bit(b, x, bits), sign_bit(b, d, bits));
    let ax = cond_neg_blocks(b, x, sx, bits);
    let ad = cond_neg_blocks(b, d, sd, bits);
    let axbits = bits_from_blocks(b, &ax, bits);
    let out = div_rem_unsigned_blocks(b, &axbits, &ad, bits, rem, budget);
    if remainder {
        cond_neg_blocks(b, &out, sx, bits)
    } else {
        let q = blocks_from_bits(b, &out);
        let differ = b.linear(&[(sx, 1), (sd, 1)], 0);
        let differ = table(b, differ, 0, 2, |v| i64::from(v == 1));
        cond_neg_blocks(b, &q, differ, bits)
    }
}

/// [`divide_blocks`] of unsigned values given as fresh bits (the canonical form), as
/// bits: the dividend's bits feed the division directly, the divisor is paired into blocks
/// (one bootstrap per block), and the quotient's and the remainder's bits come out of
/// their tables fresh.
pub fn divide_unsigned_bits(
    b: &mut Builder,
    x: &[NodeId],
    d: &[NodeId],
    remainder: bool,
    budget: u64,
) -> Vec<NodeId> {
    let d = blocks_from_bits(b, d);
    let rem = remainder.then_some(Out::Bits);
    div_rem_unsigned_blocks(b, x, &d, x.len(), rem, budget)
}

/// The sign bit (bit `bits − 1`) of a block vector, fresh: the top block itself when it
/// is one bit, else one table.
fn sign_bit(b: &mut Builder, x: &[NodeId], bits: usize) -> NodeId {
    let top = bits.div_ceil(2) - 1;
    if block_max(bits, top) == 1 {
        x[top]
    } else {
        table(b, x[top], 0, 3, |v| v >> 1)
    }
}

/// `−x` mod `2^bits` when the fresh bit `s` is 1, else `x`, on blocks: each block
/// complemented when `s` (one table of `m·s + Xᵢ`), then a ripple adding the carry-in `s`
/// (two tables per block): `3k − 1` bootstraps for `k` blocks.
fn cond_neg_blocks(b: &mut Builder, x: &[NodeId], s: NodeId, bits: usize) -> Vec<NodeId> {
    ripple(b, bits.div_ceil(2), Some(s), Out::Blocks, |b, j| {
        let m = block_max(bits, j) + 1;
        let sel = b.linear(&[(s, m), (x[j], 1)], 0);
        let flipped = table(b, sel, 0, 2 * m - 1, move |v| {
            if v >= m {
                (m - 1) - (v - m)
            } else {
                v
            }
        });
        RippleBlock {
            terms: vec![(flipped, 1)],
            constant: 0,
            hi: m,
            m,
        }
    })
}
