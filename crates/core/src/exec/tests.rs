use super::clear::Clear;
use super::*;
use crate::circuit::Builder;
use crate::lut::NegacyclicLut;
use std::cell::Cell;

/// Runs `inner`, recording the most values held when a level's batch starts; its noise
/// budget is 1 (fresh digits only).
struct Counting<B> {
    inner: B,
    most: Cell<usize>,
}

impl<B: Backend> Backend for Counting<B> {
    type Value = B::Value;
    type Error = B::Error;
    fn budget(&self) -> Option<u64> {
        Some(1)
    }
    fn constant(&self, value: i64) -> B::Value {
        self.inner.constant(value)
    }
    fn linear(&self, terms: &[(&B::Value, i64)], constant: i64) -> Result<B::Value, B::Error> {
        self.inner.linear(terms, constant)
    }
    fn bootstrap_level(
        &self,
        circuit: &Circuit,
        level: &PlannedLevel,
        values: &Values<'_, B::Value>,
    ) -> Result<LevelOutputs<B::Value>, B::Error> {
        self.most.set(self.most.get().max(values.held()));
        self.inner.bootstrap_level(circuit, level, values)
    }
}

/// The clear backend, counted.
fn counting() -> Counting<Clear> {
    Counting {
        inner: Clear,
        most: Cell::new(0),
    }
}

/// `x → x+1 → ... ` as `n` bootstraps, each on the previous output plus the input.
fn chain(n: usize) -> Circuit {
    let mut b = Builder::new();
    let x = b.input();
    let inc = NegacyclicLut::from_fn(-8..=7, |v| (v + 1).clamp(-8, 7)).unwrap();
    let mut y = b.lut(x, &inc);
    for _ in 1..n {
        y = b.lut(y, &inc);
    }
    b.finish(vec![y])
}

#[test]
fn values_are_freed_after_their_last_use() {
    let c = chain(40);
    let plan = c.plan();
    let backend = counting();
    let out = run(&backend, &c, &plan, &[&-8]).unwrap();
    // The fold, written here: 40 increments of -8, saturating at 7.
    let expected = (0..40).fold(-8i64, |v, _| (v + 1).min(7));
    assert_eq!(out, vec![expected]);
    // Without freeing, level k would start with k values held.
    assert!(backend.most.get() <= 2, "held {}", backend.most.get());
    // Every freed node is read in its level and never after.
    for (l, level) in plan.levels().iter().enumerate() {
        for &f in &level.frees {
            let reads = |lv: &PlannedLevel| {
                lv.level
                    .bootstraps
                    .iter()
                    .chain(&lv.level.others)
                    .any(|&r| c.node(r).operands().contains(&f))
            };
            assert!(reads(level));
            assert!(!plan.levels()[l + 1..].iter().any(reads));
        }
    }
}

/// Outputs move out of the walker at their last occurrence: a node listed twice and an
/// input listed as an output (borrowed, never stored) both come back whole.
#[test]
fn repeated_outputs_and_inputs_as_outputs() {
    let mut b = Builder::new();
    let x = b.input();
    let y = b.input();
    let s = b.linear(&[(x, 1), (y, 2)], 1);
    let inc = NegacyclicLut::from_fn(-8..=7, |v| (v + 1).clamp(-8, 7)).unwrap();
    let t = b.lut(s, &inc);
    let c = b.finish(vec![t, x, s, t, x, s, y]);
    let (xv, yv) = (2i64, -3i64);
    let sv = xv + 2 * yv + 1;
    let tv = (sv + 1).clamp(-8, 7);
    let out = run(&Clear, &c, &c.plan(), &[&xv, &yv]).unwrap();
    assert_eq!(out, vec![tv, xv, sv, tv, xv, sv, yv]);
}

#[test]
fn the_budget_is_checked_once_before_running() {
    let mut b = Builder::new();
    let x = b.input();
    let s = b.linear(&[(x, 2)], 0);
    let y = b.lut(s, &NegacyclicLut::identity());
    let c = b.finish(vec![y]);
    let backend = counting();
    let err = run(&backend, &c, &c.plan(), &[&1]).unwrap_err();
    assert!(matches!(err, CoreError::NoiseBudget(v) if v.qweight == 4 && v.budget == 1));
    assert!(matches!(
        run(&Clear, &c, &c.plan(), &[]),
        Err(CoreError::InputCount {
            expected: 1,
            found: 0
        })
    ));
    let other = chain(2);
    assert!(
        run(&Clear, &c, &other.plan(), &[&1]).is_err(),
        "a plan of another circuit"
    );
}

#[test]
fn cost_and_backends_share_the_grouping() {
    let c = chain(3);
    let plan = c.plan();
    let by_level: u64 = plan
        .levels()
        .iter()
        .map(|l| c.level_rotations(&l.level).0)
        .sum();
    assert_eq!(plan.cost(&c).blind_rotations, by_level);
    assert_eq!(plan.cost(&c), c.cost());
}
