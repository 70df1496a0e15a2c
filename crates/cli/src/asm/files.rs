//! `encint asm keygen / encrypt / run --server-key / decrypt`: the byte processor over
//! files, like the digit commands. Keys and both links travel in checked envelopes; the
//! work is the library's ([`encint::processor`]).

use std::path::{Path, PathBuf};

use clap::Args;
use encint::io::contents::Content;
use encint::keys::envelope::{self, Kind};
use encint::keys::DEFAULT_PARAMETERS;
use encint::processor::{Downlink, ProcessorKeys, Program, SealedProcessorKeys, Uplink};

use zeroize::Zeroizing;

use super::program::{inputs_from_args, load};
use crate::error::file;
use crate::keyfiles::{
    expect, expect_server_side, load_client, read_envelope, PACKING_KEY, SERVER_KEY, TREE_KEY,
};
use crate::progress::{spinner, staged};
use crate::timing::pool;
use crate::CliResult;
use encint::io::files::{self, Mode, Output};

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
    /// Output file (the seeded uplink; never the program or the key file).
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
    std::fs::create_dir_all(&a.out).map_err(|e| file(&a.out, format!("cannot create: {e}")))?;
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

/// `encint asm encrypt`: the program and its inputs are checked before the key is read;
/// the file names the inputs it holds (their signature), which `asm run` checks.
pub fn encrypt(a: EncryptArgs) -> CliResult {
    files::check_distinct(&[&a.out], &[&a.file, &a.key])?;
    files::check_new(&[&a.out], a.force)?;
    let program = Program::from_compiled(load(&a.file)?);
    let data = inputs_from_args(program.compiled(), &a.inputs, a.seed)?;
    let client = load_client(&a.key)?;
    let uplink = staged(
        &format!(
            "encrypting {} input nibbles",
            program.input_signature().nibbles()
        ),
        || program.encrypt_uplink(&client, &data),
    )?;
    files::write_one(
        &a.out,
        &uplink.to_bytes(client.params())?,
        Mode::Public,
        a.force,
    )?;
    for (name, _) in &program.compiled().inputs {
        println!("  in  {name} = {}", data[name]);
    }
    println!("wrote {}", a.out.display());
    Ok(())
}

/// What `asm run --in` says of a file that holds no program inputs.
const INPUTS_NEED: &str = "--in needs a program's encrypted inputs (`encint asm encrypt`)";

/// `encint asm run FILE --server-key DIR --in IN --out OUT [--force]`: the program, the
/// inputs (that they are this program's: names, kinds, order) and what each key file
/// holds are checked before any key is loaded.
pub fn run(
    file: &Path,
    dir: &Path,
    (input, out): (&Path, &Path),
    threads: Option<usize>,
    force: bool,
) -> CliResult {
    let [s, t, p] = key_paths(dir);
    files::check_distinct(&[out], &[file, input, &s, &t, &p])?;
    files::check_new(&[out], force)?;
    let program = Program::from_compiled(load(file)?);
    expect_server_side(input, &[Content::ProcessorInputs], INPUTS_NEED)?;
    let uplink = Uplink::from_bytes(&read_envelope(input, Kind::Ciphertext)?)
        .map_err(|e| crate::error::file(input, e))?;
    program
        .check_uplink(&uplink)
        .map_err(|e| crate::error::file(input, e))?;
    let needs =
        |name: &str, what: &str| format!("--server-key {} needs {what} in {name}", dir.display());
    expect_server_side(&s, SERVER_KEY, &needs("server.key", "a server key"))?;
    expect_server_side(&t, TREE_KEY, &needs("tree.key", "a tree key"))?;
    expect_server_side(&p, PACKING_KEY, &needs("packing.key", "a packing key"))?;
    let pool = pool(threads)?;
    let pb = spinner("loading server, tree and packing keys");
    let keys = ProcessorKeys::open(&SealedProcessorKeys {
        server: read_envelope(&s, Kind::ServerKey)?,
        tree: read_envelope(&t, Kind::TreeKey)?,
        packing: read_envelope(&p, Kind::PackingKey)?,
    })?;
    pb.set_message(format!(
        "evaluating {} blind rotations",
        program.cost().blind_rotations
    ));
    let downlink = pool.install(|| program.run_uplink(&keys, &uplink))?;
    pb.finish_and_clear();
    files::write_one(
        out,
        &downlink.to_bytes(keys.server.params())?,
        Mode::Public,
        force,
    )?;
    println!("wrote {}", out.display());
    Ok(())
}

/// `encint asm decrypt`: the result file is checked (its content, that it holds this
/// program's outputs) before the key is read.
pub fn decrypt(a: DecryptArgs) -> CliResult {
    let program = Program::from_compiled(load(&a.file)?);
    expect(
        &a.input,
        &[Content::ProcessorOutputs],
        "--in needs a program's encrypted result (`encint asm run --server-key`)",
    )?;
    let downlink = Downlink::from_bytes(&read_envelope(&a.input, Kind::Ciphertext)?)
        .map_err(|e| file(&a.input, e))?;
    program
        .check_downlink(&downlink)
        .map_err(|e| file(&a.input, e))?;
    let client = load_client(&a.key)?;
    let outputs = staged(
        &format!("decrypting {} output nibbles", downlink.nibbles().len()),
        || program.decrypt_downlink(&client, &downlink),
    )?;
    for (name, d) in outputs {
        println!("  out {name} = {d}");
    }
    Ok(())
}
