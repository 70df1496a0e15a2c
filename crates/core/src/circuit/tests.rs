use super::*;
use crate::lut::{NegacyclicLut, Table256};

#[test]
fn folding_and_sharing() {
    let mut b = Builder::new();
    let x = b.input();
    let one = b.constant(1);
    let l = b.linear(&[(x, 1), (one, 0)], 0);
    assert_eq!(l, x);
    let two_x = b.linear(&[(x, 1), (x, 1)], 0);
    assert_eq!(
        b.qweight(two_x),
        4,
        "merged terms are correlated: weight 2² = 4"
    );
    let id = NegacyclicLut::identity();
    let a = b.lut(two_x, &id);
    let a2 = b.lut(two_x, &id);
    assert_eq!(a, a2);
    let c = b.lut(one, &id);
    assert_eq!(b.const_value(c), Some(1));
    let circuit = b.finish(vec![a]);
    let cost = circuit.cost();
    assert_eq!(cost.bootstraps, 1);
    assert_eq!(cost.depth, 1);
    assert_eq!(cost.max_qweight, 4);
}

#[test]
fn correlation_through_linear_nodes_is_exact() {
    let mut b = Builder::new();
    let x = b.input();
    let nx = b.neg(x);
    let nnx = b.neg(nx);
    let two_x = b.add(x, nnx);
    assert_eq!(b.qweight(two_x), 4);
    let zero = b.add(x, nx);
    assert_eq!(b.const_value(zero), Some(0));
}

#[test]
fn dead_nodes_do_not_count() {
    let mut b = Builder::new();
    let x = b.input();
    let id = NegacyclicLut::identity();
    let _dead = b.lut(x, &id);
    let neg = b.neg(x);
    let c = b.finish(vec![neg]);
    assert_eq!(c.cost().bootstraps, 0);
}

#[test]
fn budget_names_the_operation() {
    let mut b = Builder::new();
    let x = b.input();
    let y = b.input();
    let s = b.labelled("heavy", |b| {
        let t = b.linear(&[(x, 4), (y, 3)], 0);
        b.lut(t, &NegacyclicLut::identity())
    });
    let c = b.finish(vec![s]);
    let v = c.budget_violations(24);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].operation, "heavy");
    assert_eq!(v[0].qweight, 25);
    assert!(c.budget_violations(25).is_empty());
}

#[test]
fn trees_fold_share_and_count_like_mvluteval() {
    let add4 = Table256::from_fn(|i, j| ((i + j) % 16) as i64).unwrap();
    let carry = Table256::from_fn(|i, j| ((i + j) / 16) as i64).unwrap();
    let mut b = Builder::new();
    let (a0, a1, b0, b1) = (b.input(), b.input(), b.input(), b.input());
    // Seed 004 eq. (3): ADD = LUTeval + MVLUTeval(2 tables) + LUTeval = 7 BR, 4 KS.
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
        let (o, _) = crate::clear::run(&circuit, &[n(x)[0], n(x)[1], n(y)[0], n(y)[1]]).unwrap();
        assert_eq!(o[0] * 16 + o[1], x.wrapping_add(y) as i64);
    }
    // Out-of-range inputs are reported, not evaluated.
    let err = crate::clear::run(&circuit, &[16, 0, 0, 0]).unwrap_err();
    assert!(matches!(
        err,
        crate::CoreError::TreeInputOutOfRange { value: -16, .. }
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
        let (o, _) = crate::clear::run(&c, &[v]).unwrap();
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
            let (o, _) = crate::clear::run(&circuit, &[xv, yv]).unwrap();
            assert_eq!(o[0], (xv + yv >= 16) as i64);
        }
    }
}
