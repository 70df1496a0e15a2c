//! The Bits and Magic algorithms: operands converted to two's-complement bits, the
//! operation built as a boolean circuit ([`crate::bits`]) and lowered to digits.

use encint_core::bits::{lower_into, Bit, BitBuilder};
use encint_core::circuit::{Builder, NodeId};

use super::forms::{condition_bit, to_bits, Form};
use super::operands::Operands;
use super::types::{Algorithm, IntOp, IntType, TypedError};
use crate::bits::{self as ops, Word};
use crate::SInt;

pub(super) fn build_bits(
    b: &mut Builder,
    operands: Operands,
    algorithm: Algorithm,
) -> Result<SInt, TypedError> {
    let Operands { op, ty, x, forms } = operands;
    let n = ty.bits;
    let magic = algorithm == Algorithm::Magic;
    if magic && !matches!(op, IntOp::DivScalar(_) | IntOp::RemScalar(_)) {
        return Err(TypedError::Unsupported(op, algorithm));
    }
    let mut bb = BitBuilder::new();
    // Bit inputs: every operand converted to n bits (the select condition to 1 bit).
    let mut digit_bits: Vec<NodeId> = Vec::new();
    let words: Vec<Word> = x
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (w, signed) = if op == IntOp::Select && i == 0 {
                (1, false)
            } else {
                (n, ty.signed)
            };
            if op == IntOp::Select && i == 0 && forms[i] == Form::Radix4 {
                digit_bits.push(condition_bit(b, s, forms[i]));
            } else {
                digit_bits.extend(to_bits(b, s, w, signed, forms[i]));
            }
            Word::input(&mut bb, w)
        })
        .collect();
    let signed = ty.signed;
    let word = |v: Vec<Bit>| Word { bits: v };
    let scalar = |bb: &mut BitBuilder, k: i128| Word::constant(bb, k as u128, n);
    let out_signed = op.result_type(ty).signed;
    let out: Word = match op {
        IntOp::WrappingAdd => ops::add(&mut bb, &words[0], &words[1]),
        IntOp::WrappingSub => ops::sub(&mut bb, &words[0], &words[1]),
        IntOp::WrappingNeg => ops::neg(&mut bb, &words[0]),
        IntOp::WrappingMul => ops::mul(&mut bb, &words[0], &words[1]),
        IntOp::WrappingSquare => ops::mul(&mut bb, &words[0], &words[0]),
        IntOp::WrappingScalarMul(k) => {
            // Columns of the shifted copies of a for the set bits of k mod 2^n, reduced
            // by counters.
            let ku = IntType {
                bits: n,
                signed: false,
            }
            .wrap(k) as u128;
            let mut cols: Vec<Vec<Bit>> = vec![Vec::new(); n];
            for s in (0..n).filter(|&s| s < 128 && (ku >> s) & 1 == 1) {
                for (j, &bit) in words[0].bits.iter().enumerate() {
                    if s + j < n {
                        cols[s + j].push(bit);
                    }
                }
            }
            ops::sum_columns(&mut bb, cols, n)
        }
        IntOp::And => ops::and(&mut bb, &words[0], &words[1]),
        IntOp::Or => ops::or(&mut bb, &words[0], &words[1]),
        IntOp::Xor => ops::xor(&mut bb, &words[0], &words[1]),
        IntOp::Not => ops::not(&mut bb, &words[0]),
        IntOp::Shl(k) => ops::shl(&mut bb, &words[0], k as usize),
        IntOp::Shr(k) if signed => ops::sar(&mut bb, &words[0], k as usize),
        IntOp::Shr(k) => ops::shr(&mut bb, &words[0], k as usize),
        IntOp::Rotl(k) => ops::rotl(&words[0], k as usize),
        IntOp::Rotr(k) => ops::rotr(&words[0], k as usize),
        IntOp::ShlVar => ops::shl_var(&mut bb, &words[0], &words[1]),
        IntOp::ShrVar if signed => ops::sar_var(&mut bb, &words[0], &words[1]),
        IntOp::ShrVar => ops::shr_var(&mut bb, &words[0], &words[1]),
        IntOp::RotlVar => ops::rotl_var(&mut bb, &words[0], &words[1]),
        IntOp::RotrVar => ops::rotr_var(&mut bb, &words[0], &words[1]),
        IntOp::Select => ops::select(&mut bb, words[0].bits[0], &words[1], &words[2]),
        IntOp::Min | IntOp::Max => {
            let ge = if signed {
                ops::ge_signed(&mut bb, &words[0], &words[1])
            } else {
                ops::ge_unsigned(&mut bb, &words[0], &words[1])
            };
            if op == IntOp::Max {
                ops::select(&mut bb, ge, &words[0], &words[1])
            } else {
                ops::select(&mut bb, ge, &words[1], &words[0])
            }
        }
        IntOp::Lt | IntOp::Ge | IntOp::Gt | IntOp::Le => {
            // a < b and a >= b compare (a, b); a > b and a <= b compare (b, a).
            let (p, q) = match op {
                IntOp::Lt | IntOp::Ge => (&words[0], &words[1]),
                _ => (&words[1], &words[0]),
            };
            let ge = if signed {
                ops::ge_signed(&mut bb, p, q)
            } else {
                ops::ge_unsigned(&mut bb, p, q)
            };
            let r = if matches!(op, IntOp::Ge | IntOp::Le) {
                ge
            } else {
                bb.not(ge)
            };
            word(vec![r])
        }
        IntOp::Eq | IntOp::Ne => {
            let e = ops::eq(&mut bb, &words[0], &words[1]);
            word(vec![if op == IntOp::Eq { e } else { bb.not(e) }])
        }
        IntOp::DivScalar(k) | IntOp::RemScalar(k) if magic => {
            let want_q = matches!(op, IntOp::DivScalar(_));
            let (q, r) = ops::div_rem_const(&mut bb, &words[0], k, signed, want_q, !want_q)
                .ok_or(TypedError::Unsupported(op, algorithm))?;
            q.or(r).expect("the requested result is built")
        }
        IntOp::Div | IntOp::Rem | IntOp::DivScalar(_) | IntOp::RemScalar(_) => {
            let d = match op {
                IntOp::DivScalar(k) | IntOp::RemScalar(k) => scalar(&mut bb, k),
                _ => words[1].clone(),
            };
            let (q, r) = if signed {
                ops::div_rem_signed(&mut bb, &words[0], &d)
            } else {
                ops::div_rem_unsigned(&mut bb, &words[0], &d)
            };
            if matches!(op, IntOp::Div | IntOp::DivScalar(_)) {
                q
            } else {
                r
            }
        }
        IntOp::Cast(to) => words[0].resize(&mut bb, to.bits, signed),
    };
    let circuit = bb.finish(out.bits.clone());
    let lowered = lower_into(b, &circuit, &digit_bits).expect("input count matches");
    Ok(SInt {
        digits: encint_core::bits::bits_to_signed_digits(b, &lowered, out_signed),
    })
}
