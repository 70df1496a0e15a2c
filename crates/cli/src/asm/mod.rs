//! `encint asm`: the byte processor (Trama, Clet, Boudguiga and Sirdey, "Designing a
//! General-Purpose 8-bit (T)FHE Processor Abstraction"): run assembly programs in clear or
//! on encrypted data (`program`), keys and links as files (`files`), benchmarks (`bench`).

mod bench;
mod files;
mod program;

use std::collections::HashMap;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use encint::processor::instr::signatures;
use encint::processor::vm::{run_clear, Compiled, Datum};

use crate::backend::with_processor;
use crate::error::{mismatch, usage};
use crate::CliResult;

/// Subcommands of `encint asm`.
#[derive(Subcommand)]
pub enum AsmCommand {
    /// Assemble and run a program. Without --clear: generate keys, encrypt the inputs,
    /// run the program's circuit on ciphertexts, decrypt, and check against the clear run.
    Run(RunArgs),
    /// List the instruction set (mnemonic, operands, result, description).
    List(ListArgs),
    /// Generate a client key (secret) and the server's keys (server, tree, packing) into a
    /// directory.
    Keygen(files::KeygenArgs),
    /// Encrypt a program's inputs with the client key (the seeded uplink). The file names
    /// the inputs it holds (names, kinds, order): `asm run` refuses it for another program.
    Encrypt(files::EncryptArgs),
    /// Decrypt the result of `encint asm run --server-key` with the client key (the file
    /// names the outputs it holds: the result of another program is refused).
    Decrypt(files::DecryptArgs),
    /// Time instructions on random encrypted bytes beside TFHE-rs FheUint8 (same process,
    /// same threads), or the example programs (--programs). Rows (`--ops`): the mnemonics of
    /// Table 4 of the processor paper (ADD, MUL, DIV, ...; an unknown one is refused with
    /// the list).
    Bench(bench::AsmBenchArgs),
}

/// Arguments of `encint asm run`.
#[derive(Args)]
pub struct RunArgs {
    /// The program (see examples/*.asm for the format).
    pub file: PathBuf,
    /// Run on plain bytes (no keys, instant): same results, plus the cost an encrypted
    /// run would have.
    #[arg(long)]
    pub clear: bool,
    /// An input value: NAME=V for a byte (0..=255 or -128..=-1) or fixed-point number
    /// (e.g. 0.75), NAME=V1,V2,... for an array. Repeat for each input; missing inputs
    /// are random.
    #[arg(long = "input", value_name = "NAME=V")]
    pub inputs: Vec<String>,
    /// Threads for the encrypted run (default: all cores; at most 4 per core).
    #[arg(long, value_parser = crate::arg_values::threads)]
    pub threads: Option<usize>,
    /// Seed for the random inputs that are not given.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Run as a server: the directory of server.key, tree.key and packing.key (from
    /// `encint asm keygen`); reads --in (from `encint asm encrypt`), writes --out.
    #[arg(long, requires_all = ["input_file", "out"], conflicts_with = "clear")]
    pub server_key: Option<PathBuf>,
    /// With --server-key: the encrypted inputs (`encint asm encrypt` of this program: the
    /// inputs of another program are refused before any key is loaded).
    #[arg(long = "in", id = "input_file", requires = "server_key")]
    pub input_file: Option<PathBuf>,
    /// With --server-key: the output file (the packed downlink; never one of the inputs).
    #[arg(long, requires = "server_key")]
    pub out: Option<PathBuf>,
    /// With --server-key: replace the output file if it exists.
    #[arg(long, requires = "server_key")]
    pub force: bool,
    /// Print one JSON object (inputs, cost, outputs, and for an encrypted run its timings
    /// and whether it matches the clear run) instead of the text.
    #[arg(long, conflicts_with = "server_key")]
    pub json: bool,
    #[command(flatten)]
    pub backend: crate::backend::BackendArgs,
}

/// Options of `encint asm list`.
#[derive(clap::Args)]
pub struct ListArgs {
    /// Print a JSON array (name, args, result, doc of each instruction) instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `encint asm`.
pub fn run(cmd: AsmCommand) -> CliResult {
    match cmd {
        AsmCommand::Run(a) => run_program(a),
        AsmCommand::List(l) => {
            let mut rows = Vec::new();
            for s in signatures() {
                let args: Vec<String> = s.args.iter().map(|k| format!("{k:?}")).collect();
                if l.json {
                    rows.push(serde_json::json!({
                        "name": s.name, "args": args,
                        "result": format!("{:?}", s.result), "doc": s.doc,
                    }));
                    continue;
                }
                println!(
                    "{:<8} {:<24} -> {:<6} {}",
                    s.name,
                    args.join(", "),
                    format!("{:?}", s.result),
                    s.doc
                );
            }
            if l.json {
                println!("{}", serde_json::Value::Array(rows));
            }
            Ok(())
        }
        AsmCommand::Bench(a) => bench::bench(a),
        AsmCommand::Keygen(a) => files::keygen(a),
        AsmCommand::Encrypt(a) => files::encrypt(a),
        AsmCommand::Decrypt(a) => files::decrypt(a),
    }
}

/// `asm run --json`: the whole report as one object.
fn run_json(
    a: &RunArgs,
    c: &Compiled,
    data: &HashMap<String, Datum>,
    clear_out: &[(String, Datum)],
    cost: &encint::Cost,
) -> CliResult {
    let named = |items: &mut dyn Iterator<Item = (&String, &Datum)>| {
        serde_json::Value::Object(items.map(|(n, d)| (n.clone(), datum_json(d))).collect())
    };
    let mut v = serde_json::json!({
        "program": a.file.display().to_string(),
        "inputs": named(&mut c.inputs.iter().map(|(n, _)| (n, &data[n]))),
        "cost": {
            "blind_rotations": cost.blind_rotations,
            "packing_keyswitches": cost.packing_keyswitches,
            "bootstraps": cost.bootstraps,
            "depth": cost.depth,
        },
        "executor": if a.clear { "clear" } else { "tfhe" },
        "outputs": named(&mut clear_out.iter().map(|(n, d)| (n, d))),
    });
    if a.clear {
        println!("{v}");
        return Ok(());
    }
    with_processor(&a.backend, a.threads, |session, exec| {
        let (out, timing) = program::run_encrypted(c, data, session, exec)?;
        let matches = out == clear_out;
        v["outputs"] = named(&mut out.iter().map(|(n, d)| (n, d)));
        v["matches_clear_run"] = matches.into();
        v["timing_s"] = serde_json::json!({
            "keygen": session.keygen_s,
            "encrypt": timing.encrypt_s,
            "evaluate": timing.eval_s,
            "decrypt": timing.decrypt_s,
        });
        v["backend"] = exec.report().into();
        println!("{v}");
        if !matches {
            return Err(mismatch("encrypted result differs from the clear run"));
        }
        Ok(())
    })
}

/// A byte as its value, a fixed-point number as its value and raw 16 bits.
fn datum_json(d: &Datum) -> serde_json::Value {
    match *d {
        Datum::Byte(b) => serde_json::json!({ "byte": b }),
        Datum::Fixed(r) => serde_json::json!({ "fixed": f64::from(r) / 256.0, "raw": r }),
    }
}

fn print_inputs(c: &Compiled, data: &HashMap<String, Datum>) {
    for (name, _) in &c.inputs {
        println!("  in  {name} = {}", data[name]);
    }
}

fn print_outputs(out: &[(String, Datum)]) {
    for (name, d) in out {
        println!("  out {name} = {d}");
    }
}

fn run_program(a: RunArgs) -> CliResult {
    // The backend is checked before any file is read.
    if !a.clear {
        if !a.backend.wants_mpi()? {
            a.backend.check_processor()?;
        } else if a.server_key.is_some() {
            return Err(usage(
                "--backend mpi runs with fresh keys (without --server-key)",
            ));
        }
    }
    if let (Some(dir), Some(input), Some(out)) = (&a.server_key, &a.input_file, &a.out) {
        return files::run(&a.file, dir, (input, out), a.threads, a.force);
    }
    let c = program::load(&a.file)?;
    let data = program::inputs_from_args(&c, &a.inputs, a.seed)?;
    let (clear_out, cost) = run_clear(&c, &data)?;
    if a.json {
        return run_json(&a, &c, &data, &clear_out, &cost);
    }
    let header = || {
        println!("{}:", a.file.display());
        print_inputs(&c, &data);
        println!(
            "  cost: {} blind rotations, {} packing keyswitches, {} bootstrap nodes, depth {}",
            cost.blind_rotations, cost.packing_keyswitches, cost.bootstraps, cost.depth
        );
    };
    if a.clear {
        header();
        print_outputs(&clear_out);
        return Ok(());
    }
    with_processor(&a.backend, a.threads, |session, exec| {
        header();
        let (out, timing) = program::run_encrypted(&c, &data, session, exec)?;
        print_outputs(&out);
        println!(
            "  encrypted run{}: keys {:.1} s, encrypt {:.2} s, evaluate {:.2} s, decrypt {:.3} s",
            exec.place(),
            session.keygen_s,
            timing.encrypt_s,
            timing.eval_s,
            timing.decrypt_s
        );
        if let Some(line) = exec.report() {
            println!("  {line}");
        }
        if out != clear_out {
            return Err(mismatch("encrypted result differs from the clear run"));
        }
        println!("  matches the clear run");
        Ok(())
    })
}
