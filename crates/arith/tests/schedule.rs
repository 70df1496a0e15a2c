//! The list schedule (`Circuit::plan_for_threads`) against the level schedule: on real
//! circuits (boolean-layer operations lowered, block products, Parmesan multiplication)
//! and random inputs, the clear executor gives the same outputs on both plans; every
//! level holds at most `threads` bootstraps, every live bootstrap runs exactly once, and
//! a carry chain takes fewer rounds than on the level schedule.

use encint_arith::bits::{makespan, BitKernel};
use encint_arith::{Arith, Config, SInt};
use encint_core::circuit::{Builder, Circuit};
use encint_core::clear::Clear;
use encint_core::exec;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn circuits() -> Vec<(String, Circuit, bool)> {
    let mut out = Vec::new();
    for (op, bits, n) in [
        (BitKernel::Add, 16, 1),
        (BitKernel::Sub, 9, 1),
        (BitKernel::Mul, 8, 1),
        (BitKernel::Mul, 16, 1),
        (BitKernel::MulFull, 7, 1),
        (BitKernel::Dot, 6, 3),
        (BitKernel::ConvV2, 5, 2),
        (BitKernel::Div, 6, 1),
        (BitKernel::Rem, 5, 1),
    ] {
        let c = op.digit_circuit(bits, n).unwrap();
        out.push((format!("{} {bits} n={n}", op.name()), c, true));
    }
    let ar = Arith::new(Config::BUDGET_25);
    let mut b = Builder::new();
    let x = SInt::input(&mut b, 6);
    let y = SInt::input(&mut b, 6);
    let p = ar.mul(&mut b, &x, &y);
    out.push(("parmesan mul 6".into(), b.finish(p.digits), false));
    out
}

#[test]
fn list_schedule_matches_level_schedule() {
    let mut rng = StdRng::seed_from_u64(7);
    for (name, c, bit_inputs) in circuits() {
        let reference = c.plan();
        let total = c.cost().bootstraps;
        for threads in [1, 2, 3, 16] {
            let plan = c.plan_for_threads(threads);
            let mut seen = std::collections::HashSet::new();
            for l in plan.levels() {
                assert!(
                    l.level.bootstraps.len() <= threads,
                    "{name}: level too wide"
                );
                for id in &l.level.bootstraps {
                    assert!(seen.insert(*id), "{name}: bootstrap {id:?} twice");
                }
            }
            assert_eq!(seen.len() as u64, total, "{name}: bootstraps lost");
            for _ in 0..20 {
                let inputs: Vec<i64> = (0..c.inputs().len())
                    .map(|_| {
                        if bit_inputs {
                            rng.gen_range(0..=1)
                        } else {
                            rng.gen_range(-1..=1)
                        }
                    })
                    .collect();
                let refs: Vec<&i64> = inputs.iter().collect();
                let want = exec::run(&Clear, &c, &reference, &refs).unwrap();
                let got = exec::run(&Clear, &c, &plan, &refs).unwrap();
                assert_eq!(got, want, "{name} at {threads} threads");
            }
        }
    }
}

/// A 16-bit ripple-carry adder is narrow (three bootstraps per level): at 2 threads the
/// level schedule needs two rounds per level, the list schedule fills the gaps.
#[test]
fn list_schedule_shortens_a_carry_chain() {
    let c = BitKernel::Add.digit_circuit(16, 1).unwrap();
    let levels: u64 = c
        .schedule()
        .iter()
        .map(|l| (l.bootstraps.len() as u64).div_ceil(2))
        .sum();
    let listed = c
        .schedule_for_threads(2)
        .iter()
        .filter(|l| !l.bootstraps.is_empty())
        .count() as u64;
    assert!(listed < levels, "list {listed} vs levels {levels}");
    assert!(listed >= c.cost().bootstraps.div_ceil(2));
    assert_eq!(makespan(&c, 2), listed);
}
