//! The FV (BFV) scheme (J.-C. Bajard, J. Eynard, P. Martins, L. Sousa and V. Zucca, *An
//! asymptotically faster version of FV supported on HPR*) through the facade: a context for a parameter set, secret,
//! public and relinearisation keys, encryption and decryption, addition and multiplication
//! with relinearisation, in three variants (BEHZ, HPS, HPR) that share keys and ciphertexts.
//!
//! ```
//! use encint::fv::{FvContext, FvParameters, Plaintext, SecretKey, Variant};
//! use rand::SeedableRng;
//!
//! let ctx = FvContext::new(FvParameters::set_a()).unwrap();
//! let mut rng = rand_chacha::ChaCha20Rng::from_entropy();
//! let sk = SecretKey::generate(&ctx, &mut rng);
//! let pk = ctx.generate_public_key(&sk, Variant::Hpr, &mut rng).unwrap();
//! let rlk = ctx.generate_relin_key(&sk, Variant::Hpr, &mut rng).unwrap();
//! let n = ctx.parameters().n;
//! // a = 3 + X, b = 5 (polynomials mod X^n + 1, coefficients mod t).
//! let (mut a, mut b) = (vec![0u64; n], vec![0u64; n]);
//! a[0] = 3;
//! a[1] = 1;
//! b[0] = 5;
//! let ca = ctx.encrypt(&pk, &Plaintext::new(&ctx, a).unwrap(), &mut rng).unwrap();
//! let cb = ctx.encrypt(&pk, &Plaintext::new(&ctx, b).unwrap(), &mut rng).unwrap();
//! let prod = ctx.mul_relin(&ca, &cb, &rlk).unwrap();
//! let sum = ctx.add(&ca, &cb).unwrap();
//! let p = ctx.decrypt(&sk, &prod).unwrap();
//! let s = ctx.decrypt(&sk, &sum).unwrap();
//! assert_eq!(&p.coefficients()[..3], &[15, 5, 0]);
//! assert_eq!(&s.coefficients()[..3], &[8, 1, 0]);
//! ```
//!
//! [`plain_mul`] is the exact negacyclic product of two plaintext polynomials, the
//! reference a decrypted product is checked against.
//!
//! Keys and ciphertexts have no serialized form yet (the TFHE ones travel in
//! [`crate::keys::envelope`]).

pub use encint_fv::bfv::{
    BatchEncoder, Ciphertext, FvContext, FvParameters, Plaintext, PublicKey, RelinKey, SecretKey,
    Variant,
};
pub use encint_fv::ntt::plain_mul;
pub use encint_fv::FvError;
