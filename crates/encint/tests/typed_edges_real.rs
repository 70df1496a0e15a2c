//! Typed operations on real ciphertexts, unsigned and signed, on the edge values of the
//! type (`MIN`, `MAX`, `0`, `-1`, `1`) and on values chosen to reach the wide parts of the
//! circuits (comparison-tree merges above the lowest block, every stage of a shift by an
//! encrypted amount), against Rust's own `u8`/`i8`/`u16`/`i16` arithmetic with the semantics
//! documented on [`Op`] (wrapping, shifts past the width give 0 or the sign, division by
//! zero gives all ones or ±1, `MIN / -1 = MIN`).
//!
//! In CI: a 16-bit subset (comparisons, max, add/sub/mul/square/scalar product, bitwise
//! logic, select, casts, shifts and rotations by an encrypted amount, scalar division) and
//! division and remainder at 8 bits, with the algorithm the planner picks at two threads
//! (given explicitly, so the coverage does not depend on the machine's thread count). About
//! 2,200 planned bootstrap rounds at two threads (each test prints its count): about 110 s
//! of CPU here, 80 s of wall time on two otherwise idle cores.
//!
//! The full sweep (8 and 16 bits, every operation, every algorithm, canonical and radix-4
//! operands, every pair of edge values; about an hour on two cores) is ignored:
//!
//! ```text
//! cargo test --release -p encint --test typed_edges_real -- --ignored --nocapture
//! ```

use std::sync::OnceLock;
use std::time::Instant;

use encint::typed::{decrypt_typed, encrypt_typed_as, Algorithm, EncTyped, Form, IntType, Op};
use encint::{ClientKey, Server, DEFAULT_PARAMETERS};

fn keys() -> &'static (ClientKey, Server) {
    static KEYS: OnceLock<(ClientKey, Server)> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        (client, Server::new(key))
    })
}

/// The reference on Rust's native type `$t` (its unsigned twin `$u` reads shift amounts):
/// `args` are values of the type (the select condition 0 or 1).
macro_rules! native {
    ($name:ident, $t:ty, $u:ty) => {
        fn $name(op: Op, args: &[i128]) -> i128 {
            use Op::*;
            let bits = <$t>::BITS;
            let v = |k: usize| -> $t { <$t>::try_from(args[k]).expect("a value of the type") };
            // An encrypted amount: the unsigned pattern of the operand.
            let amount = |k: usize| -> u32 { ((v(k) as u128) & u128::from(<$u>::MAX)) as u32 };
            let negative = |x: $t| (x as i128) < 0;
            let shl = |x: $t, s: u32| x.checked_shl(s).unwrap_or(0);
            let shr = |x: $t, s: u32| x.checked_shr(s).unwrap_or(if negative(x) { !0 } else { 0 });
            let div = |x: $t, d: $t| {
                if d == 0 {
                    if negative(x) {
                        1
                    } else {
                        !0
                    }
                } else {
                    x.wrapping_div(d)
                }
            };
            let rem = |x: $t, d: $t| if d == 0 { x } else { x.wrapping_rem(d) };
            let scalar = |k: i128| k as $t;
            let r: $t = match op {
                Add => v(0).wrapping_add(v(1)),
                Sub => v(0).wrapping_sub(v(1)),
                Neg => v(0).wrapping_neg(),
                Mul => v(0).wrapping_mul(v(1)),
                Square => v(0).wrapping_mul(v(0)),
                ScalarMul(k) => v(0).wrapping_mul(scalar(k)),
                And => v(0) & v(1),
                Or => v(0) | v(1),
                Xor => v(0) ^ v(1),
                Not => !v(0),
                Shl(k) => shl(v(0), k),
                Shr(k) => shr(v(0), k),
                Rotl(k) => v(0).rotate_left(k % bits),
                Rotr(k) => v(0).rotate_right(k % bits),
                ShlVar => shl(v(0), amount(1)),
                ShrVar => shr(v(0), amount(1)),
                RotlVar => v(0).rotate_left(amount(1) % bits),
                RotrVar => v(0).rotate_right(amount(1) % bits),
                Select => {
                    if args[0] == 1 {
                        v(1)
                    } else {
                        v(2)
                    }
                }
                Min => v(0).min(v(1)),
                Max => v(0).max(v(1)),
                Op::LT => return i128::from(v(0) < v(1)),
                Op::LE => return i128::from(v(0) <= v(1)),
                Op::GT => return i128::from(v(0) > v(1)),
                Op::GE => return i128::from(v(0) >= v(1)),
                Op::EQ => return i128::from(v(0) == v(1)),
                Op::NE => return i128::from(v(0) != v(1)),
                Div => div(v(0), v(1)),
                Rem => rem(v(0), v(1)),
                DivScalar(k) => div(v(0), scalar(k)),
                RemScalar(k) => rem(v(0), scalar(k)),
                Cast(to) => {
                    // Rust's `as` from the exact value (the same as from the native type).
                    let x = args[0];
                    return match (to.bits, to.signed) {
                        (8, false) => i128::from(x as u8),
                        (8, true) => i128::from(x as i8),
                        (16, false) => i128::from(x as u16),
                        (16, true) => i128::from(x as i16),
                        (32, false) => i128::from(x as u32),
                        (32, true) => i128::from(x as i32),
                        _ => panic!("no native type for {to}"),
                    };
                }
                CountOnes => return i128::from(v(0).count_ones()),
                CountZeros => return i128::from(v(0).count_zeros()),
                LeadingZeros => return i128::from(v(0).leading_zeros()),
                LeadingOnes => return i128::from(v(0).leading_ones()),
                TrailingZeros => return i128::from(v(0).trailing_zeros()),
                TrailingOnes => return i128::from(v(0).trailing_ones()),
                // The highest one bit of the pattern (0 for 0).
                Ilog2 => return i128::from((v(0) as $u).checked_ilog2().unwrap_or(0)),
                ReverseBits => v(0).reverse_bits(),
                MulLow | FloorDiv | Mod | Abs | Signum | Round(_) => {
                    panic!("{op} is not an operation of the typed planner")
                }
            };
            i128::from(r)
        }
    };
}

native!(native_u8, u8, u8);
native!(native_i8, i8, u8);
native!(native_u16, u16, u16);
native!(native_i16, i16, u16);

/// `op` on values of `ty` by Rust's native type of that width.
fn native(op: Op, ty: IntType, args: &[i128]) -> i128 {
    match (ty.bits, ty.signed) {
        (8, false) => native_u8(op, args),
        (8, true) => native_i8(op, args),
        (16, false) => native_u16(op, args),
        (16, true) => native_i16(op, args),
        _ => panic!("no native type for {ty}"),
    }
}

/// The value of `ty` with the bit pattern `pattern` (its low `ty.bits` bits).
fn pattern(ty: IntType, pattern: u32) -> i128 {
    ty.wrap(i128::from(pattern))
}

/// The edge values of the type: `MIN`, `MAX`, `0`, `-1` (`MAX` unsigned) and `1`,
/// without repeats.
fn edges(ty: IntType) -> Vec<i128> {
    let mut e = Vec::new();
    for v in [ty.min(), ty.max(), 0, ty.wrap(-1), 1] {
        if !e.contains(&v) {
            e.push(v);
        }
    }
    e
}

/// Encrypts `args` as operands of `op` on `ty` in `form` (the select condition a canonical
/// boolean).
fn operands(op: Op, ty: IntType, form: Form, args: &[i128]) -> Vec<EncTyped> {
    let (client, _) = keys();
    args.iter()
        .enumerate()
        .map(|(k, &v)| {
            if op == Op::Select && k == 0 {
                encrypt_typed_as(client, v, IntType::BOOL, Form::Canonical).unwrap()
            } else {
                encrypt_typed_as(client, v, ty, form).unwrap()
            }
        })
        .collect()
}

/// Runs `op` with `algorithm` on encrypted `args`, checks the cost against the plan and the
/// value against the native reference; returns the planned rounds at two threads.
fn run_one(op: Op, algorithm: Algorithm, ty: IntType, operands: &[EncTyped], args: &[i128]) -> u64 {
    let (client, server) = keys();
    let refs: Vec<&EncTyped> = operands.iter().collect();
    let plan = encint::typed::plan(
        server.arith(),
        op,
        ty,
        &server.typed_plan(op, &refs).unwrap().forms,
        2,
    )
    .unwrap();
    let estimate = plan
        .estimates
        .iter()
        .find(|e| e.algorithm == algorithm)
        .unwrap_or_else(|| panic!("{op} {ty}: no {algorithm:?} algorithm"));
    let (out, cost) = server.typed_apply_with(op, algorithm, &refs).unwrap();
    assert_eq!(
        cost, estimate.cost,
        "{op} {ty} {algorithm:?}: cost as planned"
    );
    assert_eq!(out.ty(), op.result_type(ty));
    let got = decrypt_typed(client, &out).unwrap();
    let want = native(op, ty, args);
    let forms: Vec<Form> = operands.iter().map(EncTyped::form).collect();
    assert_eq!(
        got, want,
        "{op} {ty} {algorithm:?} on {args:?} ({forms:?}): encrypted vs native"
    );
    estimate.rounds
}

/// [`run_one`] on fresh operands in `form`.
fn check(op: Op, algorithm: Algorithm, ty: IntType, form: Form, args: &[i128]) -> u64 {
    run_one(op, algorithm, ty, &operands(op, ty, form, args), args)
}

/// Runs `body` on the unsigned and the signed type of `bits` bits and reports the rounds it
/// returns, in total, under `name`.
fn sweep(name: &str, bits: usize, mut body: impl FnMut(IntType) -> u64) {
    let start = Instant::now();
    let rounds: u64 = types(bits).into_iter().map(&mut body).sum();
    eprintln!("{name}: {rounds} rounds in {:?}", start.elapsed());
}

fn types(bits: usize) -> [IntType; 2] {
    [
        IntType::new(bits, false).unwrap(),
        IntType::new(bits, true).unwrap(),
    ]
}

/// Pairs that a comparison must tell apart at every level of its tree: the extremes,
/// equal values, `0` against `-1` both ways, values that differ only in the lowest bit, only
/// in a high bit (a merge above the lowest block decides), and only in the top bit.
fn comparison_pairs(ty: IntType) -> Vec<(i128, i128)> {
    let (mn, mx, m1) = (ty.min(), ty.max(), ty.wrap(-1));
    let c = 0x2c5a_u32;
    vec![
        (mn, mx),
        (mx, mx),
        (0, m1),
        (m1, 0),
        (mx - 1, mx),
        (pattern(ty, c), pattern(ty, c ^ (1 << (ty.bits - 2)))),
        (pattern(ty, c ^ (1 << (ty.bits - 1))), pattern(ty, c)),
    ]
}

/// Comparisons, min and max at 16 bits on canonical operands (the comparison tree of the
/// block algorithm, its wide merges included) and on radix-4 blocks.
#[test]
fn comparisons_min_max_at_sixteen_bits_on_edges() {
    sweep("comparisons", 16, |ty| {
        let mut rounds = 0;
        for (a, b) in comparison_pairs(ty) {
            // `le`, `gt`, `ne` and `min` (the same trees with other predicates) run in the
            // ignored sweep.
            for op in [Op::LT, Op::GE, Op::EQ, Op::Max] {
                rounds += check(op, Algorithm::Blocks, ty, Form::Canonical, &[a, b]);
            }
            rounds += check(Op::LT, Algorithm::Blocks, ty, Form::Radix4, &[a, b]);
        }
        rounds
    });
}

/// Addition, subtraction, product, square, negation, scalar product, bitwise logic, select
/// and casts at 16 bits on canonical operands: overflow both ways at the edges.
#[test]
fn arithmetic_at_sixteen_bits_on_edges() {
    use Algorithm::{Bits, Blocks};
    sweep("arithmetic", 16, |ty| {
        let mut rounds = 0;
        let mut run = |op: Op, algorithm: Algorithm, args: &[i128]| {
            rounds += check(op, algorithm, ty, Form::Canonical, args);
        };
        let (mn, mx, m1) = (ty.min(), ty.max(), ty.wrap(-1));
        let c = pattern(ty, 0xb2c5);
        let d = pattern(ty, 0x6e39);
        for (a, b) in [(mx, 1), (mn, m1)] {
            run(Op::Add, Bits, &[a, b]);
            run(Op::Sub, Bits, &[b, a]);
        }
        for (a, b) in [(mn, m1), (c, d)] {
            run(Op::Mul, Blocks, &[a, b]);
        }
        for op in [Op::And, Op::Or, Op::Xor] {
            run(op, Bits, &[c, d]);
        }
        run(Op::Select, Bits, &[1, mn, mx]);
        run(Op::Select, Bits, &[0, mn, mx]);
        for a in [mn, m1] {
            run(Op::Neg, Bits, &[a]);
        }
        for a in [mn, mx, m1, c] {
            for to in [
                IntType::new(8, !ty.signed).unwrap(),
                IntType::new(32, true).unwrap(),
            ] {
                run(Op::Cast(to), Bits, &[a]);
            }
        }
        run(Op::Square, Blocks, &[c]);
        for k in [-3, 805] {
            run(Op::ScalarMul(k), Bits, &[c]);
        }
        rounds
    });
}

/// Shifts and rotations by an encrypted amount at 16 bits (the binary stages of the block
/// algorithm): an amount with several stage bits set and the width itself (shifts), all
/// ones (rotations by 15).
#[test]
fn shifts_by_an_encrypted_amount_at_sixteen_bits() {
    sweep("shifts", 16, |ty| {
        let mut rounds = 0;
        let x = pattern(ty, 0xb2c5); // negative when signed
        for s in [11, 16] {
            for op in [Op::ShlVar, Op::ShrVar] {
                rounds += check(op, Algorithm::Blocks, ty, Form::Canonical, &[x, s]);
            }
        }
        // All ones: 15, every stage.
        for op in [Op::RotlVar, Op::RotrVar] {
            rounds += check(
                op,
                Algorithm::Blocks,
                ty,
                Form::Canonical,
                &[x, ty.wrap(-1)],
            );
        }
        rounds
    });
}

/// Division and remainder at 8 bits on the edges (division by zero, `MIN / -1`, truncation
/// toward zero with a negative divisor), and division by a clear scalar (the reciprocal) at
/// 16 bits (16-bit division by an encrypted divisor runs in the ignored sweep).
#[test]
fn division_on_edges_at_eight_and_sixteen_bits() {
    sweep("division", 8, |ty| {
        let mut rounds = 0;
        let pairs: Vec<(i128, i128)> = if ty.signed {
            vec![(ty.min(), -1), (7, -2), (-5, 0)]
        } else {
            vec![(ty.max(), 0)]
        };
        for (a, b) in pairs {
            rounds += check(Op::Div, Algorithm::Blocks, ty, Form::Canonical, &[a, b]);
            rounds += check(Op::Rem, Algorithm::Blocks, ty, Form::Canonical, &[a, b]);
        }
        rounds
    });
    sweep("division by a scalar", 16, |ty| {
        let mut rounds = 0;
        let k = if ty.signed { -7 } else { 7 };
        for op in [Op::DivScalar(k), Op::RemScalar(k)] {
            rounds += check(op, Algorithm::Magic, ty, Form::Canonical, &[ty.min()]);
        }
        rounds
    });
}

/// Every operation with every algorithm at 8 and 16 bits, unsigned and signed, on
/// canonical and radix-4 operands, on every pair of edge values (plus a middle value), for
/// scalars at the edges too.
#[test]
#[ignore = "heavy: every operation and algorithm on the edges at 8 and 16 bits (about an hour)"]
fn every_operation_and_algorithm_on_edges() {
    let start = Instant::now();
    let mut rounds = 0;
    for bits in [8, 16] {
        for ty in types(bits) {
            let mut values = edges(ty);
            values.push(pattern(ty, 0xb2c5));
            let mut ops: Vec<Op> = Op::typed_samples()
                .into_iter()
                .filter(|op| {
                    !matches!(
                        op,
                        Op::ScalarMul(_)
                            | Op::DivScalar(_)
                            | Op::RemScalar(_)
                            | Op::Shl(_)
                            | Op::Shr(_)
                            | Op::Rotl(_)
                            | Op::Rotr(_)
                    )
                })
                .collect();
            for &k in &values {
                ops.push(Op::ScalarMul(k));
                if k != 0 {
                    ops.push(Op::DivScalar(k));
                    ops.push(Op::RemScalar(k));
                }
            }
            for k in [0, 1, bits as u32 - 1, bits as u32, 200] {
                ops.extend([Op::Shl(k), Op::Shr(k), Op::Rotl(k), Op::Rotr(k)]);
            }
            for to in [8, 16, 32] {
                ops.push(Op::Cast(IntType::new(to, true).unwrap()));
                ops.push(Op::Cast(IntType::new(to, false).unwrap()));
            }
            for op in ops {
                let tuples: Vec<Vec<i128>> = match op.arity() {
                    1 => values.iter().map(|&a| vec![a]).collect(),
                    2 => values
                        .iter()
                        .flat_map(|&a| values.iter().map(move |&b| vec![a, b]))
                        .collect(),
                    _ => values
                        .iter()
                        .flat_map(|&a| [vec![1, a, ty.max()], vec![0, ty.min(), a]])
                        .collect(),
                };
                for form in [Form::Canonical, Form::Radix4] {
                    for args in &tuples {
                        let x = operands(op, ty, form, args);
                        let refs: Vec<&EncTyped> = x.iter().collect();
                        let (_, server) = keys();
                        for e in server.typed_plan(op, &refs).unwrap().estimates {
                            rounds += run_one(op, e.algorithm, ty, &x, args);
                        }
                    }
                }
            }
            eprintln!("{ty}: {rounds} rounds so far, {:?}", start.elapsed());
        }
    }
}
