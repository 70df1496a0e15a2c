//! The integer model file and its plain-integer evaluation (the reference every
//! encrypted run is checked against).

use std::path::Path;

use serde::Deserialize;

use crate::{Error, Result};

/// The largest magnitude of a weight, bias, input or activation bound the loader accepts:
/// every accumulator then fits the typed family's widths with room to spare.
pub const MAX_MAGNITUDE: i64 = 1 << 20;

/// The largest layer size (inputs or outputs) the loader accepts.
pub const MAX_UNITS: usize = 4096;

/// What follows a hidden layer: `min(max(h, 0) >> shift, max)`, a ReLU, a rescaling by a
/// power of two (rounding down) and a clip to `0..=max`, so the next layer's inputs are
/// small unsigned integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Activation {
    /// Bits shifted out (a division by `2^shift`, rounding down).
    pub shift: u32,
    /// The largest activation (at least 1).
    pub max: i64,
}

impl Activation {
    /// The activation of one accumulator.
    pub fn apply(&self, h: i64) -> i64 {
        (h.max(0) >> self.shift).min(self.max)
    }
}

/// A dense layer `y = x·W + b` (`W` of shape `(inputs, outputs)`), followed by an
/// [`Activation`] unless it is the last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    /// Number of inputs.
    pub inputs: usize,
    /// Number of outputs.
    pub outputs: usize,
    /// The weights, row-major: `weights[i * outputs + j]` multiplies input `i` into output `j`.
    pub weights: Vec<i64>,
    /// One bias per output.
    pub bias: Vec<i64>,
    /// The activation after the layer (every layer but the last has one).
    pub activation: Option<Activation>,
}

/// A quantised multilayer perceptron on small unsigned integer inputs: every weight,
/// bias and activation an integer, so an encrypted run computes exactly its logits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    /// Number of inputs (pixels).
    pub input_size: usize,
    /// The largest input value (inputs are `0..=input_max`).
    pub input_max: i64,
    /// The layers, in order.
    pub layers: Vec<Layer>,
}

#[derive(Deserialize)]
struct RawLayer {
    weights: Vec<Vec<i64>>,
    bias: Vec<i64>,
    #[serde(default)]
    relu: Option<Activation>,
}

#[derive(Deserialize)]
struct RawModel {
    format: String,
    version: u32,
    input_size: usize,
    input_max: i64,
    layers: Vec<RawLayer>,
}

/// The model file's format name.
pub const MODEL_FORMAT: &str = "encint-mlp";
/// The image file's format name.
pub const IMAGES_FORMAT: &str = "encint-images";

fn bad(msg: impl Into<String>) -> Error {
    Error::InvalidInput(format!("model: {}", msg.into()))
}

fn check_magnitude(what: &str, v: i64) -> Result<()> {
    if v.unsigned_abs() > MAX_MAGNITUDE as u64 {
        return Err(bad(format!("{what} {v} is beyond ±{MAX_MAGNITUDE}")));
    }
    Ok(())
}

impl Model {
    /// Reads a model from its JSON text (`"format": "encint-mlp"`, version 1; see
    /// `scripts/train_digits.py`). Errors ([`Error::InvalidInput`]) on malformed JSON,
    /// another format, layers whose shapes do not chain, a hidden layer without an
    /// activation (or an activation on the last layer), or values out of range.
    pub fn from_json(text: &str) -> Result<Model> {
        let raw: RawModel =
            serde_json::from_str(text).map_err(|e| bad(format!("not a model file: {e}")))?;
        if raw.format != MODEL_FORMAT || raw.version != 1 {
            return Err(bad(format!(
                "format {:?} version {}, expected {MODEL_FORMAT:?} version 1",
                raw.format, raw.version
            )));
        }
        if raw.input_size == 0 || raw.input_size > MAX_UNITS {
            return Err(bad(format!(
                "input size {} (1..={MAX_UNITS})",
                raw.input_size
            )));
        }
        if raw.input_max < 1 {
            return Err(bad(format!("input_max {} is below 1", raw.input_max)));
        }
        check_magnitude("input_max", raw.input_max)?;
        if raw.layers.is_empty() {
            return Err(bad("no layer"));
        }
        let count = raw.layers.len();
        let mut inputs = raw.input_size;
        let mut layers = Vec::with_capacity(count);
        for (l, layer) in raw.layers.into_iter().enumerate() {
            if layer.weights.len() != inputs {
                return Err(bad(format!(
                    "layer {l} has {} weight rows for {inputs} inputs",
                    layer.weights.len()
                )));
            }
            let outputs = layer.bias.len();
            if outputs == 0 || outputs > MAX_UNITS {
                return Err(bad(format!(
                    "layer {l} has {outputs} outputs (1..={MAX_UNITS})"
                )));
            }
            if let Some(row) = layer.weights.iter().position(|r| r.len() != outputs) {
                return Err(bad(format!(
                    "layer {l}: weight row {row} has {} values for {outputs} outputs",
                    layer.weights[row].len()
                )));
            }
            for &v in layer.weights.iter().flatten() {
                check_magnitude(&format!("layer {l}: weight"), v)?;
            }
            for &v in &layer.bias {
                check_magnitude(&format!("layer {l}: bias"), v)?;
            }
            let last = l + 1 == count;
            match (&layer.relu, last) {
                (Some(_), true) => return Err(bad("the last layer has an activation")),
                (None, false) => return Err(bad(format!("hidden layer {l} has no activation"))),
                (Some(a), false) => {
                    if a.max < 1 || a.shift > 62 {
                        return Err(bad(format!(
                            "layer {l}: activation max {} (at least 1), shift {} (at most 62)",
                            a.max, a.shift
                        )));
                    }
                    check_magnitude(&format!("layer {l}: activation max"), a.max)?;
                }
                (None, true) => {}
            }
            layers.push(Layer {
                inputs,
                outputs,
                weights: layer.weights.into_iter().flatten().collect(),
                bias: layer.bias,
                activation: layer.relu,
            });
            inputs = outputs;
        }
        Ok(Model {
            input_size: raw.input_size,
            input_max: raw.input_max,
            layers,
        })
    }

    /// Reads a model file (see [`Model::from_json`]).
    pub fn load(path: &Path) -> Result<Model> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| bad(format!("cannot read {}: {e}", path.display())))?;
        Model::from_json(&text)
    }

    /// Number of outputs (logits).
    pub fn outputs(&self) -> usize {
        self.layers.last().map_or(0, |l| l.outputs)
    }

    /// Checks an image: `input_size` values in `0..=input_max`.
    pub fn check_image(&self, image: &[i64]) -> Result<()> {
        if image.len() != self.input_size {
            return Err(Error::InvalidInput(format!(
                "an image of {} values, the model takes {}",
                image.len(),
                self.input_size
            )));
        }
        if let Some(p) = image
            .iter()
            .position(|&v| !(0..=self.input_max).contains(&v))
        {
            return Err(Error::InvalidInput(format!(
                "pixel {p} is {}, outside 0..={}",
                image[p], self.input_max
            )));
        }
        Ok(())
    }

    /// The model's logits for one image, in plain integers: the reference.
    pub fn logits(&self, image: &[i64]) -> Result<Vec<i64>> {
        self.check_image(image)?;
        let mut x = image.to_vec();
        for layer in &self.layers {
            let mut y = layer.bias.clone();
            for (i, &xi) in x.iter().enumerate() {
                let row = &layer.weights[i * layer.outputs..(i + 1) * layer.outputs];
                for (yj, &w) in y.iter_mut().zip(row) {
                    *yj += w * xi;
                }
            }
            if let Some(a) = layer.activation {
                y.iter_mut().for_each(|v| *v = a.apply(*v));
            }
            x = y;
        }
        Ok(x)
    }

    /// The predicted class: the index of the largest logit (the first on a tie).
    pub fn predict(&self, image: &[i64]) -> Result<usize> {
        Ok(argmax(&self.logits(image)?))
    }
}

/// The index of the largest value (the first on a tie; 0 for an empty slice).
pub fn argmax(v: &[i64]) -> usize {
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if x > v[best] {
            best = i;
        }
    }
    best
}

/// Labelled images for a model (the test split the training script writes).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Images {
    /// The images, each `input_size` values.
    pub images: Vec<Vec<i64>>,
    /// The class of each image.
    pub labels: Vec<usize>,
}

#[derive(Deserialize)]
struct RawImages {
    format: String,
    version: u32,
    images: Vec<Vec<i64>>,
    labels: Vec<usize>,
}

impl Images {
    /// Reads images from their JSON text (`"format": "encint-images"`, version 1) and checks
    /// each against `model` (shape and range) and the label count.
    pub fn from_json(text: &str, model: &Model) -> Result<Images> {
        let raw: RawImages = serde_json::from_str(text)
            .map_err(|e| Error::InvalidInput(format!("images: not an image file: {e}")))?;
        if raw.format != IMAGES_FORMAT || raw.version != 1 {
            return Err(Error::InvalidInput(format!(
                "images: format {:?} version {}, expected {IMAGES_FORMAT:?} version 1",
                raw.format, raw.version
            )));
        }
        if raw.images.len() != raw.labels.len() {
            return Err(Error::InvalidInput(format!(
                "images: {} images and {} labels",
                raw.images.len(),
                raw.labels.len()
            )));
        }
        if let Some(k) = raw.labels.iter().position(|&l| l >= model.outputs()) {
            return Err(Error::InvalidInput(format!(
                "images: label {k} is {}, the model has {} classes",
                raw.labels[k],
                model.outputs()
            )));
        }
        for (k, image) in raw.images.iter().enumerate() {
            model
                .check_image(image)
                .map_err(|e| Error::InvalidInput(format!("images: image {k}: {e}")))?;
        }
        Ok(Images {
            images: raw.images,
            labels: raw.labels,
        })
    }

    /// Reads an image file (see [`Images::from_json`]).
    pub fn load(path: &Path, model: &Model) -> Result<Images> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::InvalidInput(format!("images: cannot read {}: {e}", path.display()))
        })?;
        Images::from_json(&text, model)
    }

    /// The share of images whose predicted class is their label.
    pub fn accuracy(&self, model: &Model) -> Result<f64> {
        let mut right = 0usize;
        for (image, &label) in self.images.iter().zip(&self.labels) {
            right += usize::from(model.predict(image)? == label);
        }
        Ok(right as f64 / self.images.len().max(1) as f64)
    }
}
