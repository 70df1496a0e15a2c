//! The byte processor on real ciphertexts: every instruction of `encint-isa` on random
//! encrypted operands, and every example program, checked against the clear executor
//! (itself tested exhaustively against plain Rust arithmetic in `encint-isa`).

use std::collections::HashMap;
use std::sync::Arc;

use encint::backend::tree::run_tree;
use encint_core::circuit::{Builder, Circuit};
use encint_core::clear;
use encint_isa::instr::{emit, signatures, Arg, Kind, Value};
use encint_isa::{Byte, Fixed};
use encint_tfhe::{ClientKey, Digit, ServerKey, TreeKey, DEFAULT_PARAMETERS};
use rand::{Rng, SeedableRng};

#[path = "../../tfhe/tests/common/mod.rs"]
mod tfhe_keys;

fn keys() -> (&'static ClientKey, &'static ServerKey, &'static TreeKey) {
    tfhe_keys::tree_keys(0x0004_0001, 0x0004_0002)
}

fn run_real(circuit: &Circuit, vals: &[i64]) -> Vec<i64> {
    let (c, s, t) = keys();
    let inputs: Vec<Digit> = vals.iter().map(|&v| c.encrypt_digit(v)).collect();
    let refs: Vec<&Digit> = inputs.iter().collect();
    let out = run_tree(s, t, circuit, &refs).unwrap();
    out.iter().map(|d| c.decrypt_digit(d)).collect()
}

/// A circuit for `name` on random operands (booleans where the instruction needs them).
fn instance(name: &str, kinds: &[Kind], rng: &mut impl Rng) -> Option<(Circuit, Vec<i64>)> {
    let mut b = Builder::with_budget(DEFAULT_PARAMETERS.max_quadratic_weight());
    let mut args = Vec::new();
    let mut vals = Vec::new();
    let boolean_first = matches!(
        name,
        "CDUP" | "NCDUP" | "CSEL" | "CDUPI" | "NCDUPI" | "CSELI"
    );
    for (i, k) in kinds.iter().enumerate() {
        let byte = |b: &mut Builder, v: u8, vals: &mut Vec<i64>| {
            vals.extend([(v >> 4) as i64, (v & 15) as i64]);
            Byte {
                hi: b.input(),
                lo: b.input(),
            }
        };
        match k {
            Kind::Byte => {
                let v: u8 = if i == 0 && boolean_first {
                    rng.gen_range(0..2)
                } else if name == "ADDZ" && i == 1 {
                    0
                } else {
                    rng.r#gen()
                };
                args.push(Arg::Byte(byte(&mut b, v, &mut vals)));
            }
            Kind::Fixed => {
                let (i_, f_) = (rng.r#gen(), rng.r#gen());
                let int = byte(&mut b, i_, &mut vals);
                let frac = byte(&mut b, f_, &mut vals);
                args.push(Arg::Fixed(Fixed { int, frac }));
            }
            Kind::Imm => args.push(Arg::Imm(if name.starts_with('F') {
                rng.gen_range(-300..300)
            } else if name.starts_with('S') {
                rng.gen_range(-128..128)
            } else {
                rng.gen_range(1..256)
            })),
            Kind::Table => {
                let mut t = [0u16; 256];
                for e in t.iter_mut() {
                    *e = rng.gen_range(0..256);
                }
                args.push(Arg::Table(Arc::new(t)));
            }
            Kind::Bits => {
                let bits = (0..8)
                    .map(|_| {
                        vals.push(rng.gen_range(0..2));
                        b.input()
                    })
                    .collect();
                args.push(Arg::Bits(bits));
            }
        }
    }
    let out = match emit(&mut b, name, &args).ok()? {
        Value::Byte(x) => vec![x.hi, x.lo],
        Value::Fixed(f) => vec![f.int.hi, f.int.lo, f.frac.hi, f.frac.lo],
        Value::Bits(bits) => bits,
    };
    Some((b.finish(out), vals))
}

#[test]
fn every_instruction_on_encrypted_operands() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x1534);
    let mut ran = 0;
    for sig in signatures() {
        // Immediates outside an instruction's range are rejected: retry a few draws.
        let inst = (0..20).find_map(|_| instance(sig.name, sig.args, &mut rng));
        let (circuit, vals) = inst.unwrap_or_else(|| panic!("{}: no valid operands", sig.name));
        let (want, _) = clear::run(&circuit, &vals).unwrap();
        assert_eq!(run_real(&circuit, &vals), want, "{} on {vals:?}", sig.name);
        ran += 1;
    }
    // README.md: "89 instructions"; docs/ISA.md: "`encint asm list` prints all 89".
    assert_eq!(ran, 89, "ran {ran} instructions");
}

#[test]
fn example_programs_encrypted_match_clear() {
    use encint_isa::vm::{compile, encode_inputs, Datum};
    let dir = format!("{}/../../examples", env!("CARGO_MANIFEST_DIR"));
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x9009);
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "asm") {
            continue;
        }
        let src = std::fs::read_to_string(&path).unwrap();
        let c = compile(
            &encint_isa::asm::assemble(&src).unwrap(),
            DEFAULT_PARAMETERS.max_quadratic_weight(),
        )
        .unwrap();
        let mut data = HashMap::new();
        for (name, kind) in &c.inputs {
            let d = match kind {
                Kind::Fixed => Datum::Fixed(rng.gen_range(-256..=256)),
                _ if path.ends_with("average.asm") => Datum::Byte(rng.gen_range(0..51)),
                _ => Datum::Byte(rng.r#gen()),
            };
            data.insert(name.clone(), d);
        }
        let vals = encode_inputs(&c, &data).unwrap();
        let (want, _) = clear::run(&c.circuit, &vals).unwrap();
        assert_eq!(run_real(&c.circuit, &vals), want, "{}", path.display());
        n += 1;
    }
    assert_eq!(n, 6);
}

#[test]
fn tree_key_of_another_key_set_is_refused() {
    let (c, s, _) = keys();
    let (other, _) = ClientKey::generate_seeded(&DEFAULT_PARAMETERS, 0x0004_0003);
    let t2 = TreeKey::generate_seeded(&other, 0x0004_0004);
    assert_eq!(t2.key_set(), other.key_set());
    let mut b = Builder::new();
    let x = b.input();
    let circuit = b.finish(vec![x]);
    let d = c.encrypt_digit(3);
    assert!(matches!(
        run_tree(s, &t2, &circuit, &[&d]),
        Err(encint::Error::TreeKeyMismatch { server, tree }) if server == s.key_set() && tree == other.key_set()
    ));
}

#[test]
fn tree_keys_round_trip_and_bad_envelopes_are_errors() {
    use encint_tfhe::envelope::{open, seal, Kind};
    let (c, _, t) = keys();
    let id = DEFAULT_PARAMETERS.id();
    let bytes = seal(Kind::ServerKey, id, t).unwrap();
    let back: TreeKey = open(&bytes, Kind::ServerKey, id).unwrap();
    assert_eq!(
        back.key_set(),
        t.key_set(),
        "the key set survives the envelope"
    );
    // The reopened key evaluates a tree like the original: ADD's low nibble on 0..16².
    let mut b = Builder::with_budget(DEFAULT_PARAMETERS.max_quadratic_weight());
    let (x, y) = (b.input(), b.input());
    let table = encint_core::lut::Table256::from_fn(|i, j| ((i + j) % 16) as i64).unwrap();
    let s = b.tree(x, y, &table).unwrap();
    let circuit = b.finish(vec![s]);
    let (_, server, _) = keys();
    for (xv, yv) in [(3i64, 9i64), (15, 15), (0, 7)] {
        let ins = [c.encrypt_digit(xv), c.encrypt_digit(yv)];
        let out = run_tree(server, &back, &circuit, &[&ins[0], &ins[1]]).unwrap();
        assert_eq!(c.decrypt_digit(&out[0]), (xv + yv) % 16);
    }
    // Truncated, of another kind, or with a corrupted length: errors, never panics.
    assert!(open::<TreeKey>(&bytes[..bytes.len() / 2], Kind::ServerKey, id).is_err());
    assert!(open::<TreeKey>(&bytes, Kind::Ciphertext, id).is_err());
    let server_bytes = seal(Kind::ServerKey, id, server).unwrap();
    assert!(open::<TreeKey>(&server_bytes, Kind::ServerKey, id).is_err());
    // A key in the layout before the Fourier-order fix (it began with the parameter id) is
    // refused with a message that says what to do, not read in the wrong order.
    let old = seal(Kind::ServerKey, id, &(id.to_string(), t.key_set())).unwrap();
    let err = open::<TreeKey>(&old, Kind::ServerKey, id)
        .unwrap_err()
        .to_string();
    assert!(err.contains("generate the keys again"), "{err}");
}
