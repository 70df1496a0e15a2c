//! The integer model file and its plain-integer evaluation (the reference every
//! encrypted run is checked against).

use std::path::Path;

use serde::Deserialize;

use crate::{Error, Result};

use super::layer::{flatten, Activation, Conv2d, Layer, LayerKind};

/// The largest magnitude of a weight, bias, input or activation bound the loader accepts:
/// every accumulator then fits the typed family's widths with room to spare.
pub const MAX_MAGNITUDE: i64 = 1 << 20;

/// The largest layer size (inputs or outputs) the loader accepts.
pub const MAX_UNITS: usize = 4096;

/// A quantised neural network (dense layers and convolutions) on small unsigned integer
/// inputs: every weight, bias and activation an integer, so an encrypted run computes
/// exactly its logits.
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
#[serde(deny_unknown_fields)]
struct RawLayer {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    input_shape: Option<Vec<usize>>,
    weights: serde_json::Value,
    bias: Vec<i64>,
    #[serde(default)]
    relu: Option<Activation>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModel {
    format: String,
    version: u32,
    input_size: usize,
    input_max: i64,
    layers: Vec<RawLayer>,
    /// Free text for people (what the model is); not read.
    #[serde(default, rename = "description")]
    _description: Option<String>,
    /// Free notes on how the model was trained (the training script's); not read.
    #[serde(default, rename = "training")]
    _training: Option<serde_json::Value>,
}

/// The largest model or image file the loaders read, in bytes (the largest model the
/// limits allow, [`MAX_UNITS`] inputs and outputs per layer, is far smaller in any useful
/// form): a larger file, or an endless one, is refused before it is read.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// The text of a model or image file, refused past [`MAX_FILE_BYTES`].
fn read_text(path: &Path, what: &str) -> Result<String> {
    let bytes = crate::io::files::read_bounded(path, MAX_FILE_BYTES)
        .map_err(|e| Error::InvalidInput(format!("{what}: {e}")))?;
    String::from_utf8(bytes)
        .map_err(|_| Error::Malformed(format!("{what}: {} is not UTF-8 text", path.display())))
}

/// The model file's format name (version 1: dense layers; version 2 adds the layer kind
/// and convolutions).
pub const MODEL_FORMAT: &str = "encint-mlp";
/// The newest version of the model file's format.
pub const MODEL_VERSION: u32 = 2;
/// The image file's format name.
pub const IMAGES_FORMAT: &str = "encint-images";

fn bad(msg: impl Into<String>) -> Error {
    Error::Malformed(format!("model: {}", msg.into()))
}

fn check_magnitude(what: &str, v: i64) -> Result<()> {
    if v.unsigned_abs() > MAX_MAGNITUDE as u64 {
        return Err(bad(format!("{what} {v} is beyond ±{MAX_MAGNITUDE}")));
    }
    Ok(())
}

impl Model {
    /// Reads a model from its JSON text (`"format": "encint-mlp"`, version 1 or 2; see
    /// `scripts/train_digits.py`). A version-2 layer may say `"kind": "conv2d"` with an
    /// `"input_shape": [height, width, channels]` and weights of shape `[kernel height]
    /// [kernel width][input channels][output channels]` (one bias per output channel);
    /// otherwise it is dense, weights of shape `[inputs][outputs]`. Errors
    /// ([`Error::Malformed`]) on malformed JSON, another format or version, an unknown
    /// layer kind, layers whose shapes do not chain, a kernel larger than its input, a
    /// hidden layer without an activation (or an activation on the last layer), or values
    /// out of range.
    pub fn from_json(text: &str) -> Result<Model> {
        let raw: RawModel =
            serde_json::from_str(text).map_err(|e| bad(format!("not a model file: {e}")))?;
        if raw.format != MODEL_FORMAT || !(1..=MODEL_VERSION).contains(&raw.version) {
            return Err(bad(format!(
                "format {:?} version {}, expected {MODEL_FORMAT:?} version 1 to {MODEL_VERSION}",
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
            let parsed = parse_layer(l, layer, inputs, raw.version, l + 1 == count)?;
            inputs = parsed.outputs;
            layers.push(parsed);
        }
        Ok(Model {
            input_size: raw.input_size,
            input_max: raw.input_max,
            layers,
        })
    }

    /// Reads a model file (see [`Model::from_json`]).
    pub fn load(path: &Path) -> Result<Model> {
        Model::from_json(&read_text(path, "model")?)
    }

    /// Number of outputs (logits).
    pub fn outputs(&self) -> usize {
        self.layers.last().map_or(0, |l| l.outputs)
    }

    /// Checks an image: `input_size` values in `0..=input_max`.
    pub fn check_image(&self, image: &[i64]) -> Result<()> {
        if image.len() != self.input_size {
            return Err(Error::ShapeMismatch(format!(
                "an image of {} values, the model takes {}",
                image.len(),
                self.input_size
            )));
        }
        if let Some(p) = image
            .iter()
            .position(|&v| !(0..=self.input_max).contains(&v))
        {
            return Err(Error::OutOfRange(format!(
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
            x = layer.eval(&x)?;
        }
        Ok(x)
    }

    /// The predicted class: the index of the largest logit (the first on a tie).
    pub fn predict(&self, image: &[i64]) -> Result<usize> {
        Ok(argmax(&self.logits(image)?))
    }
}

/// One layer of a model file, taking `inputs` values: its kind, shapes, values and
/// activation checked.
fn parse_layer(
    l: usize,
    layer: RawLayer,
    inputs: usize,
    version: u32,
    last: bool,
) -> Result<Layer> {
    let outputs = layer.bias.len();
    if outputs == 0 || outputs > MAX_UNITS {
        return Err(bad(format!(
            "layer {l} has {outputs} biases (1..={MAX_UNITS})"
        )));
    }
    if version < 2 && (layer.kind.is_some() || layer.input_shape.is_some()) {
        return Err(bad(format!(
            "layer {l}: a layer kind or input shape needs version 2"
        )));
    }
    let what = format!("layer {l}: weights");
    let (kind, weights, outputs) = match layer.kind.as_deref().unwrap_or("dense") {
        "dense" => {
            if layer.input_shape.is_some() {
                return Err(bad(format!("layer {l}: a dense layer has no input shape")));
            }
            let weights = flatten(&layer.weights, &[inputs, outputs], &what)?;
            (LayerKind::Dense, weights, outputs)
        }
        "conv2d" => {
            let conv = conv_shape(l, layer.input_shape.as_deref(), &layer.weights, inputs)?;
            let [kh, kw] = conv.kernel;
            let weights = flatten(&layer.weights, &[kh, kw, conv.channels, outputs], &what)?;
            let (oh, ow) = conv.output_size();
            let total = oh * ow * outputs;
            if total > MAX_UNITS {
                return Err(bad(format!(
                    "layer {l} has {total} outputs (1..={MAX_UNITS})"
                )));
            }
            (LayerKind::Conv2d(conv), weights, total)
        }
        other => {
            return Err(bad(format!(
                "layer {l}: kind {other:?}, expected \"dense\" or \"conv2d\""
            )))
        }
    };
    for &v in &weights {
        check_magnitude(&format!("layer {l}: weight"), v)?;
    }
    for &v in &layer.bias {
        check_magnitude(&format!("layer {l}: bias"), v)?;
    }
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
    Ok(Layer {
        inputs,
        outputs,
        kind,
        weights,
        bias: layer.bias,
        activation: layer.relu,
    })
}

/// A convolution's shape from its `input_shape` (which must hold the `inputs` values the
/// layer takes) and the first two dimensions of its nested weights (the kernel's).
fn conv_shape(
    l: usize,
    input_shape: Option<&[usize]>,
    weights: &serde_json::Value,
    inputs: usize,
) -> Result<Conv2d> {
    let Some(&[height, width, channels]) = input_shape else {
        return Err(bad(format!(
            "layer {l}: a convolution needs \"input_shape\": [height, width, channels]"
        )));
    };
    let size = height
        .checked_mul(width)
        .and_then(|s| s.checked_mul(channels));
    if size != Some(inputs) || inputs == 0 {
        return Err(bad(format!(
            "layer {l}: input shape [{height}, {width}, {channels}] for {inputs} inputs"
        )));
    }
    let len = |v: &serde_json::Value| v.as_array().map_or(0, Vec::len);
    let kernel = [len(weights), weights.get(0).map_or(0, len)];
    if kernel[0] == 0 || kernel[1] == 0 || kernel[0] > height || kernel[1] > width {
        return Err(bad(format!(
            "layer {l}: a kernel of {}x{} on an input of {height}x{width}",
            kernel[0], kernel[1]
        )));
    }
    Ok(Conv2d {
        height,
        width,
        channels,
        kernel,
    })
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
#[serde(deny_unknown_fields)]
struct RawImages {
    format: String,
    version: u32,
    images: Vec<Vec<i64>>,
    labels: Vec<usize>,
    /// The model's input size, when the file states it (checked against the model's).
    #[serde(default)]
    input_size: Option<usize>,
    /// The model's largest input, when the file states it (checked against the model's).
    #[serde(default)]
    input_max: Option<i64>,
}

impl Images {
    /// Reads images from their JSON text (`"format": "encint-images"`, version 1) and checks
    /// each against `model` (shape and range) and the label count.
    pub fn from_json(text: &str, model: &Model) -> Result<Images> {
        let raw: RawImages = serde_json::from_str(text)
            .map_err(|e| Error::Malformed(format!("images: not an image file: {e}")))?;
        if raw.format != IMAGES_FORMAT || raw.version != 1 {
            return Err(Error::Malformed(format!(
                "images: format {:?} version {}, expected {IMAGES_FORMAT:?} version 1",
                raw.format, raw.version
            )));
        }
        if let Some(n) = raw.input_size.filter(|&n| n != model.input_size) {
            return Err(Error::ShapeMismatch(format!(
                "images: for inputs of {n} values, the model takes {}",
                model.input_size
            )));
        }
        if let Some(m) = raw.input_max.filter(|&m| m != model.input_max) {
            return Err(Error::OutOfRange(format!(
                "images: for inputs up to {m}, the model takes inputs up to {}",
                model.input_max
            )));
        }
        if raw.images.len() != raw.labels.len() {
            return Err(Error::Malformed(format!(
                "images: {} images and {} labels",
                raw.images.len(),
                raw.labels.len()
            )));
        }
        if let Some(k) = raw.labels.iter().position(|&l| l >= model.outputs()) {
            return Err(Error::OutOfRange(format!(
                "images: label {k} is {}, the model has {} classes",
                raw.labels[k],
                model.outputs()
            )));
        }
        for (k, image) in raw.images.iter().enumerate() {
            model
                .check_image(image)
                .map_err(|e| Error::Malformed(format!("images: image {k}: {e}")))?;
        }
        Ok(Images {
            images: raw.images,
            labels: raw.labels,
        })
    }

    /// Reads an image file (see [`Images::from_json`]).
    pub fn load(path: &Path, model: &Model) -> Result<Images> {
        Images::from_json(&read_text(path, "images")?, model)
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
