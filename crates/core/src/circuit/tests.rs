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

/// A random step of a circuit over the nodes built so far: every kind of node the builder
/// shares or records (constants, linear combinations, tables, half-step tables, tables on a
/// known window, several tables on one rotation, trees, labelled nodes).
fn random_step(b: &mut Builder, nodes: &mut Vec<NodeId>, rng: &mut impl rand::Rng) {
    let pick = |rng: &mut dyn rand::RngCore, nodes: &[NodeId]| {
        nodes[(rng.next_u32() as usize) % nodes.len()]
    };
    let lut = |rng: &mut dyn rand::RngCore| NegacyclicLut {
        table: std::array::from_fn(|_| (rng.next_u32() % 7) as i8 - 3),
    };
    let (x, y) = (pick(rng, nodes), pick(rng, nodes));
    let id = match rng.gen_range(0..8) {
        0 => b.constant(rng.gen_range(-20..20)),
        1 => b.linear(&[(x, rng.gen_range(-2..3)), (y, 1)], rng.gen_range(-3..4)),
        2 => b.lut(x, &lut(rng)),
        3 => {
            let odd = NegacyclicLut {
                table: std::array::from_fn(|_| 2 * (rng.next_u32() % 4) as i8 - 3),
            };
            b.half_lut(x, &odd).expect("odd values")
        }
        4 => {
            let lo = rng.gen_range(-4..4);
            b.lut_in(x, lo, lo + rng.gen_range(0..8), &lut(rng))
        }
        5 => {
            let luts = [lut(rng), lut(rng)];
            b.many_lut(x, 0, 4, &luts).expect("two tables of 4 fit")[1]
        }
        6 => {
            let table = crate::lut::Table256 {
                entries: std::array::from_fn(|i| (i % 5) as u8),
            };
            match b.tree(x, y, &table) {
                Ok(t) => t,
                Err(_) => b.add(x, y),
            }
        }
        _ => {
            let name = format!("label{}", rng.gen_range(0..3));
            let l = lut(rng);
            b.labelled(&name, |b| b.lut(x, &l))
        }
    };
    nodes.push(id);
}

/// A trial taken back leaves the builder as it was: after building random steps and
/// rolling them back (nested, and with inner trials committed), the same further steps on
/// the builder and on a copy taken before give the same circuit, node for node, with the
/// same sharing (a rolled-back table or combination is built anew, not pointed at).
#[test]
fn a_rolled_back_trial_leaves_the_builder_as_it_was() {
    use rand::{Rng, SeedableRng};
    for seed in 0..200u64 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut b = Builder::new();
        let mut nodes = vec![b.input(), b.input(), b.input()];
        for _ in 0..rng.gen_range(0..30) {
            random_step(&mut b, &mut nodes, &mut rng);
        }
        let copy = (b.clone(), nodes.clone());
        let outer = b.checkpoint();
        let mut trial_nodes = nodes.clone();
        for _ in 0..rng.gen_range(1..30) {
            random_step(&mut b, &mut trial_nodes, &mut rng);
            if rng.gen_bool(0.2) {
                let inner = b.checkpoint();
                for _ in 0..rng.gen_range(1..10) {
                    random_step(&mut b, &mut trial_nodes, &mut rng);
                }
                if rng.gen_bool(0.5) {
                    b.rollback(inner);
                    trial_nodes.retain(|n| n.index() < b.node_count());
                } else {
                    b.commit(inner);
                }
            }
        }
        b.rollback(outer);
        let (mut c, mut c_nodes) = copy;
        assert_eq!(b.node_count(), c.node_count(), "seed {seed}");
        let later = rng.gen::<u64>();
        for (builder, list) in [(&mut b, &mut nodes), (&mut c, &mut c_nodes)] {
            let mut r = rand::rngs::StdRng::seed_from_u64(later);
            for _ in 0..40 {
                random_step(builder, list, &mut r);
            }
        }
        assert_eq!(nodes, c_nodes, "seed {seed}");
        let outs = nodes[nodes.len() - 5..].to_vec();
        assert_eq!(b.finish(outs.clone()), c.finish(outs), "seed {seed}");
    }
}

/// `keep_best` builds every alternative, keeps the one of least score (the first of a tie)
/// and leaves exactly what building that one alone leaves.
#[test]
fn keep_best_keeps_the_cheapest_alternative_as_if_built_alone() {
    let id = NegacyclicLut::identity();
    let alternatives = |b: &mut Builder, x: NodeId, k: usize| -> NodeId {
        // k bootstraps in a chain.
        (0..k + 1).fold(x, |v, _| b.lut(v, &id))
    };
    for order in [[2usize, 0, 1], [1, 2, 0], [0, 0, 2]] {
        let mut b = Builder::new();
        let x = b.input();
        let out = b.keep_best(3, |b, k| alternatives(b, x, order[k]), |t, &o| t.depth(o));
        let mut alone = Builder::new();
        let y = alone.input();
        let best = *order.iter().min().unwrap();
        let want = alternatives(&mut alone, y, best);
        assert_eq!(b.depth(out), alone.depth(want), "{order:?}");
        assert_eq!(b.finish(vec![out]), alone.finish(vec![want]), "{order:?}");
    }
}

/// `estimate_since` is the rounds at the planned threads, plus the level latency for each
/// depth that bootstraps: a wide shallow alternative against a narrow deep one, counted by
/// hand.
#[test]
fn estimates_weigh_levels_by_the_level_latency() {
    // Wide: 8 bootstraps of the input at depth 1. Deep: a chain of 3.
    let build = |b: &mut Builder, x: NodeId, wide: bool| -> Vec<NodeId> {
        if wide {
            (0..8)
                .map(|k| {
                    let t = NegacyclicLut::from_fn(-8..=7, |v| i64::from(v == k - 4)).unwrap();
                    b.lut(x, &t)
                })
                .collect()
        } else {
            let id = NegacyclicLut::identity();
            vec![(0..3).fold(x, |v, _| b.lut(v, &id))]
        }
    };
    for (latency, threads, wide_want, deep_want) in [
        (0, 2, 4, 3), // 8/2 rounds against 3 levels of one
        (0, 8, 1, 3), // one round against three
        (5, 2, 4 + 5, 3 + 3 * 5),
        (2, 1, 8 + 2, 3 + 3 * 2),
    ] {
        let mut b = Builder::new();
        b.set_threads(threads);
        b.set_level_latency(latency);
        assert_eq!(b.level_latency(), latency);
        let x = b.input();
        let first = b.node_count();
        let wide = build(&mut b, x, true);
        assert_eq!(b.estimate_since(first, &wide, threads), wide_want);
        let first = b.node_count();
        let deep = build(&mut b, x, false);
        assert_eq!(b.estimate_since(first, &deep, threads), deep_want);
        if latency == 0 {
            assert_eq!(
                b.estimate_since(first, &deep, threads),
                b.rounds_since(first, &deep, threads)
            );
        }
    }
}
