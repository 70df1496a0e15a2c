//! The planner on a machine profile: the chosen circuit's estimated time is never above
//! that of the circuit chosen by bootstrap rounds at the profile's threads, a 2-thread CPU
//! keeps every choice of the rounds order, and a GPU gets shallow circuits.

use encint_arith::machine::Machine;
use encint_arith::typed::{circuit_for, plan, plan_on, Form, IntType, Op};
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
    let profiles = ["cpu:2", "cpu:16", "cpu:192", "h100", "h200"];
    let mut changed = 0;
    for name in profiles {
        let m = Machine::parse(name).unwrap();
        for bits in [8, 32, 64] {
            for signed in [true, false] {
                let ty = IntType::new(bits, signed).unwrap();
                for op in Op::typed_samples() {
                    for form in [Form::Canonical, Form::Radix4] {
                        let f = forms(op, form);
                        let on = plan_on(&ar, op, ty, &f, &m).unwrap();
                        let by_rounds = plan(&ar, op, ty, &f, m.plan_threads).unwrap();
                        // Both circuits rebuilt and timed on the machine here.
                        let time = |alg| {
                            let c = circuit_for(&ar, op, ty, alg, &f, m.plan_threads).unwrap();
                            m.seconds(&c)
                        };
                        let chosen = time(on.chosen().algorithm);
                        let today = time(by_rounds.chosen().algorithm);
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
    // The GPU profiles' latency per level changes some choices.
    assert!(changed > 0);
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
