//! The integer API of TFHE-rs' `FheInt` / `FheUint` on [`EncInt`]s: typed values
//! (`n` bits, signed or unsigned, results modulo `2^n`), every operation planned before
//! it runs. See [`encint_arith::typed`] for the operations, their semantics and the two
//! algorithms (Parmesan's digits, the boolean layer's bits) the planner chooses from.
//!
//! A typed value is an [`EncInt`] whose value is any representative of the integer modulo
//! `2^n`: wrapping arithmetic stays cheap (no normalisation), and [`decrypt_typed`]
//! reduces on the client.
//!
//! ```no_run
//! use encint::typed::{decrypt_typed, encrypt_typed, IntOp, IntType};
//! use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
//!
//! let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
//! let server = Server::new(key);
//! let u8t = IntType::new(8, false).unwrap();
//! let a = encrypt_typed(&client, 200, u8t).unwrap();
//! let b = encrypt_typed(&client, 100, u8t).unwrap();
//! // Cost before running: the planner's choice for this server's thread count.
//! let plan = server.typed_plan(IntOp::WrappingAdd, u8t).unwrap();
//! println!("{} bootstraps", plan.chosen().cost.bootstraps);
//! let (sum, _) = server.typed_apply(IntOp::WrappingAdd, u8t, &[&a, &b]).unwrap();
//! assert_eq!(decrypt_typed(&client, &sum, u8t).unwrap(), 44); // 300 mod 256
//! let (q, _) = server.typed_apply(IntOp::Div, u8t, &[&a, &b]).unwrap();
//! assert_eq!(decrypt_typed(&client, &q, u8t).unwrap(), 2);
//! ```

pub use encint_arith::typed::{
    build, circuit, plan, Algorithm, Estimate, IntOp, IntType, Plan, TypedError, MAX_TYPED_BITS,
};
use encint_core::circuit::Cost;
use encint_tfhe::ClientKey;

use crate::{decrypt, encrypt, EncInt, Error, Result, Server};

fn typed_error(e: TypedError) -> Error {
    Error::InvalidInput(e.to_string())
}

/// Encrypts a value of type `ty` as `ty.bits` digits. Errors if `value` is not a value of
/// the type (an unsigned 127- or 128-bit type takes values up to `i128::MAX`).
pub fn encrypt_typed(client: &ClientKey, value: i128, ty: IntType) -> Result<EncInt> {
    let ty = IntType::new(ty.bits, ty.signed).map_err(typed_error)?;
    if !ty.contains(value) {
        return Err(Error::InvalidInput(format!(
            "{value} is not a value of {ty}"
        )));
    }
    encrypt(client, value, ty.bits)
}

/// Decrypts a typed value: the value of `ty` congruent to the decrypted representative
/// modulo `2^n`.
pub fn decrypt_typed(client: &ClientKey, x: &EncInt, ty: IntType) -> Result<i128> {
    let ty = IntType::new(ty.bits, ty.signed).map_err(typed_error)?;
    Ok(ty.wrap(decrypt(client, x)?))
}

impl Server {
    /// The threads this server's evaluations run on.
    pub fn threads(&self) -> usize {
        self.install(rayon::current_num_threads)
    }

    /// The planner's estimates for `op` on operands of type `ty` at this server's thread
    /// count, the chosen algorithm first (no key needed: circuits only).
    pub fn typed_plan(&self, op: IntOp, ty: IntType) -> Result<Plan> {
        plan(self.arith(), op, ty, self.threads()).map_err(typed_error)
    }

    /// Runs `op` on typed operands with the planner's algorithm; returns the result (a
    /// value of `op.result_type(ty)`, read with [`decrypt_typed`]) and its cost.
    pub fn typed_apply(&self, op: IntOp, ty: IntType, args: &[&EncInt]) -> Result<(EncInt, Cost)> {
        let algorithm = self.typed_plan(op, ty)?.chosen().algorithm;
        self.typed_apply_with(op, ty, algorithm, args)
    }

    /// Runs `op` with a given algorithm (errors if it does not implement the operation).
    pub fn typed_apply_with(
        &self,
        op: IntOp,
        ty: IntType,
        algorithm: Algorithm,
        args: &[&EncInt],
    ) -> Result<(EncInt, Cost)> {
        if args.len() != op.arity() {
            return Err(typed_error(TypedError::Arity {
                expected: op.arity(),
                found: args.len(),
            }));
        }
        let mut failure = None;
        let (mut out, cost) =
            self.eval(args, |ar, b, x| match build(ar, b, op, ty, algorithm, x) {
                Ok(r) => vec![r],
                Err(e) => {
                    failure = Some(e);
                    Vec::new()
                }
            })?;
        if let Some(e) = failure {
            return Err(typed_error(e));
        }
        let out = out
            .pop()
            .ok_or_else(|| Error::InvalidInput("the operation built no output".into()))?;
        Ok((out, cost))
    }
}
