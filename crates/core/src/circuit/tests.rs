use super::*;
use crate::lut::NegacyclicLut;

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
    // The same combination written again (terms in another order) is the same node, so a
    // bootstrap on it is shared too; another constant is another node.
    let y = b.input();
    let s1 = b.linear(&[(x, 1), (y, -2)], 3);
    let s2 = b.linear(&[(y, -2), (x, 1)], 3);
    let s3 = b.linear(&[(x, 1), (y, -2)], 2);
    assert_eq!(s1, s2);
    assert_ne!(s1, s3);
    assert_eq!(b.lut(s1, &id), b.lut(s2, &id));
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
