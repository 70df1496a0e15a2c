//! Encrypted random values the server draws without learning them, as TFHE-rs'
//! `generate_oblivious_pseudo_random` names them: one blind rotation per random bit, from a
//! seed and the server key alone (see [`Server::typed_random`](crate::Server::typed_random)).
//! They are drawn on this thread's server, outside [`compile`](super::compile): a compiled
//! function takes random values as arguments.

use encint_arith::typed::IntType;

use super::repr::Repr;
use super::{FheBool, FheInteger, FheType, FheValue};
use crate::Result;

/// A fresh random value of `ty` with `random_bits` random low bits, on this thread's server.
fn draw(ty: IntType, seed: u128, random_bits: usize) -> Result<Repr> {
    crate::server::with_server(|s| s.typed_random(ty, seed, random_bits).map(Repr::Cipher))
}

impl<const N: usize, const SIGNED: bool> FheInteger<N, SIGNED> {
    /// A value drawn uniformly over the whole type by the server, which does not learn it;
    /// the same `seed` gives the same value under one key set. Errors without a server
    /// key ([`set_server_key`](super::set_server_key)).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{set_server_key, FheInt16};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// set_server_key(server_key);
    /// let a = FheInt16::generate_oblivious_pseudo_random(1)?;
    /// let b = FheInt16::generate_oblivious_pseudo_random(2)?;
    /// let (a, b) = (a.decrypt::<i16>(&client)?, b.decrypt::<i16>(&client)?);
    /// assert_ne!(a, b); // equal with probability 2^-16
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn generate_oblivious_pseudo_random(seed: u128) -> Result<Self> {
        Self::generate_oblivious_pseudo_random_bounded(seed, N)
    }

    /// A value whose low `random_bits` bits the server draws uniformly without learning
    /// them, the bits above 0: uniform on `0..2^random_bits` (TFHE-rs'
    /// `generate_oblivious_pseudo_random_bounded`; on a signed type, `random_bits = N`
    /// gives the whole range). Errors when `random_bits` exceeds `N`, or without a server
    /// key.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{set_server_key, FheUint8};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// set_server_key(server_key);
    /// let roll = FheUint8::generate_oblivious_pseudo_random_bounded(42, 3)?; // 0..8
    /// assert!(roll.decrypt::<u8>(&client)? < 8);
    /// assert!(FheUint8::generate_oblivious_pseudo_random_bounded(42, 9).is_err());
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn generate_oblivious_pseudo_random_bounded(
        seed: u128,
        random_bits: usize,
    ) -> Result<Self> {
        Self::from_repr(draw(Self::TYPE, seed, random_bits)?)
    }
}

impl FheBool {
    /// A boolean the server draws uniformly without learning it (see
    /// [`FheInteger::generate_oblivious_pseudo_random`]).
    pub fn generate_oblivious_pseudo_random(seed: u128) -> Result<Self> {
        Self::from_repr(draw(IntType::BOOL, seed, 1)?)
    }
}

impl FheValue {
    /// A value of `ty` whose low `random_bits` bits the server draws uniformly without
    /// learning them (see [`FheInteger::generate_oblivious_pseudo_random_bounded`]).
    pub fn generate_oblivious_pseudo_random(
        ty: IntType,
        seed: u128,
        random_bits: usize,
    ) -> Result<Self> {
        Self::from_repr(draw(ty, seed, random_bits)?)
    }
}
