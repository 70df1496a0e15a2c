//! The digit commands on files: keygen, encrypt, decrypt; `eval` and `demo` in their own
//! modules.

mod demo;
mod eval;

pub use demo::{demo, DemoArgs};
pub use eval::{eval, EvalArgs};

use std::path::PathBuf;

use clap::Args;
use encint::files::{self, Mode, Output};
use encint::keys::envelope::{self, Kind};
use encint::ClientKey;
use zeroize::Zeroizing;

use crate::keyfiles::{load_client, load_ct};
use crate::progress::spinner;
use crate::CliResult;

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
    params: crate::backend::ParamSet,
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

/// `encint keygen`: both keys are written before either is moved into place.
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

/// `encint encrypt`.
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

/// `encint decrypt`.
pub fn decrypt_cmd(a: DecryptArgs) -> CliResult {
    let client = load_client(&a.key)?;
    let x = load_ct(&a.input)?;
    println!("{}", encint::decrypt_big(&client, &x)?);
    Ok(())
}
