//! Clear tables of matches on typed values (`typed::match_value`), run by the clear
//! executor against a plain map: every input at small widths (empty, sparse and full
//! tables, signed and unsigned, radix-4 and canonical operands), random and edge inputs at
//! 16, 64 and 128 bits, every circuit within the noise budget of the parameter sets.

use std::collections::HashMap;

use encint_arith::typed::{match_value, Form, IntType};
use encint_arith::SInt;
use encint_core::circuit::{Builder, Circuit};
use encint_core::clear;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

#[path = "common/budget.rs"]
mod budget;
use budget::noise_budget as budget;

/// A random value of `ty`.
fn value(rng: &mut StdRng, ty: IntType) -> i128 {
    match rng.gen_range(0..4) {
        0 => ty.min(),
        1 => ty.max(),
        2 => ty.wrap(rng.gen_range(-2..=2)),
        _ => ty.wrap(rng.gen::<u128>() as i128),
    }
}

/// The circuit of a table on `ty` in `form` giving `out`.
fn build(ty: IntType, form: Form, pairs: &[(i128, i128)], default: i128, out: IntType) -> Circuit {
    let mut b = Builder::new();
    let x = SInt::input(&mut b, form.digits(ty));
    let (y, found) = match_value(&mut b, &x, ty, form, pairs, default, out, budget());
    let c = b.finish([y.digits, found.digits].concat());
    let violations = c.plan().budget_violations(&c, budget());
    assert!(violations.is_empty(), "{ty} -> {out}: over the budget");
    c
}

/// Runs `c` on `v` and checks it against the map.
fn check(
    c: &Circuit,
    ty: IntType,
    form: Form,
    out: IntType,
    table: &HashMap<i128, i128>,
    default: i128,
    v: i128,
) {
    let (digits, _) = clear::run(c, &form.encode(ty, v)).unwrap();
    let n = Form::Radix4.digits(out);
    let got = Form::Radix4.value(out, &digits[..n]);
    let want = table.get(&v).copied().unwrap_or(default);
    assert_eq!(got, Some(want), "{ty} -> {out} on {v}");
    assert_eq!(
        digits[n],
        i64::from(table.contains_key(&v)),
        "{ty} on {v}: found"
    );
}

#[test]
fn every_input_at_small_widths() {
    let mut rng = StdRng::seed_from_u64(7);
    for bits in 1..=9 {
        for signed in [false, true] {
            let ty = IntType::new(bits, signed).unwrap();
            let all: Vec<i128> = (ty.min()..=ty.max()).collect();
            for form in [Form::Radix4, Form::Canonical] {
                // Empty, one pair, a few, half and the whole input space.
                for size in [0, 1, 3, all.len() / 2, all.len()] {
                    let out = IntType::new(rng.gen_range(1..=12), rng.gen_bool(0.5)).unwrap();
                    let mut inputs = all.clone();
                    inputs.shuffle(&mut rng);
                    let pairs: Vec<(i128, i128)> = inputs[..size.min(all.len())]
                        .iter()
                        .map(|&i| (i, value(&mut rng, out)))
                        .collect();
                    let default = value(&mut rng, out);
                    let c = build(ty, form, &pairs, default, out);
                    let table: HashMap<i128, i128> = pairs.iter().copied().collect();
                    for &v in &all {
                        check(&c, ty, form, out, &table, default, v);
                    }
                }
            }
        }
    }
}

#[test]
fn random_and_edge_inputs_at_wide_types() {
    let mut rng = StdRng::seed_from_u64(8);
    for bits in [16, 64, 128] {
        for signed in [false, true] {
            let ty = IntType::new(bits, signed).unwrap();
            let out = IntType::new([8, 32, 128][rng.gen_range(0..3)], rng.gen_bool(0.5)).unwrap();
            let mut pairs: Vec<(i128, i128)> = Vec::new();
            for _ in 0..12 {
                let i = value(&mut rng, ty);
                if pairs.iter().all(|&(j, _)| j != i) {
                    pairs.push((i, value(&mut rng, out)));
                }
            }
            let default = value(&mut rng, out);
            let c = build(ty, Form::Radix4, &pairs, default, out);
            let table: HashMap<i128, i128> = pairs.iter().copied().collect();
            let mut probes: Vec<i128> = pairs.iter().map(|&(i, _)| i).collect();
            // Inputs one bit away from a matched one, edges and random values.
            probes.extend(
                pairs
                    .iter()
                    .map(|&(i, _)| ty.wrap(i ^ (1 << rng.gen_range(0..bits)))),
            );
            probes.extend([ty.min(), ty.max(), 0, ty.wrap(1), ty.wrap(-1)]);
            probes.extend((0..20).map(|_| value(&mut rng, ty)));
            for v in probes {
                check(&c, ty, Form::Radix4, out, &table, default, v);
            }
        }
    }
}

/// A sparse table costs a few tables per match: 4 pairs on a u8 within 24 bootstraps.
#[test]
fn sparse_table_cost() {
    let u8t = IntType::new(8, false).unwrap();
    let pairs = [(3, 30), (77, 7), (128, 255), (255, 1)];
    let c = build(u8t, Form::Radix4, &pairs, 0, u8t);
    let cost = c.cost();
    assert!(cost.bootstraps <= 24 && cost.depth <= 4, "{cost:?}");
}
