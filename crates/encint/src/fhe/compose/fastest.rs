//! The fastest of several candidate circuits for one computation.

use encint_core::circuit::Circuit;

/// The fastest of several candidate circuits for one computation: first one whose
/// bootstrap inputs stay within the noise budget `budget` (a faster one the parameter set
/// refuses to run is no choice), then the least estimated time at `threads`
/// ([`encint_arith::bits::makespan`]), then the fewest bootstraps; the earlier candidate
/// wins a tie.
pub(super) struct Fastest<M, E> {
    threads: usize,
    budget: u64,
    best: Option<((bool, u64, u64), M)>,
    refusal: Option<E>,
}

impl<M, E> Fastest<M, E> {
    pub(super) fn new(threads: usize, budget: u64) -> Self {
        Fastest {
            threads,
            budget,
            best: None,
            refusal: None,
        }
    }

    /// Considers `method`, whose circuit was built or refused.
    pub(super) fn offer(&mut self, method: M, built: std::result::Result<Circuit, E>) {
        match built {
            Ok(c) => {
                let cost = c.cost();
                let key = (
                    cost.max_qweight > self.budget,
                    encint_arith::bits::makespan(&c, self.threads),
                    cost.bootstraps,
                );
                if self.best.as_ref().is_none_or(|(k, _)| key < *k) {
                    self.best = Some((key, method));
                }
            }
            Err(e) => self.refusal = Some(e),
        }
    }

    /// The fastest method built; the last refusal when none was; `None` when none was
    /// offered.
    pub(super) fn pick(self) -> std::result::Result<Option<M>, E> {
        match (self.best, self.refusal) {
            (Some((_, m)), _) => Ok(Some(m)),
            (None, Some(e)) => Err(e),
            (None, None) => Ok(None),
        }
    }
}
