//! Instructions: fixed (being written).

use encint_core::circuit::Builder;

use super::{Arg, Signature, Value};
use crate::IsaError;

/// The instructions of this module.
pub const SIGNATURES: &[Signature] = &[];

/// Records `name` if this module defines it.
pub fn emit(_b: &mut Builder, _name: &str, _args: &[Arg]) -> Option<Result<Value, IsaError>> {
    None
}
