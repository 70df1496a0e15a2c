//! `encint demo`: the main operations on two random 16-bit integers, encrypted (or on the
//! clear executor), each checked against plain arithmetic.

use std::time::Instant;

use clap::Args;
use encint::arith::{value_of, Arith, Config, SInt};
use encint::circuit::Builder;
use encint::circuit::{clear, signed};
use encint::{decrypt, encrypt, ClientKey, EncInt, Op, Server};
use rand::{Rng, SeedableRng};

use crate::progress::spinner;
use crate::CliResult;

/// `encint demo`.
#[derive(Args)]
pub struct DemoArgs {
    /// Seed for the random operands (default: random).
    #[arg(long)]
    seed: Option<u64>,
    /// Run the circuits on the clear executor instead of real encryption.
    #[arg(long)]
    clear: bool,
    /// Threads for bootstrapping (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    #[command(flatten)]
    backend: crate::backend::BackendArgs,
}

/// `encint demo`: exits non-zero on any mismatch.
pub fn demo(a: DemoArgs) -> CliResult {
    if !a.clear {
        a.backend.check()?;
    }
    if let Some(t) = a.threads {
        encint::check_threads(t)?;
    }
    let seed = a.seed.unwrap_or_else(|| rand::thread_rng().gen());
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let bits = 16usize;
    let x: i128 = rng.gen_range(-(1i128 << 15)..(1i128 << 15));
    let y: i128 = rng.gen_range(-(1i128 << 15)..(1i128 << 15));
    let ops: Vec<(&str, Op, i128)> = vec![
        ("x + y", Op::Add, x + y),
        ("x - y", Op::Sub, x - y),
        ("x * y", Op::Mul, x * y),
        ("805 * x", Op::ScalarMul(805), 805 * x),
        ("x^2", Op::Square, x * x),
        ("max(x, y)", Op::Max, x.max(y)),
        ("sgn(x)", Op::Signum, x.signum()),
        ("round(x, 5)", Op::Round(5), (x + 16).div_euclid(32) * 32),
    ];
    println!("encint demo (seed {seed}): x = {x}, y = {y} (signed, {bits} digits)");
    if a.clear {
        return demo_clear(&ops, x, y, bits);
    }
    let pb = spinner("generating keys (client and server)");
    let t = Instant::now();
    let params = a.backend.params();
    let (client, key) = ClientKey::generate(params);
    pb.finish_and_clear();
    println!(
        "keys: {:.1} s, parameters {} (128-bit security, p-fail <= 2^-128 per bootstrap)",
        t.elapsed().as_secs_f64(),
        params.id()
    );
    let server = match a.threads {
        Some(n) => Server::with_threads(key, n)?,
        None => Server::new(key),
    }
    .with_backend(a.backend.in_process())?;
    let ex = encrypt(&client, x, bits)?;
    let ey = encrypt(&client, y, bits)?;
    println!(
        "{:<12} {:>12} {:>12} {:>6} {:>6} {:>10}",
        "operation", "decrypted", "expected", "pbs", "depth", "time"
    );
    let mut failures = 0;
    for (name, op, expected) in &ops {
        let args: Vec<&EncInt> = if op.arity() == 1 {
            vec![&ex]
        } else {
            vec![&ex, &ey]
        };
        let pb = spinner(&format!("computing {name}"));
        let t = Instant::now();
        let (out, cost) = server.apply(*op, &args)?;
        let elapsed = t.elapsed();
        pb.finish_and_clear();
        let got = decrypt(&client, &out)?;
        let time = format!(" {:>8.0}ms", elapsed.as_secs_f64() * 1e3);
        failures += usize::from(!print_row(name, got, *expected, &cost, &time));
    }
    check_all(failures)?;
    println!("all results decrypt to the plain-arithmetic values");
    Ok(())
}

/// Prints one result row (`extra` after depth: the time, or nothing); true when it matches.
fn print_row(name: &str, got: i128, expected: i128, cost: &encint::Cost, extra: &str) -> bool {
    let ok = got == expected;
    println!(
        "{:<12} {:>12} {:>12} {:>6} {:>6}{extra} {}",
        name,
        got,
        expected,
        cost.bootstraps,
        cost.depth,
        if ok { "ok" } else { "MISMATCH" }
    );
    ok
}

fn check_all(failures: usize) -> CliResult {
    if failures > 0 {
        return Err(format!("{failures} result(s) did not match plain arithmetic").into());
    }
    Ok(())
}

/// The demo's operations on the clear executor (`encint demo --clear`).
fn demo_clear(ops: &[(&str, Op, i128)], x: i128, y: i128, bits: usize) -> CliResult {
    println!("executor: clear (plaintext digits, the same circuits the TFHE executor runs)");
    let ar = Arith::new(Config::BUDGET_25);
    let mut inputs: Vec<i64> = Vec::new();
    for v in [x, y] {
        inputs.extend(
            signed::from_i128_len(v, bits)?
                .iter()
                .map(|&d| i64::from(d)),
        );
    }
    let mut failures = 0;
    for (name, op, expected) in ops {
        let mut b = Builder::new();
        let p = SInt::input(&mut b, bits);
        let q = SInt::input(&mut b, bits);
        let out = op.build(&ar, &mut b, &[p, q]);
        let circuit = b.finish(out.digits);
        let (digits, cost) = clear::run(&circuit, &inputs)?;
        let got = value_of(&digits).ok_or("result overflows i128")?;
        failures += usize::from(!print_row(name, got, *expected, &cost, ""));
    }
    check_all(failures)?;
    println!("all results match plain arithmetic");
    Ok(())
}
