//! Seeded uploads: what a client sends is one CSPRNG seed for every mask and one 64-bit
//! body per digit, instead of whole LWE ciphertexts (2049 words per digit).
//!
//! Every encrypted value is a list of digits, each an LWE ciphertext of dimension
//! `k·N = 2048` under the big key. Encrypted the ordinary way a digit takes
//! `2049 · 8 = 16392` bytes. Here the client encrypts all digits of a value (or of a
//! whole array) as one seeded LWE list ([`encint_tfhe::SeededDigits`], TFHE-rs'
//! `encrypt_seeded_lwe_ciphertext_list`): the masks come from one public seed drawn from
//! the operating system's entropy, and only the seed and the bodies travel. The server
//! regenerates the masks ([`UploadedTyped::expand`], [`UploadedInt::expand`]) and obtains
//! exactly the ciphertexts an ordinary encryption gives: same key, same noise (the GLWE
//! noise distribution of [`ClientKey::encrypt_digit`]), so every circuit's noise analysis
//! holds unchanged.
//!
//! # Which key, and the cost of expansion
//!
//! The digits are encrypted under the **big key** (dimension 2048), the key of every
//! ordinary ciphertext. A seeded ciphertext sends no mask at all, so the small key
//! (dimension 918, the keyswitch output) would not make it smaller except for the body's
//! word: 4 bytes on the 32-bit keyswitch torus instead of 8. But a ciphertext under the
//! small key must be bootstrapped before anything else can use it (circuits add input
//! digits before their first bootstrap, and only big-key ciphertexts add to each other),
//! which costs one bootstrap per digit that no circuit needs, and its output would have a
//! bootstrap output's noise instead of a fresh encryption's. So expansion costs **no
//! bootstrap and no keyswitch**: one pass of the CSPRNG (AES-CTR) over 2048 mask words
//! (16 KB) per digit, once when the value is read (`encint sizes` measures it: 0.2 ms per
//! digit on a busy 2-core machine, against milliseconds per bootstrap).
//!
//! # Sizes
//!
//! A seeded payload is the tag (8 bytes), the value's type, then the key set (16), the
//! seed (16), the LWE dimension (8), the body count (8) and 8 bytes per digit; the
//! envelope header adds 13 bytes and the parameter set's name. A `u16` (16 canonical
//! digits) is 294 bytes instead of 262 KB; an array of 64 `u16` (1024 digits under one
//! seed) 8.4 KB. `encint sizes` prints the measured sizes beside TFHE-rs'
//! (docs/UPLOADS.md).
//!
//! # Files
//!
//! Seeded values are ciphertext envelopes like every other (the `wire` module), with their
//! own tags: `ENCSINT1` (an exact integer) and `ENCSTYP1` (a typed value or an array of
//! them). [`EncInt::from_bytes`], [`EncTyped::from_bytes`] and the family's
//! [`FheType::from_bytes`] read both forms (expanding a seeded one), so a server reads
//! whatever a client sends; the expanded form stays what a server writes.
//!
//! ```no_run
//! use encint::io::seeded::Seeded;
//! use encint::{ClientKey, FheUint16, DEFAULT_PARAMETERS};
//!
//! let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
//! // Client: 294 bytes to upload.
//! let bytes = FheUint16::encrypt_seeded(40000u16, &client)?.to_bytes(&DEFAULT_PARAMETERS)?;
//! // Server: the ordinary ciphertext, checked against its key set.
//! let x: FheUint16 = Seeded::<FheUint16>::from_bytes(&bytes)?.expand_for(&server_key)?;
//! # Ok::<(), encint::Error>(())
//! ```

use std::marker::PhantomData;

use encint_tfhe::envelope::{self, Kind};
use encint_tfhe::{
    ClientKey, CompactDigits, DigitParameters, KeySetId, SeededDigits, ServerKey, Upload, Validate,
};
use num_bigint::BigInt;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::fhe::{Clear, FheArray, FheType};
use crate::int::digits::signed_digits;
use crate::typed::{typed_digits, EncTyped, Form, IntType, MAX_TYPED_BITS};
use crate::{EncInt, Error, Result, MAX_DIGITS};

pub use crate::io::contents::{PUBLIC_INT_TAG, PUBLIC_TYPED_TAG, SEEDED_INT_TAG, SEEDED_TYPED_TAG};

/// Most dimensions of a seeded array's shape.
pub const MAX_SHAPE_DIMENSIONS: usize = 8;

/// The digit lists a client uploads, each with the tags of its payloads: [`SeededDigits`]
/// (encrypted with the client key: a seed and the bodies) and [`CompactDigits`]
/// (encrypted with the public key, see [`crate::io::public`]). The values of this module are
/// generic over it; [`SeededInt`], [`SeededTyped`], [`Seeded`] and [`SeededArray`] name
/// the seeded ones, [`PublicInt`], [`PublicTyped`], [`PublicValue`] and [`PublicArray`]
/// the public-key ones.
pub trait UploadForm:
    Upload + Clone + std::fmt::Debug + PartialEq + Eq + Serialize + DeserializeOwned + Validate
{
    /// The tag of an exact integer's payload.
    const INT_TAG: [u8; 8];
    /// The tag of a typed value's (or array's) payload.
    const TYPED_TAG: [u8; 8];
}

impl UploadForm for SeededDigits {
    const INT_TAG: [u8; 8] = SEEDED_INT_TAG;
    const TYPED_TAG: [u8; 8] = SEEDED_TYPED_TAG;
}

impl UploadForm for CompactDigits {
    const INT_TAG: [u8; 8] = PUBLIC_INT_TAG;
    const TYPED_TAG: [u8; 8] = PUBLIC_TYPED_TAG;
}

/// A key that encrypts the digit lists of uploads: the client key ([`SeededDigits`]) or the
/// public key ([`CompactDigits`]).
pub trait UploadKey {
    /// The digit list it encrypts into.
    type Form: UploadForm;
    /// Encrypts signed binary digits (each -1, 0 or 1).
    fn encrypt_upload(&self, digits: &[i64]) -> Result<Self::Form>;
}

impl UploadKey for ClientKey {
    type Form = SeededDigits;
    fn encrypt_upload(&self, digits: &[i64]) -> Result<SeededDigits> {
        Ok(self.encrypt_digits_seeded(digits)?)
    }
}

impl UploadKey for encint_tfhe::PublicKey {
    type Form = CompactDigits;
    fn encrypt_upload(&self, digits: &[i64]) -> Result<CompactDigits> {
        Ok(self.encrypt_digits(digits)?)
    }
}

/// The key-set check of an expansion for a server: digits of another key set would
/// compute garbage.
fn same_key_set(server: &ServerKey, found: KeySetId) -> Result<()> {
    if server.key_set() == found {
        Ok(())
    } else {
        Err(Error::KeySetMismatch {
            position: 0,
            expected: server.key_set(),
            found,
        })
    }
}

// ---------------------------------------------------------------------------------------
// Exact integers.

/// An uploaded exact integer ([`EncInt`]): its signed binary digits as one list of `D`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UploadedInt<D> {
    digits: D,
}

/// A seeded exact integer: its digits as one seeded list.
pub type SeededInt = UploadedInt<SeededDigits>;

/// An exact integer encrypted with the public key ([`crate::io::public`]).
pub type PublicInt = UploadedInt<CompactDigits>;

#[derive(Serialize, Deserialize)]
struct IntPayload<D> {
    tag: [u8; 8],
    digits: D,
}

impl<D: UploadForm> Validate for IntPayload<D> {
    fn validate(&self, params: &DigitParameters) -> std::result::Result<(), String> {
        if self.tag != D::INT_TAG {
            return Err("not an uploaded integer payload of this form".into());
        }
        if self.digits.len() > MAX_DIGITS {
            return Err(format!(
                "{} digits is more than the {MAX_DIGITS} allowed",
                self.digits.len()
            ));
        }
        self.digits.validate(params)
    }
}

impl<D: UploadForm> UploadedInt<D> {
    /// Encrypts `value` as exactly `digits` signed binary digits (the digits of
    /// [`crate::encrypt`]) with `key`: the client key gives a [`SeededInt`], the public key
    /// a [`PublicInt`] (no secret needed). Errors if it does not fit or `digits` exceeds
    /// [`MAX_DIGITS`].
    pub fn encrypt<K: UploadKey<Form = D>>(key: &K, value: i128, digits: usize) -> Result<Self> {
        Self::encrypt_big(key, &BigInt::from(value), digits)
    }

    /// [`UploadedInt::encrypt`] for a value of any size (`|value| < 2^digits`).
    pub fn encrypt_big<K: UploadKey<Form = D>>(
        key: &K,
        value: &BigInt,
        digits: usize,
    ) -> Result<Self> {
        let d = signed_digits(value, digits)?;
        Ok(UploadedInt {
            digits: key.encrypt_upload(&d)?,
        })
    }

    /// Number of digits.
    pub fn len(&self) -> usize {
        self.digits.len()
    }

    /// Whether the integer has no digits.
    pub fn is_empty(&self) -> bool {
        self.digits.is_empty()
    }

    /// The key set of the client key that encrypted it.
    pub fn key_set(&self) -> KeySetId {
        self.digits.key_set()
    }

    /// The ordinary integer: the masks regenerated from the seed (no bootstrap, no
    /// keyswitch). Does not check the key set (the server does when it computes; see
    /// [`UploadedInt::expand_for`]).
    pub fn expand(&self) -> Result<EncInt> {
        Ok(EncInt::from_digits(self.digits.expand()?, self.key_set()))
    }

    /// [`UploadedInt::expand`] for the holder of `server`: [`Error::KeySetMismatch`] for an
    /// integer of another key set.
    pub fn expand_for(&self, server: &ServerKey) -> Result<EncInt> {
        same_key_set(server, self.key_set())?;
        self.expand()
    }

    /// The ciphertext envelope of parameter set `params` (tag `ENCSINT1` or `ENCPINT1`,
    /// see the [module docs](self)).
    pub fn to_bytes(&self, params: &DigitParameters) -> Result<Vec<u8>> {
        let payload = IntPayload {
            tag: D::INT_TAG,
            digits: self.digits.clone(),
        };
        Ok(envelope::seal(Kind::Ciphertext, params.id(), &payload)?)
    }

    /// Reads [`UploadedInt::to_bytes`] output (every check of the envelope reader: magic,
    /// version, a known parameter set, the tag, the digit count and dimension). Never
    /// panics: truncated or altered bytes are an error.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let p: IntPayload<D> = envelope::open_known(bytes, Kind::Ciphertext)?;
        Ok(UploadedInt { digits: p.digits })
    }
}

// ---------------------------------------------------------------------------------------
// Typed values and arrays.

/// Uploaded typed values: one value of an [`IntType`] (an empty shape) or a row-major
/// array of them, all digits in one list of `D`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UploadedTyped<D> {
    ty: IntType,
    form: Form,
    shape: Vec<usize>,
    digits: D,
}

/// Seeded typed values: all digits under one seed.
pub type SeededTyped = UploadedTyped<SeededDigits>;

/// Typed values encrypted with the public key ([`crate::io::public`]): all digits in one
/// compact list.
pub type PublicTyped = UploadedTyped<CompactDigits>;

#[derive(Serialize, Deserialize)]
struct TypedPayload<D> {
    tag: [u8; 8],
    bits: u32,
    signed: bool,
    /// 0 canonical, 1 lazy, 2 radix-4.
    form: u8,
    shape: Vec<u64>,
    digits: D,
}

pub(crate) fn form_code(form: Form) -> u8 {
    match form {
        Form::Canonical => 0,
        Form::Lazy => 1,
        Form::Radix4 => 2,
    }
}

pub(crate) fn form_of(code: u8) -> Option<Form> {
    match code {
        0 => Some(Form::Canonical),
        1 => Some(Form::Lazy),
        2 => Some(Form::Radix4),
        _ => None,
    }
}

/// The element count of `shape` (1 for a single value), `None` on overflow.
fn element_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))
}

impl<D: UploadForm> TypedPayload<D> {
    /// The checked type, form and shape.
    fn parts(&self) -> std::result::Result<(IntType, Form, Vec<usize>), String> {
        if self.tag != D::TYPED_TAG {
            return Err("not an uploaded typed payload of this form".into());
        }
        let bits = self.bits as usize;
        if !(1..=MAX_TYPED_BITS).contains(&bits) {
            return Err(format!("width {bits} outside 1..={MAX_TYPED_BITS}"));
        }
        let ty = IntType::new(bits, self.signed).map_err(|e| e.to_string())?;
        let form = form_of(self.form).ok_or_else(|| format!("unknown form {}", self.form))?;
        if self.shape.len() > MAX_SHAPE_DIMENSIONS {
            return Err(format!(
                "{} dimensions, at most {MAX_SHAPE_DIMENSIONS}",
                self.shape.len()
            ));
        }
        let shape = self
            .shape
            .iter()
            .map(|&d| usize::try_from(d).map_err(|_| format!("dimension {d} too large")))
            .collect::<std::result::Result<Vec<usize>, String>>()?;
        let want = element_count(&shape)
            .and_then(|n| n.checked_mul(form.digits(ty)))
            .ok_or("the shape's digit count overflows")?;
        if want != self.digits.len() {
            return Err(format!(
                "{} digits for {:?} values of {ty} in {} form ({want} expected)",
                self.digits.len(),
                shape,
                form.name()
            ));
        }
        Ok((ty, form, shape))
    }
}

impl<D: UploadForm> Validate for TypedPayload<D> {
    fn validate(&self, params: &DigitParameters) -> std::result::Result<(), String> {
        self.parts()?;
        self.digits.validate(params)
    }
}

/// The constructors of one way of uploading (seeded here, with the public key in
/// [`crate::io::public`]), written once for both: `$array_fn` (documented by the
/// attributes before it), which encrypts the digits of an array with a `$key` into one
/// `$typed_out`, the typed functions `$typed` (canonical form) and `$typed_as` over it, and
/// the family's method `$method` on the integers, the booleans and their arrays. `$with`
/// ("seeded", "with the public key") says how in each doc.
macro_rules! upload_constructors {
    (
        $key:ty, $with:literal, $typed:ident, $typed_as:ident,
        $(#[$array_doc:meta])* $array_fn:ident, $method:ident,
        $typed_out:ty, $value:ident, $array:ident
    ) => {
        $(#[$array_doc])*
        pub fn $array_fn(
            key: &$key,
            values: &[i128],
            shape: &[usize],
            ty: $crate::typed::IntType,
            form: $crate::typed::Form,
        ) -> $crate::Result<$typed_out> {
            $crate::io::seeded::array_digits(key, values, shape, ty, form)
        }

        #[doc = concat!("Encrypts `value` of type `ty` ", $with, ", in canonical form (the")]
        /// digits of [`crate::typed::encrypt_typed`]). Errors if `value` is not a value of
        /// the type.
        pub fn $typed(
            key: &$key,
            value: i128,
            ty: $crate::typed::IntType,
        ) -> $crate::Result<$typed_out> {
            $typed_as(key, value, ty, $crate::typed::Form::Canonical)
        }

        #[doc = concat!("Encrypts `value` of type `ty` ", $with, ", in `form` (the digits of")]
        /// [`crate::typed::encrypt_typed_as`]).
        pub fn $typed_as(
            key: &$key,
            value: i128,
            ty: $crate::typed::IntType,
            form: $crate::typed::Form,
        ) -> $crate::Result<$typed_out> {
            $array_fn(key, &[value], &[], ty, form)
        }

        impl<const N: usize, const S: bool> $crate::fhe::FheInteger<N, S> {
            #[doc = concat!("Encrypts `value` ", $with, " (see [`", stringify!($value), "`]).")]
            /// Errors ([`crate::Error::OutOfRange`]) if it is not a value of the type.
            pub fn $method<C: $crate::fhe::Clear>(
                value: C,
                key: &$key,
            ) -> $crate::Result<$value<Self>> {
                let v = $crate::io::seeded::clear_value(value, Self::TYPE)?;
                $value::new($typed(key, v, Self::TYPE)?)
            }
        }

        impl $crate::fhe::FheBool {
            #[doc = concat!("Encrypts `value` ", $with, " (see [`", stringify!($value), "`]).")]
            pub fn $method(value: bool, key: &$key) -> $crate::Result<$value<Self>> {
                let ty = $crate::typed::IntType::BOOL;
                $value::new($typed(key, i128::from(value), ty)?)
            }
        }

        impl<const N: usize, const S: bool> $crate::fhe::FheArray<$crate::fhe::FheInteger<N, S>> {
            #[doc = concat!("Encrypts `values` (row-major) as an array of shape `shape`, ", $with)]
            /// (all digits in one list). Errors on a value outside the type or a count that
            /// does not match the shape.
            pub fn $method<C: $crate::fhe::Clear>(
                values: &[C],
                shape: &[usize],
                key: &$key,
            ) -> $crate::Result<$array<$crate::fhe::FheInteger<N, S>>> {
                let ty = $crate::fhe::FheInteger::<N, S>::TYPE;
                let vs = $crate::io::seeded::clear_values(values, ty)?;
                let form = $crate::typed::Form::DEFAULT;
                $array::new($array_fn(key, &vs, shape, ty, form)?)
            }
        }

        impl $crate::fhe::FheArray<$crate::fhe::FheBool> {
            #[doc = concat!("Encrypts booleans (row-major) as an array of shape `shape`, ", $with)]
            /// (all digits in one list).
            pub fn $method(
                values: &[bool],
                shape: &[usize],
                key: &$key,
            ) -> $crate::Result<$array<$crate::fhe::FheBool>> {
                let vs: Vec<i128> = values.iter().map(|&b| i128::from(b)).collect();
                let (ty, form) = ($crate::typed::IntType::BOOL, $crate::typed::Form::Canonical);
                $array::new($array_fn(key, &vs, shape, ty, form)?)
            }
        }
    };
}
pub(crate) use upload_constructors;

upload_constructors!(
    ClientKey,
    "seeded",
    encrypt_typed_seeded,
    encrypt_typed_seeded_as,
    /// Encrypts `values` (row-major) as an array of shape `shape` of type `ty` in `form`,
    /// all digits under one seed; an empty `shape` is one value. Errors on a value outside
    /// the type, a count that does not match the shape, more than [`MAX_SHAPE_DIMENSIONS`]
    /// dimensions or more than 2^20 digits in all.
    encrypt_array_seeded,
    encrypt_seeded,
    SeededTyped,
    Seeded,
    SeededArray
);

/// The digits of `values` (checked against `ty` and `shape`), encrypted by `key` into one
/// list: the array of [`encrypt_array_seeded`] and of [`crate::io::public`].
pub(crate) fn array_digits<K: UploadKey>(
    key: &K,
    values: &[i128],
    shape: &[usize],
    ty: IntType,
    form: Form,
) -> Result<UploadedTyped<K::Form>> {
    if shape.len() > MAX_SHAPE_DIMENSIONS {
        return Err(Error::ShapeMismatch(format!(
            "{} dimensions, at most {MAX_SHAPE_DIMENSIONS}",
            shape.len()
        )));
    }
    if element_count(shape) != Some(values.len()) {
        return Err(Error::ShapeMismatch(format!(
            "{} values for the shape {shape:?}",
            values.len()
        )));
    }
    let ty = IntType::new(ty.bits, ty.signed).map_err(Error::from)?;
    let mut digits = Vec::with_capacity(values.len().saturating_mul(form.digits(ty)));
    for &v in values {
        digits.extend(typed_digits(v, ty, form)?.1);
    }
    Ok(UploadedTyped {
        ty,
        form,
        shape: shape.to_vec(),
        digits: key.encrypt_upload(&digits)?,
    })
}

impl<D: UploadForm> UploadedTyped<D> {
    /// The type of every value.
    pub fn ty(&self) -> IntType {
        self.ty
    }

    /// The form of every value's digits.
    pub fn form(&self) -> Form {
        self.form
    }

    /// The shape (empty for one value).
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of values (1 for one value).
    pub fn len(&self) -> usize {
        self.digits.len() / self.form.digits(self.ty)
    }

    /// Whether it holds no value (an array with a zero dimension).
    pub fn is_empty(&self) -> bool {
        self.digits.is_empty()
    }

    /// Number of digits (bodies).
    pub fn digit_count(&self) -> usize {
        self.digits.len()
    }

    /// The key set of the client key that encrypted the values.
    pub fn key_set(&self) -> KeySetId {
        self.digits.key_set()
    }

    /// The ordinary values, row-major: the masks regenerated from the seed (no bootstrap,
    /// no keyswitch). Does not check the key set (see [`UploadedTyped::expand_for`]).
    pub fn expand(&self) -> Result<Vec<EncTyped>> {
        let per = self.form.digits(self.ty);
        let key_set = self.key_set();
        let digits = self.digits.expand()?;
        digits
            .chunks(per)
            .map(|d| {
                EncTyped::with_form(EncInt::from_digits(d.to_vec(), key_set), self.ty, self.form)
            })
            .collect()
    }

    /// [`UploadedTyped::expand`] for the holder of `server`: [`Error::KeySetMismatch`] for
    /// values of another key set.
    pub fn expand_for(&self, server: &ServerKey) -> Result<Vec<EncTyped>> {
        same_key_set(server, self.key_set())?;
        self.expand()
    }

    /// The one value of an empty shape, expanded; an error for an array.
    pub fn expand_one(&self) -> Result<EncTyped> {
        if !self.shape.is_empty() {
            return Err(Error::ShapeMismatch(format!(
                "the ciphertext holds an array of shape {:?}, not one value",
                self.shape
            )));
        }
        self.expand()?
            .pop()
            .ok_or_else(|| Error::Malformed("a seeded value without digits".into()))
    }

    /// The ciphertext envelope of parameter set `params` (tag `ENCSTYP1` or `ENCPTYP1`,
    /// see the [module docs](self)).
    pub fn to_bytes(&self, params: &DigitParameters) -> Result<Vec<u8>> {
        let payload = TypedPayload {
            tag: D::TYPED_TAG,
            bits: self.ty.bits as u32,
            signed: self.ty.signed,
            form: form_code(self.form),
            shape: self.shape.iter().map(|&d| d as u64).collect(),
            digits: self.digits.clone(),
        };
        Ok(envelope::seal(Kind::Ciphertext, params.id(), &payload)?)
    }

    /// Reads [`UploadedTyped::to_bytes`] output (every check of the envelope reader, the
    /// type, form and shape against the digit count). Never panics: truncated or altered
    /// bytes are an error.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let p: TypedPayload<D> = envelope::open_known(bytes, Kind::Ciphertext)?;
        let (ty, form, shape) = p.parts().map_err(Error::InvalidInput)?;
        Ok(UploadedTyped {
            ty,
            form,
            shape,
            digits: p.digits,
        })
    }

    /// Errors unless the values are of `ty` (when given).
    fn check_type(&self, ty: Option<IntType>) -> Result<()> {
        match ty {
            Some(t) if t != self.ty => Err(Error::TypeMismatch(format!(
                "the ciphertext holds values of {}, not {t}",
                self.ty
            ))),
            _ => Ok(()),
        }
    }
}

// ---------------------------------------------------------------------------------------
// The family's types.

/// Declares `$name<T, D>` (an upload of the family holding its [`UploadedTyped`] digits,
/// whose `expand` gives a `$out`), its aliases for seeded and public-key digits, and the
/// methods both upload types share: the digits, the key set, `expand_for` and the envelope.
macro_rules! uploaded_type {
    (
        $(#[$doc:meta])* $name:ident, $out:ty, $what:literal, $refused:literal;
        $(#[$seeded_doc:meta])* $seeded:ident;
        $(#[$public_doc:meta])* $public:ident;
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name<T, D> {
            inner: UploadedTyped<D>,
            ty: PhantomData<fn() -> T>,
        }

        $(#[$seeded_doc])*
        pub type $seeded<T> = $name<T, SeededDigits>;

        $(#[$public_doc])*
        pub type $public<T> = $name<T, CompactDigits>;

        impl<T: FheType, D: UploadForm> $name<T, D> {
            /// The uploaded digits, their type and the shape (empty for one value).
            pub fn as_typed(&self) -> &UploadedTyped<D> {
                &self.inner
            }

            #[doc = concat!("The key set of the client key that encrypted the ", $what, ".")]
            pub fn key_set(&self) -> KeySetId {
                self.inner.key_set()
            }

            #[doc = concat!("[`", stringify!($name), "::expand`] for the holder of `server`:")]
            #[doc = concat!("[`Error::KeySetMismatch`] for ", $what, " of another key set.")]
            pub fn expand_for(&self, server: &ServerKey) -> Result<$out> {
                same_key_set(server, self.key_set())?;
                self.expand()
            }

            /// The ciphertext envelope (see [`UploadedTyped::to_bytes`]).
            pub fn to_bytes(&self, params: &DigitParameters) -> Result<Vec<u8>> {
                self.inner.to_bytes(params)
            }

            #[doc = concat!("Reads [`", stringify!($name), "::to_bytes`] output; ", $refused, ".")]
            pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
                Self::new(UploadedTyped::from_bytes(bytes)?)
            }
        }
    };
}

uploaded_type! {
    /// An uploaded value of the family: what a client (or a holder of the public key) sends;
    /// [`Uploaded::expand`] gives the value.
    Uploaded, T, "value", "errors on another type or an array";
    /// A seeded value of the family
    /// ([`FheInteger::encrypt_seeded`](crate::fhe::FheInteger::encrypt_seeded),
    /// [`FheBool::encrypt_seeded`](crate::fhe::FheBool::encrypt_seeded)).
    Seeded;
    /// A value of the family encrypted with the public key ([`crate::io::public`]).
    PublicValue;
}

uploaded_type! {
    /// An uploaded array of the family: every element's digits in one list of `D`.
    UploadedArray, FheArray<T>, "values", "errors on values of another type";
    /// A seeded array of the family ([`FheArray::encrypt_seeded`]): every element's digits
    /// under one seed.
    SeededArray;
    /// An array of the family encrypted with the public key ([`crate::io::public`]).
    PublicArray;
}

impl<T: FheType, D: UploadForm> Uploaded<T, D> {
    pub(crate) fn new(inner: UploadedTyped<D>) -> Result<Self> {
        inner.check_type(T::static_type())?;
        if !inner.shape.is_empty() {
            return Err(Error::ShapeMismatch(format!(
                "the ciphertext holds an array of shape {:?}, not one value",
                inner.shape
            )));
        }
        Ok(Uploaded {
            inner,
            ty: PhantomData,
        })
    }

    /// The value (masks regenerated from the seed; no bootstrap, no keyswitch).
    pub fn expand(&self) -> Result<T> {
        T::from_typed(self.inner.expand_one()?)
    }
}

impl<T: FheType, D: UploadForm> UploadedArray<T, D> {
    pub(crate) fn new(inner: UploadedTyped<D>) -> Result<Self> {
        inner.check_type(T::static_type())?;
        Ok(UploadedArray {
            inner,
            ty: PhantomData,
        })
    }

    /// The array (masks regenerated from the seed; no bootstrap, no keyswitch).
    pub fn expand(&self) -> Result<FheArray<T>> {
        let items = self
            .inner
            .expand()?
            .into_iter()
            .map(T::from_typed)
            .collect::<Result<Vec<T>>>()?;
        let shape = if self.inner.shape.is_empty() {
            vec![1]
        } else {
            self.inner.shape.clone()
        };
        FheArray::new(items, shape)
    }
}

/// The first 8 bytes of a ciphertext envelope's payload (the tag of every tagged form),
/// `None` for anything else.
pub fn payload_tag(data: &[u8]) -> Option<[u8; 8]> {
    match envelope::read_header(data) {
        Ok((header, payload)) if header.kind == Kind::Ciphertext => {
            payload.get(..8)?.try_into().ok()
        }
        _ => None,
    }
}

/// `value` as an `i128` of `ty`; [`Error::OutOfRange`] if it is not a value of the type.
pub(crate) fn clear_value<C: Clear>(value: C, ty: IntType) -> Result<i128> {
    value
        .to_i128()
        .filter(|&v| ty.contains(v))
        .ok_or_else(|| Error::OutOfRange(format!("{value} is not a value of {ty}")))
}

/// [`clear_value`] of every element.
pub(crate) fn clear_values<C: Clear>(values: &[C], ty: IntType) -> Result<Vec<i128>> {
    values.iter().map(|&v| clear_value(v, ty)).collect()
}

/// Reads an uploaded exact integer's envelope (of parameter set `params` when given, else
/// of any known set) and expands it (the upload branch of [`EncInt::from_bytes`]).
pub(crate) fn open_int(bytes: &[u8], params: Option<&DigitParameters>) -> Result<EncInt> {
    fn open<D: UploadForm>(bytes: &[u8], params: Option<&DigitParameters>) -> Result<EncInt> {
        let p: IntPayload<D> = match params {
            Some(params) => envelope::open(bytes, Kind::Ciphertext, params.id())?,
            None => envelope::open_known(bytes, Kind::Ciphertext)?,
        };
        UploadedInt { digits: p.digits }.expand()
    }
    if payload_tag(bytes) == Some(PUBLIC_INT_TAG) {
        open::<CompactDigits>(bytes, params)
    } else {
        open::<SeededDigits>(bytes, params)
    }
}

/// Reads an uploaded typed value's envelope and expands it (the upload branch of
/// [`EncTyped::from_bytes`]); an error for an array.
pub(crate) fn open_typed(bytes: &[u8]) -> Result<EncTyped> {
    if payload_tag(bytes) == Some(PUBLIC_TYPED_TAG) {
        PublicTyped::from_bytes(bytes)?.expand_one()
    } else {
        SeededTyped::from_bytes(bytes)?.expand_one()
    }
}
