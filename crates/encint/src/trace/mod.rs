//! Tracing: a program recorded once into one circuit instead of run operation by
//! operation, so that independent operations share bootstrap batches.
//!
//! Three kinds of programs record here, each through its own front end, all checked the
//! same way: every operation is admitted against [`Limits`] (the digits of its output and
//! the nodes of the circuit so far), and the first one that would pass a limit is refused
//! with [`Error::LimitExceeded`](crate::Error::LimitExceeded) naming it (`traced operation N (...)`) before anything
//! runs.
//!
//! - [`Tracer`]: a Rust closure on exact integers ([`Server::trace`](crate::Server::trace)).
//! - [`Tape`]: a program of exact-integer operations recorded one at a time (what
//!   Python's `encint.trace` records), replayed into one circuit or costed without keys.
//! - [`Trace`]: the circuit shared by the typed family's traced values inside
//!   [`crate::compile`] and array calls ([`crate::fhe::Repr::Traced`]).

mod exact;
mod shared;
mod tape;

pub use exact::Tracer;
pub(crate) use shared::Target;
pub use shared::Trace;
pub use tape::{Tape, TapeArg};

use crate::limits::{Estimate, Limits};
use crate::Result;

/// Admits traced operation `index` (`name`) of estimate `est` onto a circuit of
/// `nodes_so_far` nodes: [`Error::LimitExceeded`](crate::Error::LimitExceeded) naming it if it would pass `limits`.
fn admit(
    limits: &Limits,
    index: usize,
    name: &str,
    est: Estimate,
    nodes_so_far: u64,
) -> Result<()> {
    let what = if name.is_empty() {
        format!("traced operation {index}")
    } else {
        format!("traced operation {index} ({name})")
    };
    limits.check(&what, est, nodes_so_far)
}
