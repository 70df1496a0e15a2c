//! A layer of the integer model: a dense layer or a two-dimensional convolution, its
//! shapes, its plain-integer evaluation, and the rows of inputs its matrix product takes.

use serde::Deserialize;

use crate::{Error, Result};

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

/// A two-dimensional convolution with stride 1 and no padding ("valid"): an input of
/// `height x width` positions with `channels` values each, a `kernel[0] x kernel[1]`
/// kernel, one output channel per column of the layer's weight matrix.
///
/// Inputs and outputs are laid out position-major (height, width, channel): the value of
/// channel `c` at position `(i, j)` is at `(i * width + j) * channels + c`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conv2d {
    /// Input height.
    pub height: usize,
    /// Input width.
    pub width: usize,
    /// Input channels.
    pub channels: usize,
    /// Kernel height and width (each at most the input's).
    pub kernel: [usize; 2],
}

impl Conv2d {
    /// The output's height and width: `(height - kernel[0] + 1, width - kernel[1] + 1)`.
    pub fn output_size(&self) -> (usize, usize) {
        (
            self.height + 1 - self.kernel[0],
            self.width + 1 - self.kernel[1],
        )
    }

    /// Rows of the weight matrix: one per kernel tap and input channel.
    pub fn taps(&self) -> usize {
        self.kernel[0] * self.kernel[1] * self.channels
    }
}

/// What a layer computes from its inputs before the activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerKind {
    /// `y = x·W + b`, `W` of shape `(inputs, outputs)`.
    Dense,
    /// A convolution: at each output position, the input window times `W` (shape
    /// `(taps, channels out)`, row `(di * kernel[1] + dj) * channels + c` the tap
    /// `(di, dj)` of input channel `c`) plus `b` (one bias per output channel).
    Conv2d(Conv2d),
}

/// A layer: a [`LayerKind`] with its integer weights and biases, followed by an
/// [`Activation`] unless it is the last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    /// Number of inputs (for a convolution, `height * width * channels`).
    pub inputs: usize,
    /// Number of outputs (for a convolution, output positions times output channels).
    pub outputs: usize,
    /// Dense or convolution.
    pub kind: LayerKind,
    /// The weight matrix, row-major, of shape [`Layer::matrix_shape`]: for a dense layer
    /// `weights[i * outputs + j]` multiplies input `i` into output `j`; for a convolution
    /// see [`LayerKind::Conv2d`].
    pub weights: Vec<i64>,
    /// One bias per column of the weight matrix (per output, or per output channel).
    pub bias: Vec<i64>,
    /// The activation after the layer (every layer but the last has one).
    pub activation: Option<Activation>,
}

impl Layer {
    /// The weight matrix's `[rows, columns]`: `[inputs, outputs]` for a dense layer,
    /// `[taps, output channels]` for a convolution.
    pub fn matrix_shape(&self) -> [usize; 2] {
        match self.kind {
            LayerKind::Dense => [self.inputs, self.outputs],
            LayerKind::Conv2d(c) => [c.taps(), self.bias.len()],
        }
    }

    /// The layer as matrix products: for each row of the product, the indices of the inputs
    /// it takes (one row of all inputs for a dense layer, one input window per output
    /// position for a convolution). The outputs are the rows' products in order, each of
    /// [`Layer::matrix_shape`]`[1]` values.
    pub fn rows(&self) -> Vec<Vec<usize>> {
        match self.kind {
            LayerKind::Dense => vec![(0..self.inputs).collect()],
            LayerKind::Conv2d(c) => {
                let (oh, ow) = c.output_size();
                let [kh, kw] = c.kernel;
                let mut rows = Vec::with_capacity(oh * ow);
                for i in 0..oh {
                    for j in 0..ow {
                        let mut row = Vec::with_capacity(c.taps());
                        for di in 0..kh {
                            for dj in 0..kw {
                                let at = ((i + di) * c.width + j + dj) * c.channels;
                                row.extend(at..at + c.channels);
                            }
                        }
                        rows.push(row);
                    }
                }
                rows
            }
        }
    }

    /// The layer and its activation on `x` (`inputs` values), in plain integers; another
    /// number of values is an [`Error::ShapeMismatch`].
    pub fn eval(&self, x: &[i64]) -> Result<Vec<i64>> {
        if x.len() != self.inputs {
            return Err(Error::ShapeMismatch(format!(
                "{} values for a layer of {} inputs",
                x.len(),
                self.inputs
            )));
        }
        let mut y = match self.kind {
            LayerKind::Dense => {
                let mut y = self.bias.clone();
                for (i, &xi) in x.iter().enumerate() {
                    let row = &self.weights[i * self.outputs..(i + 1) * self.outputs];
                    for (yj, &w) in y.iter_mut().zip(row) {
                        *yj += w * xi;
                    }
                }
                y
            }
            LayerKind::Conv2d(c) => conv(c, &self.weights, &self.bias, x),
        };
        if let Some(a) = self.activation {
            y.iter_mut().for_each(|v| *v = a.apply(*v));
        }
        Ok(y)
    }
}

/// A valid convolution with stride 1, position-major in and out, by its definition.
fn conv(c: Conv2d, w: &[i64], bias: &[i64], x: &[i64]) -> Vec<i64> {
    let (oh, ow) = c.output_size();
    let m = bias.len();
    let mut y = Vec::with_capacity(oh * ow * m);
    for i in 0..oh {
        for j in 0..ow {
            for (o, &b) in bias.iter().enumerate() {
                let mut s = b;
                for di in 0..c.kernel[0] {
                    for dj in 0..c.kernel[1] {
                        for ci in 0..c.channels {
                            let tap = (di * c.kernel[1] + dj) * c.channels + ci;
                            s +=
                                w[tap * m + o] * x[((i + di) * c.width + j + dj) * c.channels + ci];
                        }
                    }
                }
                y.push(s);
            }
        }
    }
    y
}

/// The values of a nested JSON array of exactly `shape`, flattened row-major; `what`
/// names it in the error.
pub(super) fn flatten(value: &serde_json::Value, shape: &[usize], what: &str) -> Result<Vec<i64>> {
    let mut out = Vec::with_capacity(shape.iter().product());
    walk(value, shape, what, &mut String::new(), &mut out)?;
    Ok(out)
}

fn walk(
    value: &serde_json::Value,
    shape: &[usize],
    what: &str,
    at: &mut String,
    out: &mut Vec<i64>,
) -> Result<()> {
    let bad = |msg: String| Error::Malformed(format!("model: {what}{at}: {msg}"));
    let Some((&n, rest)) = shape.split_first() else {
        let v = value
            .as_i64()
            .ok_or_else(|| bad(format!("{value} is not an integer")))?;
        out.push(v);
        return Ok(());
    };
    let items = value
        .as_array()
        .ok_or_else(|| bad(format!("not an array of {n} values")))?;
    if items.len() != n {
        return Err(bad(format!("{} values, expected {n}", items.len())));
    }
    for (k, item) in items.iter().enumerate() {
        let len = at.len();
        at.push_str(&format!("[{k}]"));
        walk(item, rest, what, at, out)?;
        at.truncate(len);
    }
    Ok(())
}
