//! Checks every upload form (seeded, public-key) must pass, shared by `tests/seeded.rs`
//! and `tests/public.rs`: each takes the form's encryption as a closure giving the bytes a
//! client sends.

use std::sync::{Arc, OnceLock};

use encint::fhe::FheType;
use encint::io::seeded::{UploadForm, Uploaded, UploadedArray, UploadedInt, UploadedTyped};
use encint::typed::{decrypt_typed, EncTyped, Form, IntType};
use encint::{
    set_server, ClientKey, EncInt, Error, FheBool, FheUint16, FheUint8, Server, ServerKey,
    DEFAULT_PARAMETERS,
};
use rand::{Rng, SeedableRng};

/// The keys of a test binary: a key set, a server on it, and another key set's keys.
pub struct Keys {
    pub client: ClientKey,
    pub key: ServerKey,
    pub server: Arc<Server>,
    pub other_client: ClientKey,
    pub other_key: ServerKey,
}

/// The keys, generated once per test binary.
pub fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        let (other_client, other_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        Keys {
            client,
            server: Arc::new(Server::new(key.clone())),
            key,
            other_client,
            other_key,
        }
    })
}

/// The bytes a client sends: an upload's envelope under the default parameters.
pub trait Bytes {
    /// The envelope; panics on an error (of the encryption or of the envelope).
    fn bytes(self) -> Vec<u8>;
}

impl<T: FheType, D: UploadForm> Bytes for encint::Result<Uploaded<T, D>> {
    fn bytes(self) -> Vec<u8> {
        self.unwrap().to_bytes(&DEFAULT_PARAMETERS).unwrap()
    }
}

impl<T: FheType, D: UploadForm> Bytes for encint::Result<UploadedArray<T, D>> {
    fn bytes(self) -> Vec<u8> {
        self.unwrap().to_bytes(&DEFAULT_PARAMETERS).unwrap()
    }
}

impl<D: UploadForm> Bytes for encint::Result<UploadedInt<D>> {
    fn bytes(self) -> Vec<u8> {
        self.unwrap().to_bytes(&DEFAULT_PARAMETERS).unwrap()
    }
}

/// An upload's bytes read by the form's own reader and expanded for the holder of `key`.
pub fn expand_own<T: FheType, D: UploadForm>(bytes: &[u8], key: &ServerKey) -> T {
    Uploaded::<T, D>::from_bytes(bytes)
        .unwrap()
        .expand_for(key)
        .unwrap()
}

/// Both booleans through `up` and the family's reader decrypt to themselves; so does the
/// array `bools` through `up_array` and the form's array reader.
pub fn booleans_round_trip<D: UploadForm>(
    client: &ClientKey,
    up: impl Fn(bool) -> encint::Result<Uploaded<FheBool, D>>,
    bools: &[bool],
    up_array: impl Fn(&[bool]) -> encint::Result<UploadedArray<FheBool, D>>,
) {
    for v in [false, true] {
        let x = FheBool::from_bytes(&up(v).bytes()).unwrap();
        assert_eq!(x.decrypt(client).unwrap(), v);
    }
    let arr = UploadedArray::<FheBool, D>::from_bytes(&up_array(bools).bytes())
        .unwrap()
        .expand()
        .unwrap();
    assert_eq!(arr.decrypt(client).unwrap(), bools);
}

/// Uploads of the other key set of `k`: a `u16` holding 7 (`value`) and an exact integer
/// (`int`) are refused by `k`'s server key ([`Error::KeySetMismatch`]) and, read without
/// a check, by `k`'s client key; the other key set's keys take them.
pub fn other_key_set<D: UploadForm>(
    k: &Keys,
    value: Uploaded<FheUint16, D>,
    int: UploadedInt<D>,
) -> FheUint16 {
    assert!(matches!(
        value.expand_for(&k.key),
        Err(Error::KeySetMismatch { .. })
    ));
    let x = FheUint16::from_bytes(&value.to_bytes(&DEFAULT_PARAMETERS).unwrap()).unwrap();
    assert!(matches!(
        x.decrypt::<u16>(&k.client),
        Err(Error::WrongClientKey { .. })
    ));
    assert_eq!(x.decrypt::<u16>(&k.other_client).unwrap(), 7);
    assert!(matches!(
        int.expand_for(&k.key),
        Err(Error::KeySetMismatch { .. })
    ));
    assert!(int.expand_for(&k.other_key).is_ok());
    x
}

/// Two uploaded `u16` read by the family's reader compute like Rust's arithmetic, also
/// beside an ordinary encryption.
pub fn computes_like_plain<D: UploadForm>(
    client: &ClientKey,
    server: &Arc<Server>,
    up: impl Fn(u16) -> encint::Result<Uploaded<FheUint16, D>>,
) {
    let up = |v| up(v).unwrap().to_bytes(&DEFAULT_PARAMETERS).unwrap();
    set_server(server.clone());
    let mut r = rand::rngs::StdRng::seed_from_u64(2);
    let (a, b) = (r.r#gen::<u16>(), r.r#gen::<u16>());
    let x = FheUint16::from_bytes(&up(a)).unwrap();
    let y = FheUint16::from_bytes(&up(b)).unwrap();
    // An uploaded value and an ordinary encryption mix freely.
    let z = FheUint16::encrypt(b, client).unwrap();
    assert_eq!((&x + &y).decrypt::<u16>(client).unwrap(), a.wrapping_add(b));
    assert_eq!((&x * &z).decrypt::<u16>(client).unwrap(), a.wrapping_mul(b));
    assert_eq!(x.lt(&y).decrypt(client).unwrap(), a < b);
}

/// Exact integers of several digit counts through `up(value, digits)`, their bytes and
/// every reader of exact integers (the form's own, checked against `key`); a value that
/// does not fit is an error; a product of two uploads.
pub fn exact_integers<D: UploadForm>(
    client: &ClientKey,
    server: &Server,
    key: &ServerKey,
    up: impl Fn(i128, usize) -> encint::Result<UploadedInt<D>>,
) {
    let p = DEFAULT_PARAMETERS;
    let bytes_of = |v, digits| up(v, digits).and_then(|s| s.to_bytes(&p));
    for (v, digits) in [
        (-1234i128, 12usize),
        (0, 1),
        (4095, 12),
        (-(1 << 40) + 7, 41),
    ] {
        let s = up(v, digits).unwrap();
        assert_eq!(s.len(), digits);
        let bytes = s.to_bytes(&p).unwrap();
        let x = EncInt::from_bytes(&bytes, &p).unwrap();
        assert_eq!(x.len(), digits);
        assert_eq!(encint::decrypt(client, &x).unwrap(), v);
        let y = EncInt::from_bytes_known(&bytes).unwrap();
        assert_eq!(encint::decrypt(client, &y).unwrap(), v);
        let z = UploadedInt::<D>::from_bytes(&bytes)
            .unwrap()
            .expand_for(key)
            .unwrap();
        assert_eq!(encint::decrypt(client, &z).unwrap(), v);
    }
    assert!(up(4096, 12).is_err());
    let a = EncInt::from_bytes(&bytes_of(-77, 8).unwrap(), &p).unwrap();
    let b = EncInt::from_bytes_known(&bytes_of(93, 8).unwrap()).unwrap();
    let prod = server.mul(&a, &b).unwrap();
    assert_eq!(encint::decrypt(client, &prod).unwrap(), -77 * 93);
}

/// An array of radix-4 `i7` values through `up(values, shape, type, form)` and `read`
/// (the values in order); a value outside the type and a count that does not match the
/// shape are errors.
pub fn typed_array(
    client: &ClientKey,
    up: impl Fn(&[i128], &[usize], IntType, Form) -> encint::Result<Vec<u8>>,
    read: impl Fn(&[u8]) -> Vec<EncTyped>,
) {
    let i7 = IntType::new(7, true).unwrap();
    let vs = [-64i128, 63, 0, -1, 17, -30];
    let xs = read(&up(&vs, &[2, 3], i7, Form::Radix4).unwrap());
    let got: Vec<i128> = xs
        .iter()
        .map(|x| decrypt_typed(client, x).unwrap())
        .collect();
    assert_eq!(got, vs);
    assert!(up(&[64], &[1], i7, Form::Canonical).is_err());
    assert!(up(&[1, 2], &[3], i7, Form::Canonical).is_err());
}

/// Signed odd widths in every form through `up(value, type, form)` and the typed reader;
/// `check` sees each value read.
pub fn typed_forms(
    client: &ClientKey,
    up: impl Fn(i128, IntType, Form) -> encint::Result<Vec<u8>>,
    check: impl Fn(&EncTyped),
) {
    let i13 = IntType::new(13, true).unwrap();
    for (v, form) in [
        (-4096i128, Form::Radix4),
        (4095, Form::Canonical),
        (-1, Form::Lazy),
    ] {
        let x = EncTyped::from_bytes(&up(v, i13, form).unwrap()).unwrap();
        assert_eq!((x.ty(), x.form()), (i13, form));
        assert_eq!(decrypt_typed(client, &x).unwrap(), v);
        check(&x);
    }
}

/// The uploads of one form `D`: a `u16` (`typed`), an exact integer (`int`) and a `u8`
/// array (`array`) truncated anywhere, with a trailing byte, with a width, form or shape
/// that does not match the digit count, or read as another type or kind: errors.
pub fn damaged_bytes<D: UploadForm>(typed: &[u8], int: &[u8], array: &[u8]) {
    let p = DEFAULT_PARAMETERS;
    for bytes in [typed, int, array] {
        for cut in 0..bytes.len() {
            let b = &bytes[..cut];
            assert!(UploadedTyped::<D>::from_bytes(b).is_err(), "cut at {cut}");
            assert!(UploadedInt::<D>::from_bytes(b).is_err(), "cut at {cut}");
            assert!(EncTyped::from_bytes(b).is_err(), "cut at {cut}");
            assert!(EncInt::from_bytes(b, &p).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.to_vec();
        longer.push(0);
        assert!(UploadedTyped::<D>::from_bytes(&longer).is_err());
        assert!(UploadedInt::<D>::from_bytes(&longer).is_err());
    }
    // The width, the form and the shape must match the digit count.
    let (_, payload) = encint::keys::envelope::read_header(typed).unwrap();
    let at = typed.len() - payload.len();
    let mut wider = typed.to_vec();
    wider[at + 8..at + 12].copy_from_slice(&17u32.to_le_bytes());
    assert!(UploadedTyped::<D>::from_bytes(&wider).is_err());
    let mut form = typed.to_vec();
    form[at + 13] = 3;
    assert!(UploadedTyped::<D>::from_bytes(&form).is_err());
    let mut radix = typed.to_vec();
    radix[at + 13] = 2;
    assert!(UploadedTyped::<D>::from_bytes(&radix).is_err());
    // Another type, an array read as one value, one kind read as another.
    assert!(Uploaded::<FheUint8, D>::from_bytes(typed).is_err());
    assert!(FheUint8::from_bytes(typed).is_err());
    assert!(Uploaded::<FheUint8, D>::from_bytes(array).is_err());
    assert!(FheUint8::from_bytes(array).is_err());
    assert!(UploadedArray::<FheUint16, D>::from_bytes(array).is_err());
    assert!(UploadedArray::<FheUint8, D>::from_bytes(array).is_ok());
    assert!(EncInt::from_bytes(typed, &p).is_err());
    assert!(EncTyped::from_bytes(int).is_err());
    assert!(UploadedInt::<D>::from_bytes(typed).is_err());
    assert!(UploadedTyped::<D>::from_bytes(int).is_err());
}
