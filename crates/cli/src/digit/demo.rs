//! `encint demo`: the main operations on two random 16-bit integers, encrypted (or on the
//! clear executor), each checked against plain arithmetic: exact integers first, then the
//! typed family (`FheInt16`: wrapping operations, a comparison, an array product and a
//! function compiled before any key exists).

use std::time::Instant;

use clap::Args;
use encint::arith::{value_of, Arith, Config, SInt};
use encint::circuit::Builder;
use encint::circuit::{clear, signed};
use encint::fhe::{compile, Compiled, FheType};
use encint::typed::{decrypt_typed, Form, IntType};
use encint::{decrypt, encrypt, ClientKey, EncInt, FheArray, FheInt16, Op, Server};
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
    let typed = typed_rows(x, y)?;
    if a.clear {
        demo_clear(&ops, x, y, bits)?;
        return typed_clear(&typed, x, y);
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
        "{:<20} {:>12} {:>12} {:>6} {:>6} {:>10}",
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
    typed_real(&typed, &server, &client, x, y)
}

/// The typed rows' arguments: two 16-bit signed values.
type Pair = (FheInt16, FheInt16);

/// One typed row: a function of `(x, y)` compiled into one circuit, its result's type and
/// the plain-arithmetic value.
struct TypedRow {
    name: &'static str,
    run: Compiled<Pair, FheInt16>,
    expected: i128,
}

/// The typed rows: wrapping arithmetic as Rust's `i16`, a comparison, an array product and a
/// polynomial, each compiled before any key exists (a comparison's boolean is cast to 0/1).
fn typed_rows(x: i128, y: i128) -> encint::Result<Vec<TypedRow>> {
    let (p, q) = (x as i16, y as i16);
    let dot = [(p, q), (q, q), (p, p), (q, p)]
        .iter()
        .fold(0i16, |s, &(a, b)| s.wrapping_add(a.wrapping_mul(b)));
    type F = fn(Pair) -> FheInt16;
    let rows: [(&str, F, i16); 7] = [
        ("x + y", |(x, y)| &x + &y, p.wrapping_add(q)),
        ("x * y", |(x, y)| &x * &y, p.wrapping_mul(q)),
        ("x / 7", |(x, _)| &x / 7i16, p / 7),
        ("x < y", |(x, y)| x.lt(&y).cast_into(), i16::from(p < q)),
        ("x >> 3", |(x, _)| &x >> 3u32, p >> 3),
        (
            "[x,y,x,y].[y,y,x,x]",
            |(x, y)| {
                let a = FheArray::new(vec![x.clone(), y.clone(), x.clone(), y.clone()], vec![4]);
                let w = FheArray::new(vec![y.clone(), y, x.clone(), x], vec![4]);
                a.and_then(|a| a.dot(&w?)).expect("two vectors of four")
            },
            dot,
        ),
        (
            "x*x + 3y + 7",
            |(x, y)| &(&x * &x) + &(&y * 3i16) + 7i16,
            p.wrapping_mul(p)
                .wrapping_add(q.wrapping_mul(3))
                .wrapping_add(7),
        ),
    ];
    rows.into_iter()
        .map(|(name, f, expected)| {
            Ok(TypedRow {
                name,
                run: compile(f)?,
                expected: i128::from(expected),
            })
        })
        .collect()
}

fn print_typed_header(x: i128, y: i128) {
    println!(
        "typed FheInt16 (wrapping, as Rust's i16; each row one circuit, compiled before any \
         key exists): x = {x}, y = {y}"
    );
}

/// The typed rows on real ciphertexts.
fn typed_real(
    rows: &[TypedRow],
    server: &Server,
    client: &ClientKey,
    x: i128,
    y: i128,
) -> CliResult {
    print_typed_header(x, y);
    let args: Pair = (
        FheInt16::encrypt(x as i16, client)?,
        FheInt16::encrypt(y as i16, client)?,
    );
    let mut failures = 0;
    for row in rows {
        let pb = spinner(&format!("computing {}", row.name));
        let t = Instant::now();
        let out = row.run.run_on(server, &args)?;
        let elapsed = t.elapsed();
        pb.finish_and_clear();
        let got = decrypt_typed(client, out.as_typed().ok_or("a traced result")?)?;
        let time = format!(" {:>8.0}ms", elapsed.as_secs_f64() * 1e3);
        failures += usize::from(!print_row(
            row.name,
            got,
            row.expected,
            &row.run.cost(),
            &time,
        ));
    }
    check_all(failures)?;
    println!("all typed results decrypt to the plain-arithmetic values");
    Ok(())
}

/// The typed rows on the clear executor: the compiled circuits on the values' digits.
fn typed_clear(rows: &[TypedRow], x: i128, y: i128) -> CliResult {
    print_typed_header(x, y);
    let ty = IntType::new(16, true)?;
    let inputs: Vec<i64> = [x, y]
        .iter()
        .flat_map(|&v| Form::Canonical.encode(ty, v))
        .collect();
    let mut failures = 0;
    for row in rows {
        let (digits, cost) = clear::run(row.run.circuit(), &inputs)?;
        let got = ty.wrap(value_of(&digits).ok_or("result overflows i128")?);
        failures += usize::from(!print_row(row.name, got, row.expected, &cost, ""));
    }
    check_all(failures)?;
    println!("all typed results match plain arithmetic");
    Ok(())
}

/// Prints one result row (`extra` after depth: the time, or nothing); true when it matches.
fn print_row(name: &str, got: i128, expected: i128, cost: &encint::Cost, extra: &str) -> bool {
    let ok = got == expected;
    println!(
        "{:<20} {:>12} {:>12} {:>6} {:>6}{extra} {}",
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
        let args = [p, q];
        let out = ar.apply(&mut b, *op, &args[..op.arity()])?;
        let circuit = b.finish(out.digits);
        let (digits, cost) = clear::run(&circuit, &inputs)?;
        let got = value_of(&digits).ok_or("result overflows i128")?;
        failures += usize::from(!print_row(name, got, *expected, &cost, ""));
    }
    check_all(failures)?;
    println!("all results match plain arithmetic");
    Ok(())
}
