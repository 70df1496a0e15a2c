//! The circuit IR: a DAG over encrypted 5-bit digits.
//!
//! Algorithms never touch ciphertexts: they call a [`Builder`], which records
//! [`Node`]s. Executors (the clear one in [`crate::clear`], the TFHE one in
//! `encint-tfhe`) run the finished [`Circuit`] level by level, following
//! [`Circuit::schedule`]: all bootstraps of one level are independent.
//!
//! Every node knows its *bootstrap depth* (consecutive bootstraps from the inputs)
//! and its *quadratic weight* (seed 000 §2.2.1): fresh digits (inputs, bootstrap
//! outputs) have weight 1, constants 0, and a linear combination `Σ w_i c_i` has
//! `Σ w_i² q(c_i)`, assuming independent noises. A LUT's input weight bounds the
//! noise a bootstrap must tolerate; parameter sets declare their budget.

use std::collections::HashMap;

use crate::lut::{reduce, NegacyclicLut, Table256};

/// Quadratic weight charged to the output of a [`Node::Tree`]: its noise is the second
/// blind rotation's plus the encrypted accumulator's (first-level multi-value output and
/// packing keyswitch), bounded by twice a fresh bootstrap output's variance (measured in
/// `encint-tfhe`'s tree tests).
pub const TREE_QWEIGHT: u64 = 2;

/// Index of a node in its circuit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One node of a circuit.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Node {
    /// An encrypted input digit, with the quadratic weight of its noise (1 = fresh).
    Input {
        /// Position among the circuit's inputs.
        index: u32,
        /// Quadratic weight of the incoming ciphertext's noise.
        qweight: u64,
    },
    /// A known plaintext digit (a trivial ciphertext), in `[-16, 16)`.
    Const(i64),
    /// `Σ weight · term + constant` (no bootstrap).
    Linear {
        /// Terms: distinct nodes with non-zero integer weights.
        terms: Vec<(NodeId, i64)>,
        /// Plaintext constant added (mod 32).
        constant: i64,
    },
    /// One bootstrap evaluating a negacyclic table on `input`.
    Lut {
        /// Selector.
        input: NodeId,
        /// Index into [`Circuit::luts`].
        lut: u32,
    },
    /// One half-step bootstrap: the table holds odd values `h(x)` in units of one half
    /// (`h(x + 16) = -h(x)`), and the node's value is `(h(x) + 1) / 2`. It evaluates the
    /// functions with `f(x + 16) = 1 - f(x) (mod 32)`, e.g. the unit carry `[x >= 16]` of a
    /// sum `x` in `0..32`, which no negacyclic table can. Costs one plain bootstrap.
    HalfLut {
        /// Selector.
        input: NodeId,
        /// Index into [`Circuit::luts`] (values in half units).
        lut: u32,
    },
    /// Several tables of one input sharing one blind rotation (many-LUT). Its
    /// outputs are read by [`Node::Extract`]. With `k` tables the input's noise
    /// margin shrinks `k` times, so the cost reports `q · k²` as its effective
    /// quadratic weight; that is only a lower bound (the modulus switch adds noise
    /// independent of `q`), and the TFHE executor refuses many-LUT nodes under the
    /// default parameters.
    ManyLut {
        /// Selector.
        input: NodeId,
        /// Indices into [`Circuit::luts`].
        luts: Vec<u32>,
    },
    /// A bivariate table on two nibbles (seed 004 `LUTeval`): `table[16·hi + lo]`, both
    /// inputs in `0..16`. Costs two blind rotations (the first, on `hi`, is shared by every
    /// tree and LUT of the same level on the same input: `MVLUTeval`) and one packing
    /// keyswitch per distinct `(hi, table)` of a level.
    Tree {
        /// First-level selector (most significant nibble of the index).
        hi: NodeId,
        /// Second-level selector.
        lo: NodeId,
        /// Index into [`Circuit::tables`].
        table: u32,
    },
    /// Output `index` of a [`Node::ManyLut`].
    Extract {
        /// The many-LUT node.
        group: NodeId,
        /// Which of its tables.
        index: u32,
    },
}

impl Node {
    /// Whether this node is one bootstrap.
    pub fn is_bootstrap(&self) -> bool {
        matches!(
            self,
            Node::Lut { .. } | Node::HalfLut { .. } | Node::ManyLut { .. } | Node::Tree { .. }
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Info {
    depth: u32,
    qweight: u64,
    label: u32,
}

/// A finished circuit: nodes in topological order, inputs and outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Circuit {
    nodes: Vec<Node>,
    info: Vec<Info>,
    luts: Vec<NegacyclicLut>,
    tables: Vec<Table256>,
    labels: Vec<String>,
    inputs: Vec<NodeId>,
    outputs: Vec<NodeId>,
}

/// Bootstrap counts and shape of a circuit (only nodes that reach an output count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cost {
    /// Number of bootstrap nodes (a many-LUT and a tree LUT count once).
    pub bootstraps: u64,
    /// Blind rotations: one per tree, plus one per distinct input of the level's LUTs and
    /// tree first levels (LUTs and trees on one input share it by multi-value bootstrapping
    /// when there are several or a tree is among them; a lone LUT is one plain bootstrap).
    pub blind_rotations: u64,
    /// Packing keyswitches (LWEs into a tree's encrypted accumulator): one per distinct
    /// `(hi, table)` of a level.
    pub packing_keyswitches: u64,
    /// Consecutive bootstrap steps on the longest path.
    pub depth: u32,
    /// Largest number of bootstraps in one level.
    pub width: u64,
    /// Largest quadratic weight at a bootstrap input (many-LUT: `q · k²`).
    pub max_qweight: u64,
}

/// One step of execution: a batch of independent bootstraps, then the linear
/// nodes that depend on them (and on earlier levels).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Level {
    /// Bootstrap nodes of this level (all inputs already computed).
    pub bootstraps: Vec<NodeId>,
    /// Non-bootstrap nodes to evaluate after the batch, in topological order.
    pub others: Vec<NodeId>,
}

/// A bootstrap whose input exceeds a noise budget.
#[derive(Debug, Clone, PartialEq, Eq)]
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

impl std::fmt::Display for BudgetViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "bootstrap node {} of operation `{}` has input quadratic weight {} > budget {}",
            self.node.0, self.operation, self.qweight, self.budget
        )
    }
}

impl Circuit {
    /// All nodes, in topological order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
    /// One node.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }
    /// The table with the given index.
    pub fn lut(&self, index: u32) -> &NegacyclicLut {
        &self.luts[index as usize]
    }
    /// The tree table with the given index.
    pub fn table(&self, index: u32) -> &Table256 {
        &self.tables[index as usize]
    }
    /// Input nodes in declaration order.
    pub fn inputs(&self) -> &[NodeId] {
        &self.inputs
    }
    /// Output nodes, in order.
    pub fn outputs(&self) -> &[NodeId] {
        &self.outputs
    }
    /// Bootstrap depth of a node.
    pub fn depth(&self, id: NodeId) -> u32 {
        self.info[id.index()].depth
    }
    /// Quadratic weight of a node's noise.
    pub fn qweight(&self, id: NodeId) -> u64 {
        self.info[id.index()].qweight
    }
    /// Name of the operation that created a node.
    pub fn label(&self, id: NodeId) -> &str {
        &self.labels[self.info[id.index()].label as usize]
    }

    /// Effective quadratic weight at the input of a bootstrap node.
    pub fn bootstrap_input_qweight(&self, id: NodeId) -> Option<u64> {
        match self.node(id) {
            Node::Lut { input, .. } | Node::HalfLut { input, .. } => Some(self.qweight(*input)),
            Node::ManyLut { input, luts } => {
                let k = luts.len() as u64;
                Some(self.qweight(*input).saturating_mul(k * k))
            }
            Node::Tree { hi, lo, .. } => Some(self.qweight(*hi).max(self.qweight(*lo))),
            _ => None,
        }
    }

    /// Which nodes an output depends on.
    pub fn live(&self) -> Vec<bool> {
        let mut live = vec![false; self.nodes.len()];
        let mut stack: Vec<NodeId> = self.outputs.clone();
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut live[id.index()], true) {
                continue;
            }
            match self.node(id) {
                Node::Linear { terms, .. } => stack.extend(terms.iter().map(|t| t.0)),
                Node::Lut { input, .. }
                | Node::HalfLut { input, .. }
                | Node::ManyLut { input, .. } => stack.push(*input),
                Node::Extract { group, .. } => stack.push(*group),
                Node::Tree { hi, lo, .. } => stack.extend([*hi, *lo]),
                Node::Input { .. } | Node::Const(_) => {}
            }
        }
        live
    }

    /// Live nodes grouped by level: level 0 holds inputs, constants and the linear
    /// nodes computable from them; level `d ≥ 1` holds the bootstraps of depth `d`
    /// and then the linear nodes of depth `d`.
    pub fn schedule(&self) -> Vec<Level> {
        let live = self.live();
        let max_depth = (0..self.nodes.len())
            .filter(|&i| live[i])
            .map(|i| self.info[i].depth)
            .max()
            .unwrap_or(0);
        let mut levels = vec![Level::default(); max_depth as usize + 1];
        for (i, node) in self.nodes.iter().enumerate() {
            if !live[i] {
                continue;
            }
            let level = &mut levels[self.info[i].depth as usize];
            if node.is_bootstrap() {
                level.bootstraps.push(NodeId(i as u32));
            } else {
                level.others.push(NodeId(i as u32));
            }
        }
        levels
    }

    /// The cost of the circuit, from its structure alone.
    pub fn cost(&self) -> Cost {
        let mut cost = Cost::default();
        for level in self.schedule() {
            let n = level.bootstraps.len() as u64;
            cost.bootstraps += n;
            let (br, pks) = self.level_rotations(&level);
            cost.blind_rotations += br;
            cost.packing_keyswitches += pks;
            cost.width = cost.width.max(n);
            for &id in &level.bootstraps {
                cost.depth = cost.depth.max(self.depth(id));
                if let Some(q) = self.bootstrap_input_qweight(id) {
                    cost.max_qweight = cost.max_qweight.max(q);
                }
            }
        }
        cost
    }

    /// Blind rotations and packing keyswitches of one level (see [`Cost`]).
    pub fn level_rotations(&self, level: &Level) -> (u64, u64) {
        // input -> (LUT count, has a tree first level)
        let mut first: HashMap<NodeId, (u64, bool)> = HashMap::new();
        let mut packs: std::collections::HashSet<(NodeId, u32)> = Default::default();
        let mut br = 0u64;
        for &id in &level.bootstraps {
            match self.node(id) {
                Node::Lut { input, .. } => first.entry(*input).or_default().0 += 1,
                Node::Tree { hi, table, .. } => {
                    first.entry(*hi).or_default().1 = true;
                    packs.insert((*hi, *table));
                    br += 1;
                }
                _ => br += 1,
            }
        }
        br += first
            .values()
            .map(|&(luts, tree)| if tree { 1 } else { luts.min(1) })
            .sum::<u64>();
        (br, packs.len() as u64)
    }

    /// Every live bootstrap whose input exceeds `budget`.
    pub fn budget_violations(&self, budget: u64) -> Vec<BudgetViolation> {
        let live = self.live();
        (0..self.nodes.len())
            .filter(|&i| live[i])
            .filter_map(|i| {
                let id = NodeId(i as u32);
                let q = self.bootstrap_input_qweight(id)?;
                (q > budget).then(|| BudgetViolation {
                    node: id,
                    operation: self.label(id).to_string(),
                    qweight: q,
                    budget,
                })
            })
            .collect()
    }

    /// The largest quadratic weight among the outputs (what a consumer inherits).
    pub fn max_output_qweight(&self) -> u64 {
        self.outputs
            .iter()
            .map(|&o| self.qweight(o))
            .max()
            .unwrap_or(0)
    }
}

/// The value of a half-step table (see [`Node::HalfLut`]) at `x`, in `[-16, 16)`.
pub fn half_eval(half: &NegacyclicLut, x: i64) -> i64 {
    let x = x.rem_euclid(32);
    let h = if x < 16 {
        half.table[x as usize] as i64
    } else {
        -(half.table[x as usize - 16] as i64)
    };
    reduce((h + 1).div_euclid(2))
}

/// Records a circuit. Folds constants, merges repeated terms, and shares
/// identical bootstraps (same input, same table).
#[derive(Debug, Clone)]
pub struct Builder {
    circuit: Circuit,
    consts: HashMap<i64, NodeId>,
    lut_index: HashMap<NegacyclicLut, u32>,
    lut_nodes: HashMap<(NodeId, u32), NodeId>,
    half_nodes: HashMap<(NodeId, u32), NodeId>,
    table_index: HashMap<Table256, u32>,
    tree_nodes: HashMap<(NodeId, NodeId, u32), NodeId>,
    label_index: HashMap<String, u32>,
    current_label: u32,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// An empty builder.
    pub fn new() -> Self {
        let mut b = Builder {
            circuit: Circuit {
                nodes: Vec::new(),
                info: Vec::new(),
                luts: Vec::new(),
                tables: Vec::new(),
                labels: Vec::new(),
                inputs: Vec::new(),
                outputs: Vec::new(),
            },
            consts: HashMap::new(),
            lut_index: HashMap::new(),
            lut_nodes: HashMap::new(),
            half_nodes: HashMap::new(),
            table_index: HashMap::new(),
            tree_nodes: HashMap::new(),
            label_index: HashMap::new(),
            current_label: 0,
        };
        b.current_label = b.intern_label("circuit");
        b
    }

    fn intern_label(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.label_index.get(name) {
            return i;
        }
        let i = self.circuit.labels.len() as u32;
        self.circuit.labels.push(name.to_string());
        self.label_index.insert(name.to_string(), i);
        i
    }

    /// Runs `f` with nodes labelled `name` (restores the previous label after).
    pub fn labelled<T>(&mut self, name: &str, f: impl FnOnce(&mut Self) -> T) -> T {
        let previous = self.current_label;
        self.current_label = self.intern_label(name);
        let out = f(self);
        self.current_label = previous;
        out
    }

    fn push(&mut self, node: Node, depth: u32, qweight: u64) -> NodeId {
        let id = NodeId(self.circuit.nodes.len() as u32);
        self.circuit.nodes.push(node);
        self.circuit.info.push(Info {
            depth,
            qweight,
            label: self.current_label,
        });
        id
    }

    /// A fresh encrypted input digit (quadratic weight 1).
    pub fn input(&mut self) -> NodeId {
        self.input_with_qweight(1)
    }

    /// An encrypted input digit whose noise has the given quadratic weight.
    pub fn input_with_qweight(&mut self, qweight: u64) -> NodeId {
        let index = self.circuit.inputs.len() as u32;
        let id = self.push(Node::Input { index, qweight }, 0, qweight);
        self.circuit.inputs.push(id);
        id
    }

    /// A known digit (reduced into `[-16, 16)`).
    pub fn constant(&mut self, value: i64) -> NodeId {
        let v = reduce(value);
        if let Some(&id) = self.consts.get(&v) {
            return id;
        }
        let id = self.push(Node::Const(v), 0, 0);
        self.consts.insert(v, id);
        id
    }

    /// The value of a constant node, if it is one.
    pub fn const_value(&self, id: NodeId) -> Option<i64> {
        match self.circuit.nodes[id.index()] {
            Node::Const(v) => Some(v),
            _ => None,
        }
    }

    /// Quadratic weight of a node built so far.
    pub fn qweight(&self, id: NodeId) -> u64 {
        self.circuit.info[id.index()].qweight
    }

    /// Bootstrap depth of a node built so far.
    pub fn depth(&self, id: NodeId) -> u32 {
        self.circuit.info[id.index()].depth
    }

    /// Normal form of `Σ weight · term + constant`: linear terms expanded into the
    /// fresh nodes they are made of, constants summed, repeated terms merged, zero
    /// weights dropped. Every repeated use of one noise is thus merged, so the
    /// quadratic weight is exact.
    fn normalize(&self, terms: &[(NodeId, i64)], constant: i64) -> (Vec<(NodeId, i64)>, i64) {
        let mut constant = constant;
        let mut merged: Vec<(NodeId, i64)> = Vec::with_capacity(terms.len());
        let mut expanded: Vec<(NodeId, i64)> = Vec::with_capacity(terms.len());
        for &(id, w) in terms {
            match &self.circuit.nodes[id.index()] {
                Node::Linear {
                    terms: inner,
                    constant: c,
                } => {
                    constant += w * c;
                    expanded.extend(inner.iter().map(|&(t, v)| (t, v * w)));
                }
                _ => expanded.push((id, w)),
            }
        }
        for (id, w) in expanded {
            if w == 0 {
                continue;
            }
            if let Some(c) = self.const_value(id) {
                constant += w * c;
                continue;
            }
            match merged.iter_mut().find(|t| t.0 == id) {
                Some(t) => t.1 += w,
                None => merged.push((id, w)),
            }
        }
        merged.retain(|t| t.1 != 0);
        (merged, reduce(constant))
    }

    fn weight_of(&self, terms: &[(NodeId, i64)]) -> u64 {
        terms.iter().fold(0u64, |acc, &(id, w)| {
            let w2 = (w.unsigned_abs()).saturating_mul(w.unsigned_abs());
            acc.saturating_add(w2.saturating_mul(self.qweight(id)))
        })
    }

    /// The quadratic weight `linear(terms, _)` would have, without building it.
    pub fn linear_qweight(&self, terms: &[(NodeId, i64)]) -> u64 {
        self.weight_of(&self.normalize(terms, 0).0)
    }

    /// `Σ weight · term + constant`, folded (see the normal form above); a lone
    /// `1 · x` is `x` itself.
    pub fn linear(&mut self, terms: &[(NodeId, i64)], constant: i64) -> NodeId {
        let (mut merged, constant) = self.normalize(terms, constant);
        if merged.is_empty() {
            return self.constant(constant);
        }
        if merged.len() == 1 && merged[0].1 == 1 && constant == 0 {
            return merged[0].0;
        }
        merged.sort_by_key(|t| t.0);
        let depth = merged.iter().map(|t| self.depth(t.0)).max().unwrap_or(0);
        let qweight = self.weight_of(&merged);
        self.push(
            Node::Linear {
                terms: merged,
                constant,
            },
            depth,
            qweight,
        )
    }

    /// `a + b`.
    pub fn add(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.linear(&[(a, 1), (b, 1)], 0)
    }

    /// `-a`.
    pub fn neg(&mut self, a: NodeId) -> NodeId {
        self.linear(&[(a, -1)], 0)
    }

    fn intern_lut(&mut self, lut: &NegacyclicLut) -> u32 {
        if let Some(&i) = self.lut_index.get(lut) {
            return i;
        }
        let i = self.circuit.luts.len() as u32;
        self.circuit.luts.push(*lut);
        self.lut_index.insert(*lut, i);
        i
    }

    /// One bootstrap evaluating `lut` on `input` (folded if `input` is constant;
    /// shared with an identical earlier bootstrap).
    pub fn lut(&mut self, input: NodeId, lut: &NegacyclicLut) -> NodeId {
        if let Some(c) = self.const_value(input) {
            return self.constant(lut.eval(c));
        }
        let index = self.intern_lut(lut);
        if let Some(&id) = self.lut_nodes.get(&(input, index)) {
            return id;
        }
        let depth = self.depth(input) + 1;
        let id = self.push(Node::Lut { input, lut: index }, depth, 1);
        self.lut_nodes.insert((input, index), id);
        id
    }

    /// One half-step bootstrap of `input` (see [`Node::HalfLut`]): `half` holds odd values in
    /// half units on `0..16`. Folded on constants, shared when repeated; an even value is an
    /// error.
    pub fn half_lut(
        &mut self,
        input: NodeId,
        half: &NegacyclicLut,
    ) -> Result<NodeId, crate::CoreError> {
        if let Some(&v) = half.table.iter().find(|v| v.rem_euclid(2) == 0) {
            return Err(crate::CoreError::InvalidArgument(format!(
                "half-step table value {v} is even"
            )));
        }
        if let Some(c) = self.const_value(input) {
            return Ok(self.constant(half_eval(half, c)));
        }
        let index = self.intern_lut(half);
        if let Some(&id) = self.half_nodes.get(&(input, index)) {
            return Ok(id);
        }
        let depth = self.depth(input) + 1;
        let id = self.push(Node::HalfLut { input, lut: index }, depth, 1);
        self.half_nodes.insert((input, index), id);
        Ok(id)
    }

    /// Several tables on one input in one blind rotation (see [`Node::ManyLut`]).
    pub fn many_lut(&mut self, input: NodeId, luts: &[NegacyclicLut]) -> Vec<NodeId> {
        if let Some(c) = self.const_value(input) {
            return luts.iter().map(|l| self.constant(l.eval(c))).collect();
        }
        let indices: Vec<u32> = luts.iter().map(|l| self.intern_lut(l)).collect();
        let depth = self.depth(input) + 1;
        let group = self.push(
            Node::ManyLut {
                input,
                luts: indices,
            },
            depth,
            0,
        );
        (0..luts.len() as u32)
            .map(|index| self.push(Node::Extract { group, index }, depth, 1))
            .collect()
    }

    /// A tree LUT `table[16·hi + lo]` on two nibbles (see [`Node::Tree`]). Folded when an
    /// input is a constant: both constant gives a constant; one constant nibble leaves a
    /// univariate table of the other, one plain bootstrap. Identical trees are shared.
    /// Constant inputs outside `0..16` are rejected.
    pub fn tree(
        &mut self,
        hi: NodeId,
        lo: NodeId,
        table: &Table256,
    ) -> Result<NodeId, crate::CoreError> {
        let nibble = |v: i64| -> Result<u8, crate::CoreError> {
            u8::try_from(v).ok().filter(|&n| n < 16).ok_or_else(|| {
                crate::CoreError::InvalidArgument(format!(
                    "tree input constant {v} is not a nibble"
                ))
            })
        };
        match (self.const_value(hi), self.const_value(lo)) {
            (Some(h), Some(l)) => {
                let v = table.entries[16 * nibble(h)? as usize + nibble(l)? as usize];
                return Ok(self.constant(v as i64));
            }
            (Some(h), None) => {
                let row = table.row(nibble(h)?);
                let lut = NegacyclicLut {
                    table: row.map(|v| v as i8),
                };
                return Ok(self.lut(lo, &lut));
            }
            (None, Some(l)) => {
                let l = nibble(l)? as usize;
                let mut col = [0i8; 16];
                for (h, c) in col.iter_mut().enumerate() {
                    *c = table.entries[16 * h + l] as i8;
                }
                return Ok(self.lut(hi, &NegacyclicLut { table: col }));
            }
            (None, None) => {}
        }
        let index = match self.table_index.get(table) {
            Some(&i) => i,
            None => {
                let i = self.circuit.tables.len() as u32;
                self.circuit.tables.push(*table);
                self.table_index.insert(*table, i);
                i
            }
        };
        if let Some(&id) = self.tree_nodes.get(&(hi, lo, index)) {
            return Ok(id);
        }
        let depth = self.depth(hi).max(self.depth(lo)) + 1;
        let id = self.push(
            Node::Tree {
                hi,
                lo,
                table: index,
            },
            depth,
            TREE_QWEIGHT,
        );
        self.tree_nodes.insert((hi, lo, index), id);
        Ok(id)
    }

    /// Finishes the circuit with the given outputs.
    pub fn finish(mut self, outputs: Vec<NodeId>) -> Circuit {
        self.circuit.outputs = outputs;
        self.circuit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_and_sharing() {
        let mut b = Builder::new();
        let x = b.input();
        let one = b.constant(1);
        let l = b.linear(&[(x, 1), (one, 0)], 0);
        assert_eq!(l, x);
        let two_x = b.linear(&[(x, 1), (x, 1)], 0);
        assert_eq!(
            b.qweight(two_x),
            4,
            "merged terms are correlated: weight 2² = 4"
        );
        let id = NegacyclicLut::identity();
        let a = b.lut(two_x, &id);
        let a2 = b.lut(two_x, &id);
        assert_eq!(a, a2);
        let c = b.lut(one, &id);
        assert_eq!(b.const_value(c), Some(1));
        let circuit = b.finish(vec![a]);
        let cost = circuit.cost();
        assert_eq!(cost.bootstraps, 1);
        assert_eq!(cost.depth, 1);
        assert_eq!(cost.max_qweight, 4);
    }

    #[test]
    fn correlation_through_linear_nodes_is_exact() {
        let mut b = Builder::new();
        let x = b.input();
        let nx = b.neg(x);
        let nnx = b.neg(nx);
        let two_x = b.add(x, nnx);
        assert_eq!(b.qweight(two_x), 4);
        let zero = b.add(x, nx);
        assert_eq!(b.const_value(zero), Some(0));
    }

    #[test]
    fn dead_nodes_do_not_count() {
        let mut b = Builder::new();
        let x = b.input();
        let id = NegacyclicLut::identity();
        let _dead = b.lut(x, &id);
        let neg = b.neg(x);
        let c = b.finish(vec![neg]);
        assert_eq!(c.cost().bootstraps, 0);
    }

    #[test]
    fn budget_names_the_operation() {
        let mut b = Builder::new();
        let x = b.input();
        let y = b.input();
        let s = b.labelled("heavy", |b| {
            let t = b.linear(&[(x, 4), (y, 3)], 0);
            b.lut(t, &NegacyclicLut::identity())
        });
        let c = b.finish(vec![s]);
        let v = c.budget_violations(24);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].operation, "heavy");
        assert_eq!(v[0].qweight, 25);
        assert!(c.budget_violations(25).is_empty());
    }

    #[test]
    fn trees_fold_share_and_count_like_mvluteval() {
        let add4 = Table256::from_fn(|i, j| ((i + j) % 16) as i64).unwrap();
        let carry = Table256::from_fn(|i, j| ((i + j) / 16) as i64).unwrap();
        let mut b = Builder::new();
        let (a0, a1, b0, b1) = (b.input(), b.input(), b.input(), b.input());
        // Seed 004 eq. (3): ADD = LUTeval + MVLUTeval(2 tables) + LUTeval = 7 BR, 4 KS.
        let s = b.tree(a0, b0, &add4).unwrap();
        let lo = b.tree(a1, b1, &add4).unwrap();
        let c = b.tree(a1, b1, &carry).unwrap();
        let hi = b.tree(s, c, &add4).unwrap();
        assert_eq!(b.tree(a0, b0, &add4).unwrap(), s, "shared");
        let circuit = b.finish(vec![hi, lo]);
        let cost = circuit.cost();
        assert_eq!((cost.blind_rotations, cost.packing_keyswitches), (7, 4));
        assert_eq!(cost.depth, 2);
        assert_eq!(cost.max_qweight, TREE_QWEIGHT);
        for (x, y) in [(0u8, 0u8), (255, 1), (17, 200), (128, 128)] {
            let n = |v: u8| [(v >> 4) as i64, (v & 15) as i64];
            let (o, _) =
                crate::clear::run(&circuit, &[n(x)[0], n(x)[1], n(y)[0], n(y)[1]]).unwrap();
            assert_eq!(o[0] * 16 + o[1], x.wrapping_add(y) as i64);
        }
        // Out-of-range inputs are reported, not evaluated.
        let err = crate::clear::run(&circuit, &[16, 0, 0, 0]).unwrap_err();
        assert!(matches!(
            err,
            crate::CoreError::TreeInputOutOfRange { value: -16, .. }
        ));
    }

    #[test]
    fn tree_with_a_constant_input_is_one_bootstrap() {
        let t = Table256::from_fn(|i, j| ((3 * i + j) % 16) as i64).unwrap();
        let mut b = Builder::new();
        let x = b.input();
        let k = b.constant(5);
        let r1 = b.tree(k, x, &t).unwrap();
        let r2 = b.tree(x, k, &t).unwrap();
        let k2 = b.constant(2);
        let kk = b.tree(k, k2, &t).unwrap();
        assert_eq!(b.const_value(kk), Some(1));
        let bad = b.constant(-1);
        assert!(b.tree(bad, x, &t).is_err());
        let c = b.finish(vec![r1, r2]);
        // Two tables of one input in one level: one multi-value blind rotation.
        assert_eq!(c.cost().blind_rotations, 1);
        assert_eq!(c.cost().packing_keyswitches, 0);
        for v in 0..16 {
            let (o, _) = crate::clear::run(&c, &[v]).unwrap();
            assert_eq!(o, vec![(15 + v) % 16, (3 * v + 5) % 16]);
        }
    }

    #[test]
    fn half_step_carry_is_exact_and_one_bootstrap() {
        let mut b = Builder::new();
        let (x, y) = (b.input(), b.input());
        let s = b.add(x, y);
        let carry = NegacyclicLut { table: [-1; 16] };
        let c = b.half_lut(s, &carry).unwrap();
        assert_eq!(b.half_lut(s, &carry).unwrap(), c, "shared");
        assert!(b.half_lut(s, &NegacyclicLut { table: [2; 16] }).is_err());
        let k = b.constant(20);
        assert_eq!(b.half_lut(k, &carry).map(|n| b.const_value(n)), Ok(Some(1)));
        let circuit = b.finish(vec![c]);
        assert_eq!(circuit.cost().blind_rotations, 1);
        for xv in 0..16 {
            for yv in 0..16 {
                let (o, _) = crate::clear::run(&circuit, &[xv, yv]).unwrap();
                assert_eq!(o[0], (xv + yv >= 16) as i64);
            }
        }
    }
}
