//! A clear table of matches on a value of the family ([`Composer::match_value`]).

use std::collections::HashSet;

use encint_arith::typed::{Form, IntType};

use super::{Composer, Value};
use crate::{Error, Result};

/// The most matches one table may hold.
pub const MAX_MATCHES: usize = 1 << 16;

impl Composer<'_> {
    /// The output of the table `pairs` for `x`, or `default` where no input matches, as a
    /// value of `out`, and a boolean: whether one matched (TFHE-rs' `match_value`). The
    /// inputs are distinct values of `x`'s type, the outputs and `default` values of `out`
    /// (an unsigned 128-bit value past `i128::MAX` as its `i128` pattern). A few tables per
    /// match ([`encint_arith::blocks::match_blocks`]); the output is in radix-4 blocks.
    ///
    /// Errors: a value outside its type ([`Error::OutOfRange`]), an input matched twice
    /// ([`Error::InvalidInput`]), more than [`MAX_MATCHES`] matches
    /// ([`Error::InvalidInput`]).
    pub fn match_value(
        &mut self,
        x: &Value,
        pairs: &[(i128, i128)],
        default: i128,
        out: IntType,
    ) -> Result<(Value, Value)> {
        check_table(x.ty(), pairs, default, out)?;
        let budget = self.ar.config().max_qweight;
        let (y, found) = encint_arith::typed::match_value(
            self.b,
            x.digits(),
            x.ty(),
            x.form(),
            pairs,
            default,
            out,
            budget,
        );
        // A one-bit result's single block is its canonical bit.
        let form = if out == IntType::BOOL {
            Form::Canonical
        } else {
            Form::Radix4
        };
        Ok((
            Value::new(y, out, form),
            Value::new(found, IntType::BOOL, Form::Canonical),
        ))
    }
}

/// Whether `v` is a value of `ty` (any `i128` pattern for the 128-bit types).
fn holds(ty: IntType, v: i128) -> bool {
    ty.bits >= 128 || ty.contains(v)
}

/// Checks a table of matches from `ty` to `out` and its default before anything is
/// built.
fn check_table(ty: IntType, pairs: &[(i128, i128)], default: i128, out: IntType) -> Result<()> {
    if !holds(out, default) {
        return Err(Error::OutOfRange(format!(
            "the default {default} is not a value of {out}"
        )));
    }
    check_pairs(ty, pairs, out)
}

/// Checks the pairs of a table of matches from `ty` to `out`.
pub(crate) fn check_pairs(ty: IntType, pairs: &[(i128, i128)], out: IntType) -> Result<()> {
    if pairs.len() > MAX_MATCHES {
        return Err(Error::InvalidInput(format!(
            "a table of {} matches: at most {MAX_MATCHES}",
            pairs.len()
        )));
    }
    let mut seen = HashSet::with_capacity(pairs.len());
    for &(input, output) in pairs {
        if !holds(ty, input) {
            return Err(Error::OutOfRange(format!(
                "the input {input} is not a value of {ty}"
            )));
        }
        if !holds(out, output) {
            return Err(Error::OutOfRange(format!(
                "the output {output} is not a value of {out}"
            )));
        }
        if !seen.insert(input) {
            return Err(Error::InvalidInput(format!(
                "the input {input} is matched twice"
            )));
        }
    }
    Ok(())
}
