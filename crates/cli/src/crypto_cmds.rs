//! The commands that use real encryption: keygen, encrypt, eval, decrypt, demo.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use encint::{decrypt, encrypt, ClientKey, EncInt, Op, Server, ServerKey, DEFAULT_PARAMETERS};
use encint_tfhe::envelope::{self, Kind};
use encint_tfhe::DigitParameters;
use indicatif::{ProgressBar, ProgressStyle};
use rand::{Rng, SeedableRng};

use crate::CliResult;

/// A spinner on stderr while long work runs (hidden when stderr is not a terminal).
pub fn spinner(msg: &str) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{elapsed}]").expect("valid template"),
    );
    pb.set_message(msg.to_string());
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

fn params_of(bytes: &[u8]) -> Result<DigitParameters, Box<dyn std::error::Error>> {
    let (header, _) = envelope::read_header(bytes)?;
    DigitParameters::from_id(&header.params_id)
        .ok_or_else(|| format!("unknown parameter set `{}`", header.params_id).into())
}

pub(crate) fn read(path: &Path) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()).into())
}

/// Loads a client key file.
pub fn load_client(path: &Path) -> Result<ClientKey, Box<dyn std::error::Error>> {
    let bytes = read(path)?;
    let p = params_of(&bytes)?;
    Ok(envelope::open(&bytes, Kind::ClientKey, p.id())?)
}

/// Loads a server key file.
pub fn load_server(path: &Path) -> Result<ServerKey, Box<dyn std::error::Error>> {
    let bytes = read(path)?;
    let p = params_of(&bytes)?;
    Ok(envelope::open(&bytes, Kind::ServerKey, p.id())?)
}

fn load_ct(path: &Path) -> Result<(EncInt, DigitParameters), Box<dyn std::error::Error>> {
    let bytes = read(path)?;
    let p = params_of(&bytes)?;
    Ok((EncInt::from_bytes(&bytes, &p)?, p))
}

/// Writes a file without overwriting anything unless asked to (and atomically).
pub(crate) fn write_new(path: &Path, bytes: &[u8], secret: bool) -> CliResult {
    let tmp = path.with_extension("tmp-encint");
    std::fs::write(&tmp, bytes).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    #[cfg(unix)]
    if secret {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600))?;
    }
    #[cfg(not(unix))]
    let _ = secret;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

/// `encint keygen`.
#[derive(Args)]
pub struct KeygenArgs {
    /// Directory for client.key (secret, keep it) and server.key (give it to the server).
    #[arg(long)]
    out: PathBuf,
}

/// `encint encrypt`.
#[derive(Args)]
pub struct EncryptArgs {
    /// The client key file.
    #[arg(long)]
    key: PathBuf,
    /// The integer to encrypt.
    #[arg(long, allow_hyphen_values = true)]
    value: i128,
    /// Number of signed binary digits (the value must fit: |value| < 2^bits).
    #[arg(long)]
    bits: usize,
    /// Output ciphertext file.
    #[arg(long)]
    out: PathBuf,
}

/// `encint eval`.
#[derive(Args)]
pub struct EvalArgs {
    /// The server key file.
    #[arg(long = "server-key")]
    server_key: PathBuf,
    /// Operation: add, sub, neg, mul, mul_low, scalar_mul, squ, sgn, max, min, abs,
    /// round, lt, le, gt, ge, eq, ne.
    #[arg(long)]
    op: String,
    /// Input ciphertext(s): one or two, as the operation needs.
    #[arg(long = "in", required = true)]
    inputs: Vec<PathBuf>,
    /// The clear scalar of scalar_mul.
    #[arg(long, allow_hyphen_values = true)]
    scalar: Option<i64>,
    /// The bit position of round.
    #[arg(long)]
    position: Option<i64>,
    /// Output ciphertext file.
    #[arg(long)]
    out: PathBuf,
    /// Threads for bootstrapping (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// `encint decrypt`.
#[derive(Args)]
pub struct DecryptArgs {
    /// The client key file.
    #[arg(long)]
    key: PathBuf,
    /// The ciphertext file.
    #[arg(long = "in")]
    input: PathBuf,
}

pub fn keygen(a: KeygenArgs) -> CliResult {
    std::fs::create_dir_all(&a.out)?;
    let pb = spinner("generating keys");
    let (client, server) = ClientKey::generate(&DEFAULT_PARAMETERS);
    pb.set_message("writing keys");
    let id = DEFAULT_PARAMETERS.id();
    write_new(
        &a.out.join("client.key"),
        &envelope::seal(Kind::ClientKey, id, &client)?,
        true,
    )?;
    write_new(
        &a.out.join("server.key"),
        &envelope::seal(Kind::ServerKey, id, &server)?,
        false,
    )?;
    pb.finish_and_clear();
    println!(
        "wrote {} and {} (parameters {id})",
        a.out.join("client.key").display(),
        a.out.join("server.key").display()
    );
    Ok(())
}

pub fn encrypt_cmd(a: EncryptArgs) -> CliResult {
    let client = load_client(&a.key)?;
    let x = encrypt(&client, a.value, a.bits)?;
    write_new(&a.out, &x.to_bytes(client.params())?, false)?;
    println!(
        "encrypted {} as {} digits into {}",
        a.value,
        a.bits,
        a.out.display()
    );
    Ok(())
}

pub fn eval(a: EvalArgs) -> CliResult {
    let arg = a.scalar.or(a.position);
    let op = Op::parse(&a.op, arg)?;
    if a.inputs.len() != op.arity() {
        return Err(format!(
            "`{}` takes {} input ciphertext(s), got {}",
            a.op,
            op.arity(),
            a.inputs.len()
        )
        .into());
    }
    let pb = spinner("loading the server key");
    let key = load_server(&a.server_key)?;
    let mut ins = Vec::new();
    for p in &a.inputs {
        let (x, params) = load_ct(p)?;
        if params.id() != key.params().id() {
            return Err(format!(
                "{} was made with parameters {}, the key has {}",
                p.display(),
                params.id(),
                key.params().id()
            )
            .into());
        }
        ins.push(x);
    }
    let server = match a.threads {
        Some(t) => Server::with_threads(key, t)?,
        None => Server::new(key),
    };
    pb.set_message(format!("evaluating {}", a.op));
    let start = Instant::now();
    let refs: Vec<&EncInt> = ins.iter().collect();
    let (out, cost) = server.apply(op, &refs)?;
    pb.finish_and_clear();
    write_new(&a.out, &out.to_bytes(server.key().params())?, false)?;
    println!(
        "{} done in {:.1} ms: {} bootstraps, depth {}, {} output digits -> {}",
        a.op,
        start.elapsed().as_secs_f64() * 1e3,
        cost.bootstraps,
        cost.depth,
        out.len(),
        a.out.display()
    );
    Ok(())
}

pub fn decrypt_cmd(a: DecryptArgs) -> CliResult {
    let client = load_client(&a.key)?;
    let (x, params) = load_ct(&a.input)?;
    if params.id() != client.params().id() {
        return Err(format!(
            "ciphertext parameters {} do not match the key's {}",
            params.id(),
            client.params().id()
        )
        .into());
    }
    println!("{}", decrypt(&client, &x)?);
    Ok(())
}

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
}

pub fn demo(a: DemoArgs) -> CliResult {
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
        return crate::demo_clear(&ops, x, y, bits);
    }
    let pb = spinner("generating keys (client and server)");
    let t = Instant::now();
    let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    pb.finish_and_clear();
    println!(
        "keys: {:.1} s, parameters {} (128-bit security, p-fail <= 2^-128 per bootstrap)",
        t.elapsed().as_secs_f64(),
        DEFAULT_PARAMETERS.id()
    );
    let server = match a.threads {
        Some(n) => Server::with_threads(key, n)?,
        None => Server::new(key),
    };
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
        let ok = got == *expected;
        failures += usize::from(!ok);
        println!(
            "{:<12} {:>12} {:>12} {:>6} {:>6} {:>8.0}ms {}",
            name,
            got,
            expected,
            cost.bootstraps,
            cost.depth,
            elapsed.as_secs_f64() * 1e3,
            if ok { "ok" } else { "MISMATCH" }
        );
    }
    if failures > 0 {
        return Err(format!("{failures} result(s) did not match plain arithmetic").into());
    }
    println!("all results decrypt to the plain-arithmetic values");
    Ok(())
}
