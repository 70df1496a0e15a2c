//! Bit decomposition and recomposition (Trama, Clet, Boudguiga and Sirdey, "Designing a
//! General-Purpose 8-bit (T)FHE Processor Abstraction", §5.4), and bitwise operations on
//! bits.
//!
//! Bits stay in the nibble message space (each is a digit holding 0 or 1), so that
//! recomposition is a weighted sum.

use encint_core::circuit::{Builder, NodeId};

use super::common::{lut_on, nibble_lut};
use super::operands::{bad, byte_arg, emit_listed};
use super::{Arg, Kind, Signature, Value, MAX_OPERAND_QWEIGHT};
use crate::{Byte, IsaError};

/// The instructions of this module.
#[rustfmt::skip]
pub const SIGNATURES: &[Signature] = &[
    Signature::new("BITS", &[Kind::Byte], Kind::Bits,
        "byte to 8 bits, least significant first (4 tables per nibble, one rotation each)"),
    Signature::new("UNBITS", &[Kind::Bits], Kind::Byte,
        "8 bits (least significant first) to a byte"),
    Signature::new("BNOT", &[Kind::Bits], Kind::Bits, "bitwise not of bits (free)"),
    Signature::new("BAND", &[Kind::Bits, Kind::Bits], Kind::Bits,
        "bitwise and of bits (one bootstrap per bit)"),
    Signature::new("BOR", &[Kind::Bits, Kind::Bits], Kind::Bits,
        "bitwise or of bits (one bootstrap per bit)"),
    Signature::new("BXOR", &[Kind::Bits, Kind::Bits], Kind::Bits,
        "bitwise xor of bits (one bootstrap per bit)"),
];

/// Records `name` if this module defines it.
pub fn emit(b: &mut Builder, name: &str, args: &[Arg]) -> Option<Result<Value, IsaError>> {
    emit_listed(b, SIGNATURES, name, args, emit_known)
}

fn bits_arg(name: &str, args: &[Arg], i: usize) -> Result<Vec<NodeId>, IsaError> {
    match args.get(i) {
        Some(Arg::Bits(v)) if v.len() == 8 => Ok(v.clone()),
        Some(Arg::Bits(v)) => Err(bad(name, format!("expected 8 bits, got {}", v.len()))),
        _ => Err(bad(name, format!("operand {} must be bits", i + 1))),
    }
}

fn emit_known(b: &mut Builder, sig: &Signature, args: &[Arg]) -> Result<Value, IsaError> {
    let name = sig.name;
    match name {
        "BITS" => Ok(Value::Bits(bits(b, byte_arg(name, args, 0)?))),
        "UNBITS" => Ok(Value::Byte(unbits(b, &bits_arg(name, args, 0)?)?)),
        "BNOT" => {
            let x = bits_arg(name, args, 0)?;
            Ok(Value::Bits(
                x.iter().map(|&c| b.linear(&[(c, -1)], 1)).collect(),
            ))
        }
        _ => {
            let x = bits_arg(name, args, 0)?;
            let y = bits_arg(name, args, 1)?;
            let f: fn(i64) -> i64 = match name {
                "BAND" => |s| (s == 2) as i64,
                "BOR" => |s| (s >= 1) as i64,
                _ => |s| (s == 1) as i64,
            };
            let mut out = Vec::with_capacity(8);
            for (&p, &q) in x.iter().zip(&y) {
                let s = b.add(p, q);
                out.push(lut_on(b, s, 0..=2, f)?);
            }
            Ok(Value::Bits(out))
        }
    }
}

/// BITS: four tables on each nibble (one shared blind rotation per nibble).
pub fn bits(b: &mut Builder, x: Byte) -> Vec<NodeId> {
    let mut out = Vec::with_capacity(8);
    for n in [x.lo, x.hi] {
        for k in 0..4 {
            out.push(nibble_lut(b, n, move |v| (v >> k) & 1));
        }
    }
    out
}

/// One nibble `c0 + 2 c1 + 4 c2 + 8 c3` from four bits (values 0/1).
///
/// When the bits are fresh enough, `2 c1 + 4 c2 + 8 c3` is one bootstrap of
/// `c1 + 2 c2 + 4 c3` (weight `q1 + 4 q2 + 16 q3` within the budget) and `c0` is added for free;
/// otherwise each bit is scaled by its own bootstrap (Trama et al. §5.4), and the sum of four
/// fresh outputs has weight 4.
fn unbits_nibble(b: &mut Builder, c: &[NodeId]) -> Result<NodeId, IsaError> {
    let upper = b.linear(&[(c[1], 1), (c[2], 2), (c[3], 4)], 0);
    let c0_ok = b.qweight(c[0]) < MAX_OPERAND_QWEIGHT;
    if b.qweight(upper) <= super::common::budget_of(b)? && c0_ok {
        let scaled = lut_on(b, upper, 0..=7, |v| 2 * v)?;
        return Ok(b.add(c[0], scaled));
    }
    let mut terms = Vec::with_capacity(4);
    for (k, &ck) in c.iter().enumerate() {
        let t = if k == 0 && b.qweight(ck) <= 1 {
            ck
        } else {
            lut_on(b, ck, 0..=1, move |v| v << k)?
        };
        terms.push((t, 1));
    }
    Ok(b.linear(&terms, 0))
}

/// UNBITS: recomposition of 8 bits (least significant first) into a byte.
pub fn unbits(b: &mut Builder, c: &[NodeId]) -> Result<Byte, IsaError> {
    if c.len() != 8 {
        return Err(bad("UNBITS", "expected 8 bits"));
    }
    let lo = unbits_nibble(b, &c[0..4])?;
    let hi = unbits_nibble(b, &c[4..8])?;
    Ok(Byte { hi, lo })
}
