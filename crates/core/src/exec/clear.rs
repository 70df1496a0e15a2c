//! The clear executor: runs a circuit on plaintext digits, exactly as the
//! encrypted executors would (all arithmetic mod 32, LUTs negacyclic), and
//! reports the cost. It is the oracle the other executors are tested against, and the
//! simplest [`Backend`] of the level walker in [`crate::exec`].

use crate::circuit::{half_eval, Circuit, Cost, Node, NodeId, PlannedLevel};
use crate::exec::{self, Backend, Output, Values};
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
    let plan = circuit.plan();
    let reduced: Vec<i64> = inputs.iter().map(|&v| reduce(v)).collect();
    let refs: Vec<&i64> = reduced.iter().collect();
    let outputs = exec::run(&Clear, circuit, &plan, &refs)?;
    Ok((outputs, plan.cost(circuit)))
}

/// The clear backend of the level walker: digits are plaintexts in `[-16, 16)`, every
/// node kind runs, and there is no noise budget.
#[derive(Debug, Clone, Copy, Default)]
pub struct Clear;

impl Backend for Clear {
    type Value = i64;
    type Error = CoreError;

    fn budget(&self) -> Option<u64> {
        None
    }

    fn constant(&self, value: i64) -> i64 {
        value
    }

    fn linear(&self, terms: &[(&i64, i64)], constant: i64) -> Result<i64, CoreError> {
        Ok(reduce(
            terms.iter().fold(constant, |acc, &(v, w)| acc + w * *v),
        ))
    }

    fn bootstrap_level(
        &self,
        circuit: &Circuit,
        level: &PlannedLevel,
        values: &Values<i64>,
    ) -> Result<Vec<(NodeId, Output<i64>)>, CoreError> {
        level
            .level
            .bootstraps
            .iter()
            .map(|&id| {
                let out = match circuit.node(id) {
                    Node::Lut { input, lut } => {
                        Output::One(circuit.lut(*lut).eval(*values.get(*input)))
                    }
                    Node::HalfLut { input, lut } => {
                        Output::One(half_eval(circuit.lut(*lut), *values.get(*input)))
                    }
                    Node::ManyLut { input, luts } => Output::Many(
                        luts.iter()
                            .map(|&l| circuit.lut(l).eval(*values.get(*input)))
                            .collect(),
                    ),
                    Node::Tree { hi, lo, table } => {
                        let (h, l) = (*values.get(*hi), *values.get(*lo));
                        Output::One(circuit.table(*table).eval(h, l).ok_or_else(|| {
                            CoreError::TreeInputOutOfRange {
                                node: id.0,
                                operation: circuit.label(id).to_string(),
                                value: if (0..16).contains(&h) { l } else { h },
                            }
                        })?)
                    }
                    Node::Input { .. }
                    | Node::Const(_)
                    | Node::Linear { .. }
                    | Node::Extract { .. } => {
                        unreachable!("the schedule puts only bootstraps in a level's batch")
                    }
                };
                Ok((id, out))
            })
            .collect()
    }
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
