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
/// in one more sum. The reduction is built as trials on the builder with the linear
/// low digit never used, and used when it joins at least one or at least two digits; the
/// fewest bootstraps at the least depth of the three is kept (the first trial alone when
/// no group sum is read at all: every trial builds the same circuit then). Giving blocks
/// and planned for a thread count ([`Builder::threads`]), two wide reductions are built too (a group sum
/// spanning up to [`WIDE_SPAN`] read for its carry alone), and the fewest estimated
/// rounds at that thread count is kept.
pub(super) fn reduce_columns(
    b: &mut Builder,
    cols: Vec<Vec<Digit>>,
    offsets: Vec<i64>,
    width: usize,
    budget: u64,
    mode: Out,
    grouping: Grouping,
) -> Vec<NodeId> {
    let first = b.node_count();
    let plain = Shape {
        width,
        budget,
        mode,
        low: None,
        grouping,
        wide: false,
    };
    let lows = [None, Some(1), Some(2)];
    let mut narrow: Option<((u64, u64, u64), Shape)> = None;
    for low in lows {
        let shape = Shape { low, ..plain };
        let cp = b.checkpoint();
        let (out, chooses) = reduce_with(b, cols.clone(), offsets.clone(), shape);
        if !chooses {
            b.commit(cp);
            return out;
        }
        let key = score(b, first, &out, None);
        b.rollback(cp);
        if narrow.as_ref().is_none_or(|(k, _)| key < *k) {
            narrow = Some((key, shape));
        }
    }
    let narrow = narrow.map_or(plain, |(_, shape)| shape);
    // Exact results (bits) keep the plan `encint cost` and progress totals describe.
    let Some(threads) = b.threads().filter(|_| mode == Out::Blocks) else {
        return reduce_with(b, cols, offsets, narrow).0;
    };
    // Planned for a thread count: the shallowest of the narrow reductions, against the
    // wide ones (chained low digits, so deeper), by the estimate at that thread count.
    let wide = |low| Shape {
        low,
        wide: true,
        ..plain
    };
    let shapes = [narrow, wide(Some(1)), wide(Some(2))];
    keep_fastest(b, shapes.len(), Some(threads), |b, k| {
        reduce_with(b, cols.clone(), offsets.clone(), shapes[k]).0
    })
}

/// How [`keep_fastest`] ranks a trial's outputs (nodes from number `first` on are the
/// trial's own): with `threads`, the least estimate at that many threads
/// ([`Builder::estimate_since`]: rounds, plus a level latency where the builder has one),
/// then bootstraps, then depth; without, the least depth, then bootstraps.
fn score(t: &Builder, first: usize, out: &[NodeId], threads: Option<usize>) -> (u64, u64, u64) {
    let depth = out.iter().map(|&o| t.depth(o)).max().unwrap_or(0);
    let bootstraps = t.bootstraps_since(first, out);
    match threads {
        Some(n) => (
            t.estimate_since(first, out, n),
            bootstraps,
            u64::from(depth),
        ),
        None => (u64::from(depth), bootstraps, 0),
    }
}

/// Builds `count` alternatives of one result on `b` (`build(b, k)`), each taken back after
/// it is ranked ([`Builder::keep_best`]), and keeps the fastest by [`score`] (the earlier
/// on a tie): its outputs.
pub(super) fn keep_fastest(
    b: &mut Builder,
    count: usize,
    threads: Option<usize>,
    build: impl FnMut(&mut Builder, usize) -> Vec<NodeId>,
) -> Vec<NodeId> {
    let first = b.node_count();
    b.keep_best(count, build, |t, out| score(t, first, out, threads))
}

/// How one trial of [`reduce_columns`] reduces.
#[derive(Debug, Clone, Copy)]
struct Shape {
    width: usize,
    budget: u64,
    mode: Out,
    /// The linear low digit is used when at least this many digits join it (never with
    /// `None`).
    low: Option<usize>,
    grouping: Grouping,
    /// Whether a group sum may span up to [`WIDE_SPAN`] where a next column takes its
    /// carry ([`wide_group`]).
    wide: bool,
}

/// The largest span of a group sum whose carry and low digit share one blind rotation
/// (8 values, two tables side by side in 16 slots).
const SHARED_SPAN: i64 = 7;

/// The largest span of a group sum read only for its carry: `⌊s/4⌋ − 2` is negacyclic on
/// `0..=19` (the values `16..=19` are those of `0..=3` negated), so one bootstrap gives
/// the carry (then `+2`, linear) of a sum of up to 20 values; the low digit is the linear
/// `s − 4·carry`.
const WIDE_SPAN: i64 = 19;

/// Which digits of a column one sum gathers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Grouping {
    /// The oldest digits, as many as fit.
    Oldest,
    /// The oldest digit and every later one that still fits ([`first_fit`]): for wide
    /// digits (whole block products up to 9), two of which never fit one sum.
    FirstFit,
}

/// [`reduce_columns`] reduced as `shape` says, and whether a group sum's low digit was
/// chosen at all.
fn reduce_with(
    b: &mut Builder,
    mut cols: Vec<Vec<Digit>>,
    mut offsets: Vec<i64>,
    shape: Shape,
) -> (Vec<NodeId>, bool) {
    let Shape {
        width,
        budget,
        mode,
        low,
        grouping,
        wide,
    } = shape;
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
        let mut col = Column::new(std::mem::take(&mut cols[c]));
        loop {
            let offset = offsets[c];
            if let ([d], 0) = (col.live(), offset) {
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
            // Every digit of a column is at least 1, so a long column never fits one sum
            // (and is not summed up again for each group taken from it).
            let whole = (col.len() as i64 <= MAX_SPAN).then(|| {
                let total: i64 = offset + col.live().iter().map(|d| d.max).sum::<i64>();
                let terms: Vec<(NodeId, i64)> = col.live().iter().map(|d| (d.node, 1)).collect();
                (total, terms)
            });
            if let Some((total, terms)) = whole.filter(|(total, terms)| {
                total - offset <= MAX_SPAN && b.linear_qweight(terms) <= budget
            }) {
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
            if wide
                && has_next
                && wide_group(b, &mut col, &mut cols[c + 1], &mut offsets[c + 1], shape)
            {
                continue;
            }
            // A group of the oldest digits (or those that join the oldest one, first fit)
            // that fits one sum (at least two of them).
            let (take, span) = if grouping == Grouping::FirstFit {
                first_fit(b, col.live_mut(), budget, MAX_SPAN)
            } else {
                joining(b, &[], 0, col.live(), budget, MAX_SPAN)
            };
            let first = col.live()[0];
            if take < 2 && first.max > 3 && b.qweight(first.node) <= 1 {
                // A fresh wide digit no other joins: read as its carry and low digit.
            } else if take < 2 {
                // Noisy digits (not produced here): refresh the first one and retry.
                let d = col.take_front(1)[0];
                let f = fresh(b, d);
                col.push(f);
                continue;
            }
            let take = take.max(1);
            let span = if take == 1 { first.max } else { span };
            let group: Vec<Digit> = col.take_front(take).to_vec();
            let terms: Vec<(NodeId, i64)> = group.iter().map(|d| (d.node, 1)).collect();
            let s = b.linear(&terms, 0);
            if has_next && span >= 4 {
                let carry = table(b, s, 0, span, |x| x / 4);
                push(b, &mut cols[c + 1], &mut offsets[c + 1], carry, span / 4);
                // The low digit `s − 4·carry` costs no bootstrap, but it is noisy: worth
                // it only when enough digits can join it in the column's next sum. A sum
                // of at most 8 values gets its low digit from the carry's rotation.
                let low_terms = [(s, 1), (carry, -4)];
                let joins = |b: &Builder| joining(b, &low_terms, 3, col.live(), budget, MAX_SPAN).0;
                chooses |= span > SHARED_SPAN;
                if span > SHARED_SPAN && low.is_some_and(|need| joins(b) >= need) {
                    let low = b.linear(&low_terms, 0);
                    col.push_front(Digit::new(low, 3));
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

/// In a wide reduction, a group of `col`'s digits (the oldest, or first fit) whose sum
/// spans more than [`MAX_SPAN`] and at most [`WIDE_SPAN`], light enough that the linear
/// low digit `s − 4·carry` (quadratic weight 16 more) stays within the budget: read as
/// its carry alone (one bootstrap of `⌊s/4⌋ − 2`, then `+2`) into `next`, the low digit
/// put first in `col`. False (nothing built) when no such group exists.
fn wide_group(
    b: &mut Builder,
    col: &mut Column,
    next: &mut Vec<Digit>,
    next_offset: &mut i64,
    shape: Shape,
) -> bool {
    let Some(light) = shape.budget.checked_sub(16) else {
        return false;
    };
    let (take, span) = if shape.grouping == Grouping::FirstFit {
        first_fit(b, col.live_mut(), light, WIDE_SPAN)
    } else {
        joining(b, &[], 0, col.live(), light, WIDE_SPAN)
    };
    if span <= MAX_SPAN {
        return false;
    }
    let group: Vec<Digit> = col.take_front(take).to_vec();
    let terms: Vec<(NodeId, i64)> = group.iter().map(|d| (d.node, 1)).collect();
    let s = b.linear(&terms, 0);
    let shifted = table(b, s, 0, span, |x| x / 4 - 2);
    let carry = b.linear(&[(shifted, 1)], 2);
    push(b, next, next_offset, carry, span / 4);
    let low = b.linear(&[(s, 1), (carry, -4)], 0);
    col.push_front(Digit::new(low, 3));
    true
}

/// A column's digits being reduced, the oldest first: a queue whose front is taken and
/// given back without moving the rest (a column of thousands of digits, the sum of a long
/// array, is reduced in time linear in its length).
struct Column {
    digits: Vec<Digit>,
    /// The digits before this one are taken.
    start: usize,
}

impl Column {
    fn new(digits: Vec<Digit>) -> Self {
        Column { digits, start: 0 }
    }

    fn len(&self) -> usize {
        self.digits.len() - self.start
    }

    fn live(&self) -> &[Digit] {
        &self.digits[self.start..]
    }

    fn live_mut(&mut self) -> &mut [Digit] {
        &mut self.digits[self.start..]
    }

    /// Takes the first `k` digits.
    fn take_front(&mut self, k: usize) -> &[Digit] {
        let from = self.start;
        self.start += k;
        &self.digits[from..self.start]
    }

    /// Puts `d` first.
    fn push_front(&mut self, d: Digit) {
        if self.start > 0 {
            self.start -= 1;
            self.digits[self.start] = d;
        } else {
            self.digits.insert(0, d);
        }
    }

    /// Puts `d` last.
    fn push(&mut self, d: Digit) {
        self.digits.push(d);
    }
}

/// How many of `col`'s first digits join the terms `head` (values within `0..=head_span`)
/// in one bootstrap selector (a span of at most `max_span`, within `budget`), and the
/// span of the digits that join.
fn joining(
    b: &Builder,
    head: &[(NodeId, i64)],
    head_span: i64,
    col: &[Digit],
    budget: u64,
    max_span: i64,
) -> (usize, i64) {
    let mut terms = head.to_vec();
    let mut span = 0;
    for (k, d) in col.iter().enumerate() {
        terms.push((d.node, 1));
        if head_span + span + d.max > max_span || b.linear_qweight(&terms) > budget {
            return (k, span);
        }
        span += d.max;
    }
    (col.len(), span)
}

/// Moves the digits of `col` that join its first one in one bootstrap selector (first fit
/// in order: a span of at most `max_span`, within `budget`) to its front; how many they
/// are and their span.
fn first_fit(b: &Builder, col: &mut [Digit], budget: u64, max_span: i64) -> (usize, i64) {
    let mut terms = vec![(col[0].node, 1)];
    let mut span = col[0].max;
    let mut take = 1;
    for k in 1..col.len() {
        if span >= max_span {
            // Every digit of a column is at least 1: none joins a full span.
            break;
        }
        terms.push((col[k].node, 1));
        if span + col[k].max > max_span || b.linear_qweight(&terms) > budget {
            terms.pop();
            continue;
        }
        span += col[k].max;
        col[take..=k].rotate_right(1);
        take += 1;
    }
    (take, span)
}
