//! Public-key encryption: the client derives a [`PublicKey`] from its client key and
//! publishes it; anyone holding only the public key encrypts values of every integer type
//! (the typed family, the exact [`Int`](crate::Int), arrays) that the server computes on
//! and only the client decrypts.
//!
//! The key is an LWE compact public key under the big key (16 KB: a seed and 2048 body
//! words, in a public-key envelope bound to the key set); the digits of a value, or of a
//! whole array, are encrypted as one compact list, rounded to 32-bit words: one mask
//! polynomial of 2048 words per 2048 digits and one word per digit, 12.5 KB for 64 `u16`
//! (1024 digits). The server expands the list into ordinary digits under the big key with no
//! bootstrap and no keyswitch, as it does seeded uploads ([`crate::io::seeded`]). The security
//! (TFHE-rs' `PARAM_PKE_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128` dimension and noise) and
//! the noise (far below a bootstrap output's, whatever the correlation between the digits
//! of one list) are argued in [`encint_tfhe::public`] and docs/SECURITY.md.
//!
//! Files: the public key is an envelope of kind `PublicKey`; a value encrypted with it is a
//! ciphertext envelope with the tag `ENCPINT1` (an exact integer) or `ENCPTYP1` (a typed
//! value or an array), read by [`EncInt::from_bytes`](crate::EncInt::from_bytes),
//! [`EncTyped::from_bytes`](crate::typed::EncTyped::from_bytes) and the family's
//! [`FheType::from_bytes`](crate::fhe::FheType::from_bytes) as the other forms.
//!
//! ```no_run
//! use encint::io::public::{PublicKey, PublicKeyFile, PublicValue};
//! use encint::{ClientKey, FheUint16, DEFAULT_PARAMETERS};
//!
//! let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
//! let pk_bytes = client.public_key().to_bytes()?;
//! // Anyone, with the public key's bytes only:
//! let pk = PublicKey::from_bytes(&pk_bytes)?;
//! let bytes = FheUint16::encrypt_public(40000u16, &pk)?.to_bytes(&DEFAULT_PARAMETERS)?;
//! // Server: the ordinary ciphertext, checked against its key set.
//! let x: FheUint16 = PublicValue::<FheUint16>::from_bytes(&bytes)?.expand_for(&server_key)?;
//! # Ok::<(), encint::Error>(())
//! ```

use encint_tfhe::envelope::{self, Kind};

pub use crate::io::seeded::{PublicArray, PublicInt, PublicTyped, PublicValue};
pub use encint_tfhe::{CompactDigits, PublicKey};

use crate::Result;

/// The public key's envelope ([`Kind::PublicKey`]) and its reader, bound to its key set and
/// parameter set.
pub trait PublicKeyFile: Sized {
    /// The envelope of kind `PublicKey`.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::io::public::{PublicKey, PublicKeyFile};
    /// use encint::{ClientKey, FheUint8, DEFAULT_PARAMETERS};
    ///
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let bytes = client.public_key().to_bytes()?; // publish these
    /// let pk = PublicKey::from_bytes(&bytes)?;
    /// let x = FheUint8::encrypt_public(77u8, &pk)?; // no secret needed
    /// let x: FheUint8 = x.expand_for(&server_key)?; // on the server: no bootstrap
    /// assert_eq!(x.decrypt::<u8>(&client)?, 77);
    /// # Ok::<(), encint::Error>(())
    /// ```
    fn to_bytes(&self) -> Result<Vec<u8>>;
    /// Reads [`PublicKeyFile::to_bytes`] output, of any known parameter set: every check of
    /// the envelope reader (magic, version, kind, parameter set, the body length). Never
    /// panics: truncated or altered bytes are an error.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::io::public::{PublicKey, PublicKeyFile};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let bytes = client.public_key().to_bytes()?;
    /// assert_eq!(PublicKey::from_bytes(&bytes)?.to_bytes()?, bytes);
    /// assert!(PublicKey::from_bytes(&bytes[..bytes.len() / 2]).is_err()); // truncated
    /// # Ok::<(), encint::Error>(())
    /// ```
    fn from_bytes(bytes: &[u8]) -> Result<Self>;
}

impl PublicKeyFile for PublicKey {
    fn to_bytes(&self) -> Result<Vec<u8>> {
        let params = self.params()?;
        Ok(envelope::seal(Kind::PublicKey, params.id(), self)?)
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Ok(envelope::open_known(bytes, Kind::PublicKey)?)
    }
}

crate::io::seeded::upload_constructors!(
    PublicKey,
    "with the public key",
    encrypt_typed_public,
    encrypt_typed_public_as,
    /// Encrypts `values` (row-major) as an array of shape `shape` of type `ty` in `form` with
    /// the public key, all digits in one compact list; an empty `shape` is one value. The
    /// checks of [`crate::io::seeded::encrypt_array_seeded`].
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::io::public::encrypt_array_public;
    /// use encint::typed::{decrypt_typed, Form, IntType};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let pk = client.public_key();
    /// let clear = [1, -2, 3, -128];
    /// let i8t = IntType::new(8, true)?;
    /// let list = encrypt_array_public(&pk, &clear, &[2, 2], i8t, Form::DEFAULT)?;
    /// assert_eq!(list.shape(), &[2, 2]);
    /// let values = list.expand_for(&server_key)?; // ordinary ciphertexts, row-major
    /// for (x, v) in values.iter().zip(clear) {
    ///     assert_eq!(decrypt_typed(&client, x)?, v);
    /// }
    /// assert!(encrypt_array_public(&pk, &[128], &[], i8t, Form::DEFAULT).is_err()); // no i8
    /// # Ok::<(), encint::Error>(())
    /// ```
    encrypt_array_public,
    encrypt_public,
    PublicTyped,
    PublicValue,
    PublicArray
);
