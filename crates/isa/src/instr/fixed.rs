//! Fixed-point instructions (Trama, Clet, Boudguiga and Sirdey, "Designing a
//! General-Purpose 8-bit (T)FHE Processor Abstraction", §5.2, §7.2).
//!
//! A [`Fixed`] is `int + frac / 256` with `int` a two's complement byte and `frac` an
//! unsigned byte: its raw value is the signed 16-bit integer `256·int + frac`. Arithmetic
//! wraps modulo 2^16 on raw values.

use encint_core::circuit::{Builder, NodeId};

use super::common::{const_byte, nibble_lut, pm_ge0_lut, tree};
use super::operands::{byte_arg, emit_listed, fixed_arg, imm_arg};
use super::signed::{add_nibbles, byte_nibbles, signed_product_columns};
use super::{Arg, Kind, Signature, Value};
use crate::{Byte, Fixed, IsaError};

const F: Kind = Kind::Fixed;

/// The instructions of this module.
#[rustfmt::skip]
pub const SIGNATURES: &[Signature] = &[
    Signature::new("FFROM", &[Kind::Byte], F,
        "fixed-point value of a signed byte (int = byte, frac = 0; free)"),
    Signature::new("FINT", &[F], Kind::Byte, "integer part (floor) of a fixed-point value (free)"),
    Signature::new("FADD", &[F, F], F, "fixed-point addition (wraps modulo 2^16 on raw values)"),
    Signature::new("FSUB", &[F, F], F, "fixed-point subtraction (wraps modulo 2^16 on raw values)"),
    Signature::new("FMULI", &[F, Kind::Imm], F,
        "product by a clear fixed-point constant given raw (imm/256, imm in -32768..=32767), floored to 1/256, wrapping"),
    Signature::new("FMUL", &[F, F], F,
        "fixed-point product of two encrypted values, floored to 1/256, wrapping (raw: floor(x·y / 256) mod 2^16)"),
    Signature::new("FDIVI", &[Kind::Byte, Kind::Imm], F,
        "decimal division of an unsigned byte by an immediate 1..=255: int = x/d, frac = floor(256 (x mod d) / d)"),
    Signature::new("FSIG", &[F], F, "sigmoid: 1.0 if v >= 6, else floor(256 σ(v)) / 256"),
    Signature::new("FHEAV", &[F], F, "Heaviside step: 1.0 if v >= 0 else 0.0"),
];

/// Records `name` if this module defines it.
pub fn emit(b: &mut Builder, name: &str, args: &[Arg]) -> Option<Result<Value, IsaError>> {
    emit_listed(b, SIGNATURES, name, args, emit_known)
}

fn emit_known(b: &mut Builder, sig: &Signature, args: &[Arg]) -> Result<Value, IsaError> {
    let name = sig.name;
    Ok(match name {
        "FFROM" => {
            let x = byte_arg(name, args, 0)?;
            Value::Fixed(Fixed {
                int: x,
                frac: const_byte(b, 0),
            })
        }
        "FINT" => Value::Byte(fixed_arg(name, args, 0)?.int),
        "FADD" | "FSUB" => {
            let x = nibbles(fixed_arg(name, args, 0)?);
            let y = nibbles(fixed_arg(name, args, 1)?);
            let r = if name == "FADD" {
                add_nibbles(b, &x, &y, 0)?
            } else {
                let ny: Vec<NodeId> = y.iter().map(|&n| b.linear(&[(n, -1)], 15)).collect();
                add_nibbles(b, &x, &ny, 1)?
            };
            Value::Fixed(from_nibbles(&r))
        }
        "FMULI" => {
            let x = fixed_arg(name, args, 0)?;
            let c = imm_arg(name, args, 1, -32768, 32767)?;
            Value::Fixed(fmuli(b, x, c)?)
        }
        "FMUL" => Value::Fixed(fmul(
            b,
            fixed_arg(name, args, 0)?,
            fixed_arg(name, args, 1)?,
        )?),
        "FDIVI" => {
            let x = byte_arg(name, args, 0)?;
            let d = imm_arg(name, args, 1, 1, 255)? as u16;
            let int = |v: u8| v / d as u8;
            let frac = |v: u8| ((256 * (v as u16 % d)) / d) as u8;
            let fs: [&dyn Fn(u8) -> u8; 4] = [
                &|v| int(v) >> 4,
                &|v| int(v) & 15,
                &|v| frac(v) >> 4,
                &|v| frac(v) & 15,
            ];
            let n = byte_nibbles(b, x, &fs)?;
            Value::Fixed(Fixed {
                int: Byte { hi: n[0], lo: n[1] },
                frac: Byte { hi: n[2], lo: n[3] },
            })
        }
        "FSIG" => Value::Fixed(fsig(b, fixed_arg(name, args, 0)?)?),
        "FHEAV" => {
            let x = fixed_arg(name, args, 0)?;
            let bit = nibble_lut(b, x.int.hi, |h| (h < 8) as u8);
            let zero = b.constant(0);
            Value::Fixed(Fixed {
                int: Byte { hi: zero, lo: bit },
                frac: Byte { hi: zero, lo: zero },
            })
        }
        _ => return Err(IsaError::UnknownInstruction(name.to_string())),
    })
}

/// Little-endian nibbles of a fixed-point value.
fn nibbles(x: Fixed) -> [NodeId; 4] {
    [x.frac.lo, x.frac.hi, x.int.lo, x.int.hi]
}

fn from_nibbles(r: &[NodeId]) -> Fixed {
    Fixed {
        int: Byte { hi: r[3], lo: r[2] },
        frac: Byte { hi: r[1], lo: r[0] },
    }
}

/// `⌊raw · c / 256⌋ mod 2^16` = `int·c + ⌊frac·c / 256⌋`: each term a univariate function of
/// one byte (4 output nibbles sharing one first rotation), then one 16-bit addition.
fn fmuli(b: &mut Builder, x: Fixed, c: i64) -> Result<Fixed, IsaError> {
    let from_int = move |v: u8| ((v as i8 as i64) * c) as u16;
    let from_frac = move |v: u8| ((v as i64) * c).div_euclid(256) as u16;
    let mut parts = Vec::with_capacity(2);
    for (byte, f) in [
        (x.int, &from_int as &dyn Fn(u8) -> u16),
        (x.frac, &from_frac as &dyn Fn(u8) -> u16),
    ] {
        let g0 = |v: u8| (f(v) & 15) as u8;
        let g1 = |v: u8| ((f(v) >> 4) & 15) as u8;
        let g2 = |v: u8| ((f(v) >> 8) & 15) as u8;
        let g3 = |v: u8| ((f(v) >> 12) & 15) as u8;
        parts.push(byte_nibbles(b, byte, &[&g0, &g1, &g2, &g3])?);
    }
    let r = add_nibbles(b, &parts[0], &parts[1], 0)?;
    Ok(from_nibbles(&r))
}

/// FMUL: `⌊x·y / 256⌋ mod 2^16` on raw signed 16-bit values, i.e. columns 2..=5 of the
/// signed nibble product (see [`signed_product_columns`]).
fn fmul(b: &mut Builder, x: Fixed, y: Fixed) -> Result<Fixed, IsaError> {
    let r = signed_product_columns(b, &nibbles(x), &nibbles(y), 2, 5)?;
    Ok(from_nibbles(&r))
}

/// The sigmoid of the instruction set on a raw signed 16-bit value: `256` (1.0) when
/// `raw / 256 ≥ 6`, else `⌊256 · σ(raw / 256)⌋` computed in `f64` (`σ(t) = 1 / (1 + e^-t)`).
pub fn sigmoid_raw(raw: i16) -> u16 {
    let v = raw as f64 / 256.0;
    if v >= 6.0 {
        256
    } else {
        (256.0 / (1.0 + (-v).exp())).floor() as u16
    }
}

/// FSIG. `κ = int + 6` for `int ∈ -6..=5`, else 12 (saturated: frac 0), and the integer
/// bit `[v ≥ 6]`, by two trees on the integer byte. Each cell `(κ, frac.hi)` covers 16
/// consecutive raw values on which the result is `A + δ(frac.lo)`, `δ` a staircase of at
/// most four steps: trees on `(κ, frac.hi)` give the base byte `A` and the step positions
/// `τ_k`, one sign bootstrap per step gives `±1 = sign(frac.lo - τ_k)`, and two trees on
/// `(Σ ±1 + 4 = 2δ, A.lo)` add `δ` to `A`.
fn fsig(b: &mut Builder, x: Fixed) -> Result<Fixed, IsaError> {
    let int_of = |h: u8, l: u8| (16 * h + l) as i8 as i64;
    let kappa = tree(b, x.int.hi, x.int.lo, |h, l| {
        let i = int_of(h, l);
        if (-6..=5).contains(&i) {
            (i + 6) as u8
        } else {
            12
        }
    })?;
    let one = tree(b, x.int.hi, x.int.lo, |h, l| (int_of(h, l) >= 6) as u8)?;
    // Per cell: base, and thresholds.
    let cell = |k: u8, fh: u8| -> (u16, [u8; 16]) {
        if k >= 12 {
            return (0, [0; 16]);
        }
        let raw0 = (k as i64 - 6) * 256 + 16 * fh as i64;
        let base = sigmoid_raw(raw0 as i16);
        let d = std::array::from_fn(|fl| (sigmoid_raw((raw0 + fl as i64) as i16) - base) as u8);
        (base, d)
    };
    let mut max_delta = 0u8;
    for k in 0..13 {
        for fh in 0..16 {
            let (base, d) = cell(k, fh);
            if base > 255 || d.windows(2).any(|w| w[1] < w[0]) {
                return Err(IsaError::BadOperands {
                    name: "FSIG".into(),
                    message: "sigmoid table is not a monotone staircase".into(),
                });
            }
            max_delta = max_delta.max(d[15]);
        }
    }
    let a_hi = tree(b, kappa, x.frac.hi, |k, fh| (cell(k, fh).0 >> 4) as u8)?;
    let a_lo = tree(b, kappa, x.frac.hi, |k, fh| (cell(k, fh).0 & 15) as u8)?;
    let mut terms = Vec::new();
    for step in 1..=max_delta {
        // τ - 1 in 0..=15 (τ = 16: no step).
        let tau = tree(b, kappa, x.frac.hi, move |k, fh| {
            let d = cell(k, fh).1;
            let t = d.iter().position(|&v| v >= step).unwrap_or(16);
            (t - 1) as u8
        })?;
        let diff = b.linear(&[(x.frac.lo, 1), (tau, -1)], -1);
        terms.push((pm_ge0_lut(b, diff)?, 1));
    }
    let two_delta = b.linear(&terms, max_delta as i64);
    let lo = tree(b, two_delta, a_lo, |t, a| a + t / 2)?;
    let carry = tree(b, two_delta, a_lo, |t, a| (a + t / 2) >> 4)?;
    let hi = b.add(a_hi, carry);
    let zero = b.constant(0);
    Ok(Fixed {
        int: Byte { hi: zero, lo: one },
        frac: Byte { hi, lo },
    })
}
