//! Boolean circuits run on encrypted bits, for benchmarks of the bit-level circuits
//! themselves (Trifan, Nicolau and Veidenbaum, "Enhancing the Privacy of Machine Learning
//! via faster arithmetic over Torus FHE"; Chen, Feng, Liu and Wu, "Faster Binary Arithmetic
//! Operations on Encrypted Integers"): each bit a digit ciphertext holding 0 or 1, the
//! circuit lowered to digit bootstraps and run by the [`crate::backend::digit`].
//!
//! Programs use the typed family instead ([`crate::fhe`]: `FheUint8`, `FheInt16`, ...),
//! whose operations pick the bit circuits where they are fastest. This module takes and
//! returns plain integers: [`run_bit_circuit`] encrypts the words, runs one circuit and
//! decrypts its output bits.
//!
//! ```no_run
//! use encint::arith::bits::{self, BitKernel};
//! use encint::bit_circuits::run_bit_circuit;
//! use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
//!
//! let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
//! let server = Server::new(key);
//! let circuit = BitKernel::Div.digit_circuit(8, 1)?;
//! let run = run_bit_circuit(&client, &server, &circuit, &[200, 7], 8)?;
//! assert_eq!(bits::from_bits(&run.bits), 28);
//! # Ok::<(), encint::Error>(())
//! ```

use std::time::Instant;

use encint_core::circuit::{Circuit, Cost};
use encint_tfhe::{ClientKey, Digit};

use crate::{Error, Result, Server};

/// What [`run_bit_circuit`] measured: the output bits (least significant first), the
/// circuit's cost and the seconds of the run alone (not of encryption or decryption).
#[derive(Debug, Clone)]
pub struct BitRun {
    /// The decrypted output bits, in the circuit's output order.
    pub bits: Vec<bool>,
    /// The circuit's cost.
    pub cost: Cost,
    /// Wall time of the run on `server`, in seconds.
    pub seconds: f64,
}

/// Encrypts each of `words` as `width` unsigned bits (1..=128) with `client`, runs the
/// digit circuit `circuit` on them with `server` (one input digit per bit, the words' bits
/// in order; every output digit a bit, as
/// [`BitKernel::digit_circuit`](crate::arith::bits::BitKernel::digit_circuit) builds) and
/// decrypts its outputs.
///
/// Errors on a width outside 1..=128, a word that does not fit it, an input count the
/// circuit does not take, a server of another key set ([`Error::KeySetMismatch`]), or an
/// output digit that does not decrypt to 0 or 1 ([`Error::DigitOutOfRange`]).
pub fn run_bit_circuit(
    client: &ClientKey,
    server: &Server,
    circuit: &Circuit,
    words: &[u128],
    width: usize,
) -> Result<BitRun> {
    if !(1..=128).contains(&width) {
        return Err(Error::TypeMismatch(format!(
            "width {width} outside 1..=128"
        )));
    }
    if let Some(w) = words.iter().find(|&&w| width < 128 && w >> width != 0) {
        return Err(Error::OutOfRange(format!(
            "{w} does not fit {width} unsigned bits"
        )));
    }
    if words.len() * width != circuit.inputs().len() {
        return Err(Error::ShapeMismatch(format!(
            "circuit expects {} input bits, got {}",
            circuit.inputs().len(),
            words.len() * width
        )));
    }
    server.check_key_set(0, client.key_set())?;
    let digits: Vec<Digit> = words
        .iter()
        .flat_map(|&w| (0..width).map(move |k| i64::from((w >> k) & 1 == 1)))
        .map(|bit| client.encrypt_digit(bit))
        .collect();
    let refs: Vec<&Digit> = digits.iter().collect();
    let start = Instant::now();
    let out = server.run_circuit(circuit, &refs)?;
    let seconds = start.elapsed().as_secs_f64();
    let bits = out
        .iter()
        .enumerate()
        .map(|(position, d)| match client.decrypt_digit(d) {
            0 => Ok(false),
            1 => Ok(true),
            value => Err(Error::DigitOutOfRange { position, value }),
        })
        .collect::<Result<Vec<bool>>>()?;
    Ok(BitRun {
        bits,
        cost: circuit.cost(),
        seconds,
    })
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
