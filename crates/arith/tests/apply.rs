//! The operation vocabulary: `Op::parse` reads back every operation's name, and
//! `Arith::apply` on exact integers agrees with plain integer arithmetic (Python's
//! semantics for the bit operators, floor division and shifts) for every operation it
//! builds, on random signed-digit operands run in the clear.

use encint_arith::{Arith, Config, Op, Relation, SInt};
use encint_core::circuit::Builder;
use encint_core::clear;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[test]
fn every_name_parses_back() {
    for op in Op::typed_samples().into_iter().chain(Op::exact_samples()) {
        assert_eq!(Op::parse(op.name(), op.scalar()), Ok(op), "{op}");
    }
    // A cast needs its type; unknown names and missing arguments are errors.
    for bad in [
        ("cast", None),
        ("pow", None),
        ("round", None),
        ("shl", Some(-1)),
    ] {
        assert!(Op::parse(bad.0, bad.1).is_err(), "{bad:?}");
    }
    assert!(Op::parse("add", Some(3)).is_err());
    assert_eq!(Op::parse("div", Some(7)), Ok(Op::DivScalar(7)));
    assert_eq!(Op::parse("ge", None), Ok(Op::Cmp(Relation::Ge)));
}

/// Python's floor division and remainder (the divisor's sign).
fn floor_div_mod(x: i128, y: i128) -> (i128, i128) {
    let (q, r) = (x / y, x % y);
    if r != 0 && (r < 0) != (y < 0) {
        (q - 1, r + y)
    } else {
        (q, r)
    }
}

/// Plain integer reference of an operation of exact integers.
fn reference(op: Op, a: &[i128]) -> i128 {
    let (x, y) = (a[0], a.get(1).copied().unwrap_or(0));
    match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Neg => -x,
        Op::Mul => x * y,
        Op::Square => x * x,
        Op::ScalarMul(k) => x * k,
        Op::Signum => x.signum(),
        Op::Abs => x.abs(),
        Op::Min => x.min(y),
        Op::Max => x.max(y),
        Op::Round(i) => {
            let m = 1i128 << i;
            (x + m / 2).div_euclid(m) * m
        }
        Op::Cmp(r) => i128::from(r.holds(x, y)),
        Op::And => x & y,
        Op::Or => x | y,
        Op::Xor => x ^ y,
        Op::FloorDiv => floor_div_mod(x, y).0,
        Op::Mod => floor_div_mod(x, y).1,
        Op::Shl(k) => x << k,
        Op::Shr(k) => x >> k,
        Op::Select => {
            if x == 1 {
                y
            } else {
                a[2]
            }
        }
        other => panic!("{other} has no exact reference here"),
    }
}

/// Signed binary digits of `v` (`len` of them): the bits of `|v|`, negated when `v < 0`,
/// and at random one `1, -1` pair rewritten as `0, 1` (`2 - 1 = 1`) so that mixed digit
/// signs occur too.
fn digits(rng: &mut StdRng, v: i128, len: usize) -> Vec<i64> {
    let sign = if v < 0 { -1 } else { 1 };
    let mut out: Vec<i64> = (0..len)
        .map(|i| sign * ((v.abs() >> i) & 1) as i64)
        .collect();
    assert!(v.abs() >> len == 0, "{v} does not fit {len} digits");
    // A digit d at position i (i + 1 < len, the next one 0) is 2d at i + 1 minus d at i.
    if let Some(i) = (0..len.saturating_sub(1)).find(|&i| out[i] != 0 && out[i + 1] == 0) {
        if rng.gen_bool(0.5) {
            out[i + 1] = out[i];
            out[i] = -out[i];
        }
    }
    out
}

#[test]
fn apply_agrees_with_plain_integers() {
    let ar = Arith::new(Config { max_qweight: 25 });
    let mut rng = StdRng::seed_from_u64(7);
    let mut ops = Op::exact_samples();
    ops.retain(|op| !matches!(op, Op::MulLow));
    ops.extend([Op::Shl(0), Op::Shr(0), Op::Shr(9), Op::ScalarMul(-3)]);
    for op in ops {
        for _ in 0..12 {
            let len = rng.gen_range(1..=7usize);
            let bound = (1i128 << (len - 1)) - 1;
            let mut vals: Vec<i128> = (0..op.arity())
                .map(|_| rng.gen_range(-bound..=bound))
                .collect();
            if op == Op::Select {
                vals[0] = rng.gen_range(0..=1);
            }
            if matches!(op, Op::FloorDiv | Op::Mod) && vals[1] == 0 {
                vals[1] = 1;
            }
            let mut b = Builder::new();
            let ins = SInt::inputs(&mut b, vals.iter().map(|_| len));
            let out = ar.apply(&mut b, op, &ins).expect("an exact operation");
            let circuit = b.finish(out.digits);
            assert!(circuit.cost().max_qweight <= 25, "{op}: over the budget");
            let inputs: Vec<i64> = vals
                .iter()
                .flat_map(|&v| digits(&mut rng, v, len))
                .collect();
            let (got, _) = clear::run(&circuit, &inputs).unwrap();
            let got = got.iter().rev().fold(0i128, |a, &d| a * 2 + i128::from(d));
            assert_eq!(got, reference(op, &vals), "{op} on {vals:?}");
        }
    }
}

#[test]
fn apply_refuses_what_exact_integers_lack() {
    let ar = Arith::new(Config { max_qweight: 25 });
    let mut b = Builder::new();
    let x = SInt::input(&mut b, 4);
    for op in [Op::Not, Op::Div, Op::ShlVar, Op::Rotl(1), Op::DivScalar(3)] {
        let args = vec![x.clone(); op.arity()];
        assert!(ar.apply(&mut b, op, &args).is_err(), "{op}");
    }
    // The wrong number of operands, and a factor outside i64.
    assert!(ar.apply(&mut b, Op::Add, std::slice::from_ref(&x)).is_err());
    assert!(ar.apply(&mut b, Op::ScalarMul(i128::MAX), &[x]).is_err());
}
