//! `encint`: exact arithmetic on encrypted integers, from the command line.
//!
//! Run `encint --help` for the commands. Each command lives in its own module; the
//! modules below the commands (`arg_values`, `backend`, `keyfiles`, `oracle`, `peer`,
//! `progress`, `timing`) are shared by several and never name a command module; `error`
//! (every command's [`error::CliError`] and its exit status) is below them all.

mod arg_values;
mod asm;
mod backend;
mod bench;
mod bits;
mod calibrate;
mod chains;
mod cost;
mod digit;
mod error;
mod fv;
mod gpu;
mod infer;
mod keyfiles;
mod library_log;
mod ops_arg;
mod oracle;
mod peer;
mod progress;
mod sizes;
mod timing;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "encint",
    version,
    about = "Arithmetic on encrypted integers (TFHE): typed integers, arrays, compiled functions, \
exact integers, FV batches, an encrypted byte processor",
    long_about = "encint computes on encrypted integers with TFHE. Typed integers u8 .. u128 and \
i8 .. i128 and bool (results modulo 2^N, as TFHE-rs' FheUint/FheInt) are encrypted, computed on \
and decrypted with `encint encrypt --type u8|i32|bool|...`, `eval` and `decrypt`; every \
operation's bootstraps and depth are known before any key exists (`encint cost`, `eval \
--clear`), and `encint bench --typed` and `--workloads` time them beside TFHE-rs. Exact integers \
that never wrap (`encrypt` without --type) run Parmesan's parallel signed-binary arithmetic \
(Klemsa and Önen); `encint fv` runs FV batches (BEHZ, HPS, HPR), `encint asm` the encrypted \
8-bit byte processor, `encint infer` private inference. `encint demo` runs the main job on \
built-in defaults. Every command checks its arguments before any key is generated or loaded; \
progress goes to stderr: a spinner on a terminal, elsewhere one line per stage (`[encint] \
generating keys`). Exit status: 0 on success, 2 for arguments refused before any work, 3 \
when a decrypted result disagrees with plain arithmetic or the clear run, 1 for any other \
error (a file that cannot be read or does not hold what is needed, a refused operation)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate keys, encrypt two random signed 16-bit integers, compute exact add, sub,
    /// mul, scalar mul, square, max, signum and round and the typed family's operations and
    /// compiled functions on them (FheInt16), decrypt and check every result against plain
    /// arithmetic (exits non-zero on any mismatch).
    Demo(digit::DemoArgs),
    /// Generate a client key (secret), a server key and a public key into a directory.
    Keygen(digit::KeygenArgs),
    /// Write the public key of a client key: with it, anyone can encrypt values
    /// (`encrypt --public-key`) that the server computes on and only the client key
    /// decrypts (keygen writes one too).
    PublicKey(digit::DerivedKeyArgs),
    /// Write the packing key of a client key (64 MiB, public): with it, `eval --packed`
    /// returns results packed, a few KB instead of 16 KB per digit.
    PackingKey(digit::DerivedKeyArgs),
    /// Encrypt an exact integer or a typed value (u8, i32, bool, ...) with the client key
    /// or the public key.
    Encrypt(digit::EncryptArgs),
    /// Evaluate one operation on ciphertexts with the server key (with `--clear`: its
    /// circuit on plain values, no keys).
    Eval(digit::EvalArgs),
    /// Decrypt a ciphertext (exact or typed, packed or not: the file says which) with the
    /// client key.
    Decrypt(digit::DecryptArgs),
    /// Time the operations, or whole programs (--workloads), on real ciphertexts beside
    /// TFHE-rs' FheInt/FheUint (same process, same threads); prints our time, the peer's,
    /// the ratio, bootstraps, depth.
    Bench(bench::BenchArgs),
    /// Measure this machine's bootstraps (a level's latency, a round's time) and save the
    /// profile that `--machine calibrated` reads.
    #[command(long_about = calibrate::LONG_ABOUT)]
    Calibrate(calibrate::CalibrateArgs),
    /// Print bootstraps, depth, widest level and largest LUT-input quadratic weight
    /// of each operation, beside Parmesan's figures.
    Cost(cost::CostArgs),
    /// Statistics of the committed ASC* table, a chain for one scalar, or
    /// regeneration of the table.
    Chains(chains::ChainsArgs),
    /// The 8-bit byte processor over encrypted nibbles (Trama, Clet, Boudguiga and Sirdey,
    /// "Designing a General-Purpose 8-bit (T)FHE Processor Abstraction"): run assembly
    /// programs (clear or encrypted), list the instruction set, benchmark against TFHE-rs
    /// FheUint8.
    Asm {
        #[command(subcommand)]
        command: asm::AsmCommand,
    },
    /// Boolean circuits on TFHE (the papers of Trifan, Nicolau and Veidenbaum and of Chen,
    /// Feng, Liu and Wu): cost rows and benchmarks of bit-vector arithmetic beside TFHE-rs
    /// FheUint and the paper.
    Bits {
        #[command(subcommand)]
        command: bits::BitsCommand,
    },
    /// The FV scheme (BEHZ, HPS, HPR): single-threaded benchmarks and practical depth.
    Fv {
        #[command(subcommand)]
        command: fv::FvCommand,
    },
    /// The GPU backend (cargo feature `gpu`): device info, a self-test against the clear
    /// executor, bootstrap throughput, benchmarks beside TFHE-rs' GPU API (docs/GPU.md).
    Gpu {
        #[command(subcommand)]
        command: gpu::GpuCommand,
    },
    /// Private inference: classify encrypted images of handwritten digits with a small
    /// quantised neural network, the weights in the clear or encrypted; checks every
    /// result against the model in plain integers.
    #[command(long_about = infer::LONG_ABOUT)]
    Infer(infer::InferArgs),
    /// Bytes of every file a client uploads (key files, one value of each usual width
    /// expanded and seeded, an array of 64 u16, the public key and values under it) beside TFHE-rs 1.8.2's serialized sizes,
    /// measured on fresh keys in this process.
    Sizes(sizes::SizesArgs),
}

/// The default thread count of every command that takes `--threads`: all cores.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn main() -> ExitCode {
    restore_default_sigpipe();
    library_log::install();
    encint::keys::retain_freed_memory();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo(a) => digit::demo(a),
        Command::Keygen(a) => digit::keygen(a),
        Command::PublicKey(a) => digit::public_key_cmd(a),
        Command::PackingKey(a) => digit::packing_key_cmd(a),
        Command::Encrypt(a) => digit::encrypt_cmd(a),
        Command::Eval(a) => digit::eval(a),
        Command::Decrypt(a) => digit::decrypt_cmd(a),
        Command::Bench(a) => bench::bench(a),
        Command::Calibrate(a) => calibrate::run(a),
        Command::Cost(a) => cost::run(a),
        Command::Chains(a) => chains::run(a),
        Command::Asm { command } => asm::run(command),
        Command::Bits { command } => bits::run(command),
        Command::Fv { command } => fv::run(command).map_err(Into::into),
        Command::Gpu { command } => gpu::run(command),
        Command::Infer(a) => infer::run(a),
        Command::Sizes(a) => sizes::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// Rust ignores SIGPIPE, so `encint asm list | head` made `println!` panic once `head`
/// closed the pipe. Restoring the default action ends the process quietly instead, as
/// other command-line tools do.
#[allow(unsafe_code)]
fn restore_default_sigpipe() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: called first thing in `main`, before any thread exists; it only resets a
    // signal's disposition to the system default.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// The result of a command: its error is printed by `main`, which then exits with the
/// error's code ([`error::CliError::exit_code`]).
pub(crate) type CliResult = Result<(), error::CliError>;

/// A value, or an error to print.
pub(crate) type AnyResult<T> = Result<T, error::CliError>;
