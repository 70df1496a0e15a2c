//! Unsigned instructions (Trama, Clet, Boudguiga and Sirdey, "Designing a General-Purpose
//! 8-bit (T)FHE Processor Abstraction", §4.3, §4.4): arithmetic mod 256, bitwise
//! operations, shifts and rotations, comparisons, conditional assignments and user tables.
//!
//! Besides the paper's patterns (`SimpleBoot`, `LUTeval`, `MVLUTeval`), the circuits use
//! cheap tricks of the 5-bit digit space `Z_32`: the step tables of [`super::common`]
//! reduce nibble sums mod 16 and flag their carries; the sign `σ = sign(a − b) ∈ {−1, 0, 1}`
//! of two nibbles is negacyclic on `[−15, 15]`, so a byte comparison is
//! `t = 2σ_h + σ_l ∈ [−3, 3]` after one level; and a tree LUT's first selector may be any
//! small linear combination in `0..16` (carry flags, comparison results), which saves a
//! bootstrap. Univariate instructions and immediates go through the planner of
//! [`univariate`].

use encint_core::circuit::Builder;

use super::common::refresh_byte;
use super::operands::{bad, emit_listed};
use super::{Arg, Kind, Signature, Value};
use crate::{Byte, IsaError};

mod arith;
mod divide;
mod planner;
mod select;
mod shift;

use arith::{add, bitwise, mul, mulm, sub};
use divide::{div4, divmod, mod4};
pub use planner::univariate;
use select::{cdup, compare, cond_imm, csel, minmax};
use shift::{rotate, shift};

const B2: &[Kind] = &[Kind::Byte, Kind::Byte];
const B3: &[Kind] = &[Kind::Byte, Kind::Byte, Kind::Byte];
const BI: &[Kind] = &[Kind::Byte, Kind::Imm];
const BII: &[Kind] = &[Kind::Byte, Kind::Imm, Kind::Imm];
const BT: &[Kind] = &[Kind::Byte, Kind::Table];

/// A signature with a byte result.
const fn sig(name: &'static str, args: &'static [Kind], doc: &'static str) -> Signature {
    Signature::new(name, args, Kind::Byte, doc)
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
    emit_listed(b, SIGNATURES, &upper, args, |b, sig, args| {
        emit_checked(b, sig, args).map(Value::Byte)
    })
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
