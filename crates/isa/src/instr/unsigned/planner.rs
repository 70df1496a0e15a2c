//! The univariate planner: for each result nibble of a byte function, a constant, a free
//! linear form, one `SimpleBoot`, a sum of two `SimpleBoot`s (when the nibble is additively
//! separable) or a tree LUT, with the trees oriented so that first-level blind rotations
//! are shared.

use std::collections::HashSet;

use encint_core::circuit::{Builder, NodeId};
use encint_core::lut::NegacyclicLut;

use super::super::common::tree;
use super::super::MAX_OPERAND_QWEIGHT;
use crate::{Byte, IsaError};

/// How one result nibble is computed.
#[derive(Clone)]
enum Plan {
    Const(u8),
    /// `α·hi + β·lo + c` (exact, no bootstrap).
    Free(i64, i64, i64),
    /// One table of `hi` (`true`) or `lo`.
    Lut(bool, [i8; 16]),
    /// `G(hi) + L(lo)`.
    Sum([i8; 16], [i8; 16]),
    /// A tree LUT `g(hi, lo)`.
    Tree(Box<[[u8; 16]; 16]>),
}

fn plan(b: &Builder, x: Byte, g: &dyn Fn(u8, u8) -> u8) -> Plan {
    let at = |h: u8, l: u8| i64::from(g(h, l) & 15);
    let all = |f: &dyn Fn(u8, u8) -> bool| (0..16).all(|h| (0..16).all(|l| f(h, l)));
    let c = at(0, 0);
    if all(&|h, l| at(h, l) == c) {
        return Plan::Const(c as u8);
    }
    for a in -1..=1i64 {
        for be in -1..=1i64 {
            let q = (a * a) as u64 * b.qweight(x.hi) + (be * be) as u64 * b.qweight(x.lo);
            if q <= MAX_OPERAND_QWEIGHT
                && all(&|h, l| at(h, l) == a * i64::from(h) + be * i64::from(l) + c)
            {
                return Plan::Free(a, be, c);
            }
        }
    }
    let row = |f: &dyn Fn(u8) -> i64| {
        let mut t = [0i8; 16];
        for (i, v) in t.iter_mut().enumerate() {
            *v = f(i as u8) as i8;
        }
        t
    };
    if all(&|h, l| at(h, l) == at(h, 0)) {
        return Plan::Lut(true, row(&|h| at(h, 0)));
    }
    if all(&|h, l| at(h, l) == at(0, l)) {
        return Plan::Lut(false, row(&|l| at(0, l)));
    }
    if all(&|h, l| at(h, l) == at(h, 0) + at(0, l) - c) {
        return Plan::Sum(row(&|h| at(h, 0)), row(&|l| at(0, l) - c));
    }
    let mut t = Box::new([[0u8; 16]; 16]);
    for h in 0..16u8 {
        for l in 0..16u8 {
            t[h as usize][l as usize] = at(h, l) as u8;
        }
    }
    Plan::Tree(t)
}

/// Blind rotations and keyswitches of plans with the given tree orientations
/// (`true`: first selector `hi`).
fn plan_cost(plans: &[Plan], orient: &[bool]) -> (usize, usize) {
    let mut firsts = HashSet::new();
    let mut ks: HashSet<(bool, [[u8; 16]; 16])> = HashSet::new();
    let mut seconds = 0;
    let mut trees = 0;
    for p in plans {
        match p {
            Plan::Lut(on_hi, _) => {
                firsts.insert(*on_hi);
            }
            Plan::Sum(..) => {
                firsts.insert(true);
                firsts.insert(false);
            }
            Plan::Tree(t) => {
                let o = orient[trees];
                trees += 1;
                firsts.insert(o);
                seconds += 1;
                let table = if o { **t } else { transpose(t) };
                ks.insert((o, table));
            }
            _ => {}
        }
    }
    (firsts.len() + seconds, ks.len())
}

fn transpose(t: &[[u8; 16]; 16]) -> [[u8; 16]; 16] {
    let mut r = [[0u8; 16]; 16];
    for (i, row) in t.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            r[j][i] = v;
        }
    }
    r
}

fn realise(b: &mut Builder, x: Byte, p: &Plan, o: bool) -> Result<NodeId, IsaError> {
    Ok(match p {
        Plan::Const(c) => b.constant(i64::from(*c)),
        Plan::Free(a, be, c) => b.linear(&[(x.hi, *a), (x.lo, *be)], *c),
        Plan::Lut(on_hi, t) => {
            let input = if *on_hi { x.hi } else { x.lo };
            b.lut(input, &NegacyclicLut { table: *t })
        }
        Plan::Sum(g, l) => {
            let p = b.lut(x.hi, &NegacyclicLut { table: *g });
            let q = b.lut(x.lo, &NegacyclicLut { table: *l });
            b.add(p, q)
        }
        Plan::Tree(t) => {
            if o {
                tree(b, x.hi, x.lo, |h, l| t[h as usize][l as usize])?
            } else {
                tree(b, x.lo, x.hi, |l, h| t[h as usize][l as usize])?
            }
        }
    })
}

/// Realises the result nibbles `gs(hi, lo)` of `x` with the cheapest plans.
pub(super) fn nibbles(
    b: &mut Builder,
    x: Byte,
    gs: &[&dyn Fn(u8, u8) -> u8],
) -> Result<Vec<NodeId>, IsaError> {
    let plans: Vec<Plan> = gs.iter().map(|g| plan(b, x, *g)).collect();
    let n = plans.iter().filter(|p| matches!(p, Plan::Tree(_))).count();
    let mut best: Option<((usize, usize), Vec<bool>)> = None;
    for mask in 0..(1u32 << n) {
        let orient: Vec<bool> = (0..n).map(|i| mask & (1 << i) == 0).collect();
        let c = plan_cost(&plans, &orient);
        if best.as_ref().is_none_or(|(bc, _)| c < *bc) {
            best = Some((c, orient));
        }
    }
    let orient = best.map(|b| b.1).unwrap_or_default();
    let mut trees = 0;
    let mut out = Vec::with_capacity(plans.len());
    for p in &plans {
        let o = if matches!(p, Plan::Tree(_)) {
            trees += 1;
            orient[trees - 1]
        } else {
            true
        };
        out.push(realise(b, x, p, o)?);
    }
    Ok(out)
}

/// A univariate byte function `f(x)`, planned nibble by nibble (constant, free, `SimpleBoot`,
/// sum of `SimpleBoot`s or `LUTeval`, with shared first levels).
pub fn univariate(b: &mut Builder, x: Byte, f: impl Fn(u8) -> u8) -> Result<Byte, IsaError> {
    let gh = |h: u8, l: u8| f(16 * h + l) >> 4;
    let gl = |h: u8, l: u8| f(16 * h + l) & 15;
    let r = nibbles(b, x, &[&gh, &gl])?;
    Ok(Byte { hi: r[0], lo: r[1] })
}
