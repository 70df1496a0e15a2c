//! The Bits and Magic algorithms: operands converted to two's-complement bits, the
//! operation built as a boolean circuit ([`crate::bits`]) and lowered to digits.

use encint_core::bits::{lower_into, Bit, BitBuilder};
use encint_core::circuit::{Builder, NodeId};

use super::forms::{condition_bit, to_bits, Form};
use super::operands::Operands;
use crate::bits::{self as ops, Word};
use crate::op::{Algorithm, IntType, Op, TypedError};
use crate::SInt;

pub(super) fn build_bits(
    b: &mut Builder,
    operands: Operands,
    algorithm: Algorithm,
) -> Result<SInt, TypedError> {
    let Operands { op, ty, x, forms } = operands;
    let n = ty.bits;
    let magic = algorithm == Algorithm::Magic;
    if magic && !matches!(op, Op::DivScalar(_) | Op::RemScalar(_)) {
        return Err(TypedError::Unsupported(op, algorithm));
    }
    let mut bb = BitBuilder::new();
    // Bit inputs: every operand converted to n bits (the select condition to 1 bit).
    let mut inputs = BitInputs::default();
    let words: Vec<Word> = x
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (w, signed) = if op == Op::Select && i == 0 {
                (1, false)
            } else {
                (n, ty.signed)
            };
            let bits = if op == Op::Select && i == 0 && forms[i] == Form::Radix4 {
                vec![condition_bit(b, s, forms[i])]
            } else {
                to_bits(b, s, w, signed, forms[i])
            };
            inputs.word(b, &mut bb, &bits)
        })
        .collect();
    let digit_bits = inputs.nodes;
    let signed = ty.signed;
    let word = |v: Vec<Bit>| Word { bits: v };
    let scalar = |bb: &mut BitBuilder, k: i128| Word::constant(bb, k as u128, n);
    let out_signed = op.result_type(ty).signed;
    let out: Word = match op {
        Op::Add => ops::add(&mut bb, &words[0], &words[1]),
        Op::Sub => ops::sub(&mut bb, &words[0], &words[1]),
        Op::Neg => ops::neg(&mut bb, &words[0]),
        Op::Mul => ops::mul(&mut bb, &words[0], &words[1]),
        Op::Square => ops::mul(&mut bb, &words[0], &words[0]),
        Op::ScalarMul(k) => {
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
        Op::And => ops::and(&mut bb, &words[0], &words[1]),
        Op::Or => ops::or(&mut bb, &words[0], &words[1]),
        Op::Xor => ops::xor(&mut bb, &words[0], &words[1]),
        Op::Not => ops::not(&mut bb, &words[0]),
        Op::Shl(k) => ops::shl(&mut bb, &words[0], k as usize),
        Op::Shr(k) if signed => ops::sar(&mut bb, &words[0], k as usize),
        Op::Shr(k) => ops::shr(&mut bb, &words[0], k as usize),
        Op::Rotl(k) => ops::rotl(&words[0], k as usize),
        Op::Rotr(k) => ops::rotr(&words[0], k as usize),
        Op::ShlVar => ops::shl_var(&mut bb, &words[0], &words[1]),
        Op::ShrVar if signed => ops::sar_var(&mut bb, &words[0], &words[1]),
        Op::ShrVar => ops::shr_var(&mut bb, &words[0], &words[1]),
        Op::RotlVar => ops::rotl_var(&mut bb, &words[0], &words[1]),
        Op::RotrVar => ops::rotr_var(&mut bb, &words[0], &words[1]),
        Op::Select => ops::select(&mut bb, words[0].bits[0], &words[1], &words[2]),
        Op::Min | Op::Max => {
            let ge = if signed {
                ops::ge_signed(&mut bb, &words[0], &words[1])
            } else {
                ops::ge_unsigned(&mut bb, &words[0], &words[1])
            };
            if op == Op::Max {
                ops::select(&mut bb, ge, &words[0], &words[1])
            } else {
                ops::select(&mut bb, ge, &words[1], &words[0])
            }
        }
        Op::LT | Op::GE | Op::GT | Op::LE => {
            // a < b and a >= b compare (a, b); a > b and a <= b compare (b, a).
            let (p, q) = match op {
                Op::LT | Op::GE => (&words[0], &words[1]),
                _ => (&words[1], &words[0]),
            };
            let ge = if signed {
                ops::ge_signed(&mut bb, p, q)
            } else {
                ops::ge_unsigned(&mut bb, p, q)
            };
            let r = if matches!(op, Op::GE | Op::LE) {
                ge
            } else {
                bb.not(ge)
            };
            word(vec![r])
        }
        Op::EQ | Op::NE => {
            let e = ops::eq(&mut bb, &words[0], &words[1]);
            word(vec![if op == Op::EQ { e } else { bb.not(e) }])
        }
        Op::DivScalar(k) | Op::RemScalar(k) if magic => {
            let want_q = matches!(op, Op::DivScalar(_));
            let (q, r) = ops::div_rem_const(&mut bb, &words[0], k, signed, want_q, !want_q)
                .ok_or(TypedError::Unsupported(op, algorithm))?;
            q.or(r).expect("the requested result is built")
        }
        Op::Div | Op::Rem | Op::DivScalar(_) | Op::RemScalar(_) => {
            let d = match op {
                Op::DivScalar(k) | Op::RemScalar(k) => scalar(&mut bb, k),
                _ => words[1].clone(),
            };
            let (q, r) = if signed {
                ops::div_rem_signed(&mut bb, &words[0], &d)
            } else {
                ops::div_rem_unsigned(&mut bb, &words[0], &d)
            };
            if matches!(op, Op::Div | Op::DivScalar(_)) {
                q
            } else {
                r
            }
        }
        Op::Cast(to) => words[0].resize(&mut bb, to.bits, signed),
        Op::ReverseBits => ops::reverse_bits(&words[0]),
        Op::CountOnes
        | Op::CountZeros
        | Op::LeadingZeros
        | Op::LeadingOnes
        | Op::TrailingZeros
        | Op::TrailingOnes
        | Op::Ilog2 => {
            let w = op.result_type(ty).bits;
            // The counts of ones are those of zeros of the complement (free).
            let x = match op {
                Op::CountZeros | Op::LeadingOnes | Op::TrailingOnes => ops::not(&mut bb, &words[0]),
                _ => words[0].clone(),
            };
            match op {
                Op::CountOnes | Op::CountZeros => ops::count_ones(&mut bb, &x, w),
                Op::LeadingZeros | Op::LeadingOnes => ops::leading_zeros(&mut bb, &x, w),
                Op::TrailingZeros | Op::TrailingOnes => ops::trailing_zeros(&mut bb, &x, w),
                _ => ops::highest_one(&mut bb, &x, w),
            }
        }
        Op::MulLow | Op::FloorDiv | Op::Mod | Op::Abs | Op::Signum | Op::Round(_) => {
            return Err(TypedError::NotAnOperation {
                op,
                on: "typed integers",
            })
        }
    };
    let circuit = bb.finish(out.bits.clone());
    let lowered = lower_into(b, &circuit, &digit_bits).expect("input count matches");
    Ok(SInt {
        digits: encint_core::bits::bits_to_signed_digits(b, &lowered, out_signed),
    })
}

/// The digit nodes behind a boolean circuit's inputs: a bit known when the circuit is
/// built (a constant operand, a shift's or a cast's zero bits) becomes a constant of the
/// boolean circuit, and a node met twice (`x ^ (x >> k)`, `x & x`) one input, so that the
/// gates on them fold.
#[derive(Default)]
struct BitInputs {
    nodes: Vec<NodeId>,
    seen: std::collections::HashMap<NodeId, Bit>,
}

impl BitInputs {
    /// `bits` (digit nodes each holding 0 or 1) as a word of `bb`.
    fn word(&mut self, b: &Builder, bb: &mut BitBuilder, bits: &[NodeId]) -> Word {
        let bits = bits
            .iter()
            .map(|&d| match b.const_value(d) {
                Some(v @ (0 | 1)) => bb.constant(v == 1),
                _ => *self.seen.entry(d).or_insert_with(|| {
                    self.nodes.push(d);
                    bb.input()
                }),
            })
            .collect();
        Word { bits }
    }
}
