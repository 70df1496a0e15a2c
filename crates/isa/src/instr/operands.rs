//! Operand access for the instruction modules: typed operands by position, the error for
//! operands of the wrong kind, and the dispatch of a module's `emit`.

use encint_core::circuit::Builder;

use super::{Arg, Signature, Value};
use crate::{Byte, Fixed, IsaError};

/// Records instruction `name` with `known` if `signatures` lists it (under the instruction's
/// label), else `None`.
pub(crate) fn emit_listed(
    b: &mut Builder,
    signatures: &[Signature],
    name: &str,
    args: &[Arg],
    known: impl FnOnce(&mut Builder, &Signature, &[Arg]) -> Result<Value, IsaError>,
) -> Option<Result<Value, IsaError>> {
    let sig = signatures.iter().find(|s| s.name == name)?;
    Some(b.labelled(sig.name, |b| known(b, sig, args)))
}

/// A [`IsaError::BadOperands`] of instruction `name`.
pub(crate) fn bad(name: &str, message: impl Into<String>) -> IsaError {
    IsaError::BadOperands {
        name: name.to_string(),
        message: message.into(),
    }
}

/// Operand `i`, which must be a byte.
pub(crate) fn byte_arg(name: &str, args: &[Arg], i: usize) -> Result<Byte, IsaError> {
    match args.get(i) {
        Some(Arg::Byte(x)) => Ok(*x),
        _ => Err(bad(name, format!("operand {} must be a byte", i + 1))),
    }
}

/// Operand `i`, which must be a fixed-point value.
pub(crate) fn fixed_arg(name: &str, args: &[Arg], i: usize) -> Result<Fixed, IsaError> {
    match args.get(i) {
        Some(Arg::Fixed(x)) => Ok(*x),
        _ => Err(bad(
            name,
            format!("operand {} must be a fixed-point value", i + 1),
        )),
    }
}

/// Operand `i`, which must be an immediate in `lo..=hi`.
pub(crate) fn imm_arg(
    name: &str,
    args: &[Arg],
    i: usize,
    lo: i64,
    hi: i64,
) -> Result<i64, IsaError> {
    match args.get(i) {
        Some(Arg::Imm(v)) if (lo..=hi).contains(v) => Ok(*v),
        Some(Arg::Imm(v)) => Err(bad(name, format!("immediate {v} is outside {lo}..={hi}"))),
        _ => Err(bad(name, format!("operand {} must be an immediate", i + 1))),
    }
}
