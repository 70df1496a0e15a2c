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
pub(super) fn reduce_columns(
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
