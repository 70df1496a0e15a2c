//! Compressed nibble input/output: round trips, sizes and typed errors.

use encint_tfhe::io::{
    IoError, PackedNibbles, PackingKey, SeededDigits, SeededNibbles, Upload, MAX_NIBBLES,
};
use encint_tfhe::{
    envelope, ClientKey, Digit, EnvelopeError, Kind, NegacyclicLut, TfheError, DEFAULT_PARAMETERS,
};
use rand::{Rng, SeedableRng};

mod common;

use common::assert_only_its_key_set_expands;
use common::packing_keys as keys;

fn random_nibbles(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.gen_range(0..16)).collect()
}

/// The wire form both compressed encodings share: bytes, their length for `count`
/// nibbles, and the reader.
trait Wire: serde::Serialize + PartialEq + std::fmt::Debug + Sized {
    fn wire_bytes(&self) -> Vec<u8>;
    fn wire_len(count: usize) -> usize;
    fn read_wire(bytes: &[u8]) -> Result<Self, EnvelopeError>;
}

macro_rules! wire {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            fn wire_bytes(&self) -> Vec<u8> {
                self.to_bytes()
            }
            fn wire_len(count: usize) -> usize {
                <$t>::encoded_len(count)
            }
            fn read_wire(bytes: &[u8]) -> Result<Self, EnvelopeError> {
                <$t>::from_bytes(bytes)
            }
        }
    )*};
}

wire!(SeededNibbles, PackedNibbles);

/// `x`, of `n` nibbles, through its wire form: of the stated length, bincode's encoding of
/// `x`, and read back equal to `x`. Returns what was read.
fn through_bytes<T: Wire>(x: &T, n: usize) -> T {
    let bytes = x.wire_bytes();
    assert_eq!(bytes.len(), T::wire_len(n));
    assert_eq!(bytes, bincode::serialize(x).unwrap());
    let back = T::read_wire(&bytes).unwrap();
    assert_eq!(&back, x);
    back
}

#[test]
fn seeded_uplink_round_trip() {
    let k = keys();
    for n in [0usize, 1, 37, 600] {
        let values = random_nibbles(n, n as u64);
        let seeded = k.ck.encrypt_nibbles_seeded(&values).unwrap();
        assert_eq!(seeded.len(), n);
        let back = through_bytes(&seeded, n);
        let digits = back.expand().unwrap();
        assert_eq!(digits.len(), n);
        for (d, &v) in digits.iter().zip(&values) {
            assert_eq!(d.lwe_dimension(), 2048);
            assert_eq!(k.ck.decrypt_digit(d), i64::from(v));
            // Fresh-encryption noise (GLWE distribution, σ ≈ 2^-47.8).
            assert!(k.ck.phase_error(d, i64::from(v)).abs() < 2f64.powi(-40));
        }
    }
}

#[test]
fn expanded_digits_bootstrap_correctly() {
    let k = keys();
    let values = random_nibbles(8, 5);
    let digits =
        k.ck.encrypt_nibbles_seeded(&values)
            .unwrap()
            .expand()
            .unwrap();
    let lut = NegacyclicLut::from_fn(|x| 15 - x);
    for (d, &v) in digits.iter().zip(&values) {
        let out = k.sk.bootstrap(d, &lut);
        assert_eq!(k.ck.decrypt_digit(&out), lut.eval(i64::from(v)));
    }
}

#[test]
fn seeded_uplink_errors() {
    let k = keys();
    assert_eq!(
        k.ck.encrypt_nibbles_seeded(&[1, 2, 16, 3]).unwrap_err(),
        TfheError::Io(IoError::NotANibble {
            index: 2,
            value: 16
        })
    );
    assert!(matches!(
        k.ck.encrypt_nibbles_seeded(&vec![0u8; MAX_NIBBLES + 1]),
        Err(TfheError::Io(IoError::TooMany { .. }))
    ));
    let bytes = k.ck.encrypt_nibbles_seeded(&[1, 2, 3]).unwrap().to_bytes();
    let malformed = |b: &[u8]| {
        matches!(
            SeededNibbles::from_bytes(b),
            Err(EnvelopeError::Malformed(_))
        )
    };
    // Truncated anywhere, one byte too many, garbage.
    for cut in 0..bytes.len() {
        assert!(malformed(&bytes[..cut]), "cut at {cut}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(malformed(&longer));
    assert!(malformed(b"definitely not a ciphertext list"));
    // Wrong dimension (bytes 32..40, after the key set and the seed).
    let mut dim = bytes.clone();
    dim[32..40].copy_from_slice(&1024u64.to_le_bytes());
    assert!(malformed(&dim));
    // Wrong count: more bodies announced than present, and a huge count.
    let mut count = bytes.clone();
    count[40..48].copy_from_slice(&4u64.to_le_bytes());
    assert!(malformed(&count));
    count[40..48].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert!(malformed(&count));
    // Over MAX_NIBBLES bodies, all present: rejected by the count bound.
    let mut over = bytes[..40].to_vec();
    over.extend_from_slice(&((MAX_NIBBLES + 1) as u64).to_le_bytes());
    over.resize(over.len() + 8 * (MAX_NIBBLES + 1), 0);
    assert!(malformed(&over));
}

#[test]
fn seeded_uplink_in_an_envelope() {
    let k = keys();
    let id = DEFAULT_PARAMETERS.id();
    let seeded = k.ck.encrypt_nibbles_seeded(&[7, 0, 15]).unwrap();
    let bytes = envelope::seal(Kind::Ciphertext, id, &seeded).unwrap();
    let back: SeededNibbles = envelope::open(&bytes, Kind::Ciphertext, id).unwrap();
    let d = back.expand().unwrap();
    let got: Vec<i64> = d.iter().map(|d| k.ck.decrypt_digit(d)).collect();
    assert_eq!(got, vec![7, 0, 15]);
}

/// Realistic downlink input: nibbles that went through a bootstrap (output noise), some
/// summed with weight 2 into digits outside 0..16.
#[test]
fn packed_downlink_round_trip_of_bootstrap_outputs() {
    let k = keys();
    let n = 2048 + 300; // two GLWEs, the second partly filled
    let values = random_nibbles(n, 77);
    let fresh: Vec<Digit> = values
        .iter()
        .map(|&v| k.ck.encrypt_digit(i64::from(v)))
        .collect();
    let lut = NegacyclicLut::identity();
    // Bootstrap a sample (bootstraps are the slow part); the rest stay fresh.
    let mut digits = fresh.clone();
    let jobs: Vec<(&Digit, &NegacyclicLut)> = fresh.iter().step_by(8).map(|d| (d, &lut)).collect();
    let outs = k.sk.bootstrap_batch(&jobs);
    for (i, out) in outs.into_iter().enumerate() {
        digits[i * 8] = out;
    }
    // A few weight-5 combinations (quadratic weight 25): 5·x, read mod 32.
    let mut expected: Vec<u8> = values.clone();
    for i in (0..n).step_by(97) {
        digits[i] = digits[i].scale(5);
        expected[i] = (5 * values[i]) % 32;
    }
    let packed = k.pk.pack(&digits).unwrap();
    assert_eq!(packed.len(), n);
    let back = through_bytes(&packed, n);
    assert_eq!(k.ck.decrypt_packed(&back).unwrap(), expected);
}

#[test]
fn packed_downlink_small_and_empty() {
    let k = keys();
    for n in [0usize, 1, 16] {
        let values = random_nibbles(n, 3 + n as u64);
        let digits =
            k.ck.encrypt_nibbles_seeded(&values)
                .unwrap()
                .expand()
                .unwrap();
        let packed = k.pk.pack(&digits).unwrap();
        let back = PackedNibbles::from_bytes(&packed.to_bytes()).unwrap();
        assert_eq!(k.ck.decrypt_packed(&back).unwrap(), values);
    }
}

#[test]
fn packed_downlink_errors() {
    let k = keys();
    let digits: Vec<Digit> = (0..5).map(|v| k.ck.encrypt_digit(v)).collect();
    let bytes = k.pk.pack(&digits).unwrap().to_bytes();
    let malformed = |b: &[u8]| {
        matches!(
            PackedNibbles::from_bytes(b),
            Err(EnvelopeError::Malformed(_))
        )
    };
    for cut in (0..bytes.len()).step_by(7) {
        assert!(malformed(&bytes[..cut]), "cut at {cut}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(malformed(&longer));
    assert!(malformed(&[0xff; 64]));
    // Wrong count (more or fewer digits than the words hold), wrong N, wrong b (all after
    // the 16-byte key set).
    for (range, value) in [
        (16..24, 10u64),
        (16..24, 4),
        (16..24, u64::MAX),
        (32..40, 1024),
        (24..32, 0),
    ] {
        let mut b = bytes.clone();
        b[range].copy_from_slice(&value.to_le_bytes());
        assert!(malformed(&b), "{value}");
    }
    let mut b = bytes.clone();
    b[40..44].copy_from_slice(&16u32.to_le_bytes());
    assert!(malformed(&b));
    // Non-zero padding bits in the last word.
    let mut b = bytes.clone();
    let last = b.len() - 1;
    b[last] |= 0x80;
    assert!(malformed(&b));
}

#[test]
fn packing_key_serialization_is_validated() {
    let k = keys();
    let bytes = bincode::serialize(&k.pk).unwrap();
    let back: PackingKey = bincode::deserialize(&bytes).unwrap();
    let digits: Vec<Digit> = (0..3).map(|v| k.ck.encrypt_digit(v + 4)).collect();
    assert_eq!(
        k.ck.decrypt_packed(&back.pack(&digits).unwrap()).unwrap(),
        vec![4, 5, 6]
    );
    // Truncation anywhere in the key data is an error, not a panic.
    assert!(bincode::deserialize::<PackingKey>(&bytes[..bytes.len() - 8]).is_err());
    assert!(bincode::deserialize::<PackingKey>(&bytes[..200]).is_err());
}

#[test]
fn packets_of_another_key_set_are_refused() {
    let k = keys();
    let (ck2, sk2) = ClientKey::generate_seeded(&DEFAULT_PARAMETERS, 2025);
    assert_ne!(ck2.key_set(), k.ck.key_set());
    // Uplink: the server refuses to expand another key set's nibbles.
    let seeded = ck2.encrypt_nibbles_seeded(&[1, 2, 3]).unwrap();
    let back = SeededNibbles::from_bytes(&seeded.to_bytes()).unwrap();
    assert_eq!(back.key_set(), ck2.key_set());
    assert_only_its_key_set_expands(|sk| back.expand_for(sk), &k.sk, (&ck2, &sk2), 3);
    // Downlink: decrypting digits packed under another key set is an error, not garbage.
    let digits =
        k.ck.encrypt_nibbles_seeded(&[4, 5])
            .unwrap()
            .expand()
            .unwrap();
    let packed = PackedNibbles::from_bytes(&k.pk.pack(&digits).unwrap().to_bytes()).unwrap();
    assert_eq!(packed.key_set(), k.ck.key_set());
    assert!(matches!(
        ck2.decrypt_packed(&packed),
        Err(TfheError::Io(IoError::KeySetMismatch { .. }))
    ));
    assert_eq!(k.ck.decrypt_packed(&packed).unwrap(), [4, 5]);
}

/// Any digit (negative ones as their residue mod 32) through the seeded form, with the
/// noise of a fresh encryption; another key set's server key refuses the list.
#[test]
fn seeded_digits_round_trip_and_key_set() {
    let k = keys();
    let values: Vec<i64> = vec![-1, 0, 1, -16, 15, 3, -7, 1];
    let seeded = k.ck.encrypt_digits_seeded(&values).unwrap();
    assert_eq!(seeded.len(), values.len());
    let bytes = seeded.to_bytes();
    assert_eq!(bytes.len(), SeededDigits::encoded_len(values.len()));
    let back = SeededDigits::from_bytes(&bytes).unwrap();
    assert_eq!(back, seeded);
    let digits = back.expand_for(&k.sk).unwrap();
    for (d, &v) in digits.iter().zip(&values) {
        assert_eq!(k.ck.decrypt_digit(d), v);
        assert!(k.ck.phase_error(d, v).abs() < 2f64.powi(-40));
    }
    let (_, other) = ClientKey::generate_seeded(&DEFAULT_PARAMETERS, 2025);
    assert!(matches!(
        seeded.expand_for(&other),
        Err(TfheError::Io(IoError::KeySetMismatch { .. }))
    ));
    // Truncated anywhere: a typed error.
    for cut in 0..bytes.len() {
        assert!(
            SeededDigits::from_bytes(&bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
}
