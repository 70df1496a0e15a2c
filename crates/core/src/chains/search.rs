//! The exhaustive, length-by-length search for shortest free-doubling
//! addition-subtraction chains (see the module documentation of
//! [`super`] for the model, the bounds and the optimality argument).

use super::{Chain, ChainStep};
use std::collections::HashSet;

/// Bound on every (normalised) intermediate combination: `|r| < 2^R_MAX`.
pub const R_MAX: u32 = 20;

/// Bound on every shift. With `|r| < 2^R_MAX` and one shift zero this bound is
/// implied (a shifted operand `2^e·x` never exceeds `|r| + y < 2^(R_MAX+1)`),
/// so it does not restrict the search further.
pub const E_MAX: u32 = R_MAX;

/// Longest chain length the search is exhaustive for.
pub const MAX_SEARCH_LENGTH: usize = 5;

/// Width of one packed element in a set key (elements are `< 2^R_MAX`).
const KEY_BITS: u32 = 21;

/// Calls `f(new_element, step)` for every step combining `elems[a]` and
/// `elems[b]` (in the normal form used by the search: one shift zero, the
/// raw combination `r` positive and `r < 2^R_MAX`).
///
/// The `step` argument is only built lazily through the closure `mk`.
#[inline(always)]
fn for_each_comb<F: FnMut(u64, &dyn Fn() -> ChainStep) -> bool>(
    x: u64,
    a: usize,
    y: u64,
    b: usize,
    mut f: F,
) -> bool {
    let limit = 1u64 << R_MAX;
    for e in 0..=E_MAX {
        // Forms with x shifted.
        let xs = x << e;
        let r = xs + y;
        if r < limit {
            let v = r >> r.trailing_zeros();
            if f(v, &|| step(a, e, false, b, 0, false)) {
                return true;
            }
        }
        if xs != y {
            let (r, neg_x) = if xs > y {
                (xs - y, false)
            } else {
                (y - xs, true)
            };
            if r < limit {
                let v = r >> r.trailing_zeros();
                if f(v, &|| step(a, e, neg_x, b, 0, !neg_x)) {
                    return true;
                }
            }
        }
        if e == 0 || a == b {
            continue;
        }
        // Forms with y shifted.
        let ys = y << e;
        let r = x + ys;
        if r < limit {
            let v = r >> r.trailing_zeros();
            if f(v, &|| step(a, 0, false, b, e, false)) {
                return true;
            }
        }
        if x != ys {
            let (r, neg_x) = if x > ys {
                (x - ys, false)
            } else {
                (ys - x, true)
            };
            if r < limit {
                let v = r >> r.trailing_zeros();
                if f(v, &|| step(a, 0, neg_x, b, e, !neg_x)) {
                    return true;
                }
            }
        }
    }
    false
}

fn step(
    a: usize,
    a_shift: u32,
    a_negative: bool,
    b: usize,
    b_shift: u32,
    b_negative: bool,
) -> ChainStep {
    ChainStep {
        a,
        a_shift,
        a_negative,
        b,
        b_shift,
        b_negative,
    }
}

/// Calls `f(v)` for every element `v` one step away from the set `elems`.
#[inline(always)]
fn for_each_next(elems: &[u64], mut f: impl FnMut(u64)) {
    for i in 0..elems.len() {
        for j in i..elems.len() {
            for_each_comb(elems[i], i, elems[j], j, |v, _| {
                f(v);
                false
            });
        }
    }
}

/// Finds a step (deterministically the first in enumeration order) creating
/// `v` from the elements `elems`.
fn find_step(elems: &[u64], v: u64) -> Option<ChainStep> {
    let mut found = None;
    'outer: for i in 0..elems.len() {
        for j in i..elems.len() {
            if for_each_comb(elems[i], i, elems[j], j, |w, mk| {
                if w == v {
                    found = Some(mk());
                    true
                } else {
                    false
                }
            }) {
                break 'outer;
            }
        }
    }
    found
}

/// Builds the chain for an element sequence (creation order, starting at 1).
fn chain_from_sequence(seq: &[u64]) -> Chain {
    let mut steps = Vec::with_capacity(seq.len().saturating_sub(1));
    for i in 1..seq.len() {
        let s = find_step(&seq[..i], seq[i]).expect("search produced an unreachable element");
        steps.push(s);
    }
    Chain {
        target: *seq.last().expect("non-empty sequence"),
        steps,
    }
}

/// Packs the sorted non-trivial elements of a set into a key.
fn set_key(seq: &[u64]) -> u64 {
    let mut v: Vec<u64> = seq[1..].to_vec();
    v.sort_unstable();
    v.iter().fold(0u64, |acc, &x| (acc << KEY_BITS) | x)
}

/// Expands all element sequences of a level (each of length `stride`) by one
/// step, deduplicating by element set; `record` is called for every newly
/// created element with the sequence it ends.
fn expand(prev: &[u64], stride: usize, mut record: impl FnMut(&[u64])) -> Vec<u64> {
    let mut seen: HashSet<u64> = HashSet::new();
    let mut out = Vec::new();
    let mut seq = vec![0u64; stride + 1];
    for chunk in prev.chunks_exact(stride) {
        seq[..stride].copy_from_slice(chunk);
        for_each_next(chunk, |v| {
            if chunk.contains(&v) {
                return;
            }
            seq[stride] = v;
            record(&seq);
            if seen.insert(set_key(&seq)) {
                out.extend_from_slice(&seq);
            }
        });
    }
    out
}

/// Statistics of one search run (for reporting).
#[derive(Debug, Clone, Default)]
pub struct SearchStats {
    /// Number of distinct element sets per length (index = length).
    pub sets_per_length: Vec<usize>,
}

/// Runs the search; returns the chains (indexed by `(k-1)/2`) and statistics.
pub fn search_with_stats(max_k: u64) -> (Vec<Chain>, SearchStats) {
    let n = (max_k / 2) as usize; // odd k in 1..max_k: k = 2i+1 < max_k
    let mut best: Vec<Option<Vec<u64>>> = vec![None; n];
    let mut stats = SearchStats::default();
    let mut remaining = n;
    if n > 0 {
        best[0] = Some(vec![1]);
        remaining -= 1;
    }
    let rec = |seq: &[u64], best: &mut Vec<Option<Vec<u64>>>, remaining: &mut usize| {
        let v = *seq.last().unwrap();
        if v < max_k {
            let idx = (v / 2) as usize;
            if best[idx].is_none() {
                best[idx] = Some(seq.to_vec());
                *remaining -= 1;
            }
        }
    };
    // Levels 1..=3: explicit sets.
    let l0 = vec![1u64];
    stats.sets_per_length.push(1);
    let l1 = expand(&l0, 1, |s| rec(s, &mut best, &mut remaining));
    stats.sets_per_length.push(l1.len() / 2);
    let l2 = expand(&l1, 2, |s| rec(s, &mut best, &mut remaining));
    stats.sets_per_length.push(l2.len() / 3);
    let l3 = expand(&l2, 3, |s| rec(s, &mut best, &mut remaining));
    stats.sets_per_length.push(l3.len() / 4);
    drop(l2);
    // Level 4: one more step from every length-3 set, no storage.
    if remaining > 0 {
        let mut seq = [0u64; 5];
        for chunk in l3.chunks_exact(4) {
            seq[..4].copy_from_slice(chunk);
            for_each_next(chunk, |v| {
                if v < max_k && best[(v / 2) as usize].is_none() {
                    seq[4] = v;
                    rec(&seq, &mut best, &mut remaining);
                }
            });
        }
    }
    // Level 5: length-3 set S, a fourth element w one step from S, and the
    // target one step from {x, w} with x in S or x = w (tested backwards).
    if remaining > 0 {
        let mut targets: Vec<u64> = (0..n as u64)
            .filter(|&i| best[i as usize].is_none())
            .map(|i| 2 * i + 1)
            .collect();
        let limit = 1u64 << R_MAX;
        let mut bitmap = vec![0u64; (limit / 64) as usize];
        let mut touched: Vec<u64> = Vec::with_capacity(1024);
        for chunk in l3.chunks_exact(4) {
            if targets.is_empty() {
                break;
            }
            for_each_next(chunk, |w| {
                let (word, bit) = ((w / 64) as usize, w % 64);
                if bitmap[word] == 0 {
                    touched.push(word as u64);
                }
                bitmap[word] |= 1 << bit;
            });
            let has = |w: u64| w < limit && (bitmap[(w / 64) as usize] >> (w % 64)) & 1 == 1;
            let mut ti = 0;
            while ti < targets.len() {
                let k = targets[ti];
                if let Some(w) = backward_hit(k, chunk, &has) {
                    let seq = [chunk[0], chunk[1], chunk[2], chunk[3], w, k];
                    rec(&seq, &mut best, &mut remaining);
                    targets.swap_remove(ti);
                } else {
                    ti += 1;
                }
            }
            for &word in &touched {
                bitmap[word as usize] = 0;
            }
            touched.clear();
        }
    }
    let chains = best
        .iter()
        .enumerate()
        .map(|(i, s)| match s {
            Some(seq) => chain_from_sequence(seq),
            None => {
                let k = 2 * i as u64 + 1;
                super::double_and_add(k)
            }
        })
        .collect();
    (chains, stats)
}

/// Searches for `w` with `has(w)` such that `k` is one step away from
/// `{x, w}` for some `x` in `s`, or from `{w}` alone. Exhaustive: every step
/// `k = odd(|±2^e·x ± 2^f·w|)` (one of `e, f` zero, `|r| < 2^R_MAX`) is
/// covered by one of the cases below.
#[inline(always)]
fn backward_hit(k: u64, s: &[u64], has: &impl Fn(u64) -> bool) -> Option<u64> {
    let limit = 1u64 << R_MAX;
    for &x in s {
        // f = 0, e >= 1: r odd, so r = ±k: w = |k ∓ 2^e·x|.
        for e in 1..=E_MAX {
            let xs = x << e;
            if xs >= k + limit {
                break;
            }
            if has(k + xs) {
                return Some(k + xs);
            }
            if xs != k && has(k.abs_diff(xs)) {
                return Some(k.abs_diff(xs));
            }
        }
        // e = f = 0: r = ±x ± w is even, |r| = 2^c·k with c >= 1.
        let mut kc = k << 1;
        while kc < limit {
            if has(kc + x) {
                return Some(kc + x);
            }
            if kc != x && has(kc.abs_diff(x)) {
                return Some(kc.abs_diff(x));
            }
            kc <<= 1;
        }
        // e = 0, f >= 1: r odd, 2^f·w = k ± x.
        let p = k + x;
        if has(p >> p.trailing_zeros()) {
            return Some(p >> p.trailing_zeros());
        }
        if k != x {
            let m = k.abs_diff(x);
            if has(m >> m.trailing_zeros()) {
                return Some(m >> m.trailing_zeros());
            }
        }
    }
    // x = w: k = (2^e ± 1)·w.
    for e in 1..=E_MAX {
        for d in [(1u64 << e) + 1, (1u64 << e) - 1] {
            if d > 1 && (k / d) * d == k && has(k / d) {
                return Some(k / d);
            }
        }
    }
    None
}
