//! The models built into encint: `scripts/train_digits.py` trains them on scikit-learn's
//! 8x8 digits and writes them, with the quantised test split, under `models/`.

use std::path::Path;

use crate::{Error, Result};

use super::model::{Images, Model};

/// The names of the built-in models: `"mlp"` (64 -> 32 -> 10, ReLU) and `"cnn"` (a 3x3
/// convolution with 4 channels, ReLU, a dense layer to 10).
pub const BUILTIN_MODELS: [&str; 2] = ["mlp", "cnn"];

const DIGITS_MLP: &str = include_str!("../../../../../models/digits_mlp.json");
const DIGITS_CNN: &str = include_str!("../../../../../models/digits_cnn.json");
const DIGITS_TEST: &str = include_str!("../../../../../models/digits_test.json");

impl Model {
    /// A built-in model by name (one of [`BUILTIN_MODELS`]); another name is an
    /// [`Error::InvalidInput`].
    pub fn builtin(name: &str) -> Result<Model> {
        match name {
            "mlp" => Model::from_json(DIGITS_MLP),
            "cnn" => Model::from_json(DIGITS_CNN),
            other => Err(Error::InvalidInput(format!(
                "no built-in model {other:?} (built in: {})",
                BUILTIN_MODELS.join(", ")
            ))),
        }
    }

    /// The built-in model of that name if `spec` is one of [`BUILTIN_MODELS`], else the
    /// model file at the path `spec` (see [`Model::load`]).
    pub fn builtin_or_file(spec: &str) -> Result<Model> {
        if BUILTIN_MODELS.contains(&spec) {
            Model::builtin(spec)
        } else {
            Model::load(Path::new(spec))
        }
    }
}

impl Images {
    /// The built-in digits test split (450 images of 64 pixels in `0..=3`, with their
    /// labels), checked against `model`.
    pub fn digits_test(model: &Model) -> Result<Images> {
        Images::from_json(DIGITS_TEST, model)
    }
}
