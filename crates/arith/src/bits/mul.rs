//! Multiplication, dot products and 2-D convolutions, with the carry-save summation of
//! Trifan, Nicolau and Veidenbaum, "Enhancing the Privacy of Machine Learning via faster
//! arithmetic over Torus FHE".

use encint_core::bits::{Bit, BitBuilder};

use super::{add, sum_columns, Word};

/// Partial products `x_i ∧ y_j` into columns `i + j < width`.
fn partial_products(
    b: &mut BitBuilder,
    x: &Word,
    y: &Word,
    cols: &mut Vec<Vec<Bit>>,
    width: usize,
) {
    cols.resize(cols.len().max(width), Vec::new());
    for (i, &p) in x.bits.iter().enumerate() {
        for (j, &q) in y.bits.iter().enumerate() {
            if i + j < width {
                let pp = b.and(p, q);
                cols[i + j].push(pp);
            }
        }
    }
}

/// `x · y` modulo `2^n` (`n` the wider width; signed and unsigned alike): partial
/// products (one AND bootstrap each, only those below `2^n`) reduced by a counter tree
/// ([`sum_columns`], a Wallace/Dadda tree of up to (15, 4) counters). 16 bits: ≤ 220
/// bootstraps.
pub fn mul(b: &mut BitBuilder, x: &Word, y: &Word) -> Word {
    let n = x.width().max(y.width());
    let mut cols = Vec::new();
    partial_products(b, x, y, &mut cols, n);
    sum_columns(b, cols, n)
}

/// The full `x · y` of two unsigned words (`x.width() + y.width()` bits).
pub fn mul_full(b: &mut BitBuilder, x: &Word, y: &Word) -> Word {
    let w = x.width() + y.width();
    let mut cols = Vec::new();
    partial_products(b, x, y, &mut cols, w);
    sum_columns(b, cols, w)
}

/// The full `x · y` of two two's-complement words (`x.width() + y.width()` bits), by
/// Baugh-Wooley: partial products with one sign bit are complemented (NOT is free) and
/// the constants `2^(n-1) + 2^(m-1) + 2^(n+m-1)` added.
pub fn mul_full_signed(b: &mut BitBuilder, x: &Word, y: &Word) -> Word {
    let (n, m) = (x.width(), y.width());
    if n == 0 || m == 0 {
        return Word::constant(b, 0, n + m);
    }
    if n == 1 || m == 1 {
        // A 1-bit signed word is 0 or -1: the product is `-(bit · other)`, sign-extended.
        let (one, other) = if n == 1 { (x, y) } else { (y, x) };
        let w = n + m;
        let masked = Word {
            bits: other.bits.iter().map(|&v| b.and(v, one.bits[0])).collect(),
        };
        let ext = masked.resize(b, w, true);
        return super::neg(b, &ext);
    }
    let w = n + m;
    let mut cols: Vec<Vec<Bit>> = vec![Vec::new(); w];
    for (i, &p) in x.bits.iter().enumerate() {
        for (j, &q) in y.bits.iter().enumerate() {
            let pp = b.and(p, q);
            let sign_row = (i == n - 1) ^ (j == m - 1);
            cols[i + j].push(if sign_row { b.not(pp) } else { pp });
        }
    }
    let one = b.constant(true);
    cols[n - 1].push(one);
    cols[m - 1].push(one);
    cols[w - 1].push(one);
    sum_columns(b, cols, w)
}

/// The carry-save multiplier of Trifan, Nicolau and Veidenbaum (Robertson shift-and-add):
/// for each bit of `y`, the accumulator bits `r`, the partial products `p` and the previous
/// carries `c` go through full adders in parallel, `r ← XOR3(r, p, c)`, `c ← 2OF3(r, p,
/// c)`; a final adder absorbs the carries. `n`-bit wrapping result. About `3n²/2`
/// bootstraps: kept as the paper's baseline ([`mul`] needs far fewer).
pub fn mul_csa(b: &mut BitBuilder, x: &Word, y: &Word) -> Word {
    let n = x.width().max(y.width());
    let (x, y) = (x.resize(b, n, false), y.resize(b, n, false));
    let zero = b.constant(false);
    let mut r = vec![zero; n];
    // c[k] is a carry into position k.
    let mut c = vec![zero; n];
    for j in 0..n {
        let mut nr = r.clone();
        let mut nc = vec![zero; n];
        for k in j..n {
            let p = b.and(x.bits[k - j], y.bits[j]);
            nr[k] = b.xor3(r[k], p, c[k]);
            if k + 1 < n {
                nc[k + 1] = b.maj(r[k], p, c[k]);
            }
        }
        // Positions below row j keep their bits; every carry lands at or above j + 1.
        r = nr;
        c = nc;
    }
    add(b, &Word { bits: r }, &Word { bits: c })
}

/// `Σ x_i · y_i` modulo `2^width`, the parallel form of Trifan et al.: every partial product
/// of every term into one counter tree (no intermediate carry propagation).
pub fn dot(b: &mut BitBuilder, xs: &[Word], ys: &[Word], width: usize) -> Word {
    let mut cols = Vec::new();
    for (x, y) in xs.iter().zip(ys) {
        partial_products(b, x, y, &mut cols, width);
    }
    sum_columns(b, cols, width)
}

/// `Σ x_i · y_i` modulo `2^width`, the single-accumulator form of Trifan et al.: each
/// product's partial products are reduced together with the running sum, one term after
/// the other.
pub fn dot_accumulate(b: &mut BitBuilder, xs: &[Word], ys: &[Word], width: usize) -> Word {
    let mut acc = Word::constant(b, 0, width);
    for (x, y) in xs.iter().zip(ys) {
        let mut cols: Vec<Vec<Bit>> = acc.bits.iter().map(|&v| vec![v]).collect();
        partial_products(b, x, y, &mut cols, width);
        acc = sum_columns(b, cols, width);
    }
    acc
}

/// The `k × k` windows of a 2-D convolution ("valid" positions only): for each output
/// `(i, j)`, the pairs `(image[i+u][j+v], kernel[u][v])`.
fn windows<'a>(
    image: &'a [Vec<Word>],
    kernel: &'a [Vec<Word>],
) -> Vec<Vec<(Vec<&'a Word>, Vec<&'a Word>)>> {
    let k = kernel.len();
    let (h, w) = (image.len(), image.first().map_or(0, Vec::len));
    if k == 0 || h < k || w < k {
        return Vec::new();
    }
    (0..=h - k)
        .map(|i| {
            (0..=w - k)
                .map(|j| {
                    let mut xs = Vec::new();
                    let mut ys = Vec::new();
                    for (u, row) in kernel.iter().enumerate() {
                        for (v, kv) in row.iter().enumerate() {
                            xs.push(&image[i + u][j + v]);
                            ys.push(kv);
                        }
                    }
                    (xs, ys)
                })
                .collect()
        })
        .collect()
}

/// Trifan et al.'s two forms of a 2-D convolution ([`conv2d`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConvForm {
    /// Version 1 (kernel loops parallel, then a final add): each output is a [`dot`] over
    /// its window.
    Parallel,
    /// Version 2 (feature-map loops parallel): every output accumulates one kernel position
    /// after the other ([`dot_accumulate`]), all outputs side by side, no final adder step.
    Accumulate,
}

/// 2-D convolution in Trifan et al.'s `form`. Square kernel, "valid" outputs
/// `(H - k + 1) × (W - k + 1)`, modulo `2^width`.
pub fn conv2d(
    b: &mut BitBuilder,
    image: &[Vec<Word>],
    kernel: &[Vec<Word>],
    width: usize,
    form: ConvForm,
) -> Vec<Vec<Word>> {
    let dot_of = match form {
        ConvForm::Parallel => dot,
        ConvForm::Accumulate => dot_accumulate,
    };
    windows(image, kernel)
        .into_iter()
        .map(|row| {
            row.into_iter()
                .map(|(xs, ys)| {
                    let xs: Vec<Word> = xs.into_iter().cloned().collect();
                    let ys: Vec<Word> = ys.into_iter().cloned().collect();
                    dot_of(b, &xs, &ys, width)
                })
                .collect()
        })
        .collect()
}
