//! Random programs over the typed family, compiled into one circuit each (so the composer
//! chooses sums, dot products, forms and algorithms across the whole program) and run by
//! the clear executor, against the same program evaluated here in Rust's wrapping
//! arithmetic (the reference: `std`'s integers, with TFHE-rs' division by zero written out
//! from the documented semantics). Every register of a program is an output, so a wrong
//! intermediate value fails even when later steps would hide it.
//!
//! A program mixes additions, subtractions, products, clear constants, minimum and
//! maximum, comparisons (order and equality) selecting one of two values, sums and dot
//! products of arrays of intermediate values, bitwise logic, shifts and rotations by clear
//! and by encrypted amounts, division and remainder by values and by clear constants,
//! casts to narrower and wider types and back, absolute values and negation; and the
//! shapes that once broke the rewriting: identities (`x + 0`, `x - 0`, `x * 1`, `x << 0`,
//! `x | 0`, `x ^ 0`), the same value reached by two paths (`(a + b) - b`), repeated
//! operands (`a * a`, `a - a`, a dot product of a vector with itself) and products of two
//! handles of one value (`(a + 0) * (a << 0)`). Registers feed several consumers.
//!
//! Each program is compiled for 1, 2, 3, 16 and 125 threads (125: the GPU backend's
//! planning lanes), since the planner's choices depend on the count: 2,000 programs in all,
//! ten inputs each (random, all zero, all at the maximum, all at the minimum, mixed), and
//! each circuit within the noise budget of the default parameter set (the clear executor
//! does not check it; a server refuses a circuit past it). The seed is printed;
//! `FHE_RANDOM_SEED=n` replays one.

use encint::fhe::{
    compile_with, FheArray, FheInt16, FheInt32, FheInt8, FheUint16, FheUint32, FheUint8,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[path = "common/seed.rs"]
mod seed;

/// One step of a program: a new register from earlier ones (indices) and constants.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    Add(usize, usize),
    Sub(usize, usize),
    Mul(usize, usize),
    MulC(usize, i8),
    AddC(usize, i8),
    Min(usize, usize),
    Max(usize, usize),
    /// `if r[a] < r[b] { r[c] } else { r[d] }`.
    SelectLt(usize, usize, usize, usize),
    /// `if r[a] == r[b] { r[c] } else { r[d] }`.
    SelectEq(usize, usize, usize, usize),
    /// `r[a] + r[b] + r[c]` as the sum of an array.
    Sum3(usize, usize, usize),
    /// `r[a]·r[c] + r[b]·r[d]` as the dot product of two arrays.
    Dot2(usize, usize, usize, usize),
    Xor(usize, usize),
    And(usize, usize),
    Or(usize, usize),
    Not(usize),
    ShrC(usize, u32),
    ShlC(usize, u32),
    RotlC(usize, u32),
    /// `r[a] << r[b]`, `>>`, rotations, by the unsigned value of `r[b]`'s pattern.
    ShlV(usize, usize),
    ShrV(usize, usize),
    RotlV(usize, usize),
    RotrV(usize, usize),
    Div(usize, usize),
    Rem(usize, usize),
    DivC(usize, i8),
    RemC(usize, i8),
    /// To the narrower type of the other signedness and back.
    CastNarrow(usize),
    /// To the wider type of the other signedness and back.
    CastWide(usize),
    Abs(usize),
    Neg(usize),
    /// An identity on `r[a]`: `+ 0`, `- 0`, `* 1`, `<< 0`, `| 0`, `^ 0` (by the index).
    Same(usize, u8),
    /// `(r[a] + r[b]) - r[b]`: `r[a]` by another path.
    Detour(usize, usize),
    /// `(r[a] + 0) * (r[a] << 0)`: two handles of one value multiplied.
    SameSquare(usize),
}

/// A random program over `inputs` registers, `len` steps long; each step reads registers
/// defined before it (recent ones more often, and often one register twice).
pub fn program(rng: &mut StdRng, inputs: usize, len: usize) -> Vec<Step> {
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
        let a = pick(rng);
        let b = if rng.gen_bool(0.15) { a } else { pick(rng) };
        let (c, d) = (pick(rng), pick(rng));
        let small = |rng: &mut StdRng| rng.gen_range(0..20u32);
        let nonzero = |rng: &mut StdRng| match rng.gen_range(-9i8..=9) {
            0 => 3,
            v => v,
        };
        let step = match rng.gen_range(0..36) {
            0 => Step::Add(a, b),
            1 => Step::Sub(a, b),
            2 => Step::Mul(a, b),
            3 => Step::MulC(a, rng.gen_range(-9..=9)),
            4 => Step::AddC(a, rng.r#gen()),
            5 => Step::Min(a, b),
            6 => Step::Max(a, b),
            7 => Step::SelectLt(a, b, c, d),
            8 => Step::SelectEq(a, b, c, d),
            9 => Step::Sum3(a, b, c),
            10 => Step::Dot2(a, b, c, d),
            11 => Step::Xor(a, b),
            12 => Step::And(a, b),
            13 => Step::Or(a, b),
            14 => Step::Not(a),
            15 => Step::ShrC(a, small(rng)),
            16 => Step::ShlC(a, small(rng)),
            17 => Step::RotlC(a, small(rng)),
            18 => Step::ShlV(a, b),
            19 => Step::ShrV(a, b),
            20 => Step::RotlV(a, b),
            21 => Step::RotrV(a, b),
            22 => Step::Div(a, b),
            23 => Step::Rem(a, b),
            24 => Step::DivC(a, nonzero(rng)),
            25 => Step::RemC(a, nonzero(rng)),
            26 => Step::CastNarrow(a),
            27 => Step::CastWide(a),
            28 => Step::Abs(a),
            29 => Step::Neg(a),
            30..=32 => Step::Same(a, rng.gen_range(0..6)),
            33 | 34 => Step::Detour(a, b),
            _ => Step::SameSquare(a),
        };
        steps.push(step);
    }
    steps
}

/// The steps whose circuits are large at 16 bits and more (division and remainder by a
/// value, shifts and rotations by a value): at most `max` of them in a program, so that
/// the sweep stays within CI's time.
pub fn heavy(steps: &[Step]) -> usize {
    steps
        .iter()
        .filter(|s| {
            matches!(
                s,
                Step::Div(..)
                    | Step::Rem(..)
                    | Step::ShlV(..)
                    | Step::ShrV(..)
                    | Step::RotlV(..)
                    | Step::RotrV(..)
            )
        })
        .count()
}

/// The seed of this run: `FHE_RANDOM_SEED`, or one drawn now (printed either way).
pub fn seed(name: &str) -> u64 {
    seed::seed("FHE_RANDOM_SEED", name)
}

/// The program's encrypted and plain evaluators for one type: `$fhe` encrypted and `$t`
/// its plain counterpart, `$ufhe`/`$ut` the unsigned type of its width (shift amounts),
/// `$nfhe`/`$nt` and `$wfhe`/`$wt` a narrower and a wider type of the other signedness.
macro_rules! evaluators {
    ($compile:ident, $plain:ident, $fhe:ty, $t:ty, $ufhe:ty, $ut:ty, $nfhe:ty, $nt:ty, $wfhe:ty, $wt:ty) => {
        /// `steps` compiled into one circuit whose outputs are every register the steps
        /// define, at rayon's current thread count.
        pub fn $compile(
            steps: &[Step],
            inputs: usize,
        ) -> encint::Result<encint::fhe::Compiled<FheArray<$fhe>, FheArray<$fhe>>> {
            let steps = steps.to_vec();
            compile_with(vec![inputs], move |x: FheArray<$fhe>| {
                let mut r: Vec<$fhe> = x.into_items();
                for s in &steps {
                    let amount = |v: &$fhe| v.cast_into::<$ufhe>();
                    let v = match *s {
                        Step::Add(a, b) => &r[a] + &r[b],
                        Step::Sub(a, b) => &r[a] - &r[b],
                        Step::Mul(a, b) => &r[a] * &r[b],
                        Step::MulC(a, c) => &r[a] * (c as $t),
                        Step::AddC(a, c) => &r[a] + (c as $t),
                        Step::Min(a, b) => r[a].min(&r[b]),
                        Step::Max(a, b) => r[a].max(&r[b]),
                        Step::SelectLt(a, b, c, d) => r[a].lt(&r[b]).select(&r[c], &r[d]),
                        Step::SelectEq(a, b, c, d) => r[a].eq(&r[b]).select(&r[c], &r[d]),
                        Step::Sum3(a, b, c) => {
                            FheArray::new(vec![r[a].clone(), r[b].clone(), r[c].clone()], vec![3])
                                .and_then(|v| v.sum())
                                .expect("three values")
                        }
                        Step::Dot2(a, b, c, d) => {
                            let u = FheArray::new(vec![r[a].clone(), r[b].clone()], vec![2]);
                            let w = FheArray::new(vec![r[c].clone(), r[d].clone()], vec![2]);
                            u.and_then(|u| u.dot(&w?)).expect("two vectors of two")
                        }
                        Step::Xor(a, b) => &r[a] ^ &r[b],
                        Step::And(a, b) => &r[a] & &r[b],
                        Step::Or(a, b) => &r[a] | &r[b],
                        Step::Not(a) => !&r[a],
                        Step::ShrC(a, k) => &r[a] >> k,
                        Step::ShlC(a, k) => &r[a] << k,
                        Step::RotlC(a, k) => r[a].rotate_left(k),
                        Step::ShlV(a, b) => &r[a] << &amount(&r[b]),
                        Step::ShrV(a, b) => &r[a] >> &amount(&r[b]),
                        Step::RotlV(a, b) => r[a].rotate_left(&amount(&r[b])),
                        Step::RotrV(a, b) => r[a].rotate_right(&amount(&r[b])),
                        Step::Div(a, b) => &r[a] / &r[b],
                        Step::Rem(a, b) => &r[a] % &r[b],
                        Step::DivC(a, c) => &r[a] / (c as $t),
                        Step::RemC(a, c) => &r[a] % (c as $t),
                        Step::CastNarrow(a) => r[a].cast_into::<$nfhe>().cast_into::<$fhe>(),
                        Step::CastWide(a) => r[a].cast_into::<$wfhe>().cast_into::<$fhe>(),
                        Step::Abs(a) => r[a].abs(),
                        Step::Neg(a) => -&r[a],
                        Step::Same(a, k) => match k {
                            0 => &r[a] + (0 as $t),
                            1 => &r[a] - (0 as $t),
                            2 => &r[a] * (1 as $t),
                            3 => &r[a] << 0u32,
                            4 => &r[a] | (0 as $t),
                            _ => &r[a] ^ (0 as $t),
                        },
                        Step::Detour(a, b) => &(&r[a] + &r[b]) - &r[b],
                        Step::SameSquare(a) => &(&r[a] + (0 as $t)) * &(&r[a] << 0u32),
                    };
                    r.push(v);
                }
                let n = r.len() - inputs;
                FheArray::new(r.split_off(inputs), vec![n]).expect("the registers")
            })
        }

        /// `steps` on `x` in plain wrapping arithmetic: every register the steps define.
        pub fn $plain(steps: &[Step], x: &[$t]) -> Vec<$t> {
            const N: u32 = <$t>::BITS;
            let div = |a: $t, b: $t| -> $t {
                match (b, <$t>::MIN == 0) {
                    (0, true) => <$t>::MAX,
                    (0, false) if a < (0 as $t) => 1 as $t,
                    (0, false) => (0 as $t).wrapping_sub(1 as $t),
                    _ => a.wrapping_div(b),
                }
            };
            let rem = |a: $t, b: $t| -> $t {
                if b == 0 {
                    a
                } else {
                    a.wrapping_rem(b)
                }
            };
            let amount = |v: $t| (v as $ut as u32) % N;
            let mut r: Vec<$t> = x.to_vec();
            for s in steps {
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
                    Step::SelectEq(a, b, c, d) => {
                        if r[a] == r[b] {
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
                    Step::Or(a, b) => r[a] | r[b],
                    Step::Not(a) => !r[a],
                    Step::ShrC(a, k) => r[a].wrapping_shr(k),
                    Step::ShlC(a, k) => r[a].wrapping_shl(k),
                    Step::RotlC(a, k) => r[a].rotate_left(k % N),
                    Step::ShlV(a, b) => r[a].wrapping_shl(amount(r[b])),
                    Step::ShrV(a, b) => r[a].wrapping_shr(amount(r[b])),
                    Step::RotlV(a, b) => r[a].rotate_left(amount(r[b])),
                    Step::RotrV(a, b) => r[a].rotate_right(amount(r[b])),
                    Step::Div(a, b) => div(r[a], r[b]),
                    Step::Rem(a, b) => rem(r[a], r[b]),
                    Step::DivC(a, c) => div(r[a], c as $t),
                    Step::RemC(a, c) => rem(r[a], c as $t),
                    Step::CastNarrow(a) => r[a] as $nt as $t,
                    Step::CastWide(a) => r[a] as $wt as $t,
                    Step::Abs(a) => {
                        if r[a] < (0 as $t) {
                            (0 as $t).wrapping_sub(r[a])
                        } else {
                            r[a]
                        }
                    }
                    Step::Neg(a) => (0 as $t).wrapping_sub(r[a]),
                    Step::Same(a, _) | Step::Detour(a, _) => r[a],
                    Step::SameSquare(a) => r[a].wrapping_mul(r[a]),
                };
                r.push(v);
            }
            r.split_off(x.len())
        }
    };
}

evaluators!(compile_u8, plain_u8, FheUint8, u8, FheUint8, u8, FheInt8, i8, FheInt16, i16);
evaluators!(compile_i8, plain_i8, FheInt8, i8, FheUint8, u8, FheUint8, u8, FheUint16, u16);
evaluators!(
    compile_u16,
    plain_u16,
    FheUint16,
    u16,
    FheUint16,
    u16,
    FheInt8,
    i8,
    FheInt32,
    i32
);
evaluators!(
    compile_i16,
    plain_i16,
    FheInt16,
    i16,
    FheUint16,
    u16,
    FheUint8,
    u8,
    FheUint32,
    u32
);

/// The thread counts every program is compiled for.
const THREADS: [usize; 5] = [1, 2, 3, 16, 125];

/// One rayon pool of each thread count in `counts`.
fn pools(counts: &[usize]) -> Vec<rayon::ThreadPool> {
    counts
        .iter()
        .map(|&n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        })
        .collect()
}

/// `count` random programs of one type, each compiled at every count of [`THREADS`] and
/// run in the clear on ten inputs against the plain evaluator; at most `max_heavy` large
/// steps per program (see [`heavy`]).
macro_rules! sweep {
    ($name:ident, $compile:ident, $plain:ident, $t:ty, $count:expr, $max_heavy:expr) => {
        #[test]
        fn $name() {
            const INPUTS: usize = 4;
            let mut rng = StdRng::seed_from_u64(seed(stringify!($name)));
            let pools = pools(&THREADS);
            let mut programs = 0;
            while programs < $count {
                let len = rng.gen_range(3..=10);
                let steps = program(&mut rng, INPUTS, len);
                if heavy(&steps) > $max_heavy {
                    continue;
                }
                let mut cases: Vec<[$t; INPUTS]> = (0..6).map(|_| rng.r#gen()).collect();
                cases.extend([[0; INPUTS], [<$t>::MAX; INPUTS], [<$t>::MIN; INPUTS]]);
                cases.push([<$t>::MIN, <$t>::MAX, 0, 1]);
                // Each program at one thread count, in turn, so every count sees every
                // kind of program.
                let pool = &pools[programs % pools.len()];
                let threads = THREADS[programs % pools.len()];
                let f = pool.install(|| $compile(&steps, INPUTS)).unwrap();
                assert_eq!(f.threads(), threads);
                // The circuit runs on keys of the default set: no bootstrap input past
                // its noise budget.
                let budget = encint::DEFAULT_PARAMETERS.max_quadratic_weight();
                assert!(
                    f.cost().max_qweight <= budget,
                    "{steps:?} at {threads} threads: {:?}",
                    f.cost()
                );
                for x in cases {
                    let args: Vec<i128> = x.iter().map(|&v| i128::from(v)).collect();
                    let want: Vec<i128> = $plain(&steps, &x).into_iter().map(i128::from).collect();
                    assert_eq!(
                        f.run_clear(&args).unwrap(),
                        want,
                        "{steps:?} at {threads} threads on {x:?}"
                    );
                }
                programs += 1;
            }
        }
    };
}

sweep!(random_programs_on_u8, compile_u8, plain_u8, u8, 600, 3);
sweep!(random_programs_on_i8, compile_i8, plain_i8, i8, 600, 3);
sweep!(random_programs_on_u16, compile_u16, plain_u16, u16, 400, 1);
sweep!(random_programs_on_i16, compile_i16, plain_i16, i16, 400, 1);

/// Twenty random programs on real keys (ten on u8, ten on i8, planned for 1 and 2 threads
/// in turn), their arguments encrypted as a client does, every register decrypted and
/// checked against the plain evaluator; programs over 600 bootstraps are drawn again, to
/// keep the run within CI's time.
#[test]
fn random_programs_on_real_keys() {
    use encint::fhe::set_server_key;
    use encint::{ClientKey, DEFAULT_PARAMETERS};
    const INPUTS: usize = 4;
    let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    set_server_key(server_key);
    let mut rng = StdRng::seed_from_u64(seed("random_programs_on_real_keys"));
    let pools = pools(&[1, 2]);
    let mut done = 0;
    while done < 20 {
        let len = rng.gen_range(3..=8);
        let steps = program(&mut rng, INPUTS, len);
        let pool = &pools[done % 2];
        // The program compiled for `$fhe` (plain `$t`) and run on random inputs against
        // its plain evaluator; `false` (nothing run) for a circuit past 600 bootstraps.
        macro_rules! ran {
            ($compile:ident, $plain:ident, $fhe:ty, $t:ty) => {{
                let f = pool.install(|| $compile(&steps, INPUTS)).unwrap();
                let within = f.cost().bootstraps <= 600;
                if within {
                    let x: [$t; INPUTS] = rng.r#gen();
                    let args = FheArray::<$fhe>::encrypt(&x, &[INPUTS], &client).unwrap();
                    let out: Vec<$t> = f.run(&args).unwrap().decrypt(&client).unwrap();
                    assert_eq!(out, $plain(&steps, &x), "{steps:?} on {x:?}");
                }
                within
            }};
        }
        let ran = if done < 10 {
            ran!(compile_u8, plain_u8, FheUint8, u8)
        } else {
            ran!(compile_i8, plain_i8, FheInt8, i8)
        };
        done += usize::from(ran);
    }
}
