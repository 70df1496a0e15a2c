//! Tree-based LUT evaluation (LUTeval / MVLUTeval): correctness against plain tables, agreement
//! of first-level outputs with ordinary bootstraps, noise measurements and typed errors.

use encint_tfhe::{
    signed_rep, Accumulator, ClientKey, Digit, NegacyclicLut, ServerKey, Table256, TfheError,
    TreeKey, DEFAULT_PARAMETERS, FIRST_LEVEL_QWEIGHT_BOUND, SECOND_LEVEL_QWEIGHT_BOUND,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

mod common;

fn keys() -> (&'static ClientKey, &'static ServerKey, &'static TreeKey) {
    common::tree_keys(0x7733_0001, 0x7733_0002)
}

/// The second level of each pair `(hi, lo)` of `enc` on the first accumulator of its first
/// level (`first[i]` the first level of `enc[i].0`), as one batch.
fn second_levels(
    tk: &TreeKey,
    sk: &ServerKey,
    first: &[(Vec<Digit>, Vec<Accumulator>)],
    enc: &[(Digit, Digit)],
) -> Vec<Digit> {
    let second: Vec<(&Accumulator, &Digit)> = first
        .iter()
        .zip(enc)
        .map(|((_, accs), (_, lo))| (&accs[0], lo))
        .collect();
    tk.second_level_batch(sk, &second).unwrap()
}

fn random_table(rng: &mut StdRng) -> Table256 {
    let mut t = [0u8; 256];
    rng.fill(&mut t[..]);
    for v in &mut t {
        *v %= 16;
    }
    Table256(t)
}

/// The table with the largest jumps: `‖v‖` of every row and column is ≈ 60.
fn alternating() -> Table256 {
    Table256::from_fn(|h, l| if (h + l) % 2 == 0 { 0 } else { 15 })
}

fn worst_single() -> NegacyclicLut {
    NegacyclicLut::from_fn(|x| if x % 2 == 0 { 0 } else { 15 })
}

#[test]
fn first_level_singles_match_bootstrap_on_full_domain() {
    let (ck, sk, tk) = keys();
    let mut rng = StdRng::seed_from_u64(1);
    let mut luts = vec![
        NegacyclicLut::identity(),
        worst_single(),
        NegacyclicLut::from_fn(|x| 3 * x * x + 7),
        NegacyclicLut::from_fn(|x| if x % 2 == 0 { -16 } else { 0 }),
    ];
    for _ in 0..2 {
        let mut v = [0i64; 16];
        for x in &mut v {
            *x = rng.gen_range(-16..16);
        }
        luts.push(NegacyclicLut::new(v));
    }
    let inputs: Vec<(i64, Digit)> = (-16..16).map(|m| (m, ck.encrypt_digit(m))).collect();
    let jobs: Vec<(&Digit, &[NegacyclicLut], &[&Table256])> = inputs
        .iter()
        .map(|(_, d)| (d, &luts[..], &[][..]))
        .collect();
    let outs = tk.first_level_batch(sk, &jobs).unwrap();
    for ((m, _), (singles, accs)) in inputs.iter().zip(&outs) {
        assert!(accs.is_empty());
        assert_eq!(singles.len(), luts.len());
        for (lut, s) in luts.iter().zip(singles) {
            assert_eq!(ck.decrypt_digit(s), lut.eval(*m), "m = {m}, {lut:?}");
        }
    }
    // Same decryptions as the ordinary bootstrap (a few inputs).
    for (m, d) in inputs.iter().step_by(5) {
        let b = sk.bootstrap(d, &luts[2]);
        let (s, _) = tk.first_level(sk, d, &luts[2..3], &[]).unwrap();
        assert_eq!(ck.decrypt_digit(&b), ck.decrypt_digit(&s[0]), "m = {m}");
    }
}

#[test]
fn lut_eval_random_and_extreme_pairs() {
    let (ck, sk, tk) = keys();
    let mut rng = StdRng::seed_from_u64(2);
    let tables = [
        random_table(&mut rng),
        alternating(),
        random_table(&mut rng),
    ];
    // 8 random pairs per table plus the extreme nibbles {0, 1, 14, 15}².
    let mut pairs: Vec<(i64, i64, usize)> = Vec::new();
    for ti in 0..tables.len() {
        for _ in 0..8 {
            pairs.push((rng.gen_range(0..16), rng.gen_range(0..16), ti));
        }
    }
    for h in [0, 1, 14, 15] {
        for l in [0, 1, 14, 15] {
            pairs.push((h, l, 1));
        }
    }
    let enc: Vec<(Digit, Digit)> = pairs
        .iter()
        .map(|&(h, l, _)| (ck.encrypt_digit(h), ck.encrypt_digit(l)))
        .collect();
    let rows: Vec<[&Table256; 1]> = pairs.iter().map(|&(_, _, t)| [&tables[t]]).collect();
    let jobs: Vec<(&Digit, &[NegacyclicLut], &[&Table256])> = enc
        .iter()
        .zip(&rows)
        .map(|((h, _), r)| (h, &[][..], &r[..]))
        .collect();
    let first = tk.first_level_batch(sk, &jobs).unwrap();
    let outs = second_levels(tk, sk, &first, &enc);
    for (&(h, l, t), out) in pairs.iter().zip(&outs) {
        assert_eq!(
            ck.decrypt_digit(out),
            tables[t].eval(h, l),
            "({h}, {l}) table {t}"
        );
    }
    // The convenience form agrees.
    let (h, l) = (&enc[0].0, &enc[0].1);
    let out = tk.lut_eval(sk, h, l, &tables[pairs[0].2]).unwrap();
    assert_eq!(
        ck.decrypt_digit(&out),
        tables[pairs[0].2].eval(pairs[0].0, pairs[0].1)
    );
}

#[test]
fn mv_lut_eval_two_and_four_tables() {
    let (ck, sk, tk) = keys();
    let mut rng = StdRng::seed_from_u64(3);
    let (t1, t2) = (random_table(&mut rng), alternating());
    let add = Table256::from_fn(|h, l| (h + l) % 16);
    for (hi, los) in [(9i64, [3i64, 15, 0, 7]), (15, [0, 15, 15, 1])] {
        let h = ck.encrypt_digit(hi);
        let ls: Vec<Digit> = los.iter().map(|&l| ck.encrypt_digit(l)).collect();
        let out2 = tk
            .mv_lut_eval(sk, &h, &[&ls[0], &ls[1]], &[&t1, &t2])
            .unwrap();
        assert_eq!(ck.decrypt_digit(&out2[0]), t1.eval(hi, los[0]));
        assert_eq!(ck.decrypt_digit(&out2[1]), t2.eval(hi, los[1]));
        // Four lookups, two distinct tables (one packing each).
        let ts = [&add, &t2, &add, &t2];
        let lrefs: Vec<&Digit> = ls.iter().collect();
        let out4 = tk.mv_lut_eval(sk, &h, &lrefs, &ts).unwrap();
        for i in 0..4 {
            assert_eq!(
                ck.decrypt_digit(&out4[i]),
                ts[i].eval(hi, los[i]),
                "hi {hi}, lo {}, i {i}",
                los[i]
            );
        }
    }
}

#[test]
fn typed_errors() {
    let (ck, sk, tk) = keys();
    let good = ck.encrypt_digit(3);
    let t = alternating();
    // (Digits of a foreign dimension cannot be built through the public API; the dimension
    // checks are unit-tested in `src/tree.rs`.)
    let err = tk.mv_lut_eval(sk, &good, &[&good], &[&t, &t]).unwrap_err();
    assert_eq!(
        err,
        TfheError::LengthMismatch {
            expected: 2,
            found: 1
        }
    );
    // Trivial digits and tables outside the nibble range are accepted (no panic).
    let z = Digit::trivial(0, &DEFAULT_PARAMETERS);
    let out = tk.lut_eval(sk, &z, &z, &t).unwrap();
    assert_eq!(ck.decrypt_digit(&out), t.eval(0, 0));
    let wide = Table256::from_fn(|h, l| h.wrapping_mul(17).wrapping_add(l));
    let out = tk.lut_eval(sk, &good, &good, &wide).unwrap();
    assert_eq!(ck.decrypt_digit(&out), signed_rep((3 * 17 + 3) % 32));
    assert!(format!("{tk:?}").contains("TreeKey"));
}

fn variance(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)
}

/// Phase errors of `samples` fresh bootstraps, worst-case first-level singles and worst-case
/// LUTeval outputs; returns the three variances.
fn measure(samples: usize, seed: u64) -> (f64, f64, f64) {
    let (ck, sk, tk) = keys();
    let mut rng = StdRng::seed_from_u64(seed);
    let t = alternating();
    let single = worst_single();
    let pairs: Vec<(i64, i64)> = (0..samples)
        .map(|_| (rng.gen_range(0..16), rng.gen_range(0..16)))
        .collect();
    let enc: Vec<(Digit, Digit)> = pairs
        .iter()
        .map(|&(h, l)| (ck.encrypt_digit(h), ck.encrypt_digit(l)))
        .collect();
    let lut = NegacyclicLut::from_fn(|x| x + 1);
    let pbs_jobs: Vec<(&Digit, &NegacyclicLut)> = enc.iter().map(|(h, _)| (h, &lut)).collect();
    let fresh = sk.bootstrap_batch(&pbs_jobs);
    let e_fresh: Vec<f64> = fresh
        .iter()
        .zip(&pairs)
        .map(|(d, &(h, _))| ck.phase_error(d, lut.eval(h)))
        .collect();
    let singles = [single];
    let rows = [&t];
    let jobs: Vec<(&Digit, &[NegacyclicLut], &[&Table256])> = enc
        .iter()
        .map(|(h, _)| (h, &singles[..], &rows[..]))
        .collect();
    let first = tk.first_level_batch(sk, &jobs).unwrap();
    let e_first: Vec<f64> = first
        .iter()
        .zip(&pairs)
        .map(|((s, _), &(h, _))| ck.phase_error(&s[0], single.eval(h)))
        .collect();
    let outs = second_levels(tk, sk, &first, &enc);
    let e_lut: Vec<f64> = outs
        .iter()
        .zip(&pairs)
        .map(|(d, &(h, l))| ck.phase_error(d, t.eval(h, l)))
        .collect();
    let (vf, v1, v2) = (variance(&e_fresh), variance(&e_first), variance(&e_lut));
    eprintln!(
        "{samples} samples: σ fresh PBS 2^{:.2}, first-level single (worst table) 2^{:.2}, \
         lut_eval (worst table) 2^{:.2}; variance ratios {:.3} and {:.3}",
        vf.sqrt().log2(),
        v1.sqrt().log2(),
        v2.sqrt().log2(),
        v1 / vf,
        v2 / vf
    );
    (vf, v1, v2)
}

/// The quadratic weight the IR charges a tree-LUT output (`encint_core::circuit::TREE_QWEIGHT`;
/// `crates/encint/src/backend/tree.rs` checks at compile time that it covers
/// [`SECOND_LEVEL_QWEIGHT_BOUND`]).
const CHARGED_TREE_QWEIGHT: f64 = 2.0;

/// Relative standard error of a ratio of two independent sample variances over `n` samples
/// each (`sqrt(2/n)` each, added in quadrature).
fn ratio_se(n: usize) -> f64 {
    (4.0 / n as f64).sqrt()
}

/// LUTeval and first-level noise against the weights the IR charges, over 400 samples.
///
/// The failure probability of a circuit (2^-129.6 per rotation) holds if every rotation
/// input stays within quadratic weight 25, with a LUTeval output counted as weight
/// [`CHARGED_TREE_QWEIGHT`] = 2 and a first-level output as [`FIRST_LEVEL_QWEIGHT_BOUND`]
/// (0.25) of a fresh bootstrap's variance. So the claims to test are
/// `r2 = var(LUTeval) / var(PBS) <= 2` and `r1 = var(first level) / var(PBS) <= 0.25`.
///
/// Threshold derivation: the ratio estimate `r̂` has relative standard error
/// `s = sqrt(4/n)` (0.1 at n = 400). We require the 3-standard-error *upper* confidence bound
/// to lie within the charge: `r̂·(1 + 3s) <= 2`, i.e. `r̂ <= 1.54`. If the true ratio were at
/// or above the charge, `r̂` would have to fall about 3 standard errors below it, which
/// happens with probability ≈ 0.13 %; the former check (`r̂ <= 1.25·(1 + 3·sqrt(4/64))`,
/// i.e. 2.19 over 64 samples) accepted ratios above the charge. The documented measurement
/// (docs/ISA.md: "1.19 of a fresh bootstrap's variance (measured; bound used: 1.25)") is
/// checked the other way, as a claim that must not be rejected at 3 standard errors:
/// `r̂ <= 1.25·(1 + 3s)`.
///
/// Measured (seeded keys): σ fresh 2^-14.93, first level 2^-16.44 (ratio 0.124), lut_eval
/// 2^-14.86 (ratio 1.09).
#[test]
fn noise_within_charged_weights() {
    let n = 400;
    let (vf, v1, v2) = measure(n, 5);
    let s = ratio_se(n);
    assert!(
        v2 / vf * (1.0 + 3.0 * s) <= CHARGED_TREE_QWEIGHT,
        "LUTeval variance ratio {:.3}: its upper bound {:.3} exceeds the charged weight 2",
        v2 / vf,
        v2 / vf * (1.0 + 3.0 * s)
    );
    assert!(
        v2 / vf <= SECOND_LEVEL_QWEIGHT_BOUND * (1.0 + 3.0 * s),
        "LUTeval variance ratio {:.3} rejects the documented bound 1.25",
        v2 / vf
    );
    assert!(
        v1 / vf * (1.0 + 3.0 * s) <= FIRST_LEVEL_QWEIGHT_BOUND,
        "first-level variance ratio {:.3} exceeds the bound 0.25",
        v1 / vf
    );
}
