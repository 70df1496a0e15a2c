//! The boolean circuit IR: values are bits. Its gates are those of the bit-level arithmetic
//! of Trifan, Nicolau and Veidenbaum, "Enhancing the Privacy of Machine Learning via faster
//! arithmetic over Torus FHE", and of Chen, Feng, Liu and Wu, "Faster Binary Arithmetic
//! Operations on Encrypted Integers".
//!
//! Algorithms on bits (adders, multipliers, dividers in `encint-arith`) record
//! [`Gate`]s with a [`BitBuilder`]; the finished [`BitCircuit`] is
//!
//! - evaluated in the clear by [`BitCircuit::eval`] (the oracle),
//! - lowered to the digit IR by [`lower`] (TFHE: a gate or a counter output is one
//!   bootstrap of a weighted sum of its input bits, NOT is free), whose
//!   [`crate::circuit::Circuit::cost`] gives bootstraps and depth before any key exists,
//! - costed for FV by [`fv::cost`] (ciphertext products and multiplicative depth with
//!   AND = ab, XOR = a + b - 2ab, NOT = 1 - a over Z_t).
//!
//! The builder folds constants, simplifies trivial gates and shares identical gates.
//!
//! ```
//! use encint_core::bits::BitBuilder;
//! let mut b = BitBuilder::new();
//! let (x, y, z) = (b.input(), b.input(), b.input());
//! let s = b.xor3(x, y, z);
//! let c = b.maj(x, y, z);
//! let circuit = b.finish(vec![s, c]);
//! assert_eq!(circuit.eval(&[true, true, false]).unwrap(), vec![false, true]);
//! let digits = encint_core::bits::lower(&circuit).unwrap();
//! assert_eq!(digits.cost().bootstraps, 2);
//! ```

pub mod fv;
mod lower;

use std::collections::HashMap;

pub use lower::{bits_to_signed_digits, lower, lower_into, signed_digits_to_bits};

use crate::CoreError;

/// Largest span `Σ w` of a counter's weighted sum: its `Σ w + 1` possible values must
/// fit one negacyclic half-period (16 consecutive selectors) of the 5-bit digit space.
pub const MAX_COUNT_SPAN: u32 = 15;

/// Largest quadratic weight `Σ w²` of a counter's input (fresh bits have weight 1): the
/// parameter sets' budget (TFHE-rs `PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128` and its
/// `KS_PBS` sibling: 2-norm 5, p-fail 2^-129.6 per bootstrap; see `encint-tfhe`'s `params.rs`).
pub const QWEIGHT_BUDGET: u64 = 25;

node_index! {
    /// A bit-valued node of a [`BitCircuit`].
    Bit
}

/// One gate of a boolean circuit.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Gate {
    /// Encrypted input bit number `.0`.
    Input(u32),
    /// A known bit.
    Const(bool),
    /// `¬a` (free on both backends).
    Not(Bit),
    /// `a ∧ b`.
    And(Bit, Bit),
    /// `a ∨ b`.
    Or(Bit, Bit),
    /// `a ⊕ b`.
    Xor(Bit, Bit),
    /// `sel ? then : other`.
    Mux {
        /// Selector.
        sel: Bit,
        /// Value when `sel` is 1.
        then: Bit,
        /// Value when `sel` is 0.
        other: Bit,
    },
    /// `a ⊕ b ⊕ c` (full-adder sum, the ternary XOR3 of Trifan et al.).
    Xor3(Bit, Bit, Bit),
    /// Majority (2OF3, full-adder carry).
    Maj(Bit, Bit, Bit),
    /// Bit `bit` of `offset + Σ w·x` (a counter output; a `(k, ⌈log2(k+1)⌉)` counter
    /// is the set of these over its `k` unit-weight inputs). Built by [`BitBuilder::count`],
    /// which keeps `Σ w ≤` [`MAX_COUNT_SPAN`] and `Σ w² ≤` [`QWEIGHT_BUDGET`].
    Count {
        /// Distinct non-constant bits with weights `≥ 1`, sorted.
        terms: Vec<(Bit, u32)>,
        /// Constant added to the sum.
        offset: u32,
        /// Which bit of the sum.
        bit: u32,
    },
}

/// A finished boolean circuit: gates in topological order, inputs and outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitCircuit {
    gates: Vec<Gate>,
    inputs: usize,
    outputs: Vec<Bit>,
}

impl BitCircuit {
    /// All gates in topological order.
    pub fn gates(&self) -> &[Gate] {
        &self.gates
    }
    /// One gate.
    pub fn gate(&self, b: Bit) -> &Gate {
        &self.gates[b.index()]
    }
    /// Number of input bits.
    pub fn input_count(&self) -> usize {
        self.inputs
    }
    /// Output bits in order.
    pub fn outputs(&self) -> &[Bit] {
        &self.outputs
    }

    /// Which gates an output depends on.
    pub fn live(&self) -> Vec<bool> {
        let mut live = vec![false; self.gates.len()];
        let mut stack = self.outputs.clone();
        while let Some(b) = stack.pop() {
            if std::mem::replace(&mut live[b.index()], true) {
                continue;
            }
            stack.extend(operands(self.gate(b)));
        }
        live
    }

    /// Evaluates the circuit on clear bits (the oracle every backend is tested against).
    pub fn eval(&self, inputs: &[bool]) -> Result<Vec<bool>, CoreError> {
        if inputs.len() != self.inputs {
            return Err(CoreError::InputCount {
                expected: self.inputs,
                found: inputs.len(),
            });
        }
        let mut v = vec![false; self.gates.len()];
        for (i, g) in self.gates.iter().enumerate() {
            v[i] = match *g {
                Gate::Input(k) => inputs[k as usize],
                Gate::Const(c) => c,
                Gate::Not(a) => !v[a.index()],
                Gate::And(a, b) => v[a.index()] & v[b.index()],
                Gate::Or(a, b) => v[a.index()] | v[b.index()],
                Gate::Xor(a, b) => v[a.index()] ^ v[b.index()],
                Gate::Mux { sel, then, other } => {
                    if v[sel.index()] {
                        v[then.index()]
                    } else {
                        v[other.index()]
                    }
                }
                Gate::Xor3(a, b, c) => v[a.index()] ^ v[b.index()] ^ v[c.index()],
                Gate::Maj(a, b, c) => {
                    u8::from(v[a.index()]) + u8::from(v[b.index()]) + u8::from(v[c.index()]) >= 2
                }
                Gate::Count {
                    ref terms,
                    offset,
                    bit,
                } => {
                    let s = terms.iter().fold(u64::from(offset), |acc, &(t, w)| {
                        acc + u64::from(w) * u64::from(v[t.index()])
                    });
                    (s >> bit) & 1 == 1
                }
            };
        }
        Ok(self.outputs.iter().map(|o| v[o.index()]).collect())
    }

    /// Number of live gates of each kind that costs a bootstrap on TFHE (all but
    /// inputs, constants and NOT).
    pub fn gate_count(&self) -> usize {
        let live = self.live();
        self.gates
            .iter()
            .zip(&live)
            .filter(|(g, &l)| l && !matches!(g, Gate::Input(_) | Gate::Const(_) | Gate::Not(_)))
            .count()
    }
}

/// The operands of a gate.
pub fn operands(g: &Gate) -> Vec<Bit> {
    match g {
        Gate::Input(_) | Gate::Const(_) => vec![],
        Gate::Not(a) => vec![*a],
        Gate::And(a, b) | Gate::Or(a, b) | Gate::Xor(a, b) => vec![*a, *b],
        Gate::Mux { sel, then, other } => vec![*sel, *then, *other],
        Gate::Xor3(a, b, c) | Gate::Maj(a, b, c) => vec![*a, *b, *c],
        Gate::Count { terms, .. } => terms.iter().map(|t| t.0).collect(),
    }
}

/// Records a boolean circuit; folds constants and shares identical gates.
#[derive(Debug, Clone, Default)]
pub struct BitBuilder {
    gates: Vec<Gate>,
    index: HashMap<Gate, Bit>,
    inputs: u32,
}

impl BitBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    fn push(&mut self, g: Gate) -> Bit {
        if let Some(&b) = self.index.get(&g) {
            return b;
        }
        let b = Bit(self.gates.len() as u32);
        self.gates.push(g.clone());
        if !matches!(g, Gate::Input(_)) {
            self.index.insert(g, b);
        }
        b
    }

    /// The gate of a bit built so far.
    pub fn gate(&self, b: Bit) -> &Gate {
        &self.gates[b.index()]
    }

    /// A fresh encrypted input bit.
    pub fn input(&mut self) -> Bit {
        let k = self.inputs;
        self.inputs += 1;
        self.push(Gate::Input(k))
    }

    /// A known bit.
    pub fn constant(&mut self, c: bool) -> Bit {
        self.push(Gate::Const(c))
    }

    /// The value of a constant bit.
    pub fn const_value(&self, b: Bit) -> Option<bool> {
        match self.gates[b.index()] {
            Gate::Const(c) => Some(c),
            _ => None,
        }
    }

    /// `¬a`.
    pub fn not(&mut self, a: Bit) -> Bit {
        match self.gates[a.index()] {
            Gate::Const(c) => self.constant(!c),
            Gate::Not(x) => x,
            _ => self.push(Gate::Not(a)),
        }
    }

    /// `a ∧ b`.
    pub fn and(&mut self, a: Bit, b: Bit) -> Bit {
        self.and_or(a, b, false, Gate::And)
    }

    /// `a ∨ b`.
    pub fn or(&mut self, a: Bit, b: Bit) -> Bit {
        self.and_or(a, b, true, Gate::Or)
    }

    /// AND (`absorbing` false) or OR (`absorbing` true): a constant `absorbing` operand is
    /// the result, the other constant is neutral.
    fn and_or(&mut self, a: Bit, b: Bit, absorbing: bool, gate: fn(Bit, Bit) -> Gate) -> Bit {
        let (a, b) = (a.min(b), a.max(b));
        match (self.const_value(a), self.const_value(b)) {
            (Some(c), _) if c == absorbing => self.constant(absorbing),
            (_, Some(c)) if c == absorbing => self.constant(absorbing),
            (Some(_), _) => b,
            (_, Some(_)) => a,
            _ if a == b => a,
            _ => self.push(gate(a, b)),
        }
    }

    /// `a ⊕ b`.
    pub fn xor(&mut self, a: Bit, b: Bit) -> Bit {
        let (a, b) = (a.min(b), a.max(b));
        match (self.const_value(a), self.const_value(b)) {
            (Some(x), Some(y)) => self.constant(x ^ y),
            (Some(false), _) => b,
            (_, Some(false)) => a,
            (Some(true), _) => self.not(b),
            (_, Some(true)) => self.not(a),
            _ if a == b => self.constant(false),
            _ => self.push(Gate::Xor(a, b)),
        }
    }

    /// `a ⊕ b ⊕ c`.
    pub fn xor3(&mut self, a: Bit, b: Bit, c: Bit) -> Bit {
        let mut v = [a, b, c];
        v.sort();
        if let Some(i) = v.iter().position(|&x| self.const_value(x).is_some()) {
            let rest: Vec<Bit> = (0..3).filter(|&j| j != i).map(|j| v[j]).collect();
            let x = self.xor(rest[0], rest[1]);
            let k = v[i];
            return self.xor(x, k);
        }
        self.push(Gate::Xor3(v[0], v[1], v[2]))
    }

    /// Majority of three (2OF3).
    pub fn maj(&mut self, a: Bit, b: Bit, c: Bit) -> Bit {
        let mut v = [a, b, c];
        v.sort();
        if let Some(i) = v.iter().position(|&x| self.const_value(x).is_some()) {
            let rest: Vec<Bit> = (0..3).filter(|&j| j != i).map(|j| v[j]).collect();
            return if self.const_value(v[i]) == Some(true) {
                self.or(rest[0], rest[1])
            } else {
                self.and(rest[0], rest[1])
            };
        }
        if v[0] == v[1] || v[1] == v[2] {
            return v[1];
        }
        self.push(Gate::Maj(v[0], v[1], v[2]))
    }

    /// `sel ? then : other`.
    pub fn mux(&mut self, sel: Bit, then: Bit, other: Bit) -> Bit {
        match self.const_value(sel) {
            Some(true) => return then,
            Some(false) => return other,
            None => {}
        }
        if then == other {
            return then;
        }
        if sel == then {
            return self.or(sel, other);
        }
        if sel == other {
            return self.and(sel, then);
        }
        match (self.const_value(then), self.const_value(other)) {
            (Some(true), Some(false)) => sel,
            (Some(false), Some(true)) => self.not(sel),
            (Some(false), _) => {
                let ns = self.not(sel);
                self.and(ns, other)
            }
            (Some(true), _) => self.or(sel, other),
            (_, Some(false)) => self.and(sel, then),
            (_, Some(true)) => {
                let ns = self.not(sel);
                self.or(ns, then)
            }
            _ => self.push(Gate::Mux { sel, then, other }),
        }
    }

    /// The bits of `offset + Σ w·x`, least significant first, as many as its largest
    /// value needs (a counter; one TFHE bootstrap per output bit that is used).
    ///
    /// Constant terms fold into the offset and repeated bits merge. Fails unless the
    /// non-constant terms satisfy `Σ w ≤` [`MAX_COUNT_SPAN`] and `Σ w² ≤`
    /// [`QWEIGHT_BUDGET`].
    pub fn count(&mut self, terms: &[(Bit, u32)], offset: u32) -> Result<Vec<Bit>, CoreError> {
        let mut offset = u64::from(offset);
        let mut merged: Vec<(Bit, u32)> = Vec::new();
        for &(x, w) in terms {
            if w == 0 {
                continue;
            }
            match self.const_value(x) {
                Some(c) => offset += u64::from(c) * u64::from(w),
                None => match merged.iter_mut().find(|t| t.0 == x) {
                    Some(t) => t.1 += w,
                    None => merged.push((x, w)),
                },
            }
        }
        merged.sort();
        let span: u64 = merged.iter().map(|t| u64::from(t.1)).sum();
        let qw: u64 = merged.iter().map(|t| u64::from(t.1).pow(2)).sum();
        if span > u64::from(MAX_COUNT_SPAN) || qw > QWEIGHT_BUDGET {
            return Err(CoreError::InvalidArgument(format!(
                "counter with span {span} and quadratic weight {qw} exceeds {MAX_COUNT_SPAN} / \
                 {QWEIGHT_BUDGET}"
            )));
        }
        let max = offset + span;
        let len = 64 - max.leading_zeros();
        let offset = u32::try_from(offset)
            .map_err(|_| CoreError::InvalidArgument("counter offset too large".into()))?;
        Ok((0..len)
            .map(|bit| {
                if span == 0 {
                    return self.constant((offset >> bit) & 1 == 1);
                }
                // A bit above every variable contribution's reach may still change by carries,
                // so every bit of the sum is a gate unless the sum is constant.
                if merged.len() == 1 && merged[0].1 == 1 && offset == 0 && bit == 0 {
                    return merged[0].0;
                }
                self.push(Gate::Count {
                    terms: merged.clone(),
                    offset,
                    bit,
                })
            })
            .collect())
    }

    /// Finishes the circuit with the given outputs.
    pub fn finish(self, outputs: Vec<Bit>) -> BitCircuit {
        BitCircuit {
            gates: self.gates,
            inputs: self.inputs as usize,
            outputs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One of each gate on `x`, `y`, `z`: `not x`, `x and y`, `x or y`, `x xor y`,
    /// `mux(x, y, z)`, `xor3`, `maj`, then the 4 bits of the count `5 + x + 2y + 3z`.
    pub(super) fn every_gate(b: &mut BitBuilder, x: Bit, y: Bit, z: Bit) -> Vec<Bit> {
        let mut outs = vec![
            b.not(x),
            b.and(x, y),
            b.or(x, y),
            b.xor(x, y),
            b.mux(x, y, z),
            b.xor3(x, y, z),
            b.maj(x, y, z),
        ];
        outs.extend(b.count(&[(x, 1), (y, 2), (z, 3)], 5).unwrap());
        outs
    }

    #[test]
    fn every_gate_exhaustively() {
        let mut b = BitBuilder::new();
        let (x, y, z) = (b.input(), b.input(), b.input());
        let outs = every_gate(&mut b, x, y, z);
        let c = b.finish(outs);
        for m in 0..8u32 {
            let (p, q, r) = (m & 1 == 1, m & 2 == 2, m & 4 == 4);
            let out = c.eval(&[p, q, r]).unwrap();
            let s = 5 + u32::from(p) + 2 * u32::from(q) + 3 * u32::from(r);
            let mut want = vec![
                !p,
                p & q,
                p | q,
                p ^ q,
                if p { q } else { r },
                p ^ q ^ r,
                u32::from(p) + u32::from(q) + u32::from(r) >= 2,
            ];
            want.extend((0..4).map(|k| (s >> k) & 1 == 1));
            assert_eq!(out, want, "inputs {p} {q} {r}");
        }
    }

    #[test]
    fn counters_outside_the_budget_are_refused() {
        let mut b = BitBuilder::new();
        let xs: Vec<Bit> = (0..16).map(|_| b.input()).collect();
        let t: Vec<(Bit, u32)> = xs.iter().map(|&x| (x, 1)).collect();
        assert!(b.count(&t[..15], 0).is_ok());
        assert!(b.count(&t, 0).is_err());
        assert!(b.count(&[(xs[0], 5), (xs[1], 1)], 0).is_err()); // 26 > 25
        let c = b.constant(true);
        assert_eq!(b.count(&[(c, 3)], 1).unwrap().len(), 3);
    }

    #[test]
    fn constants_fold() {
        let mut b = BitBuilder::new();
        let x = b.input();
        let (t, f) = (b.constant(true), b.constant(false));
        assert_eq!(b.and(x, t), x);
        assert_eq!(b.and(x, f), f);
        assert_eq!(b.or(x, t), t);
        let nx = b.not(x);
        assert_eq!(b.xor(x, t), nx);
        assert_eq!(b.not(nx), x);
        assert_eq!(b.mux(t, x, f), x);
        assert_eq!(b.xor(x, x), f);
    }
}
