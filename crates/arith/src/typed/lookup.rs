//! A clear table of matches on a typed value ([`match_value`]).

use encint_core::circuit::Builder;

use super::forms::{to_blocks, Form};
use crate::op::IntType;
use crate::SInt;

/// The table's output for `x` (a value of `ty` in `form`) as a value of `out` in radix-4
/// form, and a canonical bit that it matched (TFHE-rs' `match_value`): `pairs` are
/// (input, output) values (inputs distinct values of `ty`, outputs values of `out`),
/// `default` the output where none matches. See [`crate::blocks::match_blocks`].
///
/// ```
/// use encint_arith::typed::{match_value, Form, IntType};
/// use encint_arith::SInt;
/// use encint_core::{circuit::Builder, clear};
/// let (i8t, u8t) = (IntType::new(8, true).unwrap(), IntType::new(8, false).unwrap());
/// let mut b = Builder::new();
/// let x = SInt::input(&mut b, 4);
/// let (y, found) = match_value(&mut b, &x, i8t, Form::Radix4, &[(-1, 255), (5, 6)], 0, u8t, 25);
/// let c = b.finish([y.digits, found.digits].concat());
/// let (out, _) = clear::run(&c, &Form::Radix4.encode(i8t, -1)).unwrap();
/// assert_eq!(Form::Radix4.value(u8t, &out[..4]), Some(255));
/// assert_eq!(out[4], 1);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn match_value(
    b: &mut Builder,
    x: &SInt,
    ty: IntType,
    form: Form,
    pairs: &[(i128, i128)],
    default: i128,
    out: IntType,
    budget: u64,
) -> (SInt, SInt) {
    let blocks = to_blocks(b, x, ty, form);
    let patterns: Vec<(u128, u128)> = pairs.iter().map(|&(i, o)| (i as u128, o as u128)).collect();
    let (digits, found) = crate::blocks::match_blocks(
        b,
        &blocks,
        ty.bits,
        &patterns,
        default as u128,
        out.bits,
        budget,
    );
    (
        SInt { digits },
        SInt {
            digits: vec![found],
        },
    )
}
