//! Encrypted bit-vector integers (seeds 001 and 003 on TFHE): each bit a digit
//! ciphertext holding 0 or 1, operations are boolean circuits from
//! [`encint_arith::bits`] lowered to digit bootstraps and run by the [`crate::executor`].
//!
//! Eager: one method per operation ([`Server::bits_add`], ...), each one circuit.
//! Traced: [`Server::bits_eval`] records any number of operations with one builder and
//! runs them as one circuit, so independent gates share bootstrap batches.
//!
//! ```no_run
//! use encint::bits::{decrypt_bits, encrypt_bits};
//! use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
//!
//! let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
//! let server = Server::new(key);
//! let a = encrypt_bits(&client, 200, 8, false).unwrap();
//! let b = encrypt_bits(&client, 7, 8, false).unwrap();
//! let q = server.bits_div(&a, &b).unwrap();
//! assert_eq!(decrypt_bits(&client, &q).unwrap(), 28);
//! ```

use encint_arith::bits::{self as ops, Word};
use encint_core::bits::{lower_into, BitBuilder, BitCircuit};
use encint_core::circuit::{Builder, Cost};
use encint_tfhe::{ClientKey, Digit, KeySetId};

use crate::backend::digit as executor;
use crate::{EncInt, Error, Result, Server};

/// An encrypted integer of 1..=128 bits, least significant first, read as unsigned or
/// two's complement.
#[derive(Debug, Clone)]
pub struct EncBits {
    bits: Vec<Digit>,
    signed: bool,
    /// The key set the bits were encrypted under (checked by the server and on decryption).
    key_set: KeySetId,
}

impl EncBits {
    /// Number of bits.
    pub fn width(&self) -> usize {
        self.bits.len()
    }
    /// The key set these bits belong to.
    pub fn key_set(&self) -> KeySetId {
        self.key_set
    }
    /// Whether the bits are read as two's complement.
    pub fn is_signed(&self) -> bool {
        self.signed
    }
    /// The bit ciphertexts, least significant first.
    pub fn bits(&self) -> &[Digit] {
        &self.bits
    }
}

fn check_width(width: usize) -> Result<()> {
    if (1..=128).contains(&width) {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!(
            "width {width} outside 1..=128"
        )))
    }
}

/// Encrypts `value` as `width` bits (1..=128), unsigned (`0 ≤ value < 2^width`) or two's
/// complement (`-2^(width-1) ≤ value < 2^(width-1)`). Errors if it does not fit.
pub fn encrypt_bits(
    client: &ClientKey,
    value: i128,
    width: usize,
    signed: bool,
) -> Result<EncBits> {
    check_width(width)?;
    let fits = if signed {
        width == 128 || (-(1i128 << (width - 1)) <= value && value < (1i128 << (width - 1)))
    } else {
        value >= 0 && (width >= 127 || value < (1i128 << width))
    };
    if !fits {
        let kind = if signed { "signed" } else { "unsigned" };
        return Err(Error::InvalidInput(format!(
            "{value} does not fit {width} {kind} bits"
        )));
    }
    let u = value as u128;
    Ok(EncBits {
        bits: (0..width)
            .map(|k| client.encrypt_digit(i64::from((u >> k) & 1 == 1)))
            .collect(),
        signed,
        key_set: client.key_set(),
    })
}

/// Decrypts bits to their unsigned or two's-complement value. Errors if a bit does not
/// decrypt to 0 or 1, or an unsigned 128-bit value exceeds `i128::MAX`.
pub fn decrypt_bits(client: &ClientKey, x: &EncBits) -> Result<i128> {
    if x.key_set != client.key_set() {
        return Err(Error::WrongClientKey {
            key: client.key_set(),
            ciphertext: x.key_set,
        });
    }
    if x.bits.len() > 128 {
        return Err(Error::Overflow);
    }
    let mut u: u128 = 0;
    for (position, d) in x.bits.iter().enumerate() {
        let value = client.decrypt_digit(d);
        if !(0..=1).contains(&value) {
            return Err(Error::DigitOutOfRange { position, value });
        }
        u |= (value as u128) << position;
    }
    let w = x.bits.len();
    if x.signed {
        Ok(if w < 128 && (u >> (w - 1)) & 1 == 1 {
            (u as i128) - (1i128 << w)
        } else {
            u as i128
        })
    } else {
        i128::try_from(u).map_err(|_| Error::Overflow)
    }
}

/// The words of `shapes` (width, signedness) cut in order from the bits `flat` of a traced
/// evaluation's outputs, each made by `word(bits, signed)`.
pub(crate) fn split_words<B, W>(
    flat: Vec<B>,
    shapes: Vec<(usize, bool)>,
    mut word: impl FnMut(Vec<B>, bool) -> W,
) -> Vec<W> {
    let mut it = flat.into_iter();
    shapes
        .into_iter()
        .map(|(width, signed)| word(it.by_ref().take(width).collect(), signed))
        .collect()
}

/// Operands of a binary operation must have one width and one signedness.
fn same_shape(a: &EncBits, b: &EncBits) -> Result<()> {
    match operands_differ((a.width(), a.signed), (b.width(), b.signed)) {
        Some(msg) => Err(Error::InvalidInput(msg)),
        None => Ok(()),
    }
}

/// The message for the operands of a binary operation on words of `(width, signed)` `a`
/// and `b`, `None` when they have one width and one signedness.
pub(crate) fn operands_differ(a: (usize, bool), b: (usize, bool)) -> Option<String> {
    let sign = |signed| if signed { "signed" } else { "unsigned" };
    (a != b).then(|| {
        format!(
            "operands differ: {} bits {} vs {} bits {}",
            a.0,
            sign(a.1),
            b.0,
            sign(b.1)
        )
    })
}

impl Server {
    /// Runs a boolean circuit on encrypted bits (inputs in order) and returns its outputs
    /// as one bit vector, with the cost of the lowered digit circuit.
    pub fn bits_run(
        &self,
        circuit: &BitCircuit,
        inputs: &[&EncBits],
        signed: bool,
    ) -> Result<(EncBits, Cost)> {
        if inputs.iter().map(|x| x.width()).sum::<usize>() != circuit.input_count() {
            return Err(Error::InvalidInput(format!(
                "circuit expects {} input bits, got {}",
                circuit.input_count(),
                inputs.iter().map(|x| x.width()).sum::<usize>()
            )));
        }
        let lowered = encint_core::bits::lower(circuit)?;
        self.bits_run_digits(&lowered, inputs, signed)
    }

    /// Traced evaluation: `build` records operations on words shaped like `inputs` (any
    /// number of them, one circuit), returns result words and whether each is signed.
    pub fn bits_eval(
        &self,
        inputs: &[&EncBits],
        build: impl FnOnce(&mut BitBuilder, &[Word]) -> Vec<(Word, bool)>,
    ) -> Result<(Vec<EncBits>, Cost)> {
        let widths: Vec<usize> = inputs.iter().map(|x| x.width()).collect();
        let (circuit, shapes) = ops::trace_words(&widths, build);
        let (all, cost) = self.bits_run(&circuit, inputs, false)?;
        let key_set = all.key_set;
        let results = split_words(all.bits, shapes, |bits, signed| EncBits {
            bits,
            signed,
            key_set,
        });
        Ok((results, cost))
    }

    fn bits_binary(
        &self,
        a: &EncBits,
        b: &EncBits,
        f: impl FnOnce(&mut BitBuilder, &Word, &Word) -> Word,
    ) -> Result<EncBits> {
        same_shape(a, b)?;
        let signed = a.signed;
        let (mut out, _) = self.bits_eval(&[a, b], |bb, w| vec![(f(bb, &w[0], &w[1]), signed)])?;
        Ok(out.pop().expect("one result"))
    }

    /// `a + b` (wrapping).
    pub fn bits_add(&self, a: &EncBits, b: &EncBits) -> Result<EncBits> {
        self.bits_binary(a, b, ops::add)
    }
    /// `a - b` (wrapping).
    pub fn bits_sub(&self, a: &EncBits, b: &EncBits) -> Result<EncBits> {
        self.bits_binary(a, b, ops::sub)
    }
    /// `a · b` (wrapping): radix-4 block products ([`encint_arith::blocks`]) where they
    /// cost fewer bootstraps than the boolean circuit ([`ops::BitKernel::digit_circuit`]).
    pub fn bits_mul(&self, a: &EncBits, b: &EncBits) -> Result<EncBits> {
        same_shape(a, b)?;
        let circuit = ops::BitKernel::Mul.digit_circuit(a.width(), 0)?;
        Ok(self.bits_run_digits(&circuit, &[a, b], a.signed)?.0)
    }

    /// Runs a digit circuit on encrypted bits (one input digit per bit, the inputs' bits
    /// in order; every output digit a bit, such as [`ops::BitKernel::digit_circuit`] builds)
    /// and returns its outputs as one bit vector, with the circuit's cost.
    pub fn bits_run_digits(
        &self,
        circuit: &encint_core::circuit::Circuit,
        inputs: &[&EncBits],
        signed: bool,
    ) -> Result<(EncBits, Cost)> {
        for (position, x) in inputs.iter().enumerate() {
            self.check_key_set(position, x.key_set)?;
        }
        let key_set = self.key().key_set();
        let digits: Vec<&Digit> = inputs.iter().flat_map(|x| x.bits.iter()).collect();
        if digits.len() != circuit.inputs().len() {
            return Err(Error::InvalidInput(format!(
                "circuit expects {} input bits, got {}",
                circuit.inputs().len(),
                digits.len()
            )));
        }
        let out = self.run_circuit(circuit, &digits)?;
        Ok((
            EncBits {
                bits: out,
                signed,
                key_set,
            },
            circuit.cost(),
        ))
    }
    /// `a / b`, truncating; division by zero as documented in
    /// [`encint_arith::bits::div_rem_unsigned`] / [`encint_arith::bits::div_rem_signed`].
    pub fn bits_div(&self, a: &EncBits, b: &EncBits) -> Result<EncBits> {
        if a.signed {
            self.bits_binary(a, b, |bb, x, y| ops::div_rem_signed(bb, x, y).0)
        } else {
            self.bits_binary(a, b, |bb, x, y| ops::div_rem_unsigned(bb, x, y).0)
        }
    }
    /// `a % b` (sign of `a` when signed); `a % 0 = a`.
    pub fn bits_rem(&self, a: &EncBits, b: &EncBits) -> Result<EncBits> {
        if a.signed {
            self.bits_binary(a, b, |bb, x, y| ops::div_rem_signed(bb, x, y).1)
        } else {
            self.bits_binary(a, b, |bb, x, y| ops::div_rem_unsigned(bb, x, y).1)
        }
    }
    /// `a < b` as a 1-bit unsigned result (signed comparison for signed operands).
    pub fn bits_lt(&self, a: &EncBits, b: &EncBits) -> Result<EncBits> {
        let signed = a.signed;
        let mut r = self.bits_binary(a, b, |bb, x, y| Word {
            bits: vec![if signed {
                ops::lt_signed(bb, x, y)
            } else {
                ops::lt_unsigned(bb, x, y)
            }],
        })?;
        r.signed = false;
        Ok(r)
    }
    /// `a ⊕ b` bitwise.
    pub fn bits_xor(&self, a: &EncBits, b: &EncBits) -> Result<EncBits> {
        self.bits_binary(a, b, ops::xor)
    }
    /// `a << s` for an encrypted unsigned amount `s` of any width (`s ≥ width` gives 0).
    pub fn bits_shl(&self, a: &EncBits, s: &EncBits) -> Result<EncBits> {
        let signed = a.signed;
        let (mut out, _) = self.bits_eval(&[a, s], |bb, w| {
            vec![(ops::shl_var(bb, &w[0], &w[1]), signed)]
        })?;
        Ok(out.pop().expect("one result"))
    }

    /// The two's-complement bits (`width` of them: the value modulo `2^width`) of an
    /// [`EncInt`], as a circuit (three bootstraps per two bits).
    pub fn bits_from_int(&self, x: &EncInt, width: usize) -> Result<EncBits> {
        check_width(width)?;
        let mut b = Builder::new();
        let ins: Vec<_> = x.digits().iter().map(|_| b.input()).collect();
        let bits = encint_core::bits::signed_digits_to_bits(&mut b, &ins, width);
        let circuit = b.finish(bits);
        self.check_key_set(0, x.key_set())?;
        let key_set = self.key().key_set();
        let digits: Vec<&Digit> = x.digits().iter().collect();
        let out = self.install(|| executor::run(self.key(), &circuit, &digits))?;
        Ok(EncBits {
            bits: out,
            signed: true,
            key_set,
        })
    }

    /// The [`EncInt`] (signed-binary digits) of a bit vector: free (linear), the top digit
    /// negated for two's complement.
    pub fn bits_to_int(&self, x: &EncBits) -> Result<EncInt> {
        self.check_key_set(0, x.key_set)?;
        let key_set = self.key().key_set();
        let mut b = Builder::new();
        let ins: Vec<_> = x.bits.iter().map(|_| b.input()).collect();
        let digits = encint_core::bits::bits_to_signed_digits(&mut b, &ins, x.signed);
        let circuit = b.finish(digits);
        let refs: Vec<&Digit> = x.bits.iter().collect();
        let out = self.install(|| executor::run(self.key(), &circuit, &refs))?;
        Ok(EncInt::from_digits(out, key_set))
    }
}

/// Lowers a boolean circuit into a digit builder (re-export for circuits that mix digit
/// and bit arithmetic).
pub fn lower_bits_into(
    b: &mut Builder,
    circuit: &BitCircuit,
    inputs: &[encint_core::circuit::NodeId],
) -> Result<Vec<encint_core::circuit::NodeId>> {
    Ok(lower_into(b, circuit, inputs)?)
}
