//! The clear executor: runs a circuit on plaintext digits, exactly as the
//! encrypted executors would (all arithmetic mod 32, LUTs negacyclic), and
//! reports the cost. It is the digit IR's one clear evaluator, the oracle the other
//! executors are tested against, and the simplest [`Backend`] of the level walker in
//! [`crate::exec`].

use super::{Backend, LevelOutputs, Output, Values};
use crate::circuit::{
    half_eval, in_window, many_lut_fits, many_lut_packing, Circuit, Cost, Node, PlannedLevel,
};
use crate::lut::{reduce, NegacyclicLut};
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
    let outputs = super::run(&Clear, circuit, &plan, &refs)?;
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
    ) -> Result<LevelOutputs<i64>, CoreError> {
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
                    Node::ManyLut {
                        input,
                        luts,
                        lo,
                        len,
                    } => {
                        let x = *values.get(*input);
                        if !many_lut_fits(*len, luts.len()) {
                            return Err(CoreError::InvalidArgument(format!(
                                "many-LUT node {}: {} tables on a window of {len} values do \
                                 not fit one test polynomial",
                                id.0,
                                luts.len()
                            )));
                        }
                        if !in_window(x, *lo, *len) {
                            return Err(CoreError::InvalidArgument(format!(
                                "many-LUT node {} of operation `{}`: input {x} outside its \
                                 window of {len} values from {lo}",
                                id.0,
                                circuit.label(id)
                            )));
                        }
                        // The test polynomial a bootstrap rotates: the tables side by side,
                        // read at each table's offset from the input (as the backends read
                        // one rotation), not each table on its own.
                        let tables: Vec<&NegacyclicLut> =
                            luts.iter().map(|&l| circuit.lut(l)).collect();
                        let (packed, offsets) =
                            many_lut_packing(&tables, *lo, *len).ok_or_else(|| {
                                CoreError::InvalidArgument(format!(
                                    "many-LUT node {}: no tables",
                                    id.0
                                ))
                            })?;
                        Output::Many(
                            offsets
                                .iter()
                                .map(|&o| packed.eval(x + i64::from(o)))
                                .collect(),
                        )
                    }
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
    use crate::circuit::{Builder, TREE_QWEIGHT};
    use crate::lut::{NegacyclicLut, Table256};

    #[test]
    fn many_lut_matches_separate_luts_on_its_window() {
        let mut b = Builder::new();
        let x = b.input();
        let f = NegacyclicLut::from_fn(-3..=4, |v| v * 2).unwrap();
        let g = NegacyclicLut::from_fn(-3..=4, |v| v.abs()).unwrap();
        assert!(
            b.many_lut(x, -3, 9, &[f, g]).is_err(),
            "18 slots do not fit 16"
        );
        let outs = b.many_lut(x, -3, 8, &[f, g]).unwrap();
        let c = b.finish(outs);
        for v in -3..=4 {
            let (o, cost) = run(&c, &[v]).unwrap();
            assert_eq!(o, vec![2 * v, v.abs()]);
            assert_eq!(cost.bootstraps, 1);
            assert_eq!(cost.max_qweight, 1, "the margin of one plain bootstrap");
        }
        for v in [5, -4, 12] {
            assert!(
                matches!(run(&c, &[v]), Err(CoreError::InvalidArgument(_))),
                "{v} is outside the window"
            );
        }
    }

    #[test]
    fn wrong_input_count() {
        let mut b = Builder::new();
        let x = b.input();
        let c = b.finish(vec![x]);
        assert!(run(&c, &[]).is_err());
    }

    #[test]
    fn trees_fold_share_and_count_like_mvluteval() {
        let add4 = Table256::from_fn(|i, j| ((i + j) % 16) as i64).unwrap();
        let carry = Table256::from_fn(|i, j| ((i + j) / 16) as i64).unwrap();
        let mut b = Builder::new();
        let (a0, a1, b0, b1) = (b.input(), b.input(), b.input(), b.input());
        // Trama et al., eq. (3): ADD = LUTeval + MVLUTeval(2 tables) + LUTeval = 7 BR, 4 KS.
        let s = b.tree(a0, b0, &add4).unwrap();
        let lo = b.tree(a1, b1, &add4).unwrap();
        let c = b.tree(a1, b1, &carry).unwrap();
        let hi = b.tree(s, c, &add4).unwrap();
        assert_eq!(b.tree(a0, b0, &add4).unwrap(), s, "shared");
        let circuit = b.finish(vec![hi, lo]);
        let cost = circuit.cost();
        assert_eq!((cost.blind_rotations, cost.packing_keyswitches), (7, 4));
        assert_eq!(cost.depth, 2);
        assert_eq!(cost.max_qweight, TREE_QWEIGHT);
        for (x, y) in [(0u8, 0u8), (255, 1), (17, 200), (128, 128)] {
            let n = |v: u8| [(v >> 4) as i64, (v & 15) as i64];
            let (o, _) = run(&circuit, &[n(x)[0], n(x)[1], n(y)[0], n(y)[1]]).unwrap();
            assert_eq!(o[0] * 16 + o[1], x.wrapping_add(y) as i64);
        }
        // Out-of-range inputs are reported, not evaluated.
        let err = run(&circuit, &[16, 0, 0, 0]).unwrap_err();
        assert!(matches!(
            err,
            CoreError::TreeInputOutOfRange { value: -16, .. }
        ));
    }

    #[test]
    fn tree_with_a_constant_input_is_one_bootstrap() {
        let t = Table256::from_fn(|i, j| ((3 * i + j) % 16) as i64).unwrap();
        let mut b = Builder::new();
        let x = b.input();
        let k = b.constant(5);
        let r1 = b.tree(k, x, &t).unwrap();
        let r2 = b.tree(x, k, &t).unwrap();
        let k2 = b.constant(2);
        let kk = b.tree(k, k2, &t).unwrap();
        assert_eq!(b.const_value(kk), Some(1));
        let bad = b.constant(-1);
        assert!(b.tree(bad, x, &t).is_err());
        let c = b.finish(vec![r1, r2]);
        // Two tables of one input in one level: one multi-value blind rotation.
        assert_eq!(c.cost().blind_rotations, 1);
        assert_eq!(c.cost().packing_keyswitches, 0);
        for v in 0..16 {
            let (o, _) = run(&c, &[v]).unwrap();
            assert_eq!(o, vec![(15 + v) % 16, (3 * v + 5) % 16]);
        }
    }

    #[test]
    fn half_step_carry_is_exact_and_one_bootstrap() {
        let mut b = Builder::new();
        let (x, y) = (b.input(), b.input());
        let s = b.add(x, y);
        let carry = NegacyclicLut { table: [-1; 16] };
        let c = b.half_lut(s, &carry).unwrap();
        assert_eq!(b.half_lut(s, &carry).unwrap(), c, "shared");
        assert!(b.half_lut(s, &NegacyclicLut { table: [2; 16] }).is_err());
        let k = b.constant(20);
        assert_eq!(b.half_lut(k, &carry).map(|n| b.const_value(n)), Ok(Some(1)));
        let circuit = b.finish(vec![c]);
        assert_eq!(circuit.cost().blind_rotations, 1);
        for xv in 0..16 {
            for yv in 0..16 {
                let (o, _) = run(&circuit, &[xv, yv]).unwrap();
                assert_eq!(o[0], (xv + yv >= 16) as i64);
            }
        }
    }
}
