//! Private inference of a quantised neural network: the client encrypts an image, the
//! server computes the logits with the server key only, the client decrypts them.
//!
//! A [`Model`] is a sequence of dense layers and convolutions ([`Layer`], [`LayerKind`])
//! whose weights, biases and activations are small integers (`scripts/train_digits.py`
//! trains an MLP and a CNN on scikit-learn's digits and writes them as JSON; both are
//! built in, [`Model::builtin`]). [`Inference::compile`] traces its forward pass over a
//! batch of images into one circuit of the typed family ([`crate::fhe::compile_with`]) in
//! the smallest integer types that hold every value exactly ([`Types`]), so its cost is
//! known before any key exists. Every layer is a matrix product over rows of its inputs
//! ([`Layer::rows`]: all the inputs for a dense layer, one window per output position for
//! a convolution). The weights are either in the clear on the server ([`Weights::Clear`]:
//! each dot product one counter tree with the weights folded in) or encrypted by the
//! model owner under the client's key set ([`Weights::Encrypted`]: products of two
//! ciphertexts), from the same model.
//!
//! [`FvInference`] runs the same model on FV slots instead: one image per slot, 8,192 to
//! 32,768 images in one run, every accumulator's activation one polynomial.
//!
//! [`Model::logits`] is the plain-integer reference, and [`Inference::run_clear`] runs the
//! circuit on the clear oracle executor; both give exactly the encrypted run's logits.

mod builtin;
mod circuit;
mod fv;
mod layer;
mod model;
mod types;

pub use builtin::BUILTIN_MODELS;
pub use circuit::{EncryptedWeights, Inference, Weights, MAX_BATCH};
pub use fv::{
    FvEncryptedWeights, FvInference, FvPlan, MAX_INTERPOLATION_WORK, MAX_UPLOAD_BYTES,
    MAX_WORKING_BYTES,
};
pub use layer::{Activation, Conv2d, Layer, LayerKind};
pub use model::{
    argmax, Images, Model, IMAGES_FORMAT, MAX_MAGNITUDE, MAX_UNITS, MODEL_FORMAT, MODEL_VERSION,
};
pub use types::{accumulator_range, column_ranges, signed_for, unsigned_for, Types};
