//! Column reduction: digits of radix-4 columns (column `c` weighs `4^c`) summed a few at
//! a time, each sum read back by bootstraps as its low digit and its carry into the next
//! column, until every column holds one block or two bits.

use encint_core::circuit::{Builder, NodeId};

use super::{fresh, table, Digit, Out, MAX_SPAN};

/// Appends a digit to a column (a constant joins the column's offset instead).
pub(super) fn push(b: &Builder, col: &mut Vec<Digit>, offset: &mut i64, node: NodeId, max: i64) {
    push_digit(b, col, offset, Digit::new(node, max));
}

pub(super) fn push_digit(b: &Builder, col: &mut Vec<Digit>, offset: &mut i64, d: Digit) {
    match b.const_value(d.node) {
        Some(v) => *offset += v,
        None if d.max > 0 => col.push(d),
        None => {}
    }
}

/// Reduces digit columns (column `c` weighs `4^c`, plus its constant offset) to the low
/// `width` bits of their sum: `width` bits, or (`Out::Blocks`) `⌈width/2⌉` fresh radix-4
/// blocks, the last one a single bit when `width` is odd.
///
/// Each sum of a group of digits is read as its carry into the next column and its low
/// digit, a second bootstrap, or the linear `sum − 4·carry` (no bootstrap, but quadratic
/// weight 16 more): the latter pays when enough of the column's digits can still join it
/// in one more sum. The reduction is built on trial copies of the builder with the linear
/// low digit never used, and used when it joins at least one or at least two digits; the
/// fewest bootstraps at the least depth of the three is kept (the first trial alone when
/// no group sum is read at all: every trial builds the same circuit then).
pub(super) fn reduce_columns(
    b: &mut Builder,
    cols: Vec<Vec<Digit>>,
    offsets: Vec<i64>,
    width: usize,
    budget: u64,
    mode: Out,
) -> Vec<NodeId> {
    let first = b.node_count();
    let mut trials = Vec::with_capacity(3);
    for low in [None, Some(1), Some(2)] {
        let mut t = b.clone();
        let (out, chooses) = reduce_with(
            &mut t,
            cols.clone(),
            offsets.clone(),
            width,
            budget,
            mode,
            low,
        );
        if !chooses {
            *b = t;
            return out;
        }
        let depth = out.iter().map(|&o| t.depth(o)).max().unwrap_or(0);
        let bootstraps = t.bootstraps_since(first, &out);
        trials.push((t, out, bootstraps, depth));
    }
    let least_depth = trials.iter().map(|t| t.3).min().unwrap_or(0);
    let best = trials
        .into_iter()
        .filter(|t| t.3 <= least_depth)
        .min_by_key(|t| (t.2, t.3))
        .expect("the trial of least depth");
    *b = best.0;
    best.1
}

/// [`reduce_columns`] with the linear low digit used when at least `low` digits join it
/// (never with `None`), and whether a group sum's low digit was chosen at all.
fn reduce_with(
    b: &mut Builder,
    mut cols: Vec<Vec<Digit>>,
    mut offsets: Vec<i64>,
    width: usize,
    budget: u64,
    mode: Out,
    low: Option<usize>,
) -> (Vec<NodeId>, bool) {
    let ncols = cols.len();
    let mut chooses = false;
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
            let (take, span) = joining(b, &[], 0, &col, budget);
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
            if has_next && span >= 4 {
                let carry = table(b, s, 0, span, |x| x / 4);
                push(b, &mut cols[c + 1], &mut offsets[c + 1], carry, span / 4);
                // The low digit `s − 4·carry` costs no bootstrap, but it is noisy: worth
                // it only when enough digits can join it in the column's next sum.
                chooses = true;
                let low_terms = [(s, 1), (carry, -4)];
                if low.is_some_and(|need| joining(b, &low_terms, 3, &col, budget).0 >= need) {
                    let low = b.linear(&low_terms, 0);
                    col.insert(0, Digit::new(low, 3));
                    continue;
                }
            }
            let low = table(b, s, 0, span, |x| x % 4);
            col.push(Digit::new(low, span.min(3)));
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
    (out, chooses)
}

/// How many of `col`'s first digits join the terms `head` (values within `0..=head_span`)
/// in one bootstrap selector (a span of at most [`MAX_SPAN`], within `budget`), and the
/// span of the digits that join.
fn joining(
    b: &Builder,
    head: &[(NodeId, i64)],
    head_span: i64,
    col: &[Digit],
    budget: u64,
) -> (usize, i64) {
    let mut terms = head.to_vec();
    let mut span = 0;
    for (k, d) in col.iter().enumerate() {
        terms.push((d.node, 1));
        if head_span + span + d.max > MAX_SPAN || b.linear_qweight(&terms) > budget {
            return (k, span);
        }
        span += d.max;
    }
    (col.len(), span)
}
