//! Typed (TFHE-rs-like) operations against a `BigInt` reference: every operation, every
//! algorithm, 1000 random cases each over widths 1..=64 and 30 more at widths 65..=128,
//! signed and unsigned, operands given as random signed-binary representatives (any
//! digits in {-1, 0, 1}) or as canonical values or radix-4 blocks, run by the clear
//! executor; every circuit built is checked against the parameter sets' noise budget.

use std::collections::HashMap;

use encint_arith::typed::{
    build, circuit, plan, result_form, Algorithm, Form, IntType, Op, TypedError,
};
use encint_arith::{Arith, Config};
use encint_core::circuit::Circuit;
use encint_core::{clear, signed};
use num_bigint::BigInt;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[path = "common/budget.rs"]
mod budget;
#[path = "common/typed_reference.rs"]
mod typed_reference;
use budget::noise_budget;
use typed_reference::{pow2, reference, reference_big, to_i128, wrap_big};

/// Asserts that no live bootstrap of `c` exceeds the noise budget, by the check the level
/// walker runs before it runs a circuit (`Plan::budget_violations`).
fn assert_within_budget(c: &Circuit, ctx: &str) {
    let budget = noise_budget();
    let violations = c.plan().budget_violations(c, budget);
    assert!(
        violations.is_empty(),
        "{ctx}: {} bootstrap(s) over the noise budget, the first: {}",
        violations.len(),
        violations[0]
    );
}

/// A random value of the type (its whole range, unsigned 127- and 128-bit values past
/// `i128::MAX` included), biased to edges.
fn value(rng: &mut StdRng, ty: IntType) -> BigInt {
    let (min, max) = if ty.signed {
        (-pow2(ty.bits - 1), pow2(ty.bits - 1) - 1)
    } else {
        (BigInt::from(0), pow2(ty.bits) - 1)
    };
    let shift = rng.gen_range(0..=ty.bits as u32);
    let pattern = rng.gen::<u128>() & (u128::MAX >> (128 - ty.bits));
    match rng.gen_range(0..8) {
        0 => min,
        1 => max,
        2 => BigInt::from(0),
        3 => BigInt::from(rng.gen_range(-2i32..=2)).clamp(min, max),
        // Patterns with any number of leading or of trailing zeros.
        4 => wrap_big(ty, &BigInt::from(pattern.checked_shr(shift).unwrap_or(0))),
        5 => wrap_big(ty, &BigInt::from(pattern.checked_shl(shift).unwrap_or(0))),
        // A uniform n-bit pattern.
        _ => wrap_big(ty, &BigInt::from(rng.gen::<u128>())),
    }
}

/// The canonical digits of a value: two's-complement bits, the top one negated if signed.
fn canonical(v: i128, ty: IntType) -> Vec<i64> {
    let u = v as u128;
    let mut d: Vec<i64> = (0..ty.bits).map(|k| ((u >> k) & 1) as i64).collect();
    if ty.signed {
        d[ty.bits - 1] = -d[ty.bits - 1];
    }
    d
}

/// The radix-4 blocks of a value's unsigned pattern (the last one a bit for odd widths).
fn radix4(v: i128, ty: IntType) -> Vec<i64> {
    let u = v as u128;
    (0..ty.bits.div_ceil(2))
        .map(|i| {
            let lo = (u >> (2 * i)) & 1;
            let hi = if 2 * i + 1 < ty.bits {
                (u >> (2 * i + 1)) & 1
            } else {
                0
            };
            (lo + 2 * hi) as i64
        })
        .collect()
}

/// The integer digits `d` (least significant first) hold in base `base`.
fn fold(d: &[i64], base: i64) -> BigInt {
    d.iter()
        .rev()
        .fold(BigInt::from(0), |acc, &v| acc * base + v)
}

/// The value digits of a form hold, read independently of the code under test.
fn value_of(form: Form, ty: IntType, d: &[i64]) -> BigInt {
    let base = if form == Form::Radix4 { 4 } else { 2 };
    wrap_big(ty, &fold(d, base))
}

/// A random operand of a form: canonical digits, or (lazy) random digits or a value's
/// signed-binary expansion.
fn operand(rng: &mut StdRng, ty: IntType, form: Form) -> Vec<i64> {
    let len = ty.bits;
    match (form, rng.gen_range(0..2)) {
        (Form::Canonical, _) => canonical(to_i128(&value(rng, ty)), ty),
        (Form::Radix4, _) => radix4(to_i128(&value(rng, ty)), ty),
        (Form::Lazy, 0) => (0..len).map(|_| rng.gen_range(-1..=1)).collect(),
        // An unsigned 128-bit value past i128::MAX as its (negative) i128 pattern.
        (Form::Lazy, _) => signed::from_i128_len(to_i128(&value(rng, ty)), len)
            .expect("a value of the type fits its width")
            .iter()
            .map(|&d| i64::from(d))
            .collect(),
    }
}

/// A random type of width 1..=128, signed or unsigned.
fn random_type(rng: &mut StdRng) -> IntType {
    IntType::new(rng.gen_range(1..=128), rng.gen_bool(0.5)).unwrap()
}

/// A random type of width `lo..=hi`, signed or unsigned.
fn type_in(rng: &mut StdRng, lo: usize, hi: usize) -> IntType {
    IntType::new(rng.gen_range(lo..=hi), rng.gen_bool(0.5)).unwrap()
}

/// A scalar for a scalar-taking operation of type `ty` (varied, but from a few values per
/// width so circuits are shared).
fn with_scalar(op: Op, ty: IntType, rng: &mut StdRng) -> Option<Op> {
    let pick = |rng: &mut StdRng| -> i128 {
        let v = [1i128, 2, 3, 7, 805, -1, -3, 4095, ty.max(), ty.min()][rng.gen_range(0..10)];
        ty.wrap(v)
    };
    let n = ty.bits as u32;
    Some(match op {
        Op::ScalarMul(_) => Op::ScalarMul(pick(rng)),
        Op::Shl(_) => Op::Shl(rng.gen_range(0..=n + 1)),
        Op::Shr(_) => Op::Shr(rng.gen_range(0..=n + 1)),
        Op::Rotl(_) => Op::Rotl(rng.gen_range(0..=n + 1)),
        Op::Rotr(_) => Op::Rotr(rng.gen_range(0..=n + 1)),
        Op::DivScalar(_) | Op::RemScalar(_) => {
            let k = pick(rng);
            // An unsigned 128-bit scalar past i128::MAX has no `i128` value of the type
            // (`TypedError::ScalarRange`, see `typed_errors`).
            if k == 0 || (!ty.signed && k < 0) {
                return None;
            }
            if matches!(op, Op::DivScalar(_)) {
                Op::DivScalar(k)
            } else {
                Op::RemScalar(k)
            }
        }
        Op::Cast(_) => Op::Cast(random_type(rng)),
        other => other,
    })
}

/// Whether `algorithm` documents no circuit for `op` on `ty` on these operand forms:
/// Blocks runs the additive and bitwise operations on radix-4 operands only, the
/// reciprocal divider (Magic) stops at 64 bits, and Parmesan's scalar product (Digits)
/// takes scalars that fit an `i64` once centred modulo `2^n`.
fn not_offered(op: Op, ty: IntType, algorithm: Algorithm, forms: &[Form]) -> bool {
    match (algorithm, op) {
        // Leading counts on blocks need whole top blocks.
        (Algorithm::Blocks, Op::LeadingZeros | Op::LeadingOnes) if ty.bits % 2 == 1 => true,
        (Algorithm::Blocks, _) => {
            use Op::*;
            let operands = if op == Select { &forms[1..] } else { forms };
            let on_bits = matches!(
                op,
                Add | Sub
                    | Mul
                    | Square
                    | Op::EQ
                    | Op::NE
                    | Op::LT
                    | Op::LE
                    | Op::GT
                    | Op::GE
                    | ShlVar
                    | ShrVar
                    | RotlVar
                    | RotrVar
                    | Min
                    | Max
                    | Div
                    | Rem
            );
            !operands.contains(&Form::Radix4) && !on_bits
        }
        (Algorithm::Magic, _) => ty.bits > 64,
        (Algorithm::Digits, Op::ScalarMul(k)) => {
            let centred = wrap_big(
                IntType {
                    bits: ty.bits,
                    signed: true,
                },
                &BigInt::from(k),
            );
            i64::try_from(&centred).is_err()
        }
        _ => false,
    }
}

/// `cases` random cases of `template` with `algorithm` on types drawn from `pool` and
/// operand forms from `patterns` (see [`ALL_PATTERNS`]): each
/// circuit built once per (operation, type, forms), checked against the noise budget and
/// the planner's estimate, and run by the clear executor against [`reference_big`].
fn check_op(
    template: Op,
    algorithm: Algorithm,
    cases: usize,
    seed: u64,
    pool: &[IntType],
    patterns: &[usize],
) {
    let ar = Arith::new(Config { max_qweight: 25 });
    let mut rng = StdRng::seed_from_u64(seed);
    let mut cache: HashMap<(Op, IntType, Vec<Form>), (Circuit, Form)> = HashMap::new();
    let mut refused: std::collections::HashSet<(Op, IntType, Vec<Form>)> = Default::default();
    let mut done = 0;
    let mut skipped = 0;
    while done < cases {
        let ty = pool[rng.gen_range(0..pool.len())];
        let Some(op) = with_scalar(template, ty, &mut rng) else {
            continue;
        };
        let pattern = patterns[rng.gen_range(0..patterns.len())];
        let forms: Vec<Form> = (0..op.arity())
            .map(|i| match pattern {
                0 => Form::Canonical,
                1 => Form::Lazy,
                2 if i % 2 == 0 => Form::Lazy,
                2 => Form::Canonical,
                3 => Form::Radix4,
                4 if i % 2 == 0 => Form::Radix4,
                4 => Form::Canonical,
                _ if i % 2 == 0 => Form::Lazy,
                _ => Form::Radix4,
            })
            .collect();
        let key = (op, ty, forms.clone());
        if refused.contains(&key) {
            skipped += 1;
            assert!(
                skipped < 100 * cases,
                "{op} {ty} {algorithm:?}: rarely offered"
            );
            continue;
        }
        if !cache.contains_key(&key) {
            let ctx = format!("{op} {ty} {algorithm:?} {forms:?}");
            let built = circuit(&ar, op, ty, algorithm, &forms);
            if not_offered(op, ty, algorithm, &forms) {
                // A typed error, and the planner leaves the algorithm out.
                assert!(
                    matches!(built, Err(TypedError::Unsupported(..))),
                    "{ctx}: {:?}",
                    built.map(|c| c.cost())
                );
                refused.insert(key);
                continue;
            }
            let c = built.unwrap_or_else(|e| panic!("{ctx}: {e}"));
            assert_within_budget(&c, &ctx);
            let form = result_form(op, algorithm, &forms);
            cache.insert(key.clone(), (c, form));
        }
        let (c, out_form) = &cache[&key];
        let out_form = *out_form;
        let mut inputs = Vec::new();
        let mut values = Vec::new();
        for (i, &form) in forms.iter().enumerate() {
            let d = if op == Op::Select && i == 0 {
                // A condition's first digit: canonical a bit, lazy a signed digit, radix-4
                // any block (of a wider value; bit 0 decides).
                let d = match form {
                    Form::Canonical => vec![rng.gen_range(0..=1)],
                    Form::Lazy => vec![rng.gen_range(-1..=1)],
                    Form::Radix4 => vec![rng.gen_range(0..=3)],
                };
                values.push(BigInt::from(d[0]));
                d
            } else {
                let d = operand(&mut rng, ty, form);
                values.push(value_of(form, ty, &d));
                d
            };
            inputs.extend(d);
        }
        let (out, _) = clear::run(c, &inputs).unwrap();
        let rt = op.result_type(ty);
        let want = reference_big(op, ty, &values);
        let shown: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        let ctx = format!("{op} {ty} {algorithm:?} {forms:?} on {shown:?} (digits {inputs:?})");
        if out_form == Form::Radix4 {
            assert_eq!(out, radix4(to_i128(&want), rt), "{ctx}: radix-4 blocks");
        } else {
            assert!(out.len() <= rt.bits, "{ctx}: {} digits", out.len());
            assert!(out.iter().all(|d| (-1..=1).contains(d)), "{ctx}: {out:?}");
            assert_eq!(wrap_big(rt, &fold(&out, 2)), want, "{ctx}");
        }
        if out_form == Form::Canonical {
            assert_eq!(out, canonical(to_i128(&want), rt), "{ctx}: canonical");
        }
        done += 1;
    }
    // Every circuit's result form is the planner's for the algorithm: checked at the
    // narrow widths on at most 32 of the circuits (spread over the widths), as planning
    // builds every algorithm's circuit again.
    let mut narrow: Vec<_> = cache.iter().filter(|(k, _)| k.1.bits <= 64).collect();
    narrow.sort_by_key(|(k, _)| (k.1.bits, k.1.signed, format!("{:?}{:?}", k.0, k.2)));
    let step = narrow.len().div_ceil(32).max(1);
    for ((op, ty, forms), (_, form)) in narrow.into_iter().step_by(step) {
        let p = plan(&ar, *op, *ty, forms, 1).unwrap();
        let e = p.estimates.iter().find(|e| e.algorithm == algorithm);
        assert_eq!(e.map(|e| e.form), Some(*form), "{op} {ty} {forms:?}");
    }
}

/// Cases per algorithm at widths 1..=64 and at widths 65..=128.
const NARROW_CASES: usize = 1000;
const WIDE_CASES: usize = 30;

/// The operand form patterns of [`check_op`]: all canonical, all lazy, lazy and canonical
/// alternating, all radix-4, radix-4 and canonical, lazy and radix-4.
const ALL_PATTERNS: [usize; 6] = [0, 1, 2, 3, 4, 5];
/// At widths 65..=128 (where building a circuit costs most): one form for all operands.
const WIDE_PATTERNS: [usize; 3] = [0, 1, 3];

fn check_all_algorithms(template: Op, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    // Circuits are built per (operation, type, forms): draw the cases' types from a pool
    // of 16 (widths 1 and 64 always among them) and the forms from six patterns, so 1000
    // cases share a few dozen circuits.
    let mut narrow: Vec<IntType> = (0..14).map(|_| type_in(&mut rng, 1, 64)).collect();
    narrow.push(IntType::new(1, rng.gen_bool(0.5)).unwrap());
    narrow.push(IntType::new(64, rng.gen_bool(0.5)).unwrap());
    // Wide types: 128 bits and one width of 65..=127, one signed and one unsigned.
    let signed = rng.gen_bool(0.5);
    let wide = [
        IntType::new(128, signed).unwrap(),
        IntType::new(rng.gen_range(65..=127), !signed).unwrap(),
    ];
    for &a in template.algorithms() {
        check_op(template, a, NARROW_CASES, seed, &narrow, &ALL_PATTERNS);
        if a == Algorithm::Magic {
            // The reciprocal divider stops at 64 bits: a typed error, and the planner
            // keeps the Bits divider.
            let ar = Arith::new(Config { max_qweight: 25 });
            for &ty in &wide {
                let op = with_scalar(template, ty, &mut rng).unwrap_or(template);
                let op = match op {
                    Op::DivScalar(0) => Op::DivScalar(3),
                    Op::RemScalar(0) => Op::RemScalar(3),
                    op => op,
                };
                let forms = [Form::Canonical];
                assert!(matches!(
                    circuit(&ar, op, ty, a, &forms),
                    Err(TypedError::Unsupported(..))
                ));
                let p = plan(&ar, op, ty, &forms, 2).unwrap();
                assert!(p.estimates.iter().all(|e| e.algorithm != a), "{op} {ty}");
            }
        } else {
            check_op(
                template,
                a,
                WIDE_CASES,
                seed ^ 0x5eed,
                &wide,
                &WIDE_PATTERNS,
            );
        }
    }
}

macro_rules! op_tests {
    ($($name:ident => $op:expr, $seed:expr;)*) => {
        $(#[test] fn $name() { check_all_algorithms($op, $seed); })*
    };
}

op_tests! {
    wrapping_add => Op::Add, 1;
    wrapping_sub => Op::Sub, 2;
    wrapping_neg => Op::Neg, 3;
    wrapping_mul => Op::Mul, 4;
    wrapping_square => Op::Square, 5;
    wrapping_scalar_mul => Op::ScalarMul(0), 6;
    bit_and => Op::And, 7;
    bit_or => Op::Or, 8;
    bit_xor => Op::Xor, 9;
    bit_not => Op::Not, 10;
    shl_scalar => Op::Shl(0), 11;
    shr_scalar => Op::Shr(0), 12;
    rotl_scalar => Op::Rotl(0), 13;
    rotr_scalar => Op::Rotr(0), 14;
    shl_encrypted => Op::ShlVar, 15;
    shr_encrypted => Op::ShrVar, 16;
    rotl_encrypted => Op::RotlVar, 17;
    rotr_encrypted => Op::RotrVar, 18;
    select => Op::Select, 19;
    min => Op::Min, 20;
    max => Op::Max, 21;
    lt => Op::LT, 22;
    le => Op::LE, 23;
    gt => Op::GT, 24;
    ge => Op::GE, 25;
    eq => Op::EQ, 26;
    ne => Op::NE, 27;
    div => Op::Div, 28;
    rem => Op::Rem, 29;
    div_scalar => Op::DivScalar(0), 30;
    rem_scalar => Op::RemScalar(0), 31;
    cast => Op::Cast(IntType::BOOL), 32;
    count_ones => Op::CountOnes, 33;
    count_zeros => Op::CountZeros, 34;
    leading_zeros => Op::LeadingZeros, 35;
    leading_ones => Op::LeadingOnes, 36;
    trailing_zeros => Op::TrailingZeros, 37;
    trailing_ones => Op::TrailingOnes, 38;
    ilog2 => Op::Ilog2, 39;
    reverse_bits => Op::ReverseBits, 40;
}

#[test]
fn typed_errors() {
    let ar = Arith::new(Config { max_qweight: 25 });
    let ty = IntType::new(8, true).unwrap();
    assert_eq!(IntType::new(0, true), Err(TypedError::Width(0)));
    assert_eq!(IntType::new(129, false), Err(TypedError::Width(129)));
    assert_eq!(
        plan(&ar, Op::DivScalar(0), ty, &[Form::Lazy], 2).unwrap_err(),
        TypedError::DivisionByZero
    );
    assert_eq!(
        plan(&ar, Op::RemScalar(200), ty, &[Form::Lazy], 2).unwrap_err(),
        TypedError::ScalarRange(200)
    );
    let u128 = IntType::new(128, false).unwrap();
    assert_eq!(
        plan(&ar, Op::DivScalar(-3), u128, &[Form::Lazy], 2).unwrap_err(),
        TypedError::ScalarRange(-3)
    );
    let bad = IntType {
        bits: 0,
        signed: false,
    };
    assert_eq!(
        plan(&ar, Op::Cast(bad), ty, &[Form::Lazy], 2).unwrap_err(),
        TypedError::Width(0)
    );
    let mut b = encint_core::circuit::Builder::new();
    let x = encint_arith::SInt::input(&mut b, 8);
    assert_eq!(
        build(
            &ar,
            &mut b,
            Op::And,
            ty,
            Algorithm::Bits,
            std::slice::from_ref(&x),
            &[Form::Lazy]
        )
        .unwrap_err(),
        TypedError::Arity {
            expected: 2,
            found: 1
        }
    );
    assert!(matches!(
        build(
            &ar,
            &mut b,
            Op::Div,
            ty,
            Algorithm::Digits,
            &[x.clone(), x],
            &[Form::Lazy; 2]
        ),
        Err(TypedError::Unsupported(Op::Div, Algorithm::Digits))
    ));
}

/// The planner orders estimates by rounds at the thread count, and every planned circuit
/// fits the noise budget of the parameter sets (the executors' check).
#[test]
fn planner_orders_by_estimated_time() {
    let ar = Arith::new(Config { max_qweight: 25 });
    for bits in [8, 16, 32] {
        for (op, form) in Op::typed_samples()
            .into_iter()
            .flat_map(|op| [(op, Form::Canonical), (op, Form::Radix4)])
        {
            let ty = IntType::new(bits, true).unwrap();
            let forms = vec![form; op.arity()];
            // The circuits the planner estimates: every algorithm that builds one.
            let mut built = Vec::new();
            for &a in op.algorithms() {
                if let Ok(c) = circuit(&ar, op, ty, a, &forms) {
                    assert_within_budget(&c, &format!("{op} {ty} {a:?} {forms:?}"));
                    built.push(a);
                }
            }
            for threads in [1, 2, 16] {
                let p = plan(&ar, op, ty, &forms, threads).unwrap();
                let mut planned: Vec<Algorithm> = p.estimates.iter().map(|e| e.algorithm).collect();
                planned.sort_by_key(|a| built.iter().position(|b| b == a));
                assert_eq!(planned, built, "{op} {ty} {forms:?}");
                let rounds: Vec<u64> = p.estimates.iter().map(|e| e.rounds).collect();
                assert!(rounds.windows(2).all(|w| w[0] <= w[1]), "{op} {rounds:?}");
                for e in &p.estimates {
                    // One thread: the rounds are the bootstraps.
                    if threads == 1 {
                        assert_eq!(e.rounds, e.cost.bootstraps);
                    }
                }
            }
        }
    }
}

/// On radix-4 operands the planner picks the block circuits, with at most TFHE-rs 1.8.2's
/// bootstrap counts (its `pbs-stats` counter, 2-bit blocks).
#[test]
fn radix4_bootstraps_within_tfhe_rs_counts() {
    let ar = Arith::new(Config { max_qweight: 25 });
    // (op, bits, TFHE-rs bootstraps)
    let peers = [
        (Op::Add, 8, 8),
        (Op::Add, 16, 16),
        (Op::Add, 32, 32),
        (Op::Sub, 16, 16),
        (Op::And, 16, 8),
        (Op::Mul, 8, 28),
        (Op::Mul, 16, 111),
        (Op::Mul, 32, 440),
        (Op::Square, 16, 111),
        (Op::GE, 8, 6),
        (Op::GE, 16, 11),
        (Op::GE, 32, 23),
        (Op::Max, 16, 35),
        (Op::ScalarMul(805), 8, 10),
        (Op::ScalarMul(805), 16, 33),
        (Op::ScalarMul(805), 32, 73),
        // Both give 0 past the width (TFHE-rs 1.8.2's overshift rule).
        (Op::ShlVar, 8, 21),
        (Op::ShlVar, 16, 50),
        (Op::ShlVar, 32, 119),
        // TFHE-rs' figures for division are FheUint's (signed too is checked against them).
        (Op::Div, 8, 164),
        (Op::Div, 16, 518),
        (Op::Rem, 8, 164),
        (Op::Rem, 16, 518),
    ];
    for (op, bits, peer) in peers {
        for signed in [false, true] {
            let ty = IntType::new(bits, signed).unwrap();
            let forms = vec![Form::Radix4; op.arity()];
            let p = plan(&ar, op, ty, &forms, 2).unwrap();
            let e = p.chosen();
            let c = circuit(&ar, op, ty, e.algorithm, &forms).unwrap();
            assert_within_budget(&c, &format!("{op} {ty} {:?}", e.algorithm));
            eprintln!(
                "{op} {ty}: {:?} {} bootstraps, depth {}",
                e.algorithm, e.cost.bootstraps, e.cost.depth
            );
            assert_eq!(e.algorithm, Algorithm::Blocks, "{op} {ty}");
            assert!(
                e.cost.bootstraps <= peer,
                "{op} {ty}: {} > {peer}",
                e.cost.bootstraps
            );
        }
    }
}

/// Every block operation on radix-4 operands, exhaustive over all operand pairs at widths
/// 1..=5, signed and unsigned (a one-bit top block at odd widths).
#[test]
fn radix4_exhaustive_at_small_widths() {
    use Op::*;
    let ar = Arith::new(Config { max_qweight: 25 });
    // Every block operation without a scalar (the scalar ones follow, with many scalars).
    let ops = Op::typed_samples().into_iter().filter(|op| {
        op.algorithms().contains(&Algorithm::Blocks)
            && !matches!(
                op,
                ScalarMul(_) | Shl(_) | Shr(_) | Rotl(_) | Rotr(_) | DivScalar(_) | RemScalar(_)
            )
    });
    // Scalar operations: every amount up to past the width, and multipliers that hit
    // each path (0, a power of two, digits 1..=3, all ones, a negative one).
    let scalar_ops = (0..=7u32)
        .flat_map(|k| [Shl(k), Shr(k), Rotl(k), Rotr(k)])
        .chain([0i128, 1, 2, 3, 4, 5, 6, 7, 11, 13, 21, 27, -1, -3, 805].map(ScalarMul))
        .chain((1..=7).flat_map(|w| [false, true].map(|s| Cast(IntType::new(w, s).unwrap()))));
    let ops: Vec<Op> = ops.chain(scalar_ops).collect();
    for bits in 1..=5 {
        for signed in [false, true] {
            let ty = IntType::new(bits, signed).unwrap();
            let all: Vec<i128> = (ty.min()..=ty.max()).collect();
            for &op in &ops {
                let forms = vec![Form::Radix4; op.arity()];
                if not_offered(op, ty, Algorithm::Blocks, &forms) {
                    assert!(matches!(
                        circuit(&ar, op, ty, Algorithm::Blocks, &forms),
                        Err(TypedError::Unsupported(..))
                    ));
                    continue;
                }
                let c = circuit(&ar, op, ty, Algorithm::Blocks, &forms).unwrap();
                assert_within_budget(&c, &format!("{op} {ty}"));
                let form = plan(&ar, op, ty, &forms, 1)
                    .unwrap()
                    .estimates
                    .iter()
                    .find(|e| e.algorithm == Algorithm::Blocks)
                    .unwrap()
                    .form;
                for &a in &all {
                    for &b in &all {
                        let (inputs, values) = match op.arity() {
                            1 => (radix4(a, ty), vec![a]),
                            2 => ([radix4(a, ty), radix4(b, ty)].concat(), vec![a, b]),
                            // The condition: the parity of a block.
                            _ => {
                                let cond = (a.rem_euclid(4)) as i64;
                                (
                                    [vec![cond], radix4(b, ty), radix4(a, ty)].concat(),
                                    vec![cond as i128, b, a],
                                )
                            }
                        };
                        let (out, _) = clear::run(&c, &inputs).unwrap();
                        let rt = op.result_type(ty);
                        let want = reference(op, ty, &values);
                        let expect = if form == Form::Radix4 {
                            radix4(want, rt)
                        } else {
                            canonical(want, rt)
                        };
                        assert_eq!(out, expect, "{op} {ty} on {values:?}");
                    }
                }
            }
        }
    }
}

/// Shifts and rotations by an encrypted amount with the block algorithm, on radix-4 and
/// on canonical operands: exhaustive at width 6, and at wider widths random values with
/// amounts mostly below the width (the random property test draws amounts from the whole
/// type, nearly all past the width there). Three tests by width, so that the harness runs
/// them side by side.
#[test]
fn radix4_shifts_by_an_encrypted_amount_narrow() {
    shifts_by_an_encrypted_amount(&[6, 7, 8, 9, 16, 17], 44);
}

/// [`radix4_shifts_by_an_encrypted_amount_narrow`] at widths around 32 and 64.
#[test]
fn radix4_shifts_by_an_encrypted_amount_middle() {
    shifts_by_an_encrypted_amount(&[31, 32, 33, 63, 64], 45);
}

/// [`radix4_shifts_by_an_encrypted_amount_narrow`] at the widest widths.
#[test]
fn radix4_shifts_by_an_encrypted_amount_wide() {
    shifts_by_an_encrypted_amount(&[100, 127, 128], 46);
}

fn shifts_by_an_encrypted_amount(widths: &[usize], seed: u64) {
    use Op::*;
    let ar = Arith::new(Config { max_qweight: 25 });
    let mut rng = StdRng::seed_from_u64(seed);
    for &bits in widths {
        for signed in [false, true] {
            let ty = IntType::new(bits, signed).unwrap();
            // Every pair up to 6 bits (every amount, past the width included); 300 drawn
            // pairs above (the 7- and 8-bit exhaustive sweeps took minutes for no path the
            // 6-bit one misses: the circuit's shape depends on the width only).
            let cases: Vec<(i128, i128)> = if bits <= 6 {
                let all: Vec<i128> = (ty.min()..=ty.max()).collect();
                all.iter()
                    .flat_map(|&a| all.iter().map(move |&s| (a, s)))
                    .collect()
            } else {
                (0..300)
                    .map(|i| {
                        let s = match i % 10 {
                            0 => to_i128(&value(&mut rng, ty)),
                            1 => ty.wrap(bits as i128 + rng.gen_range(0..3)),
                            _ => rng.gen_range(0..bits as i128),
                        };
                        (to_i128(&value(&mut rng, ty)), s)
                    })
                    .collect()
            };
            for op in [ShlVar, ShrVar, RotlVar, RotrVar] {
                // Radix-4 blocks in and out, and canonical bits in and out.
                for (form, enc) in [
                    (Form::Radix4, radix4 as fn(i128, IntType) -> Vec<i64>),
                    (Form::Canonical, canonical),
                ] {
                    let c = circuit(&ar, op, ty, Algorithm::Blocks, &[form, form]).unwrap();
                    assert_within_budget(&c, &format!("{op} {ty} {form:?}"));
                    for &(a, s) in &cases {
                        let inputs = [enc(a, ty), enc(s, ty)].concat();
                        let (out, _) = clear::run(&c, &inputs).unwrap();
                        let want = reference(op, ty, &[a, s]);
                        assert_eq!(out, enc(want, ty), "{op} {ty} {form:?} on {a} by {s}");
                    }
                }
            }
        }
    }
}
