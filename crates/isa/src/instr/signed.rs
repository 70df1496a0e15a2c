//! Instructions on signed (two's complement) bytes (Trama, Clet, Boudguiga and Sirdey,
//! "Designing a General-Purpose 8-bit (T)FHE Processor Abstraction", §5.1).
//!
//! Addition, subtraction, the low byte of a product and bitwise operations are the same
//! circuits as for unsigned bytes, so only what differs is here: negation, absolute value,
//! the high byte of the signed product, truncating division, comparisons, min/max and
//! arithmetic shifts. Every result wraps modulo 256.
//!
//! The module also holds the nibble helpers shared with [`super::fixed`]: byte functions
//! that pick the cheapest evaluation per output nibble, and a ripple adder and signed
//! products over any number of nibbles.

use encint_core::circuit::{Builder, NodeId};

use super::common::{bool_byte, flag, lut_on, mod16, refresh, sign_lut, tree, unit_flag};
use super::operands::{bad, byte_arg, emit_listed, imm_arg};
use super::{Arg, Kind, Signature, Value};
use crate::{Byte, IsaError};

const B: Kind = Kind::Byte;
const I: Kind = Kind::Imm;

/// The instructions of this module.
#[rustfmt::skip]
pub const SIGNATURES: &[Signature] = &[
    Signature::new("NEG", &[B], B, "two's complement negation (NEG -128 = -128)"),
    Signature::new("ABS", &[B], B, "absolute value of a signed byte (ABS -128 = -128)"),
    Signature::new("SMULM", &[B, B], B, "high byte of the signed 16-bit product"),
    Signature::new("SDIV", &[B, B], B,
        "signed division truncating toward zero (x/0 = -1, -128/-1 = -128)"),
    Signature::new("SMOD", &[B, B], B, "signed remainder of SDIV, sign of the dividend (x%0 = x)"),
    Signature::new("SLT", &[B, B], B, "signed a < b (boolean)"),
    Signature::new("SLTE", &[B, B], B, "signed a <= b (boolean)"),
    Signature::new("SGT", &[B, B], B, "signed a > b (boolean)"),
    Signature::new("SGTE", &[B, B], B, "signed a >= b (boolean)"),
    Signature::new("SMIN", &[B, B], B, "signed minimum"),
    Signature::new("SMAX", &[B, B], B, "signed maximum"),
    Signature::new("SSHR", &[B, B], B,
        "arithmetic shift right by an encrypted unsigned amount (>= 8: sign fill)"),
    Signature::new("SSHRI", &[B, I], B,
        "arithmetic shift right by an immediate 0..=255 (>= 8: sign fill)"),
    Signature::new("SLTI", &[B, I], B, "signed a < imm (imm in -128..=127)"),
    Signature::new("SLTEI", &[B, I], B, "signed a <= imm (imm in -128..=127)"),
    Signature::new("SGTI", &[B, I], B, "signed a > imm (imm in -128..=127)"),
    Signature::new("SGTEI", &[B, I], B, "signed a >= imm (imm in -128..=127)"),
    Signature::new("SMINI", &[B, I], B, "signed min(a, imm) (imm in -128..=127)"),
    Signature::new("SMAXI", &[B, I], B, "signed max(a, imm) (imm in -128..=127)"),
    Signature::new("SDIVI", &[B, I], B, "signed a / imm truncating (imm in -128..=127; /0 = -1)"),
    Signature::new("SMODI", &[B, I], B, "signed a % imm (imm in -128..=127; %0 = a)"),
];

/// Records `name` if this module defines it.
pub fn emit(b: &mut Builder, name: &str, args: &[Arg]) -> Option<Result<Value, IsaError>> {
    emit_listed(b, SIGNATURES, name, args, emit_known)
}

fn emit_known(b: &mut Builder, sig: &Signature, args: &[Arg]) -> Result<Value, IsaError> {
    let name = sig.name;
    let x = byte_arg(name, args, 0)?;
    let out = match name {
        "NEG" => neg(b, x)?,
        // Two trees sharing the first rotation (3 BR, 2 KS, depth 1). Trama et al.'s Table 4
        // says 2/1, but with exact nibble outputs nothing cheaper exists here: both result
        // nibbles depend on the sign and on `lo` (one tree gives one such interaction, and
        // lo' and hi' need non-proportional ones), and the plain two-level forms (a LUT of
        // `hi`, then one negacyclic LUT of `lo + 16·[hi ≥ 8]`-like inputs) fail on parity:
        // the carry `[x < 0 ∧ lo = 0]` into hi' would need `2c ≡ 1 (mod 32)`.
        "ABS" => byte_map(b, x, |v| (v as i8).wrapping_abs() as u8)?,
        "SMULM" => smulm(b, x, byte_arg(name, args, 1)?)?,
        "SDIV" | "SMOD" => sdivmod(b, name, x, byte_arg(name, args, 1)?)?,
        "SLT" | "SLTE" | "SGT" | "SGTE" => {
            let code = scmp_code(b, x, byte_arg(name, args, 1)?)?;
            let pred: fn(i64) -> bool = match name {
                "SLT" => |c| c < 4,
                "SLTE" => |c| c <= 4,
                "SGT" => |c| c > 4,
                _ => |c| c >= 4,
            };
            let bit = lut_on(b, code, 0..=8, |c| pred(c) as i64)?;
            bool_byte(b, bit)
        }
        "SMIN" | "SMAX" => {
            let y = byte_arg(name, args, 1)?;
            let code = scmp_code(b, x, y)?;
            // x < y  <=> code < 4
            let take_x: fn(u8) -> bool = if name == "SMIN" {
                |c| c < 4
            } else {
                |c| c >= 4
            };
            select_by_code(b, code, take_x, x, y)?
        }
        "SSHR" => sshr(b, x, byte_arg(name, args, 1)?)?,
        "SSHRI" => {
            let k = imm_arg(name, args, 1, 0, 255)?;
            sshri(b, x, k as u32)?
        }
        _ => {
            let v = imm_arg(name, args, 1, -128, 127)? as i8;
            let s = |u: u8| u as i8;
            match name {
                "SLTI" => pred_byte(b, x, move |u| s(u) < v)?,
                "SLTEI" => pred_byte(b, x, move |u| s(u) <= v)?,
                "SGTI" => pred_byte(b, x, move |u| s(u) > v)?,
                "SGTEI" => pred_byte(b, x, move |u| s(u) >= v)?,
                "SMINI" => byte_map(b, x, move |u| s(u).min(v) as u8)?,
                "SMAXI" => byte_map(b, x, move |u| s(u).max(v) as u8)?,
                "SDIVI" => byte_map(b, x, move |u| sdiv(s(u), v) as u8)?,
                "SMODI" => byte_map(b, x, move |u| smod(s(u), v) as u8)?,
                _ => return Err(IsaError::UnknownInstruction(name.to_string())),
            }
        }
    };
    Ok(Value::Byte(out))
}

/// Signed division of the instruction set: truncating, `x / 0 = -1`, `-128 / -1 = -128`.
pub fn sdiv(x: i8, d: i8) -> i8 {
    if d == 0 {
        -1
    } else {
        x.wrapping_div(d)
    }
}

/// Signed remainder of the instruction set: sign of the dividend, `x % 0 = x`.
pub fn smod(x: i8, d: i8) -> i8 {
    if d == 0 {
        x
    } else {
        x.wrapping_rem(d)
    }
}

// ---------------------------------------------------------------------------------------
// Shared nibble helpers.

/// How an output nibble of a byte function depends on the input nibbles.
enum Dep {
    Const(u8),
    Hi([u8; 16]),
    Lo([u8; 16]),
    Both,
}

fn classify(f: &dyn Fn(u8) -> u8) -> Dep {
    let v = |h: u8, l: u8| f(16 * h + l) & 15;
    let only_hi = (0..16).all(|h| (0..16).all(|l| v(h, l) == v(h, 0)));
    let only_lo = (0..16).all(|l| (0..16).all(|h| v(h, l) == v(0, l)));
    if only_hi && only_lo {
        Dep::Const(v(0, 0))
    } else if only_hi {
        Dep::Hi(std::array::from_fn(|h| v(h as u8, 0)))
    } else if only_lo {
        Dep::Lo(std::array::from_fn(|l| v(0, l as u8)))
    } else {
        Dep::Both
    }
}

/// Several nibble-valued functions of one byte, each by the cheapest means: a constant, a
/// plain bootstrap of the nibble it depends on, or a tree LUT. All trees use the same first
/// selector (the low nibble when some output depends on it alone and none on the high one
/// alone, so that its plain bootstraps share the trees' first blind rotation: `MVLUTeval`).
pub(crate) fn byte_nibbles(
    b: &mut Builder,
    x: Byte,
    fs: &[&dyn Fn(u8) -> u8],
) -> Result<Vec<NodeId>, IsaError> {
    let deps: Vec<Dep> = fs.iter().map(|f| classify(*f)).collect();
    let any_hi = deps.iter().any(|d| matches!(d, Dep::Hi(_)));
    let any_lo = deps.iter().any(|d| matches!(d, Dep::Lo(_)));
    let lo_first = any_lo && !any_hi;
    let mut out = Vec::with_capacity(fs.len());
    for (f, d) in fs.iter().zip(&deps) {
        let node = match d {
            Dep::Const(c) => b.constant(*c as i64),
            Dep::Hi(t) => super::common::nibble_lut(b, x.hi, |h| t[h as usize]),
            Dep::Lo(t) => super::common::nibble_lut(b, x.lo, |l| t[l as usize]),
            Dep::Both if lo_first => tree(b, x.lo, x.hi, |l, h| f(16 * h + l))?,
            Dep::Both => tree(b, x.hi, x.lo, |h, l| f(16 * h + l))?,
        };
        out.push(node);
    }
    Ok(out)
}

/// A univariate byte function (Trama et al., eq. (1), with constant and single-nibble outputs
/// folded to constants and plain bootstraps).
pub(crate) fn byte_map(b: &mut Builder, x: Byte, f: impl Fn(u8) -> u8) -> Result<Byte, IsaError> {
    let hi = |v: u8| f(v) >> 4;
    let lo = |v: u8| f(v) & 15;
    let n = byte_nibbles(b, x, &[&hi, &lo])?;
    Ok(Byte { hi: n[0], lo: n[1] })
}

/// A byte predicate as a boolean byte (one `LUTeval`, or less).
pub(crate) fn pred_byte(
    b: &mut Builder,
    x: Byte,
    f: impl Fn(u8) -> bool,
) -> Result<Byte, IsaError> {
    let g = |v: u8| f(v) as u8;
    let n = byte_nibbles(b, x, &[&g])?;
    Ok(bool_byte(b, n[0]))
}

/// Adds two little-endian nibble vectors of equal length plus a carry in (0 or 1), modulo
/// `16^n`. `y`'s nibbles may be linear nodes (e.g. `15 - b` for subtraction) with values in
/// `0..16`, operand weights up to 4 (heavier results are refreshed).
///
/// A ripple of unit carries: level `i` reduces `s_i = x_i + y_i + c_i` mod 16 (one step
/// bootstrap) and reads `c_{i+1} = [s_i ≥ 16]` by one half-step bootstrap of the same sum.
/// `2n − 1` plain bootstraps, depth `n`, no tree.
pub(crate) fn add_nibbles(
    b: &mut Builder,
    x: &[NodeId],
    y: &[NodeId],
    carry_in: u8,
) -> Result<Vec<NodeId>, IsaError> {
    let n = x.len();
    if n == 0 || y.len() != n || carry_in > 1 {
        return Err(IsaError::BadOperands {
            name: "add".into(),
            message: "adder operands must have the same positive length".into(),
        });
    }
    // Ripple of unit carries: nibble i is `s_i = x_i + y_i + c_i` reduced mod 16 by one
    // step bootstrap, and `c_{i+1} = [s_i ≥ 16]` is one half-step bootstrap of the same
    // `s_i ∈ 0..32` (two plain bootstraps per level, no tree).
    let mut out = Vec::with_capacity(n);
    let mut carry: Option<NodeId> = None;
    for i in 0..n {
        let mut terms = vec![(x[i], 1), (y[i], 1)];
        if let Some(c) = carry {
            terms.push((c, 1));
        }
        let cst = if i == 0 { carry_in as i64 } else { 0 };
        let s = b.linear(&terms, cst);
        let r = mod16(b, s)?;
        out.push(refresh(b, r));
        if i + 1 < n {
            carry = Some(unit_flag(b, s)?);
        }
    }
    Ok(out)
}

/// `s mod 16` (any `s`) and the carry flag `2·[s mod 32 ≥ 16]` of a linear node, from the
/// negacyclic ±8 and ±1 steps of `s` (one blind rotation for both).
fn split16(b: &mut Builder, s: NodeId) -> Result<(NodeId, NodeId), IsaError> {
    Ok((mod16(b, s)?, flag(b, s, 1)?))
}

/// Columns `lo_col..=top` (the value `⌊P / 16^lo_col⌋ mod 16^(top+1-lo_col)`) of the product
/// `P` of two signed little-endian nibble vectors of length `n` (the top nibbles two's
/// complement, the others unsigned), `1 ≤ lo_col ≤ top < 2n`.
///
/// The product is `Σ x_i·y_j·16^(i+j)`. Level 1: every needed partial product by trees with
/// first selector `x_i`: its low nibble `L_ij` goes to column `i+j`, its high part `H_ij`
/// to column `i+j+1` (a signed high part is stored biased by 8, which keeps it in `0..=14`
/// and shares its table between columns; the biases sum to a constant of the top column).
/// Column 0 holds `L_00` alone, so it never carries and is skipped. Columns are then
/// reduced low to high: two terms at a time by one ±8/±1 step bootstrap (`s mod 16` stays,
/// the carry goes up as a `0/2` flag); the flags entering a column sum to a code read by
/// trees with the column's last nibble (result nibble, and the carry out as one more flag).
/// The top column is needed only mod 16: one step of its whole sum.
pub(crate) fn signed_product_columns(
    b: &mut Builder,
    xs: &[NodeId],
    ys: &[NodeId],
    lo_col: usize,
    top: usize,
) -> Result<Vec<NodeId>, IsaError> {
    let budget = super::common::budget_of(b)?;
    let n = xs.len();
    if n < 2 || ys.len() != n || lo_col < 1 || lo_col > top || top >= 2 * n {
        return Err(bad("product", "bad operand lengths or columns"));
    }
    let val = move |i: usize, v: u8| -> i64 {
        if i == n - 1 {
            (((v << 4) as i8) >> 4) as i64
        } else {
            v as i64
        }
    };
    let mut cols: Vec<Vec<(NodeId, i64)>> = vec![Vec::new(); top + 1];
    let mut bias = 0i64;
    for (i, &xi) in xs.iter().enumerate() {
        for (j, &yj) in ys.iter().enumerate() {
            let k = i + j;
            if (1..=top).contains(&k) {
                let node = tree(b, xi, yj, move |p, q| {
                    (val(i, p) * val(j, q)).rem_euclid(16) as u8
                })?;
                cols[k].push((node, 15));
            }
            if k < top {
                let signed = i == n - 1 || j == n - 1;
                let off = if signed { 8 } else { 0 };
                bias += off << (4 * (k + 1));
                let node = tree(b, xi, yj, move |p, q| {
                    ((val(i, p) * val(j, q)).div_euclid(16) + off).rem_euclid(16) as u8
                })?;
                cols[k + 1].push((node, 14));
            }
        }
    }
    let correction = (-bias).rem_euclid(1 << (4 * (top + 1)));
    if correction & ((1 << (4 * top)) - 1) != 0 {
        return Err(bad("product", "bias correction below the top column"));
    }
    let top_const = correction >> (4 * top);
    let mut flags: Vec<Vec<NodeId>> = vec![Vec::new(); top + 2];
    let mut out = Vec::with_capacity(top + 1 - lo_col);
    for k in 1..=top {
        let mut terms = std::mem::take(&mut cols[k]);
        let last = if k == top {
            let lin: Vec<(NodeId, i64)> = terms.iter().map(|t| (t.0, 1)).collect();
            let s = b.linear(&lin, top_const);
            if b.qweight(s) > budget {
                return Err(bad("product", "top column too heavy"));
            }
            split16(b, s)?.0
        } else {
            while terms.len() > 1 {
                terms.sort_by_key(|t| (b.depth(t.0), b.qweight(t.0)));
                let (mut p, pm) = terms.remove(0);
                let (mut q, qm) = terms.remove(0);
                if pm + qm > 31 {
                    return Err(bad("product", "column pair exceeds 31"));
                }
                if b.qweight(p) + b.qweight(q) > budget {
                    q = refresh(b, q);
                    if b.qweight(p) + b.qweight(q) > budget {
                        p = refresh(b, p);
                    }
                }
                let s = b.add(p, q);
                let (r, f) = split16(b, s)?;
                flags[k + 1].push(f);
                terms.push((r, 15));
            }
            terms[0].0
        };
        if k < lo_col {
            if !flags[k].is_empty() {
                // The carry out of a lower column must still go up.
                let lin: Vec<(NodeId, i64)> = flags[k].iter().map(|&f| (f, 1)).collect();
                let code = b.linear(&lin, 0);
                let c = tree(b, code, last, |h, l| 2 * ((l + h / 2) >> 4))?;
                flags[k + 1].push(c);
            }
            continue;
        }
        if flags[k].is_empty() {
            out.push(refresh(b, last));
            continue;
        }
        if flags[k].len() > 7 {
            return Err(bad("product", "carry code exceeds a nibble"));
        }
        let lin: Vec<(NodeId, i64)> = flags[k].iter().map(|&f| (f, 1)).collect();
        let code = b.linear(&lin, 0);
        out.push(tree(b, code, last, |h, l| l + h / 2)?);
        if k < top {
            let c = tree(b, code, last, |h, l| 2 * ((l + h / 2) >> 4))?;
            flags[k + 1].push(c);
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// Signed instructions.

/// NEG in two plain levels: `lo' = -lo mod 16`, `hi' = -(hi + [lo != 0]) mod 16` (the
/// argument is in `0..=16` and `16 ↦ 0` is negacyclic). 2 blind rotations, no keyswitch.
fn neg(b: &mut Builder, x: Byte) -> Result<Byte, IsaError> {
    let lo = super::common::nibble_lut(b, x.lo, |l| (16 - l) & 15);
    let nz = super::common::nibble_lut(b, x.lo, |l| (l != 0) as u8);
    let s = b.add(x.hi, nz);
    let hi = lut_on(b, s, 0..=16, |v| (16 - v) & 15)?;
    Ok(Byte { hi, lo })
}

/// Comparison code of signed bytes: `3·t + sign(x.lo - y.lo) + 1` in `0..=8`, where `t` is
/// 0, 1, 2 for the signed high nibbles less, equal, greater. `x < y` iff code < 4, equal
/// iff code == 4. Weight `9·2 + 1 = 19`.
fn scmp_code(b: &mut Builder, x: Byte, y: Byte) -> Result<NodeId, IsaError> {
    let sn = |v: u8| ((v << 4) as i8) >> 4;
    let t = tree(b, x.hi, y.hi, |p, q| match sn(p).cmp(&sn(q)) {
        std::cmp::Ordering::Less => 0,
        std::cmp::Ordering::Equal => 1,
        std::cmp::Ordering::Greater => 2,
    })?;
    let diff = b.linear(&[(x.lo, 1), (y.lo, -1)], 0);
    let s = sign_lut(b, diff)?;
    Ok(b.linear(&[(t, 3), (s, 1)], 1))
}

/// `take_x(code) ? x : y`, nibble-wise by trees on the code (one shared first rotation).
fn select_by_code(
    b: &mut Builder,
    code: NodeId,
    take_x: fn(u8) -> bool,
    x: Byte,
    y: Byte,
) -> Result<Byte, IsaError> {
    let pick = |b: &mut Builder, n: NodeId, when: bool| {
        tree(
            b,
            code,
            n,
            move |c, v| if take_x(c) == when { v } else { 0 },
        )
    };
    let xh = pick(b, x.hi, true)?;
    let xl = pick(b, x.lo, true)?;
    let yh = pick(b, y.hi, false)?;
    let yl = pick(b, y.lo, false)?;
    Ok(Byte {
        hi: b.add(xh, yh),
        lo: b.add(xl, yl),
    })
}

/// Arithmetic shift right by an immediate.
fn sshri(b: &mut Builder, x: Byte, k: u32) -> Result<Byte, IsaError> {
    let k = k.min(7);
    if k == 0 {
        return Ok(x);
    }
    if k < 4 {
        // lo' = (lo >> k) | (hi << (4 - k)) & 15: disjoint bits, so a sum of two plain LUTs.
        let a = super::common::nibble_lut(b, x.lo, |l| l >> k);
        let c = super::common::nibble_lut(b, x.hi, |h| (h << (4 - k)) & 15);
        let lo = b.add(a, c);
        let hi = super::common::nibble_lut(b, x.hi, |h| ((((h << 4) as i8) >> (4 + k)) as u8) & 15);
        return Ok(Byte { hi, lo });
    }
    byte_map(b, x, |v| ((v as i8) >> k) as u8)
}

/// Arithmetic shift right by an encrypted amount: `e = min(k, 8)` by one tree, then three
/// trees on `e` (one shared first rotation): the high nibble, and the low nibble as the sum
/// of its bits coming from `lo` and from `hi` (disjoint).
fn sshr(b: &mut Builder, x: Byte, k: Byte) -> Result<Byte, IsaError> {
    let e = tree(b, k.hi, k.lo, |h, l| {
        (16 * h as u16 + l as u16).min(8) as u8
    })?;
    let sn = |v: u8| ((v << 4) as i8) >> 4;
    let hi = tree(b, e, x.hi, move |e, h| ((sn(h) >> e.min(4)) as u8) & 15)?;
    let from_lo = tree(b, e, x.lo, |e, l| if e < 4 { l >> e } else { 0 })?;
    let from_hi = tree(b, e, x.hi, move |e, h| {
        if e < 4 {
            (h << (4 - e)) & 15
        } else {
            ((sn(h) >> (e - 4).min(4)) as u8) & 15
        }
    })?;
    Ok(Byte {
        hi,
        lo: b.add(from_lo, from_hi),
    })
}

/// High byte of the signed 16-bit product: columns 2 and 3 of the signed nibble product
/// (see [`signed_product_columns`]).
fn smulm(b: &mut Builder, x: Byte, y: Byte) -> Result<Byte, IsaError> {
    let r = signed_product_columns(b, &[x.lo, x.hi], &[y.lo, y.hi], 2, 3)?;
    Ok(Byte { hi: r[1], lo: r[0] })
}

/// SDIV / SMOD from the unsigned DIV / MOD of the magnitudes (`|-128| = 128` is exact as an
/// unsigned byte), then a conditional negation selected by trees on a sign code: the
/// quotient is negated iff the signs differ and the divisor is non-zero (so `x / 0` stays
/// 255 = -1), the remainder iff the dividend is negative (so `x % 0 = x`).
fn sdivmod(b: &mut Builder, name: &str, x: Byte, y: Byte) -> Result<Byte, IsaError> {
    let ax = byte_map(b, x, |v| (v as i8).wrapping_abs() as u8)?;
    let ay = byte_map(b, y, |v| (v as i8).wrapping_abs() as u8)?;
    let unsigned = if name == "SDIV" { "DIV" } else { "MOD" };
    let r = match super::emit(b, unsigned, &[Arg::Byte(ax), Arg::Byte(ay)])? {
        Value::Byte(r) => r,
        _ => return Err(bad(name, "unsigned division returned a non-byte")),
    };
    let r = super::common::refresh_byte(b, r);
    let nr = neg(b, r)?;
    let sx = super::common::nibble_lut(b, x.hi, |h| (h >= 8) as u8);
    if name == "SDIV" {
        // t: 0 if y == 0, 1 if y > 0, 2 if y < 0; code = t + 3 sx in 0..=5.
        let t = tree(b, y.hi, y.lo, |h, l| match (16 * h + l) as i8 {
            0 => 0,
            v if v > 0 => 1,
            _ => 2,
        })?;
        let code = b.linear(&[(t, 1), (sx, 3)], 0);
        select_by_code(b, code, |c| c == 2 || c == 4, nr, r)
    } else {
        select_by_code(b, sx, |c| c == 1, nr, r)
    }
}
