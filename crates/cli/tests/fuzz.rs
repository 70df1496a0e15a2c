//! A bounded, proptest-based fuzzer over every decoder of untrusted bytes and text:
//! ciphertext envelopes (`Digit`, `Vec<Digit>`, `EncInt`, `EncTyped`, the seeded
//! `SeededInt` and `SeededTyped`, the public-key `PublicInt` and `PublicTyped`), client,
//! server (ordinary and compressed), packing, tree and public keys, the byte processor's I/O
//! packets (`SeededNibbles`, `SeededDigits`, `PackedNibbles`, raw and in envelopes), the
//! public-key digit lists (`CompactDigits`, raw), packed results (`PackedResult`), `envelope::open_known` (the CLI's files and every
//! Python `from_bytes`/`load`) on envelopes of both parameter sets with swapped headers,
//! whole server keys of both sets mutated anywhere in their tens of MB, the assembler with
//! the program compiler, and `--input` arguments.
//!
//! Each target mutates valid seeds (bit flips, byte and word overwrites with boundary
//! values, insertions, deletions, truncations) or draws fresh random input, and checks
//! that decoding returns (`Ok` or a typed error) without a panic; a global allocator
//! refuses no allocation but records the largest request and the peak of live memory,
//! checked below 1 GiB. Each target reports its slowest execution (no test asserts a
//! time: speed belongs in benchmarks).
//!
//! CI runs `ENCINT_FUZZ_CASES` (default 1000) cases per target, and
//! `ENCINT_FUZZ_KEY_CASES` (default 6) for each whole-key target (ordinary and compressed
//! server keys), whose one execution decodes a 90 or 120 MB key (0.5 to 1.5 s) or
//! decompresses a 30 MB one. A long run (22 min on the shared 2-core machine):
//! `ENCINT_FUZZ_CASES=1000000 ENCINT_FUZZ_KEY_CASES=400 cargo test --release -p encint-cli --test fuzz -- --nocapture --test-threads 1`.
//! Failures are persisted by proptest in `fuzz.proptest-regressions` beside this file
//! and replayed first on every later run (the regression corpus).

// Unsafe code: the counting allocator wraps the system allocator.
#![allow(unsafe_code)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use encint::io::packed::{pack_int, pack_typed, PackedResult};
use encint::io::public::{encrypt_array_public, PublicInt, PublicTyped};
use encint::io::seeded::{encrypt_array_seeded, SeededInt, SeededTyped};
use encint::keys::envelope::{self, Kind};
use encint::keys::{
    key_kind, open_packing_key, open_server_key, open_tree_key, seal_packing_key, seal_tree_key,
    CompactDigits, CompressedServerKey, Digit, DigitParameters, Keyswitch, PackedNibbles,
    PackingKey, PublicKey, SeededDigits, SeededNibbles, ServerKey, TreeKey, Upload,
};
use encint::processor::{Datum, Downlink, ProcessorKeys, Program, SealedProcessorKeys, Uplink};
use encint::typed::{EncTyped, Form, IntType};
use encint::{ClientKey, EncInt, DEFAULT_PARAMETERS, KS64_PARAMETERS};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// Memory accounting: the counting allocator.

#[path = "fuzz/alloc.rs"]
mod alloc;
use alloc::{LARGEST, LIVE, PEAK};

const GIB: usize = 1 << 30;

fn cases() -> u32 {
    std::env::var("ENCINT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        max_shrink_iters: 2000,
        ..ProptestConfig::default()
    }
}

/// Runs one execution: times it (for the report), counts it, checks the allocation bound
/// and whatever the execution itself checks.
fn exec(
    counter: &AtomicU64,
    slowest: &AtomicU64,
    f: impl FnOnce() -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    let t = Instant::now();
    f()?;
    let e = t.elapsed();
    counter.fetch_add(1, Ordering::Relaxed);
    slowest.fetch_max(e.as_micros() as u64, Ordering::Relaxed);
    prop_assert!(
        LARGEST.load(Ordering::Relaxed) < GIB,
        "an allocation of {} bytes",
        LARGEST.load(Ordering::Relaxed)
    );
    Ok(())
}

fn report(name: &str, counter: &AtomicU64, slowest: &AtomicU64, start: Instant) {
    eprintln!(
        "fuzz {name}: {} executions in {:.1} s, slowest {} us, largest allocation {} MiB, peak live {} MiB",
        counter.load(Ordering::Relaxed),
        start.elapsed().as_secs_f64(),
        slowest.load(Ordering::Relaxed),
        LARGEST.load(Ordering::Relaxed) >> 20,
        PEAK.load(Ordering::Relaxed) >> 20
    );
    assert!(PEAK.load(Ordering::Relaxed) < GIB);
}

// ---------------------------------------------------------------------------------------
// Seeds: valid encodings of every decoded type.

struct Seeds {
    ciphertext: Vec<Vec<u8>>,
    client_key: Vec<Vec<u8>>,
    eval_keys: Vec<Vec<u8>>,
    packets: Vec<Vec<u8>>,
    /// Public-key envelopes.
    public_keys: Vec<Vec<u8>>,
    /// Envelopes of every kind under both known parameter sets (for `open_known`).
    known: Vec<Vec<u8>>,
    /// Whole server-key envelopes: the default set's and KS64's.
    full_keys: Vec<FullKey>,
}

/// Prefix of a large key envelope kept as a seed (the rest is 60+ MB of coefficients).
const KEY_PREFIX: usize = 64 << 10;

fn seeds() -> &'static Seeds {
    static SEEDS: OnceLock<Seeds> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let start = Instant::now();
        let p = DEFAULT_PARAMETERS;
        let id = p.id();
        let (client, server) = ClientKey::generate_seeded(&p, 7);
        let public = client.public_key();
        let public_keys = vec![envelope::seal(Kind::PublicKey, id, &public).unwrap()];
        let compact = public.encrypt_digits(&[-1, 0, 1, 15]).unwrap();
        let x = encint::encrypt(&client, -5, 3).unwrap();
        let d = client.encrypt_digit(3);
        let mut ciphertext = vec![
            x.to_bytes(&p).unwrap(),
            envelope::seal(Kind::Ciphertext, id, &d).unwrap(),
            envelope::seal(Kind::Ciphertext, id, &vec![d.clone(), d.clone()]).unwrap(),
            envelope::seal(Kind::Ciphertext, id, &Vec::<Digit>::new()).unwrap(),
            // The seeded uploads: an exact integer, a typed value, an array of them.
            SeededInt::encrypt(&client, -5, 3)
                .unwrap()
                .to_bytes(&p)
                .unwrap(),
            encint::io::seeded::encrypt_typed_seeded(&client, 200, IntType::new(8, false).unwrap())
                .unwrap()
                .to_bytes(&p)
                .unwrap(),
            encrypt_array_seeded(
                &client,
                &[1, -2, 3, -4],
                &[2, 2],
                IntType::new(3, true).unwrap(),
                Form::Radix4,
            )
            .unwrap()
            .to_bytes(&p)
            .unwrap(),
            // The public-key uploads: an exact integer, an array of typed values.
            PublicInt::encrypt(&public, -5, 3)
                .unwrap()
                .to_bytes(&p)
                .unwrap(),
            encrypt_array_public(
                &public,
                &[7, -8],
                &[2],
                IntType::new(4, true).unwrap(),
                Form::Lazy,
            )
            .unwrap()
            .to_bytes(&p)
            .unwrap(),
        ];
        let client_key = vec![envelope::seal(Kind::ClientKey, id, &client).unwrap()];
        let mut server_bytes = envelope::seal(Kind::ServerKey, id, &server).unwrap();
        server_bytes.truncate(KEY_PREFIX);
        server_bytes.shrink_to_fit();
        let packing = PackingKey::generate(&client);
        // Packed results: an exact integer, a radix-4 typed value.
        ciphertext.push(pack_int(&packing, &x).unwrap().to_bytes(&p).unwrap());
        let r4 = encint::typed::encrypt_typed_as(
            &client,
            -3,
            IntType::new(5, true).unwrap(),
            Form::Radix4,
        );
        ciphertext.push(
            pack_typed(&packing, &r4.unwrap())
                .unwrap()
                .to_bytes(&p)
                .unwrap(),
        );
        // Packing and tree keys as earlier releases wrote them (the server-key kind) and as
        // this one does (their own kinds).
        let mut packing_bytes = envelope::seal(Kind::ServerKey, id, &packing).unwrap();
        packing_bytes.truncate(KEY_PREFIX);
        packing_bytes.shrink_to_fit();
        let mut packing_new = seal_packing_key(&packing).unwrap();
        packing_new.truncate(KEY_PREFIX);
        packing_new.shrink_to_fit();
        let header_only = envelope::seal(Kind::ServerKey, id, &()).unwrap();
        let mut compressed_bytes = CompressedServerKey::generate(&client).to_bytes().unwrap();
        compressed_bytes.truncate(KEY_PREFIX);
        compressed_bytes.shrink_to_fit();
        let seeded_digits = client.encrypt_digits_seeded(&[-1, 0, 1, 7]).unwrap();
        let seeded = client.encrypt_nibbles_seeded(&[1, 2, 15]).unwrap();
        let packed = packing.pack(&[d.clone(), client.encrypt_digit(9)]).unwrap();
        let tree = TreeKey::generate_seeded(&client, 7);
        let mut tree_bytes = envelope::seal(Kind::ServerKey, id, &tree).unwrap();
        let mut tree_new = seal_tree_key(&tree).unwrap();
        drop(tree);
        tree_bytes.truncate(KEY_PREFIX);
        tree_bytes.shrink_to_fit();
        tree_new.truncate(KEY_PREFIX);
        tree_new.shrink_to_fit();
        // A byte-processor uplink with its inputs' signature.
        let program = Program::assemble("input x, a[2]\ny = ADD x, a[1]\noutput y\n", &p).unwrap();
        let data = HashMap::from([
            ("x".to_string(), Datum::Byte(17)),
            ("a[0]".to_string(), Datum::Byte(1)),
            ("a[1]".to_string(), Datum::Byte(200)),
        ]);
        let uplink = program
            .encrypt_uplink(&client, &data)
            .unwrap()
            .to_bytes(&p)
            .unwrap();
        // The KS64 set: its keys and ciphertexts, and whole server keys of both sets.
        let q = KS64_PARAMETERS;
        let (client64, server64) = ClientKey::generate_seeded(&q, 8);
        let full_keys = vec![
            FullKey::new(envelope::seal(Kind::ServerKey, id, &server).unwrap(), &p),
            FullKey::new(
                envelope::seal(Kind::ServerKey, q.id(), &server64).unwrap(),
                &q,
            ),
        ];
        drop((server, server64));
        let mut known: Vec<Vec<u8>> = ciphertext.clone();
        known.extend(client_key.iter().cloned());
        known.extend(public_keys.iter().cloned());
        known.extend([
            server_bytes.clone(),
            packing_bytes.clone(),
            tree_bytes.clone(),
            packing_new.clone(),
            tree_new.clone(),
            uplink,
            header_only.clone(),
            compressed_bytes.clone(),
            envelope::seal(Kind::Ciphertext, id, &seeded).unwrap(),
            envelope::seal(Kind::Ciphertext, id, &packed).unwrap(),
            encint::encrypt(&client64, -6, 4)
                .unwrap()
                .to_bytes(&q)
                .unwrap(),
            envelope::seal(Kind::ClientKey, q.id(), &client64).unwrap(),
            full_keys[1].bytes[..KEY_PREFIX].to_vec(),
            envelope::seal(Kind::ServerKey, q.id(), &()).unwrap(),
        ]);
        eprintln!("fuzz seeds: {:.1} s", start.elapsed().as_secs_f64());
        Seeds {
            ciphertext,
            client_key,
            eval_keys: vec![
                server_bytes,
                packing_bytes,
                tree_bytes,
                packing_new,
                tree_new,
                header_only,
                compressed_bytes,
            ],
            packets: vec![
                seeded.to_bytes(),
                packed.to_bytes(),
                seeded_digits.to_bytes(),
                compact.to_bytes(),
            ],
            public_keys,
            known,
            full_keys,
        }
    })
}

// ---------------------------------------------------------------------------------------
// Mutations.

#[path = "fuzz/mutations.rs"]
mod mutations;
use mutations::{apply, mutation, word, Mutation};

/// Fresh random bytes, or a mutated seed (from `which`).
fn input(which: fn(&Seeds) -> &Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    let n = which(seeds()).len();
    prop_oneof![
        1 => proptest::collection::vec(any::<u8>(), 0..512),
        4 => (0..n, proptest::collection::vec(mutation(), 1..6))
            .prop_map(move |(i, m)| apply(which(seeds())[i].clone(), &m)),
    ]
}

// ---------------------------------------------------------------------------------------
// Assembler inputs: mutated example programs and random token soups.

#[path = "fuzz/asm_inputs.rs"]
mod asm_inputs;
use asm_inputs::asm_input;

// ---------------------------------------------------------------------------------------
// Targets.

macro_rules! target {
    ($name:ident, $strategy:expr, |$x:ident| $body:expr) => {
        checked_target!($name, config(), $strategy, |$x| {
            let _ = $body;
            Ok(())
        });
    };
}

/// A target whose body returns `Result<(), TestCaseError>` (properties of the decoded
/// values), with its own configuration.
macro_rules! checked_target {
    ($name:ident, $config:expr, $strategy:expr, |$x:pat_param| $body:expr) => {
        #[test]
        fn $name() {
            static COUNT: AtomicU64 = AtomicU64::new(0);
            static SLOWEST: AtomicU64 = AtomicU64::new(0);
            let strategy = $strategy;
            // Figures below are the decoders' own: forget the seeds' key generation.
            LARGEST.store(0, Ordering::Relaxed);
            PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
            let start = Instant::now();
            let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
                source_file: Some(file!()),
                failure_persistence: Some(Box::new(
                    proptest::test_runner::FileFailurePersistence::WithSource(
                        "proptest-regressions",
                    ),
                )),
                ..$config
            });
            let result = runner.run(&strategy, |$x| exec(&COUNT, &SLOWEST, || $body));
            report(stringify!($name), &COUNT, &SLOWEST, start);
            if let Err(e) = result {
                panic!("{e}");
            }
        }
    };
}

target!(fuzz_ciphertexts, input(|s| &s.ciphertext), |bytes| {
    let p = DEFAULT_PARAMETERS;
    (
        EncInt::from_bytes(&bytes, &p).is_ok(),
        envelope::open::<Digit>(&bytes, Kind::Ciphertext, p.id()).is_ok(),
        envelope::open::<Vec<Digit>>(&bytes, Kind::Ciphertext, p.id()).is_ok(),
        EncTyped::from_bytes(&bytes).is_ok(),
        SeededInt::from_bytes(&bytes).map(|s| s.expand().is_ok()),
        SeededTyped::from_bytes(&bytes).map(|s| s.expand().is_ok()),
        PublicInt::from_bytes(&bytes).map(|s| s.expand().is_ok()),
        PublicTyped::from_bytes(&bytes).map(|s| s.expand().is_ok()),
        PackedResult::from_bytes(&bytes).map(|r| r.len()),
    )
});

target!(fuzz_public_key, input(|s| &s.public_keys), |bytes| {
    (
        envelope::open::<PublicKey>(&bytes, Kind::PublicKey, DEFAULT_PARAMETERS.id())
            .map(|k| k.encrypt_digits(&[1, 2]).is_ok()),
        envelope::open_known::<PublicKey>(&bytes, Kind::PublicKey).is_ok(),
    )
});

target!(fuzz_client_key, input(|s| &s.client_key), |bytes| {
    envelope::open::<ClientKey>(&bytes, Kind::ClientKey, DEFAULT_PARAMETERS.id()).is_ok()
});

target!(fuzz_evaluation_keys, input(|s| &s.eval_keys), |bytes| {
    let id = DEFAULT_PARAMETERS.id();
    (
        envelope::open::<ServerKey>(&bytes, Kind::ServerKey, id).is_ok(),
        envelope::open::<PackingKey>(&bytes, Kind::ServerKey, id).is_ok(),
        envelope::open::<TreeKey>(&bytes, Kind::ServerKey, id).is_ok(),
        open_server_key(&bytes).is_ok(),
        open_tree_key(&bytes).is_ok(),
        open_packing_key(&bytes).is_ok(),
        key_kind(&bytes).is_ok(),
        encint::io::contents::identify(&bytes).is_ok(),
        // The byte processor's three keys (Python `ProcessorKeys.from_bytes`/`load`,
        // `encint asm eval`): the server key's header picks the set.
        ProcessorKeys::open(&SealedProcessorKeys {
            server: bytes.clone(),
            tree: bytes.clone(),
            packing: bytes,
        })
        .is_ok(),
    )
});

target!(fuzz_io_packets, input(|s| &s.packets), |bytes| {
    (
        SeededNibbles::from_bytes(&bytes).map(|s| s.expand().is_ok()),
        SeededDigits::from_bytes(&bytes).map(|s| s.expand().is_ok()),
        PackedNibbles::from_bytes(&bytes).is_ok(),
        CompactDigits::from_bytes(&bytes).map(|s| s.expand().is_ok()),
    )
});

// ---------------------------------------------------------------------------------------
// `envelope::open_known`: the decoder of the CLI's key and ciphertext files and of every
// Python `from_bytes`/`load`/unpickling. The header names the parameter set the payload is
// then decoded and validated under, so besides the byte mutations the header's id is swapped
// for the other known set's (or an unknown one) on envelopes of both sets.

fn known_input() -> impl Strategy<Value = Vec<u8>> {
    let n = seeds().known.len();
    let ids = [
        DEFAULT_PARAMETERS.id(),
        KS64_PARAMETERS.id(),
        "TFHE_UNKNOWN",
    ];
    prop_oneof![
        1 => proptest::collection::vec(any::<u8>(), 0..512),
        3 => (0..n, proptest::collection::vec(mutation(), 1..6))
            .prop_map(|(i, m)| apply(seeds().known[i].clone(), &m)),
        2 => (0..n, 0..ids.len(), proptest::collection::vec(mutation(), 0..3))
            .prop_map(move |(i, k, m)| apply(reheader(&seeds().known[i], ids[k]), &m)),
    ]
}

/// `bytes` with the envelope header's parameter id replaced by `id` (payload unchanged).
fn reheader(bytes: &[u8], id: &str) -> Vec<u8> {
    let (_, payload) = envelope::read_header(bytes).expect("a seed envelope");
    let mut out = bytes[..11].to_vec();
    out.extend_from_slice(&(id.len() as u16).to_le_bytes());
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(payload);
    out
}

checked_target!(fuzz_open_known, config(), known_input(), |bytes| {
    let header = envelope::read_header(&bytes).ok().map(|h| h.0);
    let params = header
        .as_ref()
        .and_then(|h| DigitParameters::from_id(&h.params_id));
    // Whatever decodes was decoded under the set the header names, with every digit of
    // that set's LWE dimension.
    let dim = |p: &DigitParameters| p.big_lwe_dimension().0;
    if let Ok(x) = envelope::open_known::<EncInt>(&bytes, Kind::Ciphertext) {
        let p = params.expect("a decoded envelope names a known set");
        prop_assert!(x.digits().iter().all(|d| d.lwe_dimension() == dim(&p)));
        // Decoding is idempotent through a re-encoding.
        let again = EncInt::from_bytes(&x.to_bytes(&p).unwrap(), &p).unwrap();
        prop_assert_eq!(again, x);
    }
    if let Ok(v) = envelope::open_known::<Vec<Digit>>(&bytes, Kind::Ciphertext) {
        let p = params.expect("a decoded envelope names a known set");
        prop_assert!(v.iter().all(|d| d.lwe_dimension() == dim(&p)));
    }
    if let Ok(d) = envelope::open_known::<Digit>(&bytes, Kind::Ciphertext) {
        prop_assert_eq!(d.lwe_dimension(), dim(&params.unwrap()));
    }
    if let Ok(k) = envelope::open_known::<ClientKey>(&bytes, Kind::ClientKey) {
        prop_assert_eq!(k.params().name, params.unwrap().name);
    }
    if let Ok(k) = envelope::open_known::<ServerKey>(&bytes, Kind::ServerKey) {
        prop_assert_eq!(k.params().name, params.unwrap().name);
    }
    if let Ok(k) = open_server_key(&bytes) {
        prop_assert_eq!(k.params().name, params.unwrap().name);
    }
    // Both forms of an integer's file, as the CLI and the server read them.
    if let Ok(x) = EncInt::from_bytes_known(&bytes) {
        let p = params.expect("a decoded envelope names a known set");
        prop_assert!(x.digits().iter().all(|d| d.lwe_dimension() == dim(&p)));
    }
    if let Ok(x) = EncTyped::from_bytes(&bytes) {
        let p = params.expect("a decoded envelope names a known set");
        prop_assert!(x
            .as_int()
            .digits()
            .iter()
            .all(|d| d.lwe_dimension() == dim(&p)));
    }
    let _ = envelope::open_known::<PackingKey>(&bytes, Kind::ServerKey);
    let _ = envelope::open_known::<TreeKey>(&bytes, Kind::ServerKey);
    let _ = (
        open_packing_key(&bytes),
        open_tree_key(&bytes),
        key_kind(&bytes),
    );
    let _ = encint::io::contents::identify(&bytes);
    let _ = PackedResult::from_bytes(&bytes);
    if let Ok(k) = envelope::open_known::<PublicKey>(&bytes, Kind::PublicKey) {
        prop_assert_eq!(k.params().unwrap().name, params.unwrap().name);
    }
    // The byte processor's links as `encint asm run`/`asm decrypt` read them, and the
    // bare nibbles of earlier releases.
    if let Ok(up) = Uplink::from_bytes(&bytes) {
        prop_assert_eq!(up.signature().nibbles(), up.nibbles().len());
        let _ = up.nibbles().expand();
    }
    if let Ok(down) = Downlink::from_bytes(&bytes) {
        prop_assert_eq!(down.signature().nibbles(), down.nibbles().len());
    }
    if let Ok(s) = envelope::open_known::<SeededNibbles>(&bytes, Kind::Ciphertext) {
        let _ = s.expand();
    }
    let _ = envelope::open_known::<PackedNibbles>(&bytes, Kind::Ciphertext);
    Ok(())
});

// ---------------------------------------------------------------------------------------
// Whole server keys (tens of MB), mutated anywhere.
//
// A server-key payload is: the parameter id, the key set, the bootstrapping key (a length,
// its coefficients, then its glwe size, polynomial size, decomposition and modulus) and the
// keyswitching key (a length, its coefficients on the set's torus, then its decomposition,
// output size and modulus). Every value of a coefficient is valid and the decoder reads the
// coefficients without looking at them; everything it checks lies in the few hundred bytes
// outside the two coefficient arrays, two of those fields sit tens of MB into the key. So
// the offsets of the mutations are drawn from those structural bytes and the boundaries of
// the arrays (where insertions and deletions shift the structure), and uniformly over the
// whole length; a mutation of coefficients alone must decode to the key with exactly that
// coefficient changed.

/// A whole server-key envelope and where its coefficient arrays lie.
struct FullKey {
    bytes: Vec<u8>,
    /// The two coefficient arrays: byte range and word size.
    arrays: [(std::ops::Range<usize>, usize); 2],
    /// Offsets outside the arrays (the structure), and the arrays' boundaries.
    structure: Vec<usize>,
}

impl FullKey {
    /// Finds the arrays from the expected lengths (the coefficient counts the parameter set
    /// implies), each after its 8-byte length prefix.
    fn new(bytes: Vec<u8>, p: &DigitParameters) -> FullKey {
        let glwe = p.glwe_dimension.0 + 1;
        let bsk_len = p.lwe_dimension.0 * p.pbs_level.0 * glwe * glwe * p.polynomial_size.0;
        let ksk_len = p.big_lwe_dimension().0 * p.ks_level.0 * (p.lwe_dimension.0 + 1);
        let ksk_word = match p.keyswitch {
            Keyswitch::Native64 { .. } => 8,
            Keyswitch::Native32 { .. } => 4,
        };
        Self::with_arrays(bytes, bsk_len, ksk_len, ksk_word)
    }

    /// A compressed key ([`CompressedServerKey`]): one body polynomial per GLWE row of the
    /// bootstrapping key, one body per keyswitching ciphertext, all 64-bit words.
    fn compressed(bytes: Vec<u8>, p: &DigitParameters) -> FullKey {
        let glwe = p.glwe_dimension.0 + 1;
        let bsk_len = p.lwe_dimension.0 * p.pbs_level.0 * glwe * p.polynomial_size.0;
        let ksk_len = p.big_lwe_dimension().0 * p.ks_level.0;
        Self::with_arrays(bytes, bsk_len, ksk_len, 8)
    }

    /// Finds the two arrays of `bsk_len` 64-bit and `ksk_len` `ksk_word`-byte words.
    fn with_arrays(bytes: Vec<u8>, bsk_len: usize, ksk_len: usize, ksk_word: usize) -> FullKey {
        let find = |from: usize, len: usize| -> usize {
            (from..from + 256)
                .find(|&i| bytes[i..i + 8] == (len as u64).to_le_bytes())
                .expect("the length prefix of a coefficient array")
                + 8
        };
        let bsk_at = find(0, bsk_len);
        let bsk = bsk_at..bsk_at + 8 * bsk_len;
        let ksk_at = find(bsk.end, ksk_len);
        let ksk = ksk_at..ksk_at + ksk_word * ksk_len;
        assert!(
            ksk.end <= bytes.len() && bytes.len() - ksk.end < 256,
            "the keyswitching key (and its fields) end the envelope"
        );
        let mut structure: Vec<usize> = (0..bsk.start)
            .chain(bsk.end..ksk.start)
            .chain(ksk.end..bytes.len())
            .collect();
        for b in [bsk.start, bsk.end, ksk.start, ksk.end] {
            structure.extend(b.saturating_sub(16)..b + 16);
        }
        FullKey {
            bytes,
            arrays: [(bsk, 8), (ksk, ksk_word)],
            structure,
        }
    }

    /// Whether every mutation overwrites bytes inside a coefficient array (no length change,
    /// no structural byte touched).
    fn coefficients_only(&self, muts: &[Mutation]) -> bool {
        self.overwrites_only(muts, &[0, 1])
    }

    /// Whether every mutation overwrites bytes inside the arrays `which` (0: the
    /// bootstrapping key's, 1: the keyswitching key's).
    fn overwrites_only(&self, muts: &[Mutation], which: &[usize]) -> bool {
        let inside = |from: usize, to: usize| {
            which.iter().any(|&i| {
                let r = &self.arrays[i].0;
                r.start <= from && to <= r.end
            })
        };
        muts.iter().all(|m| match m {
            Mutation::Flip(p, _) | Mutation::Set(p, _) => inside(*p, *p + 1),
            Mutation::Word(p, _) => inside(*p, *p + 8),
            _ => false,
        })
    }
}

/// Mutations of whole keys, ordinary (`false`) or compressed (`true`): offsets in the
/// structure, at array boundaries, or anywhere. One target takes both, so that no two
/// whole keys are decoded at once (the memory bound is the process's).
fn full_key_input() -> impl Strategy<Value = (bool, usize, Vec<Mutation>)> {
    prop_oneof![
        2 => key_mutations(&seeds().full_keys).prop_map(|(k, m)| (false, k, m)),
        1 => key_mutations(compressed_keys()).prop_map(|(k, m)| (true, k, m)),
    ]
}

/// Mutations of one of `keys`.
fn key_mutations(keys: &'static [FullKey]) -> impl Strategy<Value = (usize, Vec<Mutation>)> {
    (0..keys.len()).prop_flat_map(move |k| {
        let key = &keys[k];
        let len = key.bytes.len();
        let structure = key.structure.clone();
        let offset = prop_oneof![
            2 => (0..structure.len()).prop_map(move |i| structure[i]),
            2 => 0..len,
        ];
        let one = prop_oneof![
            (offset.clone(), 0u8..8).prop_map(|(p, b)| Mutation::Flip(p, b)),
            (offset.clone(), any::<u8>()).prop_map(|(p, b)| Mutation::Set(p, b)),
            (offset.clone(), word()).prop_map(|(p, w)| Mutation::Word(p, w)),
            (
                offset.clone(),
                proptest::collection::vec(any::<u8>(), 1..16)
            )
                .prop_map(|(p, v)| Mutation::Insert(p, v)),
            (offset.clone(), 1usize..64).prop_map(|(p, n)| Mutation::Delete(p, n)),
            offset.prop_map(Mutation::Truncate),
        ];
        (Just(k), proptest::collection::vec(one, 1..4))
    })
}

fn full_key_cases() -> u32 {
    std::env::var("ENCINT_FUZZ_KEY_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
}

checked_target!(
    fuzz_server_key_full_length,
    ProptestConfig {
        cases: full_key_cases(),
        max_shrink_iters: 50,
        ..ProptestConfig::default()
    },
    full_key_input(),
    |(compressed, k, muts)| {
        if compressed {
            return check_compressed_key(k, &muts);
        }
        let key = &seeds().full_keys[k];
        let bytes = apply(key.bytes.clone(), &muts);
        let opened = envelope::open_known::<ServerKey>(&bytes, Kind::ServerKey);
        if key.coefficients_only(&muts) {
            let sk = opened.as_ref().map_err(|e| {
                TestCaseError::fail(format!("a coefficient mutation was refused: {e}"))
            })?;
            // The bootstrapping key's coefficients are exactly the mutated bytes.
            let (bsk, _) = &key.arrays[0];
            let coeffs = sk.bootstrap_key().as_ref();
            for m in &muts {
                let p = match m {
                    Mutation::Flip(p, _) | Mutation::Set(p, _) | Mutation::Word(p, _) => *p,
                    _ => unreachable!(),
                };
                if bsk.contains(&p) {
                    let i = (p - bsk.start) / 8;
                    let at = bsk.start + 8 * i;
                    let want = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
                    prop_assert_eq!(coeffs[i], want, "coefficient {}", i);
                }
            }
        }
        if let Ok(sk) = opened {
            // Whatever decodes is a well-formed key of the set its header names.
            let (header, _) = envelope::read_header(&bytes).unwrap();
            let p = DigitParameters::from_id(&header.params_id).unwrap();
            prop_assert_eq!(sk.params().name, p.name);
            let glwe = p.glwe_dimension.0 + 1;
            let bsk_len = p.lwe_dimension.0 * p.pbs_level.0 * glwe * glwe * p.polynomial_size.0;
            prop_assert_eq!(sk.bootstrap_key().as_ref().len(), bsk_len);
            prop_assert_eq!(sk.bootstrap_key().polynomial_size(), p.polynomial_size);
            prop_assert_eq!(sk.bootstrap_key().decomposition_level_count(), p.pbs_level);
            if let Some(ksk) = sk.keyswitch_key() {
                prop_assert_eq!(
                    ksk.as_ref().len(),
                    p.big_lwe_dimension().0 * p.ks_level.0 * (p.lwe_dimension.0 + 1)
                );
                prop_assert_eq!(ksk.decomposition_level_count(), p.ks_level);
            }
        }
        Ok(())
    }
);

/// Whole compressed server keys (30 MB each) of both sets.
fn compressed_keys() -> &'static [FullKey] {
    static KEYS: OnceLock<Vec<FullKey>> = OnceLock::new();
    KEYS.get_or_init(|| {
        [(DEFAULT_PARAMETERS, 9u128), (KS64_PARAMETERS, 10)]
            .iter()
            .map(|(p, seed)| {
                let (client, _) = ClientKey::generate_seeded(p, *seed);
                let bytes = CompressedServerKey::generate(&client).to_bytes().unwrap();
                FullKey::compressed(bytes, p)
            })
            .collect()
    })
}

/// One execution on a whole compressed key: the mutated bytes through `open_server_key`.
fn check_compressed_key(k: usize, muts: &[Mutation]) -> Result<(), TestCaseError> {
    let key = &compressed_keys()[k];
    let bytes = apply(key.bytes.clone(), muts);
    let opened = open_server_key(&bytes);
    // Any value of a 64-bit body decompresses (a 32-bit keyswitching word must fit
    // 32 bits, so only the bootstrapping key's bodies are checked on the default set).
    let (header, _) = envelope::read_header(&key.bytes).unwrap();
    let p = DigitParameters::from_id(&header.params_id).unwrap();
    let any_value = match p.keyswitch {
        Keyswitch::Native64 { .. } => key.coefficients_only(muts),
        Keyswitch::Native32 { .. } => key.overwrites_only(muts, &[0]),
    };
    if any_value {
        prop_assert!(
            opened.is_ok(),
            "a body mutation was refused: {:?}",
            opened.as_ref().err()
        );
    }
    if let Ok(sk) = opened {
        // Whatever decodes is a key of the set its (possibly mutated) header names.
        let (header, _) = envelope::read_header(&bytes).unwrap();
        prop_assert_eq!(sk.params().name, header.params_id.as_str());
    }
    Ok(())
}

target!(fuzz_assembler, asm_input(), |src| {
    if let Ok(p) = encint::processor::asm::assemble(&src) {
        let _ =
            encint::processor::vm::compile(&p, encint::DEFAULT_PARAMETERS.max_quadratic_weight());
    }
});

target!(
    fuzz_input_arguments,
    "[a-z]{0,3}=[-0-9a-fx,. ]{0,40}",
    |arg| {
        static COMPILED: OnceLock<encint::processor::vm::Compiled> = OnceLock::new();
        let c = COMPILED.get_or_init(|| {
            let p = encint::processor::asm::assemble(
                "input a, f: fixed, xs[3]\ny = ADD a, xs[0]\noutput y, f, xs\n",
            )
            .unwrap();
            encint::processor::vm::compile(&p, encint::DEFAULT_PARAMETERS.max_quadratic_weight())
                .unwrap()
        });
        encint::processor::vm::parse_input_arg(c, &arg, &mut HashMap::new()).is_ok()
    }
);
