//! The builder: records a circuit, folding constants and sharing identical linear
//! combinations and bootstraps.

use std::collections::HashMap;

use super::node::{many_lut_fits, tables_per_rotation};
use super::{half_eval, Circuit, Info, Node, NodeId, TREE_QWEIGHT};
use crate::lut::{reduce, NegacyclicLut, Table256};
use crate::CoreError;

/// Records a circuit. Folds constants, merges repeated terms, and shares identical
/// linear combinations (same terms, same constant) and identical bootstraps (same input,
/// same table), so a computation built twice on the same nodes is built once.
#[derive(Debug, Clone)]
pub struct Builder {
    circuit: Circuit,
    consts: HashMap<i64, NodeId>,
    lut_index: HashMap<NegacyclicLut, u32>,
    lut_nodes: HashMap<(NodeId, u32), NodeId>,
    half_nodes: HashMap<(NodeId, u32), NodeId>,
    table_index: HashMap<Table256, u32>,
    tree_nodes: HashMap<(NodeId, NodeId, u32), NodeId>,
    /// A linear node by a hash of its terms and constant (see [`linear_key`]); the first
    /// of a hash is kept (a collision only misses a share).
    linear_nodes: HashMap<u64, NodeId, std::hash::BuildHasherDefault<Premixed>>,
    label_index: HashMap<String, u32>,
    current_label: u32,
    budget: Option<u64>,
    threads: Option<usize>,
    /// What one level costs beyond its rounds, in rounds ([`Builder::set_level_latency`]).
    level_latency: u64,
    /// Whether additions may take a parallel prefix ([`Builder::set_prefix_adders`]).
    prefix_adders: bool,
    /// Known windows of selectors ([`Builder::lut_in`]): first value and length.
    windows: HashMap<NodeId, (i64, u8)>,
    /// While a trial is open ([`Builder::checkpoint`]): each window entry's value before
    /// the trial changed it, so that [`Builder::rollback`] restores it.
    window_log: Vec<(NodeId, Option<(i64, u8)>)>,
    /// Checkpoints neither rolled back nor committed.
    open_trials: usize,
}

mod trial;
pub use trial::Checkpoint;

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
            linear_nodes: HashMap::default(),
            label_index: HashMap::new(),
            current_label: 0,
            budget: None,
            threads: None,
            level_latency: 0,
            prefix_adders: false,
            windows: HashMap::new(),
            window_log: Vec::new(),
            open_trials: 0,
        };
        b.current_label = b.intern_label("circuit");
        b
    }

    /// An empty builder for a parameter set whose bootstrap inputs may carry quadratic
    /// weight up to `budget` (its `max_quadratic_weight`): algorithms that choose where to
    /// refresh read it with [`Builder::budget`] instead of assuming one.
    pub fn with_budget(budget: u64) -> Self {
        let mut b = Self::new();
        b.budget = Some(budget);
        b
    }

    /// The noise budget this builder was made for ([`Builder::with_budget`]), if any.
    pub fn budget(&self) -> Option<u64> {
        self.budget
    }

    /// Plans the circuit for `threads` threads: algorithms that choose between circuits of
    /// one result (fewer bootstraps against less depth, such as the block products' column
    /// reductions) compare their estimated time at that many threads
    /// ([`Builder::rounds_since`]) instead of taking the least depth.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = Some(threads.max(1));
    }

    /// The thread count this builder plans for ([`Builder::set_threads`]), if any.
    pub fn threads(&self) -> Option<usize> {
        self.threads
    }

    /// Plans the circuit for a machine on which every level of bootstraps costs `rounds`
    /// rounds (at the planned threads) beyond its own, as a GPU's level latency does: the
    /// choices between circuits of one result ([`Builder::estimate_since`]) then weigh
    /// depth against width by that. 0 (the default) is a CPU, where a level costs only its
    /// rounds.
    pub fn set_level_latency(&mut self, rounds: u64) {
        self.level_latency = rounds;
    }

    /// What a level costs beyond its rounds ([`Builder::set_level_latency`]), in rounds.
    pub fn level_latency(&self) -> u64 {
        self.level_latency
    }

    /// Lets block additions choose a parallel prefix of carries over the ripple where the
    /// builder's estimate finds it faster (off by default). A circuit of one operation
    /// turns it on; a traced function, whose additions feed each other, is traced with and
    /// without it (a shallower addition off the function's critical path only adds
    /// bootstraps) and the faster whole kept.
    pub fn set_prefix_adders(&mut self, on: bool) {
        self.prefix_adders = on;
    }

    /// Whether block additions may take a parallel prefix ([`Builder::set_prefix_adders`]).
    pub fn prefix_adders(&self) -> bool {
        self.prefix_adders
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

    /// Number of nodes built so far (inputs and constants included).
    pub fn node_count(&self) -> usize {
        self.circuit.nodes.len()
    }

    /// Bootstraps among the nodes built from node number `first` on that `outputs` read
    /// (directly or through other such nodes): what a part of a circuit built since then
    /// costs, its unused trial nodes left out.
    pub fn bootstraps_since(&self, first: usize, outputs: &[NodeId]) -> u64 {
        self.bootstrap_depths_since(first, outputs).len() as u64
    }

    /// The largest quadratic weight at a bootstrap input among the nodes built from node
    /// number `first` on that `outputs` read (0 when there is none): whether a part of a
    /// circuit built since then on earlier values stays within a noise budget.
    pub fn max_bootstrap_qweight_since(&self, first: usize, outputs: &[NodeId]) -> u64 {
        let mut seen = vec![false; self.circuit.nodes.len().saturating_sub(first)];
        let mut stack: Vec<NodeId> = outputs.to_vec();
        let mut max = 0;
        while let Some(id) = stack.pop() {
            let Some(k) = id.index().checked_sub(first) else {
                continue;
            };
            if std::mem::replace(&mut seen[k], true) {
                continue;
            }
            if let Some(q) = self.circuit.bootstrap_input_qweight(id) {
                max = max.max(q);
            }
            stack.extend(self.circuit.nodes[id.index()].operands());
        }
        max
    }

    /// The estimated time at `threads` threads of the bootstraps
    /// [`Builder::bootstraps_since`] counts: the sum over bootstrap depths of
    /// `⌈bootstraps at that depth / threads⌉`.
    pub fn rounds_since(&self, first: usize, outputs: &[NodeId], threads: usize) -> u64 {
        let mut levels = std::collections::BTreeMap::<u32, u64>::new();
        for depth in self.bootstrap_depths_since(first, outputs) {
            *levels.entry(depth).or_default() += 1;
        }
        let t = threads.max(1) as u64;
        levels.values().map(|n| n.div_ceil(t)).sum()
    }

    /// The estimated time, in rounds at `threads` threads, of the bootstraps
    /// [`Builder::bootstraps_since`] counts on the machine this builder plans for: their
    /// [`Builder::rounds_since`] plus [`Builder::level_latency`] for each depth at which
    /// they bootstrap. With no level latency, the rounds.
    pub fn estimate_since(&self, first: usize, outputs: &[NodeId], threads: usize) -> u64 {
        if self.level_latency == 0 {
            return self.rounds_since(first, outputs, threads);
        }
        let mut levels = std::collections::BTreeMap::<u32, u64>::new();
        for depth in self.bootstrap_depths_since(first, outputs) {
            *levels.entry(depth).or_default() += 1;
        }
        let t = threads.max(1) as u64;
        levels
            .values()
            .map(|n| n.div_ceil(t) + self.level_latency)
            .sum()
    }

    /// The depth of each bootstrap among the nodes built from node number `first` on that
    /// `outputs` read, the tables [`Builder::finish`] will put in shared rotations
    /// counted as those rotations.
    fn bootstrap_depths_since(&self, first: usize, outputs: &[NodeId]) -> Vec<u32> {
        let mut seen = vec![false; self.circuit.nodes.len().saturating_sub(first)];
        let mut stack: Vec<NodeId> = outputs.to_vec();
        let mut depths = Vec::new();
        let mut shared: HashMap<NodeId, (u32, usize, usize)> = HashMap::new();
        while let Some(id) = stack.pop() {
            let Some(k) = id.index().checked_sub(first) else {
                continue;
            };
            if std::mem::replace(&mut seen[k], true) {
                continue;
            }
            let node = &self.circuit.nodes[id.index()];
            let depth = self.circuit.info[id.index()].depth;
            match node {
                Node::Lut { input, .. } => match tables_per_rotation(self.windows.get(input)) {
                    Some(per) => shared.entry(*input).or_insert((depth, per, 0)).2 += 1,
                    None => depths.push(depth),
                },
                n if n.is_bootstrap() => depths.push(depth),
                _ => {}
            }
            stack.extend(node.operands());
        }
        for (depth, per, n) in shared.into_values() {
            depths.extend(std::iter::repeat_n(depth, n.div_ceil(per)));
        }
        depths
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
        let key = linear_key(&merged, constant);
        if let Some(&id) = self.linear_nodes.get(&key) {
            if matches!(&self.circuit.nodes[id.0 as usize],
                Node::Linear { terms, constant: c } if *c == constant && *terms == merged)
            {
                return id;
            }
        }
        let depth = merged.iter().map(|t| self.depth(t.0)).max().unwrap_or(0);
        let qweight = self.weight_of(&merged);
        let id = self.push(
            Node::Linear {
                terms: merged,
                constant,
            },
            depth,
            qweight,
        );
        self.linear_nodes.entry(key).or_insert(id);
        id
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

    /// [`Builder::lut`] on an input known to lie in `lo..=hi` (at most 16 values; a wider
    /// range records nothing). [`Builder::finish`] puts the tables read on one input of a
    /// known window of at most 8 values into shared blind rotations ([`Node::ManyLut`]),
    /// as many per rotation as fit side by side. The range must hold: an input outside it
    /// would read another table there (the clear executor reports it).
    pub fn lut_in(&mut self, input: NodeId, lo: i64, hi: i64, lut: &NegacyclicLut) -> NodeId {
        let id = self.lut(input, lut);
        if let (Node::Lut { .. }, Ok(len @ 1..=16)) =
            (self.circuit.node(id), u8::try_from(hi - lo + 1))
        {
            let old = self.windows.get(&input).copied();
            if old.is_none_or(|(_, l)| len < l) {
                if self.open_trials > 0 {
                    self.window_log.push((input, old));
                }
                self.windows.insert(input, (lo, len));
            }
        }
        id
    }

    /// Several tables on one input known to lie in the `len` values from `lo` (modulo 32)
    /// in one blind rotation (see [`Node::ManyLut`]); `len · luts.len()` must be at most
    /// 16. Folded when the input is a constant.
    pub fn many_lut(
        &mut self,
        input: NodeId,
        lo: i64,
        len: u8,
        luts: &[NegacyclicLut],
    ) -> Result<Vec<NodeId>, CoreError> {
        if !many_lut_fits(len, luts.len()) {
            return Err(CoreError::InvalidArgument(format!(
                "{} tables on a window of {len} values do not fit one test polynomial of 16 slots",
                luts.len()
            )));
        }
        if let Some(c) = self.const_value(input) {
            return Ok(luts.iter().map(|l| self.constant(l.eval(c))).collect());
        }
        let indices: Vec<u32> = luts.iter().map(|l| self.intern_lut(l)).collect();
        let depth = self.depth(input) + 1;
        let group = self.push(
            Node::ManyLut {
                input,
                luts: indices,
                lo,
                len,
            },
            depth,
            0,
        );
        Ok((0..luts.len() as u32)
            .map(|index| self.push(Node::Extract { group, index }, depth, 1))
            .collect())
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
        super::pack::pack(self.circuit, &self.windows)
    }
}

/// A cheap hash of a linear combination's sorted terms and constant (multiply-rotate, as
/// FxHash does): equal combinations have equal keys; [`Builder::linear`] compares the
/// candidates of one key exactly.
fn linear_key(terms: &[(NodeId, i64)], constant: i64) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |h: u64, v: u64| (h.rotate_left(5) ^ v).wrapping_mul(K);
    terms.iter().fold(mix(0, constant as u64), |h, &(id, w)| {
        mix(mix(h, u64::from(id.0)), w as u64)
    })
}

/// A hasher for keys that are hashes already ([`linear_key`]): it keeps the `u64` as it is.
#[derive(Default)]
struct Premixed(u64);

impl std::hash::Hasher for Premixed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}
