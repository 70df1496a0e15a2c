//! Typed operations on real ciphertexts against the BigInt reference: every operation
//! at 4 bits (signed and unsigned alternately) with every algorithm, on canonical, lazy
//! and radix-4 operands; radix-4 operands at 5 bits (a one-bit top block); 8 bits behind
//! `#[ignore]`.

use std::sync::OnceLock;

use encint::typed::{
    decrypt_typed, encrypt_typed, encrypt_typed_as, Algorithm, EncTyped, Form, IntType, Op,
};
use encint::{encrypt, ClientKey, Server, DEFAULT_PARAMETERS};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[path = "../../arith/tests/common/typed_reference.rs"]
mod typed_reference;
use typed_reference::reference;

fn keys() -> &'static (ClientKey, Server) {
    static KEYS: OnceLock<(ClientKey, Server)> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        (client, Server::new(key))
    })
}

/// Asserts that `out` decrypts to `v op s` at `ty` in plain arithmetic (the reference).
fn assert_shifted(client: &ClientKey, out: &EncTyped, op: Op, ty: IntType, v: i128, s: i128) {
    let want = reference(op, ty, &[v, s]);
    assert_eq!(
        decrypt_typed(client, out).unwrap(),
        want,
        "{v} {op} {s} {ty}"
    );
}

fn scalar_for(op: Op, ty: IntType) -> Op {
    match op {
        Op::DivScalar(_) => Op::DivScalar(if ty.signed { -3 } else { 3 }),
        Op::RemScalar(_) => Op::RemScalar(if ty.signed { -3 } else { 3 }),
        Op::ScalarMul(_) => Op::ScalarMul(805),
        other => other,
    }
}

fn run_all(bits: usize, seed: u64, forms: &[Form]) {
    let (client, server) = keys();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut ops = Op::typed_samples();
    ops.push(Op::Cast(IntType::new(bits + 3, true).unwrap()));
    ops.push(Op::Cast(IntType::new(bits - 1, false).unwrap()));
    for (i, template) in ops.into_iter().enumerate() {
        let ty = IntType::new(bits, i % 2 == 1).unwrap();
        let op = scalar_for(template, ty);
        let types: Vec<IntType> = (0..op.arity())
            .map(|k| {
                if op == Op::Select && k == 0 {
                    IntType::BOOL
                } else {
                    ty
                }
            })
            .collect();
        let values: Vec<i128> = types
            .iter()
            .map(|t| rng.gen_range(t.min()..=t.max()))
            .collect();
        // Canonical operands (fresh), and lazy ones (a wrapping sum of the value and 0).
        let canonical: Vec<EncTyped> = values
            .iter()
            .zip(&types)
            .map(|(&v, &t)| encrypt_typed(client, v, t).unwrap())
            .collect();
        let lazy: Vec<EncTyped> = canonical
            .iter()
            .map(|x| {
                let zero = encrypt_typed(client, 0, x.ty()).unwrap();
                let (s, _) = server
                    .typed_apply_with(Op::Add, Algorithm::Digits, &[x, &zero])
                    .unwrap();
                assert_eq!(s.form(), Form::Lazy);
                s
            })
            .collect();
        let radix4: Vec<EncTyped> = values
            .iter()
            .zip(&types)
            .map(|(&v, &t)| encrypt_typed_as(client, v, t, Form::Radix4).unwrap())
            .collect();
        let want = reference(op, ty, &values);
        let sets = [
            (Form::Canonical, &canonical),
            (Form::Lazy, &lazy),
            (Form::Radix4, &radix4),
        ];
        for (_, args) in sets.iter().filter(|(f, _)| forms.contains(f)) {
            let refs: Vec<&EncTyped> = args.iter().collect();
            let plan = server.typed_plan(op, &refs).unwrap();
            for e in &plan.estimates {
                let (out, cost) = server.typed_apply_with(op, e.algorithm, &refs).unwrap();
                assert_eq!(cost, e.cost, "{op} {ty} {:?}: cost as planned", e.algorithm);
                assert_eq!(out.form(), e.form);
                assert_eq!(out.ty(), op.result_type(ty));
                let got = decrypt_typed(client, &out).unwrap();
                assert_eq!(got, want, "{op} {ty} {:?} on {values:?}", e.algorithm);
            }
        }
    }
}

#[test]
fn every_operation_at_four_bits() {
    run_all(4, 17, &[Form::Canonical, Form::Lazy, Form::Radix4]);
}

#[test]
fn every_operation_on_radix4_blocks_at_five_bits() {
    run_all(5, 19, &[Form::Radix4]);
}

#[test]
#[ignore = "heavy: every operation at 8 bits on real ciphertexts"]
fn every_operation_at_eight_bits() {
    run_all(8, 18, &[Form::Canonical, Form::Lazy, Form::Radix4]);
}

/// Lazy results chain into operations that need the canonical value.
#[test]
fn lazy_results_chain_into_canonical_operations() {
    let (client, server) = keys();
    let ty = IntType::new(4, true).unwrap();
    let a = encrypt_typed(client, 7, ty).unwrap();
    let b = encrypt_typed(client, 6, ty).unwrap();
    let (s, _) = server
        .typed_apply_with(Op::Add, Algorithm::Digits, &[&a, &b])
        .unwrap();
    assert_eq!(s.form(), Form::Lazy);
    assert_eq!(decrypt_typed(client, &s).unwrap(), -3); // 13 mod 16 as i4
    let (lt, _) = server.typed_apply(Op::LT, &[&s, &a]).unwrap();
    assert_eq!(lt.form(), Form::Canonical);
    assert_eq!(decrypt_typed(client, &lt).unwrap(), 1);
    // Any digits are a representative: 12 digits of -1 hold -4095 ≡ 1 (mod 16).
    let long = EncTyped::from_int(encrypt(client, -4095, 12).unwrap(), ty).unwrap();
    let (q, _) = server.typed_apply(Op::Div, &[&long, &a]).unwrap();
    assert_eq!(decrypt_typed(client, &q).unwrap(), 0);
    // The comparison bit selects (canonical condition: its bit is free).
    let (m, _) = server.typed_apply(Op::Select, &[&lt, &a, &b]).unwrap();
    assert_eq!(decrypt_typed(client, &m).unwrap(), 7);
}

#[test]
fn typed_errors_before_running() {
    let (client, server) = keys();
    let ty = IntType::new(4, false).unwrap();
    assert!(encrypt_typed(client, 16, ty).is_err());
    assert!(encrypt_typed(client, -1, ty).is_err());
    let a = encrypt_typed(client, 5, ty).unwrap();
    assert!(server.typed_apply(Op::DivScalar(0), &[&a]).is_err());
    assert!(server.typed_apply(Op::Div, &[&a]).is_err());
    let other = encrypt_typed(client, 5, IntType::new(5, false).unwrap()).unwrap();
    assert!(server.typed_apply(Op::Add, &[&a, &other]).is_err());
    assert!(server
        .typed_apply_with(Op::Div, Algorithm::Digits, &[&a, &a])
        .is_err());
    let bad = IntType {
        bits: 0,
        signed: false,
    };
    assert!(EncTyped::from_int(a.as_int().clone(), bad).is_err());
}

/// Division and remainder by a clear scalar on real ciphertexts at 8 bits, by the
/// planner's choice (the magic reciprocal), against plain i128 arithmetic: unsigned and
/// signed, a negative divisor, `MIN / -1` (wrapping), values at the edges.
#[test]
fn scalar_division_by_the_reciprocal_at_eight_bits() {
    let (client, server) = keys();
    let u8t = IntType::new(8, false).unwrap();
    let i8t = IntType::new(8, true).unwrap();
    let cases = [
        (u8t, 7, 200),
        (u8t, 7, 6),
        (u8t, 255, 255),
        (i8t, -7, -128),
        (i8t, 7, -100),
        (i8t, -1, -128),
    ];
    for (ty, k, v) in cases {
        let a = encrypt_typed(client, v, ty).unwrap();
        for op in [Op::DivScalar(k), Op::RemScalar(k)] {
            let plan = server.typed_plan(op, &[&a]).unwrap();
            assert_eq!(plan.chosen().algorithm, Algorithm::Magic, "{op} {ty}");
            let (out, cost) = server.typed_apply(op, &[&a]).unwrap();
            assert_eq!(cost, plan.chosen().cost);
            let want = reference(op, ty, &[v]);
            assert_eq!(decrypt_typed(client, &out).unwrap(), want, "{v} {op} {ty}");
        }
    }
}

/// Shifts and rotations by an encrypted amount with the block algorithm at 8 bits (binary
/// stages and the last one-bit stage that zeroes past the width) on real ciphertexts, on
/// radix-4 and canonical operands, against plain i128 arithmetic: an odd amount, an even
/// one, and amounts past the width.
#[test]
fn shifts_by_an_encrypted_amount_with_blocks_at_eight_bits() {
    let (client, server) = keys();
    let cases: [(i128, i128); 4] = [(-75, 5), (109, 2), (-128, 9), (37, -1)];
    for signed in [false, true] {
        let ty = IntType::new(8, signed).unwrap();
        for op in [Op::ShlVar, Op::ShrVar, Op::RotlVar, Op::RotrVar] {
            for ((v, s), form) in cases
                .into_iter()
                .zip([Form::Radix4, Form::Canonical].repeat(2))
            {
                let (v, s) = (ty.wrap(v), ty.wrap(s));
                let [a, t] = [v, s].map(|x| encrypt_typed_as(client, x, ty, form).unwrap());
                let plan = server.typed_plan(op, &[&a, &t]).unwrap();
                assert_eq!(
                    plan.chosen().algorithm,
                    Algorithm::Blocks,
                    "{op} {ty} {form:?}"
                );
                let (out, cost) = server.typed_apply(op, &[&a, &t]).unwrap();
                assert_eq!(cost, plan.chosen().cost);
                assert_eq!(out.form(), form);
                assert_shifted(client, &out, op, ty, v, s);
            }
        }
    }
}

/// Shifts and rotations by an encrypted amount at 64 bits on real radix-4 ciphertexts,
/// against plain i128 arithmetic: there the last binary stage is gated by its amount bit
/// (the kept and moved parts of each block from one blind rotation) instead of being
/// followed by a refresh of every block.
#[test]
fn shifts_by_an_encrypted_amount_at_sixty_four_bits() {
    let (client, server) = keys();
    let cases = [
        (Op::ShlVar, false, 0x0123_4567_89ab_cdef, 37),
        (Op::ShrVar, true, -0x0123_4567_89ab_cdef, 22),
        (Op::RotlVar, false, 0x8000_0000_0000_0001u64 as i128, 63),
        (Op::RotrVar, true, -2, 5),
    ];
    for (op, signed, v, s) in cases {
        let ty = IntType::new(64, signed).unwrap();
        let (v, s) = (ty.wrap(v), ty.wrap(s));
        let [a, t] = [v, s].map(|x| encrypt_typed_as(client, x, ty, Form::Radix4).unwrap());
        let (out, _) = server.typed_apply(op, &[&a, &t]).unwrap();
        assert_shifted(client, &out, op, ty, v, s);
    }
}

/// Equality of 32-bit radix-4 values on real ciphertexts: the sixteen block indicators
/// are ANDed by one half-step bootstrap of their count of zeros (0 to 16), checked with
/// equal values, values one block apart and values differing in every block.
#[test]
fn equality_at_thirty_two_bits() {
    let (client, server) = keys();
    let v = 0x1234_5678i128;
    for (op, w) in [
        (Op::EQ, v),
        (Op::NE, v),
        (Op::EQ, v ^ 0x0100_0000),
        (Op::NE, v ^ 0x3),
        (Op::EQ, v ^ 0x5555_5555),
        (Op::NE, v ^ 0x5555_5555),
    ] {
        let ty = IntType::new(32, false).unwrap();
        let a = encrypt_typed_as(client, v, ty, Form::Radix4).unwrap();
        let b = encrypt_typed_as(client, w, ty, Form::Radix4).unwrap();
        let (out, cost) = server.typed_apply(op, &[&a, &b]).unwrap();
        assert_eq!(cost.bootstraps, 17, "{op}");
        let want = reference(op, ty, &[v, w]);
        assert_eq!(decrypt_typed(client, &out).unwrap(), want, "{v} {op} {w}");
    }
}
