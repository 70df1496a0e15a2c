//! Sums and dot products of arrays as one reduction, compiled into circuits and run by the
//! clear executor (the circuit's own answer, bootstrap by bootstrap) against plain Rust
//! wrapping arithmetic: unsigned and signed types of 8, 16 and 32 bits, arrays of one to
//! thirty-three elements, random values and edge values (all zero, all at the type's
//! maximum, all at its minimum), squares (a vector's dot with itself) and values cast to
//! a wider type first.

use encint::fhe::{
    compile, compile_with, FheArray, FheInt16, FheInt8, FheInteger, FheUint16, FheUint32, FheUint8,
};
use rand::{Rng, SeedableRng};

/// Lists of `n` values in `lo..=hi`: random ones, and the edge lists.
fn cases(rng: &mut impl Rng, n: usize, lo: i128, hi: i128) -> Vec<Vec<i128>> {
    let mut v: Vec<Vec<i128>> = (0..3)
        .map(|_| (0..n).map(|_| rng.gen_range(lo..=hi)).collect())
        .collect();
    v.extend([vec![0; n], vec![hi; n], vec![lo; n]]);
    v
}

/// `v` modulo `2^bits`, read signed or unsigned.
fn wrap(v: i128, bits: u32, signed: bool) -> i128 {
    let m = 1i128 << bits;
    let u = v.rem_euclid(m);
    if signed && u >= m / 2 {
        u - m
    } else {
        u
    }
}

/// The sum of `n` values of `FheInteger<N, S>` compiled, against plain arithmetic.
fn check_sum<const N: usize, const S: bool>(rng: &mut impl Rng, n: usize) {
    let f = compile_with(vec![n], |x: FheArray<FheInteger<N, S>>| {
        x.sum().expect("a non-empty vector")
    })
    .unwrap();
    let (lo, hi) = if S {
        (-(1i128 << (N - 1)), (1i128 << (N - 1)) - 1)
    } else {
        (0, (1i128 << N) - 1)
    };
    for x in cases(rng, n, lo, hi) {
        let want = wrap(x.iter().sum(), N as u32, S);
        assert_eq!(
            f.run_clear(&x).unwrap(),
            vec![want],
            "sum of {x:?}, {N} bits"
        );
    }
}

#[test]
fn sums_match_wrapping_arithmetic() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for n in [1, 2, 3, 16, 33] {
        check_sum::<8, false>(&mut rng, n);
        check_sum::<8, true>(&mut rng, n);
        check_sum::<16, false>(&mut rng, n);
        check_sum::<16, true>(&mut rng, n);
        check_sum::<32, false>(&mut rng, n);
    }
}

#[test]
fn sixteen_u16_are_one_reduction() {
    // The tree of two-operand adders this replaced took 345 bootstraps at depth 11.
    let f = compile_with(vec![16], |x: FheArray<FheUint16>| x.sum().expect("16")).unwrap();
    let cost = f.cost();
    assert!(cost.bootstraps < 200, "{cost:?}");
}

#[test]
fn dots_and_squares_match_wrapping_arithmetic() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    for n in [1usize, 3, 8] {
        let dot = compile_with(
            (vec![n], vec![n]),
            |(x, y): (FheArray<FheInt8>, FheArray<FheInt8>)| x.dot(&y).expect("one length"),
        )
        .unwrap();
        let square = compile_with(vec![n], |x: FheArray<FheInt16>| {
            x.dot(&x).expect("one length")
        })
        .unwrap();
        for (x, y) in cases(&mut rng, n, -128, 127)
            .into_iter()
            .zip(cases(&mut rng, n, -128, 127))
        {
            let want = wrap(x.iter().zip(&y).map(|(a, b)| a * b).sum(), 8, true);
            let args: Vec<i128> = x.iter().chain(&y).copied().collect();
            assert_eq!(dot.run_clear(&args).unwrap(), vec![want], "{x:?}·{y:?}");
        }
        for x in cases(&mut rng, n, -32768, 32767) {
            let want = wrap(x.iter().map(|a| a * a).sum(), 16, true);
            assert_eq!(square.run_clear(&x).unwrap(), vec![want], "{x:?}²");
        }
    }
}

#[test]
fn sum_and_squares_of_widened_values() {
    // The sum and the sum of squares of u16 values cast to u32, as statistics take them.
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    let f = compile_with(vec![16], |x: FheArray<FheUint16>| {
        let items = x
            .items()
            .iter()
            .map(|v| v.cast_into::<FheUint32>())
            .collect();
        let wide = FheArray::new(items, vec![16]).expect("16");
        (wide.sum().expect("16"), wide.dot(&wide).expect("16"))
    })
    .unwrap();
    for x in cases(&mut rng, 16, 0, 65535) {
        let sum = wrap(x.iter().sum(), 32, false);
        let squares = wrap(x.iter().map(|a| a * a).sum(), 32, false);
        assert_eq!(f.run_clear(&x).unwrap(), vec![sum, squares], "{x:?}");
    }
}

#[test]
fn matrix_products_match_wrapping_arithmetic() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    let f = compile_with(
        (vec![2, 3], vec![3, 2]),
        |(a, b): (FheArray<FheUint8>, FheArray<FheUint8>)| a.matmul(&b).expect("2x3 by 3x2"),
    )
    .unwrap();
    for (a, b) in cases(&mut rng, 6, 0, 255)
        .into_iter()
        .zip(cases(&mut rng, 6, 0, 255))
    {
        let mut want = Vec::new();
        for i in 0..2 {
            for j in 0..2 {
                want.push(wrap(
                    (0..3).map(|t| a[i * 3 + t] * b[t * 2 + j]).sum(),
                    8,
                    false,
                ));
            }
        }
        let args: Vec<i128> = a.iter().chain(&b).copied().collect();
        assert_eq!(f.run_clear(&args).unwrap(), want, "{a:?} by {b:?}");
    }
}

/// A chain of `+` over 16 values inside a compiled function is reduced at once: estimated
/// no slower than the array's `sum`, and the same results as wrapping arithmetic.
#[test]
fn a_chain_of_additions_is_one_reduction() {
    let chain = compile_with(vec![16], |x: FheArray<FheUint16>| {
        let items = x.into_items();
        let mut acc = items[0].clone();
        for v in &items[1..] {
            acc = &acc + v;
        }
        acc
    })
    .unwrap();
    let sum = compile_with(vec![16], |x: FheArray<FheUint16>| x.sum().expect("16")).unwrap();
    let t = sum.threads();
    assert!(
        chain.rounds(t) <= sum.rounds(t),
        "chain {:?} ({} rounds), sum {:?} ({} rounds)",
        chain.cost(),
        chain.rounds(t),
        sum.cost(),
        sum.rounds(t)
    );
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    for x in cases(&mut rng, 16, 0, 65535) {
        let want = wrap(x.iter().sum(), 16, false);
        assert_eq!(chain.run_clear(&x).unwrap(), vec![want], "{x:?}");
    }
}

/// When every running sum is an output, reducing each one from all its terms would cost
/// far more than one adder per step: the compiled circuit costs no more than the chain of
/// adders (one compiled addition's bootstraps per step), and each output is right.
#[test]
fn running_sums_cost_no_more_than_their_adders() {
    const N: usize = 12;
    let prefix = compile_with(vec![N], |x: FheArray<FheUint16>| {
        let items = x.into_items();
        let mut acc = items[0].clone();
        let mut out = vec![acc.clone()];
        for v in &items[1..] {
            acc = &acc + v;
            out.push(acc.clone());
        }
        FheArray::new(out, vec![N]).expect("N values")
    })
    .unwrap();
    let add = compile(|(a, b): (FheUint16, FheUint16)| &a + &b).unwrap();
    assert!(
        prefix.cost().bootstraps <= (N as u64 - 1) * add.cost().bootstraps,
        "running sums {:?}, one addition {:?}",
        prefix.cost(),
        add.cost()
    );
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    for x in cases(&mut rng, N, 0, 65535) {
        let want: Vec<i128> = (1..=N)
            .map(|k| wrap(x[..k].iter().sum(), 16, false))
            .collect();
        assert_eq!(prefix.run_clear(&x).unwrap(), want, "{x:?}");
    }
}
