//! The FV (BFV) cost of a boolean circuit: bits are slots holding 0 or 1 over Z_t,
//! AND = `ab`, XOR = `a + b - 2ab`, OR = `a + b - ab`, NOT = `1 - a`,
//! MUX = `other + sel·(then - other)`: one ciphertext product each (NOT none);
//! XOR3 = XOR(XOR(a, b), c) and MAJ = `ab + c·(a + b - 2ab)`: two products each.
//! A counter output is costed as its expansion into full and half adders
//! ([`expand_counters`]). Products are counted per gate (a full adder's XOR3 and
//! MAJ could share `ab`; this model does not credit that).

use super::{Bit, BitBuilder, BitCircuit, Gate};

/// FV cost of a boolean circuit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FvCost {
    /// Ciphertext-ciphertext products (each followed by a relinearization).
    pub products: u64,
    /// Multiplicative depth (products on the longest path).
    pub depth: u32,
}

/// Products and depth of one gate, given its operands' depths (indexed by bit).
fn gate_cost(g: &Gate, d: &[u32]) -> (u64, u32) {
    gate_cost_by(g, |b| d[b.index()])
}

/// Products and FV depth of one gate, given a function giving each operand's depth.
/// AND, OR, XOR and MUX cost one product (depth of the deepest operand plus one), XOR3
/// and MAJ two (the deepest operand enters last), NOT and constants none. Counters must
/// be expanded first ([`expand_counters`]): a counter reports depth `u32::MAX / 2`.
pub fn gate_cost_by(g: &Gate, d: impl Fn(&Bit) -> u32) -> (u64, u32) {
    let dd = |b: &Bit| d(b);
    match g {
        Gate::Input(_) | Gate::Const(_) => (0, 0),
        Gate::Not(a) => (0, dd(a)),
        Gate::And(a, b) | Gate::Or(a, b) | Gate::Xor(a, b) => (1, dd(a).max(dd(b)) + 1),
        Gate::Mux { sel, then, other } => (1, dd(sel).max(dd(then)).max(dd(other)) + 1),
        Gate::Xor3(a, b, c) | Gate::Maj(a, b, c) => {
            // The deepest operand enters last.
            let mut v = [dd(a), dd(b), dd(c)];
            v.sort_unstable();
            (2, (v[1] + 1).max(v[2]) + 1)
        }
        _ => (0, u32::MAX / 2),
    }
}

/// The FV cost of the live part of `circuit`.
///
/// ```
/// use encint_core::bits::{fv, BitBuilder};
/// let mut b = BitBuilder::new();
/// let (x, y) = (b.input(), b.input());
/// let a = b.and(x, y);
/// let c = b.finish(vec![a]);
/// assert_eq!(fv::cost(&c), fv::FvCost { products: 1, depth: 1 });
/// ```
pub fn cost(circuit: &BitCircuit) -> FvCost {
    let expanded = expand_counters(circuit);
    let live = expanded.live();
    let mut d = vec![0u32; expanded.gates().len()];
    let mut out = FvCost::default();
    for (i, g) in expanded.gates().iter().enumerate() {
        let (p, depth) = gate_cost(g, &d);
        d[i] = depth;
        if live[i] {
            out.products += p;
            out.depth = out.depth.max(depth);
        }
    }
    out
}

/// The same circuit with every counter replaced by full adders (XOR3, MAJ) and half
/// adders (XOR, AND) over the columns of its weighted sum.
pub fn expand_counters(circuit: &BitCircuit) -> BitCircuit {
    let mut b = BitBuilder::new();
    let mut map: Vec<Bit> = Vec::with_capacity(circuit.gates().len());
    for g in circuit.gates() {
        let m = |x: &Bit| map[x.index()];
        let bit = match g {
            Gate::Input(_) => b.input(),
            Gate::Const(c) => b.constant(*c),
            Gate::Not(a) => b.not(m(a)),
            Gate::And(x, y) => b.and(m(x), m(y)),
            Gate::Or(x, y) => b.or(m(x), m(y)),
            Gate::Xor(x, y) => b.xor(m(x), m(y)),
            Gate::Mux { sel, then, other } => b.mux(m(sel), m(then), m(other)),
            Gate::Xor3(x, y, z) => b.xor3(m(x), m(y), m(z)),
            Gate::Maj(x, y, z) => b.maj(m(x), m(y), m(z)),
            Gate::Count { terms, offset, bit } => {
                let mut cols: Vec<Vec<Bit>> = vec![Vec::new(); 40];
                for &(t, w) in terms {
                    for (k, col) in cols.iter_mut().enumerate().take(32) {
                        if (w >> k) & 1 == 1 {
                            col.push(m(&t));
                        }
                    }
                }
                for (k, col) in cols.iter_mut().enumerate().take(32) {
                    if (offset >> k) & 1 == 1 {
                        col.push(b.constant(true));
                    }
                }
                adder_columns(&mut b, &mut cols, *bit as usize + 1)[*bit as usize]
            }
        };
        map.push(bit);
    }
    let outputs = circuit.outputs().iter().map(|o| map[o.index()]).collect();
    b.finish(outputs)
}

/// Reduces columns of bits (column `k` has weight `2^k`) to `width` result bits with
/// full and half adders (carries past `width` dropped).
fn adder_columns(b: &mut BitBuilder, cols: &mut [Vec<Bit>], width: usize) -> Vec<Bit> {
    let mut out = Vec::with_capacity(width);
    for k in 0..width {
        while cols[k].len() > 1 {
            let x = cols[k].pop().expect("two bits");
            let y = cols[k].pop().expect("two bits");
            let (s, c) = match cols[k].pop() {
                Some(z) => (b.xor3(x, y, z), b.maj(x, y, z)),
                None => (b.xor(x, y), b.and(x, y)),
            };
            cols[k].insert(0, s);
            if k + 1 < cols.len() {
                cols[k + 1].push(c);
            }
        }
        out.push(
            cols[k]
                .first()
                .copied()
                .unwrap_or_else(|| b.constant(false)),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expanded_counters_agree_with_counters() {
        let mut b = BitBuilder::new();
        let xs: Vec<Bit> = (0..6).map(|_| b.input()).collect();
        let mut outs = b
            .count(
                &[(xs[0], 1), (xs[1], 2), (xs[2], 3), (xs[3], 1), (xs[4], 2)],
                2,
            )
            .unwrap();
        outs.extend(
            b.count(&xs.iter().map(|&x| (x, 1)).collect::<Vec<_>>(), 0)
                .unwrap(),
        );
        let c = b.finish(outs);
        let e = expand_counters(&c);
        assert!(e.gates().iter().all(|g| !matches!(g, Gate::Count { .. })));
        for m in 0..64u32 {
            let bits: Vec<bool> = (0..6).map(|k| (m >> k) & 1 == 1).collect();
            assert_eq!(c.eval(&bits).unwrap(), e.eval(&bits).unwrap());
        }
        assert!(cost(&c).products > 0);
    }

    #[test]
    fn gate_costs() {
        let mut b = BitBuilder::new();
        let (x, y, z) = (b.input(), b.input(), b.input());
        let a = b.and(x, y);
        let m = b.maj(a, y, z);
        let c = b.finish(vec![m]);
        assert_eq!(
            cost(&c),
            FvCost {
                products: 3,
                depth: 2
            }
        );
    }
}
