use super::clear::Clear;
use super::*;
use crate::circuit::{Builder, NodeId};
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

/// Random circuits of tables on selectors of known small ranges: the tables read on one
/// selector of at most 8 values share blind rotations after `finish`, and the circuit
/// gives what a plain evaluation of the same tables gives (and what the circuit taken
/// apart again gives), with fewer bootstraps wherever two tables shared a selector.
#[test]
fn tables_on_a_known_window_share_rotations_and_keep_their_values() {
    // Reference expressions: inputs, sums with a constant, tables on a window.
    enum Expr {
        Input(usize),
        Sum(Vec<usize>, i64),
        Table(usize, i64, Vec<i64>),
    }
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut packed_trials = 0;
    for trial in 0..60 {
        let mut b = Builder::new();
        let mut exprs: Vec<Expr> = Vec::new();
        let mut nodes: Vec<(NodeId, i64, i64)> = Vec::new();
        let inputs = 1 + rnd(4) as usize;
        for i in 0..inputs {
            let x = b.input();
            exprs.push(Expr::Input(i));
            nodes.push((x, 0, 3));
        }
        let mut shared = false;
        for _ in 0..(4 + rnd(10)) {
            // A selector: one to three earlier values plus a constant.
            let k = 1 + rnd(3) as usize;
            let picks: Vec<usize> = (0..k).map(|_| rnd(nodes.len() as u64) as usize).collect();
            let c = rnd(5) as i64 - 2;
            let (mut lo, mut hi) = (c, c);
            let mut terms: Vec<(NodeId, i64)> = Vec::new();
            for &p in &picks {
                terms.push((nodes[p].0, 1));
                lo += nodes[p].1;
                hi += nodes[p].2;
            }
            let sel = b.linear(&terms, c);
            let sel_expr = exprs.len();
            exprs.push(Expr::Sum(picks, c));
            nodes.push((sel, lo, hi));
            if hi - lo >= 16 || b.const_value(sel).is_some() {
                continue;
            }
            let tables = 1 + rnd(4);
            if tables > 1 && hi - lo < 8 {
                shared = true;
            }
            for _ in 0..tables {
                let values: Vec<i64> = (lo..=hi).map(|_| rnd(4) as i64).collect();
                let lut = NegacyclicLut::from_fn(lo..=hi, |v| values[(v - lo) as usize]).unwrap();
                let t = b.lut_in(sel, lo, hi, &lut);
                let (mn, mx) = (*values.iter().min().unwrap(), *values.iter().max().unwrap());
                exprs.push(Expr::Table(sel_expr, lo, values));
                nodes.push((t, mn, mx));
            }
        }
        let outputs: Vec<usize> = (0..nodes.len()).filter(|_| rnd(3) == 0).collect();
        let circuit = b.finish(outputs.iter().map(|&o| nodes[o].0).collect());
        let apart = circuit.unpack_many();
        let many = circuit.many_lut_count();
        packed_trials += usize::from(many > 0);
        if shared && !outputs.is_empty() {
            let (packed, plain) = (circuit.cost().bootstraps, apart.cost().bootstraps);
            assert!(packed <= plain, "trial {trial}: {packed} > {plain}");
            assert_eq!(packed < plain, many > 0, "trial {trial}");
        }
        for _ in 0..20 {
            let xs: Vec<i64> = (0..inputs).map(|_| rnd(4) as i64).collect();
            let mut v: Vec<i64> = Vec::new();
            for e in &exprs {
                let x = match e {
                    Expr::Input(i) => xs[*i],
                    Expr::Sum(p, c) => p.iter().map(|&i| v[i]).sum::<i64>() + c,
                    Expr::Table(s, lo, values) => values[(v[*s] - lo) as usize],
                };
                v.push(x);
            }
            let want: Vec<i64> = outputs.iter().map(|&o| crate::lut::reduce(v[o])).collect();
            assert_eq!(clear::run(&circuit, &xs).unwrap().0, want, "trial {trial}");
            assert_eq!(clear::run(&apart, &xs).unwrap().0, want, "trial {trial}");
        }
    }
    assert!(
        packed_trials >= 20,
        "only {packed_trials} trials shared a rotation"
    );
}

/// A many-LUT node whose tables do not fit one test polynomial (which no builder makes)
/// is refused by the clear executor, as is an input outside its window.
#[test]
fn a_many_lut_node_that_does_not_fit_is_refused() {
    let mut b = Builder::new();
    let x = b.input();
    let t = NegacyclicLut::from_fn(0..=7, |v| v).unwrap();
    let outs = b.many_lut(x, 0, 8, &[t, t]).unwrap();
    let mut c = b.finish(outs);
    assert_eq!(clear::run(&c, &[7]).unwrap().0, vec![7, 7]);
    for n in &mut c.nodes {
        if let Node::ManyLut { len, .. } = n {
            *len = 9;
        }
    }
    match clear::run(&c, &[3]) {
        Err(CoreError::InvalidArgument(m)) => assert!(m.contains("do not fit"), "{m}"),
        other => panic!("{other:?}"),
    }
}

/// Records what a watched run reports and stops it after `stop_after` levels.
struct Recording {
    starts: std::sync::Mutex<Vec<u64>>,
    levels: std::sync::Mutex<Vec<usize>>,
    stop_after: usize,
}

impl Watch for Recording {
    fn start(&self, _: &Circuit, plan: &crate::circuit::Plan) -> Result<(), CoreError> {
        let total = plan
            .levels()
            .iter()
            .map(|l| l.level.bootstraps.len() as u64);
        self.starts.lock().unwrap().push(total.sum());
        Ok(())
    }
    fn level_done(&self, level: &PlannedLevel) -> Result<(), CoreError> {
        let mut levels = self.levels.lock().unwrap();
        levels.push(level.level.bootstraps.len());
        if levels.len() >= self.stop_after {
            return Err(CoreError::Stopped("enough".into()));
        }
        Ok(())
    }
}

#[test]
fn a_watch_sees_every_level_and_may_stop_the_run() {
    let c = chain(12);
    let plan = c.plan();
    let watch = |stop_after| Recording {
        starts: Default::default(),
        levels: Default::default(),
        stop_after,
    };
    let all = watch(usize::MAX);
    let out = run(&Watched::new(&Clear, &all), &c, &plan, &[&-8]).unwrap();
    assert_eq!(out, run(&Clear, &c, &plan, &[&-8]).unwrap());
    // One start with the circuit's bootstraps; one report per level, adding up to them.
    let cost = plan.cost(&c);
    assert_eq!(*all.starts.lock().unwrap(), vec![cost.bootstraps]);
    let levels = all.levels.lock().unwrap().clone();
    assert_eq!(levels.len(), cost.depth as usize);
    assert_eq!(levels.iter().sum::<usize>() as u64, cost.bootstraps);
    // An error of the watch stops the run at that level boundary.
    let three = watch(3);
    let err = run(&Watched::new(&Clear, &three), &c, &plan, &[&-8]).unwrap_err();
    assert!(matches!(err, CoreError::Stopped(_)), "{err}");
    assert_eq!(three.levels.lock().unwrap().len(), 3);
}
