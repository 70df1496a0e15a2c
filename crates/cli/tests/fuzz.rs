//! A bounded, proptest-based fuzzer over every decoder of untrusted bytes and text
//! (issue 12, item 5): ciphertext envelopes (`Digit`, `Vec<Digit>`, `EncInt`), client,
//! server and packing keys, the byte processor's I/O packets (`SeededNibbles`,
//! `PackedNibbles`), the assembler with the program compiler, and `--input` arguments.
//! (The FV crate has no decoder: its objects are never serialized.)
//!
//! Each target mutates valid seeds (bit flips, byte and word overwrites with boundary
//! values, insertions, deletions, truncations) or draws fresh random input, and checks
//! that decoding returns (`Ok` or a typed error) without a panic, within a time bound per
//! execution; a global allocator refuses no allocation but records the largest request
//! and the peak of live memory, checked below 1 GiB.
//!
//! CI runs `ENCINT_FUZZ_CASES` (default 1000) cases per target. A long run:
//! `ENCINT_FUZZ_CASES=1000000 cargo test --workspace --release --test fuzz -- --nocapture --test-threads 1`.
//! Failures are persisted by proptest in `fuzz.proptest-regressions` beside this file
//! and replayed first on every later run (the regression corpus).

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use encint::{ClientKey, EncInt, DEFAULT_PARAMETERS};
use encint_tfhe::envelope::{self, Kind};
use encint_tfhe::{Digit, PackedNibbles, PackingKey, SeededNibbles, ServerKey};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// Memory accounting.

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static LARGEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
            LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const GIB: usize = 1 << 30;
const PER_EXEC: Duration = Duration::from_secs(2);

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

/// Runs one execution: times it, counts it, checks the allocation bound.
fn exec(counter: &AtomicU64, slowest: &AtomicU64, f: impl FnOnce()) -> Result<(), TestCaseError> {
    let t = Instant::now();
    f();
    let e = t.elapsed();
    counter.fetch_add(1, Ordering::Relaxed);
    slowest.fetch_max(e.as_micros() as u64, Ordering::Relaxed);
    prop_assert!(e < PER_EXEC, "one execution took {e:?}");
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
}

/// Prefix of a large key envelope kept as a seed (the rest is 60+ MB of coefficients).
const KEY_PREFIX: usize = 64 << 10;

fn seeds() -> &'static Seeds {
    static SEEDS: OnceLock<Seeds> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let p = DEFAULT_PARAMETERS;
        let id = p.id();
        let (client, server) = ClientKey::generate_seeded(&p, 7);
        let x = encint::encrypt(&client, -5, 3).unwrap();
        let d = client.encrypt_digit(3);
        let ciphertext = vec![
            x.to_bytes(&p).unwrap(),
            envelope::seal(Kind::Ciphertext, id, &d).unwrap(),
            envelope::seal(Kind::Ciphertext, id, &vec![d.clone(), d.clone()]).unwrap(),
            envelope::seal(Kind::Ciphertext, id, &Vec::<Digit>::new()).unwrap(),
        ];
        let client_key = vec![envelope::seal(Kind::ClientKey, id, &client).unwrap()];
        let mut server_bytes = envelope::seal(Kind::ServerKey, id, &server).unwrap();
        server_bytes.truncate(KEY_PREFIX);
        server_bytes.shrink_to_fit();
        let packing = PackingKey::generate(&client);
        let mut packing_bytes = envelope::seal(Kind::ServerKey, id, &packing).unwrap();
        packing_bytes.truncate(KEY_PREFIX);
        packing_bytes.shrink_to_fit();
        let header_only = envelope::seal(Kind::ServerKey, id, &()).unwrap();
        let seeded = client.encrypt_nibbles_seeded(&[1, 2, 15]).unwrap();
        let packed = packing.pack(&[d.clone(), client.encrypt_digit(9)]).unwrap();
        Seeds {
            ciphertext,
            client_key,
            eval_keys: vec![server_bytes, packing_bytes, header_only],
            packets: vec![seeded.to_bytes(), packed.to_bytes()],
        }
    })
}

// ---------------------------------------------------------------------------------------
// Mutations.

#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Set(usize, u8),
    Word(usize, u64),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
}

fn position() -> impl Strategy<Value = usize> {
    // Headers and length prefixes sit at the start: bias towards it.
    prop_oneof![0usize..128, any::<usize>()]
}

fn word() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1),
        Just(u64::MAX),
        Just(1 << 31),
        Just(1 << 62),
        Just(i64::MAX as u64),
        0u64..70_000,
        any::<u64>(),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (position(), 0u8..8).prop_map(|(p, b)| Mutation::Flip(p, b)),
        (position(), any::<u8>()).prop_map(|(p, b)| Mutation::Set(p, b)),
        (position(), word()).prop_map(|(p, w)| Mutation::Word(p, w)),
        (position(), proptest::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(p, v)| Mutation::Insert(p, v)),
        (position(), 1usize..64).prop_map(|(p, n)| Mutation::Delete(p, n)),
        position().prop_map(Mutation::Truncate),
    ]
}

fn apply(mut bytes: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let n = bytes.len().max(1);
        match m {
            Mutation::Flip(p, b) => {
                if let Some(x) = bytes.get_mut(p % n) {
                    *x ^= 1 << b;
                }
            }
            Mutation::Set(p, b) => {
                if let Some(x) = bytes.get_mut(p % n) {
                    *x = *b;
                }
            }
            Mutation::Word(p, w) => {
                let at = p % n;
                let end = (at + 8).min(bytes.len());
                let w = w.to_le_bytes();
                bytes[at.min(end)..end].copy_from_slice(&w[..end - at.min(end)]);
            }
            Mutation::Insert(p, v) => {
                let at = (p % (bytes.len() + 1)).min(bytes.len());
                bytes.splice(at..at, v.iter().copied());
            }
            Mutation::Delete(p, k) => {
                let at = p % n;
                let end = (at + k).min(bytes.len());
                if at < end {
                    bytes.drain(at..end);
                }
            }
            Mutation::Truncate(p) => bytes.truncate(p % (bytes.len() + 1)),
        }
    }
    bytes
}

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

fn programs() -> &'static Vec<Vec<u8>> {
    static P: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    P.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
        let mut v: Vec<Vec<u8>> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| {
                let p = e.ok()?.path();
                (p.extension()? == "asm").then(|| std::fs::read(p).ok())?
            })
            .collect();
        v.sort();
        assert!(v.len() >= 3, "example programs found");
        v
    })
}

const TOKENS: &[&str] = &[
    "input a",
    "input xs[4]",
    "input f: fixed",
    "const n = 3",
    "table t = 1, 2, 3",
    "for i in 0..n {",
    "for j in 0..2 {",
    "}",
    "\n",
    "\n",
    "\n",
    "x = ADD a, a",
    "y = MAXI x, 100",
    "xs[i] = ADDI xs[i], i",
    "ys[9223372036854775806] = a",
    "output x",
    "output xs",
    "(",
    ")",
    "-",
    "*",
    "+",
    "9223372036854775807",
    "0x7f",
    "0b101",
    "i",
    "n",
    ",",
    "=",
    "[",
    "]",
    " ",
    "z = LUT a, t",
    "w = x",
    "; comment",
    "FOO",
    "{",
];

fn asm_input() -> impl Strategy<Value = String> {
    seeds();
    let n = programs().len();
    prop_oneof![
        2 => (0..n, proptest::collection::vec(mutation(), 1..6))
            .prop_map(move |(i, m)| String::from_utf8_lossy(&apply(programs()[i].clone(), &m)).into_owned()),
        2 => proptest::collection::vec(0..TOKENS.len(), 0..60)
            .prop_map(|ix| ix.into_iter().map(|i| TOKENS[i]).collect::<String>()),
        1 => "[ -~\n]{0,200}",
    ]
}

// ---------------------------------------------------------------------------------------
// Targets.

macro_rules! target {
    ($name:ident, $strategy:expr, |$x:ident| $body:expr) => {
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
                ..config()
            });
            let result = runner.run(&strategy, |$x| {
                exec(&COUNT, &SLOWEST, || {
                    let _ = $body;
                })
            });
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
    )
});

target!(fuzz_io_packets, input(|s| &s.packets), |bytes| {
    (
        SeededNibbles::from_bytes(&bytes).map(|s| s.expand().is_ok()),
        PackedNibbles::from_bytes(&bytes).is_ok(),
    )
});

target!(fuzz_assembler, asm_input(), |src| {
    if let Ok(p) = encint_isa::asm::assemble(&src) {
        let _ = encint_isa::vm::compile(&p, encint_tfhe::DEFAULT_PARAMETERS.max_quadratic_weight());
    }
});

target!(
    fuzz_input_arguments,
    "[a-z]{0,3}=[-0-9a-fx,. ]{0,40}",
    |arg| {
        static COMPILED: OnceLock<encint_isa::vm::Compiled> = OnceLock::new();
        let c = COMPILED.get_or_init(|| {
            let p = encint_isa::asm::assemble(
                "input a, f: fixed, xs[3]\ny = ADD a, xs[0]\noutput y, f, xs\n",
            )
            .unwrap();
            encint_isa::vm::compile(&p, encint_tfhe::DEFAULT_PARAMETERS.max_quadratic_weight())
                .unwrap()
        });
        encint_isa::vm::parse_input_arg(c, &arg, &mut HashMap::new()).is_ok()
    }
);
