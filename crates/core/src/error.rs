//! The error types of `encint-core`: [`CoreError`] and the noise-budget violation it carries.

use thiserror::Error;

use crate::ids::NodeId;

/// Everything that can go wrong in `encint-core`.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CoreError {
    /// A digit is outside the signed-binary alphabet {-1, 0, 1}.
    #[error("digit {value} at position {position} is not a signed binary digit (-1, 0 or 1)")]
    DigitOutOfRange {
        /// Position of the digit (least significant first).
        position: usize,
        /// The offending value.
        value: i64,
    },
    /// The represented value does not fit the requested integer type or width.
    #[error("value does not fit in {bits} bits")]
    Overflow {
        /// The width that was asked for.
        bits: u32,
    },
    /// A lookup table cannot be encoded as a negacyclic table over Z_32.
    #[error("function is not negacyclic on its domain: selector {a} and {b} conflict")]
    NotNegacyclic {
        /// First conflicting selector.
        a: i64,
        /// Second conflicting selector.
        b: i64,
    },
    /// An argument is outside what the operation accepts.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A tree LUT received an input outside `0..16` (the circuit is wrong for this input:
    /// the encrypted executor would return garbage).
    #[error("tree LUT node {node} of `{operation}` got input {value}, not a nibble in 0..16")]
    TreeInputOutOfRange {
        /// The tree node.
        node: u32,
        /// The operation that built it.
        operation: String,
        /// The offending input value.
        value: i64,
    },
    /// The number of inputs given to a circuit does not match its declaration.
    #[error("circuit expects {expected} inputs, got {found}")]
    InputCount {
        /// Inputs the circuit declares.
        expected: usize,
        /// Inputs that were supplied.
        found: usize,
    },
    /// A bootstrap input exceeds the backend's noise budget.
    #[error("noise budget exceeded: {0}")]
    NoiseBudget(BudgetViolation),
    /// A [`Watch`](crate::exec::Watch) stopped the run at a level boundary (a progress
    /// report failed, or the user interrupted it).
    #[error("stopped at a level boundary: {0}")]
    Stopped(String),
}

/// A bootstrap whose input exceeds a noise budget.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "bootstrap node {} of operation `{operation}` has input quadratic weight {qweight} > budget {budget}",
    .node.0
)]
pub struct BudgetViolation {
    /// The bootstrap node.
    pub node: NodeId,
    /// The operation that built it.
    pub operation: String,
    /// Its input's (effective) quadratic weight.
    pub qweight: u64,
    /// The budget it exceeds.
    pub budget: u64,
}
