//! The finished circuit: nodes in topological order with their depth, weight and label.

use super::{Node, NodeId};
use crate::lut::{NegacyclicLut, Table256};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Info {
    pub(crate) depth: u32,
    pub(crate) qweight: u64,
    pub(crate) label: u32,
}

/// A finished circuit: nodes in topological order, inputs and outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Circuit {
    pub(crate) nodes: Vec<Node>,
    pub(crate) info: Vec<Info>,
    pub(crate) luts: Vec<NegacyclicLut>,
    pub(crate) tables: Vec<Table256>,
    pub(crate) labels: Vec<String>,
    pub(crate) inputs: Vec<NodeId>,
    pub(crate) outputs: Vec<NodeId>,
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
            Node::Lut { input, .. } | Node::HalfLut { input, .. } | Node::ManyLut { input, .. } => {
                Some(self.qweight(*input))
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
            stack.extend(self.node(id).operands());
        }
        live
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
