//! Trials: a builder can build a computation, measure it and take it back, so that an
//! algorithm choosing between several circuits of one result builds each on the builder
//! itself instead of on a copy of the whole circuit (a copy per trial made the tracing of
//! a long function quadratic in its length).

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

use super::{linear_key, Builder, Node, NodeId};

/// Removes `key` from `map` when it points at `id` (a node being taken back).
fn forget<K: Hash + Eq, S: BuildHasher>(map: &mut HashMap<K, NodeId, S>, key: K, id: NodeId) {
    if map.get(&key) == Some(&id) {
        map.remove(&key);
    }
}

/// A point [`Builder::rollback`] returns to: what the builder held when
/// [`Builder::checkpoint`] took it.
#[derive(Debug)]
#[must_use = "a checkpoint is closed by rollback or commit"]
pub struct Checkpoint {
    nodes: usize,
    inputs: usize,
    luts: usize,
    tables: usize,
    labels: usize,
    window_log: usize,
    label: u32,
}

impl Builder {
    /// Opens a trial: everything built from now on can be taken back
    /// ([`Builder::rollback`]) or kept ([`Builder::commit`]). Trials nest; each checkpoint
    /// is closed in the reverse order of opening.
    pub fn checkpoint(&mut self) -> Checkpoint {
        self.open_trials += 1;
        Checkpoint {
            nodes: self.circuit.nodes.len(),
            inputs: self.circuit.inputs.len(),
            luts: self.circuit.luts.len(),
            tables: self.circuit.tables.len(),
            labels: self.circuit.labels.len(),
            window_log: self.window_log.len(),
            label: self.current_label,
        }
    }

    /// Keeps what was built since `cp`.
    pub fn commit(&mut self, cp: Checkpoint) {
        self.close(&cp);
    }

    /// Takes back everything built since `cp`: its nodes, the tables and labels they
    /// introduced, the sharing entries that point at them and the windows they recorded.
    /// The builder is then as it was when `cp` was taken.
    pub fn rollback(&mut self, cp: Checkpoint) {
        for index in (cp.nodes..self.circuit.nodes.len()).rev() {
            let id = NodeId(index as u32);
            let node = &self.circuit.nodes[index];
            match node {
                Node::Const(v) => forget(&mut self.consts, *v, id),
                Node::Lut { input, lut } => forget(&mut self.lut_nodes, (*input, *lut), id),
                Node::HalfLut { input, lut } => forget(&mut self.half_nodes, (*input, *lut), id),
                Node::Tree { hi, lo, table } => {
                    forget(&mut self.tree_nodes, (*hi, *lo, *table), id)
                }
                Node::Linear { terms, constant } => {
                    forget(&mut self.linear_nodes, linear_key(terms, *constant), id)
                }
                _ => {}
            }
        }
        self.circuit.nodes.truncate(cp.nodes);
        self.circuit.info.truncate(cp.nodes);
        self.circuit.inputs.truncate(cp.inputs);
        for lut in self.circuit.luts.drain(cp.luts..) {
            self.lut_index.remove(&lut);
        }
        for table in self.circuit.tables.drain(cp.tables..) {
            self.table_index.remove(&table);
        }
        for label in self.circuit.labels.drain(cp.labels..) {
            self.label_index.remove(&label);
        }
        while self.window_log.len() > cp.window_log {
            let Some((input, old)) = self.window_log.pop() else {
                break;
            };
            match old {
                Some(w) => self.windows.insert(input, w),
                None => self.windows.remove(&input),
            };
        }
        self.current_label = cp.label;
        self.close(&cp);
    }

    fn close(&mut self, cp: &Checkpoint) {
        self.open_trials = self.open_trials.saturating_sub(1);
        if self.open_trials == 0 {
            self.window_log.clear();
        } else {
            // An outer trial still needs the entries to undo.
            debug_assert!(self.window_log.len() >= cp.window_log);
        }
    }

    /// Builds each of `count` alternatives for one result (`build(builder, k)` for `k` in
    /// `0..count`) on this builder, scores it with `key` (the least wins; the earlier on a
    /// tie), takes it back, and finally builds the winner for good: its output is returned.
    /// Each alternative is built once more than a copy-per-trial would (the winner twice),
    /// but nothing outside the alternatives is ever copied.
    pub fn keep_best<T, K: Ord>(
        &mut self,
        count: usize,
        mut build: impl FnMut(&mut Builder, usize) -> T,
        mut key: impl FnMut(&Builder, &T) -> K,
    ) -> T {
        let mut best: Option<(K, usize)> = None;
        for k in 0..count {
            let cp = self.checkpoint();
            let out = build(self, k);
            let score = key(self, &out);
            self.rollback(cp);
            if best.as_ref().is_none_or(|(s, _)| score < *s) {
                best = Some((score, k));
            }
        }
        build(self, best.map_or(0, |(_, k)| k))
    }
}
