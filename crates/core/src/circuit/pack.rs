//! Tables of one selector in shared blind rotations: the packing [`Builder::finish`]
//! applies, and its inverse for backends that run one table per rotation.
//!
//! [`Builder::finish`]: super::Builder::finish

use std::collections::HashMap;

use super::node::tables_per_rotation;
use super::{Circuit, Info, Node, NodeId};

/// A selector's known window: its first value and its number of values.
type Window = (i64, u8);

/// `node` with every operand `x` replaced by `map[x]`.
fn remap(node: &Node, map: &[NodeId]) -> Node {
    let m = |x: &NodeId| map[x.index()];
    match node {
        Node::Input { .. } | Node::Const(_) => node.clone(),
        Node::Linear { terms, constant } => Node::Linear {
            terms: terms.iter().map(|(t, w)| (m(t), *w)).collect(),
            constant: *constant,
        },
        Node::Lut { input, lut } => Node::Lut {
            input: m(input),
            lut: *lut,
        },
        Node::HalfLut { input, lut } => Node::HalfLut {
            input: m(input),
            lut: *lut,
        },
        Node::ManyLut {
            input,
            luts,
            lo,
            len,
        } => Node::ManyLut {
            input: m(input),
            luts: luts.clone(),
            lo: *lo,
            len: *len,
        },
        Node::Tree { hi, lo, table } => Node::Tree {
            hi: m(hi),
            lo: m(lo),
            table: *table,
        },
        Node::Extract { group, index } => Node::Extract {
            group: m(group),
            index: *index,
        },
    }
}

/// `circuit` with the live plain tables on each selector of a known window (`windows`:
/// first value and length) gathered into [`Node::ManyLut`] nodes, `16 / len` tables per
/// rotation in order of appearance, each table's node becoming an [`Node::Extract`] of
/// its rotation. Every other node is kept (renumbered); values, depths and weights are
/// unchanged, and each gathered group of `k` bootstraps becomes one.
pub(crate) fn pack(circuit: Circuit, windows: &HashMap<NodeId, Window>) -> Circuit {
    if windows.is_empty() {
        return circuit;
    }
    let live = circuit.live();
    // The live tables (node, table index) of each selector whose tables are gathered.
    let mut by_input: HashMap<NodeId, Vec<(NodeId, u32)>> = HashMap::new();
    for (i, node) in circuit.nodes.iter().enumerate() {
        if let (true, Node::Lut { input, lut }) = (live[i], node) {
            if tables_per_rotation(windows.get(input)).is_some() {
                by_input
                    .entry(*input)
                    .or_default()
                    .push((NodeId(i as u32), *lut));
            }
        }
    }
    // Each table's rotation: (the rotation's first table, position in it); each rotation
    // (by its first table): the selector's window and the tables.
    let mut member: HashMap<NodeId, (NodeId, u32)> = HashMap::new();
    let mut rotations: HashMap<NodeId, (Window, Vec<u32>)> = HashMap::new();
    for (input, luts) in by_input {
        let window = windows[&input];
        let per = tables_per_rotation(Some(&window)).unwrap_or(1);
        for chunk in luts.chunks(per).filter(|c| c.len() > 1) {
            for (k, &(id, _)) in chunk.iter().enumerate() {
                member.insert(id, (chunk[0].0, k as u32));
            }
            rotations.insert(chunk[0].0, (window, chunk.iter().map(|t| t.1).collect()));
        }
    }
    if rotations.is_empty() {
        return circuit;
    }
    let mut nodes = Vec::with_capacity(circuit.nodes.len() + rotations.len());
    let mut info: Vec<Info> = Vec::with_capacity(nodes.capacity());
    let mut map: Vec<NodeId> = Vec::with_capacity(circuit.nodes.len());
    let mut group_of: HashMap<NodeId, NodeId> = HashMap::new();
    for (i, node) in circuit.nodes.iter().enumerate() {
        let id = NodeId(i as u32);
        let node = remap(node, &map);
        let mine = circuit.info[i];
        if let Some(&(first, index)) = member.get(&id) {
            // The rotation's first table: the rotation node, before its first output.
            if let (Some(((lo, len), luts)), Node::Lut { input, .. }) =
                (rotations.remove(&id), node)
            {
                group_of.insert(id, NodeId(nodes.len() as u32));
                nodes.push(Node::ManyLut {
                    input,
                    luts,
                    lo,
                    len,
                });
                info.push(Info { qweight: 0, ..mine });
            }
            map.push(NodeId(nodes.len() as u32));
            nodes.push(Node::Extract {
                group: group_of[&first],
                index,
            });
        } else {
            map.push(NodeId(nodes.len() as u32));
            nodes.push(node);
        }
        info.push(mine);
    }
    Circuit {
        inputs: circuit.inputs.iter().map(|x| map[x.index()]).collect(),
        outputs: circuit.outputs.iter().map(|x| map[x.index()]).collect(),
        nodes,
        info,
        ..circuit
    }
}

impl Circuit {
    /// Number of [`Node::ManyLut`] nodes: blind rotations shared by several tables.
    pub fn many_lut_count(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| matches!(n, Node::ManyLut { .. }))
            .count()
    }

    /// The same circuit with every [`Node::ManyLut`] taken apart: each of its outputs one
    /// plain bootstrap of its own table (correct on the window), the rotation node left
    /// unread. For backends that run one table per blind rotation; node numbers, values,
    /// depths and weights are unchanged.
    pub fn unpack_many(&self) -> Circuit {
        let mut c = self.clone();
        for i in 0..c.nodes.len() {
            if let Node::Extract { group, index } = c.nodes[i] {
                if let Node::ManyLut { input, luts, .. } = &c.nodes[group.index()] {
                    c.nodes[i] = Node::Lut {
                        input: *input,
                        lut: luts[index as usize],
                    };
                }
            }
        }
        for n in &mut c.nodes {
            if matches!(n, Node::ManyLut { .. }) {
                *n = Node::Const(0);
            }
        }
        c
    }
}
