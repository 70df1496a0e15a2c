//! Node kinds of the circuit IR.

use crate::lut::{reduce, NegacyclicLut};

/// Quadratic weight charged to the output of a [`Node::Tree`]: its noise is the second
/// blind rotation's plus the encrypted accumulator's (first-level multi-value output and
/// packing keyswitch), bounded by twice a fresh bootstrap output's variance (measured in
/// `encint-tfhe`'s tree tests).
pub const TREE_QWEIGHT: u64 = 2;

node_index! {
    /// Index of a node in its circuit.
    NodeId
}

/// One node of a circuit.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
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
        /// Index of a table, read with [`Circuit::lut`](crate::circuit::Circuit::lut).
        lut: u32,
    },
    /// One half-step bootstrap: the table holds odd values `h(x)` in units of one half
    /// (`h(x + 16) = -h(x)`), and the node's value is `(h(x) + 1) / 2`. It evaluates the
    /// functions with `f(x + 16) = 1 - f(x) (mod 32)`, e.g. the unit carry `[x >= 16]` of a
    /// sum `x` in `0..32`, which no negacyclic table can. Costs one plain bootstrap.
    HalfLut {
        /// Selector.
        input: NodeId,
        /// Index of a table, read with [`Circuit::lut`](crate::circuit::Circuit::lut)
        /// (values in half units).
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
        /// Indices of tables, each read with [`Circuit::lut`](crate::circuit::Circuit::lut).
        luts: Vec<u32>,
    },
    /// A bivariate table on two nibbles (`LUTeval` of Trama et al.): `table[16·hi + lo]`, both
    /// inputs in `0..16`. Costs two blind rotations (the first, on `hi`, is shared by every
    /// tree and LUT of the same level on the same input: `MVLUTeval`) and one packing
    /// keyswitch per distinct `(hi, table)` of a level.
    Tree {
        /// First-level selector (most significant nibble of the index).
        hi: NodeId,
        /// Second-level selector.
        lo: NodeId,
        /// Index of a 256-entry table, read with
        /// [`Circuit::table`](crate::circuit::Circuit::table).
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
