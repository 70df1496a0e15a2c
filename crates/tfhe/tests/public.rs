//! Public-key encryption: round trips against the plain digits, typed errors for bad or
//! foreign input, and the measured noise of public-key and seeded digits against their
//! models.

use encint_tfhe::envelope::{open, seal};
use encint_tfhe::public::{compact_phase_variance, t_uniform_variance};
use encint_tfhe::{
    ClientKey, CompactDigits, EnvelopeError, Kind, PublicKey, Upload, DEFAULT_PARAMETERS,
};
use rand::{Rng, SeedableRng};

mod common;

use common::public_keys as keys;
use common::{assert_only_its_key_set_expands, expanded};

fn random_digits(n: usize, seed: u64) -> Vec<i64> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.gen_range(-16..16)).collect()
}

/// The public key through its envelope, by someone who holds only those bytes: the digits
/// it encrypts (more than one mask polynomial's worth) decrypt to the plain values.
#[test]
fn public_key_encryptions_decrypt_to_the_values() {
    let k = keys();
    let bytes = seal(Kind::PublicKey, DEFAULT_PARAMETERS.id(), &k.pk).unwrap();
    assert_eq!(
        bytes.len(),
        13 + DEFAULT_PARAMETERS.id().len() + PublicKey::encoded_len(&DEFAULT_PARAMETERS)
    );
    let pk: PublicKey = open(&bytes, Kind::PublicKey, DEFAULT_PARAMETERS.id()).unwrap();
    assert_eq!(pk, k.pk);
    assert_eq!(pk.key_set(), k.ck.key_set());
    for n in [0usize, 1, 33, 2048, 2049] {
        let values = random_digits(n, n as u64);
        let list = pk.encrypt_digits(&values).unwrap();
        assert_eq!(list.len(), n);
        let wire = list.to_bytes();
        assert_eq!(wire.len(), CompactDigits::encoded_len(n));
        let back = CompactDigits::from_bytes(&wire).unwrap();
        let digits = back.expand_for(&k.sk).unwrap();
        let got: Vec<i64> = digits.iter().map(|d| k.ck.decrypt_digit(d)).collect();
        assert_eq!(got, values, "{n} digits");
    }
    // 64 u16 (1024 digits) fit in 4·(2048 + 1024) bytes plus the header.
    assert_eq!(CompactDigits::encoded_len(1024), 40 + 4 * 3072);
}

/// Expanded public-key digits compute: a bootstrap of a sum of two gives the table's value.
#[test]
fn public_key_digits_bootstrap() {
    let k = keys();
    let lut = encint_tfhe::NegacyclicLut::from_fn(|x| 3 * x - 1);
    let d = expanded(k.pk.encrypt_digits(&[5, -7]));
    let sum = encint_tfhe::Digit::linear(&[(&d[0], 1), (&d[1], 2)], 0).unwrap();
    let out = k.sk.bootstrap(&sum, &lut);
    assert_eq!(k.ck.decrypt_digit(&out), lut.eval(5 - 14));
}

/// Another key set, truncated or altered bytes: typed errors, never a panic.
#[test]
fn foreign_and_damaged_public_inputs_are_errors() {
    let k = keys();
    let (ck2, sk2) = ClientKey::generate_seeded(&DEFAULT_PARAMETERS, 4243);
    let list = ck2.public_key().encrypt_digits(&[1, 2, 3]).unwrap();
    assert_only_its_key_set_expands(|sk| list.expand_for(sk), &k.sk, (&ck2, &sk2), 3);

    let id = DEFAULT_PARAMETERS.id();
    let key_bytes = seal(Kind::PublicKey, id, &k.pk).unwrap();
    for cut in [5, 20, key_bytes.len() / 2, key_bytes.len() - 1] {
        assert!(open::<PublicKey>(&key_bytes[..cut], Kind::PublicKey, id).is_err());
    }
    // A public key is not a server key, and another parameter set's name is refused.
    assert!(matches!(
        open::<PublicKey>(&key_bytes, Kind::ServerKey, id),
        Err(EnvelopeError::WrongKind { .. })
    ));
    assert!(open::<PublicKey>(
        &key_bytes,
        Kind::PublicKey,
        encint_tfhe::KS64_PARAMETERS.id()
    )
    .is_err());

    let bytes =
        k.pk.encrypt_digits(&random_digits(10, 1))
            .unwrap()
            .to_bytes();
    for cut in 0..bytes.len() - 1 {
        if cut % 7 == 0 || cut < 48 {
            assert!(
                CompactDigits::from_bytes(&bytes[..cut]).is_err(),
                "cut {cut}"
            );
        }
    }
    // The dimension altered, the body count altered (masks no longer match), a trailing byte.
    let mut dim = bytes.clone();
    dim[16] ^= 1;
    assert!(matches!(
        CompactDigits::from_bytes(&dim),
        Err(EnvelopeError::Malformed(_))
    ));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(CompactDigits::from_bytes(&longer).is_err());
    // A huge mask count is refused before allocating.
    let mut huge = bytes.clone();
    huge[24..32].copy_from_slice(&(1u64 << 61).to_le_bytes());
    assert!(CompactDigits::from_bytes(&huge).is_err());
}

/// Sample mean and variance of `xs`.
fn mean_var(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

/// Two-sided check of a sample variance against a model: over `m` independent samples
/// of a near-Gaussian error the estimate's relative standard error is `sqrt(2/m)`; we
/// accept within 4 of them (a correct model fails with probability about `6·10^-5`; one
/// off by 25 % in variance fails with probability above 1/2 at `m >= 2048`).
fn check_variance(what: &str, errs: &[f64], model: f64, m: usize) {
    let (mean, var) = mean_var(errs);
    let tol = 4.0 * (2.0 / m as f64).sqrt();
    eprintln!(
        "{what}: σ measured 2^{:.3}, model 2^{:.3} (variance ratio {:.4}, accepted 1 ± {tol:.4}), mean {mean:.2e}",
        var.sqrt().log2(),
        model.sqrt().log2(),
        var / model
    );
    assert!(
        (var / model - 1.0).abs() <= tol,
        "{what}: variance {var:e}, model {model:e}"
    );
    assert!(
        mean.abs() < 4.0 * (model / m as f64).sqrt(),
        "{what}: mean {mean:e}"
    );
}

/// Public-key digits: the phase error's sample variance against
/// [`compact_phase_variance`] (public-key noise and the rounding to 32 bits), and far below
/// a bootstrap output's bound, the noise every circuit assumes of an input digit.
///
/// The digits of one compact list share its mask, `r` and `e1`, so their errors are
/// correlated (each has the model's variance, but not independently: the key's ones
/// weight overlapping sets of the same rounding errors). Independent samples therefore
/// come from separate lists: 2048 lists of one digit each.
#[test]
fn public_key_noise_matches_model() {
    let k = keys();
    let p = DEFAULT_PARAMETERS;
    let model = compact_phase_variance(&p, k.ck.big_key_weight());
    let values = random_digits(2048, 100);
    let errs: Vec<f64> = values
        .iter()
        .map(|&v| {
            let d = expanded(k.pk.encrypt_digits(&[v]));
            k.ck.phase_error(&d[0], v)
        })
        .collect();
    check_variance("public-key digits", &errs, model, errs.len());
    let sigma_out_bound = p.max_total_sigma() / p.max_two_norm as f64;
    assert!(model.sqrt() < sigma_out_bound / 1000.0);
}

/// Seeded digits: the phase error's sample variance against the GLWE noise distribution
/// (TUniform with bound `2^17`), the variance of a secret-key encryption.
#[test]
fn seeded_noise_matches_model() {
    let k = keys();
    let values = random_digits(4096, 7);
    let digits = expanded(k.ck.encrypt_digits_seeded(&values));
    let errs: Vec<f64> = digits
        .iter()
        .zip(&values)
        .map(|(d, &v)| k.ck.phase_error(d, v))
        .collect();
    let model = t_uniform_variance(17) / 2f64.powi(128);
    check_variance("seeded digits", &errs, model, errs.len());
}
