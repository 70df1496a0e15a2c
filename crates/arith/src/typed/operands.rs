//! One operation's request as the builders read it.

use super::forms::Form;
use crate::op::{IntType, Op};
use crate::SInt;

/// An operation on operands of one type: the operands' digits and their forms (the
/// select condition first).
#[derive(Debug, Clone, Copy)]
pub(super) struct Operands<'a> {
    /// The operation.
    pub op: Op,
    /// The operand type.
    pub ty: IntType,
    /// The operands' digits.
    pub x: &'a [SInt],
    /// The operands' forms.
    pub forms: &'a [Form],
}
