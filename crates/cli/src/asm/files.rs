//! `encint asm keygen / encrypt / run --server-key / decrypt`: the byte processor over
//! files, like the digit commands. Keys and both links travel in checked envelopes; the
//! work is the library's ([`encint::processor`]).

use std::path::{Path, PathBuf};

use clap::Args;
use encint::keys::envelope::{self, Kind};
use encint::keys::{PackedNibbles, SeededNibbles, DEFAULT_PARAMETERS};
use encint::processor::{ProcessorKeys, Program, SealedProcessorKeys};

use zeroize::Zeroizing;

use super::program::{inputs_from_args, load};
use crate::keyfiles::{load_client, read_envelope};
use crate::progress::spinner;
use crate::timing::pool;
use crate::CliResult;
use encint::files::{self, Mode, Output};

/// Arguments of `encint asm keygen`.
#[derive(Args)]
pub struct KeygenArgs {
    /// Directory for client.key (secret) and server.key, tree.key, packing.key (give these
    /// three to the server).
    #[arg(long)]
    pub out: PathBuf,
    /// Replace existing key files (every ciphertext of the old keys becomes undecryptable).
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `encint asm encrypt`.
#[derive(Args)]
pub struct EncryptArgs {
    /// The program (its inputs say what to encrypt).
    pub file: PathBuf,
    /// The client key file.
    #[arg(long)]
    pub key: PathBuf,
    /// An input value, as for `encint asm run` (missing inputs are random).
    #[arg(long = "input", value_name = "NAME=V")]
    pub inputs: Vec<String>,
    /// Seed for the random inputs that are not given.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output file (the seeded uplink).
    #[arg(long)]
    pub out: PathBuf,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `encint asm decrypt`.
#[derive(Args)]
pub struct DecryptArgs {
    /// The program (its outputs say how to read the result).
    pub file: PathBuf,
    /// The client key file.
    #[arg(long)]
    pub key: PathBuf,
    /// The result file written by `encint asm run --server-key`.
    #[arg(long = "in")]
    pub input: PathBuf,
}

fn key_paths(dir: &Path) -> [PathBuf; 3] {
    ["server.key", "tree.key", "packing.key"].map(|f| dir.join(f))
}

/// `encint asm keygen`: all four keys are written before any is moved into place, and
/// existing key files are kept unless `--force`.
pub fn keygen(a: KeygenArgs) -> CliResult {
    let client_path = a.out.join("client.key");
    let [s, t, p] = key_paths(&a.out);
    // Refuse before generating anything; written files are checked again atomically.
    files::check_new(&[&client_path, &s, &t, &p], a.force)?;
    std::fs::create_dir_all(&a.out)
        .map_err(|e| format!("cannot create {}: {e}", a.out.display()))?;
    let pb = spinner("generating client, server, tree and packing keys");
    let (client, keys) = ProcessorKeys::generate(&DEFAULT_PARAMETERS);
    pb.set_message("writing keys");
    let id = DEFAULT_PARAMETERS.id();
    let client_bytes = Zeroizing::new(envelope::seal(Kind::ClientKey, id, &client)?);
    let sealed = keys.seal()?;
    let public = |path, bytes| Output {
        path,
        bytes,
        mode: Mode::Public,
    };
    files::write_all(
        &[
            Output {
                path: &client_path,
                bytes: &client_bytes,
                mode: Mode::Secret,
            },
            public(&s, &sealed.server),
            public(&t, &sealed.tree),
            public(&p, &sealed.packing),
        ],
        a.force,
    )?;
    pb.finish_and_clear();
    println!(
        "wrote {} (secret) and {}, {}, {} (parameters {id})",
        client_path.display(),
        s.display(),
        t.display(),
        p.display()
    );
    Ok(())
}

/// `encint asm encrypt`.
pub fn encrypt(a: EncryptArgs) -> CliResult {
    files::check_new(&[&a.out], a.force)?;
    let program = Program::from_compiled(load(&a.file)?);
    let client = load_client(&a.key)?;
    let data = inputs_from_args(program.compiled(), &a.inputs, a.seed)?;
    let pb = spinner(&format!(
        "encrypting {} input nibbles",
        program.compiled().circuit.inputs().len()
    ));
    let uplink = program.encrypt_inputs(&client, &data)?;
    pb.finish_and_clear();
    let id = client.params().id();
    files::write_one(
        &a.out,
        &envelope::seal(Kind::Ciphertext, id, &uplink)?,
        Mode::Public,
        a.force,
    )?;
    for (name, _) in &program.compiled().inputs {
        println!("  in  {name} = {}", data[name]);
    }
    println!("wrote {}", a.out.display());
    Ok(())
}

/// `encint asm run FILE --server-key DIR --in IN --out OUT [--force]`.
pub fn run(
    file: &Path,
    dir: &Path,
    (input, out): (&Path, &Path),
    threads: Option<usize>,
    force: bool,
) -> CliResult {
    files::check_new(&[out], force)?;
    let program = Program::from_compiled(load(file)?);
    let [s, t, p] = key_paths(dir);
    let pb = spinner("loading server, tree and packing keys");
    let keys = ProcessorKeys::open(&SealedProcessorKeys {
        server: read_envelope(&s, Kind::ServerKey)?,
        tree: read_envelope(&t, Kind::ServerKey)?,
        packing: read_envelope(&p, Kind::ServerKey)?,
    })?;
    let id = keys.server.params().id();
    let uplink: SeededNibbles = envelope::open(
        &read_envelope(input, Kind::Ciphertext)?,
        Kind::Ciphertext,
        id,
    )?;
    pb.set_message(format!(
        "evaluating {} blind rotations",
        program.cost().blind_rotations
    ));
    let pool = pool(threads)?;
    let downlink = pool.install(|| program.run(&keys, &uplink))?;
    pb.finish_and_clear();
    files::write_one(
        out,
        &envelope::seal(Kind::Ciphertext, id, &downlink)?,
        Mode::Public,
        force,
    )?;
    println!("wrote {}", out.display());
    Ok(())
}

/// `encint asm decrypt`.
pub fn decrypt(a: DecryptArgs) -> CliResult {
    let program = Program::from_compiled(load(&a.file)?);
    let client = load_client(&a.key)?;
    let packed: PackedNibbles = envelope::open(
        &read_envelope(&a.input, Kind::Ciphertext)?,
        Kind::Ciphertext,
        client.params().id(),
    )?;
    let pb = spinner(&format!("decrypting {} output nibbles", packed.len()));
    let outputs = program.decrypt_outputs(&client, &packed)?;
    pb.finish_and_clear();
    for (name, d) in outputs {
        println!("  out {name} = {d}");
    }
    Ok(())
}
