//! The commands on files: keygen, encrypt, decrypt; `eval` and `demo` in their own
//! modules, the typed values (`--type u8`, ...) in `typed`.

mod demo;
mod eval;
mod eval_clear;
mod typed;

use crate::error::{file, internal, usage};
pub use demo::{demo, DemoArgs};
pub use eval::EvalArgs;

/// `encint eval`: the operation on plain operands with `--clear` (no key), otherwise on
/// ciphertext files.
pub fn eval(a: EvalArgs) -> CliResult {
    if a.clear {
        return eval_clear::eval_clear(&a);
    }
    eval::eval_files(a)
}

use std::path::PathBuf;

use clap::Args;
use encint::io::files::{self, Mode, Output};
use encint::keys::envelope::{self, Kind};
use encint::ClientKey;
use zeroize::Zeroizing;

use crate::keyfiles::{expect, load_client, load_public, read_envelope, RESULTS};
use crate::progress::spinner;
use crate::{AnyResult, CliResult};
use encint::PublicKeyFile;

/// `encint keygen`.
#[derive(Args)]
pub struct KeygenArgs {
    /// Directory for client.key (secret, keep it), server.key (give it to the server) and
    /// public.key (publish it: whoever holds it can encrypt with `encrypt --public-key`).
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
    /// Write server.key compressed: the masks of the bootstrapping and keyswitching keys
    /// drawn from seeds (30 MB instead of 90 MB with ks32); the server regenerates them
    /// when it loads the key.
    #[arg(long)]
    compressed: bool,
}

/// The help of `encint encrypt`.
const ENCRYPT_HELP: &str = "Types (--type):
  int        the exact integer (the default): signed binary digits that never wrap; give
             their count with --digits N (|value| < 2^N); results of eval grow as needed
  uN, iN     an unsigned or two's-complement integer of N bits, N from 1 to 128 (u8, u16,
             u32, u64, u128, i8, ..., i128, or any width such as u12); eval wraps results
             modulo 2^N, as Rust's wrapping_* methods and TFHE-rs' FheUint/FheInt do
  bool       one bit: 0/1 or false/true (comparisons give it; select takes it)

A value outside its type is an error and no file is written.

--public-key FILE (instead of --key) encrypts with the public key that keygen writes
(public.key, or `encint public-key`): no secret needed, so anyone holding it can send the
server values that only the client key decrypts. The digits go as one compact list (a
2048-word mask per 2048 digits and 4 bytes per digit, rounded to 32-bit words: 8.4 KB
for a u16, 12.5 KB for 64 of them); the server expands them (no bootstrap).

The file is seeded (the default): one seed for every mask and 8 bytes per digit, 294
bytes for a u16 instead of 262 KB; the server regenerates the masks when it reads the
file (no bootstrap). --expanded writes whole ciphertexts (16 KB per digit), the form of
earlier releases and of eval's results; eval and decrypt read both.

Examples:
  encint encrypt --key k/client.key --type u8 --value 200 --out a.ct
  encint encrypt --key k/client.key --type i32 --value -70000 --out b.ct
  encint encrypt --key k/client.key --type bool --value true --out c.ct
  encint encrypt --key k/client.key --value -1234 --digits 16 --out x.ct
  encint encrypt --public-key k/public.key --type u16 --value 40000 --out p.ct";

/// `encint encrypt`.
#[derive(Args)]
#[command(after_help = ENCRYPT_HELP)]
pub struct EncryptArgs {
    /// The client key file (or give --public-key).
    #[arg(
        long,
        required_unless_present = "public_key",
        conflicts_with = "public_key"
    )]
    key: Option<PathBuf>,
    /// The public key file (keygen's public.key): encrypt without the client key.
    #[arg(long = "public-key", value_name = "FILE", conflicts_with = "expanded")]
    public_key: Option<PathBuf>,
    /// The value to encrypt: an integer of the type (`int`: any size that fits the
    /// digits), or true/false for `bool`.
    #[arg(long, allow_hyphen_values = true)]
    value: String,
    /// The type: int (the exact integer, the default), uN or iN (N bits, 1 to 128: u8,
    /// i32, ...), or bool. See below.
    #[arg(long = "type", value_parser = typed::parse_type, value_name = "TYPE")]
    ty: Option<typed::TypeArg>,
    /// Number of signed binary digits of an `int` (the value must fit: |value| < 2^N);
    /// `--bits` is accepted for it as before.
    #[arg(long, alias = "bits", value_name = "N")]
    digits: Option<usize>,
    /// Output ciphertext file (never one of the input files, even with --force).
    #[arg(long)]
    out: PathBuf,
    /// Replace the output file if it exists.
    #[arg(long)]
    force: bool,
    /// Write whole ciphertexts (16 KB per digit) instead of the seeded form (one seed and
    /// 8 bytes per digit).
    #[arg(long)]
    expanded: bool,
}

/// `encint decrypt`.
#[derive(Args)]
pub struct DecryptArgs {
    /// The client key file.
    #[arg(long)]
    key: PathBuf,
    /// The ciphertext file (an exact integer or a typed value, packed or not: the file says
    /// which).
    #[arg(long = "in")]
    input: PathBuf,
    /// Print a JSON object: {"value": ..., "type": ...} (the value a JSON number, true or
    /// false for bool).
    #[arg(long)]
    json: bool,
}

/// `encint keygen`: the keys are written before any is moved into place.
pub fn keygen(a: KeygenArgs) -> CliResult {
    let (client_path, server_path) = (a.out.join("client.key"), a.out.join("server.key"));
    let public_path = a.out.join("public.key");
    // Refuse before generating anything; written files are checked again atomically.
    files::check_new(&[&client_path, &server_path, &public_path], a.force)?;
    std::fs::create_dir_all(&a.out).map_err(|e| file(&a.out, format!("cannot create: {e}")))?;
    let pb = spinner("generating keys");
    let params = a.params.params();
    let (client, server) = ClientKey::generate(params);
    let id = params.id();
    let client_bytes = Zeroizing::new(envelope::seal(Kind::ClientKey, id, &client)?);
    let public_bytes = client.public_key().to_bytes()?;
    let server_bytes = if a.compressed {
        drop(server);
        pb.set_message("generating the compressed server key");
        encint::keys::CompressedServerKey::generate(&client).to_bytes()?
    } else {
        envelope::seal(Kind::ServerKey, id, &server)?
    };
    pb.set_message("writing keys");
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
            Output {
                path: &public_path,
                bytes: &public_bytes,
                mode: Mode::Public,
            },
        ],
        a.force,
    )?;
    pb.finish_and_clear();
    println!(
        "wrote {}, {} and {} (parameters {id})",
        client_path.display(),
        server_path.display(),
        public_path.display()
    );
    Ok(())
}

/// `encint encrypt`: the value is checked against its type before the key is read, and
/// nothing is written on an error.
pub fn encrypt_cmd(a: EncryptArgs) -> CliResult {
    let ty = match (a.ty, a.digits) {
        (Some(typed::TypeArg::Typed(ty)), None) => ty,
        (Some(typed::TypeArg::Typed(ty)), Some(_)) => {
            return Err(usage(format!(
                "--digits (or --bits) sets the digit count of `--type int`; the width of {} \
                 is in its name",
                typed::type_name(ty)
            )))
        }
        (Some(typed::TypeArg::Int) | None, Some(digits)) => return encrypt_int(&a, digits),
        (Some(typed::TypeArg::Int), None) => {
            return Err(usage(
                "`--type int` (the exact integer) needs --digits N, its count of signed \
                 binary digits (|value| < 2^N)",
            ))
        }
        (None, None) => {
            return Err(usage(
                "give --type (u8, i32, bool, ...: see --help), or --digits N for an \
                 exact integer",
            ))
        }
    };
    let value = typed::parse_value(&a.value, ty)?;
    check_output(&a)?;
    let key = encrypting_key(&a)?;
    let pb = spinner(&format!("encrypting a {}", typed::type_name(ty)));
    let bytes = match key {
        Encryptor::Public(pk) => {
            encint::io::public::encrypt_typed_public(&pk, value, ty)?.to_bytes(&pk.params()?)?
        }
        Encryptor::Client(client) if a.expanded => {
            encint::typed::encrypt_typed(&client, value, ty)?.to_bytes(client.params())?
        }
        Encryptor::Client(client) => encint::io::seeded::encrypt_typed_seeded(&client, value, ty)?
            .to_bytes(client.params())?,
    };
    pb.finish_and_clear();
    files::write_one(&a.out, &bytes, Mode::Public, a.force)?;
    println!(
        "encrypted {} as {} into {} ({} bytes, {})",
        typed::format_value(value, ty),
        typed::type_name(ty),
        a.out.display(),
        bytes.len(),
        form_name(&a)
    );
    Ok(())
}

/// Refuses `--out` where it is the key file, or exists without `--force`, before the
/// key is read.
fn check_output(a: &EncryptArgs) -> CliResult {
    let key = a.key.as_deref().or(a.public_key.as_deref());
    files::check_distinct(&[&a.out], key.as_slice())?;
    Ok(files::check_new(&[&a.out], a.force)?)
}

/// The key `encint encrypt` encrypts with.
enum Encryptor {
    Client(Box<ClientKey>),
    Public(Box<encint::PublicKey>),
}

/// Loads `--key` or `--public-key` (clap lets exactly one through).
fn encrypting_key(a: &EncryptArgs) -> AnyResult<Encryptor> {
    match (&a.key, &a.public_key) {
        (_, Some(p)) => Ok(Encryptor::Public(Box::new(load_public(p)?))),
        (Some(k), None) => Ok(Encryptor::Client(Box::new(load_client(k)?))),
        (None, None) => Err(usage("give --key or --public-key")),
    }
}

/// `encint encrypt` of an exact integer of `digits` digits.
fn encrypt_int(a: &EncryptArgs, digits: usize) -> CliResult {
    let value: encint::BigInt = a
        .value
        .trim()
        .parse()
        .map_err(|_| usage(format!("`{}` is not an integer", a.value)))?;
    check_output(a)?;
    let key = encrypting_key(a)?;
    let pb = spinner(&format!("encrypting an exact integer of {digits} digits"));
    let bytes = match key {
        Encryptor::Public(pk) => {
            encint::PublicInt::encrypt_big(&*pk, &value, digits)?.to_bytes(&pk.params()?)?
        }
        Encryptor::Client(client) if a.expanded => {
            encint::encrypt_big(&client, &value, digits)?.to_bytes(client.params())?
        }
        Encryptor::Client(client) => {
            encint::SeededInt::encrypt_big(&*client, &value, digits)?.to_bytes(client.params())?
        }
    };
    pb.finish_and_clear();
    files::write_one(&a.out, &bytes, Mode::Public, a.force)?;
    println!(
        "encrypted {} as {} digits into {} ({} bytes, {})",
        value,
        digits,
        a.out.display(),
        bytes.len(),
        form_name(a)
    );
    Ok(())
}

/// The name of the form `encint encrypt` wrote.
fn form_name(a: &EncryptArgs) -> &'static str {
    match (a.public_key.is_some(), a.expanded) {
        (true, _) => "public-key",
        (false, true) => "expanded",
        (false, false) => "seeded",
    }
}

/// `encint public-key` and `encint packing-key`: a public key derived from a client key.
#[derive(Args)]
pub struct DerivedKeyArgs {
    /// The client key file.
    #[arg(long)]
    key: PathBuf,
    /// Output key file (never the client key file, even with --force).
    #[arg(long)]
    out: PathBuf,
    /// Replace the output file if it exists.
    #[arg(long)]
    force: bool,
}

/// `encint packing-key`: the packing key of a client key (64 MiB), for `eval --packed`.
pub fn packing_key_cmd(a: DerivedKeyArgs) -> CliResult {
    derive_key(&a, "the packing key", |client| {
        Ok(encint::keys::seal_packing_key(
            &encint::keys::PackingKey::generate(client),
        )?)
    })
}

/// `encint public-key`: the public key of an existing client key (keygen writes one too).
pub fn public_key_cmd(a: DerivedKeyArgs) -> CliResult {
    derive_key(&a, "the public key", |client| {
        Ok(client.public_key().to_bytes()?)
    })
}

/// Writes the key `make` derives from the client key of `a` (nothing on an error).
fn derive_key(
    a: &DerivedKeyArgs,
    what: &str,
    make: impl FnOnce(&ClientKey) -> AnyResult<Vec<u8>>,
) -> CliResult {
    files::check_distinct(&[&a.out], &[&a.key])?;
    files::check_new(&[&a.out], a.force)?;
    let client = load_client(&a.key)?;
    let pb = spinner(&format!("generating {what}"));
    let bytes = make(&client)?;
    files::write_one(&a.out, &bytes, Mode::Public, a.force)?;
    pb.finish_and_clear();
    println!(
        "wrote {} ({} bytes, key set {})",
        a.out.display(),
        bytes.len(),
        client.key_set()
    );
    Ok(())
}

/// `encint decrypt`: the file says whether it holds an exact integer or a typed value,
/// and is checked before the key is read.
pub fn decrypt_cmd(a: DecryptArgs) -> CliResult {
    expect(
        &a.input,
        RESULTS,
        "--in needs an encrypted value or a packed result (`encint encrypt`, `encint eval`)",
    )?;
    let bytes = read_envelope(&a.input, Kind::Ciphertext)?;
    let client = load_client(&a.key)?;
    let at = |e: encint::Error| file(&a.input, e);
    let pb = spinner("decrypting");
    let (value, ty) = encint::io::open(&bytes)
        .map_err(at)?
        .decrypt(&client)
        .map_err(at)?;
    let (value, ty) = match ty {
        Some(ty) => (
            typed::format_value(value_i128(&value)?, ty),
            typed::type_name(ty),
        ),
        None => (value.to_string(), "int".into()),
    };
    pb.finish_and_clear();
    if a.json {
        println!("{{\"value\": {value}, \"type\": \"{ty}\"}}");
    } else {
        println!("{value}");
    }
    Ok(())
}

/// A typed value's integer (it fits i128: a type has at most 128 bits, read as i128 the
/// way the library's typed decryption returns it).
fn value_i128(v: &encint::BigInt) -> AnyResult<i128> {
    i128::try_from(v).map_err(|_| internal(format!("a typed value {v} outside i128")))
}
