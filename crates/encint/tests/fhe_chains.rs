//! Chains of linear operations inside compiled functions (subtractions, negations,
//! products by clear values, shifts left, clear constants, products of two values feeding
//! sums): each program compiled whole, run by the clear executor (the circuit's own
//! answer, bootstrap by bootstrap) against the same program in plain Rust wrapping
//! arithmetic, on random and edge inputs; and the rewriting's cost against the same
//! function traced operation by operation.

use encint::fhe::{
    compile, compile_for, Compiled, FheInt16, FheInt8, FheUint16, FheUint32, FheUint8, Values,
};
use encint::typed::Form;
use rand::{Rng, SeedableRng};

/// Inputs of `arity` values in `lo..=hi`: random ones and the edges.
fn inputs(seed: u64, arity: usize, lo: i128, hi: i128) -> Vec<Vec<i128>> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut v: Vec<Vec<i128>> = (0..12)
        .map(|_| (0..arity).map(|_| rng.gen_range(lo..=hi)).collect())
        .collect();
    for e in [lo, hi, 0, 1] {
        v.push(vec![e; arity]);
    }
    v
}

/// `f` compiled for arguments in canonical bits (`encrypt_as(.., Form::Canonical)`), the
/// form the rewriting of linear chains works on: their bits join one counter tree.
fn on_bits<A, O>(f: impl Fn(A) -> O + Send + Sync + 'static) -> Compiled<A, O>
where
    A: Values,
    A::Layout: Default,
    O: Values,
{
    let layout = A::Layout::default();
    let forms = vec![Form::Canonical; A::leaf_types(&layout).len()];
    compile_for(layout, &forms, f).unwrap()
}

/// `f`'s clear run against `want` on every input of `arity` values in `lo..=hi`.
fn check<A: Values, O: Values>(
    name: &str,
    f: &Compiled<A, O>,
    arity: usize,
    (lo, hi): (i128, i128),
    want: impl Fn(&[i128]) -> i128,
) {
    for x in inputs(name.len() as u64, arity, lo, hi) {
        assert_eq!(f.run_clear(&x).unwrap(), vec![want(&x)], "{name} on {x:?}");
    }
}

/// Asserts that `f` costs fewer bootstraps than `g`.
fn assert_cheaper<A: Values, O: Values, B: Values, P: Values>(
    f: &Compiled<A, O>,
    g: &Compiled<B, P>,
) {
    let (a, b) = (f.cost(), g.cost());
    assert!(a.bootstraps < b.bootstraps, "{a:?} vs {b:?}");
}

const U8: (i128, i128) = (0, 255);
const I8: (i128, i128) = (-128, 127);
const U16: (i128, i128) = (0, 65535);
const I16: (i128, i128) = (-32768, 32767);

#[test]
fn linear_chains_match_wrapping_arithmetic() {
    let f = compile(|(a, b, c): (FheUint8, FheUint8, FheUint8)| &(&(&a - &b) + &c) - 7u8).unwrap();
    check("a-b+c-7 u8", &f, 3, U8, |x| {
        (x[0] as u8)
            .wrapping_sub(x[1] as u8)
            .wrapping_add(x[2] as u8)
            .wrapping_sub(7) as i128
    });
    let f = compile(|(a, b): (FheInt8, FheInt8)| &(&(&a * 3i8) - &(&b << 2u32)) + -5i8).unwrap();
    check("3a-4b-5 i8", &f, 2, I8, |x| {
        (x[0] as i8)
            .wrapping_mul(3)
            .wrapping_sub((x[1] as i8).wrapping_shl(2))
            .wrapping_add(-5) as i128
    });
    let f = compile(|(a, b): (FheInt16, FheInt16)| &(-&a) + &(&(&b * -300i16) - &a)).unwrap();
    check("-a+(-300b-a) i16", &f, 2, I16, |x| {
        (x[0] as i16)
            .wrapping_neg()
            .wrapping_add((x[1] as i16).wrapping_mul(-300).wrapping_sub(x[0] as i16))
            as i128
    });
    // A value met twice is one term: (a + b) - b is a, at no cost.
    let f = compile(|(a, b): (FheUint16, FheUint16)| &(&a + &b) - &b).unwrap();
    check("(a+b)-b u16", &f, 2, U16, |x| x[0]);
    assert_eq!(f.cost().bootstraps, 0, "{:?}", f.cost());
    // A running value used twice: the chain does not lose the first use.
    let f = compile(|(a, b, c): (FheUint16, FheUint16, FheUint16)| {
        let s = &(&a * 5u16) + &b;
        &(&s ^ &c) + &(&s * 9u16)
    })
    .unwrap();
    check("s=5a+b; (s^c)+9s u16", &f, 3, U16, |x| {
        let s = (x[0] as u16).wrapping_mul(5).wrapping_add(x[1] as u16);
        ((s ^ x[2] as u16).wrapping_add(s.wrapping_mul(9))) as i128
    });
}

#[test]
fn products_feeding_sums_match_wrapping_arithmetic() {
    let f = compile(
        |(x, y, z, w): (FheUint16, FheUint16, FheUint16, FheUint16)| {
            &(&(&x * &y) + &(&z * &w)) + 11u16
        },
    )
    .unwrap();
    check("xy+zw+11 u16", &f, 4, U16, |v| {
        let m = |a: i128, b: i128| (a as u16).wrapping_mul(b as u16);
        m(v[0], v[1]).wrapping_add(m(v[2], v[3])).wrapping_add(11) as i128
    });
    let f = compile(|(x, y): (FheInt16, FheInt16)| &(&(&x * &x) - &y) + &(&x * &y)).unwrap();
    check("x²-y+xy i16", &f, 2, I16, |v| {
        let (x, y) = (v[0] as i16, v[1] as i16);
        x.wrapping_mul(x)
            .wrapping_sub(y)
            .wrapping_add(x.wrapping_mul(y)) as i128
    });
    let f =
        compile(|x: FheUint16| &(&(&(&(&(&x * 3u16) + 7u16) * &x) + 11u16) * &x) + 5u16).unwrap();
    check("horner u16", &f, 1, U16, |v| {
        let x = v[0] as u16;
        let h = |a: u16, k: u16| a.wrapping_mul(x).wrapping_add(k);
        h(h(x.wrapping_mul(3).wrapping_add(7), 11), 5) as i128
    });
}

#[test]
fn the_mix_of_a_hash_round_matches_wrapping_arithmetic() {
    let f = compile(|(x, key): (FheUint32, FheUint32)| {
        &(&(&(&x ^ &(&x >> 7u32)) * 0x9E37u32) + &(&x << 3u32)) ^ &key
    })
    .unwrap();
    check("hash round u32", &f, 2, (0, u32::MAX as i128), |v| {
        let (x, key) = (v[0] as u32, v[1] as u32);
        ((x ^ (x >> 7)).wrapping_mul(0x9E37).wrapping_add(x << 3) ^ key) as i128
    });
}

/// The rewriting saves on each of these programs on canonical bits (estimated rounds at
/// the thread count they were compiled for, then bootstraps), and never costs more than
/// the program traced operation by operation.
#[test]
fn chains_cost_less_than_their_operations() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        let cases: Vec<(&str, encint::Cost, encint::Cost, u64, u64)> = vec![
            {
                let f = on_bits(|x: FheUint16| &(&x * 3u16) + 7u16);
                (
                    "3x+7",
                    f.cost(),
                    f.unoptimised_cost(),
                    f.rounds(2),
                    f.unoptimised_rounds(),
                )
            },
            {
                let f = on_bits(|(x, y): (FheUint16, FheUint16)| &(&x * &y) + 11u16);
                (
                    "xy+11",
                    f.cost(),
                    f.unoptimised_cost(),
                    f.rounds(2),
                    f.unoptimised_rounds(),
                )
            },
            {
                let f = on_bits(|(t, x): (FheUint32, FheUint32)| &(&t * 0x9E37u32) + &(&x << 3u32));
                (
                    "t*k+(x<<3)",
                    f.cost(),
                    f.unoptimised_cost(),
                    f.rounds(2),
                    f.unoptimised_rounds(),
                )
            },
        ];
        for (name, after, before, r_after, r_before) in cases {
            println!("{name}: {before:?} ({r_before} rounds) -> {after:?} ({r_after} rounds)");
            assert!(
                r_after < r_before,
                "{name}: {r_after} rounds, were {r_before}"
            );
            assert!(after.bootstraps < before.bootstraps, "{name}");
        }
    });
}

/// A product of a value by itself is a square (each cross product built once).
#[test]
fn a_product_of_a_value_by_itself_is_a_square() {
    let square = compile(|x: FheUint16| &x * &x).unwrap();
    let product = compile(|(x, y): (FheUint16, FheUint16)| &x * &y).unwrap();
    check("x*x u16", &square, 1, U16, |v| {
        (v[0] as u16).wrapping_mul(v[0] as u16) as i128
    });
    assert_cheaper(&square, &product);
}

/// Work built twice on the same values is built once: the minimum and the maximum of one
/// pair share their comparison, and bits known to be zero (the top bits of `x >> 7`, on
/// canonical bits) cost no bootstrap in an exclusive or. Both results are checked against plain arithmetic.
#[test]
fn shared_and_known_work_is_not_paid_twice() {
    let both = compile(|(a, b): (FheUint8, FheUint8)| (a.min(&b), a.max(&b))).unwrap();
    let min = compile(|(a, b): (FheUint8, FheUint8)| a.min(&b)).unwrap();
    let max = compile(|(a, b): (FheUint8, FheUint8)| a.max(&b)).unwrap();
    for x in inputs(7, 2, 0, 255) {
        let (a, b) = (x[0], x[1]);
        assert_eq!(
            both.run_clear(&x).unwrap(),
            vec![a.min(b), a.max(b)],
            "{x:?}"
        );
    }
    let apart = min.cost().bootstraps + max.cost().bootstraps;
    assert!(
        both.cost().bootstraps < apart,
        "{:?} vs {apart}",
        both.cost()
    );

    let shifted = on_bits(|x: FheUint32| &x ^ &(&x >> 7u32));
    let two = on_bits(|(x, y): (FheUint32, FheUint32)| &x ^ &y);
    check("x^(x>>7) u32", &shifted, 1, (0, u32::MAX as i128), |v| {
        let x = v[0] as u32;
        (x ^ (x >> 7)) as i128
    });
    assert!(
        shifted.cost().bootstraps < two.cost().bootstraps,
        "{:?} vs {:?}",
        shifted.cost(),
        two.cost()
    );
}

/// A product of `k·x + c` by `x` itself is `k·x² + c·x`: the square (each cross product
/// built once) and one reduction, cheaper than the product of two values; checked against
/// plain arithmetic in both factor orders, signed and unsigned, and against the same
/// product with `x` behind an opaque step (no chain to read).
#[test]
fn a_linear_function_of_a_value_times_the_value_is_a_square_and_a_sum() {
    let f = compile(|x: FheUint16| &(&(&x * 3u16) + 7u16) * &x).unwrap();
    check("(3x+7)x u16", &f, 1, U16, |v| {
        let x = v[0] as u16;
        x.wrapping_mul(3).wrapping_add(7).wrapping_mul(x) as i128
    });
    let g = compile(|x: FheInt16| &x * &(&(&x * -5i16) - 300i16)).unwrap();
    check("x(-5x-300) i16", &g, 1, I16, |v| {
        let x = v[0] as i16;
        x.wrapping_mul(x.wrapping_mul(-5).wrapping_sub(300)) as i128
    });
    let h = compile(|x: FheUint8| &(&(&x << 2u32) + 1u8) * &x).unwrap();
    check("(4x+1)x u8", &h, 1, U8, |v| {
        let x = v[0] as u8;
        x.wrapping_shl(2).wrapping_add(1).wrapping_mul(x) as i128
    });
    // The same product where the linear factor is an exclusive or (no chain): a product
    // of two values.
    let opaque = compile(|(x, y): (FheUint16, FheUint16)| &(&x ^ &y) * &x).unwrap();
    assert_cheaper(&f, &opaque);
}

/// `max(x, 0)` and `min(x, 0)` of signed values (a ReLU and its mirror) read the sign bit
/// instead of comparing: every i8 and random and edge i16 against plain arithmetic, one
/// bootstrap per block in one level; an unsigned value, or a signed one against a
/// non-zero constant, still compares (and still matches).
#[test]
fn a_signed_value_against_zero_is_kept_or_zeroed_by_its_sign() {
    let relu8 = compile(|x: FheInt8| x.max(0i8)).unwrap();
    let mirror8 = compile(|x: FheInt8| x.min(0i8)).unwrap();
    for v in -128..=127i128 {
        assert_eq!(
            relu8.run_clear(&[v]).unwrap(),
            vec![v.max(0)],
            "max({v}, 0)"
        );
        assert_eq!(
            mirror8.run_clear(&[v]).unwrap(),
            vec![v.min(0)],
            "min({v}, 0)"
        );
    }
    let relu16 = compile(|x: FheInt16| x.max(0i16)).unwrap();
    let mirror16 = compile(|x: FheInt16| x.min(0i16)).unwrap();
    check("max(x, 0) i16", &relu16, 1, I16, |x| x[0].max(0));
    check("min(x, 0) i16", &mirror16, 1, I16, |x| x[0].min(0));
    for f in [&relu16, &mirror16] {
        let cost = f.cost();
        assert_eq!((cost.bootstraps, cost.depth), (8, 1), "{cost:?}");
    }
    let unsigned = compile(|x: FheUint16| x.max(0u16)).unwrap();
    check("max(x, 0) u16", &unsigned, 1, U16, |x| x[0]);
    let five = compile(|x: FheInt16| x.max(5i16)).unwrap();
    check("max(x, 5) i16", &five, 1, I16, |x| x[0].max(5));
    let five_min = compile(|x: FheInt16| x.min(-5i16)).unwrap();
    check("min(x, -5) i16", &five_min, 1, I16, |x| x[0].min(-5));
}

/// Two handles that reduce to the same value (`y + 0`, `y << 0`, `y ^ 0`, `y - 0` are `y`)
/// multiplied: the product is the square of `y`, at every width the family has and in
/// sums of such products, against plain arithmetic. The rewriting once recursed forever
/// on them and took the process down.
#[test]
fn identities_multiplied_by_themselves_are_squares() {
    use encint::fhe::{FheInt, FheInt32, FheUint, FheUint32};
    fn sq(bits: u32, signed: bool, v: i128) -> i128 {
        let m = 1i128 << bits;
        let r = (v * v).rem_euclid(m);
        if signed && r >= m / 2 {
            r - m
        } else {
            r
        }
    }
    macro_rules! each {
        ($t:ty, $c:ty, $bits:expr, $signed:expr, $range:expr) => {{
            let forms: [(&str, Compiled<$t, $t>); 4] = [
                (
                    "(y+0)(y+0)",
                    compile(|y: $t| &(&y + (0 as $c)) * &(&y + (0 as $c))).unwrap(),
                ),
                (
                    "(y<<0)(y<<0)",
                    compile(|y: $t| &(&y << 0u32) * &(&y << 0u32)).unwrap(),
                ),
                (
                    "(y^0)(y-0)",
                    compile(|y: $t| &(&y ^ (0 as $c)) * &(&y - (0 as $c))).unwrap(),
                ),
                (
                    "(y*1)(y+0)",
                    compile(|y: $t| &(&y * (1 as $c)) * &(&y + (0 as $c))).unwrap(),
                ),
            ];
            for (name, f) in &forms {
                check(name, f, 1, $range, |v| sq($bits, $signed, v[0]));
            }
        }};
    }
    each!(FheUint8, u8, 8, false, U8);
    each!(FheInt8, i8, 8, true, I8);
    each!(FheUint16, u16, 16, false, U16);
    each!(FheInt16, i16, 16, true, I16);
    each!(FheUint<24>, u32, 24, false, (0, (1 << 24) - 1));
    each!(FheInt<24>, i32, 24, true, (-(1 << 23), (1 << 23) - 1));
    each!(FheUint32, u32, 32, false, (0, u32::MAX as i128));
    each!(
        FheInt32,
        i32,
        32,
        true,
        (i32::MIN as i128, i32::MAX as i128)
    );
    let f = compile(|(x, y): (FheUint16, FheUint16)| {
        &(&(&x + 0u16) * &(&x - 0u16)) + &(&(&y ^ 0u16) * &(&y + 0u16))
    })
    .unwrap();
    check("(x+0)(x-0)+(y^0)(y+0) u16", &f, 2, U16, |v| {
        (sq(16, false, v[0]) + sq(16, false, v[1])) % 65536
    });
}
