//! Unsigned instructions (seed 004 §4.3, §4.4): arithmetic mod 256, bitwise operations,
//! shifts and rotations, comparisons, conditional assignments and user tables.
//!
//! Besides the paper's patterns (`SimpleBoot`, `LUTeval`, `MVLUTeval`), the circuits use
//! three cheaper tricks of the 5-bit digit space `Z_32`:
//!
//! * a nibble sum `s` (any value mod 32) is reduced mod 16 by one bootstrap of the
//!   negacyclic ±k step `t = lut(s)` (`-k` on `[0, 16)`, `+k` on `[16, 32)`):
//!   `s mod 16 = s − t − 8` (k = 8) and `t + k ∈ {0, 2k}` flags the carry. Several such
//!   tables on one input share one blind rotation;
//! * the sign `σ = sign(a − b) ∈ {−1, 0, 1}` of two nibbles is negacyclic on `[−15, 15]`,
//!   so a byte comparison is `t = 2σ_h + σ_l ∈ [−3, 3]` after one level, and any function
//!   of `t` is one more bootstrap, or `t + 3` is used directly as the first selector of
//!   tree LUTs (selections for MIN/MAX, division steps);
//! * a tree LUT's first selector may be any small linear combination in `0..16` (carry
//!   flags, comparison results), which saves a bootstrap.
//!
//! Univariate instructions and immediates go through a small planner that, for each result
//! nibble, uses a constant, a free linear form, one `SimpleBoot`, a sum of two
//! `SimpleBoot`s (when the nibble is additively separable) or a tree LUT, and orients the
//! trees so that first-level blind rotations are shared.

use std::collections::HashSet;

use encint_core::circuit::{Builder, NodeId};
use encint_core::lut::NegacyclicLut;

use super::common::{refresh, refresh_byte, tree};
use super::{Arg, Kind, Signature, Value, MAX_OPERAND_QWEIGHT};
use crate::{Byte, IsaError};

const B2: &[Kind] = &[Kind::Byte, Kind::Byte];
const B3: &[Kind] = &[Kind::Byte, Kind::Byte, Kind::Byte];
const BI: &[Kind] = &[Kind::Byte, Kind::Imm];
const BII: &[Kind] = &[Kind::Byte, Kind::Imm, Kind::Imm];
const BT: &[Kind] = &[Kind::Byte, Kind::Table];

const fn sig(name: &'static str, args: &'static [Kind], doc: &'static str) -> Signature {
    Signature {
        name,
        args,
        result: Kind::Byte,
        doc,
    }
}

/// The instructions of this module.
pub const SIGNATURES: &[Signature] = &[
    sig("ADD", B2, "x + y mod 256"),
    sig("SUB", B2, "x - y mod 256"),
    sig("MUL", B2, "low byte of x * y"),
    sig("MULM", B2, "high byte of the 16-bit product x * y"),
    sig("DIV", B2, "x / y (x / 0 = 255)"),
    sig("MOD", B2, "x % y (x % 0 = x)"),
    sig("DIV4", B2, "x / (y & 15) (x / 0 = 255)"),
    sig("MOD4", B2, "x % (y & 15) (x % 0 = x)"),
    sig("AND", B2, "bitwise and"),
    sig("OR", B2, "bitwise or"),
    sig("XOR", B2, "bitwise exclusive or"),
    sig("SHL", B2, "x << k (0 when k >= 8)"),
    sig("SHR", B2, "x >> k, logical (0 when k >= 8)"),
    sig("ROL", B2, "rotate x left by k mod 8"),
    sig("ROR", B2, "rotate x right by k mod 8"),
    sig("EQ", B2, "x == y (boolean byte)"),
    sig("LT", B2, "x < y, unsigned (boolean byte)"),
    sig("LTE", B2, "x <= y, unsigned (boolean byte)"),
    sig("GT", B2, "x > y, unsigned (boolean byte)"),
    sig("GTE", B2, "x >= y, unsigned (boolean byte)"),
    sig("MIN", B2, "unsigned minimum"),
    sig("MAX", B2, "unsigned maximum"),
    sig("CDUP", B2, "c ? x : 0 (c a boolean byte)"),
    sig("NCDUP", B2, "c ? 0 : x (c a boolean byte)"),
    sig("CSEL", B3, "c ? x : y (c a boolean byte)"),
    sig(
        "ADDZ",
        B2,
        "x + y assuming one of them is 0 (no carry propagation)",
    ),
    sig("XOP", BT, "T[x] for a user table of 256 bytes"),
    sig(
        "XOPN",
        BT,
        "T[x] & 15 as a byte (0, n), for user conditions",
    ),
    sig("ADDI", BI, "x + imm mod 256"),
    sig("SUBI", BI, "x - imm mod 256"),
    sig("MULI", BI, "low byte of x * imm"),
    sig("MULMI", BI, "high byte of x * imm"),
    sig("DIVI", BI, "x / imm (x / 0 = 255)"),
    sig("MODI", BI, "x % imm (x % 0 = x)"),
    sig("DIV4I", BI, "x / (imm & 15) (x / 0 = 255)"),
    sig("MOD4I", BI, "x % (imm & 15) (x % 0 = x)"),
    sig("ANDI", BI, "x & imm"),
    sig("ORI", BI, "x | imm"),
    sig("XORI", BI, "x ^ imm"),
    sig("SHLI", BI, "x << imm (0 when imm >= 8)"),
    sig("SHRI", BI, "x >> imm, logical (0 when imm >= 8)"),
    sig("ROLI", BI, "rotate x left by imm mod 8"),
    sig("RORI", BI, "rotate x right by imm mod 8"),
    sig("EQI", BI, "x == imm (boolean byte)"),
    sig("LTI", BI, "x < imm, unsigned (boolean byte)"),
    sig("LTEI", BI, "x <= imm, unsigned (boolean byte)"),
    sig("GTI", BI, "x > imm, unsigned (boolean byte)"),
    sig("GTEI", BI, "x >= imm, unsigned (boolean byte)"),
    sig("MINI", BI, "unsigned min(x, imm)"),
    sig("MAXI", BI, "unsigned max(x, imm)"),
    sig("CDUPI", BI, "c ? imm : 0 (c a boolean byte)"),
    sig("NCDUPI", BI, "c ? 0 : imm (c a boolean byte)"),
    sig("CSELI", BII, "c ? imm1 : imm2 (c a boolean byte)"),
];

/// Records `name` if this module defines it.
pub fn emit(b: &mut Builder, name: &str, args: &[Arg]) -> Option<Result<Value, IsaError>> {
    let upper = name.to_ascii_uppercase();
    let sig = SIGNATURES.iter().find(|s| s.name == upper)?;
    Some(b.labelled(sig.name, |b| emit_checked(b, sig, args).map(Value::Byte)))
}

fn bad(name: &str, message: impl Into<String>) -> IsaError {
    IsaError::BadOperands {
        name: name.to_string(),
        message: message.into(),
    }
}

fn emit_checked(b: &mut Builder, sig: &Signature, args: &[Arg]) -> Result<Byte, IsaError> {
    let name = sig.name;
    if args.len() != sig.args.len() {
        return Err(bad(name, format!("expected operands {:?}", sig.args)));
    }
    let mut bytes = Vec::new();
    let mut imms = Vec::new();
    let mut table = None;
    for (a, k) in args.iter().zip(sig.args) {
        match (a, k) {
            (Arg::Byte(x), Kind::Byte) => bytes.push(*x),
            (Arg::Imm(v), Kind::Imm) => {
                let v = u8::try_from(*v)
                    .map_err(|_| bad(name, format!("immediate {v} is not in 0..=255")))?;
                imms.push(v);
            }
            (Arg::Table(t), Kind::Table) => {
                let mut out = [0u8; 256];
                for (o, &e) in out.iter_mut().zip(t.iter()) {
                    *o = u8::try_from(e)
                        .map_err(|_| bad(name, format!("table entry {e} is not a byte")))?;
                }
                table = Some(out);
            }
            _ => return Err(bad(name, format!("expected operands {:?}", sig.args))),
        }
    }
    let x = bytes[0];
    let y = bytes.get(1).copied();
    let k = imms.first().copied().unwrap_or(0);
    let two = |y: Option<Byte>| y.ok_or_else(|| bad(name, "missing operand"));
    Ok(match name {
        "ADD" => add(b, x, two(y)?)?,
        "SUB" => sub(b, x, two(y)?)?,
        "MUL" => mul(b, x, two(y)?)?,
        "MULM" => mulm(b, x, two(y)?)?,
        "DIV" => divmod(b, x, two(y)?, true)?,
        "MOD" => divmod(b, x, two(y)?, false)?,
        "DIV4" => div4(b, x, two(y)?.lo)?,
        "MOD4" => mod4(b, x, two(y)?.lo)?,
        "AND" => bitwise(b, x, two(y)?, |p, q| p & q)?,
        "OR" => bitwise(b, x, two(y)?, |p, q| p | q)?,
        "XOR" => bitwise(b, x, two(y)?, |p, q| p ^ q)?,
        "SHL" => shift(b, x, two(y)?, true)?,
        "SHR" => shift(b, x, two(y)?, false)?,
        "ROL" => rotate(b, x, two(y)?.lo, true)?,
        "ROR" => rotate(b, x, two(y)?.lo, false)?,
        "EQ" => compare(b, x, two(y)?, |t| t == 0, true)?,
        "LT" => compare(b, x, two(y)?, |t| t < 0, false)?,
        "LTE" => compare(b, x, two(y)?, |t| t <= 0, false)?,
        "GT" => compare(b, x, two(y)?, |t| t > 0, false)?,
        "GTE" => compare(b, x, two(y)?, |t| t >= 0, false)?,
        "MIN" => minmax(b, x, two(y)?, true)?,
        "MAX" => minmax(b, x, two(y)?, false)?,
        "CDUP" => cdup(b, x.lo, two(y)?, true)?,
        "NCDUP" => cdup(b, x.lo, two(y)?, false)?,
        "CSEL" => csel(b, x.lo, two(y)?, bytes[2])?,
        "ADDZ" => {
            let y = two(y)?;
            let hi = b.add(x.hi, y.hi);
            let lo = b.add(x.lo, y.lo);
            refresh_byte(b, Byte { hi, lo })
        }
        "XOP" => {
            let t = table.ok_or_else(|| bad(name, "missing table"))?;
            univariate(b, x, |v| t[v as usize])?
        }
        "XOPN" => {
            let t = table.ok_or_else(|| bad(name, "missing table"))?;
            univariate(b, x, |v| t[v as usize] & 15)?
        }
        "ADDI" => univariate(b, x, |v| v.wrapping_add(k))?,
        "SUBI" => univariate(b, x, |v| v.wrapping_sub(k))?,
        "MULI" => univariate(b, x, |v| v.wrapping_mul(k))?,
        "MULMI" => univariate(b, x, |v| ((v as u16 * k as u16) >> 8) as u8)?,
        "DIVI" => univariate(b, x, |v| div_u8(v, k))?,
        "MODI" => univariate(b, x, |v| mod_u8(v, k))?,
        "DIV4I" => univariate(b, x, |v| div_u8(v, k & 15))?,
        "MOD4I" => univariate(b, x, |v| mod_u8(v, k & 15))?,
        "ANDI" => univariate(b, x, |v| v & k)?,
        "ORI" => univariate(b, x, |v| v | k)?,
        "XORI" => univariate(b, x, |v| v ^ k)?,
        "SHLI" => univariate(b, x, |v| if k >= 8 { 0 } else { v << k })?,
        "SHRI" => univariate(b, x, |v| if k >= 8 { 0 } else { v >> k })?,
        "ROLI" => univariate(b, x, |v| v.rotate_left(u32::from(k & 7)))?,
        "RORI" => univariate(b, x, |v| v.rotate_right(u32::from(k & 7)))?,
        "EQI" => univariate(b, x, |v| (v == k) as u8)?,
        "LTI" => univariate(b, x, |v| (v < k) as u8)?,
        "LTEI" => univariate(b, x, |v| (v <= k) as u8)?,
        "GTI" => univariate(b, x, |v| (v > k) as u8)?,
        "GTEI" => univariate(b, x, |v| (v >= k) as u8)?,
        "MINI" => univariate(b, x, |v| v.min(k))?,
        "MAXI" => univariate(b, x, |v| v.max(k))?,
        "CDUPI" => cond_imm(b, x.lo, k, 0),
        "NCDUPI" => cond_imm(b, x.lo, 0, k),
        "CSELI" => cond_imm(b, x.lo, k, imms[1]),
        _ => return Err(IsaError::UnknownInstruction(name.to_string())),
    })
}

/// `x / d` with the processor's convention `x / 0 = 255`.
pub fn div_u8(x: u8, d: u8) -> u8 {
    x.checked_div(d).unwrap_or(255)
}

/// `x % d` with the processor's convention `x % 0 = x`.
pub fn mod_u8(x: u8, d: u8) -> u8 {
    x.checked_rem(d).unwrap_or(x)
}

// ---------------------------------------------------------------------------------------
// Digit-level helpers.

fn lut_fn(
    b: &mut Builder,
    x: NodeId,
    domain: std::ops::RangeInclusive<i64>,
    f: impl Fn(i64) -> i64,
) -> Result<NodeId, IsaError> {
    let l = NegacyclicLut::from_fn(domain, f)?;
    Ok(b.lut(x, &l))
}

/// The negacyclic ±`k` step of `s` (any value mod 32): `−k` when `s mod 32 ∈ [0, 16)`,
/// `+k` otherwise.
fn step(b: &mut Builder, s: NodeId, k: i64) -> Result<NodeId, IsaError> {
    lut_fn(b, s, 0..=15, |_| -k)
}

/// `s mod 16` for any `s` (one bootstrap, shared with the other steps of `s`).
fn mod16(b: &mut Builder, s: NodeId) -> Result<NodeId, IsaError> {
    let t = step(b, s, 8)?;
    Ok(b.linear(&[(s, 1), (t, -1)], -8))
}

/// `2k · [s mod 32 ≥ 16]` (a carry or borrow flag scaled by `2k`).
fn flag(b: &mut Builder, s: NodeId, k: i64) -> Result<NodeId, IsaError> {
    let t = step(b, s, k)?;
    Ok(b.linear(&[(t, 1)], k))
}

/// `sign(d)` for `d ∈ [−15, 15]`.
fn sign(b: &mut Builder, d: NodeId) -> Result<NodeId, IsaError> {
    lut_fn(b, d, -15..=15, i64::signum)
}

/// `2·sign(x.hi − y.hi) + sign(x.lo − y.lo) ∈ [−3, 3]`: its sign is that of `x − y`.
fn cmp_t(b: &mut Builder, x: Byte, y: Byte) -> Result<NodeId, IsaError> {
    let dh = b.linear(&[(x.hi, 1), (y.hi, -1)], 0);
    let dl = b.linear(&[(x.lo, 1), (y.lo, -1)], 0);
    let sh = sign(b, dh)?;
    let sl = sign(b, dl)?;
    Ok(b.linear(&[(sh, 2), (sl, 1)], 0))
}

// ---------------------------------------------------------------------------------------
// Univariate planner.

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
fn nibbles(
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

// ---------------------------------------------------------------------------------------
// Bivariate instructions.

/// `[s mod 32 ≥ 16]` at unit scale: one half-step bootstrap (the carry of a sum in `0..32`,
/// the borrow of a difference in `-16..16`).
fn unit_flag(b: &mut Builder, s: NodeId) -> Result<NodeId, IsaError> {
    Ok(b.half_lut(s, &NegacyclicLut { table: [-1; 16] })?)
}

/// `x ± y`: the low sum is reduced by one step bootstrap while a half-step bootstrap of the
/// same sum gives the unit carry (borrow); the high sum plus it is reduced by one more. Three
/// plain bootstraps, depth 2, no tree.
fn add_sub(b: &mut Builder, x: Byte, y: Byte, sign: i64) -> Result<Byte, IsaError> {
    let s = b.linear(&[(x.lo, 1), (y.lo, sign)], 0);
    let lo = mod16(b, s)?;
    let c = unit_flag(b, s)?;
    let z = b.linear(&[(x.hi, 1), (y.hi, sign), (c, sign)], 0);
    let hi = mod16(b, z)?;
    Ok(Byte {
        hi: refresh(b, hi),
        lo: refresh(b, lo),
    })
}

fn add(b: &mut Builder, x: Byte, y: Byte) -> Result<Byte, IsaError> {
    add_sub(b, x, y, 1)
}

fn sub(b: &mut Builder, x: Byte, y: Byte) -> Result<Byte, IsaError> {
    add_sub(b, x, y, -1)
}

fn bitwise(b: &mut Builder, x: Byte, y: Byte, f: fn(u8, u8) -> u8) -> Result<Byte, IsaError> {
    Ok(Byte {
        hi: tree(b, x.hi, y.hi, f)?,
        lo: tree(b, x.lo, y.lo, f)?,
    })
}

fn compare(
    b: &mut Builder,
    x: Byte,
    y: Byte,
    pred: fn(i64) -> bool,
    eq: bool,
) -> Result<Byte, IsaError> {
    let r = if eq {
        let dh = b.linear(&[(x.hi, 1), (y.hi, -1)], 0);
        let dl = b.linear(&[(x.lo, 1), (y.lo, -1)], 0);
        let sh = sign(b, dh)?;
        let sl = sign(b, dl)?;
        let t = b.linear(&[(sh, 3), (sl, 1)], 0);
        lut_fn(b, t, -4..=4, |t| pred(t) as i64)?
    } else {
        let t = cmp_t(b, x, y)?;
        lut_fn(b, t, -3..=3, |t| pred(t) as i64)?
    };
    Ok(Byte {
        hi: b.constant(0),
        lo: r,
    })
}

fn minmax(b: &mut Builder, x: Byte, y: Byte, min: bool) -> Result<Byte, IsaError> {
    let t = cmp_t(b, x, y)?;
    let u = b.linear(&[(t, 1)], 3);
    // u < 3 ⟺ x < y: MIN takes x there, MAX takes y.
    let take_x = move |h: u8| (h < 3) == min;
    let mut pick = |p: NodeId, q: NodeId| -> Result<NodeId, IsaError> {
        let a = tree(b, u, p, |h, l| if take_x(h) { l } else { 0 })?;
        let c = tree(b, u, q, |h, l| if take_x(h) { 0 } else { l })?;
        Ok(b.add(a, c))
    };
    Ok(Byte {
        hi: pick(x.hi, y.hi)?,
        lo: pick(x.lo, y.lo)?,
    })
}

fn cdup(b: &mut Builder, c: NodeId, x: Byte, when: bool) -> Result<Byte, IsaError> {
    let sel = move |h: u8, l: u8| if (h == 1) == when { l } else { 0 };
    Ok(Byte {
        hi: tree(b, c, x.hi, sel)?,
        lo: tree(b, c, x.lo, sel)?,
    })
}

fn csel(b: &mut Builder, c: NodeId, x: Byte, y: Byte) -> Result<Byte, IsaError> {
    let p = cdup(b, c, x, true)?;
    let q = cdup(b, c, y, false)?;
    Ok(Byte {
        hi: b.add(p.hi, q.hi),
        lo: b.add(p.lo, q.lo),
    })
}

fn cond_imm(b: &mut Builder, c: NodeId, t: u8, f: u8) -> Byte {
    let mut nib = |nt: u8, nf: u8| {
        let diff = i64::from(nt) - i64::from(nf);
        if (diff * diff) as u64 * b.qweight(c) <= MAX_OPERAND_QWEIGHT {
            b.linear(&[(c, diff)], i64::from(nf))
        } else {
            let mut table = [nt as i8; 16];
            table[0] = nf as i8;
            b.lut(c, &NegacyclicLut { table })
        }
    };
    Byte {
        hi: nib(t >> 4, f >> 4),
        lo: nib(t & 15, f & 15),
    }
}

/// Shift by an encrypted byte amount: `s = min(k, 8)` by one tree, then three trees on `s`.
fn shift(b: &mut Builder, x: Byte, k: Byte, left: bool) -> Result<Byte, IsaError> {
    let s = tree(b, k.hi, k.lo, |h, l| if h == 0 { l.min(8) } else { 8 })?;
    // same: a nibble's contribution to its own position; cross: to the other one.
    let same = move |s: u8, n: u8| match (s < 4, left) {
        (true, true) => (n << s) & 15,
        (true, false) => n >> s,
        (false, _) => 0,
    };
    let cross = move |s: u8, n: u8| match (s, left) {
        (0..=3, true) => n >> (4 - s),
        (0..=3, false) => (n << (4 - s)) & 15,
        (4..=7, true) => (n << (s - 4)) & 15,
        (4..=7, false) => n >> (s - 4),
        _ => 0,
    };
    let (src_same_to_out, src_cross, keep) = if left {
        (x.hi, x.lo, x.lo)
    } else {
        (x.lo, x.hi, x.hi)
    };
    // Left: hi = same(hi) + cross(lo), lo = same(lo). Right: lo = same(lo) + cross(hi),
    // hi = same(hi).
    let a = tree(b, s, src_same_to_out, same)?;
    let c = tree(b, s, src_cross, cross)?;
    let two = b.add(a, c);
    let one = tree(b, s, keep, same)?;
    Ok(if left {
        Byte { hi: two, lo: one }
    } else {
        Byte { hi: one, lo: two }
    })
}

/// Rotation by `k mod 8` (`k` the amount's low nibble): four trees on `k`, two tables.
fn rotate(b: &mut Builder, x: Byte, k: NodeId, left: bool) -> Result<Byte, IsaError> {
    let amount = move |kl: u8| {
        let r = kl & 7;
        if left {
            r
        } else {
            (8 - r) & 7
        }
    };
    let same = move |kl: u8, n: u8| {
        let r = amount(kl);
        if r < 4 {
            (n << r) & 15
        } else {
            n >> (8 - r)
        }
    };
    let cross = move |kl: u8, n: u8| {
        let r = amount(kl);
        if r < 4 {
            n >> (4 - r)
        } else {
            (n << (r - 4)) & 15
        }
    };
    let hh = tree(b, k, x.hi, same)?;
    let lh = tree(b, k, x.lo, cross)?;
    let ll = tree(b, k, x.lo, same)?;
    let hl = tree(b, k, x.hi, cross)?;
    Ok(Byte {
        hi: b.add(hh, lh),
        lo: b.add(ll, hl),
    })
}

// ---------------------------------------------------------------------------------------
// Multiplication.

fn mul_lo(h: u8, l: u8) -> u8 {
    (h * l) & 15
}
fn mul_hi(h: u8, l: u8) -> u8 {
    (h * l) >> 4
}

fn mul(b: &mut Builder, x: Byte, y: Byte) -> Result<Byte, IsaError> {
    let lo = tree(b, x.lo, y.lo, mul_lo)?;
    let a1 = tree(b, x.lo, y.lo, mul_hi)?;
    let b0 = tree(b, y.lo, x.hi, mul_lo)?;
    let c0 = tree(b, x.lo, y.hi, mul_lo)?;
    let s = b.linear(&[(a1, 1), (b0, 1), (c0, 1)], 0);
    let hi = mod16(b, s)?;
    Ok(Byte {
        hi: refresh(b, hi),
        lo,
    })
}

fn mulm(b: &mut Builder, x: Byte, y: Byte) -> Result<Byte, IsaError> {
    // x·y = A + 16(B + C) + 256 D with A = xl·yl, B = xh·yl, C = xl·yh, D = xh·yh.
    let a1 = tree(b, x.lo, y.lo, mul_hi)?;
    let b0 = tree(b, y.lo, x.hi, mul_lo)?;
    let b1 = tree(b, y.lo, x.hi, mul_hi)?;
    let c0 = tree(b, x.lo, y.hi, mul_lo)?;
    let c1 = tree(b, x.lo, y.hi, mul_hi)?;
    let d0 = tree(b, x.hi, y.hi, mul_lo)?;
    let d1 = tree(b, x.hi, y.hi, mul_hi)?;
    // κ = ⌊(a1 + b0 + c0) / 16⌋ ∈ {0, 1, 2}, as 2κ.
    let e1 = b.add(b0, c0);
    let r1 = mod16(b, e1)?;
    let f1 = flag(b, e1, 1)?;
    let g = b.add(a1, r1);
    let g2 = flag(b, g, 1)?;
    let kappa2 = b.add(f1, g2);
    // Result = 16 d1 + d0 + b1 + c1 + κ.
    let e2 = b.add(b1, c1);
    let r2 = mod16(b, e2)?;
    let f2 = flag(b, e2, 1)?;
    let h = b.add(d0, r2);
    let r3 = mod16(b, h)?;
    let f3 = flag(b, h, 1)?;
    let lo = tree(b, kappa2, r3, |k2, l| (l + k2 / 2) & 15)?;
    let c4 = tree(b, kappa2, r3, |k2, l| 2 * ((l + k2 / 2) >> 4))?;
    let sel = b.linear(&[(f2, 1), (f3, 1), (c4, 1)], 0);
    let hi = tree(b, sel, d1, |s2, l| (l + s2 / 2) & 15)?;
    Ok(Byte { hi, lo })
}

// ---------------------------------------------------------------------------------------
// Division.

/// Restoring division of bytes: for `i = 7..0`, `R ≥ (y << i)` (and no overflow) decides
/// `q_i` and `R ← R − (y << i)`. The shifted divisors, zeroed when they overflow (so the
/// step leaves `R` unchanged), are univariate functions of `y` evaluated in the first
/// level. One step: signs and differences of the nibbles (2 blind rotations), then the
/// selector `sel = 2σ_h + σ_l + 3 + 8·borrow ∈ [0, 15)` drives the tree LUTs that pick
/// `R` or `R − (y << i)` (borrow included) and the quotient bit.
fn divmod(b: &mut Builder, x: Byte, y: Byte, want_q: bool) -> Result<Byte, IsaError> {
    let mut shifted = Vec::with_capacity(8);
    let ov = |i: usize, v: u8| i > 0 && u32::from(v) >= (256 >> i);
    for i in 0..8usize {
        shifted.push(univariate(
            b,
            y,
            move |v| if ov(i, v) { 0 } else { v << i },
        )?);
    }
    let mut r = x;
    let mut q_hi = Vec::new();
    let mut q_lo = Vec::new();
    for i in (0..8usize).rev() {
        let yi = shifted[i];
        let dl = b.linear(&[(r.lo, 1), (yi.lo, -1)], 0);
        let dh = b.linear(&[(r.hi, 1), (yi.hi, -1)], 0);
        // Low nibble of the shifted divisor known to be 0 (i ≥ 4): R.lo is unchanged and
        // the comparison is decided by the high nibbles.
        let lo_zero = b.const_value(yi.lo) == Some(0);
        let sl = if lo_zero { b.constant(0) } else { sign(b, dl)? };
        let sh = sign(b, dh)?;
        let weight = 1u8 << (i % 4);
        let last = i == 0;
        if last && want_q {
            let t = b.linear(&[(sh, 2), (sl, 1)], 3);
            q_lo.push(lut_fn(b, t, 0..=6, |u| if u >= 3 { 1 } else { 0 })?);
            break;
        }
        let (dlo, borrow) = if lo_zero {
            (r.lo, b.constant(0))
        } else {
            (mod16(b, dl)?, flag(b, dl, 4)?)
        };
        let w = mod16(b, dh)?;
        // When the comparison uses only σ_h (sel ∈ {1, 3, 5}), the overflow flag of the
        // quotient bit fits in the selector as +8, and the bit is a plain table of it.
        let folded = lo_zero && want_q && i > 0;
        let mut terms = vec![(sh, 2), (sl, 1), (borrow, 1)];
        if folded {
            let ov8 = nibbles(b, y, &[&move |h, l| 8 * ov(i, 16 * h + l) as u8])?[0];
            terms.push((ov8, 1));
        }
        let sel = b.linear(&terms, 3);
        let ge = move |h: u8| {
            if folded {
                (3..8).contains(&h)
            } else {
                (h & 7) >= 3
            }
        };
        let keep_hi = tree(b, sel, r.hi, move |h, l| if ge(h) { 0 } else { l })?;
        let (keep_lo, new_lo) = if lo_zero {
            (r.lo, dlo)
        } else {
            (
                tree(b, sel, r.lo, move |h, l| if ge(h) { 0 } else { l })?,
                tree(b, sel, dlo, move |h, l| if ge(h) { l } else { 0 })?,
            )
        };
        let new_hi = tree(b, sel, w, move |h, l| {
            if ge(h) {
                (l + 16 - (h >= 8 && !folded) as u8) & 15
            } else {
                0
            }
        })?;
        if want_q {
            let bit = if folded {
                lut_fn(
                    b,
                    sel,
                    0..=15,
                    |h| if ge(h as u8) { weight.into() } else { 0 },
                )?
            } else {
                let ovn = nibbles(b, y, &[&move |h, l| ov(i, 16 * h + l) as u8])?[0];
                tree(
                    b,
                    sel,
                    ovn,
                    move |h, l| if ge(h) && l == 0 { weight } else { 0 },
                )?
            };
            if i >= 4 {
                q_hi.push(bit);
            } else {
                q_lo.push(bit);
            }
        }
        r = Byte {
            hi: b.add(keep_hi, new_hi),
            lo: if lo_zero {
                r.lo
            } else {
                b.add(keep_lo, new_lo)
            },
        };
    }
    if !want_q {
        return Ok(r);
    }
    let sum = |b: &mut Builder, v: &[NodeId]| {
        let terms: Vec<(NodeId, i64)> = v.iter().map(|&n| (n, 1)).collect();
        b.linear(&terms, 0)
    };
    let hi = sum(b, &q_hi);
    let lo = sum(b, &q_lo);
    Ok(refresh_byte(b, Byte { hi, lo }))
}

/// `x / d` for an encrypted nibble `d`: with `x = 16 xh + xl`, `xh = d·qh + r`,
/// `16 r = d·a + y` and `xl = d·b + u`, the quotient is `16 qh + a + b + [u ≥ d − y]`.
fn div4(b: &mut Builder, x: Byte, d: NodeId) -> Result<Byte, IsaError> {
    let div = |d: u8, n: u8| n.checked_div(d).unwrap_or(15);
    let qh = tree(b, d, x.hi, div)?;
    let bq = tree(b, d, x.lo, div)?;
    let a = tree(b, d, x.hi, |d, n| {
        (16 * n.checked_rem(d).unwrap_or(0))
            .checked_div(d)
            .unwrap_or(0)
    })?;
    let yc = tree(
        b,
        d,
        x.hi,
        |d, n| {
            if d == 0 {
                1
            } else {
                d - (16 * (n % d)) % d
            }
        },
    )?;
    let u = tree(b, d, x.lo, |d, n| if d == 0 { 0 } else { n % d })?;
    let e = b.linear(&[(u, 1), (yc, -1)], 0);
    let f8 = flag(b, e, 4)?;
    let ab = b.add(a, bq);
    let lo = tree(b, f8, ab, |h, l| (l + (h == 0) as u8) & 15)?;
    Ok(Byte { hi: qh, lo })
}

/// `x % d` for an encrypted nibble `d`: `e = u − (d − y)`, result `e + d·[e < 0]`.
fn mod4(b: &mut Builder, x: Byte, d: NodeId) -> Result<Byte, IsaError> {
    let hi = tree(b, d, x.hi, |d, n| if d == 0 { n } else { 0 })?;
    let u = tree(b, d, x.lo, |d, n| if d == 0 { n } else { n % d })?;
    let yc = tree(
        b,
        d,
        x.hi,
        |d, n| {
            if d == 0 {
                0
            } else {
                d - (16 * (n % d)) % d
            }
        },
    )?;
    let e = b.linear(&[(u, 1), (yc, -1)], 0);
    let f8 = flag(b, e, 4)?;
    let m = tree(b, f8, d, |h, l| if h == 8 { l } else { 0 })?;
    let lo = b.add(e, m);
    Ok(Byte {
        hi,
        lo: refresh(b, lo),
    })
}
