//! The integer API of TFHE-rs' `FheInt` / `FheUint` on [`EncInt`]s: typed values
//! (`n` bits, signed or unsigned, results modulo `2^n`), every operation planned before
//! it runs. See [`encint_arith::typed`] for the operations, their semantics and the two
//! algorithms (Parmesan's digits, the boolean layer's bits) the planner chooses from.
//!
//! An [`EncTyped`] carries its type and the [`Form`] of its digits: canonical
//! (two's-complement bits, what encryption and boolean-layer results give; their bits are
//! free), lazy (any representative modulo `2^n`: wrapping arithmetic with no
//! normalisation) or radix-4 (two bits per digit, as TFHE-rs' blocks; see
//! [`encrypt_typed_as`]). [`decrypt_typed`] reduces on the client. The planner sees the forms: an
//! operation on canonical operands skips the conversion to bits.
//!
//! ```no_run
//! use encint::typed::{decrypt_typed, encrypt_typed, Op, IntType};
//! use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
//!
//! let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
//! let server = Server::new(key);
//! let u8t = IntType::new(8, false).unwrap();
//! let a = encrypt_typed(&client, 200, u8t).unwrap();
//! let b = encrypt_typed(&client, 100, u8t).unwrap();
//! // Cost before running: the planner's choice for this server's thread count.
//! let plan = server.typed_plan(Op::Add, &[&a, &b]).unwrap();
//! assert!(plan.chosen().cost.bootstraps > 0);
//! let (sum, _) = server.typed_apply(Op::Add, &[&a, &b]).unwrap();
//! assert_eq!(decrypt_typed(&client, &sum).unwrap(), 44); // 300 mod 256
//! let (q, _) = server.typed_apply(Op::Div, &[&a, &b]).unwrap();
//! assert_eq!(decrypt_typed(&client, &q).unwrap(), 2);
//! ```

pub use encint_arith::typed::{
    build, circuit, plan, plan_on, result_form, Algorithm, Estimate, Form, IntType, Op, Plan,
    TypedError, MAX_TYPED_BITS,
};
use encint_core::circuit::Cost;
use encint_tfhe::{ClientKey, KeySetId};

use crate::{EncInt, Error, Result, Server};

/// An encrypted value of an [`IntType`] (like TFHE-rs' `FheInt8`, `FheUint64`, ...): its
/// digits, its type and their [`Form`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncTyped {
    value: EncInt,
    ty: IntType,
    form: Form,
}

impl EncTyped {
    /// The type.
    pub fn ty(&self) -> IntType {
        self.ty
    }
    /// The digits' form.
    pub fn form(&self) -> Form {
        self.form
    }
    /// The digits as an [`EncInt`] (a representative of the value modulo `2^n`).
    pub fn as_int(&self) -> &EncInt {
        &self.value
    }
    /// The key set.
    pub fn key_set(&self) -> KeySetId {
        self.value.key_set()
    }
    /// A typed value of digits already in `form` (a circuit's output).
    pub(crate) fn from_parts(value: EncInt, ty: IntType, form: Form) -> Self {
        EncTyped { value, ty, form }
    }

    /// Reads digits as a value of `ty` in `form`; errors on a width outside 1..=128 or a
    /// digit count the form does not allow (exactly `ty.bits` canonical digits, exactly
    /// `⌈bits/2⌉` radix-4 blocks, at most `ty.bits` lazy digits). The digits' values are
    /// the caller's to vouch for (a wrong form decrypts to a wrong value).
    pub fn with_form(value: EncInt, ty: IntType, form: Form) -> Result<Self> {
        let ty = IntType::new(ty.bits, ty.signed).map_err(Error::from)?;
        let (n, want) = (value.len(), form.digits(ty));
        if n > want || (form != Form::Lazy && n != want) {
            return Err(Error::TypeMismatch(format!(
                "{n} digits for a {ty} value in {} form",
                form.name()
            )));
        }
        Ok(EncTyped { value, ty, form })
    }

    /// Reads any [`EncInt`] as a value of `ty` (its value modulo `2^n`): its low `n`
    /// digits in lazy form (the digits above weigh multiples of `2^n`), no cost.
    pub fn from_int(value: EncInt, ty: IntType) -> Result<Self> {
        let ty = IntType::new(ty.bits, ty.signed).map_err(Error::from)?;
        let value = if value.len() > ty.bits {
            let low = value.digits()[..ty.bits].to_vec();
            EncInt::from_digits(low, value.key_set())
        } else {
            value
        };
        Ok(EncTyped {
            value,
            ty,
            form: Form::Lazy,
        })
    }
}

impl Server {
    /// The exact integer of a typed value ([`EncInt`]: its value, not a representative
    /// modulo `2^n`), as one circuit: free for canonical digits (their top digit already
    /// carries the sign), the conversion to bits for a lazy value (`⌈3n/2⌉ − 1`
    /// bootstraps) or for radix-4 blocks. Errors on a value of another key set.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// use encint::typed::{encrypt_typed_as, Form, IntType};
    /// let x = encrypt_typed_as(&client, -100, IntType::new(8, true)?, Form::Radix4)?;
    /// let exact = server.typed_to_int(&x)?; // its value, not a representative
    /// assert_eq!(encint::decrypt(&client, &exact)?, -100);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn typed_to_int(&self, x: &EncTyped) -> Result<EncInt> {
        self.check_key_set(0, x.key_set())?;
        if x.form == Form::Canonical {
            return Ok(x.value.clone());
        }
        let mut b = encint_core::circuit::Builder::new();
        let ins = encint_arith::SInt::input(&mut b, x.value.len());
        let canonical = encint_arith::typed::to_canonical(&mut b, &ins, x.ty, x.form);
        let circuit = b.finish(canonical.digits);
        let refs: Vec<_> = x.value.digits().iter().collect();
        let out = self.run_circuit(&circuit, &refs)?;
        Ok(EncInt::from_digits(out, self.key().key_set()))
    }
}

impl Server {
    /// A value of `ty` whose low `random_bits` bits are drawn uniformly at random by the
    /// server without the secret key (TFHE-rs' `generate_oblivious_pseudo_random_bounded`):
    /// no one learns it without the client key. The bits above are 0, so an unsigned value
    /// is uniform on `0..2^random_bits`; with `random_bits` the width, a signed value is
    /// uniform over the whole type. The same `seed` gives the same value (a new seed for
    /// each draw). Canonical form; one blind rotation per random bit. Errors when
    /// `random_bits` exceeds the width.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// use encint::typed::{decrypt_typed, IntType};
    /// let u8t = IntType::new(8, false)?;
    /// let die = server.typed_random(u8t, 0x5eed, 3)?; // 0..8
    /// assert!((0..8).contains(&decrypt_typed(&client, &die)?));
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn typed_random(&self, ty: IntType, seed: u128, random_bits: usize) -> Result<EncTyped> {
        let ty = IntType::new(ty.bits, ty.signed).map_err(Error::from)?;
        if random_bits > ty.bits {
            return Err(Error::OutOfRange(format!(
                "{random_bits} random bits in a {}-bit type",
                ty.bits
            )));
        }
        let key = self.key();
        let mut digits = self.install(|| key.oblivious_random_bits(seed, random_bits));
        let params = key.params();
        digits.resize_with(ty.bits, || encint_tfhe::Digit::trivial(0, params));
        if ty.signed {
            // The top digit of a signed canonical value weighs -2^(n-1).
            if let Some(top) = digits.last_mut() {
                top.scale_assign(-1);
            }
        }
        let value = EncInt::from_digits(digits, key.key_set());
        Ok(EncTyped::from_parts(value, ty, Form::Canonical))
    }
}

/// Encrypts a value of type `ty` in canonical form (`ty.bits` digits: its two's-complement
/// bits, the top one negated when signed). Errors if `value` is not a value of the type
/// (an unsigned 127- or 128-bit type takes values up to `i128::MAX`).
pub fn encrypt_typed(client: &ClientKey, value: i128, ty: IntType) -> Result<EncTyped> {
    encrypt_typed_as(client, value, ty, Form::Canonical)
}

/// Encrypts a value of type `ty` in a given form: [`Form::Canonical`] (as
/// [`encrypt_typed`]), [`Form::Radix4`] (`⌈bits/2⌉` blocks of two bits, like TFHE-rs'
/// radix ciphertexts: additions, bitwise logic, products and comparisons then run on the
/// blocks), or [`Form::Lazy`] (the canonical digits, read as any representative).
///
/// ```no_run
/// use encint::typed::{decrypt_typed, encrypt_typed_as, Form, Op, IntType};
/// use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
///
/// let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
/// let server = Server::new(key);
/// let u16t = IntType::new(16, false).unwrap();
/// let a = encrypt_typed_as(&client, 40000, u16t, Form::Radix4).unwrap();
/// let b = encrypt_typed_as(&client, 30000, u16t, Form::Radix4).unwrap();
/// assert_eq!(a.as_int().digits().len(), 8);
/// let (sum, cost) = server.typed_apply(Op::Add, &[&a, &b]).unwrap();
/// assert_eq!(sum.form(), Form::Radix4);
/// assert_eq!(cost.bootstraps, 15); // a ripple over 8 blocks
/// assert_eq!(decrypt_typed(&client, &sum).unwrap(), 4464); // 70000 mod 65536
/// ```
pub fn encrypt_typed_as(
    client: &ClientKey,
    value: i128,
    ty: IntType,
    form: Form,
) -> Result<EncTyped> {
    let (ty, digits) = typed_digits(value, ty, form)?;
    let digits = digits
        .into_iter()
        .map(|d| client.encrypt_digit(d))
        .collect();
    Ok(EncTyped {
        value: EncInt::from_digits(digits, client.key_set()),
        ty,
        form,
    })
}

/// The checked type and the digit values of `value` of type `ty` in `form`; errors if the
/// width is outside 1..=128 or `value` is not a value of the type.
pub(crate) fn typed_digits(value: i128, ty: IntType, form: Form) -> Result<(IntType, Vec<i64>)> {
    let ty = IntType::new(ty.bits, ty.signed).map_err(Error::from)?;
    if !ty.contains(value) {
        return Err(Error::OutOfRange(format!("{value} is not a value of {ty}")));
    }
    Ok((ty, form.encode(ty, value)))
}

/// Decrypts a typed value: the value of its type congruent to the decrypted digits
/// modulo `2^n` (radix-4 blocks: `Σ dᵢ 4^i`). Errors on another key set, or on a digit
/// outside its form's range.
pub fn decrypt_typed(client: &ClientKey, x: &EncTyped) -> Result<i128> {
    if x.key_set() != client.key_set() {
        return Err(Error::WrongClientKey {
            key: client.key_set(),
            ciphertext: x.key_set(),
        });
    }
    let digits: Vec<i64> = x
        .value
        .digits()
        .iter()
        .map(|d| client.decrypt_digit(d))
        .collect();
    typed_value(&digits, x.ty, x.form)
}

/// The value of type `ty` of decrypted digits in `form` (least significant first): for
/// binary forms the value congruent to `Σ dᵢ 2^i` modulo `2^n` (digits in `-1..=1`), for
/// radix-4 `Σ dᵢ 4^i` (blocks in `0..=3`); [`Error::DigitOutOfRange`] for a digit outside
/// its form's range.
pub(crate) fn typed_value(digits: &[i64], ty: IntType, form: Form) -> Result<i128> {
    if form != Form::Radix4 {
        // The digits' value modulo 2^n as its n-bit pattern (a representative may pass
        // i128, and an unsigned 128-bit value above i128::MAX comes as its negative
        // pattern).
        let v = crate::int::digits::digits_value(digits)?;
        let modulus = num_bigint::BigInt::from(1u8) << ty.bits;
        let pattern = ((v % &modulus) + &modulus) % &modulus;
        let low = u128::try_from(pattern).map_err(|_| Error::Overflow)?;
        return Ok(ty.wrap(low as i128));
    }
    if let Some((position, &value)) = digits
        .iter()
        .enumerate()
        .find(|&(_, v)| !(0..=3).contains(v))
    {
        return Err(Error::DigitOutOfRange { position, value });
    }
    form.value(ty, digits).ok_or_else(|| {
        Error::TypeMismatch(format!(
            "{} radix-4 blocks do not hold a value of {}",
            digits.len(),
            ty
        ))
    })
}

impl Server {
    /// The threads this server's evaluations run on.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (_, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let server = Server::with_threads(server_key, 2)?;
    /// assert_eq!(server.threads(), 2);
    /// # let (_, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// assert_eq!(Server::new(server_key).threads(), rayon::current_num_threads());
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn threads(&self) -> usize {
        self.install(rayon::current_num_threads)
    }

    /// The parallel bootstraps the planner assumes when it chooses circuits for this
    /// server: its profile's [`Machine::plan_threads`](crate::Machine::plan_threads) when one
    /// is set ([`Server::set_machine`]), else its [`threads`](Self::threads) on the CPU, [`crate::backend::gpu::plan_lanes`] on the
    /// GPU (where a level's latency, not its width, dominates).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (_, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// assert_eq!(server.plan_threads(), server.threads()); // on the CPU
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn plan_threads(&self) -> usize {
        if let Some(m) = self.machine() {
            return m.plan_threads;
        }
        match self.backend() {
            crate::BackendKind::Gpu => crate::backend::gpu::plan_lanes(),
            crate::BackendKind::Cpu | crate::BackendKind::Mpi => self.threads(),
        }
    }

    /// The operand type and forms of `op` on `args`; errors unless every operand has the
    /// same type (the select condition excepted) and the right count.
    fn typed_operands(&self, op: Op, args: &[&EncTyped]) -> Result<(IntType, Vec<Form>)> {
        let types: Vec<(IntType, Form)> = args.iter().map(|x| (x.ty, x.form)).collect();
        operand_types(op, &types)
    }

    /// The planner's estimates for `op` on `args` (their types and forms) at this
    /// server's thread count, the chosen algorithm first: the cost before running (no key
    /// needed: circuits only). Errors on operands of two types or a wrong count.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// use encint::typed::{encrypt_typed, IntType, Op};
    /// let u8t = IntType::new(8, false)?;
    /// let (a, b) = (encrypt_typed(&client, 200, u8t)?, encrypt_typed(&client, 7, u8t)?);
    /// let plan = server.typed_plan(Op::Div, &[&a, &b])?; // nothing runs
    /// assert!(plan.chosen().cost.bootstraps > 0);
    /// assert!(plan.estimates.iter().all(|e| Op::Div.algorithms().contains(&e.algorithm)));
    /// assert!(server.typed_plan(Op::Div, &[&a]).is_err()); // two operands
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn typed_plan(&self, op: Op, args: &[&EncTyped]) -> Result<Plan> {
        let (ty, forms) = self.typed_operands(op, args)?;
        self.plan_typed(op, ty, &forms)
    }

    /// The plan of `op` on operands of type `ty` in `forms`: ranked by estimated time on
    /// this server's machine profile when it has one, else by rounds at its threads.
    fn plan_typed(&self, op: Op, ty: IntType, forms: &[Form]) -> Result<Plan> {
        match self.machine() {
            Some(m) => plan_on(self.arith(), op, ty, forms, m),
            None => plan(self.arith(), op, ty, forms, self.plan_threads()),
        }
        .map_err(Error::from)
    }

    /// Runs `op` on typed operands with the planner's algorithm; returns the result (of
    /// type `op.result_type(ty)`) and its cost. Errors as [`Server::typed_plan`], on
    /// another key set, or on a result past the limits.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// use encint::typed::{decrypt_typed, encrypt_typed, IntType, Op};
    /// let i8t = IntType::new(8, true)?;
    /// let (a, b) = (encrypt_typed(&client, -100, i8t)?, encrypt_typed(&client, 3, i8t)?);
    /// let (p, cost) = server.typed_apply(Op::Mul, &[&a, &b])?;
    /// assert_eq!(decrypt_typed(&client, &p)?, i128::from((-100i8).wrapping_mul(3)));
    /// assert!(cost.bootstraps > 0);
    /// let (lt, _) = server.typed_apply(Op::LT, &[&a, &b])?;
    /// assert_eq!(lt.ty(), IntType::BOOL);
    /// assert_eq!(decrypt_typed(&client, &lt)?, i128::from(-100 < 3));
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn typed_apply(&self, op: Op, args: &[&EncTyped]) -> Result<(EncTyped, Cost)> {
        let (ty, forms) = self.typed_operands(op, args)?;
        let plan = self.plan_typed(op, ty, &forms)?;
        // The plan has checked the request and built every algorithm's circuit already.
        self.run_typed(op, plan.chosen().algorithm, ty, &forms, args)
    }

    /// Runs `op` with a given algorithm (errors if it does not implement the operation).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// use encint::typed::{decrypt_typed, encrypt_typed, Algorithm, IntType, Op};
    /// let u8t = IntType::new(8, false)?;
    /// let (a, b) = (encrypt_typed(&client, 250, u8t)?, encrypt_typed(&client, 9, u8t)?);
    /// let (s, _) = server.typed_apply_with(Op::Add, Algorithm::Digits, &[&a, &b])?;
    /// assert_eq!(decrypt_typed(&client, &s)?, i128::from(250u8.wrapping_add(9)));
    /// // No digit circuit for a bitwise operation:
    /// assert!(server.typed_apply_with(Op::Xor, Algorithm::Digits, &[&a, &b]).is_err());
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn typed_apply_with(
        &self,
        op: Op,
        algorithm: Algorithm,
        args: &[&EncTyped],
    ) -> Result<(EncTyped, Cost)> {
        let (ty, forms) = self.typed_operands(op, args)?;
        // Refuse bad requests before anything runs.
        if !op.algorithms().contains(&algorithm) {
            return Err(Error::from(TypedError::Unsupported(op, algorithm)));
        }
        plan(self.arith(), op, ty, &forms, 1).map_err(Error::from)?;
        self.run_typed(op, algorithm, ty, &forms, args)
    }

    /// Builds and runs `op` with `algorithm` on operands already checked by [`plan`].
    fn run_typed(
        &self,
        op: Op,
        algorithm: Algorithm,
        ty: IntType,
        forms: &[Form],
        args: &[&EncTyped],
    ) -> Result<(EncTyped, Cost)> {
        let ints: Vec<&EncInt> = args.iter().map(|x| &x.value).collect();
        let mut result = None;
        let (mut out, cost) = self.eval(&ints, |ar, b, x| {
            match build(ar, b, op, ty, algorithm, x, forms) {
                Ok((r, form)) => {
                    result = Some(Ok(form));
                    vec![r]
                }
                Err(e) => {
                    result = Some(Err(e));
                    Vec::new()
                }
            }
        })?;
        let form = match result {
            Some(Ok(f)) => f,
            Some(Err(e)) => return Err(Error::from(e)),
            None => return Err(Error::Internal("the operation built nothing".into())),
        };
        let value = out
            .pop()
            .ok_or_else(|| Error::Internal("the operation built no output".into()))?;
        Ok((
            EncTyped {
                value,
                ty: op.result_type(ty),
                form,
            },
            cost,
        ))
    }
}

/// The form an operand enters `op` in: a select condition is read as one bit (canonical
/// only as a one-bit unsigned value, whose radix-4 block is its bit; otherwise its first
/// digit's parity decides).
pub(crate) fn operand_form(ty: IntType, form: Form, select_condition: bool) -> Form {
    match form {
        Form::Radix4 if select_condition && ty == IntType::BOOL => Form::Canonical,
        Form::Radix4 => Form::Radix4,
        _ if select_condition && ty != IntType::BOOL => Form::Lazy,
        f => f,
    }
}

/// The operand type of `op` on operands of types `types` and their forms: errors
/// unless the count is the operation's and every operand has one type (the select
/// condition excepted).
pub(crate) fn operand_types(op: Op, types: &[(IntType, Form)]) -> Result<(IntType, Vec<Form>)> {
    if types.len() != op.arity() {
        return Err(Error::from(TypedError::Arity {
            expected: op.arity(),
            found: types.len(),
        }));
    }
    let first = usize::from(op == Op::Select);
    let ty = types[first].0;
    if let Some((other, _)) = types[first..].iter().find(|(t, _)| *t != ty) {
        return Err(Error::TypeMismatch(format!(
            "{op}: operands of types {ty} and {other}"
        )));
    }
    let forms = types
        .iter()
        .enumerate()
        .map(|(i, &(t, f))| operand_form(t, f, op == Op::Select && i == 0))
        .collect();
    Ok((ty, forms))
}
