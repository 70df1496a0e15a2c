//! The exhaustive, length-by-length search for shortest free-doubling
//! addition-subtraction chains (the model is in [`super`]): its bounds, why its chains
//! are shortest, and how it chooses among the shortest ones.
//!
//! # Bounds
//!
//! The search produces steps in a normal form: one of the two shifts is zero
//! (a common shift only multiplies `r` by a power of two, which the
//! normalisation removes), the signs are chosen such that the raw `r` is
//! positive, and `r < 2^R_MAX` with `R_MAX = 20` ([`R_MAX`]). The shift
//! bound `E_MAX = 20` ([`E_MAX`]) is implied by the bound on `r` (all elements are
//! below `2^R_MAX`, so `2^e·x ≤ r + y < 2^(R_MAX+1)`). The chains are shortest
//! *within these bounds*, i.e. among chains whose every (normalised)
//! intermediate combination satisfies `|r| < 2^20`. (The lengths found for
//! `k < 4096` are identical for `R_MAX` = 12, 14, 16, 20, 24 and 28, so the
//! bound is not what limits them in practice; with `R_MAX = 24` even the
//! chosen chains are the same.)
//!
//! # Optimality argument
//!
//! A shortest chain for `k` has pairwise distinct elements (a step recreating
//! an existing element can be dropped), every element is an ancestor of the
//! last one, which is `k` (otherwise the chain could be shortened). What can
//! be created next only depends on the *set* of elements created so far.
//!
//! * Lengths 1–3: all element sets reachable with 1, 2, 3 steps (distinct
//!   elements, deduplicated as sets) are enumerated explicitly by applying
//!   every step (every pair, every shift, both signs, both operands shifted)
//!   to every set of the previous length. A target is recorded the first time
//!   it is created; since lengths are processed in increasing order, the
//!   recorded length is minimal.
//! * Length 4: every length-3 set is extended by every possible step; every
//!   still unrecorded target created that way gets a length-4 chain.
//! * Length 5: in a shortest length-5 chain `1, e1, e2, e3, e4, k`, the last
//!   step must use `e4` (else `e4` is useless), so `k` is one step from
//!   `{x, e4}` with `x ∈ S ∪ {e4}`, `S = {1, e1, e2, e3}` a length-3 set, and
//!   `e4` is one step from `S`. For every length-3 set `S` the set
//!   `W(S)` of all one-step elements is stored in a bitmap, and for every
//!   remaining target `k` and every `x ∈ S` all `w` with `k` one step from
//!   `{x, w}` are computed *backwards*: with `k = odd(|±2^e·x ± 2^f·w|)` and
//!   one of `e, f` zero, either `f = 0, e ≥ 1` (then `r` is odd, `w = |k ∓ 2^e·x|`),
//!   or `e = f = 0` (`r` even, `w = |2^c·k ∓ x|`, `c ≥ 1`), or `e = 0, f ≥ 1`
//!   (`r` odd, `w = odd(k ± x)`); the case `x = w` gives `k = (2^e ± 1)·w`.
//!   A hit `w ∈ W(S)` gives a length-5 chain; no hit for any `S` proves that
//!   no length-5 chain exists (within the bounds).
//!
//! For all odd `k < 4096` the search finds a chain of length at most 4 (the
//! length-5 level is never needed there; it is for larger `k`), so the whole
//! table is optimal within the bounds. (Targets not found up to length
//! [`MAX_SEARCH_LENGTH`] fall back to [`super::double_and_add`], reported in
//! [`SearchStats::fallback`]; this does not happen for `k < 4096`.)
//!
//! # Choice among the shortest chains
//!
//! A second pass enumerates *all* chains of up to four steps (every pair,
//! shift and sign, distinct elements; states after one or two steps that are
//! identical in elements, digit lengths, depths and cost are merged) and keeps,
//! for every target, a shortest chain minimising
//! [`SecondaryCost`] lexicographically: first the depth (sequential
//! additions when independent steps run in parallel; at most 3 for every
//! `k < 4096`), then the total number of active digits in a structural digit
//! model of the encrypted additions, then the digit length of the result. Ties
//! go to the first chain in the (deterministic) enumeration order. Targets
//! needing five steps keep the first chain found. Every chain is checked by
//! evaluation.

use super::{Chain, ChainStep};
use std::collections::HashSet;

/// Bound on every (normalised) intermediate combination: `|r| < 2^R_MAX`.
pub const R_MAX: u32 = 20;

/// Bound on every shift. With `|r| < 2^R_MAX` and one shift zero this bound is
/// implied (a shifted operand `2^e·x` never exceeds `|r| + y < 2^(R_MAX+1)`),
/// so it does not restrict the search further.
pub const E_MAX: u32 = R_MAX;

// Elements are below 2^R_MAX and shifted by at most E_MAX within u64, and a
// deduplication key holds two elements in 48-bit slots (with 16 bits of
// digit length and depth each).
const _: () = assert!(R_MAX <= 31 && E_MAX <= R_MAX);

/// Longest chain length the search is exhaustive for.
pub const MAX_SEARCH_LENGTH: usize = 5;

/// Width of one packed element in a set key (elements are `< 2^R_MAX`).
const KEY_BITS: u32 = 32;

/// Calls `f(new_element, step)` for every step combining `elems[a]` and
/// `elems[b]` (in the normal form used by the search: one shift zero, the
/// raw combination `r` positive and `r < 2^R_MAX`).
///
/// `f` receives the new element, the raw `r` and the step; returning `true`
/// stops the enumeration (and makes this function return `true`).
#[inline(always)]
fn for_each_comb<F: FnMut(u64, u64, ChainStep) -> bool>(
    x: u64,
    a: usize,
    y: u64,
    b: usize,
    mut f: F,
) -> bool {
    let limit = 1u64 << R_MAX;
    // `xs + ys` and `|xs − ys|`, with `x` shifted by `ex` and `y` by `ey`.
    let mut forms = |xs: u64, ex: u32, ys: u64, ey: u32| -> bool {
        let r = xs + ys;
        if r < limit {
            let v = r >> r.trailing_zeros();
            if f(v, r, step(a, ex, false, b, ey, false)) {
                return true;
            }
        }
        if xs != ys {
            let (r, neg_x) = if xs > ys {
                (xs - ys, false)
            } else {
                (ys - xs, true)
            };
            if r < limit {
                let v = r >> r.trailing_zeros();
                if f(v, r, step(a, ex, neg_x, b, ey, !neg_x)) {
                    return true;
                }
            }
        }
        false
    };
    for e in 0..=E_MAX {
        if forms(x << e, e, y, 0) {
            return true;
        }
        if e == 0 || a == b {
            continue;
        }
        if forms(x, 0, y << e, e) {
            return true;
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
            for_each_comb(elems[i], i, elems[j], j, |v, _, _| {
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
            if for_each_comb(elems[i], i, elems[j], j, |w, _, st| {
                if w == v {
                    found = Some(st);
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
fn set_key(seq: &[u64]) -> u128 {
    let mut v: Vec<u64> = seq[1..].to_vec();
    v.sort_unstable();
    v.iter()
        .fold(0u128, |acc, &x| (acc << KEY_BITS) | x as u128)
}

/// Expands all element sequences of a level (each of length `stride`) by one
/// step, deduplicating by element set; `record` is called for every newly
/// created element with the sequence it ends.
fn expand(prev: &[u64], stride: usize, mut record: impl FnMut(&[u64])) -> Vec<u64> {
    let mut seen: HashSet<u128> = HashSet::new();
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
    /// Targets without a chain of at most [`MAX_SEARCH_LENGTH`] steps within
    /// the bounds; they got the [`super::double_and_add`] chain (not optimal).
    pub fallback: Vec<u64>,
}

/// Phase 1 only: a shortest chain for every odd `k < max_k` (indexed by
/// `(k−1)/2`), the first one found, without the secondary criteria of
/// [`search_with_stats`]. Much faster; the lengths are the same.
pub fn search_lengths(max_k: u64) -> (Vec<Chain>, SearchStats) {
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
                stats.fallback.push(2 * i as u64 + 1);
                super::double_and_add(2 * i as u64 + 1)
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

/// Secondary criteria used to choose among the shortest chains of a target
/// (compared lexicographically, smaller is better).
///
/// They are computed in a structural digit model of the encrypted evaluation:
/// the input `X` has `n` digits, element `i` occupies digit positions
/// `0 .. n + λ_i` (`λ_0 = 0`). A step shifts its operands by `e_a`, `e_b`; below
/// `max(e_a, e_b)` only one operand has digits, which are copied (no
/// bootstrap), so the step has `n + (top − max(e_a, e_b))` *active* digits with
/// `top = max(e_a + λ_a, e_b + λ_b)`. The sum has one more digit, `ν(r)` low
/// digits of which are provably zero and dropped: `λ_new = top + 1 − ν(r)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SecondaryCost {
    /// Depth of the target in the chain DAG: the number of sequential
    /// additions when independent steps run in parallel.
    pub depth: u32,
    /// Total active digits of all steps minus `n` per step (`Σ top − max(e_a, e_b)`).
    pub extra_active_digits: u32,
    /// `λ` of the target: its digit length minus `n`.
    pub extra_length: u32,
}

/// Depth, `λ` and active digits (minus `n`) of one step.
#[inline(always)]
fn step_profile(st: &ChainStep, r: u64, lam: &[u32], dep: &[u32]) -> (u32, u32, u32) {
    let top = (st.a_shift + lam[st.a]).max(st.b_shift + lam[st.b]);
    let extra = top - st.a_shift.max(st.b_shift);
    let lam_new = top + 1 - r.trailing_zeros();
    let dep_new = dep[st.a].max(dep[st.b]) + 1;
    (dep_new, lam_new, extra)
}

/// The [`SecondaryCost`] of a chain (`None` if the chain is invalid).
pub fn secondary_cost(chain: &Chain) -> Option<SecondaryCost> {
    let v = chain.try_elements().ok()?;
    let mut lam = vec![0u32];
    let mut dep = vec![0u32];
    let mut extra = 0;
    for (i, st) in chain.steps.iter().enumerate() {
        let (r, _) = Chain::step_value(v[st.a] as i128, v[st.b] as i128, st).ok()?;
        let r = u64::try_from(r.unsigned_abs()).ok()?;
        let (d, l, e) = step_profile(st, r, &lam, &dep);
        debug_assert_eq!(r >> r.trailing_zeros(), v[i + 1]);
        lam.push(l);
        dep.push(d);
        extra += e;
    }
    Some(SecondaryCost {
        depth: *dep.last()?,
        extra_active_digits: extra,
        extra_length: *lam.last()?,
    })
}

/// Longest minimal length that the secondary-criteria pass handles.
const REFINE_MAX_LENGTH: usize = 4;

/// Depth-first enumeration of all chains (every pair, shift and sign, distinct
/// elements) up to [`REFINE_MAX_LENGTH`] steps, keeping for every target whose
/// minimal length is known the best chain of exactly that length.
struct Refine<'a> {
    max_k: u64,
    min_len: &'a [u8],
    max_level: usize,
    vals: [u64; REFINE_MAX_LENGTH + 1],
    lam: [u32; REFINE_MAX_LENGTH + 1],
    dep: [u32; REFINE_MAX_LENGTH + 1],
    steps: [ChainStep; REFINE_MAX_LENGTH],
    seen: Vec<HashSet<u128>>,
    best: Vec<Option<(SecondaryCost, Vec<ChainStep>)>>,
}

impl Refine<'_> {
    /// Key of the current state after `level` steps (sorted (element, λ,
    /// depth) triples and the accumulated extra digits).
    fn key(&self, level: usize, extra: u32) -> u128 {
        debug_assert!(level <= 2, "two 48-bit slots and the cost fit in the key");
        let mut t: Vec<u128> = (1..=level)
            .map(|i| {
                ((self.vals[i] as u128) << 16) | ((self.lam[i] as u128) << 4) | self.dep[i] as u128
            })
            .collect();
        t.sort_unstable();
        t.iter().fold(extra as u128, |acc, &x| (acc << 48) | x)
    }

    fn dfs(&mut self, level: usize, extra: u32) {
        let n = level + 1;
        for i in 0..n {
            for j in i..n {
                let (x, y) = (self.vals[i], self.vals[j]);
                for_each_comb(x, i, y, j, |v, r, st| {
                    if self.vals[..n].contains(&v) {
                        return false;
                    }
                    let target = v < self.max_k && self.min_len[(v / 2) as usize] as usize == n;
                    let deeper = n < self.max_level;
                    if !target && !deeper {
                        return false;
                    }
                    let (d, l, e) = step_profile(&st, r, &self.lam[..n], &self.dep[..n]);
                    self.steps[level] = st;
                    if target {
                        let cost = SecondaryCost {
                            depth: d,
                            extra_active_digits: extra + e,
                            extra_length: l,
                        };
                        let slot = &mut self.best[(v / 2) as usize];
                        if slot.as_ref().is_none_or(|(c, _)| cost < *c) {
                            *slot = Some((cost, self.steps[..n].to_vec()));
                        }
                    }
                    if deeper {
                        self.vals[n] = v;
                        self.lam[n] = l;
                        self.dep[n] = d;
                        // States after fewer than max_level − 1 steps are
                        // deduplicated (same elements, lengths, depths and cost).
                        if n + 1 < self.max_level {
                            let k = self.key(n, extra + e);
                            if !self.seen[n].insert(k) {
                                return false;
                            }
                        }
                        self.dfs(level + 1, extra + e);
                    }
                    false
                });
            }
        }
    }
}

/// Runs the search: phase 1 ([`search_lengths`]) determines the minimal
/// length of every odd `k < max_k`; phase 2 enumerates all chains of up to
/// four steps again and picks, among the shortest chains of each target, one
/// minimising [`SecondaryCost`] (first found on ties; deterministic). Targets
/// needing five steps keep the phase-1 chain. Returns the chains (indexed by
/// `(k−1)/2`) and statistics.
pub fn search_with_stats(max_k: u64) -> (Vec<Chain>, SearchStats) {
    let (mut chains, stats) = search_lengths(max_k);
    let mut min_len: Vec<u8> = chains
        .iter()
        .map(|c| c.additions().min(255) as u8)
        .collect();
    for &k in &stats.fallback {
        min_len[(k / 2) as usize] = u8::MAX;
    }
    let max_level = min_len
        .iter()
        .map(|&l| l as usize)
        .filter(|&l| l <= REFINE_MAX_LENGTH)
        .max()
        .unwrap_or(0);
    let mut r = Refine {
        max_k,
        min_len: &min_len,
        max_level,
        vals: [1; REFINE_MAX_LENGTH + 1],
        lam: [0; REFINE_MAX_LENGTH + 1],
        dep: [0; REFINE_MAX_LENGTH + 1],
        steps: [step(0, 0, false, 0, 0, false); REFINE_MAX_LENGTH],
        seen: vec![HashSet::new(); REFINE_MAX_LENGTH + 1],
        best: vec![None; chains.len()],
    };
    if max_level > 0 {
        r.dfs(0, 0);
    }
    for (i, b) in r.best.into_iter().enumerate() {
        if let Some((_, steps)) = b {
            let c = Chain {
                target: 2 * i as u64 + 1,
                steps,
            };
            assert_eq!(
                c.additions(),
                chains[i].additions(),
                "refinement changed a length"
            );
            chains[i] = c;
        } else {
            assert!(
                i == 0 || min_len[i] as usize > max_level,
                "refinement missed {}",
                2 * i + 1
            );
        }
    }
    (chains, stats)
}
