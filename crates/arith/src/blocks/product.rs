//! Block products: sums of products of bit vectors or blocks with one bootstrap per
//! radix-4 digit of each block product.
//!
//! One operand's blocks are refreshed (one identity bootstrap each); then a single
//! bootstrap of the selector `4A + B` reads the low digit `(A·B) mod 4` of a block product
//! into column `i + j` and another its high digit `(A·B) div 4` into column `i + j + 1`.
//! The columns are then reduced ([`super::columns`]). Bit by bit, the same product needs
//! four AND gates. Columns past the result width are never built.

use encint_core::circuit::{Builder, NodeId};

use super::columns::{keep_fastest, push, push_digit, reduce_columns, Grouping};
use super::shift::shift_blocks;
use super::{block_digits, block_max, blocks_of, fresh, table, Digit, Out, Shift, MAX_SPAN};

/// The low `width` bits of `x·y` (unsigned bit vectors, least significant first): the
/// wrapping product when `width` is the operands' width, the full product at twice it.
/// See [`mul_sum`].
pub fn mul(b: &mut Builder, x: &[NodeId], y: &[NodeId], width: usize, budget: u64) -> Vec<NodeId> {
    mul_sum(b, &[(x, y)], width, budget)
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
        .map(|&(x, y)| {
            let square = std::ptr::eq(x, y);
            Product {
                x: blocks_of(b, x, ncols),
                y: blocks_of(b, y, ncols),
                square,
                bits: if square { x.to_vec() } else { Vec::new() },
            }
        })
        .collect();
    let addends: Vec<Vec<Digit>> = addends.iter().map(|z| blocks_of(b, z, ncols)).collect();
    sum_digit_products(b, &terms, &addends, width, budget, Out::Bits, None)
}

/// The low `width` bits of `Σ zₗ` over `bits` (unsigned bit vectors, paired into blocks
/// linearly: no bootstrap) and `blocks` (fresh radix-4 blocks of `width`-bit patterns, as
/// [`crate::typed::Form::Radix4`] holds them): every block joins its digit column and the
/// columns are reduced once (the blocks' column reduction), as bits or (`as_blocks`) as
/// `⌈width/2⌉` fresh blocks. A multi-operand sum with a single carry-propagating pass.
pub fn sum_blocks(
    b: &mut Builder,
    bits: &[&[NodeId]],
    blocks: &[&[NodeId]],
    width: usize,
    budget: u64,
    as_blocks: bool,
) -> Vec<NodeId> {
    let ncols = width.div_ceil(2);
    let mut addends: Vec<Vec<Digit>> = bits.iter().map(|z| blocks_of(b, z, ncols)).collect();
    addends.extend(
        blocks
            .iter()
            .map(|z| block_digits(&z[..z.len().min(ncols)], width)),
    );
    let out = if as_blocks { Out::Blocks } else { Out::Bits };
    sum_digit_products(b, &[], &addends, width, budget, out, None)
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
        bits: Vec::new(),
    };
    sum_digit_products(b, &[product], &[], bits, budget, Out::Blocks, None)
}

/// `Σ xₖ·yₖ + Σ zₗ + c` modulo `2^bits` on blocks (every vector the fresh blocks of a
/// `bits`-bit pattern, as [`crate::typed::Form::Radix4`] holds them), as fresh blocks:
/// [`mul_blocks`]' block products of every pair (a pair of one slice twice is a square),
/// the addends' blocks and the constant's radix-4 digits joining the same columns, which
/// are reduced once.
pub fn sum_products_blocks(
    b: &mut Builder,
    pairs: &[(&[NodeId], &[NodeId])],
    addends: &[&[NodeId]],
    c: u128,
    bits: usize,
    budget: u64,
) -> Vec<NodeId> {
    let ncols = bits.div_ceil(2);
    let products: Vec<Product> = pairs
        .iter()
        .map(|&(x, y)| Product {
            x: block_digits(&x[..x.len().min(ncols)], bits),
            y: block_digits(&y[..y.len().min(ncols)], bits),
            square: std::ptr::eq(x, y),
            bits: Vec::new(),
        })
        .collect();
    let mut addends: Vec<Vec<Digit>> = addends
        .iter()
        .map(|z| block_digits(&z[..z.len().min(ncols)], bits))
        .collect();
    let c = wrap_bits(c, bits);
    if c != 0 {
        let digits = (0..ncols).map(|j| {
            let node = b.constant(((c >> (2 * j)) & 3) as i64);
            Digit::new(node, 3)
        });
        addends.push(digits.collect());
    }
    sum_digit_products(b, &products, &addends, bits, budget, Out::Blocks, None)
}

/// How a block product enters its columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    /// Its low radix-4 digit and its high digit (two bootstraps).
    Digits,
    /// Its whole value, one digit up to 15 (one bootstrap), where a next column exists.
    Whole,
}

/// One product of block vectors (a square when `square`: `x` twice).
struct Product {
    x: Vec<Digit>,
    y: Vec<Digit>,
    square: bool,
    /// A square's bits, when its blocks were paired from them (else empty).
    bits: Vec<NodeId>,
}

/// The low `width` bits of `Σ products + Σ addends` over block vectors, as bits or as
/// blocks, each block product read as `read` says. With `None`, built as trials on
/// the builder with each block product read as its two radix-4 digits (two bootstraps)
/// and as one wide digit (one bootstrap, its value up to 9 joining fewer others in a
/// column sum); the faster at the builder's thread count ([`Builder::set_threads`];
/// without one, the shallower) is kept.
fn sum_digit_products(
    b: &mut Builder,
    products: &[Product],
    addends: &[Vec<Digit>],
    width: usize,
    budget: u64,
    out: Out,
    read: Option<Read>,
) -> Vec<NodeId> {
    let Some(read) = read.or(products.is_empty().then_some(Read::Digits)) else {
        let reads = [Read::Digits, Read::Whole];
        let threads = b.threads();
        return keep_fastest(b, reads.len(), threads, |b, k| {
            sum_digit_products(b, products, addends, width, budget, out, Some(reads[k]))
        });
    };
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
            square_into(b, &p.x, &p.bits, &mut cols, &mut offsets, budget, read);
            continue;
        }
        let (mut a, mut c) = (p.x.clone(), p.y.clone());
        a.truncate(ncols);
        c.truncate(ncols);
        trim_zeros(b, &mut a);
        trim_zeros(b, &mut c);
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
                product_into(b, ai, cj, i + j, 1, &mut cols, &mut offsets, read);
            }
        }
    }
    let grouping = match read {
        Read::Digits => Grouping::Oldest,
        Read::Whole => Grouping::FirstFit,
    };
    reduce_columns(b, cols, offsets, width, budget, out, grouping)
}

/// The digits of `times · a·c` (`a` fresh, `c` within the budget at weight 1 beside `a`
/// at weight `c.max + 1`) into column `col` (low digit) and the next (high digit): one
/// bootstrap of the selector `(c.max + 1)·a + c` per digit; `times` copies of each.
#[allow(clippy::too_many_arguments)]
fn product_into(
    b: &mut Builder,
    a: Digit,
    c: Digit,
    col: usize,
    times: usize,
    cols: &mut [Vec<Digit>],
    offsets: &mut [i64],
    read: Read,
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
        read,
    );
}

/// The low and high radix-4 digits of `f(sel)` (`sel` in `0..=hi`, `f ≥ 0`) into column
/// `col` and the next, `times` copies of each; or, with [`Read::Whole`], `f(sel)` itself
/// into column `col` when it spans at most [`MAX_SPAN`] and a next column takes its carry.
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
    read: Read,
) {
    let fmax = (0..=hi).map(f).max().unwrap_or(0);
    if read == Read::Whole && (4..=MAX_SPAN).contains(&fmax) && col + 1 < cols.len() {
        let whole = table(b, sel, 0, hi, f);
        for _ in 0..times {
            push(b, &mut cols[col], &mut offsets[col], whole, fmax);
        }
        return;
    }
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

/// `v` without its top blocks known to be zero (a zero extension: their products are
/// zero, but a table on a selector would not know it).
fn trim_zeros(b: &Builder, v: &mut Vec<Digit>) {
    while v.last().is_some_and(|d| b.const_value(d.node) == Some(0)) {
        v.pop();
    }
}

/// The digits of `x²` into the columns: each `2·A_i·A_j` (`i < j`) from one selector of
/// a fresh `A_i` (refreshed only for these); `A_i²` from one table, or, when `bits` holds
/// the fresh bits the blocks were paired from, its low digit `A_i mod 2` as bit `2i` itself
/// and only its high digit `A_i² div 4` from a table of the block.
fn square_into(
    b: &mut Builder,
    lin: &[Digit],
    bits: &[NodeId],
    cols: &mut [Vec<Digit>],
    offsets: &mut [i64],
    budget: u64,
    read: Read,
) {
    let ncols = cols.len();
    let mut lin = lin[..lin.len().min(ncols)].to_vec();
    trim_zeros(b, &mut lin);
    let mut refreshed: Vec<Option<Digit>> = vec![None; lin.len()];
    let mut fresh_at =
        |b: &mut Builder, i: usize| *refreshed[i].get_or_insert_with(|| fresh(b, lin[i]));
    for i in 0..lin.len() {
        if 2 * i < ncols {
            let low_bit = bits
                .get(2 * i)
                .copied()
                .filter(|&x| b.qweight(x) <= 1 && b.qweight(lin[i].node) <= budget);
            match low_bit {
                Some(bit) => {
                    push(b, &mut cols[2 * i], &mut offsets[2 * i], bit, 1);
                    let max = lin[i].max;
                    if max * max >= 4 && 2 * i + 1 < ncols {
                        let high = table(b, lin[i].node, 0, max, |s| s * s / 4);
                        push(
                            b,
                            &mut cols[2 * i + 1],
                            &mut offsets[2 * i + 1],
                            high,
                            max * max / 4,
                        );
                    }
                }
                None => {
                    let a = fresh_at(b, i);
                    digits_into(b, a.node, a.max, |s| s * s, 2 * i, 1, cols, offsets, read);
                }
            }
        }
        let end = lin.len().min(ncols.saturating_sub(i));
        for (j, &lj) in lin.iter().enumerate().take(end).skip(i + 1) {
            let a = fresh_at(b, i);
            let c = if b.linear_qweight(&[(a.node, lj.max + 1), (lj.node, 1)]) > budget {
                fresh_at(b, j)
            } else {
                lj
            };
            // 2·Aᵢ·Aⱼ read as one value (low digit even, high digit up to 4): half the
            // span and a quarter of the quadratic weight of two copies of the product.
            let m = c.max + 1;
            let sel = b.linear(&[(a.node, m), (c.node, 1)], 0);
            let hi = a.max * m + c.max;
            digits_into(
                b,
                sel,
                hi,
                move |s| 2 * (s / m) * (s % m),
                i + j,
                1,
                cols,
                offsets,
                read,
            );
        }
    }
}

/// `k·x` modulo `2^bits` on blocks, for `k` taken modulo `2^bits`: a power of two
/// `2^s` is [`shift_blocks`] by `s`. Otherwise `k` is recoded in signed radix-4 digits
/// `kⱼ` (see [`scaled_sum_blocks`]), each block `Xᵢ` joins column `i + j` as `kⱼ·Xᵢ`
/// (linear, no bootstrap; for `kⱼ < 0` as `|kⱼ|·(max − Xᵢ)` with `−|kⱼ|·max` in the
/// column's constant), and the columns are reduced to fresh blocks as in [`mul_blocks`].
pub fn scalar_mul_blocks(
    b: &mut Builder,
    x: &[NodeId],
    bits: usize,
    k: u128,
    budget: u64,
) -> Vec<NodeId> {
    let k = wrap_bits(k, bits);
    if k.is_power_of_two() {
        return shift_blocks(b, x, bits, Shift::Left, k.trailing_zeros().into());
    }
    scaled_sum_blocks(b, &[(x, k)], 0, bits, budget)
}

/// `Σ kᵢ·xᵢ + c` modulo `2^bits` on blocks (each `xᵢ` the fresh blocks of a `bits`-bit
/// pattern, the weights and the constant taken modulo `2^bits`): every weight recoded and
/// spread over the columns as in [`scalar_mul_blocks`], the constant's radix-4 digits in
/// the columns' constants, and all the columns reduced at once to fresh blocks. Only the
/// reduction bootstraps: a linear combination with clear weights costs about what one
/// product by a clear value does.
///
/// Two recodings of the weights are built: digits in `{-1, 0, 1, 2}` from the lowest
/// (a digit 3 becomes `-1` and a carry), and the signed digits in `{-2, …, 2}` that add
/// the least to the columns; the one of fewer estimated rounds at the
/// builder's thread count is kept (without one, the shallower).
pub fn scaled_sum_blocks(
    b: &mut Builder,
    terms: &[(&[NodeId], u128)],
    c: u128,
    bits: usize,
    budget: u64,
) -> Vec<NodeId> {
    let ncols = bits.div_ceil(2);
    let recodings: Vec<Vec<Vec<i64>>> = [false, true]
        .into_iter()
        .map(|least| {
            terms
                .iter()
                .map(|&(x, k)| {
                    let k = wrap_bits(k, bits);
                    if !least {
                        return lowest_first(k, ncols);
                    }
                    // A column's digit weighs what the blocks of `x` it multiplies add.
                    let blocks = x.len().min(ncols);
                    recode(k, ncols, |j| {
                        (0..blocks.min(ncols - j)).map(|i| block_max(bits, i)).sum()
                    })
                })
                .collect()
        })
        .collect();
    if recodings[0] == recodings[1] {
        return scaled_sum_with(b, terms, &recodings[0], c, bits, budget);
    }
    let threads = b.threads();
    keep_fastest(b, recodings.len(), threads, |b, k| {
        scaled_sum_with(b, terms, &recodings[k], c, bits, budget)
    })
}

/// [`scaled_sum_blocks`] with each weight given as its radix-4 digits (lowest first).
fn scaled_sum_with(
    b: &mut Builder,
    terms: &[(&[NodeId], u128)],
    weights: &[Vec<i64>],
    c: u128,
    bits: usize,
    budget: u64,
) -> Vec<NodeId> {
    let ncols = bits.div_ceil(2);
    let mut cols: Vec<Vec<Digit>> = vec![Vec::new(); ncols];
    let c = wrap_bits(c, bits);
    let mut offsets: Vec<i64> = (0..ncols).map(|j| ((c >> (2 * j)) & 3) as i64).collect();
    for (&(x, _), digits) in terms.iter().zip(weights) {
        for (i, &xi) in x.iter().enumerate().take(ncols) {
            let max = block_max(bits, i);
            for (c, col) in cols.iter_mut().enumerate().skip(i) {
                let (node, span) = match digits[c - i] {
                    0 => continue,
                    // `kⱼ·Xᵢ` for `kⱼ < 0` as `|kⱼ|·(max − Xᵢ)`, `−|kⱼ|·max` in the constant.
                    kj if kj < 0 => {
                        offsets[c] += kj * max;
                        (b.linear(&[(xi, kj)], -kj * max), -kj * max)
                    }
                    kj => (b.linear(&[(xi, kj)], 0), kj * max),
                };
                push(b, col, &mut offsets[c], node, span);
            }
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
    reduce_columns(
        b,
        cols,
        offsets,
        bits,
        budget,
        Out::Blocks,
        Grouping::Oldest,
    )
}

/// `k`'s radix-4 digits (`ncols` of them, lowest first) in `{-1, 0, 1, 2}`: a digit 3
/// becomes `-1` and a carry into the next.
fn lowest_first(k: u128, ncols: usize) -> Vec<i64> {
    let mut digits = Vec::with_capacity(ncols);
    let mut carry = 0;
    for j in 0..ncols {
        let d = ((k >> (2 * j)) & 3) as i64 + carry;
        let (digit, next) = if d >= 3 { (d - 4, 1) } else { (d, 0) };
        digits.push(digit);
        carry = next;
    }
    digits
}

/// A recoding so far: its (column mass, digits `±2`), and its digits.
type Recoded = ((i64, i64), Vec<i64>);

/// `k` (below `4^ncols`) as radix-4 digits `dⱼ` in `{-2, …, 2}` with `Σ dⱼ·4ʲ ≡ k`
/// modulo `4^ncols`, of the least `Σ |dⱼ|·mass(j)` (what the digits add to the columns
/// they join), then the fewest digits `±2` (four times the quadratic weight of `±1`).
fn recode(k: u128, ncols: usize, mass: impl Fn(usize) -> i64) -> Vec<i64> {
    // best[c]: the cheapest digits so far that leave a carry `c` into the next column.
    let mut best: [Option<Recoded>; 2] = [Some(((0, 0), Vec::new())), None];
    for j in 0..ncols {
        let mut next: [Option<Recoded>; 2] = [None, None];
        for (carry, state) in best.iter().enumerate() {
            let Some(((cost, twos), digits)) = state else {
                continue;
            };
            let v = ((k >> (2 * j)) & 3) as i64 + carry as i64;
            // `v = d + 4·c'` with `d` in `-2..=2` and a carry `c'` of 0 or 1.
            for (d, c) in [(v, 0usize), (v - 4, 1)] {
                if !(-2..=2).contains(&d) {
                    continue;
                }
                let key = (cost + d.abs() * mass(j), twos + i64::from(d.abs() == 2));
                if next[c].as_ref().is_none_or(|(k2, _)| key < *k2) {
                    let mut ds = digits.clone();
                    ds.push(d);
                    next[c] = Some((key, ds));
                }
            }
        }
        best = next;
    }
    // A carry out of the top column is a multiple of `4^ncols`: dropped.
    best.into_iter()
        .flatten()
        .min_by_key(|(key, _)| *key)
        .map(|(_, ds)| ds)
        .unwrap_or_default()
}

/// `k` modulo `2^bits`.
fn wrap_bits(k: u128, bits: usize) -> u128 {
    if bits >= 128 {
        k
    } else {
        k & ((1u128 << bits) - 1)
    }
}
