//! The grouping of one level's bootstraps into blind rotations: shared by the cost model
//! ([`super::Cost`]) and the executors that run trees, so both count and run the same thing.

use std::collections::HashMap;

use super::{Circuit, Node, NodeId};

/// The plain LUTs and tree first levels of one level that read one input `x`: one blind
/// rotation serves them all (`MVLUTeval` of Trama et al.), multi-value when there are several
/// LUTs or a tree among them, a plain bootstrap for a lone LUT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstLevelGroup {
    /// The shared selector.
    pub input: NodeId,
    /// The [`Node::Lut`] nodes on `input`, in schedule order.
    pub luts: Vec<NodeId>,
    /// The distinct tree tables (indices into [`Circuit::table`]) whose first level is on
    /// `input`: one packed accumulator each.
    pub tables: Vec<u32>,
}

impl FirstLevelGroup {
    /// Whether the group needs a multi-value first level (more than one LUT, or a tree);
    /// otherwise it is one plain bootstrap of its only LUT.
    pub fn is_multi_value(&self) -> bool {
        !self.tables.is_empty() || self.luts.len() > 1
    }
}

/// One level's bootstraps, grouped by how they run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LevelGroups {
    /// Plain LUTs and tree first levels by input, in order of first appearance.
    pub first: Vec<FirstLevelGroup>,
    /// Tree nodes (each one second-level blind rotation of its `(hi, table)` accumulator).
    pub trees: Vec<NodeId>,
    /// Half-step bootstraps (one plain blind rotation each).
    pub halves: Vec<NodeId>,
    /// Many-LUT nodes (one blind rotation each).
    pub many: Vec<NodeId>,
}

impl LevelGroups {
    /// Groups `bootstraps` (one level's bootstrap nodes of `circuit`).
    pub fn new(circuit: &Circuit, bootstraps: &[NodeId]) -> Self {
        let mut groups = LevelGroups::default();
        let mut index: HashMap<NodeId, usize> = HashMap::new();
        let mut group_of = |x: NodeId, first: &mut Vec<FirstLevelGroup>| -> usize {
            *index.entry(x).or_insert_with(|| {
                first.push(FirstLevelGroup {
                    input: x,
                    luts: Vec::new(),
                    tables: Vec::new(),
                });
                first.len() - 1
            })
        };
        for &id in bootstraps {
            match circuit.node(id) {
                Node::Lut { input, .. } => {
                    let g = group_of(*input, &mut groups.first);
                    groups.first[g].luts.push(id);
                }
                Node::Tree { hi, table, .. } => {
                    let g = group_of(*hi, &mut groups.first);
                    if !groups.first[g].tables.contains(table) {
                        groups.first[g].tables.push(*table);
                    }
                    groups.trees.push(id);
                }
                Node::HalfLut { .. } => groups.halves.push(id),
                Node::ManyLut { .. } => groups.many.push(id),
                Node::Input { .. }
                | Node::Const(_)
                | Node::Linear { .. }
                | Node::Extract { .. } => {}
            }
        }
        groups
    }

    /// Blind rotations: one per first-level group, tree, half-step and many-LUT node.
    pub fn blind_rotations(&self) -> u64 {
        (self.first.len() + self.trees.len() + self.halves.len() + self.many.len()) as u64
    }

    /// Packing keyswitches: one per distinct `(hi, table)`.
    pub fn packing_keyswitches(&self) -> u64 {
        self.first.iter().map(|g| g.tables.len() as u64).sum()
    }
}
