//! Division and remainder by a constant (`bits::div_rem_const`) against plain i128
//! arithmetic: exhaustive at widths 1..=6 (every divisor, every dividend, signed and
//! unsigned), random at widths 1..=64 (divisors 1, ±2^k, the type's extremes, divisors
//! larger than the dividend, random ones), run by the clear evaluator of the boolean IR.

use encint_arith::bits::{self, div_rem_const, Word};
use encint_core::bits::{BitBuilder, BitCircuit};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The circuits `x -> (x / d, x % d)` (each `n` bits): both results from one call, and
/// each alone (the remainder alone computes only the quotient's low bits).
fn circuit(n: usize, signed: bool, d: i128) -> Vec<BitCircuit> {
    [(true, true), (true, false), (false, true)]
        .into_iter()
        .map(|(wq, wr)| {
            let mut b = BitBuilder::new();
            let x = Word::input(&mut b, n);
            let (q, r) =
                div_rem_const(&mut b, &x, d, signed, wq, wr).expect("a divisor of the type");
            assert_eq!((q.is_some(), r.is_some()), (wq, wr));
            // A missing result reads as a word of zeros; `check` skips it.
            let q = q.unwrap_or_else(|| Word::constant(&mut b, 0, n));
            let r = r.unwrap_or_else(|| Word::constant(&mut b, 0, n));
            assert_eq!((q.width(), r.width()), (n, n));
            let mut outs = q.bits;
            outs.extend(r.bits);
            outs.push(b.constant(wq));
            outs.push(b.constant(wr));
            b.finish(outs)
        })
        .collect()
}

fn read(bits_: &[bool], signed: bool) -> i128 {
    if signed {
        bits::from_bits_signed(bits_)
    } else {
        bits::from_bits(bits_) as i128
    }
}

/// Rust's wrapping_div / wrapping_rem at width n, computed in i128 and wrapped.
fn reference(x: i128, d: i128, n: usize, signed: bool) -> (i128, i128) {
    let wrap = |v: i128| {
        let u = v.rem_euclid(1i128 << n);
        if signed && u >= 1i128 << (n - 1) {
            u - (1i128 << n)
        } else {
            u
        }
    };
    (wrap(x / d), wrap(x % d))
}

fn check(cs: &[BitCircuit], n: usize, signed: bool, d: i128, x: i128) {
    let want = reference(x, d, n, signed);
    for c in cs {
        let out = c.eval(&bits::to_bits(x as u128, n)).unwrap();
        let (q, r) = (read(&out[..n], signed), read(&out[n..2 * n], signed));
        let name = format!("{}{n}: {x} / {d}", if signed { "i" } else { "u" });
        if out[2 * n] {
            assert_eq!(q, want.0, "quotient of {name}");
        }
        if out[2 * n + 1] {
            assert_eq!(r, want.1, "remainder of {name}");
        }
    }
}

fn range(n: usize, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1)
    } else {
        (0, (1i128 << n) - 1)
    }
}

#[test]
fn exhaustive_small_widths() {
    for n in 1..=6 {
        for signed in [false, true] {
            let (lo, hi) = range(n, signed);
            for d in (lo..=hi).filter(|&d| d != 0) {
                let c = circuit(n, signed, d);
                for x in lo..=hi {
                    check(&c, n, signed, d, x);
                }
            }
        }
    }
}

/// A divisor of the type: edges, powers of two (and their negatives), divisors above
/// most dividends, random ones.
fn divisor(rng: &mut StdRng, n: usize, signed: bool) -> i128 {
    let (lo, hi) = range(n, signed);
    loop {
        let k = rng.gen_range(0..n as u32);
        let d = match rng.gen_range(0..9) {
            0 => 1,
            1 => -1,
            2 => 1i128 << k,
            3 => -(1i128 << k),
            4 => hi,
            5 => lo,
            6 => hi - rng.gen_range(0..=hi.min(1000)),
            7 => [3, 5, 7, 10, 641, 805, 4095][rng.gen_range(0..7)],
            _ => rng.gen_range(lo..=hi),
        };
        if d != 0 && lo <= d && d <= hi {
            return d;
        }
    }
}

fn dividend(rng: &mut StdRng, n: usize, signed: bool, d: i128) -> i128 {
    let (lo, hi) = range(n, signed);
    let v = match rng.gen_range(0..8) {
        0 => lo,
        1 => hi,
        2 => 0,
        3 => d.clamp(lo, hi),
        // Next to a multiple of d.
        4 => (rng.gen_range(lo..=hi) / d * d + rng.gen_range(-1..=1)).clamp(lo, hi),
        5 => rng.gen_range(-3i128..=3).clamp(lo, hi),
        _ => rng.gen_range(lo..=hi),
    };
    v.clamp(lo, hi)
}

fn random_cases(signed: bool, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut cases = 0;
    let mut widths_seen = std::collections::HashSet::new();
    while cases < 1200 {
        // Widths 1 and 64 always, then random ones; 30 dividends per circuit.
        let n = match widths_seen.len() {
            0 => 64,
            1 => 1,
            _ => rng.gen_range(1..=64),
        };
        widths_seen.insert(n);
        let d = divisor(&mut rng, n, signed);
        let c = circuit(n, signed, d);
        for _ in 0..30 {
            let x = dividend(&mut rng, n, signed, d);
            check(&c, n, signed, d, x);
            cases += 1;
        }
    }
}

#[test]
fn random_unsigned_widths_1_to_64() {
    random_cases(false, 17);
}

#[test]
fn random_signed_widths_1_to_64() {
    random_cases(true, 18);
}

/// Out-of-type divisors, 0 and wide words are refused (the caller keeps the general
/// divider), never a wrong circuit.
#[test]
fn refuses_what_it_cannot_do() {
    let mut b = BitBuilder::new();
    let x = Word::input(&mut b, 8);
    assert!(div_rem_const(&mut b, &x, 0, false, true, true).is_none());
    assert!(div_rem_const(&mut b, &x, 256, false, true, true).is_none());
    assert!(div_rem_const(&mut b, &x, -3, false, true, true).is_none());
    assert!(div_rem_const(&mut b, &x, 128, true, true, true).is_none());
    let wide = Word::input(&mut b, 65);
    assert!(div_rem_const(&mut b, &wide, 3, false, true, true).is_none());
}

/// Cheaper than the general (non-restoring) divider with the divisor as a constant word.
#[test]
fn cheaper_than_the_general_divider() {
    for n in [8, 16, 32] {
        for signed in [false, true] {
            for d in [3i128, 7, 10, -7] {
                if d < 0 && !signed {
                    continue;
                }
                let cost = |general: bool| {
                    let mut b = BitBuilder::new();
                    let x = Word::input(&mut b, n);
                    let q = if general {
                        let dw = Word::constant(&mut b, d as u128, n);
                        if signed {
                            bits::div_rem_signed(&mut b, &x, &dw).0
                        } else {
                            bits::div_rem_unsigned(&mut b, &x, &dw).0
                        }
                    } else {
                        div_rem_const(&mut b, &x, d, signed, true, false)
                            .unwrap()
                            .0
                            .unwrap()
                    };
                    let c = b.finish(q.bits);
                    encint_core::bits::lower(&c).unwrap().cost().bootstraps
                };
                let (ours, general) = (cost(false), cost(true));
                assert!(ours < general, "{n} {signed} /{d}: {ours} vs {general}");
            }
        }
    }
}

/// The widest type with the extreme divisors (quotients of one or two bits, shifts near
/// the 126-bit limit of the search), at the dividends next to their multiples.
#[test]
fn extreme_divisors_at_64_bits() {
    let n = 64;
    let cases: [(bool, i128); 8] = [
        (false, u64::MAX as i128),
        (false, (1i128 << 63) + 1),
        (false, (1i128 << 63) - 1),
        (false, (1i128 << 32) + 1),
        (true, i64::MIN as i128),
        (true, i64::MAX as i128),
        (true, -(i64::MAX as i128)),
        (true, -(1i128 << 31) - 1),
    ];
    for (signed, d) in cases {
        let c = circuit(n, signed, d);
        let (lo, hi) = range(n, signed);
        let mut xs = vec![lo, hi, 0, 1, -1, d, -d, 2 * d, d - 1, d + 1, hi - 1, lo + 1];
        xs.extend([hi / d * d, hi / d * d - 1, lo / d * d, lo / d * d + 1]);
        for x in xs.into_iter().filter(|&x| lo <= x && x <= hi) {
            check(&c, n, signed, d, x);
        }
    }
}
