//! Compressed server keys on both parameter sets (the 32-bit and the 64-bit keyswitch):
//! the stated size, decompression into a key whose bootstraps evaluate tables exactly with
//! a bootstrap's noise, and typed errors for truncated or altered keys.

use encint_tfhe::compressed::{is_compressed_server_key, COMPRESSED_SERVER_KEY_TAG};
use encint_tfhe::{
    envelope, open_server_key, ClientKey, CompressedServerKey, EnvelopeError, Kind, NegacyclicLut,
    DEFAULT_PARAMETERS, KS64_PARAMETERS,
};

#[test]
fn compressed_keys_of_both_sets_bootstrap_exactly() {
    for (p, seed) in [(DEFAULT_PARAMETERS, 31u128), (KS64_PARAMETERS, 32)] {
        let (ck, _) = ClientKey::generate_seeded(&p, seed);
        let compressed = CompressedServerKey::generate(&ck);
        assert_eq!(compressed.params(), Some(p));
        assert_eq!(compressed.key_set(), ck.key_set());
        let bytes = compressed.to_bytes().unwrap();
        let (_, payload) = envelope::read_header(&bytes).unwrap();
        assert_eq!(payload.len(), CompressedServerKey::encoded_len(&p));
        assert!(is_compressed_server_key(&bytes));
        // A third of the ordinary key: one body polynomial of the two per GLWE row, and a
        // keyswitching key of bodies only.
        assert!(bytes.len() < 31_000_000, "{} bytes", bytes.len());
        let sk = open_server_key(&bytes).unwrap();
        assert_eq!(sk.key_set(), ck.key_set());
        assert_eq!(sk.params().name, p.name);
        let lut = NegacyclicLut::from_fn(|x| (3 * x + 1) % 16);
        for m in [0i64, 1, 7, 15] {
            let out = sk.bootstrap(&ck.encrypt_digit(m), &lut);
            let want = lut.eval(m);
            assert_eq!(ck.decrypt_digit(&out), want, "{} m = {m}", p.name);
            // A bootstrap output's noise (σ ≈ 2^-15.7): far inside the margin 2^-6.
            assert!(ck.phase_error(&out, want).abs() < 2f64.powi(-11));
        }
    }
}

#[test]
fn truncated_or_altered_compressed_keys_are_errors() {
    let (ck, _) = ClientKey::generate_seeded(&DEFAULT_PARAMETERS, 33);
    let bytes = CompressedServerKey::generate(&ck).to_bytes().unwrap();
    for cut in [
        0,
        5,
        13,
        100,
        200,
        1 << 20,
        bytes.len() - 8,
        bytes.len() - 1,
    ] {
        assert!(open_server_key(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        open_server_key(&longer),
        Err(EnvelopeError::Malformed(_))
    ));
    // The tag: another tag reads as an ordinary key, which these bytes are not.
    let (_, payload) = envelope::read_header(&bytes).unwrap();
    let at = bytes.len() - payload.len();
    assert_eq!(&bytes[at..at + 8], &COMPRESSED_SERVER_KEY_TAG);
    let mut tag = bytes.clone();
    tag[at] ^= 1;
    assert!(open_server_key(&tag).is_err());
    // The bootstrapping key's length (after the tag, the id and the key set, the seed).
    let id_len = DEFAULT_PARAMETERS.id().len();
    let len_at = at + 8 + 8 + id_len + 16 + 16;
    let mut short = bytes.clone();
    let n = u64::from_le_bytes(short[len_at..len_at + 8].try_into().unwrap());
    short[len_at..len_at + 8].copy_from_slice(&(n - 1).to_le_bytes());
    assert!(open_server_key(&short).is_err());
    // A client key's envelope is not a server key.
    let client = envelope::seal(Kind::ClientKey, DEFAULT_PARAMETERS.id(), &ck).unwrap();
    assert!(open_server_key(&client).is_err());
}
