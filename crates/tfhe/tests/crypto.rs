//! End-to-end tests of keys, digits, bootstraps and serialization against plain arithmetic
//! mod 32. Keys are generated once (seeded, so every run is reproducible).

use std::sync::OnceLock;

use encint_tfhe::envelope::{open, seal, EnvelopeError, Kind};
use encint_tfhe::{
    signed_rep, ClientKey, Digit, DigitParameters, KeySetId, NegacyclicLut, Reading, ServerKey,
    TfheError, DEFAULT_PARAMETERS, KS64_PARAMETERS,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tfhe::core_crypto::prelude::{LweBootstrapKeyOwned, LweKeyswitchKeyOwned};

fn keys() -> &'static (ClientKey, ServerKey) {
    static KEYS: OnceLock<(ClientKey, ServerKey)> = OnceLock::new();
    KEYS.get_or_init(|| ClientKey::generate_seeded(&DEFAULT_PARAMETERS, 0x5eed_0001))
}

/// Keys of the 64-bit-keyswitch set (the GPU backend's, and that of older key files).
fn keys64() -> &'static (ClientKey, ServerKey) {
    static KEYS: OnceLock<(ClientKey, ServerKey)> = OnceLock::new();
    KEYS.get_or_init(|| ClientKey::generate_seeded(&KS64_PARAMETERS, 0x5eed_0064))
}

/// Both parameter sets' keys.
fn both_sets() -> [&'static (ClientKey, ServerKey); 2] {
    [keys(), keys64()]
}

fn random_lut(rng: &mut StdRng) -> NegacyclicLut {
    let mut values = [0i64; 16];
    for v in &mut values {
        *v = rng.gen_range(-16..16);
    }
    NegacyclicLut::new(values)
}

#[test]
fn encrypt_decrypt_all_digits() {
    let (ck, _) = keys();
    for m in -48i64..48 {
        let c = ck.encrypt_digit(m);
        assert_eq!(ck.decrypt_digit(&c), signed_rep(m), "m = {m}");
        // Fresh noise is tiny: TUniform(17) on 2^64, i.e. below 2^-46 of the torus.
        assert!(ck.phase_error(&c, m).abs() < 2f64.powi(-40));
    }
}

#[test]
fn trivial_digits_decrypt() {
    let (ck, _) = keys();
    for m in -16i64..16 {
        let t = Digit::trivial(m, &DEFAULT_PARAMETERS);
        assert_eq!(ck.decrypt_digit(&t), m);
        assert_eq!(ck.phase_error(&t, m), 0.0);
    }
}

#[test]
fn linear_operations_match_plain_arithmetic() {
    let (ck, _) = keys();
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..40 {
        let (a, b, w1, w2, c) = (
            rng.gen_range(-16i64..16),
            rng.gen_range(-16i64..16),
            rng.gen_range(-9i64..10),
            rng.gen_range(-9i64..10),
            rng.gen_range(-40i64..40),
        );
        let ea = ck.encrypt_digit(a);
        let eb = ck.encrypt_digit(b);
        let mut s = ea.clone();
        s.add_assign(&eb);
        assert_eq!(ck.decrypt_digit(&s), signed_rep(a + b));
        let mut d = ea.clone();
        d.sub_assign(&eb);
        assert_eq!(ck.decrypt_digit(&d), signed_rep(a - b));
        assert_eq!(ck.decrypt_digit(&ea.scale(w1)), signed_rep(a * w1));
        let mut k = ea.clone();
        k.add_constant(c);
        assert_eq!(ck.decrypt_digit(&k), signed_rep(a + c));
        let l = Digit::linear(&[(&ea, w1), (&eb, w2)], c).unwrap();
        assert_eq!(ck.decrypt_digit(&l), signed_rep(a * w1 + b * w2 + c));
    }
    assert_eq!(
        Digit::linear(&[], 3).unwrap_err(),
        TfheError::EmptyLinearCombination
    );
}

#[test]
fn bootstrap_evaluates_negacyclic_tables_on_every_input() {
    for (ck, sk) in both_sets() {
        tables_on_every_input(ck, sk);
    }
}

fn tables_on_every_input(ck: &ClientKey, sk: &ServerKey) {
    let mut rng = StdRng::seed_from_u64(11);
    let mut luts = vec![NegacyclicLut::identity()];
    luts.extend((0..3).map(|_| random_lut(&mut rng)));
    let inputs: Vec<(i64, Digit)> = (0..32).map(|x| (x, ck.encrypt_digit(x))).collect();
    let jobs: Vec<(&Digit, &NegacyclicLut)> = luts
        .iter()
        .flat_map(|l| inputs.iter().map(move |(_, d)| (d, l)))
        .collect();
    let outs = sk.bootstrap_batch(&jobs);
    assert_eq!(outs.len(), jobs.len());
    let mut i = 0;
    for lut in &luts {
        for (x, _) in &inputs {
            assert_eq!(
                ck.decrypt_digit(&outs[i]),
                lut.eval(*x),
                "x = {x}, lut = {lut:?}"
            );
            i += 1;
        }
    }
    // The single-job entry point agrees with the batch.
    let single = sk.bootstrap(&inputs[5].1, &luts[3]);
    assert_eq!(ck.decrypt_digit(&single), luts[3].eval(5));
}

#[test]
fn bootstrap_of_heaviest_allowed_combination() {
    // 3·a + 4·b over independent bootstrap outputs: quadratic weight 9 + 16 = 25.
    let (ck, sk) = keys();
    let id = NegacyclicLut::identity();
    let double = NegacyclicLut::from_fn(|x| 2 * x);
    let mut rng = StdRng::seed_from_u64(13);
    let cases: Vec<(i64, i64)> = (0..12)
        .map(|_| (rng.gen_range(-16..16), rng.gen_range(-16..16)))
        .collect();
    let fresh: Vec<Digit> = cases
        .iter()
        .flat_map(|&(a, b)| [ck.encrypt_digit(a), ck.encrypt_digit(b)])
        .collect();
    let jobs: Vec<_> = fresh.iter().map(|d| (d, &id)).collect();
    let boot = sk.bootstrap_batch(&jobs);
    let combos: Vec<Digit> = boot
        .chunks(2)
        .map(|p| Digit::linear(&[(&p[0], 3), (&p[1], 4)], 1).unwrap())
        .collect();
    let jobs: Vec<_> = combos.iter().map(|d| (d, &double)).collect();
    let outs = sk.bootstrap_batch(&jobs);
    for (((a, b), combo), out) in cases.iter().zip(&combos).zip(&outs) {
        let x = signed_rep(3 * id.eval(*a) + 4 * id.eval(*b) + 1);
        assert_eq!(ck.decrypt_digit(combo), x);
        assert_eq!(ck.decrypt_digit(out), double.eval(x));
    }
}

#[test]
fn one_rotation_reads_the_table_at_every_offset() {
    let (ck, sk) = keys();
    let mut rng = StdRng::seed_from_u64(29);
    let lut = random_lut(&mut rng);
    let offsets: Vec<u8> = (0..32).collect();
    let xs: Vec<i64> = (-16..16).collect();
    let cts: Vec<Digit> = xs.iter().map(|&x| ck.encrypt_digit(x)).collect();
    let jobs: Vec<(&Digit, &NegacyclicLut, &[u8])> =
        cts.iter().map(|c| (c, &lut, &offsets[..])).collect();
    let outs = sk.try_bootstrap_offsets_batch(&jobs).unwrap();
    for (&x, outs) in xs.iter().zip(&outs) {
        assert_eq!(outs.len(), 32);
        for (&o, out) in offsets.iter().zip(outs) {
            // Plain negacyclic evaluation at the shifted point, without the library's table.
            let y = (x + i64::from(o)).rem_euclid(32);
            let want = if y < 16 {
                lut.values[y as usize]
            } else {
                -lut.values[y as usize - 16]
            };
            assert_eq!(
                ck.decrypt_digit(out).rem_euclid(32),
                want.rem_euclid(32),
                "x = {x}, offset {o}"
            );
        }
    }
    let bad: Vec<(&Digit, &NegacyclicLut, &[u8])> = vec![(&cts[0], &lut, &[3, 32][..])];
    assert_eq!(
        sk.try_bootstrap_offsets_batch(&bad).unwrap_err(),
        TfheError::OffsetOutOfRange(32)
    );
}

#[test]
fn bootstrap_many_shares_one_rotation() {
    let (ck, sk) = keys();
    let mut rng = StdRng::seed_from_u64(17);
    let luts = [random_lut(&mut rng), random_lut(&mut rng)];
    for x in 0..32 {
        let c = ck.encrypt_digit(x);
        let outs = sk.bootstrap_many(&c, &luts).unwrap();
        assert_eq!(outs.len(), 2);
        for (lut, out) in luts.iter().zip(&outs) {
            assert_eq!(ck.decrypt_digit(out), lut.eval(x), "x = {x}");
        }
    }
    // The parallel batch form gives the same results.
    let cts: Vec<Digit> = [3i64, -7, 12]
        .iter()
        .map(|&x| ck.encrypt_digit(x))
        .collect();
    let jobs: Vec<(&Digit, &[NegacyclicLut])> = cts.iter().map(|c| (c, &luts[..])).collect();
    let outs = sk.bootstrap_many_batch(&jobs).unwrap();
    for (x, outs) in [3i64, -7, 12].iter().zip(&outs) {
        assert_eq!(outs.len(), 2);
        for (lut, out) in luts.iter().zip(outs) {
            assert_eq!(ck.decrypt_digit(out), lut.eval(*x), "x = {x}");
        }
    }
    let four = luts.repeat(2);
    let bad: Vec<(&Digit, &[NegacyclicLut])> = vec![(&cts[0], &luts[..]), (&cts[1], &four[..])];
    assert_eq!(
        sk.bootstrap_many_batch(&bad).unwrap_err(),
        TfheError::UnsupportedLutCount(4)
    );

    let c = ck.encrypt_digit(1);
    assert_eq!(
        sk.bootstrap_many(&c, &[]).unwrap_err(),
        TfheError::UnsupportedLutCount(0)
    );
    assert_eq!(
        sk.bootstrap_many(&c, &luts.repeat(2)).unwrap_err(),
        TfheError::UnsupportedLutCount(4)
    );
}

#[test]
fn keys_and_digits_survive_envelopes() {
    // Bootstrapping key ~60 MB; keyswitching key ~30 MB (u32 words) or ~60 MB (u64).
    for ((ck, sk), mb) in both_sets().into_iter().zip([80..100, 110..130]) {
        survive_envelopes(ck, sk, mb);
    }
}

fn survive_envelopes(ck: &ClientKey, sk: &ServerKey, mb: std::ops::Range<usize>) {
    let id = ck.params().id();

    let digits: Vec<Digit> = (-3..3).map(|m| ck.encrypt_digit(m)).collect();
    let bytes = seal(Kind::Ciphertext, id, &digits).unwrap();
    let back: Vec<Digit> = open(&bytes, Kind::Ciphertext, id).unwrap();
    assert_eq!(back, digits);

    let ck_bytes = seal(Kind::ClientKey, id, ck).unwrap();
    let ck2: ClientKey = open(&ck_bytes, Kind::ClientKey, id).unwrap();
    // The reloaded key decrypts old ciphertexts and its encryptions decrypt with the original.
    for (m, d) in (-3..3).zip(&digits) {
        assert_eq!(ck2.decrypt_digit(d), m);
        assert_eq!(ck.decrypt_digit(&ck2.encrypt_digit(m)), m);
    }
    assert!(matches!(
        open::<ClientKey>(&ck_bytes, Kind::ServerKey, id).unwrap_err(),
        EnvelopeError::WrongKind { .. }
    ));

    let sk_bytes = seal(Kind::ServerKey, id, sk).unwrap();
    let sk2: ServerKey = open(&sk_bytes, Kind::ServerKey, id).unwrap();
    let lut = NegacyclicLut::from_fn(|x| 5 - x);
    let out = sk2.bootstrap(&digits[1], &lut);
    assert_eq!(ck.decrypt_digit(&out), lut.eval(-2));
    assert!(
        mb.contains(&(sk_bytes.len() >> 20)),
        "{} MB for {id}",
        sk_bytes.len() >> 20
    );
    // Opened as the other set's key: an error.
    let other = if id == DEFAULT_PARAMETERS.id() {
        KS64_PARAMETERS.id()
    } else {
        DEFAULT_PARAMETERS.id()
    };
    assert!(open::<ServerKey>(&sk_bytes, Kind::ServerKey, other).is_err());

    // A server key truncated anywhere is an error, not a panic.
    for cut in [13, 200, sk_bytes.len() / 2, sk_bytes.len() - 1] {
        assert!(open::<ServerKey>(&sk_bytes[..cut], Kind::ServerKey, id).is_err());
    }
}

/// A 64-bit-keyswitch server key in the layout every server key had before the 32-bit
/// keyswitch existed (written here field by field, as the derived serializer of that time did)
/// still loads and bootstraps.
#[test]
fn ks64_server_keys_in_the_old_layout_still_load() {
    #[derive(serde::Serialize)]
    struct OldLayout<'a> {
        params_id: &'a str,
        key_set: KeySetId,
        bsk: &'a LweBootstrapKeyOwned<u64>,
        ksk: &'a LweKeyswitchKeyOwned<u64>,
    }
    let (ck, sk) = keys64();
    let id = KS64_PARAMETERS.id();
    let old = OldLayout {
        params_id: id,
        key_set: sk.key_set(),
        bsk: sk.bootstrap_key(),
        ksk: sk.keyswitch_key().expect("a 64-bit keyswitching key"),
    };
    let bytes = seal(Kind::ServerKey, id, &old).unwrap();
    assert_eq!(bytes, seal(Kind::ServerKey, id, sk).unwrap());
    let back: ServerKey = open(&bytes, Kind::ServerKey, id).unwrap();
    assert_eq!(back.key_set(), sk.key_set());
    let lut = NegacyclicLut::from_fn(|x| 2 * x - 3);
    let out = back.bootstrap(&ck.encrypt_digit(6), &lut);
    assert_eq!(ck.decrypt_digit(&out), lut.eval(6));
    // The 32-bit set has no 64-bit keyswitching key to hand out.
    assert!(keys().1.keyswitch_key().is_none());
}

fn std_dev(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// Root mean square (the spread about zero, which is what decides a failure).
fn rms(xs: &[f64]) -> f64 {
    (xs.iter().map(|x| x * x).sum::<f64>() / xs.len() as f64).sqrt()
}

/// Two outputs of one blind rotation (read at offsets 0 and 8) have the noise of bootstrap
/// outputs, and the correlation of their errors is below 4 standard errors of zero, so
/// their variances add as the circuits' quadratic weights assume; a weight-25 combination
/// `3a + 4b` of the two stays within the set's bound before and after the rotation.
#[test]
fn outputs_of_one_rotation_are_uncorrelated() {
    let (ck, sk) = keys();
    let mut rng = StdRng::seed_from_u64(41);
    let n = 256;
    let lut = random_lut(&mut rng);
    let msgs: Vec<i64> = (0..n).map(|_| rng.gen_range(0..8)).collect();
    let cts: Vec<Digit> = msgs.iter().map(|&m| ck.encrypt_digit(m)).collect();
    let offsets = [0u8, 8];
    let jobs: Vec<(&Digit, &NegacyclicLut, &[u8])> =
        cts.iter().map(|c| (c, &lut, &offsets[..])).collect();
    let outs = sk.try_bootstrap_offsets_batch(&jobs).unwrap();
    let (mut ea, mut eb, mut combo, mut pre) = (vec![], vec![], vec![], vec![]);
    for (&m, o) in msgs.iter().zip(&outs) {
        let (va, vb) = (lut.eval(m), lut.eval(m + 8));
        ea.push(ck.phase_error(&o[0], va));
        eb.push(ck.phase_error(&o[1], vb));
        let c = Digit::linear(&[(&o[0], 3), (&o[1], 4)], 0).unwrap();
        combo.push(ck.phase_error(&c, 3 * va + 4 * vb));
        pre.push(ck.pre_rotation_error(sk, &c, 3 * va + 4 * vb));
    }
    assert_uncorrelated("one rotation, two reads", &ea, &eb, &combo);
    let sp = rms(&pre);
    let sigma_max = DEFAULT_PARAMETERS.max_total_sigma();
    eprintln!(
        "pre-rotation σ {:.3} (σ_max {:.3})",
        sp.log2(),
        sigma_max.log2()
    );
    assert!(
        sp <= sigma_max * allowance(n),
        "σ pre-rotation {sp} > {sigma_max}"
    );
}

/// The allowance on a standard deviation estimated from `m` samples: 4 standard errors.
fn allowance(m: usize) -> f64 {
    1.0 + 4.0 / (2.0 * m as f64).sqrt()
}

/// Asserts that the errors `ea` and `eb` of two bootstrap outputs (on the default set) have
/// at most a bootstrap output's noise, a correlation below 4 standard errors of zero, and
/// that the errors `combo` of their weight-25 combination `3a + 4b` stay within the set's
/// bound.
fn assert_uncorrelated(what: &str, ea: &[f64], eb: &[f64], combo: &[f64]) {
    let p = &DEFAULT_PARAMETERS;
    let sigma_max = p.max_total_sigma();
    let sigma_out_model = sigma_max / p.max_two_norm as f64;
    let n = ea.len();
    let (sa, sb) = (rms(ea), rms(eb));
    let rho = ea.iter().zip(eb).map(|(a, b)| a * b).sum::<f64>() / (n as f64 * sa * sb);
    let sc = rms(combo);
    eprintln!(
        "{what}: σ {:.2} / {:.2} (model {:.2}), ρ {rho:.3}, σ(3a+4b) {:.2} (σ_max {:.3})",
        sa.log2(),
        sb.log2(),
        sigma_out_model.log2(),
        sc.log2(),
        sigma_max.log2()
    );
    for s in [sa, sb] {
        assert!(
            s <= sigma_out_model * allowance(n),
            "{what}: σ_out {s} > {sigma_out_model}"
        );
    }
    assert!(
        rho.abs() < 4.0 / (n as f64).sqrt(),
        "{what}: correlation {rho}"
    );
    assert!(
        sc <= sigma_max * allowance(n),
        "{what}: σ(3a+4b) {sc} > {sigma_max}"
    );
}

/// Rotations sharing one keyswitch give, on both parameter sets, what the single-table
/// calls give against plain arithmetic mod 32: plain tables, half-step tables and a
/// rotation read at offsets on one input, for every digit; bad jobs are typed errors.
#[test]
fn rotations_sharing_one_keyswitch_read_every_table() {
    let mut rng = StdRng::seed_from_u64(43);
    for (ck, sk) in both_sets() {
        let (f, g) = (random_lut(&mut rng), random_lut(&mut rng));
        // Half-step values: odd, in units of Δ/2 (the carry [x ≥ 16] of a sum in 0..32).
        let carry = NegacyclicLut::new([-1; 16]);
        let offsets = [0u8, 8, 20];
        let cts: Vec<Digit> = (0..32).map(|m| ck.encrypt_digit(m)).collect();
        let jobs: Vec<_> = cts
            .iter()
            .map(|c| {
                let rotations = vec![
                    (&f, Reading::Plain),
                    (&g, Reading::Plain),
                    (&carry, Reading::Half),
                    (&f, Reading::Offsets(&offsets[..])),
                ];
                (c, rotations)
            })
            .collect();
        let outs = sk.try_bootstrap_shared_batch(&jobs).unwrap();
        for (m, o) in (0i64..32).zip(&outs) {
            let dec = |d: &Digit| ck.decrypt_digit(d);
            assert_eq!(dec(&o[0][0]), f.eval(m), "f({m})");
            assert_eq!(dec(&o[1][0]), g.eval(m), "g({m})");
            assert_eq!(dec(&o[2][0]), i64::from(m >= 16), "[{m} >= 16]");
            let read: Vec<i64> = o[3].iter().map(dec).collect();
            let want: Vec<i64> = offsets.iter().map(|&k| f.eval(m + i64::from(k))).collect();
            assert_eq!(read, want, "offsets at {m}");
        }
        let even = NegacyclicLut::new([2; 16]);
        let bad = [(&cts[0], vec![(&even, Reading::Half)])];
        assert!(matches!(
            sk.try_bootstrap_shared_batch(&bad),
            Err(TfheError::EvenHalfStep(2))
        ));
        let far = [40u8];
        let bad = [(&cts[0], vec![(&f, Reading::Offsets(&far[..]))])];
        assert!(matches!(
            sk.try_bootstrap_shared_batch(&bad),
            Err(TfheError::OffsetOutOfRange(40))
        ));
    }
}

/// Two tables rotated after one shared keyswitch have the noise of bootstrap outputs and
/// errors correlated below 4 standard errors of zero, so a weight-25 combination `3a + 4b`
/// of the two stays within the set's bound, as the circuits' quadratic weights assume.
#[test]
fn outputs_after_one_keyswitch_are_uncorrelated() {
    let (ck, sk) = keys();
    let mut rng = StdRng::seed_from_u64(47);
    let n = 512;
    let (f, g) = (random_lut(&mut rng), random_lut(&mut rng));
    let msgs: Vec<i64> = (0..n).map(|_| rng.gen_range(0..16)).collect();
    let cts: Vec<Digit> = msgs.iter().map(|&m| ck.encrypt_digit(m)).collect();
    let jobs: Vec<_> = cts
        .iter()
        .map(|c| (c, vec![(&f, Reading::Plain), (&g, Reading::Plain)]))
        .collect();
    let outs = sk.try_bootstrap_shared_batch(&jobs).unwrap();
    let (mut ea, mut eb, mut combo) = (vec![], vec![], vec![]);
    for (&m, o) in msgs.iter().zip(&outs) {
        let (va, vb) = (f.eval(m), g.eval(m));
        ea.push(ck.phase_error(&o[0][0], va));
        eb.push(ck.phase_error(&o[1][0], vb));
        let c = Digit::linear(&[(&o[0][0], 3), (&o[1][0], 4)], 0).unwrap();
        combo.push(ck.phase_error(&c, 3 * va + 4 * vb));
    }
    assert_uncorrelated("one keyswitch, two rotations", &ea, &eb, &combo);
}

/// Measured noise against the model implied by the parameter set's failure probability,
/// with statistical bounds that can fail.
///
/// Model: the set guarantees `P(fail) = 2^-129.581` when the blind-rotation input error
/// (input noise through keyswitch + modulus switch) comes from a combination of bootstrap
/// outputs with 2-norm 5 (quadratic weight 25). For a centered Gaussian that means the
/// pre-rotation standard deviation is at most `σ_max = (Δ/2)/z` with
/// `P(|N(0,1)| >= z) = 2^-129.581` (`z ≈ 13.2`), and one bootstrap output has
/// `σ_out <= σ_max / 5`.
///
/// Threshold derivation. Over `m` independent centred Gaussian samples the estimate `ŝ` of a
/// standard deviation `s` has relative standard error `1/sqrt(2m)`. We accept when
/// `ŝ <= σ_bound · (1 + 4/sqrt(2m))`: if the claim holds (`s <= σ_bound`) the test fails with
/// probability below `P(N(0,1) > 4) ≈ 3·10^-5`; if `s >= σ_bound · (1 + 8/sqrt(2m))` it
/// fails with probability above 1/2. For the pre-rotation error we count `m = 2048` (see
/// below), so the accepted excess is 6.25 % on σ: a measurement that would put the failure
/// probability at `2^-115` or above (`z = 13.2 / 1.0625 ≈ 12.4`,
/// ln P ≈ -z²/2 - ln(z·sqrt(π/2))) fails, and a set whose real failure probability is
/// `2^-103` or worse (σ 12.5 % above σ_max) fails with probability above 1/2. (The former
/// allowance, 25 % on σ over 128 samples, accepted `z ≈ 10.6`, i.e. about `2^-85`.)
///
/// Samples: 256 bootstrap outputs (one bootstrap each). The pre-rotation errors are taken on
/// `3·a_i + 4·a_{i+k}` for `k = 1..=16` (4096 combinations): every combination is
/// keyswitched and modulus-switched on its own (those noises, which dominate, are fresh per
/// ciphertext), while the outputs' own noise (about 2^-5 of the total variance, measured)
/// is shared between combinations; the bound counts only `m = 2048` samples to stay
/// conservative about that sharing.
#[test]
fn noise_matches_model() {
    let (ck, sk) = keys();
    noise_check(ck, sk, &DEFAULT_PARAMETERS);
}

/// [`noise_matches_model`] for the 64-bit-keyswitch set.
#[test]
fn noise_matches_model_ks64() {
    let (ck, sk) = keys64();
    noise_check(ck, sk, &KS64_PARAMETERS);
}

fn noise_check(ck: &ClientKey, sk: &ServerKey, p: &DigitParameters) {
    let sigma_max = p.max_total_sigma();
    let sigma_out_model = sigma_max / p.max_two_norm as f64;
    let mut rng = StdRng::seed_from_u64(23);

    let n = 256;
    let msgs: Vec<i64> = (0..n).map(|_| rng.gen_range(-16..16)).collect();
    let luts: Vec<NegacyclicLut> = (0..n).map(|_| random_lut(&mut rng)).collect();
    let fresh: Vec<Digit> = msgs.iter().map(|&m| ck.encrypt_digit(m)).collect();
    let jobs: Vec<_> = fresh.iter().zip(&luts).collect();
    let outs = sk.bootstrap_batch(&jobs);
    let expected: Vec<i64> = msgs.iter().zip(&luts).map(|(&m, l)| l.eval(m)).collect();
    let errs: Vec<f64> = outs
        .iter()
        .zip(&expected)
        .map(|(c, &e)| ck.phase_error(c, e))
        .collect();
    let (mean_out, _) = std_dev(&errs);
    let sigma_out = rms(&errs);

    // Independent pairs (each output once): the noise of a weight-25 combination itself.
    let mut combo_errs = Vec::new();
    for (pair, e) in outs.chunks(2).zip(expected.chunks(2)) {
        let c = Digit::linear(&[(&pair[0], 3), (&pair[1], 4)], 0).unwrap();
        combo_errs.push(ck.phase_error(&c, 3 * e[0] + 4 * e[1]));
    }
    let sigma_combo = rms(&combo_errs);
    // The blind-rotation inputs of weight-25 combinations.
    let mut pre_errs = Vec::new();
    for k in 1..=16 {
        for i in 0..n {
            let j = (i + k) % n;
            let c = Digit::linear(&[(&outs[i], 3), (&outs[j], 4)], 0).unwrap();
            pre_errs.push(ck.pre_rotation_error(sk, &c, 3 * expected[i] + 4 * expected[j]));
        }
    }
    let (mean_pre, _) = std_dev(&pre_errs);
    let sigma_pre = rms(&pre_errs);

    let log2 = |x: f64| x.log2();
    eprintln!(
        "noise (log2 of torus fractions): model σ_max {:.3}, σ_out model {:.2}; \
         measured σ_out {:.2} (mean {:.2e}), σ(3a+4b) {:.2}, σ pre-rotation {:.3} (mean {:.2e}, \
         ratio to σ_max {:.4}, accepted up to {:.4})",
        log2(sigma_max),
        log2(sigma_out_model),
        log2(sigma_out),
        mean_out,
        log2(sigma_combo),
        log2(sigma_pre),
        mean_pre,
        sigma_pre / sigma_max,
        allowance(pre_errs.len() / 2),
    );
    assert!(
        sigma_out <= sigma_out_model * allowance(n),
        "σ_out {sigma_out} > model {sigma_out_model}"
    );
    assert!(
        sigma_combo <= sigma_max * allowance(n / 2),
        "σ(3a+4b) {sigma_combo} > {sigma_max}"
    );
    assert!(
        sigma_pre <= sigma_max * allowance(pre_errs.len() / 2),
        "σ pre-rotation {sigma_pre} > σ_max {sigma_max} · {}: the measured noise does not \
         support p-fail 2^-129.6 at weight 25",
        allowance(pre_errs.len() / 2)
    );
    // Errors are centered: |mean| below 4 standard errors.
    assert!(mean_out.abs() < 4.0 * sigma_out / (n as f64).sqrt());
    assert!(mean_pre.abs() < 4.0 * sigma_pre / ((pre_errs.len() / 2) as f64).sqrt());
    // Sanity: the measured noise is not zero (the measurement itself works).
    assert!(sigma_out > 0.0 && sigma_pre > sigma_combo);
}

#[test]
fn half_step_bootstrap_gives_unit_carries() {
    let (ck, sk) = keys();
    // h = -1 on 0..16 (so +1 on 16..32): (h + 1) / 2 is the carry [x >= 16] of a sum in 0..32.
    let carry = NegacyclicLut::new([-1; 16]);
    // Another family: h(x) = 2·(x mod 4) - 3, odd; f(x + 16) = 1 - f(x).
    let other = NegacyclicLut::from_fn(|x| 2 * (x % 4) - 3);
    let digits: Vec<Digit> = (0..32).map(|x| ck.encrypt_digit(x)).collect();
    let jobs: Vec<(&Digit, &NegacyclicLut)> = digits
        .iter()
        .flat_map(|d| [(d, &carry), (d, &other)])
        .collect();
    let out = sk.try_bootstrap_half_batch(&jobs).unwrap();
    for x in 0..32i64 {
        let c = ck.decrypt_digit(&out[2 * x as usize]);
        assert_eq!(c, (x >= 16) as i64, "carry of {x}");
        let h = if x < 16 {
            2 * (x % 4) - 3
        } else {
            -(2 * ((x - 16) % 4) - 3)
        };
        assert_eq!(
            ck.decrypt_digit(&out[2 * x as usize + 1]),
            (h + 1) / 2,
            "x = {x}"
        );
    }
    let even = NegacyclicLut::new([2; 16]);
    assert!(sk.try_bootstrap_half_batch(&[(&digits[0], &even)]).is_err());
}
