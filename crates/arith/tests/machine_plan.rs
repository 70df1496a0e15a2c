//! The planner on a machine profile: the chosen circuit (planned for the machine, level
//! latency included) is never estimated slower there than the circuit chosen by bootstrap
//! rounds at the profile's threads, a CPU profile builds the circuits of its thread count
//! (2 threads: every choice of the rounds order), and a GPU gets shallow circuits.

use encint_arith::machine::Machine;
use encint_arith::typed::{circuit_for, circuit_on_machine, plan, plan_on, Form, IntType, Op};
use encint_arith::{Arith, Config};

/// The operand forms of `op` when values come in `form` (a selection's condition is a
/// comparison's canonical bit).
fn forms(op: Op, form: Form) -> Vec<Form> {
    let mut f = vec![form; op.arity()];
    if op == Op::Select {
        f[0] = Form::Canonical;
    }
    f
}

#[test]
fn the_machine_choice_is_never_slower_than_the_rounds_choice() {
    let ar = Arith::new(Config::BUDGET_25);
    // The built-in profiles, and an H100 planned for 16 lanes (its level latency is then
    // 8 rounds: what `encint cost --machine h100 --threads 16` plans).
    let mut profiles: Vec<Machine> = ["cpu:2", "cpu:16", "cpu:192", "h100", "h200"]
        .iter()
        .map(|n| Machine::parse(n).unwrap())
        .collect();
    profiles.push(Machine {
        name: "h100 at 16 lanes".into(),
        plan_threads: 16,
        ..Machine::h100()
    });
    assert_eq!(profiles[5].latency_rounds(), 8);
    assert_eq!(profiles[3].latency_rounds(), 1);
    let (mut changed, mut shallower) = (0, 0);
    for m in &profiles {
        let name = &m.name;
        for bits in [8, 32, 64] {
            for signed in [true, false] {
                let ty = IntType::new(bits, signed).unwrap();
                for op in Op::typed_samples() {
                    for form in [Form::Canonical, Form::Radix4] {
                        let f = forms(op, form);
                        let on = plan_on(&ar, op, ty, &f, m).unwrap();
                        let by_rounds = plan(&ar, op, ty, &f, m.plan_threads).unwrap();
                        // Both circuits rebuilt and timed on the machine here: the
                        // chosen one planned for the machine, today's for its threads.
                        let alg = on.chosen().algorithm;
                        let mine = circuit_on_machine(&ar, op, ty, alg, &f, m).unwrap();
                        let chosen = m.seconds(&mine);
                        assert_eq!(mine.cost(), on.chosen().cost, "{name} {op} {ty} {form:?}");
                        let alg = by_rounds.chosen().algorithm;
                        let old = circuit_for(&ar, op, ty, alg, &f, m.plan_threads).unwrap();
                        let today = m.seconds(&old);
                        // The same algorithm planned for the threads alone.
                        let alg = on.chosen().algorithm;
                        let same = circuit_for(&ar, op, ty, alg, &f, m.plan_threads).unwrap();
                        if !m.gpu {
                            // A CPU profile plans its circuits as its thread count does.
                            assert_eq!(same.cost(), mine.cost(), "{name} {op} {ty} {form:?}");
                        } else {
                            // The level latency weighs each choice inside the circuit.
                            assert!(
                                chosen <= m.seconds(&same) + 1e-9,
                                "{name} {op} {ty} {form:?}"
                            );
                            shallower += usize::from(chosen < m.seconds(&same) - 1e-9);
                        }
                        assert!(
                            chosen <= today + 1e-9,
                            "{name} {op} {ty} {form:?}: {chosen} s > {today} s"
                        );
                        if name == "cpu:2" {
                            assert_eq!(
                                on.chosen().algorithm,
                                by_rounds.chosen().algorithm,
                                "cpu:2 {op} {ty} {form:?}"
                            );
                        }
                        if on.chosen().algorithm != by_rounds.chosen().algorithm {
                            changed += 1;
                        }
                    }
                }
            }
        }
    }
    // The GPU profiles' latency per level changes some algorithms, and inside some
    // circuits the choices between shapes.
    assert!(changed > 0);
    assert!(shallower > 0);
}

#[test]
fn a_gpu_gets_shallow_additions_and_comparisons() {
    let ar = Arith::new(Config::BUDGET_25);
    let m = Machine::h100();
    for signed in [true, false] {
        let ty = IntType::new(64, signed).unwrap();
        for op in [Op::Add, Op::Sub, Op::LT, Op::GE, Op::EQ, Op::Max] {
            for form in [Form::Canonical, Form::Radix4] {
                let p = plan_on(&ar, op, ty, &forms(op, form), &m).unwrap();
                let depth = p.chosen().cost.depth;
                assert!(depth <= 8, "{op} {ty} {form:?}: depth {depth}");
            }
        }
    }
}
