//! `encint`: exact arithmetic on encrypted integers, from the command line.
//!
//! Run `encint --help` for the commands.

mod asm_bench;
mod asm_cmds;
mod asm_files;
mod asm_run;
mod backend_args;
mod bench;
mod bits_cmds;
mod crypto_cmds;
mod fv_bits_cmds;
mod fv_cmds;
mod gpu_cmds;
mod mpi_cmds;
mod peer;
mod peer8;
mod peer_typed;
mod peer_uint;
mod typed_bench;
mod typed_cost;

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use encint_arith::table::{cost_table, CostRow};
use encint_arith::{value_of, Arith, Config, SInt};
use encint_core::chains::{self, Chain};
use encint_core::circuit::Builder;
use encint_core::recode::koyama_tsuruoka;
use encint_core::{clear, signed};

#[derive(Parser)]
#[command(
    name = "encint",
    version,
    about = "Exact arithmetic on encrypted integers (parallel signed-binary TFHE arithmetic, FV)",
    long_about = "encint builds arithmetic circuits over encrypted 5-bit digits (Parmesan's \
parallel signed-binary arithmetic) and runs them. `encint demo` runs the main job on built-in \
defaults; `encint cost` prints the bootstrap cost of every operation beside Parmesan's; \
`encint chains` shows the addition-subtraction chains used by scalar multiplication."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate keys, encrypt two random signed 16-bit integers, compute add, sub,
    /// mul, scalar mul, square, max, signum and round, decrypt and check every result
    /// against plain arithmetic (exits non-zero on any mismatch).
    Demo(crypto_cmds::DemoArgs),
    /// Generate a client key (secret) and a server key into a directory.
    Keygen(crypto_cmds::KeygenArgs),
    /// Encrypt an integer with the client key.
    Encrypt(crypto_cmds::EncryptArgs),
    /// Evaluate one operation on ciphertexts with the server key.
    Eval(crypto_cmds::EvalArgs),
    /// Decrypt a ciphertext with the client key.
    Decrypt(crypto_cmds::DecryptArgs),
    /// Time the operations on real ciphertexts beside TFHE-rs' FheInt8/16/32 (same
    /// process, same threads); prints our time, the peer's, the ratio, bootstraps, depth.
    Bench(bench::BenchArgs),
    /// Print bootstraps, depth, widest level and largest LUT-input quadratic weight
    /// of each operation, beside Parmesan's figures.
    Cost(CostArgs),
    /// Statistics of the committed ASC* table, a chain for one scalar, or
    /// regeneration of the table.
    Chains(ChainsArgs),
    /// The 8-bit byte processor over encrypted nibbles (seed 004): run assembly programs
    /// (clear or encrypted), list the instruction set, benchmark against TFHE-rs FheUint8.
    Asm {
        #[command(subcommand)]
        command: asm_cmds::AsmCommand,
    },
    /// Boolean circuits on TFHE (seeds 001, 003): cost rows and benchmarks of bit-vector
    /// arithmetic beside TFHE-rs FheUint and the paper.
    Bits {
        #[command(subcommand)]
        command: bits_cmds::BitsCommand,
    },
    /// The FV scheme (BEHZ, HPS, HPR): single-threaded benchmarks and practical depth.
    Fv {
        #[command(subcommand)]
        command: crate::fv_cmds::FvCommand,
    },
    /// The GPU backend (cargo feature `gpu`): device info, a self-test against the clear
    /// executor, bootstrap throughput, benchmarks beside TFHE-rs' GPU API (docs/GPU.md).
    Gpu {
        #[command(subcommand)]
        command: gpu_cmds::GpuCommand,
    },
}

#[derive(Args)]
struct CostArgs {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    json: bool,
    /// Noise budget (largest quadratic weight at a LUT input); default: Parmesan's forms, unbounded.
    #[arg(long)]
    budget: Option<u64>,
    /// Print the planner's table instead: for each typed (TFHE-rs-like) operation and
    /// width, every form's bootstraps, depth and estimated time at N threads (the sum over
    /// levels of ceil(level width / N) bootstrap times), the chosen form first. With
    /// --nodes: threads per node (default 1).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// With --threads: widths in bits (default 8,16,32,64). With --nodes: the one operand
    /// width of the scale model (default 32).
    #[arg(long, value_delimiter = ',')]
    bits: Vec<usize>,
    /// With --threads: operands in lazy form (wrapping results) instead of canonical
    /// (fresh encryptions).
    #[arg(long, requires = "threads", conflicts_with = "nodes")]
    lazy: bool,
    /// With --threads: operands in radix-4 form (two-bit blocks, as
    /// `encint bench --typed --form radix4` encrypts them) instead of canonical.
    #[arg(long, requires = "threads", conflicts_with_all = ["nodes", "lazy"])]
    radix4: bool,
    #[command(flatten)]
    scale: mpi_cmds::ScaleArgs,
}

#[derive(Args)]
struct ChainsArgs {
    /// Number of distinct 12-digit Koyama-Tsuruoka windows over odd k < 4096 and the
    /// total and average additions of our chains over them (seed 000, Appendix B).
    #[arg(long)]
    stats: bool,
    /// With --stats: print a JSON object {windows, total, average}.
    #[arg(long)]
    json: bool,
    /// Print the chain of one odd k < 4096.
    #[arg(long)]
    show: Option<u64>,
    /// Search all shortest chains again and write the table to FILE (a few seconds).
    #[arg(long, value_name = "FILE")]
    generate: Option<std::path::PathBuf>,
    /// With --generate: replace FILE if it exists.
    #[arg(long, requires = "generate")]
    force: bool,
}

fn main() -> ExitCode {
    restore_default_sigpipe();
    encint_tfhe::retain_freed_memory();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo(a) => crypto_cmds::demo(a),
        Command::Keygen(a) => crypto_cmds::keygen(a),
        Command::Encrypt(a) => crypto_cmds::encrypt_cmd(a),
        Command::Eval(a) => crypto_cmds::eval(a),
        Command::Decrypt(a) => crypto_cmds::decrypt_cmd(a),
        Command::Bench(a) => bench::bench(a),
        Command::Cost(a) => cost(a),
        Command::Chains(a) => chains_cmd(a),
        Command::Asm { command } => asm_cmds::run(command),
        Command::Bits { command } => bits_cmds::run(command),
        Command::Fv { command } => crate::fv_cmds::run(command).map_err(Into::into),
        Command::Gpu { command } => gpu_cmds::run(command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Rust ignores SIGPIPE, so `encint asm list | head` made `println!` panic once `head`
/// closed the pipe. Restoring the default action ends the process quietly instead, as
/// other command-line tools do.
fn restore_default_sigpipe() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: called first thing in `main`, before any thread exists; it only resets a
    // signal's disposition to the system default.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

pub(crate) type CliResult = Result<(), Box<dyn std::error::Error>>;

fn cost(a: CostArgs) -> CliResult {
    if a.scale.nodes.is_some() {
        let bits = match a.bits.as_slice() {
            [] => 32,
            [b] => *b,
            _ => return Err("with --nodes, --bits takes one width".into()),
        };
        return mpi_cmds::scale(&a.scale, a.threads.unwrap_or(1), bits, a.json);
    }
    if let Some(threads) = a.threads {
        let bits = if a.bits.is_empty() {
            vec![8, 16, 32, 64]
        } else {
            a.bits.clone()
        };
        let form = match (a.lazy, a.radix4) {
            (true, _) => encint::typed::Form::Lazy,
            (_, true) => encint::typed::Form::Radix4,
            _ => encint::typed::Form::Canonical,
        };
        return typed_cost::print(threads, &bits, form, a.json);
    }
    if !a.bits.is_empty() {
        return Err("--bits needs --threads (the planner) or --nodes (the scale model)".into());
    }
    let config = match a.budget {
        Some(q) => Config { max_qweight: q },
        None => Config::PARMESAN,
    };
    let rows = cost_table(config);
    if a.json {
        let arr: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "op": r.op, "bits": r.bits, "arg": r.arg,
                    "pbs": r.cost.bootstraps, "depth": r.cost.depth,
                    "width": r.cost.width, "qweight": r.cost.max_qweight,
                    "parmesan_pbs": r.parmesan.0, "parmesan_depth": r.parmesan.1,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&arr)?);
        return Ok(());
    }
    println!(
        "{:<11} {:>4} {:>6} {:>6} {:>6} {:>6} {:>8} | {:>9} {:>9}",
        "op", "bits", "arg", "pbs", "depth", "width", "qweight", "Parm.pbs", "Parm.dep"
    );
    for r in &rows {
        print_row(r);
    }
    println!(
        "\nqweight = largest sum of squared weights at a bootstrap input; encint's parameters \
(TFHE-rs' PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128, and its KS_PBS sibling) allow 25. Rows marked * exceed it;\n\
`encint cost --budget 25` shows the restructured forms."
    );
    Ok(())
}

fn print_row(r: &CostRow) {
    let arg = r.arg.map(|a| a.to_string()).unwrap_or_default();
    let flag = if r.cost.max_qweight > 25 { "*" } else { "" };
    println!(
        "{:<11} {:>4} {:>6} {:>6} {:>6} {:>6} {:>7}{:1} | {:>9} {:>9}",
        r.op,
        r.bits,
        arg,
        r.cost.bootstraps,
        r.cost.depth,
        r.cost.width,
        r.cost.max_qweight,
        flag,
        r.parmesan.0,
        r.parmesan.1
    );
}

/// Distinct |window| values of the 12-digit Koyama-Tsuruoka recoding of odd k < 4096.
fn appendix_b_windows() -> Vec<u64> {
    let mut values: Vec<u64> = (1u64..4096)
        .step_by(2)
        .map(|k| {
            let d = koyama_tsuruoka(u128::from(k));
            let low: Vec<i8> = d.into_iter().take(12).collect();
            signed::to_i128(&low).expect("12 digits fit").unsigned_abs() as u64
        })
        .collect();
    values.sort_unstable();
    values.dedup();
    values
}

fn chains_cmd(a: ChainsArgs) -> CliResult {
    if let Some(path) = a.generate {
        encint::files::check_new(&[&path], a.force)?;
        eprintln!("searching shortest chains for every odd k < 4096 ...");
        let table = chains::search(4096);
        let text = chains::render_table(&table);
        encint::files::write_one(&path, text.as_bytes(), encint::files::Mode::Public, a.force)?;
        eprintln!("wrote {} chains to {}", table.len(), path.display());
    }
    if let Some(k) = a.show {
        let chain = chains::chain_for(k).ok_or("k must be odd and below 4096")?;
        println!("{k}: {} additions", chain.additions());
        print_chain(chain);
    }
    if a.stats {
        let windows = appendix_b_windows();
        let mut total = 0usize;
        let mut naive = 0usize;
        for &w in &windows {
            let chain = chains::chain_for(w).ok_or("window value without a chain")?;
            total += chain.additions();
            naive += chains::double_and_add_signed(&koyama_tsuruoka(u128::from(w))).additions();
        }
        let average = total as f64 / windows.len() as f64;
        if a.json {
            println!(
                "{}",
                serde_json::json!({"windows": windows.len(), "total": total, "average": average})
            );
        } else {
            println!(
                "distinct 12-digit Koyama-Tsuruoka windows of odd k < 4096: {}",
                windows.len()
            );
            println!("additions with our shortest ASC*: total {total}, average {average:.3}");
            println!(
                "additions with double-and-add/sub over the recoded digits: total {naive}, average {:.3}",
                naive as f64 / windows.len() as f64
            );
            println!("(Parmesan, seed 000 App. B: 1792 windows, 5558 additions, average 3.10)");
        }
    }
    Ok(())
}

fn print_chain(chain: &Chain) {
    let values = chain.elements();
    for (i, s) in chain.steps.iter().enumerate() {
        let sign = |n: bool| if n { "-" } else { "+" };
        println!(
            "  e{} = {} = odd part of |{}{}·2^{} {}{}·2^{}|",
            i + 1,
            values[i + 1],
            sign(s.a_negative),
            values[s.a],
            s.a_shift,
            sign(s.b_negative),
            values[s.b],
            s.b_shift
        );
    }
}

/// The demo's operations on the clear executor (`encint demo --clear`).
fn demo_clear(ops: &[(&str, encint::Op, i128)], x: i128, y: i128, bits: usize) -> CliResult {
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
        let ok = got == *expected;
        failures += usize::from(!ok);
        println!(
            "{:<12} {:>12} {:>12} {:>6} {:>6} {}",
            name,
            got,
            expected,
            cost.bootstraps,
            cost.depth,
            if ok { "ok" } else { "MISMATCH" }
        );
    }
    if failures > 0 {
        return Err(format!("{failures} result(s) did not match plain arithmetic").into());
    }
    println!("all results match plain arithmetic");
    Ok(())
}
