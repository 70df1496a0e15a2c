//! A differential run of the typed family at every width: random operations and casts on
//! values of every type `u2..=u128`, `i1..=i128` and `bool`, each compiled through the
//! family's dynamic value ([`FheValue`], the path of the Python package and the command
//! line) and run in the clear, against a reference written from the documented semantics
//! (the table of `encint::fhe`): the typed planner's `BigInt` reference for the arithmetic,
//! and here what the family adds to it (a clear operand converted by `as`, shift amounts
//! modulo the width, a cast to `bool` as `x != 0`, `abs(MIN) = MIN`). A sample runs on real
//! keys. The seed is printed; `FHE_WIDTHS_SEED=n` replays one.

use encint::fhe::{compile_with, Compiled, FheValue};
use encint::typed::{IntType, Op};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[path = "common/seed.rs"]
mod seed;
#[path = "../../arith/tests/common/typed_reference.rs"]
mod typed_reference;
use typed_reference::reference;

/// One operation of a case.
#[derive(Debug, Clone, Copy)]
enum Case {
    /// `x op y`, both of the type.
    Binary(Op),
    /// `x op k`, a clear `k` converted to the type.
    Clear(Op, i128),
    /// `x op s` for a shift or rotation, `s` unsigned of the same width.
    Shift(Op),
    /// `x op k` for a shift or rotation by a clear `k`.
    ShiftClear(Op, u32),
    /// `!x`, `-x`.
    Unary(Op),
    /// `x` as `to`.
    Cast(IntType),
    /// `|x|`.
    Abs,
    /// `if c { x } else { y }`.
    Select,
}

const BINARY: [Op; 16] = [
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::And,
    Op::Or,
    Op::Xor,
    Op::Min,
    Op::Max,
    Op::Div,
    Op::Rem,
    Op::LT,
    Op::LE,
    Op::GT,
    Op::GE,
    Op::EQ,
    Op::NE,
];
const SHIFTS: [Op; 4] = [Op::ShlVar, Op::ShrVar, Op::RotlVar, Op::RotrVar];

fn unsigned(bits: usize) -> IntType {
    IntType::new(bits, false).expect("a width of the family")
}

/// Every type of the family: `bool`, `u2..=u128`, `i1..=i128`.
fn every_type() -> Vec<IntType> {
    let mut v = vec![IntType::BOOL];
    for bits in 1..=128 {
        if bits > 1 {
            v.push(unsigned(bits));
        }
        v.push(IntType::new(bits, true).unwrap());
    }
    v
}

/// A random case for `ty` (bool: logic, comparisons of equality, casts and selection).
fn case(rng: &mut StdRng, ty: IntType) -> Case {
    if ty == IntType::BOOL {
        return match rng.gen_range(0..6) {
            0 => Case::Binary([Op::And, Op::Or, Op::Xor][rng.gen_range(0..3)]),
            1 => Case::Binary([Op::EQ, Op::NE][rng.gen_range(0..2)]),
            2 => Case::Unary(Op::Not),
            3 => Case::Select,
            _ => Case::Cast(random_type(rng)),
        };
    }
    // Division and shifts by a value build the largest circuits: fewer of them at wide
    // widths.
    let heavy_ok = ty.bits <= 32 || rng.gen_bool(0.15);
    loop {
        let c = match rng.gen_range(0..9) {
            0 | 1 => Case::Binary(BINARY[rng.gen_range(0..BINARY.len())]),
            2 => {
                let op = [
                    Op::Add,
                    Op::Sub,
                    Op::Mul,
                    Op::And,
                    Op::Xor,
                    Op::Div,
                    Op::Rem,
                    Op::LT,
                ][rng.gen_range(0..8)];
                Case::Clear(op, rng.gen_range(-300..300))
            }
            3 => Case::Shift(SHIFTS[rng.gen_range(0..4)]),
            4 => Case::ShiftClear(SHIFTS[rng.gen_range(0..4)], rng.gen_range(0..300)),
            5 => Case::Unary([Op::Not, Op::Neg][rng.gen_range(0..2)]),
            6 | 7 => Case::Cast(random_type(rng)),
            _ => [Case::Abs, Case::Select][rng.gen_range(0..2)],
        };
        let heavy = matches!(
            c,
            Case::Binary(Op::Div | Op::Rem | Op::Mul) | Case::Shift(_)
        );
        let zero_divisor = matches!(c, Case::Clear(Op::Div | Op::Rem, k) if ty.wrap(k) == 0);
        if (heavy_ok || !heavy) && !zero_divisor {
            return c;
        }
    }
}

fn random_type(rng: &mut StdRng) -> IntType {
    let all = every_type();
    all[rng.gen_range(0..all.len())]
}

/// The types of a case's arguments.
fn arguments(c: Case, ty: IntType) -> Vec<IntType> {
    match c {
        Case::Binary(_) => vec![ty, ty],
        // An amount is unsigned of the same width (`bool` for one bit).
        Case::Shift(_) => vec![
            ty,
            IntType {
                bits: ty.bits,
                signed: false,
            },
        ],
        Case::Select => vec![IntType::BOOL, ty, ty],
        _ => vec![ty],
    }
}

/// The case compiled on values of its argument types (one to three of them).
enum Runner {
    One(Compiled<FheValue, FheValue>),
    Two(Compiled<(FheValue, FheValue), FheValue>),
    Three(Compiled<(FheValue, FheValue, FheValue), FheValue>),
}

impl Runner {
    fn run_clear(&self, args: &[i128]) -> encint::Result<Vec<i128>> {
        match self {
            Runner::One(f) => f.run_clear(args),
            Runner::Two(f) => f.run_clear(args),
            Runner::Three(f) => f.run_clear(args),
        }
    }

    fn run(&self, x: &[FheValue]) -> encint::Result<FheValue> {
        match self {
            Runner::One(f) => f.run(&x[0]),
            Runner::Two(f) => f.run(&(x[0].clone(), x[1].clone())),
            Runner::Three(f) => f.run(&(x[0].clone(), x[1].clone(), x[2].clone())),
        }
    }
}

/// The case on its arguments, one operation of the family.
fn apply(c: Case, ty: IntType, x: &[&FheValue]) -> FheValue {
    let r = match c {
        Case::Binary(op) | Case::Shift(op) => x[0].binary(op, x[1]),
        Case::Clear(op, k) => x[0].binary(op, k),
        Case::ShiftClear(op, k) => x[0].binary(op, k),
        Case::Unary(op) => x[0].unary(op),
        Case::Cast(to) => x[0].unary(Op::Cast(to)),
        Case::Abs => x[0].abs(),
        Case::Select => x[0].select(x[1], x[2]),
    };
    r.unwrap_or_else(|e| panic!("{c:?} on {ty}: {e}"))
}

/// The case compiled on values of its argument types.
fn compiled(c: Case, ty: IntType) -> Runner {
    let t = arguments(c, ty);
    let built = match t.len() {
        1 => compile_with(t[0], move |x: FheValue| apply(c, ty, &[&x])).map(Runner::One),
        2 => compile_with((t[0], t[1]), move |(x, y): (FheValue, FheValue)| {
            apply(c, ty, &[&x, &y])
        })
        .map(Runner::Two),
        _ => compile_with(
            (t[0], t[1], t[2]),
            move |(x, y, z): (FheValue, FheValue, FheValue)| apply(c, ty, &[&x, &y, &z]),
        )
        .map(Runner::Three),
    };
    built.unwrap_or_else(|e| panic!("{c:?} on {ty}: {e}"))
}

/// The documented result of the case on `args`.
fn expected(c: Case, ty: IntType, args: &[i128]) -> i128 {
    let n = ty.bits as u128;
    let amount = |s: i128| (s as u128 % n) as i128;
    let x = args[0];
    match c {
        Case::Binary(op) => reference(op, ty, args),
        Case::Clear(op, k) => reference(op, ty, &[x, ty.wrap(k)]),
        Case::Shift(op) => reference(op, ty, &[x, amount(args[1])]),
        Case::ShiftClear(op, k) => {
            let k = (u128::from(k) % n) as u32;
            let clear = match op {
                Op::ShlVar => Op::Shl(k),
                Op::ShrVar => Op::Shr(k),
                Op::RotlVar => Op::Rotl(k),
                _ => Op::Rotr(k),
            };
            reference(clear, ty, &[x])
        }
        Case::Unary(op) => reference(op, ty, &[x]),
        Case::Cast(to) if to == IntType::BOOL => i128::from(x != 0),
        Case::Cast(to) => to.wrap(x),
        Case::Abs if ty.signed && x != ty.min() => x.abs(),
        Case::Abs => x,
        Case::Select => {
            if args[0] != 0 {
                args[1]
            } else {
                args[2]
            }
        }
    }
}

/// Random values of `ty` with its edges: minimum, maximum, zero, one, minus one.
fn values(rng: &mut StdRng, ty: IntType) -> Vec<i128> {
    let mut v = vec![ty.min(), ty.max(), 0];
    if ty.max() >= 1 {
        v.push(1);
    }
    if ty.signed {
        v.push(-1);
    }
    for _ in 0..3 {
        let r: i128 = rng.r#gen();
        v.push(if ty.signed {
            ty.wrap(r)
        } else {
            ty.wrap(r) & ty.max()
        });
    }
    v
}

fn seed() -> u64 {
    seed::seed("FHE_WIDTHS_SEED", "fhe_widths")
}

/// Four random cases on every type of the family, each on random and edge arguments, in
/// the clear, against the documented semantics.
#[test]
fn every_width_against_the_documented_semantics() {
    let mut rng = StdRng::seed_from_u64(seed());
    let mut checked = 0;
    for ty in every_type() {
        for _ in 0..4 {
            let c = case(&mut rng, ty);
            let f = compiled(c, ty);
            let types = arguments(c, ty);
            for _ in 0..4 {
                let args = pick_arguments(&mut rng, &types);
                let got = f.run_clear(&args).unwrap();
                assert_eq!(got, vec![expected(c, ty, &args)], "{c:?} on {ty} {args:?}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, every_type().len() * 16);
}

/// One argument of each of `types`, drawn from its edge and random values ([`values`]).
fn pick_arguments(rng: &mut StdRng, types: &[IntType]) -> Vec<i128> {
    types
        .iter()
        .map(|&t| {
            let vs = values(rng, t);
            vs[rng.gen_range(0..vs.len())]
        })
        .collect()
}

/// Thirty random cases on real keys, on types of 1 to 24 bits, encrypted as a client does.
#[test]
fn a_sample_on_real_keys() {
    use encint::fhe::set_server_key;
    use encint::{ClientKey, DEFAULT_PARAMETERS};
    let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    set_server_key(key);
    let mut rng = StdRng::seed_from_u64(seed());
    let narrow: Vec<IntType> = every_type().into_iter().filter(|t| t.bits <= 24).collect();
    for _ in 0..30 {
        let ty = narrow[rng.gen_range(0..narrow.len())];
        let c = case(&mut rng, ty);
        let f = compiled(c, ty);
        let types = arguments(c, ty);
        let args = pick_arguments(&mut rng, &types);
        let x: Vec<FheValue> = args
            .iter()
            .zip(&types)
            .map(|(&v, &t)| FheValue::encrypt(v, t, &client).unwrap())
            .collect();
        let got = f.run(&x).unwrap().decrypt(&client).unwrap();
        assert_eq!(got, expected(c, ty, &args), "{c:?} on {ty} {args:?}");
    }
}

/// Clear divisors of `u128` above `i128::MAX`, which travel as their negative patterns
/// like every clear operand (`Clear::pattern`): `x / k` and `x % k` on values reached
/// above `i128::MAX` by an addition, against `u128` arithmetic (they were refused as
/// "scalar -1 is not a value of the type" for `k = u128::MAX`).
#[test]
fn u128_clear_divisors_above_i128_max() {
    use encint::fhe::{compile, FheUint128};
    let max = i128::MAX as u128;
    for k in [1u128 << 127, (1 << 127) + 1, u128::MAX - 4, u128::MAX, 3] {
        let div = compile(move |(x, y): (FheUint128, FheUint128)| &(&x + &y) / k).unwrap();
        let rem = compile(move |(x, y): (FheUint128, FheUint128)| &(&x + &y) % k).unwrap();
        for (x, y) in [
            (max, max),
            (max, 1),
            (max, 0),
            (5, 7),
            (1 << 126, (1 << 126) + 3),
        ] {
            let s = x + y;
            let args = [x as i128, y as i128];
            let q = div.run_clear(&args).unwrap();
            let r = rem.run_clear(&args).unwrap();
            assert_eq!(q, vec![(s / k) as i128], "({x} + {y}) / {k}");
            assert_eq!(r, vec![(s % k) as i128], "({x} + {y}) % {k}");
        }
    }
}
