//! The comparison tree: signs of differences, least significant first, merged into the
//! predicate of the most significant nonzero one, in the least depth and then the fewest
//! bootstraps.

use encint_core::circuit::{Builder, NodeId};

use super::table;

/// Where the sign of one position's comparison comes from (least significant first).
pub(super) enum SignSource {
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

/// `scale · pred` of the sign of the most significant nonzero source (0 when all are 0),
/// through chains of differences at most `chain` long ([`merge_chains`]): of the chain lengths
/// 1 to [`CHAIN`], the one of least depth among those within one bootstrap of the fewest
/// (then the fewest bootstraps, then the longest chain). Four blocks take chains of one
/// (five bootstraps at depth 2, where chains of four take four at depth 4); eight blocks
/// of an unsigned pattern take chains of two (nine at depth 3, against nine at depth 5).
pub(super) fn merge_signs(
    b: &mut Builder,
    sources: Vec<SignSource>,
    pred: fn(i64) -> bool,
    scale: i64,
) -> NodeId {
    // Without a difference that can join a chain (bit pairs' differences), every length
    // builds the same circuit.
    if !sources.iter().any(|s| joins(b, s)) {
        return merge_chains(b, sources, pred, scale, CHAIN);
    }
    // Each length built once on stand-ins of the sources (inputs of the same quadratic
    // weight, which decides whether a difference joins a chain).
    let shapes: Vec<(usize, encint_core::circuit::Cost)> = (1..=CHAIN)
        .map(|chain| {
            let mut s = Builder::new();
            let stand_ins = sources
                .iter()
                .map(|src| match src {
                    SignSource::Difference(d) => {
                        SignSource::Difference(s.input_with_qweight(b.qweight(*d)))
                    }
                    SignSource::Table { node, lo, sign } => SignSource::Table {
                        node: s.input_with_qweight(b.qweight(*node)),
                        lo: *lo,
                        sign: sign.clone(),
                    },
                })
                .collect();
            let out = merge_chains(&mut s, stand_ins, pred, scale, chain);
            (chain, s.finish(vec![out]).cost())
        })
        .collect();
    let fewest = shapes.iter().map(|(_, c)| c.bootstraps).min().unwrap_or(0);
    let chain = shapes
        .iter()
        .filter(|(_, c)| c.bootstraps <= fewest + 1)
        .min_by_key(|(l, c)| (c.depth, c.bootstraps, std::cmp::Reverse(*l)))
        .map_or(CHAIN, |&(l, _)| l);
    merge_chains(b, sources, pred, scale, chain)
}

/// Whether `s` can join a chain: a difference whose `2d + s` stays within the budget
/// (fresh blocks' differences; bit pairs' are too noisy and stand alone).
fn joins(b: &Builder, s: &SignSource) -> bool {
    matches!(s, SignSource::Difference(d)
        if 4 * b.qweight(*d) < encint_core::bits::QWEIGHT_BUDGET)
}

/// `scale · pred` of the sign of the most significant nonzero source (0 when all are 0).
///
/// Runs of up to `chain` consecutive differences are read as chains, from the least
/// significant up: `s = sign(d₀)`, then `s = sign(2dᵢ + s)` (in `-7..=7`, quadratic weight
/// 9; `|s| < 2` cannot outweigh a nonzero `dᵢ`), one bootstrap per source. A table source
/// stands alone. The chains' results are then merged in a tree of the least depth, and
/// of the fewest merges at that depth:
/// - a merge of signs reads `sign(s₁ + 2s₂ + 4s₃)` (quadratic weight 21);
/// - the least significant chain reports only its [`Low`] value `t` (`−[s < 0]` for `<`
///   and `≥`), and the merges above it read `t + s₁ + 2s₂ + 4s₃` (16 values, quadratic
///   weight 22): one more position per merge than signs alone;
/// - the last merge (or, for one chain, its last step) reads `pred` directly.
fn merge_chains(
    b: &mut Builder,
    sources: Vec<SignSource>,
    pred: fn(i64) -> bool,
    scale: i64,
    chain: usize,
) -> NodeId {
    let bit = move |v: i64| scale * i64::from(pred(v.signum()));
    let low = Low::of(pred);
    // The chains: runs of differences (at most CHAIN long) and lone tables.
    let mut chains: Vec<Vec<SignSource>> = Vec::new();
    for s in sources {
        let joins = joins(b, &s);
        match chains.last_mut() {
            Some(c) if joins && c.len() < chain && matches!(c[0], SignSource::Difference(_)) => {
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

    /// How many signs a merge can read beside the low value within [`super::MAX_SPAN`].
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
