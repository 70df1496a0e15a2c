//! One row of `encint bench --typed`.

use encint::typed::{Form, IntType};

/// One timed row.
pub struct Row {
    /// The operation's name.
    pub op: String,
    /// The operand type.
    pub ty: IntType,
    /// The operands' form.
    pub form: Form,
    /// The circuit's algorithm.
    pub algorithm: String,
    /// Our median, ms.
    pub ours_ms: f64,
    /// TFHE-rs' median, ms.
    pub peer_ms: Option<f64>,
    /// Our bootstraps.
    pub pbs: u64,
    /// Our depth.
    pub depth: u32,
    /// Our estimated rounds at the thread count.
    pub rounds: u64,
}

impl Row {
    /// Ours / peer, when at least one time is 1 ms or more.
    pub fn ratio(&self) -> Option<f64> {
        self.peer_ms
            .filter(|&p| p >= 1.0 || self.ours_ms >= 1.0)
            .map(|p| self.ours_ms / p)
    }
}
