//! Lowering boolean circuits to the digit IR (TFHE), and conversions between
//! bit vectors and signed-binary digits.
//!
//! A bit is a digit holding 0 or 1. `NOT a` is the linear `1 - a` (no bootstrap).
//! Every other gate is one bootstrap of a weighted sum `s = offset + Σ w·x` of its
//! input bits: AND = `[a+b = 2]`, OR = `[a+b ≥ 1]`, XOR = `[a+b = 1]`,
//! XOR3 = `(a+b+c) mod 2`, MAJ = `[a+b+c ≥ 2]`, MUX = a table of `4·sel + 2·then + other`
//! (quadratic weight 21), a counter output bit `k` = bit `k` of its sum. The sum's
//! values are at most 16 consecutive integers, so any function of them is a negacyclic
//! table (distinct selectors mod 16); a linear NOT input stays exact (`1 - a`).

use std::collections::HashMap;

use super::{BitCircuit, Gate};
use crate::circuit::{Builder, Circuit, NodeId};
use crate::lut::NegacyclicLut;
use crate::CoreError;

/// The weighted sum (terms, offset) and the function of it that a gate computes,
/// or `None` for the gates that need no bootstrap.
type GateSum = (Vec<(super::Bit, i64)>, i64, Box<dyn Fn(i64) -> i64>);

fn gate_sum(g: &Gate) -> Option<GateSum> {
    Some(match g {
        Gate::Input(_) | Gate::Const(_) | Gate::Not(_) => return None,
        Gate::And(a, b) => (vec![(*a, 1), (*b, 1)], 0, Box::new(|s| i64::from(s == 2))),
        Gate::Or(a, b) => (vec![(*a, 1), (*b, 1)], 0, Box::new(|s| i64::from(s >= 1))),
        Gate::Xor(a, b) => (vec![(*a, 1), (*b, 1)], 0, Box::new(|s| i64::from(s == 1))),
        Gate::Xor3(a, b, c) => (vec![(*a, 1), (*b, 1), (*c, 1)], 0, Box::new(|s| s & 1)),
        Gate::Maj(a, b, c) => (
            vec![(*a, 1), (*b, 1), (*c, 1)],
            0,
            Box::new(|s| i64::from(s >= 2)),
        ),
        Gate::Mux { sel, then, other } => (
            vec![(*sel, 4), (*then, 2), (*other, 1)],
            0,
            Box::new(|s| if s & 4 != 0 { (s >> 1) & 1 } else { s & 1 }),
        ),
        Gate::Count { terms, offset, bit } => {
            let bit = *bit;
            (
                terms.iter().map(|&(t, w)| (t, i64::from(w))).collect(),
                i64::from(*offset),
                Box::new(move |s| (s >> bit) & 1),
            )
        }
    })
}

/// A gate's table as a function of its operands' sum.
type PairFn = fn(i64) -> i64;

/// Who uses a bit: a gate index, or a counter's shared selector.
type UseKey = (usize, Option<(Vec<(super::Bit, u32)>, u32)>);

/// A 2-input gate that is a function of `a + b` (AND, OR, XOR): its operands and table.
fn pair_gate(g: &Gate) -> Option<(super::Bit, super::Bit, PairFn)> {
    match *g {
        Gate::And(a, b) => Some((a, b, |v| i64::from(v == 2))),
        Gate::Or(a, b) => Some((a, b, |v| i64::from(v >= 1))),
        Gate::Xor(a, b) => Some((a, b, |v| i64::from(v == 1))),
        _ => None,
    }
}

/// The key under which a bootstrapped gate uses its operands: the counter outputs of one
/// sum share one selector, so they count as one use.
fn use_key(i: usize, g: &Gate) -> UseKey {
    match g {
        Gate::Count { terms, offset, .. } => (usize::MAX, Some((terms.clone(), *offset))),
        _ => (i, None),
    }
}

/// How many distinct selectors (or NOT gates, or outputs) use each bit.
fn use_counts(circuit: &BitCircuit, live: &[bool]) -> Vec<u32> {
    let mut users: Vec<std::collections::HashSet<_>> =
        vec![Default::default(); circuit.gates().len()];
    for (i, g) in circuit.gates().iter().enumerate() {
        if live[i] {
            for x in super::operands(g) {
                users[x.index()].insert(use_key(i, g));
            }
        }
    }
    let mut n: Vec<u32> = users.iter().map(|u| u.len() as u32).collect();
    for o in circuit.outputs() {
        n[o.index()] += 1;
    }
    n
}

/// Lowers `circuit` into `b`, with `inputs[k]` the digit node of input bit `k`
/// (each holding 0 or 1); returns the digit nodes of its outputs.
///
/// Fusion: an AND, OR or XOR whose only user is one bootstrapped gate (or one counter's
/// outputs) is not bootstrapped on its own: its operands' sum `v = a + b` (0, 1 or 2)
/// enters the user's selector in a mixed radix, `r + M·v` with `M` one more than the
/// span of the user's other terms `r`, when the selector still spans at most 16 values
/// and its quadratic weight stays within [`super::QWEIGHT_BUDGET`]; the table decodes
/// `v`. Up to two such gates per selector (e.g. a full adder on `(r, c, d ⊕ s)`:
/// `r + c + 3(d + s)`, weight 20; two partial products `(a+b) + 3(c+d)`, weight 20).
pub fn lower_into(
    b: &mut Builder,
    circuit: &BitCircuit,
    inputs: &[NodeId],
) -> Result<Vec<NodeId>, CoreError> {
    if inputs.len() != circuit.input_count() {
        return Err(CoreError::InputCount {
            expected: circuit.input_count(),
            found: inputs.len(),
        });
    }
    let live = circuit.live();
    let uses = use_counts(circuit, &live);
    let mut d: Vec<Option<NodeId>> = vec![None; circuit.gates().len()];
    let mut sums: HashMap<(Vec<(NodeId, i64)>, i64), NodeId> = HashMap::new();
    for (i, g) in circuit.gates().iter().enumerate() {
        if !live[i] {
            continue;
        }
        let get = |x: super::Bit| d[x.index()].expect("operands precede their gates");
        let node = match g {
            Gate::Input(k) => inputs[*k as usize],
            Gate::Const(c) => b.constant(i64::from(*c)),
            Gate::Not(a) => b.linear(&[(get(*a), -1)], 1),
            _ => {
                let (terms, offset, f) = gate_sum(g).expect("a bootstrapped gate");
                // Fusable terms: single-use pair gates (their own digit is then never used).
                let mut raw: Vec<(NodeId, i64)> = Vec::new();
                let mut slots: Vec<(super::Bit, i64)> = Vec::new();
                for &(t, w) in &terms {
                    let fusable = uses[t.index()] == 1 && pair_gate(circuit.gate(t)).is_some();
                    if fusable && slots.len() < 2 {
                        slots.push((t, w));
                    } else {
                        raw.push((get(t), w));
                    }
                }
                // The largest subset of the slots that fits (the others are raw terms).
                let subsets: &[&[usize]] = match slots.len() {
                    2 => &[&[0, 1], &[0], &[1]],
                    1 => &[&[0]],
                    _ => &[],
                };
                let mut chosen: Vec<(super::Bit, i64)> = Vec::new();
                for subset in subsets {
                    let mut r = raw.clone();
                    let mut c = Vec::new();
                    for (j, &(t, w)) in slots.iter().enumerate() {
                        if subset.contains(&j) {
                            c.push((t, w));
                        } else {
                            r.push((get(t), w));
                        }
                    }
                    let r_span: i64 = r.iter().map(|t| t.1).sum();
                    let span = (r_span + 1) * 3i64.pow(c.len() as u32) - 1;
                    let linear = fused_terms(circuit, &r, r_span, &c, &get);
                    if span <= 15 && b.linear_qweight(&linear) <= super::QWEIGHT_BUDGET {
                        chosen = c;
                        break;
                    }
                }
                for &(t, w) in &slots {
                    if !chosen.iter().any(|c| c.0 == t) {
                        raw.push((get(t), w));
                    }
                }
                let raw_span: i64 = raw.iter().map(|t| t.1).sum();
                let (key, lut) = if chosen.is_empty() {
                    let lut = NegacyclicLut::from_fn(offset..=offset + raw_span, &f)?;
                    ((raw, offset), lut)
                } else {
                    let linear = fused_terms(circuit, &raw, raw_span, &chosen, &get);
                    let m = raw_span + 1;
                    let gates: Vec<(i64, PairFn)> = chosen
                        .iter()
                        .map(|&(t, w)| (w, pair_gate(circuit.gate(t)).expect("a pair gate").2))
                        .collect();
                    let top = m * 3i64.pow(chosen.len() as u32) - 1;
                    let lut = NegacyclicLut::from_fn(0..=top, |x| {
                        let mut s = offset + x % m;
                        let mut rest = x / m;
                        for &(w, gf) in &gates {
                            s += w * gf(rest % 3);
                            rest /= 3;
                        }
                        f(s)
                    })?;
                    ((linear, 0), lut)
                };
                let s = match sums.get(&key) {
                    Some(&s) => s,
                    None => {
                        let s = b.linear(&key.0, key.1);
                        sums.insert(key, s);
                        s
                    }
                };
                b.lut(s, &lut)
            }
        };
        d[i] = Some(node);
    }
    Ok(circuit
        .outputs()
        .iter()
        .map(|o| d[o.index()].expect("outputs are live"))
        .collect())
}

/// The selector's digit terms with fused slots: `raw + M·(a₁ + b₁) + 3M·(a₂ + b₂)`.
fn fused_terms(
    circuit: &BitCircuit,
    raw: &[(NodeId, i64)],
    raw_span: i64,
    slots: &[(super::Bit, i64)],
    get: &impl Fn(super::Bit) -> NodeId,
) -> Vec<(NodeId, i64)> {
    let mut out = raw.to_vec();
    let mut m = raw_span + 1;
    for &(t, _) in slots {
        let (a, c, _) = pair_gate(circuit.gate(t)).expect("a pair gate");
        out.push((get(a), m));
        out.push((get(c), m));
        m *= 3;
    }
    out
}

/// Lowers `circuit` to a digit circuit with one fresh input digit per input bit
/// (0 or 1) and one output digit per output bit.
pub fn lower(circuit: &BitCircuit) -> Result<Circuit, CoreError> {
    let mut b = Builder::new();
    let inputs: Vec<NodeId> = (0..circuit.input_count()).map(|_| b.input()).collect();
    let outputs = b.labelled("bits", |b| lower_into(b, circuit, &inputs))?;
    Ok(b.finish(outputs))
}

/// Two's-complement bits (`width` of them, least significant first) of the integer whose
/// signed-binary digits (each -1, 0 or 1, least significant first) are `digits`: the value
/// modulo `2^width`. A circuit: `P + ¬N + 1` with `P`, `N` the digits equal to 1 and -1,
/// two positions per step (`(d_i + 1) + 2(d_{i+1} + 1) + carry`, quadratic weight 6):
/// three bootstraps per two bits.
pub fn signed_digits_to_bits(b: &mut Builder, digits: &[NodeId], width: usize) -> Vec<NodeId> {
    let zero = b.constant(0);
    let digit = |i: usize| digits.get(i).copied().unwrap_or(zero);
    let mut carry = b.constant(1);
    let mut out = Vec::with_capacity(width);
    let mut i = 0;
    while i < width {
        let pair = i + 1 < width;
        let hi_w = if pair { 2 } else { 0 };
        let s = b.linear(&[(digit(i), 1), (digit(i + 1), hi_w), (carry, 1)], 1 + hi_w);
        let span = 2 + 2 * hi_w + 1;
        let bits = if pair { 3 } else { 1 };
        for k in 0..bits {
            if out.len() == width {
                break;
            }
            let lut = NegacyclicLut::from_fn(0..=span, |x| (x >> k) & 1)
                .expect("a sum in 0..8 fits a negacyclic table");
            let y = b.lut(s, &lut);
            if k == 2 {
                carry = y;
            } else {
                out.push(y);
            }
        }
        i += 2;
    }
    out
}

/// Signed-binary digits of a bit vector (free: linear nodes only). Unsigned bits are
/// already digits; in two's complement (`signed`), the top digit is `-b_{w-1}`.
pub fn bits_to_signed_digits(b: &mut Builder, bits: &[NodeId], signed: bool) -> Vec<NodeId> {
    let mut out = bits.to_vec();
    if signed {
        if let Some(top) = out.last_mut() {
            *top = b.neg(*top);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::every_gate;
    use super::super::BitBuilder;
    use super::*;
    use crate::{clear, signed};

    /// On every input, the digit circuit's outputs are bits (0 or 1) equal to the boolean
    /// circuit's.
    fn assert_lowering_agrees(c: &BitCircuit, digits: &Circuit) {
        let n = c.input_count();
        for m in 0..1u32 << n {
            let bits: Vec<bool> = (0..n).map(|k| (m >> k) & 1 == 1).collect();
            let want = c.eval(&bits).unwrap();
            let ins: Vec<i64> = bits.iter().map(|&v| i64::from(v)).collect();
            let (out, _) = clear::run(digits, &ins).unwrap();
            assert!(out.iter().all(|&v| v == 0 || v == 1), "inputs {bits:?}");
            let got: Vec<bool> = out.iter().map(|&v| v == 1).collect();
            assert_eq!(got, want, "inputs {bits:?}");
        }
    }

    #[test]
    fn lowered_gates_match_the_clear_circuit() {
        let mut b = BitBuilder::new();
        let (x, y, z) = (b.input(), b.input(), b.input());
        let nx = b.not(x);
        // Every gate on the inputs, and again with a negated input in the first place.
        let mut outs = every_gate(&mut b, x, y, z);
        outs.extend(every_gate(&mut b, nx, y, z));
        outs.extend([b.mux(x, nx, z), b.mux(nx, y, x), b.xor(nx, z)]);
        outs.extend(b.count(&[(x, 1), (y, 1), (z, 1)], 0).unwrap());
        let c = b.finish(outs);
        let digits = lower(&c).unwrap();
        assert!(digits.cost().max_qweight <= super::super::QWEIGHT_BUDGET);
        assert_lowering_agrees(&c, &digits);
    }

    #[test]
    fn single_use_pair_gates_fuse_into_their_user() {
        let mut b = BitBuilder::new();
        let (r, c, d, s, p, q) = (
            b.input(),
            b.input(),
            b.input(),
            b.input(),
            b.input(),
            b.input(),
        );
        // A full adder on (r, c, d ⊕ s): 2 bootstraps instead of 3.
        let t = b.xor(d, s);
        let mut outs = b.count(&[(r, 1), (c, 1), (t, 1)], 0).unwrap();
        // Two partial products summed: 2 bootstraps instead of 4.
        let (pp1, pp2) = (b.and(r, p), b.and(q, s));
        outs.extend(b.count(&[(pp1, 1), (pp2, 1)], 0).unwrap());
        // A gate used twice is not fused.
        let shared = b.or(p, q);
        outs.push(b.maj(shared, c, d));
        outs.push(shared);
        let circuit = b.finish(outs);
        let digits = lower(&circuit).unwrap();
        assert_eq!(digits.cost().bootstraps, 2 + 2 + 2);
        assert!(digits.cost().max_qweight <= 25);
        assert_lowering_agrees(&circuit, &digits);
    }

    #[test]
    fn digits_to_bits_and_back() {
        for len in 1..=5usize {
            for width in [len + 1, len + 2, 7] {
                let mut b = Builder::new();
                let ds: Vec<NodeId> = (0..len).map(|_| b.input()).collect();
                let bits = signed_digits_to_bits(&mut b, &ds, width);
                let back = bits_to_signed_digits(&mut b, &bits, true);
                let mut outs = bits.clone();
                outs.extend(back);
                let c = b.finish(outs);
                assert!(c.cost().max_qweight <= 25);
                let lim = (1i128 << len) - 1;
                for v in -lim..=lim {
                    let digits = signed::from_i128_len(v, len).unwrap();
                    let ins: Vec<i64> = digits.iter().map(|&d| i64::from(d)).collect();
                    let (out, _) = clear::run(&c, &ins).unwrap();
                    let bits_val: i128 = (0..width).map(|k| i128::from(out[k]) << k).sum::<i128>();
                    assert_eq!(bits_val, v.rem_euclid(1 << width), "v {v} len {len}");
                    let back: i128 = (0..width).map(|k| i128::from(out[width + k]) << k).sum();
                    assert_eq!(back, v, "v {v} len {len} width {width}");
                }
            }
        }
    }
}
