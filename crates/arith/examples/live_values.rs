//! How many digit values an executor holds at once while running an exact `n × n`-bit
//! multiplication, with the plan's frees (values dropped after their last use) and without
//! (every value kept to the end, as before the walker freed them).
//!
//! `cargo run --release --example live_values -- 32`

use encint_arith::{Arith, Config, SInt};
use encint_core::circuit::Builder;

fn main() {
    let bits: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(32);
    let arith = Arith::new(Config::BUDGET_25);
    let mut b = Builder::new();
    let x = SInt::input(&mut b, bits);
    let y = SInt::input(&mut b, bits);
    let p = arith.mul(&mut b, &x, &y);
    let circuit = b.finish(p.digits);
    let plan = circuit.plan();
    let (mut held, mut peak, mut computed) = (0usize, 0usize, 0usize);
    for level in plan.levels() {
        let n = level.level.bootstraps.len() + level.level.others.len();
        held += n;
        computed += n;
        peak = peak.max(held);
        held -= level.frees.len();
    }
    println!(
        "{bits}-bit exact mul: {} levels, {} values computed; held at once: {} without freeing, {} with",
        plan.levels().len(),
        computed,
        computed,
        peak
    );
}
