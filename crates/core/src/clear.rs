//! The clear executor: runs a circuit on plaintext digits, exactly as the
//! encrypted executors would (all arithmetic mod 32, LUTs negacyclic), and
//! reports the cost. It is the oracle the other executors are tested against.

use crate::circuit::{Circuit, Cost, Node};
use crate::lut::reduce;
use crate::CoreError;

/// Runs `circuit` on `inputs` (one value per input digit) and returns the
/// output digits in `[-16, 16)`.
///
/// ```
/// use encint_core::{circuit::Builder, clear, lut::NegacyclicLut};
/// let mut b = Builder::new();
/// let (x, y) = (b.input(), b.input());
/// let s = b.linear(&[(x, 3), (y, 1)], 0);
/// let sign = b.lut(s, &NegacyclicLut::from_fn(-15..=15, i64::signum).unwrap());
/// let c = b.finish(vec![sign]);
/// let (out, cost) = clear::run(&c, &[-1, 1]).unwrap();
/// assert_eq!(out, vec![-1]);
/// assert_eq!(cost.bootstraps, 1);
/// ```
pub fn run(circuit: &Circuit, inputs: &[i64]) -> Result<(Vec<i64>, Cost), CoreError> {
    if inputs.len() != circuit.inputs().len() {
        return Err(CoreError::InputCount {
            expected: circuit.inputs().len(),
            found: inputs.len(),
        });
    }
    let mut values: Vec<i64> = vec![0; circuit.nodes().len()];
    for level in circuit.schedule() {
        for &id in &level.bootstraps {
            values[id.index()] = match circuit.node(id) {
                Node::Lut { input, lut } => circuit.lut(*lut).eval(values[input.index()]),
                Node::HalfLut { input, lut } => {
                    crate::circuit::half_eval(circuit.lut(*lut), values[input.index()])
                }
                Node::Tree { hi, lo, table } => {
                    let (h, l) = (values[hi.index()], values[lo.index()]);
                    circuit.table(*table).eval(h, l).ok_or_else(|| {
                        CoreError::TreeInputOutOfRange {
                            node: id.0,
                            operation: circuit.label(id).to_string(),
                            value: if (0..16).contains(&h) { l } else { h },
                        }
                    })?
                }
                _ => 0,
            };
        }
        for &id in &level.others {
            values[id.index()] = match circuit.node(id) {
                Node::Input { index, .. } => reduce(inputs[*index as usize]),
                Node::Const(v) => *v,
                Node::Linear { terms, constant } => reduce(
                    terms
                        .iter()
                        .fold(*constant, |acc, &(t, w)| acc + w * values[t.index()]),
                ),
                Node::Extract { group, index } => match circuit.node(*group) {
                    Node::ManyLut { input, luts } => circuit
                        .lut(luts[*index as usize])
                        .eval(values[input.index()]),
                    _ => unreachable!("Extract always points at a ManyLut"),
                },
                Node::Lut { .. }
                | Node::HalfLut { .. }
                | Node::ManyLut { .. }
                | Node::Tree { .. } => {
                    unreachable!("bootstraps run above")
                }
            };
        }
    }
    let outputs = circuit
        .outputs()
        .iter()
        .map(|o| values[o.index()])
        .collect();
    Ok((outputs, circuit.cost()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::Builder;
    use crate::lut::NegacyclicLut;

    #[test]
    fn many_lut_matches_separate_luts() {
        let mut b = Builder::new();
        let x = b.input();
        let f = NegacyclicLut::from_fn(-4..=4, |v| v * 2).unwrap();
        let g = NegacyclicLut::from_fn(-4..=4, |v| v.abs()).unwrap();
        let outs = b.many_lut(x, &[f, g]);
        let c = b.finish(outs);
        for v in -4..=4 {
            let (o, cost) = run(&c, &[v]).unwrap();
            assert_eq!(o, vec![2 * v, v.abs()]);
            assert_eq!(cost.bootstraps, 1);
            assert_eq!(cost.max_qweight, 4, "two tables: 1 · 2²");
        }
    }

    #[test]
    fn wrong_input_count() {
        let mut b = Builder::new();
        let x = b.input();
        let c = b.finish(vec![x]);
        assert!(run(&c, &[]).is_err());
    }
}
