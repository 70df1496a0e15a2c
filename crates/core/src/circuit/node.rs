//! Node kinds of the circuit IR.

pub use crate::ids::NodeId;
use crate::lut::{reduce, NegacyclicLut};

/// Quadratic weight charged to the output of a [`Node::Tree`]: its noise is the second
/// blind rotation's plus the encrypted accumulator's (first-level multi-value output and
/// packing keyswitch), bounded by twice a fresh bootstrap output's variance (measured in
/// `encint-tfhe`'s tree tests).
pub const TREE_QWEIGHT: u64 = 2;

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
    /// Several tables of one input in one blind rotation, the input known to lie in the
    /// `len` consecutive values from `lo` (modulo 32), with `len · luts.len() ≤ 16`. The
    /// tables sit side by side in one test polynomial and output `j` is read some slots
    /// further on ([`many_lut_packing`]): the boxes, the input's noise margin and so the
    /// failure probability are those of one plain bootstrap, and each output has a
    /// bootstrap output's noise. An input outside the window would read another table, so
    /// builders create these nodes only on inputs whose range they know
    /// ([`Builder::lut_in`](crate::circuit::Builder::lut_in)), and the clear executor
    /// refuses an input outside it. Its outputs are read by [`Node::Extract`].
    ManyLut {
        /// Selector.
        input: NodeId,
        /// Indices of tables, each read with [`Circuit::lut`](crate::circuit::Circuit::lut)
        /// (each correct on the window).
        luts: Vec<u32>,
        /// First value of the input's window.
        lo: i64,
        /// Number of values in the window.
        len: u8,
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

/// Whether `x` lies in the `len` values from `lo` (modulo 32): the window of a
/// [`Node::ManyLut`].
pub fn in_window(x: i64, lo: i64, len: u8) -> bool {
    (x - lo).rem_euclid(32) < i64::from(len)
}

/// Whether `tables` tables on a window of `len` values fit one test polynomial side by
/// side (16 slots).
pub fn many_lut_fits(len: u8, tables: usize) -> bool {
    tables > 0 && len > 0 && usize::from(len) * tables <= 16
}

/// How many tables on a selector of window `window` (first value, length) share one blind
/// rotation when [`Builder::finish`](crate::circuit::Builder::finish) gathers them: `16 /
/// len` for a window of at most 8 values; `None` (one table per rotation) otherwise.
pub(crate) fn tables_per_rotation(window: Option<&(i64, u8)>) -> Option<usize> {
    window
        .filter(|w| (1..=8).contains(&w.1))
        .map(|w| 16 / usize::from(w.1))
}

/// The one table and the read offsets of a [`Node::ManyLut`] of `luts` on the window of
/// `len` values from `lo`: table `j` occupies slots `j·len .. (j+1)·len` (slot `j·len + i`
/// holds its value at `lo + i`, unused slots 0), and output `j` is the table read
/// `(j·len − lo) mod 32` slots after the input, which lands on slot `j·len + i` for the
/// input `lo + i`. `None` when the tables do not fit (`len · luts.len() > 16`, or no table).
pub fn many_lut_packing(
    luts: &[&NegacyclicLut],
    lo: i64,
    len: u8,
) -> Option<(NegacyclicLut, Vec<u8>)> {
    if !many_lut_fits(len, luts.len()) {
        return None;
    }
    let w = usize::from(len);
    let mut table = [0i8; 16];
    let mut offsets = Vec::with_capacity(luts.len());
    for (j, lut) in luts.iter().enumerate() {
        for i in 0..w {
            table[j * w + i] = reduce(lut.eval(lo + i as i64)) as i8;
        }
        offsets.push(((j * w) as i64 - lo).rem_euclid(32) as u8);
    }
    Some((NegacyclicLut { table }, offsets))
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
