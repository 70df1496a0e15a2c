//! The inference on FV slots: one image per slot of a ciphertext, a whole batch (8,192 to
//! 32,768 images, the ring degree of the set) in one run.
//!
//! Pixels, accumulators and activations are integers in slots (modulo `t = 65537`). A
//! layer's products by clear weights and its sums are linear combinations (no depth); with
//! encrypted weights (each weight encrypted in every slot) they are products of
//! ciphertexts summed before one relinearisation (one level). An activation
//! `min(max(h, 0) >> shift, max)` is one polynomial of its accumulator, interpolated on
//! every value the accumulator can take ([`SlotPoly`]) and evaluated with baby and giant
//! steps, so the model's depth, and from it the parameter set, is known before any key
//! exists ([`FvInference::plan`]).

use rayon::prelude::*;

use crate::fv_bits::{
    centre, choose_set, FvBitSet, FvBitsClientKey, FvBitsError, FvBitsServerKey, FvInts, SlotPoly,
    SLOT_MODULUS,
};
use crate::{Error, Result};

use super::circuit::Weights;
use super::model::Model;
use super::types::{column_ranges, Types};

/// The encrypted weights and biases of a model on FV slots (every layer's, flattened in
/// order, each value in every slot): what the model owner sends in
/// [`Weights::Encrypted`] mode.
pub type FvEncryptedWeights = (Vec<FvInts>, Vec<FvInts>);

/// What a model's inference on FV slots costs, known before any key exists.
#[derive(Debug, Clone, PartialEq)]
pub struct FvPlan {
    /// Multiplicative depth of the whole forward pass.
    pub depth: u32,
    /// Products of ciphertexts per batch (an upper bound).
    pub products: usize,
    /// The smallest 128-bit set whose usable depth covers it.
    pub set: FvBitSet,
    /// Per hidden layer, the largest degree of its activation polynomials.
    pub degrees: Vec<usize>,
    /// Bytes of one ciphertext of the set.
    pub ciphertext_bytes: usize,
    /// Ciphertexts the client and the model owner send (pixels, and the encrypted weights
    /// and biases).
    pub uploads: usize,
}

/// The largest upload one plan may ask for, in bytes: a model whose encrypted weights
/// would take more is refused before any key exists.
pub const MAX_UPLOAD_BYTES: usize = 8 << 30;

/// The most memory the activations evaluated side by side may hold, in bytes: fewer run
/// at once when their polynomials' powers would take more (at least one always runs).
pub const MAX_WORKING_BYTES: usize = 4 << 30;

/// The most interpolation one plan may do, in steps (a polynomial through `p` points
/// takes about `p²`; columns of one accumulator range share theirs): a model whose
/// activations would take more is refused before any is interpolated, in about a second
/// of work at most.
pub const MAX_INTERPOLATION_WORK: u64 = 1 << 27;

/// A model's inference on FV slots.
///
/// ```no_run
/// use encint::infer::{FvInference, Model, Weights};
/// use encint::fv_bits::FvBitsClientKey;
///
/// let model = Model::builtin("mlp")?;
/// let inference = FvInference::compile(&model, Weights::Clear)?; // no key yet
/// assert!(inference.plan().depth <= inference.plan().set.usable_depth);
/// let (client, server) = FvBitsClientKey::generate(&inference.plan().set)?;
/// let images = vec![vec![0i64; 64]; 3];
/// let pixels = inference.encrypt_images(&images, &client)?; // client
/// let logits = inference.run(&server, &pixels, None)?; // server
/// let scores = inference.decrypt(&logits, &client)?; // client: one row per image
/// assert_eq!(scores[0], model.logits(&images[0])?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct FvInference {
    model: Model,
    weights: Weights,
    /// Per hidden layer, per column of its weight matrix: the activation's polynomial.
    polys: Vec<Vec<SlotPoly>>,
    plan: FvPlan,
}

fn fv(e: FvBitsError) -> Error {
    Error::InvalidInput(format!("FV slots: {e}"))
}

impl FvInference {
    /// Plans `model`'s inference on FV slots with the weights where `weights` says: the
    /// activation polynomials (on each column's accumulator range with clear weights, on
    /// the accumulator type's range with encrypted ones, [`Types`]), the depth and the
    /// parameter set. Errors when no set covers the depth, when a value could leave
    /// `-32768..=32768`, when the uploads would pass [`MAX_UPLOAD_BYTES`], or
    /// ([`Error::LimitExceeded`]) when the activations' interpolation would pass
    /// [`MAX_INTERPOLATION_WORK`].
    pub fn compile(model: &Model, weights: Weights) -> Result<FvInference> {
        let types = Types::of(model)?;
        // Interpolated once; evaluated with the fewest products, unless the shallowest
        // evaluations fit a smaller set.
        let cheap = Self::activations(model, weights, &types)?;
        let shallow = cheap
            .iter()
            .map(|ps| ps.iter().map(SlotPoly::shallowest).collect())
            .collect();
        let shallow = Self::planned(model, weights, shallow)?;
        match Self::planned(model, weights, cheap) {
            Ok(c) if c.plan.set.slots() <= shallow.plan.set.slots() => Ok(c),
            _ => Ok(shallow),
        }
    }

    /// Per hidden layer, per column: the activation interpolated on the accumulator's range
    /// (each column's with clear weights, the accumulator type's with encrypted ones).
    fn activations(model: &Model, weights: Weights, types: &Types) -> Result<Vec<Vec<SlotPoly>>> {
        let half = i128::from(SLOT_MODULUS / 2);
        let mut polys = Vec::new();
        let mut input_max = model.input_max;
        let mut work = 0u64;
        for (l, layer) in model.layers.iter().enumerate() {
            let acc = types.accumulators[l];
            if acc.min() < -half || acc.max() > half {
                return Err(Error::OutOfRange(format!(
                    "layer {l}: accumulators of type {acc} do not fit FV slots (-{half}..={half})"
                )));
            }
            let Some(a) = layer.activation else { continue };
            let ranges = match weights {
                Weights::Clear => column_ranges(layer, input_max),
                Weights::Encrypted => vec![(acc.min(), acc.max()); layer.matrix_shape()[1]],
            };
            // Columns of one range share their polynomial; the interpolations' work
            // (quadratic in the points) is bounded before any is done.
            let mut distinct = ranges.clone();
            distinct.sort_unstable();
            distinct.dedup();
            work = distinct.iter().fold(work, |w, &(lo, hi)| {
                let points = (hi - lo + 1).clamp(0, 1 << 20) as u64;
                w.saturating_add(points * points)
            });
            if work > MAX_INTERPOLATION_WORK {
                return Err(Error::LimitExceeded(format!(
                    "layer {l}: the activations on FV slots need {} polynomials through up to \
                     {} points each, more interpolation than the {MAX_INTERPOLATION_WORK} \
                     steps a plan may take",
                    distinct.len(),
                    distinct
                        .iter()
                        .map(|&(lo, hi)| hi - lo + 1)
                        .max()
                        .unwrap_or(0)
                )));
            }
            let mut interpolated = std::collections::HashMap::new();
            for &(lo, hi) in &distinct {
                let p = SlotPoly::interpolate(lo as i64, hi as i64, |h| a.apply(h)).map_err(fv)?;
                interpolated.insert((lo, hi), p);
            }
            let ps = ranges.iter().map(|r| interpolated[r].clone()).collect();
            polys.push(ps);
            input_max = a.max;
        }
        Ok(polys)
    }

    /// The inference with these activation polynomials: its depth, products, set and
    /// uploads, refused past [`MAX_UPLOAD_BYTES`].
    fn planned(model: &Model, weights: Weights, polys: Vec<Vec<SlotPoly>>) -> Result<FvInference> {
        let (mut depth, mut products) = (0u32, 0usize);
        let mut degrees = Vec::new();
        let mut hidden = polys.iter();
        for layer in &model.layers {
            let [rows, cols] = layer.matrix_shape();
            let windows = layer.rows().len();
            if weights == Weights::Encrypted {
                depth += 1;
                products += windows * cols * rows;
            }
            if layer.activation.is_some() {
                let ps = hidden.next().ok_or_else(|| {
                    Error::Internal("an activation without its polynomials".into())
                })?;
                depth += ps.iter().map(SlotPoly::depth).max().unwrap_or(0);
                products += windows * ps.iter().map(SlotPoly::products).sum::<usize>();
                degrees.push(ps.iter().map(SlotPoly::degree).max().unwrap_or(0));
            }
        }
        let set = choose_set(depth).map_err(fv)?;
        let ciphertext_bytes = 2 * set.params.n * set.params.rns_count * 8;
        let uploads = model.input_size
            + match weights {
                Weights::Clear => 0,
                Weights::Encrypted => model
                    .layers
                    .iter()
                    .map(|l| l.weights.len() + l.bias.len())
                    .sum(),
            };
        if uploads * ciphertext_bytes > MAX_UPLOAD_BYTES {
            return Err(Error::LimitExceeded(format!(
                "the inference on FV slots needs depth {depth} (set {}) and {uploads} \
                 uploaded ciphertexts of {} MiB, more than {} GiB",
                set.name(),
                ciphertext_bytes >> 20,
                MAX_UPLOAD_BYTES >> 30
            )));
        }
        Ok(FvInference {
            model: model.clone(),
            weights,
            polys,
            plan: FvPlan {
                depth,
                products,
                set,
                degrees,
                ciphertext_bytes,
                uploads,
            },
        })
    }

    /// The plan: depth, products, parameter set, sizes.
    pub fn plan(&self) -> &FvPlan {
        &self.plan
    }

    /// Where the weights are.
    pub fn weights(&self) -> Weights {
        self.weights
    }

    /// Images one run takes: the set's slots.
    pub fn batch(&self) -> usize {
        self.plan.set.slots()
    }

    /// Encrypts `images` (1 to [`FvInference::batch`], each checked against the model): one
    /// ciphertext per pixel, image `r` in slot `r` (the client's side).
    pub fn encrypt_images(
        &self,
        images: &[Vec<i64>],
        client: &FvBitsClientKey,
    ) -> Result<Vec<FvInts>> {
        self.check_key(client.set())?;
        if images.is_empty() || images.len() > self.batch() {
            return Err(Error::ShapeMismatch(format!(
                "{} images for a batch of 1..={}",
                images.len(),
                self.batch()
            )));
        }
        for image in images {
            self.model.check_image(image)?;
        }
        (0..self.model.input_size)
            .into_par_iter()
            .map(|p| {
                let column: Vec<i64> = images.iter().map(|image| image[p]).collect();
                client.encrypt_ints(&column, false).map_err(fv)
            })
            .collect()
    }

    /// Encrypts the model's weights and biases, each in every slot (the model owner's side,
    /// in [`Weights::Encrypted`] mode); errors in [`Weights::Clear`] mode.
    pub fn encrypt_weights(&self, client: &FvBitsClientKey) -> Result<FvEncryptedWeights> {
        self.check_key(client.set())?;
        if self.weights != Weights::Encrypted {
            return Err(Error::InvalidInput(
                "the weights stay in the clear in this inference".into(),
            ));
        }
        let layers = &self.model.layers;
        let all = |v: Vec<i64>| -> Result<Vec<FvInts>> {
            v.into_par_iter()
                .map(|w| client.encrypt_ints(&[w], true).map_err(fv))
                .collect()
        };
        Ok((
            all(layers.iter().flat_map(|l| l.weights.clone()).collect())?,
            all(layers.iter().flat_map(|l| l.bias.clone()).collect())?,
        ))
    }

    fn check_key(&self, set: &FvBitSet) -> Result<()> {
        if set.name() != self.plan.set.name() {
            return Err(Error::InvalidInput(format!(
                "keys of set {}, the inference needs {}",
                set.name(),
                self.plan.set.name()
            )));
        }
        Ok(())
    }

    /// The forward pass on the server (its relinearisation key only): one ciphertext per
    /// logit, image `r`'s logits in slot `r`. Errors on ciphertexts of another key set,
    /// a wrong number of pixels or weights, or weights given in the wrong mode.
    pub fn run(
        &self,
        server: &FvBitsServerKey,
        pixels: &[FvInts],
        weights: Option<&FvEncryptedWeights>,
    ) -> Result<Vec<FvInts>> {
        self.check_key(server.set())?;
        if pixels.len() != self.model.input_size {
            return Err(Error::ShapeMismatch(format!(
                "{} pixel ciphertexts, the model takes {}",
                pixels.len(),
                self.model.input_size
            )));
        }
        let layers = &self.model.layers;
        let w = self.weights.given(weights)?;
        if let Some(w) = w {
            let nw: usize = layers.iter().map(|l| l.weights.len()).sum();
            let nb: usize = layers.iter().map(|l| l.bias.len()).sum();
            if w.0.len() != nw || w.1.len() != nb {
                return Err(Error::ShapeMismatch(format!(
                    "{} weights and {} biases, the model has {nw} and {nb}",
                    w.0.len(),
                    w.1.len()
                )));
            }
        }
        let mut act: Vec<FvInts> = pixels.to_vec();
        let (mut wo, mut bo, mut hidden) = (0usize, 0usize, 0usize);
        for layer in layers {
            let [rows, cols] = layer.matrix_shape();
            let windows = layer.rows();
            let jobs: Vec<(usize, usize)> = (0..windows.len())
                .flat_map(|r| (0..cols).map(move |j| (r, j)))
                .collect();
            let polys = layer.activation.map(|_| &self.polys[hidden]);
            // Outputs evaluated side by side, as many as their powers' ciphertexts fit in
            // MAX_WORKING_BYTES (each evaluation holds its powers until it ends).
            let held = polys.map_or(1, |ps| {
                ps.iter().map(|p| p.products() + 2).max().unwrap_or(1)
            });
            let side_by_side = (MAX_WORKING_BYTES / (held * self.plan.ciphertext_bytes)).max(1);
            let mut out = Vec::with_capacity(jobs.len());
            for group in jobs.chunks(side_by_side) {
                out.extend(self.layer_outputs(
                    group,
                    server,
                    layer,
                    &act,
                    &windows,
                    w,
                    (wo, bo),
                    polys,
                )?);
            }
            debug_assert_eq!(out.len(), layer.outputs);
            wo += rows * cols;
            bo += cols;
            if layer.activation.is_some() {
                hidden += 1;
            }
            act = out;
        }
        Ok(act)
    }

    /// The outputs `jobs` (row of inputs, column) of `layer` on `act`: the accumulator,
    /// then its activation.
    #[allow(clippy::too_many_arguments)]
    fn layer_outputs(
        &self,
        jobs: &[(usize, usize)],
        server: &FvBitsServerKey,
        layer: &super::layer::Layer,
        act: &[FvInts],
        windows: &[Vec<usize>],
        w: Option<&FvEncryptedWeights>,
        (wo, bo): (usize, usize),
        polys: Option<&Vec<SlotPoly>>,
    ) -> Result<Vec<FvInts>> {
        let cols = layer.matrix_shape()[1];
        jobs.par_iter()
            .map(|&(r, j)| {
                let window = &windows[r];
                let acc = match w {
                    None => {
                        let mut terms: Vec<(&FvInts, i64)> = window
                            .iter()
                            .enumerate()
                            .map(|(i, &x)| (&act[x], layer.weights[i * cols + j]))
                            .filter(|t| t.1 != 0)
                            .collect();
                        if terms.is_empty() {
                            terms.push((&act[window[0]], 0));
                        }
                        server.linear_ints(&terms, layer.bias[j])
                    }
                    Some((we, be)) => {
                        let pairs: Vec<(&FvInts, &FvInts)> = window
                            .iter()
                            .enumerate()
                            .map(|(i, &x)| (&act[x], &we[wo + i * cols + j]))
                            .collect();
                        server
                            .dot_ints(&pairs, 0)
                            .and_then(|d| server.linear_ints(&[(&d, 1), (&be[bo + j], 1)], 0))
                    }
                }
                .map_err(fv)?;
                match polys {
                    Some(ps) => server.poly_ints(&acc, &ps[j]).map_err(fv),
                    None => Ok(acc),
                }
            })
            .collect()
    }

    /// The same forward pass in plain integers modulo `t` (linear combinations, then the
    /// activation polynomials evaluated as the server evaluates them), for `images` (each
    /// checked against the model): each image's logits, centred. Exactly the model's
    /// logits when the polynomials and the slot range are right, which this checks
    /// without keys.
    pub fn run_clear(&self, images: &[Vec<i64>]) -> Result<Vec<Vec<i64>>> {
        images
            .par_iter()
            .map(|image| {
                self.model.check_image(image)?;
                let mut act = image.clone();
                let mut hidden = 0;
                for layer in &self.model.layers {
                    let [_, cols] = layer.matrix_shape();
                    let mut out = Vec::with_capacity(layer.outputs);
                    for window in layer.rows() {
                        for j in 0..cols {
                            let acc =
                                window.iter().enumerate().fold(layer.bias[j], |s, (i, &x)| {
                                    centre(s + layer.weights[i * cols + j] * act[x])
                                });
                            out.push(match layer.activation {
                                Some(_) => self.polys[hidden][j].eval(acc),
                                None => acc,
                            });
                        }
                    }
                    if layer.activation.is_some() {
                        hidden += 1;
                    }
                    act = out;
                }
                Ok(act)
            })
            .collect()
    }

    /// Decrypts the logits of [`FvInference::run`] (the client's side): one row of logits
    /// per image encrypted.
    pub fn decrypt(&self, logits: &[FvInts], client: &FvBitsClientKey) -> Result<Vec<Vec<i64>>> {
        let columns = logits
            .par_iter()
            .map(|x| client.decrypt_ints(x).map_err(fv))
            .collect::<Result<Vec<_>>>()?;
        let count = columns.first().map_or(0, Vec::len);
        Ok((0..count)
            .map(|r| columns.iter().map(|c| c[r]).collect())
            .collect())
    }
}
