//! The schedule: live nodes grouped into levels of independent bootstraps.

/// One step of execution: a batch of independent bootstraps, then the linear
/// nodes that depend on them (and on earlier levels).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Level {
    /// Bootstrap nodes of this level (all inputs already computed).
    pub bootstraps: Vec<NodeId>,
    /// Non-bootstrap nodes to evaluate after the batch, in topological order.
    pub others: Vec<NodeId>,
}

use super::{Circuit, LevelGroups, Node, NodeId};

impl Circuit {
    /// Live nodes grouped by level: level 0 holds inputs, constants and the linear
    /// nodes computable from them; level `d ≥ 1` holds the bootstraps of depth `d`
    /// and then the linear nodes of depth `d`.
    pub fn schedule(&self) -> Vec<Level> {
        self.schedule_live(&self.live())
    }

    fn schedule_live(&self, live: &[bool]) -> Vec<Level> {
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

    /// Live nodes grouped into levels of at most `threads` bootstraps each, by a list
    /// schedule: each level runs the ready bootstraps with the longest chains of
    /// bootstraps still after them (the critical path first), so narrow stretches of
    /// the circuit fill idle threads with work that [`Circuit::schedule`] would leave
    /// to later, wider levels. Level 0 is as in [`Circuit::schedule`]; the number of
    /// levels with bootstraps is the circuit's time in bootstrap rounds on `threads`
    /// threads.
    pub fn schedule_for_threads(&self, threads: usize) -> Vec<Level> {
        self.list_schedule(&self.live(), threads.max(1))
    }

    fn list_schedule(&self, live: &[bool], cap: usize) -> Vec<Level> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let n = self.nodes.len();
        let mut succ: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut pending = vec![0u32; n];
        for i in (0..n).filter(|&i| live[i]) {
            for op in self.nodes[i].operands() {
                succ[op.index()].push(i as u32);
                pending[i] += 1;
            }
        }
        // Bootstraps on the longest path from each node to the end, itself included.
        let mut height = vec![0u32; n];
        for i in (0..n).rev().filter(|&i| live[i]) {
            let after = succ[i]
                .iter()
                .map(|&s| height[s as usize])
                .max()
                .unwrap_or(0);
            height[i] = after + u32::from(self.nodes[i].is_bootstrap());
        }
        let mut ready: BinaryHeap<(u32, Reverse<u32>)> = BinaryHeap::new();
        let mut levels = vec![Level::default()];
        // Marks `start` computed: its successors whose operands are all computed become
        // ready (bootstraps) or are computed at once in this level (the others).
        let finish = |start: u32,
                      level: &mut Level,
                      pending: &mut Vec<u32>,
                      ready: &mut BinaryHeap<(u32, Reverse<u32>)>| {
            let mut stack = vec![start];
            while let Some(i) = stack.pop() {
                for &s in &succ[i as usize] {
                    pending[s as usize] -= 1;
                    if pending[s as usize] == 0 {
                        if self.nodes[s as usize].is_bootstrap() {
                            ready.push((height[s as usize], Reverse(s)));
                        } else {
                            level.others.push(NodeId(s));
                            stack.push(s);
                        }
                    }
                }
            }
        };
        let sources: Vec<usize> = (0..n).filter(|&i| live[i] && pending[i] == 0).collect();
        for i in sources {
            if self.nodes[i].is_bootstrap() {
                ready.push((height[i], Reverse(i as u32)));
            } else {
                levels[0].others.push(NodeId(i as u32));
                finish(i as u32, &mut levels[0], &mut pending, &mut ready);
            }
        }
        while !ready.is_empty() {
            let mut level = Level::default();
            while level.bootstraps.len() < cap {
                match ready.pop() {
                    Some((_, Reverse(i))) => level.bootstraps.push(NodeId(i)),
                    None => break,
                }
            }
            level.bootstraps.sort();
            for k in 0..level.bootstraps.len() {
                let id = level.bootstraps[k].0;
                finish(id, &mut level, &mut pending, &mut ready);
            }
            levels.push(level);
        }
        levels
    }

    /// Everything an executor needs, computed once: liveness, the schedule, each
    /// level's grouping into blind rotations, and after which level each value is
    /// read for the last time.
    pub fn plan(&self) -> Plan {
        let live = self.live();
        let schedule = self.schedule_live(&live);
        self.plan_from(live, schedule)
    }

    /// [`Circuit::plan`] on the list schedule of [`Circuit::schedule_for_threads`]: for
    /// an executor with `threads` threads (the CPU). Its cost is the circuit's, but for
    /// the width (at most `threads`) and the groupings of narrower levels.
    pub fn plan_for_threads(&self, threads: usize) -> Plan {
        let live = self.live();
        let schedule = self.list_schedule(&live, threads.max(1));
        self.plan_from(live, schedule)
    }

    fn plan_from(&self, live: Vec<bool>, schedule: Vec<Level>) -> Plan {
        // Last level that reads each node (outputs are never freed).
        let mut last_use: Vec<Option<usize>> = vec![None; self.nodes.len()];
        for (l, level) in schedule.iter().enumerate() {
            for &id in level.bootstraps.iter().chain(&level.others) {
                for operand in self.node(id).operands() {
                    last_use[operand.index()] = Some(l);
                }
            }
        }
        for &o in &self.outputs {
            last_use[o.index()] = None;
        }
        let mut frees: Vec<Vec<NodeId>> = vec![Vec::new(); schedule.len()];
        for (i, l) in last_use.iter().enumerate() {
            if let Some(l) = l {
                frees[*l].push(NodeId(i as u32));
            }
        }
        let levels = schedule
            .into_iter()
            .zip(frees)
            .map(|(level, frees)| PlannedLevel {
                groups: LevelGroups::new(self, &level.bootstraps),
                level,
                frees,
            })
            .collect();
        Plan {
            fingerprint: self.fingerprint(),
            live,
            levels,
        }
    }
}

impl Circuit {
    /// A hash of the nodes and outputs, so that a plan knows its circuit.
    fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.nodes.hash(&mut h);
        self.outputs.hash(&mut h);
        h.finish()
    }
}

impl Node {
    /// The nodes this node reads.
    pub fn operands(&self) -> Vec<NodeId> {
        match self {
            Node::Linear { terms, .. } => terms.iter().map(|t| t.0).collect(),
            Node::Lut { input, .. } | Node::HalfLut { input, .. } | Node::ManyLut { input, .. } => {
                vec![*input]
            }
            Node::Extract { group, .. } => vec![*group],
            Node::Tree { hi, lo, .. } => vec![*hi, *lo],
            Node::Input { .. } | Node::Const(_) => Vec::new(),
        }
    }
}

/// One level of a [`Plan`]: its nodes, its bootstraps grouped into blind rotations, and
/// the values nothing reads after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedLevel {
    /// The level's bootstraps and other nodes.
    pub level: Level,
    /// Its bootstraps grouped as they run (and as the cost model counts them).
    pub groups: LevelGroups,
    /// Nodes last read in this level (never an output): an executor frees them after it.
    pub frees: Vec<NodeId>,
}

/// A circuit's execution plan ([`Circuit::plan`]): computed once, shared by the cost
/// model, the budget check and every backend of [`crate::exec`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    fingerprint: u64,
    live: Vec<bool>,
    levels: Vec<PlannedLevel>,
}

impl Plan {
    /// Which nodes an output depends on.
    pub fn live(&self) -> &[bool] {
        &self.live
    }
    /// The levels, in execution order.
    pub fn levels(&self) -> &[PlannedLevel] {
        &self.levels
    }
    /// Whether the plan was made for this circuit (same nodes and outputs).
    pub fn fits(&self, circuit: &Circuit) -> bool {
        self.fingerprint == circuit.fingerprint()
    }
}
