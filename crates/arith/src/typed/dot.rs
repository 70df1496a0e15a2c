//! Sums of products of typed values in one block circuit: every product's block digits
//! join the same columns, reduced once (instead of one product circuit per pair and an
//! addition tree over them).

use encint_core::bits::bits_to_signed_digits;
use encint_core::circuit::Builder;

use super::forms::{to_bits, Form};
use crate::op::IntType;
use crate::{Arith, SInt};

/// `Σ xᵢ·yᵢ` modulo `2^n` over values of `ty` (each with its form), as canonical digits:
/// the two's-complement bits of every operand (free for canonical operands), then one
/// block circuit ([`crate::blocks::sum_products`]) over all the pairs. `None` if the lists
/// differ in length.
pub fn dot(
    ar: &Arith,
    b: &mut Builder,
    ty: IntType,
    xs: &[(&SInt, Form)],
    ys: &[(&SInt, Form)],
) -> Option<SInt> {
    if xs.len() != ys.len() {
        return None;
    }
    let n = ty.bits;
    let mut bits = |v: &[(&SInt, Form)]| -> Vec<Vec<_>> {
        v.iter()
            .map(|&(s, f)| to_bits(b, s, n, ty.signed, f))
            .collect()
    };
    let (xb, yb) = (bits(xs), bits(ys));
    let pairs: Vec<(&[_], &[_])> = xb
        .iter()
        .zip(&yb)
        .map(|(x, y)| (x.as_slice(), y.as_slice()))
        .collect();
    let out = crate::blocks::sum_products(b, &pairs, &[], n, ar.config().max_qweight);
    Some(SInt {
        digits: bits_to_signed_digits(b, &out, ty.signed),
    })
}
