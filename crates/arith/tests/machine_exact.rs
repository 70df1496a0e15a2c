//! The exact integers' products and squares on a machine profile: at 128 threads
//! (the machine of Parmesan's figures) no slower than Parmesan's circuits can be, and at 2
//! threads the circuits of the bootstrap-count order.

use encint_arith::machine::Machine;
use encint_arith::{Arith, Config, SInt};
use encint_core::circuit::{Builder, Circuit};

fn product(ar: &Arith, n: usize, square: bool) -> Circuit {
    let mut b = Builder::new();
    let x = SInt::input(&mut b, n);
    let p = if square {
        ar.square(&mut b, &x)
    } else {
        let y = SInt::input(&mut b, n);
        ar.mul(&mut b, &x, &y)
    };
    b.finish(p.digits)
}

/// Parmesan's published bootstraps and depth of its product and square (Klemsa and
/// Önen, "Parallel Operations over TFHE-Encrypted Multi-Digit Integers", Table 5 and
/// Appendix D).
const PARMESAN: [(&str, usize, u64, usize); 8] = [
    ("mul", 4, 40, 7),
    ("mul", 8, 176, 15),
    ("mul", 16, 725, 23),
    ("mul", 32, 2617, 41),
    ("squ", 4, 24, 5),
    ("squ", 8, 122, 11),
    ("squ", 16, 488, 19),
    ("squ", 32, 1837, 27),
];

#[test]
fn at_128_threads_the_products_are_no_slower_than_parmesans() {
    let threads = 128;
    let m = Machine::cpu(threads);
    let fast = Arith::on_machine(Config::PARMESAN, m.clone());
    let cheap = Arith::new(Config::PARMESAN);
    for (op, n, pbs, depth) in PARMESAN {
        let square = op == "squ";
        let ours = product(&fast, n, square);
        // Parmesan's circuit at its best: no level needs more than one round unless its
        // bootstraps do not fit the threads, so at least max(depth, ⌈pbs / threads⌉).
        let parmesan_rounds = (depth as u64).max(pbs.div_ceil(threads as u64));
        let rounds = encint_arith::bits::makespan(&ours, threads);
        assert!(
            rounds <= parmesan_rounds,
            "{op} {n}: {rounds} rounds against Parmesan's at least {parmesan_rounds}"
        );
        // Never slower than the cheapest-in-bootstraps circuit on the same machine.
        let today = product(&cheap, n, square);
        assert!(m.seconds(&ours) <= m.seconds(&today) + 1e-9, "{op} {n}");
    }
    // The 32-bit product: Parmesan's machine favours a shallower circuit than the cheap one.
    let ours = product(&fast, 32, false).cost();
    let today = product(&cheap, 32, false).cost();
    assert!(ours.depth < today.depth && ours.bootstraps > today.bootstraps);
}

#[test]
fn at_2_threads_the_cheap_products_are_kept() {
    let two = Arith::on_machine(Config::BUDGET_25, Machine::cpu(2));
    let cheap = Arith::new(Config::BUDGET_25);
    for n in 1..=40 {
        for square in [false, true] {
            let a = product(&two, n, square).cost();
            let b = product(&cheap, n, square).cost();
            assert_eq!(a, b, "{} {n}", if square { "squ" } else { "mul" });
        }
        assert_eq!(two.mul_plan(n, n), cheap.mul_plan(n, n), "mul {n}");
        assert_eq!(two.square_plan(n), cheap.square_plan(n), "squ {n}");
    }
}
