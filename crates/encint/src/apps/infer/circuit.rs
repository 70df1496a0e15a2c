//! The encrypted inference as one compiled circuit over a batch of images, with the
//! weights in the clear on the server or encrypted under the client's key set.

use std::sync::{Arc, Mutex, PoisonError};

use crate::fhe::{compile_with, Compiled, FheArray, FheValue};
use crate::typed::{IntType, Op};
use crate::{ClientKey, Cost, Error, Result, Server};

use super::layer::Activation;
use super::model::Model;
use super::types::Types;

/// Where the model's weights are when the server computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weights {
    /// In the clear on the server: products by clear weights fold into the sums, only
    /// the reductions and activations bootstrap.
    Clear,
    /// Encrypted by the model owner under the client's key set: products of two
    /// ciphertexts; the server sees neither the image nor the weights.
    Encrypted,
}

impl Weights {
    /// `"clear"` or `"encrypted"`.
    pub fn name(self) -> &'static str {
        match self {
            Weights::Clear => "clear",
            Weights::Encrypted => "encrypted",
        }
    }

    /// The encrypted weights a run was given, checked against this mode: none with clear
    /// weights, some with encrypted ones.
    pub(super) fn given<W>(self, weights: Option<W>) -> Result<Option<W>> {
        match (self, weights) {
            (Weights::Clear, None) => Ok(None),
            (Weights::Encrypted, Some(w)) => Ok(Some(w)),
            (Weights::Clear, Some(_)) => Err(Error::InvalidInput(
                "encrypted weights given to an inference with clear weights".into(),
            )),
            (Weights::Encrypted, None) => Err(Error::InvalidInput(
                "an inference with encrypted weights needs them".into(),
            )),
        }
    }
}

/// The encrypted weights and biases of a model (every layer's, flattened in order): what
/// the model owner sends to the server in [`Weights::Encrypted`] mode.
pub type EncryptedWeights = (FheArray<FheValue>, FheArray<FheValue>);

type Args = (FheArray<FheValue>, Option<EncryptedWeights>);
type Layout = (
    (Vec<usize>, IntType),
    Option<((Vec<usize>, IntType), (Vec<usize>, IntType))>,
);

/// A model's inference compiled into one circuit over `batch` images: the images' pixels
/// in, every image's logits out.
///
/// ```
/// use encint::infer::{Inference, Model, Weights};
///
/// let model = Model::from_json(
///     r#"{"format": "encint-mlp", "version": 1, "input_size": 2, "input_max": 3,
///         "layers": [{"weights": [[1, -2], [3, 1]], "bias": [0, 1],
///                     "relu": {"shift": 0, "max": 3}},
///                    {"weights": [[2], [-1]], "bias": [5]}]}"#,
/// )?;
/// let inference = Inference::compile(&model, Weights::Clear, 2)?;
/// assert!(inference.cost().bootstraps > 0); // known before any key exists
/// let images = vec![vec![1, 2], vec![3, 0]];
/// let logits = inference.run_clear(&images)?;
/// assert_eq!(logits[0], model.logits(&images[0])?);
/// # Ok::<(), encint::Error>(())
/// ```
pub struct Inference {
    model: Model,
    weights: Weights,
    batch: usize,
    types: Types,
    compiled: Compiled<Args, Option<FheArray<FheValue>>>,
}

impl std::fmt::Debug for Inference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inference")
            .field("weights", &self.weights)
            .field("batch", &self.batch)
            .field("types", &self.types)
            .field("cost", &self.cost())
            .finish()
    }
}

/// The largest batch one circuit takes.
pub const MAX_BATCH: usize = 256;

impl Inference {
    /// Compiles `model`'s inference over `batch` images (1..=[`MAX_BATCH`]) with the weights
    /// where `weights` says, in the smallest types that hold every value ([`Types::of`]).
    /// Tracing only: no key is needed, and [`Inference::cost`] is known at once.
    pub fn compile(model: &Model, weights: Weights, batch: usize) -> Result<Inference> {
        if batch == 0 || batch > MAX_BATCH {
            return Err(Error::OutOfRange(format!(
                "a batch of {batch} images (1..={MAX_BATCH})"
            )));
        }
        let types = Types::of(model)?;
        let x_layout = (vec![batch, model.input_size], types.input);
        let w_layout = match weights {
            Weights::Clear => None,
            Weights::Encrypted => {
                let nw: usize = model.layers.iter().map(|l| l.weights.len()).sum();
                let nb: usize = model.layers.iter().map(|l| l.bias.len()).sum();
                Some(((vec![nw], types.weight), (vec![nb], types.bias)))
            }
        };
        let layout: Layout = (x_layout, w_layout);
        let failure: Arc<Mutex<Option<Error>>> = Arc::new(Mutex::new(None));
        let (m, t, fail) = (model.clone(), types.clone(), failure.clone());
        let compiled = compile_with(layout, move |(x, w): Args| {
            match forward(&m, &t, batch, x, w) {
                Ok(out) => Some(out),
                Err(e) => {
                    *fail.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
                    None
                }
            }
        })?;
        if let Some(e) = failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            return Err(e);
        }
        Ok(Inference {
            model: model.clone(),
            weights,
            batch,
            types,
            compiled,
        })
    }

    /// The circuit's cost (bootstraps, depth, widest level) for the whole batch.
    pub fn cost(&self) -> Cost {
        self.compiled.cost()
    }

    /// Bootstraps per image: the batch's bootstraps divided by its images.
    pub fn bootstraps_per_image(&self) -> f64 {
        self.cost().bootstraps as f64 / self.batch as f64
    }

    /// Images per circuit.
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// Where the weights are.
    pub fn weights(&self) -> Weights {
        self.weights
    }

    /// The types of the circuit.
    pub fn types(&self) -> &Types {
        &self.types
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Runs the circuit in the clear (the oracle executor, no keys) on `images` (at most
    /// one batch; missing images are zeros and their logits dropped): each image's logits.
    pub fn run_clear(&self, images: &[Vec<i64>]) -> Result<Vec<Vec<i64>>> {
        let pixels = self.batch_pixels(images)?;
        let mut values: Vec<i128> = pixels.into_iter().map(i128::from).collect();
        if self.weights == Weights::Encrypted {
            let layers = &self.model.layers;
            values.extend(
                layers
                    .iter()
                    .flat_map(|l| &l.weights)
                    .map(|&w| i128::from(w)),
            );
            values.extend(layers.iter().flat_map(|l| &l.bias).map(|&b| i128::from(b)));
        }
        let out = self.compiled.run_clear(&values)?;
        self.split(out.into_iter().map(i64::try_from), images.len())
    }

    /// Encrypts `images` (at most one batch; missing images are zeros) with the client key.
    pub fn encrypt_images(
        &self,
        images: &[Vec<i64>],
        client: &ClientKey,
    ) -> Result<FheArray<FheValue>> {
        let pixels = self.batch_pixels(images)?;
        let items = pixels
            .iter()
            .map(|&p| FheValue::encrypt(p.into(), self.types.input, client))
            .collect::<Result<Vec<_>>>()?;
        FheArray::new(items, vec![self.batch, self.model.input_size])
    }

    /// Encrypts the model's weights and biases with the client key (the model owner's
    /// side, in [`Weights::Encrypted`] mode); errors in [`Weights::Clear`] mode.
    pub fn encrypt_weights(&self, client: &ClientKey) -> Result<EncryptedWeights> {
        if self.weights != Weights::Encrypted {
            return Err(Error::InvalidInput(
                "this inference keeps its weights in the clear".into(),
            ));
        }
        let layers = &self.model.layers;
        let enc = |values: Vec<i64>, ty: IntType| -> Result<FheArray<FheValue>> {
            let n = values.len();
            let items = values
                .into_iter()
                .map(|v| FheValue::encrypt(v.into(), ty, client))
                .collect::<Result<Vec<_>>>()?;
            FheArray::new(items, vec![n])
        };
        Ok((
            enc(
                layers.iter().flat_map(|l| l.weights.clone()).collect(),
                self.types.weight,
            )?,
            enc(
                layers.iter().flat_map(|l| l.bias.clone()).collect(),
                self.types.bias,
            )?,
        ))
    }

    /// Runs the circuit on `server` (the server key only) over encrypted images and, in
    /// [`Weights::Encrypted`] mode, the encrypted weights: the batch's encrypted logits,
    /// shape `(batch, outputs)`. Errors on a ciphertext of another key set.
    pub fn run(
        &self,
        server: &Server,
        images: &FheArray<FheValue>,
        weights: Option<&EncryptedWeights>,
    ) -> Result<FheArray<FheValue>> {
        let args = self.args(images, weights)?;
        self.logits(self.compiled.run_on(server, &args)?)
    }

    /// [`Inference::run`] with the bootstraps on another backend (an MPI job's ranks):
    /// `server` checks the ciphertexts' key set, `backend` runs the circuit.
    pub fn run_on_backend<B>(
        &self,
        server: &Server,
        backend: &B,
        images: &FheArray<FheValue>,
        weights: Option<&EncryptedWeights>,
    ) -> Result<FheArray<FheValue>>
    where
        B: encint_core::exec::Backend<Value = encint_tfhe::Digit, Error = Error>,
    {
        let args = self.args(images, weights)?;
        self.logits(self.compiled.run_on_backend(server, backend, &args)?)
    }

    fn logits(&self, out: Option<FheArray<FheValue>>) -> Result<FheArray<FheValue>> {
        out.ok_or_else(|| Error::Internal("the inference circuit has no output".into()))
    }

    /// The circuit's arguments: the images and, in [`Weights::Encrypted`] mode, the
    /// weights (refused in the other mode, and required in this one).
    fn args(
        &self,
        images: &FheArray<FheValue>,
        weights: Option<&EncryptedWeights>,
    ) -> Result<Args> {
        let w = self.weights.given(weights)?;
        Ok((images.clone(), w.cloned()))
    }

    /// Decrypts the logits of [`Inference::run`] (the client's side): the first `count`
    /// images' logits.
    pub fn decrypt(
        &self,
        logits: &FheArray<FheValue>,
        count: usize,
        client: &ClientKey,
    ) -> Result<Vec<Vec<i64>>> {
        let values = logits
            .items()
            .iter()
            .map(|v| v.decrypt(client))
            .collect::<Result<Vec<i128>>>()?;
        self.split(values.into_iter().map(i64::try_from), count)
    }

    /// The pixels of one batch, row-major, zeros for missing images.
    fn batch_pixels(&self, images: &[Vec<i64>]) -> Result<Vec<i64>> {
        if images.len() > self.batch {
            return Err(Error::ShapeMismatch(format!(
                "{} images for a batch of {}",
                images.len(),
                self.batch
            )));
        }
        let mut pixels = Vec::with_capacity(self.batch * self.model.input_size);
        for image in images {
            self.model.check_image(image)?;
            pixels.extend_from_slice(image);
        }
        pixels.resize(self.batch * self.model.input_size, 0);
        Ok(pixels)
    }

    fn split<E>(
        &self,
        values: impl Iterator<Item = std::result::Result<i64, E>>,
        count: usize,
    ) -> Result<Vec<Vec<i64>>> {
        let values = values
            .collect::<std::result::Result<Vec<i64>, E>>()
            .map_err(|_| Error::Overflow)?;
        let n = self.model.outputs();
        if values.len() != self.batch * n || count > self.batch {
            return Err(Error::ShapeMismatch(format!(
                "{} logits for a batch of {} images of {n} classes",
                values.len(),
                self.batch
            )));
        }
        Ok(values.chunks(n).take(count).map(<[i64]>::to_vec).collect())
    }
}

/// Each element of `x` converted to `ty` (free when it only adds known bits).
fn cast(x: &[FheValue], ty: IntType) -> Result<Vec<FheValue>> {
    x.iter()
        .map(|v| {
            if v.ty() == ty {
                Ok(v.clone())
            } else {
                v.unary(Op::Cast(ty))
            }
        })
        .collect()
}

/// `min(max(h, 0) >> shift, max)` on an accumulator of type `acc`, as a value of `out`:
/// the shift first (free on two's-complement bits), then the ReLU and the clip on the
/// narrower type that holds the shifted value.
fn activate(h: &FheValue, a: Activation, acc: IntType, out: IntType) -> Result<FheValue> {
    let shift = a.shift.min(acc.bits as u32 - 1);
    let narrow_bits = (acc.bits - shift as usize).max(out.bits + 1);
    let narrow = IntType::new(narrow_bits.min(acc.bits), true).map_err(Error::from)?;
    let mut v = if shift > 0 {
        h.unary(Op::Shr(shift))?
    } else {
        h.clone()
    };
    if narrow != acc {
        v = v.unary(Op::Cast(narrow))?;
    }
    if let Some(k) = clip_bits(a.max, narrow, out) {
        return relu_clip_bits(&v, k, narrow)?.unary(Op::Cast(out));
    }
    let mut v = v.binary(Op::Max, 0)?;
    // A clip above every value the narrow type holds changes nothing (and its bound
    // would not be a value of the type).
    if i128::from(a.max) <= narrow.max() {
        v = v.binary(Op::Min, i128::from(a.max))?;
    }
    v.unary(Op::Cast(out))
}

/// `Some(k)` when the clip `min(·, max)` keeps the low `k` bits of a non-negative value
/// of `narrow`: `max = 2^k - 1`, below the type's largest value, and `k` bits fit `out`.
fn clip_bits(max: i64, narrow: IntType, out: IntType) -> Option<usize> {
    let k = (max + 1).trailing_zeros() as usize;
    let fits = max >= 1 && (max + 1).count_ones() == 1 && k <= out.bits;
    (fits && k < narrow.bits).then_some(k)
}

/// `min(max(v, 0), 2^k - 1)` of a signed `v` (of type `ty`, `k` below its width) as
/// bitwise operations, so each of the low `k` result bits is one function of three bits:
/// `(v_j | over) & !sign`, with `over` the OR of the bits from `k` up to the sign (some
/// bit there set means the value is above the clip). A sign or bit is spread over the
/// width by shifts, which cost nothing. The bits above `k` are left to the caller's cast.
fn relu_clip_bits(v: &FheValue, k: usize, ty: IntType) -> Result<FheValue> {
    let top = ty.bits as u32 - 1;
    // Every bit equal to bit `j` of `v`: a left shift brings it to the sign, an
    // arithmetic right shift spreads it.
    let spread = |j: u32| -> Result<FheValue> {
        let up = if j < top {
            v.unary(Op::Shl(top - j))?
        } else {
            v.clone()
        };
        up.unary(Op::Shr(top))
    };
    let positive = spread(top)?.unary(Op::Not)?;
    let mut v = v.clone();
    if (k as u32) < top {
        let mut over = spread(k as u32)?;
        for j in k as u32 + 1..top {
            over = over.binary(Op::Or, &spread(j)?)?;
        }
        v = v.binary(Op::Or, &over)?;
    }
    v.binary(Op::And, &positive)
}

/// The traced forward pass over a batch: `x` of shape `(batch, inputs)`; `w` the
/// encrypted weights and biases, or `None` for clear ones. Each layer is one matrix
/// product over its rows of inputs ([`super::Layer::rows`]), whose `(batch * rows,
/// columns)` result is the `(batch, outputs)` of the layer.
fn forward(
    model: &Model,
    types: &Types,
    batch: usize,
    x: FheArray<FheValue>,
    w: Option<EncryptedWeights>,
) -> Result<FheArray<FheValue>> {
    let mut act = x.into_items();
    let (mut wo, mut bo) = (0usize, 0usize);
    for (l, layer) in model.layers.iter().enumerate() {
        let acc = types.accumulators[l];
        let [k, m] = layer.matrix_shape();
        let windows = layer.rows();
        // One row of the matrix product per image and window: (batch * windows, k).
        let gather = |values: &[FheValue]| -> Result<FheArray<FheValue>> {
            let mut items = Vec::with_capacity(batch * windows.len() * k);
            for image in values.chunks(layer.inputs) {
                for window in &windows {
                    items.extend(window.iter().map(|&i| image[i].clone()));
                }
            }
            FheArray::new(items, vec![batch * windows.len(), k])
        };
        let h = match &w {
            None => {
                let xs = gather(&cast(&act, acc)?)?;
                let wc: Vec<i128> = layer.weights.iter().map(|&v| v.into()).collect();
                let bc: Vec<i128> = layer.bias.iter().map(|&v| v.into()).collect();
                xs.matmul_clear(&wc, [k, m], &bc)?
            }
            Some((we, be)) => {
                let xs = gather(&act)?;
                let wl = FheArray::new(we.items()[wo..wo + k * m].to_vec(), vec![k, m])?;
                let bl = FheArray::new(be.items()[bo..bo + m].to_vec(), vec![m])?;
                xs.matmul_widening(&wl, Some(&bl), acc)?
            }
        };
        wo += k * m;
        bo += m;
        act = match layer.activation {
            Some(a) => {
                let out = types.activations[l];
                h.items()
                    .iter()
                    .map(|v| activate(v, a, acc, out))
                    .collect::<Result<Vec<_>>>()?
            }
            None => h.into_items(),
        };
    }
    FheArray::new(act, vec![batch, model.outputs()])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The traced activation of every accumulator value equals the plain one, for clips
    /// of every kind: a power of two minus one (the bitwise path, with one or several bits
    /// above the clip) and other bounds (comparisons), with and without a shift.
    #[test]
    fn activation_circuits_match_plain_integers() {
        for acc_bits in [4usize, 5, 7, 9] {
            let acc = IntType::new(acc_bits, true).unwrap();
            for shift in [0u32, 1, 2, 4] {
                for max in [1i64, 3, 5, 7, 15] {
                    let a = Activation { shift, max };
                    let out_bits = (64 - max.leading_zeros()) as usize;
                    let out = IntType::new(out_bits, false).unwrap();
                    let f = compile_with((vec![1usize], acc), move |x: FheArray<FheValue>| {
                        activate(&x.items()[0], a, acc, out).ok()
                    })
                    .unwrap();
                    let (lo, hi) = (acc.min(), acc.max());
                    for h in lo..=hi {
                        let got = f.run_clear(&[h]).unwrap();
                        let want = a.apply(h as i64);
                        assert_eq!(got, vec![i128::from(want)], "{a:?} on {h} ({acc:?})");
                    }
                }
            }
        }
    }
}
