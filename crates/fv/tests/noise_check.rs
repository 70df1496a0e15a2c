//! FV never decrypts to a wrong value without an error: products past a set's depth are
//! refused before any work, and decryption measures the noise of every ciphertext
//! (secret-key side) and refuses one whose noise reached the bound. Each result below is
//! compared with plain arithmetic modulo `t`.

use encint_fv::bfv::{
    BatchEncoder, Ciphertext, FvContext, FvParameters, Plaintext, PublicKey, RelinKey, SecretKey,
    Variant,
};
use encint_fv::FvError;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

struct Keys {
    ctx: FvContext,
    enc: BatchEncoder,
    sk: SecretKey,
    pk: PublicKey,
    rlk: RelinKey,
}

fn keys(params: FvParameters, variant: Variant, seed: u64) -> Keys {
    let ctx = FvContext::new(params).unwrap();
    let enc = BatchEncoder::new(&ctx).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = SecretKey::generate(&ctx, &mut rng);
    let pk = ctx.generate_public_key(&sk, variant, &mut rng).unwrap();
    let rlk = ctx.generate_relin_key(&sk, variant, &mut rng).unwrap();
    Keys {
        ctx,
        enc,
        sk,
        pk,
        rlk,
    }
}

fn random_slots(k: &Keys, rng: &mut ChaCha20Rng) -> Vec<u64> {
    let p = k.ctx.parameters();
    (0..p.n).map(|_| rng.gen_range(0..p.t)).collect()
}

fn encrypt(k: &Keys, v: &[u64], rng: &mut ChaCha20Rng) -> Ciphertext {
    let pt = k.enc.encode(&k.ctx, v).unwrap();
    k.ctx.encrypt(&k.pk, &pt, rng).unwrap()
}

/// `Ok(slots)` or the decryption's error.
fn decrypt(k: &Keys, c: &Ciphertext) -> Result<Vec<u64>, FvError> {
    k.ctx.decrypt(&k.sk, c).map(|p| k.enc.decode(&p).unwrap())
}

fn square_mod(v: &[u64], t: u64) -> Vec<u64> {
    v.iter()
        .map(|&x| ((x as u128 * x as u128) % t as u128) as u64)
        .collect()
}

/// Repeated squaring on the default 128-bit set: every decryption up to the set's depth is
/// right, and the product past it is refused before any work.
#[test]
fn squaring_past_the_sets_depth_is_refused() {
    for (variant, seed) in [(Variant::Hpr, 1), (Variant::Hps, 2)] {
        let k = keys(FvParameters::default_8192(), variant, seed);
        let p = k.ctx.parameters().clone();
        let max = p.max_depth.expect("the 128-bit sets are measured");
        let mut rng = ChaCha20Rng::seed_from_u64(seed + 10);
        let mut expect = random_slots(&k, &mut rng);
        let mut c = encrypt(&k, &expect, &mut rng);
        for depth in 1..=max {
            c = k.ctx.mul_relin(&c, &c, &k.rlk).unwrap();
            expect = square_mod(&expect, p.t);
            assert_eq!(c.depth(), depth);
            assert_eq!(
                decrypt(&k, &c).unwrap(),
                expect,
                "{variant:?}, depth {depth}"
            );
        }
        match k.ctx.mul_relin(&c, &c, &k.rlk) {
            Err(FvError::DepthExceeded {
                depth, max: m, set, ..
            }) => {
                assert_eq!((depth, m), (max + 1, max));
                assert_eq!(set, p.name);
            }
            other => panic!("{variant:?}: product past depth {max} gave {other:?}"),
        }
    }
}

/// Without the depth limit, squaring goes on until the noise wraps around: every
/// decryption is either right or refused with `NoiseBudgetExhausted`, never wrong, and the
/// refusal comes (within a few levels past the measured depth).
#[test]
fn decryption_refuses_wrapped_noise_instead_of_a_wrong_value() {
    for (variant, seed) in [(Variant::Hpr, 3), (Variant::Hps, 4), (Variant::Behz, 5)] {
        let params = FvParameters {
            max_depth: None,
            ..FvParameters::default_8192()
        };
        let measured = FvParameters::default_8192().max_depth.unwrap();
        let k = keys(params, variant, seed);
        let t = k.ctx.parameters().t;
        let mut rng = ChaCha20Rng::seed_from_u64(seed + 10);
        let mut expect = random_slots(&k, &mut rng);
        let mut c = encrypt(&k, &expect, &mut rng);
        let mut refused_at = None;
        for depth in 1..=measured + 3 {
            c = k.ctx.mul_relin(&c, &c, &k.rlk).unwrap();
            expect = square_mod(&expect, t);
            match decrypt(&k, &c) {
                Ok(v) => assert_eq!(
                    v, expect,
                    "{variant:?}: silent wrong value at depth {depth}"
                ),
                Err(FvError::NoiseBudgetExhausted { distance_permille }) => {
                    assert!(distance_permille > 250, "{distance_permille}");
                    refused_at = Some(depth);
                    break;
                }
                Err(e) => panic!("{variant:?}: {e}"),
            }
        }
        let at = refused_at.unwrap_or_else(|| panic!("{variant:?}: never refused"));
        assert!(
            at > measured,
            "{variant:?}: refused at {at}, set depth {measured}"
        );
    }
}

/// Noise grown by additions alone (doubling `x` each step, no product, so no depth): the
/// plaintext doubles mod `t` and the noise doubles until it wraps; every decryption is
/// right or refused, and one is refused.
#[test]
fn additions_that_exhaust_the_noise_are_refused() {
    for (variant, seed) in [(Variant::Hpr, 6), (Variant::Hps, 7)] {
        let k = keys(FvParameters::default_8192(), variant, seed);
        let t = k.ctx.parameters().t;
        let mut rng = ChaCha20Rng::seed_from_u64(seed + 10);
        let mut expect = random_slots(&k, &mut rng);
        let mut c = encrypt(&k, &expect, &mut rng);
        let mut refused = false;
        for step in 1..=400 {
            c = k.ctx.add(&c, &c).unwrap();
            assert_eq!(c.depth(), 0);
            expect = expect.iter().map(|&x| (2 * x) % t).collect();
            match decrypt(&k, &c) {
                Ok(v) => assert_eq!(v, expect, "{variant:?}: silent wrong value at step {step}"),
                Err(FvError::NoiseBudgetExhausted { .. }) => {
                    refused = true;
                    break;
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert!(
            refused,
            "{variant:?}: 400 doublings never exhausted the noise"
        );
    }
}

/// The floating-point check agrees with the exact noise budget (BigInt CRT) of the RNS
/// variants: budget = -log2(2 · distance), within 0.01 bit while the budget is below 40
/// bits. The budget is lowered a bit at a time by doubling a ciphertext of depth 3.
#[test]
fn rounding_distance_matches_the_exact_noise_budget() {
    for (variant, seed) in [(Variant::Hps, 8), (Variant::Behz, 28)] {
        let k = keys(FvParameters::default_8192(), variant, seed);
        let mut rng = ChaCha20Rng::seed_from_u64(seed + 10);
        let v = random_slots(&k, &mut rng);
        let mut c = encrypt(&k, &v, &mut rng);
        for _ in 0..3 {
            c = k.ctx.mul_relin(&c, &c, &k.rlk).unwrap();
        }
        let mut checked = 0;
        loop {
            let exact = k.ctx.noise_budget(&k.sk, &c).unwrap();
            if exact < 1.0 {
                break;
            }
            if exact < 40.0 {
                let fast = k.ctx.rounding_distance(&k.sk, &c).unwrap();
                let from_fast = -(2.0 * fast).log2();
                assert!(
                    (from_fast - exact).abs() < 0.01,
                    "{variant:?}: exact budget {exact}, from the rounding distance {from_fast}"
                );
                checked += 1;
            }
            c = k.ctx.add(&c, &c).unwrap();
        }
        assert!(
            checked >= 30,
            "{variant:?}: only {checked} budgets compared"
        );
    }
}

/// A plaintext product counts as a level: past the depth it is refused too.
#[test]
fn plaintext_products_count_as_depth() {
    let k = keys(FvParameters::default_8192(), Variant::Hps, 9);
    let max = k.ctx.parameters().max_depth.unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(19);
    let v = random_slots(&k, &mut rng);
    let mut c = encrypt(&k, &v, &mut rng);
    let two = k
        .enc
        .encode(&k.ctx, &vec![2; k.ctx.parameters().n])
        .unwrap();
    for d in 1..=max {
        c = k.ctx.mul_plain(&c, &two).unwrap();
        assert_eq!(c.depth(), d);
    }
    assert!(matches!(
        k.ctx.mul_plain(&c, &two),
        Err(FvError::DepthExceeded { .. })
    ));
    let t = k.ctx.parameters().t;
    let factor = (0..max).fold(1u128, |a, _| a * 2 % t as u128);
    let want: Vec<u64> = v
        .iter()
        .map(|&x| (x as u128 * factor % t as u128) as u64)
        .collect();
    assert_eq!(decrypt(&k, &c).unwrap(), want);
    let _ = Plaintext::new(&k.ctx, vec![0; k.ctx.parameters().n]).unwrap();
}
