//! Random programs over the typed family, compiled into one circuit each (so the composer
//! chooses sums, dot products, forms and algorithms across the whole program) and run by
//! the clear executor, against the same program evaluated here in Rust's wrapping
//! arithmetic on `i16` and `u8`. Each program mixes additions, subtractions, products,
//! products and sums by clear constants, minimum and maximum, a comparison selecting one of
//! two values, sums and dot products of arrays built from intermediate values, bitwise
//! operations, shifts and negation; intermediate values feed several consumers. 200
//! programs per type, ten inputs each (random, all zero, all at the maximum, all at the
//! minimum, mixed).

use encint::fhe::{compile_with, FheArray, FheInt16, FheUint8};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// One step of a program: a new register from earlier ones (indices) and constants.
#[derive(Debug, Clone, Copy)]
enum Step {
    Add(usize, usize),
    Sub(usize, usize),
    Mul(usize, usize),
    MulC(usize, i8),
    AddC(usize, i8),
    Min(usize, usize),
    Max(usize, usize),
    /// `if r[a] < r[b] { r[c] } else { r[d] }`.
    SelectLt(usize, usize, usize, usize),
    /// `r[a] + r[b] + r[c]` as the sum of an array.
    Sum3(usize, usize, usize),
    /// `r[a]·r[c] + r[b]·r[d]` as the dot product of two arrays.
    Dot2(usize, usize, usize, usize),
    Xor(usize, usize),
    And(usize, usize),
    ShrC(usize, u32),
    ShlC(usize, u32),
    Neg(usize),
}

/// A random program over `inputs` registers, `len` steps long; each step reads registers
/// defined before it (recent ones more often, so that values are reused).
fn program(rng: &mut StdRng, inputs: usize, len: usize) -> Vec<Step> {
    let mut steps = Vec::with_capacity(len);
    for k in 0..len {
        let defined = inputs + k;
        let pick = |rng: &mut StdRng| {
            if rng.gen_bool(0.5) {
                defined - 1 - rng.gen_range(0..defined.min(3))
            } else {
                rng.gen_range(0..defined)
            }
        };
        let (a, b, c, d) = (pick(rng), pick(rng), pick(rng), pick(rng));
        let step = match rng.gen_range(0..15) {
            0 => Step::Add(a, b),
            1 => Step::Sub(a, b),
            2 => Step::Mul(a, b),
            3 => Step::MulC(a, rng.gen_range(-9..=9)),
            4 => Step::AddC(a, rng.gen()),
            5 => Step::Min(a, b),
            6 => Step::Max(a, b),
            7 => Step::SelectLt(a, b, c, d),
            8 => Step::Sum3(a, b, c),
            9 => Step::Dot2(a, b, c, d),
            10 => Step::Xor(a, b),
            11 => Step::And(a, b),
            12 => Step::ShrC(a, rng.gen_range(0..6)),
            13 => Step::ShlC(a, rng.gen_range(0..6)),
            _ => Step::Neg(a),
        };
        steps.push(step);
    }
    steps
}

/// The program's tests for one type: `$fhe` encrypted, `$t` its plain counterpart.
macro_rules! random_programs {
    ($name:ident, $fhe:ty, $t:ty, $seed:expr) => {
        #[test]
        fn $name() {
            const INPUTS: usize = 4;
            let mut rng = StdRng::seed_from_u64($seed);
            for _ in 0..200 {
                let len = rng.gen_range(3..=12);
                let steps = program(&mut rng, INPUTS, len);
                let encrypted = steps.clone();
                let f = compile_with(vec![INPUTS], move |x: FheArray<$fhe>| {
                    let mut r: Vec<$fhe> = x.into_items();
                    for s in &encrypted {
                        let v = match *s {
                            Step::Add(a, b) => &r[a] + &r[b],
                            Step::Sub(a, b) => &r[a] - &r[b],
                            Step::Mul(a, b) => &r[a] * &r[b],
                            Step::MulC(a, c) => &r[a] * (c as $t),
                            Step::AddC(a, c) => &r[a] + (c as $t),
                            Step::Min(a, b) => r[a].min(&r[b]),
                            Step::Max(a, b) => r[a].max(&r[b]),
                            Step::SelectLt(a, b, c, d) => r[a].lt(&r[b]).select(&r[c], &r[d]),
                            Step::Sum3(a, b, c) => FheArray::new(
                                vec![r[a].clone(), r[b].clone(), r[c].clone()],
                                vec![3],
                            )
                            .and_then(|v| v.sum())
                            .expect("three values"),
                            Step::Dot2(a, b, c, d) => {
                                let u = FheArray::new(vec![r[a].clone(), r[b].clone()], vec![2]);
                                let w = FheArray::new(vec![r[c].clone(), r[d].clone()], vec![2]);
                                u.and_then(|u| u.dot(&w?)).expect("two vectors of two")
                            }
                            Step::Xor(a, b) => &r[a] ^ &r[b],
                            Step::And(a, b) => &r[a] & &r[b],
                            Step::ShrC(a, s) => &r[a] >> s,
                            Step::ShlC(a, s) => &r[a] << s,
                            Step::Neg(a) => -&r[a],
                        };
                        r.push(v);
                    }
                    r.pop().expect("at least one step")
                })
                .unwrap();
                // The whole-circuit rewriting never estimates slower than the program
                // traced operation by operation.
                assert!(
                    f.rounds(f.threads()) <= f.unoptimised_rounds(),
                    "{steps:?}: {} rounds, {} operation by operation",
                    f.rounds(f.threads()),
                    f.unoptimised_rounds()
                );
                let run = |x: [$t; INPUTS]| -> $t {
                    let mut r: Vec<$t> = x.to_vec();
                    for s in &steps {
                        let v = match *s {
                            Step::Add(a, b) => r[a].wrapping_add(r[b]),
                            Step::Sub(a, b) => r[a].wrapping_sub(r[b]),
                            Step::Mul(a, b) => r[a].wrapping_mul(r[b]),
                            Step::MulC(a, c) => r[a].wrapping_mul(c as $t),
                            Step::AddC(a, c) => r[a].wrapping_add(c as $t),
                            Step::Min(a, b) => r[a].min(r[b]),
                            Step::Max(a, b) => r[a].max(r[b]),
                            Step::SelectLt(a, b, c, d) => {
                                if r[a] < r[b] {
                                    r[c]
                                } else {
                                    r[d]
                                }
                            }
                            Step::Sum3(a, b, c) => r[a].wrapping_add(r[b]).wrapping_add(r[c]),
                            Step::Dot2(a, b, c, d) => r[a]
                                .wrapping_mul(r[c])
                                .wrapping_add(r[b].wrapping_mul(r[d])),
                            Step::Xor(a, b) => r[a] ^ r[b],
                            Step::And(a, b) => r[a] & r[b],
                            Step::ShrC(a, s) => r[a] >> s,
                            Step::ShlC(a, s) => r[a].wrapping_shl(s),
                            Step::Neg(a) => r[a].wrapping_neg(),
                        };
                        r.push(v);
                    }
                    r[r.len() - 1]
                };
                let mut cases: Vec<[$t; INPUTS]> = (0..6).map(|_| rng.gen()).collect();
                cases.extend([[0; INPUTS], [<$t>::MAX; INPUTS], [<$t>::MIN; INPUTS]]);
                cases.push([<$t>::MIN, <$t>::MAX, 0, 1]);
                for x in cases {
                    let args: Vec<i128> = x.iter().map(|&v| i128::from(v)).collect();
                    let want = i128::from(run(x));
                    assert_eq!(
                        f.run_clear(&args).unwrap(),
                        vec![want],
                        "{steps:?} on {x:?}"
                    );
                }
            }
        }
    };
}

random_programs!(random_programs_on_i16, FheInt16, i16, 21);
random_programs!(random_programs_on_u8, FheUint8, u8, 22);
