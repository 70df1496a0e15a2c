//! Scheme tests against independent references: schoolbook negacyclic products modulo `t`
//! computed with i128 arithmetic, slot-wise modular arithmetic.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::sync::OnceLock;

fn naive_negacyclic(a: &[u64], b: &[u64], t: u64) -> Vec<u64> {
    let n = a.len();
    let mut c = vec![0i128; n];
    for i in 0..n {
        if a[i] == 0 {
            continue;
        }
        for j in 0..n {
            let p = a[i] as i128 * b[j] as i128;
            if i + j < n {
                c[i + j] += p;
            } else {
                c[i + j - n] -= p;
            }
        }
    }
    c.iter().map(|x| x.rem_euclid(t as i128) as u64).collect()
}

/// A small (insecure) set for fast tests of every code path: n = 1024, 3 x 50-bit
/// RNS moduli, HPR 1 x 3... and a second with k = 3.
fn small(k: usize, d: usize, bits: u32) -> FvParameters {
    FvParameters {
        name: format!("test-{k}x{d}"),
        n: 1024,
        t: 12289,
        sigma: 3.19,
        rns_count: k * d,
        rns_bits: bits,
        hpr_k: k,
        hpr_d: d,
        hpr_bits: bits,
        security: "none (tests only)",
        max_depth: None,
    }
}

fn ctx_of(which: &str) -> &'static FvContext {
    static S1: OnceLock<FvContext> = OnceLock::new();
    static S3: OnceLock<FvContext> = OnceLock::new();
    static A: OnceLock<FvContext> = OnceLock::new();
    static B: OnceLock<FvContext> = OnceLock::new();
    static C: OnceLock<FvContext> = OnceLock::new();
    static S13: OnceLock<FvContext> = OnceLock::new();
    static S14: OnceLock<FvContext> = OnceLock::new();
    static S15: OnceLock<FvContext> = OnceLock::new();
    static D: OnceLock<FvContext> = OnceLock::new();
    match which {
        "128-8192" => S13.get_or_init(|| FvContext::new(FvParameters::default_8192()).unwrap()),
        "128-16384" => S14.get_or_init(|| FvContext::new(FvParameters::default_128()).unwrap()),
        "128-32768" => S15.get_or_init(|| FvContext::new(FvParameters::default_32768()).unwrap()),
        "C" => C.get_or_init(|| FvContext::new(FvParameters::set_c()).unwrap()),
        "D" => D.get_or_init(|| FvContext::new(FvParameters::set_d()).unwrap()),
        "s1" => S1.get_or_init(|| FvContext::new(small(1, 4, 50)).unwrap()),
        "s3" => S3.get_or_init(|| FvContext::new(small(3, 2, 40)).unwrap()),
        "A" => A.get_or_init(|| FvContext::new(FvParameters::set_a()).unwrap()),
        _ => B.get_or_init(|| FvContext::new(FvParameters::set_b()).unwrap()),
    }
}

/// Whether `r` is the error of keys, ciphertexts or contexts of different parameter sets.
pub(super) fn parameter_mismatch<T>(r: Result<T, FvError>) -> bool {
    matches!(r, Err(FvError::ParameterMismatch(_)))
}

/// The context `which`, a generator seeded with `seed` and a secret key drawn from it.
fn keyed(which: &str, seed: u64) -> (&'static FvContext, ChaCha20Rng, SecretKey) {
    let ctx = ctx_of(which);
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = SecretKey::generate(ctx, &mut rng);
    (ctx, rng, sk)
}

fn random_pt(ctx: &FvContext, rng: &mut ChaCha20Rng) -> Plaintext {
    let p = ctx.parameters();
    Plaintext::new(ctx, (0..p.n).map(|_| rng.gen_range(0..p.t)).collect()).unwrap()
}

fn roundtrip_and_ops(which: &str, seed: u64) {
    let (ctx, mut rng, sk) = keyed(which, seed);
    let t = ctx.parameters().t;
    let m1 = random_pt(ctx, &mut rng);
    let m2 = random_pt(ctx, &mut rng);
    let sum: Vec<u64> = m1
        .coeffs
        .iter()
        .zip(&m2.coeffs)
        .map(|(a, b)| (a + b) % t)
        .collect();
    // Large sets use the NTT-based reference (itself tested against the schoolbook one).
    let prod = if ctx.parameters().n > 1 << 14 {
        crate::ntt::plain_mul(&m1.coeffs, &m2.coeffs, t).unwrap()
    } else {
        naive_negacyclic(&m1.coeffs, &m2.coeffs, t)
    };
    let mut results = Vec::new();
    for v in Variant::ALL {
        let pk = ctx.generate_public_key(&sk, v, &mut rng).unwrap();
        let rlk = ctx.generate_relin_key(&sk, v, &mut rng).unwrap();
        let c1 = ctx.encrypt(&pk, &m1, &mut rng).unwrap();
        let c2 = ctx.encrypt_symmetric(&sk, &m2, v, &mut rng).unwrap();
        assert_eq!(c1.variant(), v);
        assert_eq!(ctx.decrypt(&sk, &c1).unwrap(), m1, "{which} {v:?} fresh pk");
        assert_eq!(ctx.decrypt(&sk, &c2).unwrap(), m2, "{which} {v:?} fresh sk");
        let s = ctx.add(&c1, &c2).unwrap();
        assert_eq!(
            ctx.decrypt(&sk, &s).unwrap().coeffs,
            sum,
            "{which} {v:?} sum"
        );
        let p3 = ctx.mul(&c1, &c2).unwrap();
        assert_eq!(p3.len(), 3);
        assert!(ctx.decrypt(&sk, &p3).is_err());
        let p = ctx.relinearize(&p3, &rlk).unwrap();
        let got = ctx.decrypt(&sk, &p).unwrap().coeffs;
        assert_eq!(got, prod, "{which} {v:?} product");
        results.push(got);
    }
    // HPR and the RNS variants agree on the same inputs.
    assert!(results.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn small_k1_all_variants() {
    roundtrip_and_ops("s1", 1);
}

#[test]
fn small_k3_all_variants() {
    roundtrip_and_ops("s3", 2);
}

#[test]
fn set_a_all_variants() {
    roundtrip_and_ops("A", 3);
}

#[test]
fn set_b_all_variants() {
    roundtrip_and_ops("B", 4);
}

#[test]
fn default_128_bit_sets_all_variants() {
    roundtrip_and_ops("128-8192", 13);
    roundtrip_and_ops("128-16384", 14);
}

#[test]
#[ignore = "128-bit n = 2^15: heavy, run with --ignored"]
fn default_32768_all_variants() {
    roundtrip_and_ops("128-32768", 15);
}

#[test]
#[ignore = "set C: heavy, run with --ignored"]
fn set_c_all_variants() {
    roundtrip_and_ops("C", 9);
}

#[test]
#[ignore = "set D: heavy (several GiB), run with --ignored"]
fn set_d_all_variants() {
    roundtrip_and_ops("D", 10);
}

#[test]
fn hpr_coarse_decomposition_and_depth_two() {
    for which in ["s3", "A"] {
        let (ctx, mut rng, sk) = keyed(which, 5);
        let t = ctx.parameters().t;
        let pk = ctx
            .generate_public_key(&sk, Variant::Hpr, &mut rng)
            .unwrap();
        for (dec, trunc) in [
            (HprDecomposition::Coarse, false),
            (HprDecomposition::Coarse, true),
            (HprDecomposition::Fine, true),
        ] {
            let rlk = ctx
                .generate_relin_key_hpr(&sk, dec, trunc, &mut rng)
                .unwrap();
            let m = random_pt(ctx, &mut rng);
            let c = ctx.encrypt(&pk, &m, &mut rng).unwrap();
            let sq = ctx.mul_relin(&c, &c, &rlk).unwrap();
            let want = naive_negacyclic(&m.coeffs, &m.coeffs, t);
            assert_eq!(
                ctx.decrypt(&sk, &sq).unwrap().coeffs,
                want,
                "{dec:?} {trunc}"
            );
            if !trunc {
                let q4 = ctx.mul_relin(&sq, &sq, &rlk).unwrap();
                let want4 = naive_negacyclic(&want, &want, t);
                assert_eq!(ctx.decrypt(&sk, &q4).unwrap().coeffs, want4);
            }
        }
    }
}

/// Squares a fresh ciphertext until it stops decrypting; returns the number of correct
/// squarings. Runs on a copy of the context without the set's depth limit, and asserts
/// that the failing squaring is refused by decryption's noise check, not decrypted to a
/// wrong value.
fn practical_depth(ctx: &FvContext, v: Variant, seed: u64) -> usize {
    let unlimited = FvContext::new(FvParameters {
        max_depth: None,
        ..ctx.parameters().clone()
    })
    .unwrap();
    let ctx = &unlimited;
    let t = ctx.parameters().t;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = SecretKey::generate(ctx, &mut rng);
    let pk = ctx.generate_public_key(&sk, v, &mut rng).unwrap();
    let rlk = ctx.generate_relin_key(&sk, v, &mut rng).unwrap();
    let m = random_pt(ctx, &mut rng);
    let mut e = m.coeffs.clone();
    let mut c = ctx.encrypt(&pk, &m, &mut rng).unwrap();
    for d in 0..40 {
        e = naive_negacyclic(&e, &e, t);
        c = ctx.mul_relin(&c, &c, &rlk).unwrap();
        match ctx.decrypt(&sk, &c) {
            Err(FvError::NoiseBudgetExhausted { .. }) => return d,
            Err(other) => panic!("{v:?}: {other}"),
            Ok(p) => assert_eq!(
                p.coeffs,
                e,
                "{v:?}: wrong value at depth {} without an error",
                d + 1
            ),
        }
    }
    40
}

#[test]
fn hpr_depth_matches_rns_depth() {
    for which in ["s1", "s3"] {
        let ctx = ctx_of(which);
        let d: Vec<usize> = Variant::ALL
            .iter()
            .map(|&v| practical_depth(ctx, v, 12))
            .collect();
        assert!(d[0] >= 2, "{which}: {d:?}");
        let rns = d[0].min(d[1]);
        assert!(d[2] + 1 >= rns, "{which}: HPR depth {} vs RNS {rns}", d[2]);
    }
}

/// docs/FV.md, "Practical depth": "| A | 7 | 7 | 7 |" and "| B | 16 | 16 | 16 |" (BEHZ, HPS,
/// HPR), for the paper's sets that CI builds. Paper bound (Bajard et al.: HPR loses no
/// meaningful depth) stays separate: `hpr_depth_matches_rns_depth`.
#[test]
fn practical_depth_of_sets_a_and_b_matches_fv_md() {
    for (which, want) in [("A", 7), ("B", 16)] {
        let ctx = ctx_of(which);
        for v in Variant::ALL {
            assert_eq!(
                practical_depth(ctx, v, 12),
                want,
                "set {which}, {v:?}: docs/FV.md says depth {want}"
            );
        }
    }
}

#[test]
fn batching_is_slotwise() {
    for which in ["A", "B"] {
        let ctx = ctx_of(which);
        let p = ctx.parameters();
        let t = p.t;
        let enc = BatchEncoder::new(ctx).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(6);
        let x: Vec<u64> = (0..p.n).map(|_| rng.gen_range(0..t)).collect();
        let y: Vec<u64> = (0..p.n).map(|_| rng.gen_range(0..t)).collect();
        let px = enc.encode(ctx, &x).unwrap();
        assert_eq!(enc.decode(&px).unwrap(), x);
        let other = Plaintext::new(ctx_of("s1"), vec![0; 1024]).unwrap();
        assert!(enc.decode(&other).is_err());
        let py = enc.encode(ctx, &y).unwrap();
        let sk = SecretKey::generate(ctx, &mut rng);
        for v in Variant::ALL {
            let pk = ctx.generate_public_key(&sk, v, &mut rng).unwrap();
            let rlk = ctx.generate_relin_key(&sk, v, &mut rng).unwrap();
            let cx = ctx.encrypt(&pk, &px, &mut rng).unwrap();
            let cy = ctx.encrypt(&pk, &py, &mut rng).unwrap();
            let s = enc
                .decode(&ctx.decrypt(&sk, &ctx.add(&cx, &cy).unwrap()).unwrap())
                .unwrap();
            let m = enc
                .decode(
                    &ctx.decrypt(&sk, &ctx.mul_relin(&cx, &cy, &rlk).unwrap())
                        .unwrap(),
                )
                .unwrap();
            for i in 0..p.n {
                assert_eq!(s[i], (x[i] + y[i]) % t);
                assert_eq!(m[i], ((x[i] as u128 * y[i] as u128) % t as u128) as u64);
            }
        }
    }
}

#[test]
fn batching_refused_when_t_does_not_split() {
    let ctx = FvContext::new(small(1, 2, 40).with_plaintext_modulus(65539)).unwrap();
    assert!(matches!(
        BatchEncoder::new(&ctx),
        Err(FvError::BatchingUnsupported { .. })
    ));
    let ctx = ctx_of("s1");
    let enc = BatchEncoder::new(ctx).unwrap();
    assert!(enc.encode(ctx, &[1, 2, 3]).is_err());
    assert!(enc.encode(ctx, &vec![ctx.parameters().t; 1024]).is_err());
}

#[test]
fn behz_and_hps_interoperate() {
    let (ctx, mut rng, sk) = keyed("s3", 7);
    let t = ctx.parameters().t;
    let pk = ctx
        .generate_public_key(&sk, Variant::Behz, &mut rng)
        .unwrap();
    let rlk = ctx
        .generate_relin_key(&sk, Variant::Behz, &mut rng)
        .unwrap()
        .with_variant(Variant::Hps)
        .unwrap();
    let m = random_pt(ctx, &mut rng);
    let c = ctx
        .encrypt(&pk, &m, &mut rng)
        .unwrap()
        .with_variant(Variant::Hps)
        .unwrap();
    assert_eq!(c.variant(), Variant::Hps);
    let sq = ctx.mul_relin(&c, &c, &rlk).unwrap();
    assert_eq!(
        ctx.decrypt(&sk, &sq).unwrap().coeffs,
        naive_negacyclic(&m.coeffs, &m.coeffs, t)
    );
    assert!(c.clone().with_variant(Variant::Hpr).is_err());
    assert!(rlk.with_variant(Variant::Hpr).is_err());
}

#[test]
fn malformed_inputs_give_typed_errors() {
    let (ctx, mut rng, sk) = keyed("s1", 8);
    let other = ctx_of("s3");
    let sk_other = SecretKey::generate(other, &mut rng);
    let m = random_pt(ctx, &mut rng);
    let cr = ctx
        .encrypt_symmetric(&sk, &m, Variant::Behz, &mut rng)
        .unwrap();
    let ch = ctx
        .encrypt_symmetric(&sk, &m, Variant::Hpr, &mut rng)
        .unwrap();
    // Mismatched parameters.
    assert!(parameter_mismatch(ctx.decrypt(&sk_other, &cr)));
    assert!(parameter_mismatch(other.decrypt(&sk_other, &cr)));
    assert!(parameter_mismatch(ctx.encrypt_symmetric(
        &sk_other,
        &m,
        Variant::Hps,
        &mut rng
    )));
    // Mismatched variants.
    assert!(matches!(
        ctx.add(&cr, &ch),
        Err(FvError::VariantMismatch(_))
    ));
    let rlk_r = ctx.generate_relin_key(&sk, Variant::Hps, &mut rng).unwrap();
    assert!(matches!(
        ctx.mul_relin(&ch, &ch, &rlk_r),
        Err(FvError::VariantMismatch(_))
    ));
    // Malformed raw data.
    let mut raw = cr.to_raw();
    raw[0][0].pop();
    assert!(matches!(
        Ciphertext::from_raw(ctx, Variant::Behz, raw),
        Err(FvError::MalformedCiphertext(_))
    ));
    let mut raw = cr.to_raw();
    raw[1][0][5] = u64::MAX;
    assert!(matches!(
        Ciphertext::from_raw(ctx, Variant::Hps, raw),
        Err(FvError::MalformedCiphertext(_))
    ));
    assert!(Ciphertext::from_raw(ctx, Variant::Hpr, cr.to_raw()).is_err());
    assert!(Ciphertext::from_raw(ctx, Variant::Behz, vec![]).is_err());
    let mut raw = ch.to_raw();
    raw[0].pop();
    assert!(Ciphertext::from_raw(ctx, Variant::Hpr, raw).is_err());
    // A well-formed raw round trip decrypts.
    let back = Ciphertext::from_raw(ctx, Variant::Hpr, ch.to_raw()).unwrap();
    assert_eq!(ctx.decrypt(&sk, &back).unwrap(), m);
    // Bad plaintexts and keys.
    assert!(matches!(
        Plaintext::new(ctx, vec![ctx.parameters().t; 1024]),
        Err(FvError::PlaintextOutOfRange { .. })
    ));
    assert!(Plaintext::new(ctx, vec![0; 3]).is_err());
    assert!(SecretKey::from_coefficients(ctx, &vec![2; 1024]).is_err());
    assert!(SecretKey::from_coefficients(ctx, &[1; 5]).is_err());
    assert!(FvParameters::by_name("Z").is_err());
    assert!(Variant::parse("rns").is_err());
}

/// Exact noise (log2 of the largest |c0 + c1 s - Delta m| mod q) with big integers.
fn noise_log2(ctx: &FvContext, sk: &SecretKey, ct: &Ciphertext, m: &[u64]) -> f64 {
    use num_bigint::{BigInt, BigUint, Sign};
    use num_integer::Integer;
    let signed = |v: Vec<BigUint>| -> Vec<BigInt> { v.into_iter().map(BigInt::from).collect() };
    let (q, c0, c1) = match &ct.parts {
        Parts::Rns(v) => (
            ctx.rns.q.product().clone(),
            signed(v[0].to_biguint(&ctx.rns.q)),
            signed(v[1].to_biguint(&ctx.rns.q)),
        ),
        Parts::Hpr(v) => (
            ctx.hpr.arith.modulus().clone(),
            signed(ctx.hpr.arith.to_biguint(&v[0])),
            signed(ctx.hpr.arith.to_biguint(&v[1])),
        ),
    };
    let q = BigInt::from_biguint(Sign::Plus, q);
    let n = c0.len();
    let t = ctx.parameters().t;
    let delta = &q / t;
    let s = &sk.coeffs;
    let mut worst = 0f64;
    for i in 0..n {
        let mut x = c0[i].clone();
        for j in 0..n {
            if s[j] == 0 {
                continue;
            }
            let (idx, sign) = if j <= i {
                (i - j, 1i64)
            } else {
                (n + i - j, -1i64)
            };
            x += &c1[idx] * (s[j] * sign);
        }
        x -= &delta * m[i];
        let mut r = x.mod_floor(&q);
        if &r * 2 > q {
            r -= &q;
        }
        let b = r.bits() as f64;
        worst = worst.max(b);
    }
    worst
}

/// docs/FV.md, "What we found about Remark 2": "after one squaring the noise is 48 bits
/// with full keys (BEHZ and HPS: 49), 169 bits with truncated keys, 128 bits with the coarse
/// decomposition" (exact noise with big integers, small set `k = 3, d = 2`, 40-bit primes).
/// Pinned to within one bit (the figures are log2 of the worst coefficient, seeded).
#[test]
fn remark2_noise_growth_matches_fv_md() {
    let (ctx, mut rng, sk) = keyed("s3", 11);
    let t = ctx.parameters().t;
    let hpr_trunc = ctx
        .generate_relin_key_hpr(&sk, HprDecomposition::Fine, true, &mut rng)
        .unwrap();
    let hpr_coarse = ctx
        .generate_relin_key_hpr(&sk, HprDecomposition::Coarse, false, &mut rng)
        .unwrap();
    let mut after_one = Vec::new();
    for (label, v, key, doc_bits) in [
        ("behz", Variant::Behz, None, 49.0),
        ("hps", Variant::Hps, None, 49.0),
        ("hpr", Variant::Hpr, None, 48.0),
        ("hpr-truncated", Variant::Hpr, Some(&hpr_trunc), 169.0),
        ("hpr-coarse", Variant::Hpr, Some(&hpr_coarse), 128.0),
    ] {
        let pk = ctx.generate_public_key(&sk, v, &mut rng).unwrap();
        let own = ctx.generate_relin_key(&sk, v, &mut rng).unwrap();
        let rlk = key.unwrap_or(&own);
        let m = random_pt(ctx, &mut rng);
        let mut c = ctx.encrypt(&pk, &m, &mut rng).unwrap();
        let mut e = m.coeffs.clone();
        let mut bits = vec![noise_log2(ctx, &sk, &c, &e)];
        for _ in 0..3 {
            e = naive_negacyclic(&e, &e, t);
            let c3 = ctx.mul(&c, &c).unwrap();
            c = ctx.relinearize(&c3, rlk).unwrap();
            bits.push(noise_log2(ctx, &sk, &c, &e));
        }
        assert!(
            (bits[1] - doc_bits).abs() <= 1.0,
            "{label}: {:.0} bits after one squaring, docs/FV.md says {doc_bits}",
            bits[1]
        );
        // Each further squaring adds roughly the same number of bits (no blow-up).
        for w in bits[1..].windows(2) {
            assert!(w[1] - w[0] < 30.0, "{label}: {bits:?}");
        }
        after_one.push(bits[1]);
    }
    // The finding itself: truncated keys (Remark 2) cost far more noise than full keys.
    assert!(after_one[3] > after_one[2] + 100.0, "{after_one:?}");
    assert!(after_one[4] > after_one[2] + 60.0, "{after_one:?}");
}
