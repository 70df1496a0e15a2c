//! Bit-vector arithmetic in clear mode against u128/i128: every operation on >= 1000
//! random cases over widths 1..=64, exhaustively at widths <= 6, and edge cases; the
//! lowered digit circuits against the boolean clear run; bootstrap counts.

use encint_arith::bits::{self, Word};
use encint_core::bits::{lower, Bit, BitBuilder, BitCircuit};
use rand::{Rng, SeedableRng};

type Build = fn(&mut BitBuilder, &Word, &Word) -> Vec<Bit>;
type Reference = fn(u128, u128, usize) -> u128;

fn mask(w: usize) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

fn signed(v: u128, w: usize) -> i128 {
    bits::from_bits_signed(&bits::to_bits(v, w))
}

fn un(v: i128, w: usize) -> u128 {
    (v as u128) & mask(w)
}

fn word(w: Word) -> Vec<Bit> {
    w.bits
}

fn shift_ref(x: u128, s: u128, w: usize, f: impl Fn(u128, usize) -> u128, big: u128) -> u128 {
    if s >= w as u128 {
        big
    } else {
        f(x, s as usize) & mask(w)
    }
}

/// Signed division of `w`-bit patterns, truncating, as patterns: by zero the quotient is
/// 1 for a negative dividend and -1 otherwise, and the remainder the dividend.
fn signed_div_rem(x: u128, y: u128, w: usize) -> (u128, u128) {
    let (sx, sy) = (signed(x, w), signed(y, w));
    if sy == 0 {
        (un(if sx < 0 { 1 } else { -1 }, w), x)
    } else {
        (un(sx.wrapping_div(sy), w), un(sx.wrapping_rem(sy), w))
    }
}

/// (name, builder, reference, output width given the input width)
type Op = (&'static str, Build, Reference, fn(usize) -> usize);

fn ops() -> Vec<Op> {
    let same = |w: usize| w;
    let one = |_: usize| 1;
    let double = |w: usize| 2 * w;
    // The common shapes: a word of two words, a word of one, a bit of two.
    macro_rules! word {
        ($name:literal, $f:ident, $reference:expr) => {
            ($name, |b, x, y| word(bits::$f(b, x, y)), $reference, same)
        };
    }
    macro_rules! unary {
        ($name:literal, $f:ident, $reference:expr) => {
            ($name, |b, x, _| word(bits::$f(b, x)), $reference, same)
        };
    }
    macro_rules! bit {
        ($name:literal, $f:ident, $reference:expr) => {
            ($name, |b, x, y| vec![bits::$f(b, x, y)], $reference, one)
        };
    }
    vec![
        word!("add", add, |x, y, w| x.wrapping_add(y) & mask(w)),
        (
            "add_prefix",
            |b, x, y| word(bits::add_prefix(b, x, y)),
            |x, y, w| x.wrapping_add(y) & mask(w),
            same,
        ),
        (
            "sum3",
            |b, x, y| {
                let w = x.width();
                word(bits::sum(b, &[x.clone(), y.clone(), x.clone()], w))
            },
            |x, y, w| x.wrapping_mul(2).wrapping_add(y) & mask(w),
            same,
        ),
        word!("sub", sub, |x, y, w| x.wrapping_sub(y) & mask(w)),
        unary!("neg", neg, |x, _, w| x.wrapping_neg() & mask(w)),
        unary!("abs", abs, |x, _, w| un(signed(x, w).wrapping_abs(), w)),
        unary!("not", not, |x, _, w| !x & mask(w)),
        word!("and", and, |x, y, _| x & y),
        word!("or", or, |x, y, _| x | y),
        word!("xor", xor, |x, y, _| x ^ y),
        (
            "select",
            |b, x, y| {
                let s = y.bits[0];
                word(bits::select(b, s, x, y))
            },
            |x, y, _| if y & 1 == 1 { x } else { y },
            same,
        ),
        bit!("eq", eq, |x, y, _| u128::from(x == y)),
        bit!("ge_u", ge_unsigned, |x, y, _| u128::from(x >= y)),
        bit!("lt_u", lt_unsigned, |x, y, _| u128::from(x < y)),
        (
            "ge_s",
            |b, x, y| vec![bits::ge_signed(b, x, y)],
            |x, y, w| u128::from(signed(x, w) >= signed(y, w)),
            one,
        ),
        (
            "lt_s",
            |b, x, y| vec![bits::lt_signed(b, x, y)],
            |x, y, w| u128::from(signed(x, w) < signed(y, w)),
            one,
        ),
        word!("max_u", max_unsigned, |x, y, _| x.max(y)),
        (
            "shl3",
            |b, x, _| word(bits::shl(b, x, 3)),
            |x, _, w| (x << 3) & mask(w),
            same,
        ),
        (
            "shr3",
            |b, x, _| word(bits::shr(b, x, 3)),
            |x, _, _| x >> 3,
            same,
        ),
        (
            "sar3",
            |b, x, _| word(bits::sar(b, x, 3)),
            |x, _, w| un(signed(x, w) >> 3.min(w - 1), w),
            same,
        ),
        (
            "rotl5",
            |_, x, _| word(bits::rotl(x, 5)),
            |x, _, w| {
                let k = 5 % w;
                ((x << k) | (x >> (w - k))) & mask(w)
            },
            same,
        ),
        (
            "rotr5",
            |_, x, _| word(bits::rotr(x, 5)),
            |x, _, w| {
                let k = 5 % w;
                ((x >> k) | (x << (w - k))) & mask(w)
            },
            same,
        ),
        (
            "shl_var",
            |b, x, y| word(bits::shl_var(b, x, y)),
            |x, s, w| shift_ref(x, s, w, |x, k| x << k, 0),
            same,
        ),
        (
            "shr_var",
            |b, x, y| word(bits::shr_var(b, x, y)),
            |x, s, w| shift_ref(x, s, w, |x, k| x >> k, 0),
            same,
        ),
        word!("sar_var", sar_var, |x, s, w| {
            let sx = signed(x, w);
            un(
                if s >= w as u128 {
                    sx >> (w - 1)
                } else {
                    sx >> s
                },
                w,
            )
        }),
        word!("rotl_var", rotl_var, |x, s, w| {
            let k = (s % w as u128) as usize;
            ((x << k) | (x >> (w - k))) & mask(w)
        }),
        word!("rotr_var", rotr_var, |x, s, w| {
            let k = (s % w as u128) as usize;
            ((x >> k) | (x << (w - k))) & mask(w)
        }),
        word!("mul", mul, |x, y, w| x.wrapping_mul(y) & mask(w)),
        word!("mul_csa", mul_csa, |x, y, w| x.wrapping_mul(y) & mask(w)),
        (
            "mul_full",
            |b, x, y| word(bits::mul_full(b, x, y)),
            |x, y, w| {
                // 2w bits may exceed u128 only for w > 64 (not tested).
                x.wrapping_mul(y) & mask(2 * w)
            },
            double,
        ),
        (
            "mul_full_signed",
            |b, x, y| word(bits::mul_full_signed(b, x, y)),
            |x, y, w| un(signed(x, w).wrapping_mul(signed(y, w)), 2 * w),
            double,
        ),
        (
            "div_u",
            |b, x, y| word(bits::div_rem_unsigned(b, x, y).0),
            |x, y, w| x.checked_div(y).unwrap_or(mask(w)),
            same,
        ),
        (
            "rem_u",
            |b, x, y| word(bits::div_rem_unsigned(b, x, y).1),
            |x, y, _| if y == 0 { x } else { x % y },
            same,
        ),
        (
            "div_s",
            |b, x, y| word(bits::div_rem_signed(b, x, y).0),
            |x, y, w| signed_div_rem(x, y, w).0,
            same,
        ),
        (
            "rem_s",
            |b, x, y| word(bits::div_rem_signed(b, x, y).1),
            |x, y, w| signed_div_rem(x, y, w).1,
            same,
        ),
    ]
}

fn circuit(build: Build, w: usize) -> BitCircuit {
    let mut b = BitBuilder::new();
    let x = Word::input(&mut b, w);
    let y = Word::input(&mut b, w);
    let out = build(&mut b, &x, &y);
    b.finish(out)
}

fn check(
    name: &str,
    c: &BitCircuit,
    reference: Reference,
    out_w: usize,
    w: usize,
    x: u128,
    y: u128,
) {
    let mut ins = bits::to_bits(x, w);
    ins.extend(bits::to_bits(y, w));
    let got = bits::from_bits(&c.eval(&ins).unwrap());
    let want = reference(x, y, w) & mask(out_w);
    assert_eq!(got, want, "{name} at width {w}: x = {x}, y = {y}");
}

#[test]
fn exhaustive_at_small_widths() {
    for (name, build, reference, out_w) in ops() {
        for w in 1..=6usize {
            let c = circuit(build, w);
            for x in 0..1u128 << w {
                for y in 0..1u128 << w {
                    check(name, &c, reference, out_w(w), w, x, y);
                }
            }
        }
    }
}

#[test]
fn random_and_edge_cases_up_to_64_bits() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(10);
    for (name, build, reference, out_w) in ops() {
        let mut cases = 0;
        for w in 1..=64usize {
            let c = circuit(build, w);
            let m = mask(w);
            let edges = [0, 1, m, m >> 1, (m >> 1) + 1, 2.min(m), 3 & m];
            for &x in &edges {
                for &y in &edges {
                    check(name, &c, reference, out_w(w), w, x, y);
                }
            }
            for _ in 0..16 {
                let (x, y) = (rng.gen::<u128>() & m, rng.gen::<u128>() & m);
                // Small divisors and shift amounts too.
                let y2 = y >> rng.gen_range(0..w);
                check(name, &c, reference, out_w(w), w, x, y);
                check(name, &c, reference, out_w(w), w, x, y2);
                cases += 2;
            }
        }
        assert!(cases >= 1000, "{name}: {cases} random cases");
    }
}

#[test]
fn lowered_circuits_match_the_boolean_run() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    for (name, build, _, _) in ops() {
        for w in [1usize, 3, 5] {
            let c = circuit(build, w);
            let digits = lower(&c).unwrap();
            assert!(digits.cost().max_qweight <= 25, "{name}");
            for _ in 0..24 {
                let ins: Vec<bool> = (0..2 * w).map(|_| rng.gen()).collect();
                let want = c.eval(&ins).unwrap();
                let d: Vec<i64> = ins.iter().map(|&v| i64::from(v)).collect();
                let (out, _) = encint_core::clear::run(&digits, &d).unwrap();
                let got: Vec<bool> = out.iter().map(|&v| v == 1).collect();
                assert!(out.iter().all(|&v| v == 0 || v == 1), "{name}: {out:?}");
                assert_eq!(got, want, "{name} width {w}");
            }
        }
    }
}

#[test]
fn sixteen_bit_wrapping_multiplication_within_220_bootstraps() {
    let c = circuit(|b, x, y| word(bits::mul(b, x, y)), 16);
    let cost = lower(&c).unwrap().cost();
    assert!(cost.bootstraps <= 220, "{cost:?}");
    // The paper's carry-save baseline costs far more.
    let csa = lower(&circuit(|b, x, y| word(bits::mul_csa(b, x, y)), 16))
        .unwrap()
        .cost();
    assert!(csa.bootstraps > cost.bootstraps, "{csa:?}");
}

#[test]
fn adder_choice_follows_the_thread_count() {
    let build = |threads: usize| {
        let mut b = BitBuilder::new();
        let (x, y) = (Word::input(&mut b, 32), Word::input(&mut b, 32));
        let s = bits::add_for_threads(&mut b, &x, &y, threads);
        lower(&b.finish(s.bits)).unwrap().cost()
    };
    let (few, many) = (build(2), build(64));
    // Two threads: the counter ripple (fewest bootstraps); 64: the prefix adder (shallow).
    assert!(few.bootstraps < many.bootstraps, "{few:?} {many:?}");
    assert!(many.depth < few.depth, "{few:?} {many:?}");
    for t in [1, 2, 64] {
        let mut b = BitBuilder::new();
        let (x, y) = (Word::input(&mut b, 9), Word::input(&mut b, 9));
        let s = bits::add_for_threads(&mut b, &x, &y, t);
        let c = b.finish(s.bits);
        for (p, q) in [(0u128, 0u128), (511, 1), (300, 400), (255, 256)] {
            let mut ins = bits::to_bits(p, 9);
            ins.extend(bits::to_bits(q, 9));
            assert_eq!(bits::from_bits(&c.eval(&ins).unwrap()), (p + q) % 512);
        }
    }
}

#[test]
fn dot_products_and_convolutions() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(12);
    for (len, w) in [(1usize, 4usize), (3, 8), (7, 16), (16, 12)] {
        let mut b = BitBuilder::new();
        let xs: Vec<Word> = (0..len).map(|_| Word::input(&mut b, w)).collect();
        let ys: Vec<Word> = (0..len).map(|_| Word::input(&mut b, w)).collect();
        let d1 = bits::dot(&mut b, &xs, &ys, w);
        let d2 = bits::dot_accumulate(&mut b, &xs, &ys, w);
        let mut outs = d1.bits.clone();
        outs.extend(d2.bits);
        let c = b.finish(outs);
        for _ in 0..50 {
            let v: Vec<u128> = (0..2 * len).map(|_| rng.gen::<u128>() & mask(w)).collect();
            let want = (0..len).fold(0u128, |acc, i| {
                acc.wrapping_add(v[i].wrapping_mul(v[len + i]))
            }) & mask(w);
            let ins: Vec<bool> = v.iter().flat_map(|&x| bits::to_bits(x, w)).collect();
            let out = c.eval(&ins).unwrap();
            assert_eq!(bits::from_bits(&out[..w]), want);
            assert_eq!(bits::from_bits(&out[w..]), want);
        }
    }
    // Convolution of a 5x6 image with a 3x3 kernel, both forms.
    let (h, wd, k, w) = (5usize, 6usize, 3usize, 10usize);
    let mut b = BitBuilder::new();
    let img: Vec<Vec<Word>> = (0..h)
        .map(|_| (0..wd).map(|_| Word::input(&mut b, w)).collect())
        .collect();
    let ker: Vec<Vec<Word>> = (0..k)
        .map(|_| (0..k).map(|_| Word::input(&mut b, w)).collect())
        .collect();
    let v1 = bits::conv2d(&mut b, &img, &ker, w, bits::ConvForm::Parallel);
    let v2 = bits::conv2d(&mut b, &img, &ker, w, bits::ConvForm::Accumulate);
    let outs: Vec<Bit> = v1
        .iter()
        .chain(&v2)
        .flatten()
        .flat_map(|x| x.bits.clone())
        .collect();
    let c = b.finish(outs);
    for _ in 0..10 {
        let iv: Vec<u128> = (0..h * wd).map(|_| rng.gen::<u128>() & mask(w)).collect();
        let kv: Vec<u128> = (0..k * k).map(|_| rng.gen::<u128>() & mask(w)).collect();
        let mut ins: Vec<bool> = iv.iter().flat_map(|&x| bits::to_bits(x, w)).collect();
        ins.extend(kv.iter().flat_map(|&x| bits::to_bits(x, w)));
        let out = c.eval(&ins).unwrap();
        let mut want = Vec::new();
        for i in 0..=h - k {
            for j in 0..=wd - k {
                let mut s = 0u128;
                for u in 0..k {
                    for v in 0..k {
                        s = s.wrapping_add(iv[(i + u) * wd + j + v].wrapping_mul(kv[u * k + v]));
                    }
                }
                want.push(s & mask(w));
            }
        }
        let got: Vec<u128> = out.chunks(w).map(bits::from_bits).collect();
        let n = want.len();
        assert_eq!(&got[..n], &want[..]);
        assert_eq!(&got[n..], &want[..]);
    }
}

/// Words whose bits repeat (a sign-extended word, an arithmetic shift's copies of the sign
/// bit): `all`, `any` and `==` count each bit once, so that their counters stay within
/// the noise budget (eight copies of one bit in a counter weighed 64 and failed to
/// build), against the clear values, and the lowered circuits stay within the budget.
#[test]
fn repeated_bits_count_once_in_all_any_and_eq() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(12);
    for (narrow, w) in [(1usize, 16usize), (4, 8), (8, 16), (8, 64), (3, 40)] {
        let mut b = BitBuilder::new();
        let x = Word::input(&mut b, narrow).resize(&mut b, w, true);
        let y = Word::input(&mut b, narrow).resize(&mut b, w, true);
        let outs = vec![
            bits::all(&mut b, &x.bits),
            bits::any(&mut b, &x.bits),
            bits::eq(&mut b, &x, &y),
        ];
        let c = b.finish(outs);
        let digits = lower(&c).unwrap();
        assert!(digits.cost().max_qweight <= 25, "{narrow} -> {w}");
        for _ in 0..64 {
            let (p, q) = (
                rng.gen::<u128>() & mask(narrow),
                rng.gen::<u128>() & mask(narrow),
            );
            let mut ins = bits::to_bits(p, narrow);
            ins.extend(bits::to_bits(q, narrow));
            let (sx, sy) = (signed(p, narrow), signed(q, narrow));
            let want = vec![sx == -1, sx != 0, sx == sy];
            assert_eq!(c.eval(&ins).unwrap(), want, "{narrow} -> {w}: {sx}, {sy}");
            let d: Vec<i64> = ins.iter().map(|&v| i64::from(v)).collect();
            let (out, _) = encint_core::clear::run(&digits, &d).unwrap();
            let got: Vec<bool> = out.iter().map(|&v| v == 1).collect();
            assert_eq!(got, want, "lowered, {narrow} -> {w}: {sx}, {sy}");
        }
    }
}
