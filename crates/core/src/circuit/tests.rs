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

/// The packed table read at each output's offset gives that output's table on the whole
/// window, for windows anywhere on the 32 values and as many tables as fit.
#[test]
fn packed_tables_read_at_their_offsets_give_each_table() {
    let mut seed = 7u64;
    let mut rnd = move |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    for lo in -40..40i64 {
        for len in 1..=16u8 {
            let k = 16 / usize::from(len);
            let luts: Vec<NegacyclicLut> = (0..k)
                .map(|_| {
                    let vals: Vec<i64> = (0..16).map(|_| rnd(32) as i64 - 16).collect();
                    NegacyclicLut::from_fn(0..=15, |v| vals[v as usize]).unwrap()
                })
                .collect();
            let refs: Vec<&NegacyclicLut> = luts.iter().collect();
            let (packed, offsets) = many_lut_packing(&refs, lo, len).unwrap();
            assert_eq!(offsets.len(), k);
            for (lut, &o) in luts.iter().zip(&offsets) {
                assert!(o < 32);
                for x in lo..lo + i64::from(len) {
                    assert!(in_window(x, lo, len) && in_window(x + 32, lo, len));
                    assert_eq!(
                        packed.eval(x + i64::from(o)),
                        lut.eval(x),
                        "lo {lo} len {len} x {x}"
                    );
                }
            }
            assert!(!in_window(lo + i64::from(len), lo, len) || len >= 32);
            let more: Vec<&NegacyclicLut> = refs.iter().chain(refs.first()).copied().collect();
            assert!(
                many_lut_packing(&more, lo, len).is_none(),
                "{} tables of {len}",
                k + 1
            );
        }
    }
}
