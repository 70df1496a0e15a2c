//! `encint sizes`: the bytes of every file a client uploads (the key files, one value of
//! each usual width in the expanded and the seeded form, an array of 64 `u16`, the public
//! key and one and 64 `u16` encrypted with it) beside
//! TFHE-rs 1.8.2's serialized sizes (bincode) of the corresponding objects, all measured
//! in this process on fresh keys.

use std::time::Instant;

use clap::Args;
use encint::io::public::{encrypt_array_public, encrypt_typed_public};
use encint::io::seeded::{encrypt_array_seeded, encrypt_typed_seeded, UploadForm, UploadedTyped};
use encint::keys::envelope::{self, Kind};
use encint::typed::{encrypt_typed, Form, IntType};
use encint::{ClientKey, PublicKeyFile, SeededInt, DEFAULT_PARAMETERS};
use serde::Serialize;
use tfhe::prelude::*;

use crate::error::{internal, mismatch};
use crate::progress::spinner;
use crate::{AnyResult, CliResult};

/// `encint sizes`.
#[derive(Args)]
pub struct SizesArgs {
    /// Print one JSON object instead of the tables.
    #[arg(long)]
    json: bool,
}

/// The widths measured.
const WIDTHS: [usize; 4] = [8, 16, 32, 64];

/// Elements of the measured array of `u16`.
const ARRAY_LEN: usize = 64;

/// One value's files.
#[derive(Serialize)]
struct ValueSizes {
    /// `u8`, `u16`, ...
    #[serde(rename = "type")]
    ty: String,
    /// Digits (LWE ciphertexts) of the value.
    digits: usize,
    /// Bytes of the expanded file (`encrypt --expanded`).
    expanded: usize,
    /// Bytes of the seeded file (`encrypt`).
    seeded: usize,
}

/// encint's side.
#[derive(Serialize)]
struct Ours {
    parameters: String,
    client_key: usize,
    server_key: usize,
    /// The compressed server key file (`keygen --compressed`).
    server_key_compressed: usize,
    values: Vec<ValueSizes>,
    /// An exact integer of 16 digits (`encrypt --digits 16`).
    int16: ValueSizes,
    /// 64 `u16` under one seed, and as 64 expanded files.
    array_64_u16: ValueSizes,
    /// Milliseconds to expand the seeded array (masks regenerated, this thread pool).
    array_64_u16_expand_ms: f64,
    /// The public key file (`keygen`'s public.key).
    public_key: usize,
    /// One `u16` encrypted with the public key (`encrypt --public-key`).
    public_u16: usize,
    /// 64 `u16` encrypted with the public key, in one compact list.
    public_array_64_u16: usize,
    /// Milliseconds to expand the public-key array (this thread pool).
    public_array_64_u16_expand_ms: f64,
}

/// TFHE-rs 1.8.2's serialized sizes (bincode 1.3, as `bincode::serialize` writes them).
#[derive(Serialize)]
#[allow(non_snake_case)]
struct Peer {
    parameters: String,
    FheUint16: u64,
    CompressedFheUint16: u64,
    CompactCiphertextList_1_u16: u64,
    CompactCiphertextList_64_u16: u64,
    ServerKey: u64,
    CompressedServerKey: u64,
    CompactPublicKey: u64,
}

#[derive(Serialize)]
struct Report {
    encint: Ours,
    tfhe_rs: Peer,
}

fn unsigned(bits: usize) -> IntType {
    IntType {
        bits,
        signed: false,
    }
}

/// An uploaded array of [`ARRAY_LEN`] values (the `what` form): its bytes and the
/// milliseconds its expansion takes; an error unless it expands to that many values.
fn array_upload<D: UploadForm>(array: &UploadedTyped<D>, what: &str) -> AnyResult<(usize, f64)> {
    let bytes = array.to_bytes(&DEFAULT_PARAMETERS)?.len();
    let t = Instant::now();
    let expanded = array.expand()?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    if expanded.len() != ARRAY_LEN {
        return Err(mismatch(format!(
            "the {what} array expanded to another length"
        )));
    }
    Ok((bytes, ms))
}

fn ours() -> AnyResult<Ours> {
    let p = DEFAULT_PARAMETERS;
    let (client, server) = ClientKey::generate(&p);
    let client_key = envelope::seal(Kind::ClientKey, p.id(), &client)?.len();
    let server_key = envelope::seal(Kind::ServerKey, p.id(), &server)?.len();
    drop(server);
    let server_key_compressed = encint::keys::CompressedServerKey::generate(&client)
        .to_bytes()?
        .len();
    let mut values = Vec::new();
    for bits in WIDTHS {
        let ty = unsigned(bits);
        let v = (1i128 << bits) - 1;
        values.push(ValueSizes {
            ty: ty.to_string(),
            digits: Form::Canonical.digits(ty),
            expanded: encrypt_typed(&client, v, ty)?.to_bytes(&p)?.len(),
            seeded: encrypt_typed_seeded(&client, v, ty)?.to_bytes(&p)?.len(),
        });
    }
    let int16 = ValueSizes {
        ty: "int".into(),
        digits: 16,
        expanded: encint::encrypt(&client, -12345, 16)?.to_bytes(&p)?.len(),
        seeded: SeededInt::encrypt(&client, -12345, 16)?.to_bytes(&p)?.len(),
    };
    let u16t = unsigned(16);
    let vs: Vec<i128> = (0..ARRAY_LEN as i128).map(|i| i * 1000).collect();
    let one = encrypt_typed(&client, 0, u16t)?.to_bytes(&p)?.len();
    let array = encrypt_array_seeded(&client, &vs, &[ARRAY_LEN], u16t, Form::Canonical)?;
    let (seeded, expand_ms) = array_upload(&array, "seeded")?;
    let pk = client.public_key();
    let public_key = pk.to_bytes()?.len();
    let public_u16 = encrypt_typed_public(&pk, 40000, u16t)?.to_bytes(&p)?.len();
    let public_array = encrypt_array_public(&pk, &vs, &[ARRAY_LEN], u16t, Form::Canonical)?;
    let (public_array_64_u16, public_expand_ms) = array_upload(&public_array, "public-key")?;
    Ok(Ours {
        parameters: p.id().to_owned(),
        client_key,
        server_key,
        server_key_compressed,
        values,
        int16,
        array_64_u16: ValueSizes {
            ty: format!("[u16; {ARRAY_LEN}]"),
            digits: ARRAY_LEN * 16,
            expanded: ARRAY_LEN * one,
            seeded,
        },
        array_64_u16_expand_ms: expand_ms,
        public_key,
        public_u16,
        public_array_64_u16,
        public_array_64_u16_expand_ms: public_expand_ms,
    })
}

fn size<T: Serialize>(x: &T) -> AnyResult<u64> {
    bincode::serialized_size(x).map_err(|e| internal(e.to_string()))
}

fn peer() -> AnyResult<Peer> {
    let params =
        tfhe::shortint::parameters::aliases::PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128;
    let ck = tfhe::ClientKey::generate(tfhe::ConfigBuilder::with_custom_parameters(params));
    let pk = tfhe::CompactPublicKey::new(&ck);
    let one = tfhe::CompactCiphertextList::builder(&pk)
        .push(40000u16)
        .build();
    let many = tfhe::CompactCiphertextList::builder(&pk)
        .extend((0..ARRAY_LEN as u16).map(|i| i * 1000))
        .build();
    let x = tfhe::FheUint16::encrypt(40000u16, &ck);
    let cx = tfhe::CompressedFheUint16::encrypt(40000u16, &ck);
    let compressed_sk = tfhe::CompressedServerKey::new(&ck);
    let compressed = size(&compressed_sk)?;
    drop(compressed_sk);
    let sk = tfhe::ServerKey::new(&ck);
    Ok(Peer {
        parameters: "PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128".into(),
        FheUint16: size(&x)?,
        CompressedFheUint16: size(&cx)?,
        CompactCiphertextList_1_u16: size(&one)?,
        CompactCiphertextList_64_u16: size(&many)?,
        ServerKey: size(&sk)?,
        CompressedServerKey: compressed,
        CompactPublicKey: size(&pk)?,
    })
}

/// Bytes as text: `B`, `KB` or `MB` (powers of 1000, as the sizes are quoted elsewhere).
fn human(n: u64) -> String {
    match n {
        0..=9_999 => format!("{n} B"),
        10_000..=999_999 => format!("{:.1} KB", n as f64 / 1e3),
        _ => format!("{:.1} MB", n as f64 / 1e6),
    }
}

/// `encint sizes`.
pub fn run(a: SizesArgs) -> CliResult {
    let pb = spinner("generating encint keys and measuring");
    let ours = ours()?;
    pb.set_message("generating TFHE-rs keys and measuring");
    let peer = peer()?;
    pb.finish_and_clear();
    if a.json {
        let report = Report {
            encint: ours,
            tfhe_rs: peer,
        };
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    let h = |n: usize| human(n as u64);
    println!("encint ({})", ours.parameters);
    println!(
        "  client.key                      {:>10}",
        h(ours.client_key)
    );
    println!(
        "  server.key                      {:>10}",
        h(ours.server_key)
    );
    println!(
        "  server.key (compressed)         {:>10}",
        h(ours.server_key_compressed)
    );
    println!(
        "  {:<10} {:>6} {:>12} {:>12}",
        "value", "digits", "expanded", "seeded"
    );
    for v in ours.values.iter().chain([&ours.int16, &ours.array_64_u16]) {
        println!(
            "  {:<10} {:>6} {:>12} {:>12}",
            v.ty,
            v.digits,
            h(v.expanded),
            h(v.seeded)
        );
    }
    println!(
        "  expanding the seeded [u16; {ARRAY_LEN}]: {:.1} ms",
        ours.array_64_u16_expand_ms
    );
    println!(
        "  public.key                      {:>10}",
        h(ours.public_key)
    );
    println!(
        "  u16 under the public key        {:>10}",
        h(ours.public_u16)
    );
    println!(
        "  [u16; {ARRAY_LEN}] under the public key {:>10} (expanded in {:.1} ms)",
        h(ours.public_array_64_u16),
        ours.public_array_64_u16_expand_ms
    );
    println!("TFHE-rs 1.8.2 ({}, bincode)", peer.parameters);
    for (name, n) in [
        ("FheUint16", peer.FheUint16),
        ("CompressedFheUint16", peer.CompressedFheUint16),
        (
            "CompactCiphertextList, 1 u16",
            peer.CompactCiphertextList_1_u16,
        ),
        (
            "CompactCiphertextList, 64 u16",
            peer.CompactCiphertextList_64_u16,
        ),
        ("ServerKey", peer.ServerKey),
        ("CompressedServerKey", peer.CompressedServerKey),
        ("CompactPublicKey", peer.CompactPublicKey),
    ] {
        println!("  {name:<30}  {:>10}", human(n));
    }
    Ok(())
}
