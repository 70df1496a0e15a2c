//! The commands that use real encryption: keygen, encrypt, eval, decrypt, demo.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use encint::{decrypt, encrypt, ClientKey, EncInt, Op, Server, ServerKey};
use encint_tfhe::envelope::{self, Kind};
use indicatif::{ProgressBar, ProgressStyle};
use rand::{Rng, SeedableRng};

use zeroize::Zeroizing;

use crate::CliResult;
use encint::files::{self, Mode, Output};

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

/// Reads an envelope file of the given kind, refusing files larger than the envelope's
/// own limit ([`envelope::max_len`]) before reading them.
pub fn read_envelope(path: &Path, kind: Kind) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    Ok(files::read_bounded(path, envelope::max_len(kind))?)
}

/// Opens an envelope read from `path`, naming the path in errors.
fn open_at<T: serde::de::DeserializeOwned + encint_tfhe::Validate>(
    path: &Path,
    bytes: &[u8],
    kind: Kind,
) -> Result<T, Box<dyn std::error::Error>> {
    envelope::open_known(bytes, kind).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// Loads a client key file (the buffer that held the key's bytes is zeroized).
pub fn load_client(path: &Path) -> Result<ClientKey, Box<dyn std::error::Error>> {
    let bytes = Zeroizing::new(read_envelope(path, Kind::ClientKey)?);
    open_at(path, &bytes, Kind::ClientKey)
}

/// Loads a server key file.
pub fn load_server(path: &Path) -> Result<ServerKey, Box<dyn std::error::Error>> {
    open_at(
        path,
        &read_envelope(path, Kind::ServerKey)?,
        Kind::ServerKey,
    )
}

pub(crate) fn load_ct(path: &Path) -> Result<EncInt, Box<dyn std::error::Error>> {
    open_at(
        path,
        &read_envelope(path, Kind::Ciphertext)?,
        Kind::Ciphertext,
    )
}

/// `encint keygen`.
#[derive(Args)]
pub struct KeygenArgs {
    /// Directory for client.key (secret, keep it) and server.key (give it to the server).
    #[arg(long)]
    out: PathBuf,
    /// Replace existing key files (every ciphertext of the old keys becomes undecryptable).
    #[arg(long)]
    force: bool,
    /// Parameter set: ks32 (the default: TFHE-rs' PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128,
    /// the keyswitch on the 32-bit torus, the faster on the CPU) or ks64 (its
    /// PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128, which `eval --backend gpu` needs). Both:
    /// 128-bit security, p-fail 2^-129.6 per bootstrap.
    #[arg(long, value_enum, default_value = "ks32")]
    params: crate::backend_args::ParamSet,
}

/// `encint encrypt`.
#[derive(Args)]
pub struct EncryptArgs {
    /// The client key file.
    #[arg(long)]
    key: PathBuf,
    /// The integer to encrypt (any size that fits the digits).
    #[arg(long, allow_hyphen_values = true)]
    value: encint::BigInt,
    /// Number of signed binary digits (the value must fit: |value| < 2^bits).
    #[arg(long)]
    bits: usize,
    /// Output ciphertext file.
    #[arg(long)]
    out: PathBuf,
    /// Replace the output file if it exists.
    #[arg(long)]
    force: bool,
}

/// `encint eval`.
#[derive(Args)]
pub struct EvalArgs {
    /// The server key file.
    #[arg(long = "server-key")]
    pub(crate) server_key: PathBuf,
    /// Operation: add, sub, neg, mul, mul_low, scalar_mul, squ, sgn, max, min, abs,
    /// round, lt, le, gt, ge, eq, ne.
    #[arg(long)]
    pub(crate) op: String,
    /// Input ciphertext(s): one or two, as the operation needs.
    #[arg(long = "in", required = true)]
    pub(crate) inputs: Vec<PathBuf>,
    /// The clear scalar of scalar_mul (only with `--op scalar_mul`).
    #[arg(long, allow_hyphen_values = true, conflicts_with = "position")]
    pub(crate) scalar: Option<i64>,
    /// The bit position of round (only with `--op round`).
    #[arg(long)]
    pub(crate) position: Option<i64>,
    /// Output ciphertext file.
    #[arg(long)]
    pub(crate) out: PathBuf,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub(crate) force: bool,
    /// Threads for bootstrapping (default: all cores; at most 4 per core).
    #[arg(long)]
    pub(crate) threads: Option<usize>,
    /// Largest circuit to build and run, in nodes (default 2097152; checked from an
    /// estimate before building).
    #[arg(long = "max-nodes")]
    pub(crate) max_nodes: Option<u64>,
    #[command(flatten)]
    pub(crate) backend: crate::backend_args::BackendArgs,
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
    let (client_path, server_path) = (a.out.join("client.key"), a.out.join("server.key"));
    // Refuse before generating anything; written files are checked again atomically.
    files::check_new(&[&client_path, &server_path], a.force)?;
    std::fs::create_dir_all(&a.out)
        .map_err(|e| format!("cannot create {}: {e}", a.out.display()))?;
    let pb = spinner("generating keys");
    let params = a.params.params();
    let (client, server) = ClientKey::generate(params);
    pb.set_message("writing keys");
    let id = params.id();
    let client_bytes = Zeroizing::new(envelope::seal(Kind::ClientKey, id, &client)?);
    let server_bytes = envelope::seal(Kind::ServerKey, id, &server)?;
    files::write_all(
        &[
            Output {
                path: &client_path,
                bytes: &client_bytes,
                mode: Mode::Secret,
            },
            Output {
                path: &server_path,
                bytes: &server_bytes,
                mode: Mode::Public,
            },
        ],
        a.force,
    )?;
    pb.finish_and_clear();
    println!(
        "wrote {} and {} (parameters {id})",
        client_path.display(),
        server_path.display()
    );
    Ok(())
}

pub fn encrypt_cmd(a: EncryptArgs) -> CliResult {
    files::check_new(&[&a.out], a.force)?;
    let client = load_client(&a.key)?;
    let x = encint::encrypt_big(&client, &a.value, a.bits)?;
    files::write_one(&a.out, &x.to_bytes(client.params())?, Mode::Public, a.force)?;
    println!(
        "encrypted {} as {} digits into {}",
        a.value,
        a.bits,
        a.out.display()
    );
    Ok(())
}

pub fn eval(a: EvalArgs) -> CliResult {
    let arg = match (a.op.as_str(), a.scalar, a.position) {
        ("scalar_mul", s, None) => s,
        ("round", None, p) => p,
        (_, None, None) => None,
        (op, _, _) => {
            return Err(format!(
                "`--scalar` goes only with `--op scalar_mul` and `--position` only with \
                 `--op round` (got `--op {op}`)"
            )
            .into())
        }
    };
    let op = Op::parse(&a.op, arg)?;
    if let Some(t) = a.threads {
        encint::check_threads(t)?;
    }
    files::check_new(&[&a.out], a.force)?;
    if a.inputs.len() != op.arity() {
        return Err(format!(
            "`{}` takes {} input ciphertext(s), got {}",
            a.op,
            op.arity(),
            a.inputs.len()
        )
        .into());
    }
    if a.backend.wants_mpi()? {
        return crate::mpi_cmds::eval(&a, op);
    }
    a.backend.check()?;
    let pb = spinner("loading the server key");
    let key = load_server(&a.server_key)?;
    let mut ins = Vec::new();
    for p in &a.inputs {
        ins.push(load_ct(p)?);
    }
    let mut server = match a.threads {
        Some(t) => Server::with_threads(key, t)?,
        None => Server::new(key),
    }
    .with_backend(a.backend.in_process())?;
    if let Some(n) = a.max_nodes {
        server.set_max_nodes(n);
    }
    pb.set_message(format!("evaluating {}", a.op));
    let start = Instant::now();
    let refs: Vec<&EncInt> = ins.iter().collect();
    let (out, cost) = server.apply(op, &refs)?;
    pb.finish_and_clear();
    let bytes = out.to_bytes(server.key().params())?;
    files::write_one(&a.out, &bytes, Mode::Public, a.force)?;
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
    let x = load_ct(&a.input)?;
    println!("{}", encint::decrypt_big(&client, &x)?);
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
    #[command(flatten)]
    backend: crate::backend_args::BackendArgs,
}

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
        return crate::demo_clear(&ops, x, y, bits);
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
