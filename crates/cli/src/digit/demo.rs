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
use encint::typed::decrypt_typed;
use encint::{decrypt, encrypt, ClientKey, EncInt, FheArray, FheInt16, Op, Server};
use rand::{Rng, SeedableRng};

use crate::error::{internal, mismatch};
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
    /// Threads for bootstrapping (default: all cores; at most 4 per core).
    #[arg(long, value_parser = crate::arg_values::threads)]
    threads: Option<usize>,
    /// Print one JSON object (seed, operands, parameters and every row with its decrypted
    /// and expected value, bootstraps, depth and time) instead of the tables.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    backend: crate::backend::BackendArgs,
}

/// `encint demo`: exits non-zero on any mismatch.
pub fn demo(a: DemoArgs) -> CliResult {
    if !a.clear {
        a.backend.check()?;
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
    let mut r = Report::new(a.json);
    r.line(format!(
        "encint demo (seed {seed}): x = {x}, y = {y} (signed, {bits} digits)"
    ));
    let typed = typed_rows(x, y)?;
    if a.clear {
        demo_clear(&mut r, &ops, x, y, bits)?;
        typed_clear(&mut r, &typed, x, y)?;
        return r.finish(seed, x, y, "clear");
    }
    let pb = spinner("generating keys (client and server)");
    let t = Instant::now();
    let params = a.backend.params();
    let (client, key) = ClientKey::generate(params);
    pb.finish_and_clear();
    r.line(format!(
        "keys: {:.1} s, parameters {} (128-bit security, p-fail <= 2^-128 per bootstrap)",
        t.elapsed().as_secs_f64(),
        params.id()
    ));
    let server = match a.threads {
        Some(n) => Server::with_threads(key, n)?,
        None => Server::new(key),
    }
    .with_backend(a.backend.in_process())?;
    let ex = encrypt(&client, x, bits)?;
    let ey = encrypt(&client, y, bits)?;
    r.line(format!(
        "{:<20} {:>12} {:>12} {:>6} {:>6} {:>10}",
        "operation", "decrypted", "expected", "pbs", "depth", "time"
    ));
    r.section("exact");
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
        r.row(name, got, *expected, &cost, Some(elapsed));
    }
    r.line(r.verdict("all results decrypt to the plain-arithmetic values"));
    typed_real(&mut r, &typed, &server, &client, x, y)?;
    r.parameters = Some(params.id().to_string());
    r.finish(seed, x, y, "tfhe")
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

fn typed_header(r: &mut Report, x: i128, y: i128) {
    r.line(format!(
        "typed FheInt16 (wrapping, as Rust's i16; each row one circuit, compiled before any \
         key exists): x = {x}, y = {y}"
    ));
    r.section("typed");
}

/// The typed rows on real ciphertexts.
fn typed_real(
    r: &mut Report,
    rows: &[TypedRow],
    server: &Server,
    client: &ClientKey,
    x: i128,
    y: i128,
) -> CliResult {
    typed_header(r, x, y);
    let args: Pair = (
        FheInt16::encrypt(x as i16, client)?,
        FheInt16::encrypt(y as i16, client)?,
    );
    for row in rows {
        let pb = spinner(&format!("computing {}", row.name));
        let t = Instant::now();
        let out = row.run.run_on(server, &args)?;
        let elapsed = t.elapsed();
        pb.finish_and_clear();
        let got = decrypt_typed(
            client,
            out.as_typed().ok_or_else(|| internal("a traced result"))?,
        )?;
        r.row(row.name, got, row.expected, &row.run.cost(), Some(elapsed));
    }
    r.line(r.verdict("all typed results decrypt to the plain-arithmetic values"));
    Ok(())
}

/// The typed rows on the clear executor: the compiled circuits on the values' digits,
/// each result read in its own form (bits, blocks or a representative).
fn typed_clear(r: &mut Report, rows: &[TypedRow], x: i128, y: i128) -> CliResult {
    typed_header(r, x, y);
    for row in rows {
        let out = row.run.run_clear(&[x, y])?;
        let got = *out
            .first()
            .ok_or_else(|| internal("a typed row without a result"))?;
        r.row(row.name, got, row.expected, &row.run.cost(), None);
    }
    r.line(r.verdict("all typed results match plain arithmetic"));
    Ok(())
}

/// The demo's operations on the clear executor (`encint demo --clear`).
fn demo_clear(
    r: &mut Report,
    ops: &[(&str, Op, i128)],
    x: i128,
    y: i128,
    bits: usize,
) -> CliResult {
    r.line("executor: clear (plaintext digits, the same circuits the TFHE executor runs)");
    r.section("exact");
    let ar = Arith::new(Config::BUDGET_25);
    let mut inputs: Vec<i64> = Vec::new();
    for v in [x, y] {
        inputs.extend(
            signed::from_i128_len(v, bits)?
                .iter()
                .map(|&d| i64::from(d)),
        );
    }
    for (name, op, expected) in ops {
        let mut b = Builder::new();
        let p = SInt::input(&mut b, bits);
        let q = SInt::input(&mut b, bits);
        let args = [p, q];
        let out = ar.apply(&mut b, *op, &args[..op.arity()])?;
        let circuit = b.finish(out.digits);
        let (digits, cost) = clear::run(&circuit, &inputs)?;
        let got = value_of(&digits).ok_or_else(|| internal("result overflows i128"))?;
        r.row(name, got, *expected, &cost, None);
    }
    r.line(r.verdict("all results match plain arithmetic"));
    Ok(())
}

/// The demo's output: tables as it goes, or one JSON object at the end (`--json`).
struct Report {
    json: bool,
    /// The section of the rows that follow (`exact` or `typed`).
    section: &'static str,
    rows: Vec<serde_json::Value>,
    /// Rows whose result differs from plain arithmetic.
    failures: usize,
    /// The parameter set's identifier (real keys only).
    parameters: Option<String>,
}

impl Report {
    fn new(json: bool) -> Report {
        Report {
            json,
            section: "exact",
            rows: Vec::new(),
            failures: 0,
            parameters: None,
        }
    }

    /// A line of the tables (nothing with `--json`).
    fn line(&self, text: impl std::fmt::Display) {
        if !self.json {
            println!("{text}");
        }
    }

    fn section(&mut self, name: &'static str) {
        self.section = name;
    }

    /// One result (`time`: the wall time on real keys); prints its table row.
    fn row(
        &mut self,
        name: &str,
        got: i128,
        expected: i128,
        cost: &encint::Cost,
        time: Option<std::time::Duration>,
    ) {
        let ok = got == expected;
        self.failures += usize::from(!ok);
        let ms = time.map(|t| t.as_secs_f64() * 1e3);
        self.line(format!(
            "{:<20} {:>12} {:>12} {:>6} {:>6}{} {}",
            name,
            got,
            expected,
            cost.bootstraps,
            cost.depth,
            ms.map(|ms| format!(" {ms:>8.0}ms")).unwrap_or_default(),
            if ok { "ok" } else { "MISMATCH" }
        ));
        self.rows.push(serde_json::json!({
            "section": self.section,
            "operation": name,
            "decrypted": number(got),
            "expected": number(expected),
            "bootstraps": cost.bootstraps,
            "depth": cost.depth,
            "ms": ms,
            "ok": ok,
        }));
    }

    /// The closing line of a section: `all_ok` when every row so far matched.
    fn verdict(&self, all_ok: &str) -> String {
        match self.failures {
            0 => all_ok.to_owned(),
            n => format!("{n} result(s) so far did not match plain arithmetic"),
        }
    }

    /// Prints the JSON object (`--json`); an error when any row did not match.
    fn finish(self, seed: u64, x: i128, y: i128, executor: &str) -> CliResult {
        if self.json {
            let v = serde_json::json!({
                "seed": seed,
                "x": number(x),
                "y": number(y),
                "executor": executor,
                "parameters": self.parameters,
                "rows": self.rows,
                "ok": self.failures == 0,
            });
            println!("{v}");
        }
        if self.failures > 0 {
            return Err(mismatch(format!(
                "{} result(s) did not match plain arithmetic",
                self.failures
            )));
        }
        Ok(())
    }
}

/// `v` as a JSON number when it fits an `i64`, else as a decimal string (JSON readers hold
/// numbers in doubles or 64-bit integers).
fn number(v: i128) -> serde_json::Value {
    match i64::try_from(v) {
        Ok(n) => n.into(),
        Err(_) => v.to_string().into(),
    }
}
