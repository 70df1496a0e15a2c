//! `encint.Inference`: private inference of a quantised neural network (the facade's
//! `encint::infer`). The built-in models are the digits MLP and CNN that
//! `scripts/train_digits.py` writes (scikit-learn's 8x8 digits; `Inference(model="mlp")`,
//! 64 -> 32 -> 10 with ReLU, the default, and `Inference(model="cnn")`, a 3x3 convolution
//! with 4 channels, ReLU, a dense layer to 10); `Inference(model=path)` loads another
//! model file of the same format.

use encint::fhe::{FheArray, FheValue};
use encint::infer::{self, Images, Model, Weights};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{invalid, to_py};
use crate::guard::guard;
use crate::key_sets::current_server;
use crate::keys::ClientKey;

/// A model's inference compiled into one circuit over a batch of images.
///
/// `Inference(model="mlp", weights="clear", batch=1)`: `model` `"mlp"` or `"cnn"` (the
/// built-in digits models) or a model file's path, `weights` `"clear"` (on the server, in the clear)
/// or `"encrypted"` (encrypted by the model owner under the client's key set), `batch` the
/// images per circuit. The cost is known at once, before any key exists.
#[pyclass(module = "encint._encint", frozen)]
pub struct Inference {
    inner: infer::Inference,
}

/// Encrypted images of one batch (`Inference.encrypt_images`).
#[pyclass(module = "encint._encint", frozen)]
pub struct EncryptedImages {
    inner: FheArray<FheValue>,
    count: usize,
}

/// A model's weights and biases encrypted under a client's key set
/// (`Inference.encrypt_weights`).
#[pyclass(module = "encint._encint", frozen)]
pub struct EncryptedWeights {
    inner: infer::EncryptedWeights,
}

/// The encrypted logits of one batch (`Inference.run`).
#[pyclass(module = "encint._encint", frozen)]
pub struct EncryptedLogits {
    inner: FheArray<FheValue>,
    count: usize,
}

/// The `weights` argument: `"clear"` or `"encrypted"`.
pub(crate) fn weights_arg(weights: &str) -> PyResult<Weights> {
    match weights {
        "clear" => Ok(Weights::Clear),
        "encrypted" => Ok(Weights::Encrypted),
        other => Err(invalid(format!(
            "weights {other:?}: \"clear\" or \"encrypted\""
        ))),
    }
}

/// The `model` argument: a built-in model's name or a model file's path (default: the MLP).
pub(crate) fn model_arg(model: Option<std::path::PathBuf>) -> PyResult<Model> {
    match model {
        Some(p) => match p.to_str() {
            Some(name) => Model::builtin_or_file(name),
            None => Model::load(&p),
        },
        None => Model::builtin("mlp"),
    }
    .map_err(to_py)
}

#[pymethods]
impl Inference {
    #[new]
    #[pyo3(signature = (model=None, weights="clear", batch=1))]
    fn new(model: Option<std::path::PathBuf>, weights: &str, batch: usize) -> PyResult<Self> {
        guard(|| {
            let (model, weights) = (model_arg(model)?, weights_arg(weights)?);
            let inner = infer::Inference::compile(&model, weights, batch).map_err(to_py)?;
            Ok(Inference { inner })
        })
    }

    /// The built-in digits test split: `(images, labels)`, each image 64 pixels in 0..=3.
    #[staticmethod]
    fn digits_test() -> PyResult<(Vec<Vec<i64>>, Vec<usize>)> {
        guard(|| {
            let model = Model::builtin("mlp").map_err(to_py)?;
            let t = Images::digits_test(&model).map_err(to_py)?;
            Ok((t.images, t.labels))
        })
    }

    /// The circuit's cost for the whole batch: a dict of `bootstraps`, `depth`, `width`.
    fn cost<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.inner.cost();
        let d = PyDict::new(py);
        d.set_item("bootstraps", c.bootstraps)?;
        d.set_item("depth", c.depth)?;
        d.set_item("width", c.width)?;
        Ok(d)
    }

    /// Bootstraps per image.
    #[getter]
    fn bootstraps_per_image(&self) -> f64 {
        self.inner.bootstraps_per_image()
    }

    /// Images per circuit.
    #[getter]
    fn batch(&self) -> usize {
        self.inner.batch()
    }

    /// `"clear"` or `"encrypted"`.
    #[getter]
    fn weights(&self) -> &'static str {
        self.inner.weights().name()
    }

    /// The model's logits for one image in plain integers (the reference).
    fn logits(&self, image: Vec<i64>) -> PyResult<Vec<i64>> {
        guard(|| self.inner.model().logits(&image).map_err(to_py))
    }

    /// The circuit run on the clear executor (no keys) over at most one batch of images.
    fn run_clear(&self, images: Vec<Vec<i64>>) -> PyResult<Vec<Vec<i64>>> {
        guard(|| self.inner.run_clear(&images).map_err(to_py))
    }

    /// Encrypts at most one batch of images with the client key (the client's side).
    fn encrypt_images(
        &self,
        images: Vec<Vec<i64>>,
        client_key: &ClientKey,
    ) -> PyResult<EncryptedImages> {
        guard(|| {
            let key = client_key.require_real("encrypting images")?;
            let inner = self.inner.encrypt_images(&images, key).map_err(to_py)?;
            Ok(EncryptedImages {
                inner,
                count: images.len(),
            })
        })
    }

    /// Encrypts the model's weights with the client key (the model owner's side, for an
    /// inference with `weights="encrypted"`).
    fn encrypt_weights(&self, client_key: &ClientKey) -> PyResult<EncryptedWeights> {
        guard(|| {
            let key = client_key.require_real("encrypting weights")?;
            let inner = self.inner.encrypt_weights(key).map_err(to_py)?;
            Ok(EncryptedWeights { inner })
        })
    }

    /// Runs the circuit with the server key of `encint.set_server_key` (the server's side;
    /// the GIL is released).
    #[pyo3(signature = (images, weights=None))]
    fn run(
        &self,
        py: Python<'_>,
        images: &EncryptedImages,
        weights: Option<&EncryptedWeights>,
    ) -> PyResult<EncryptedLogits> {
        let server = current_server()?;
        let w = weights.map(|w| &w.inner);
        let out = py
            .allow_threads(|| guard(|| self.inner.run(&server, &images.inner, w).map_err(to_py)))?;
        Ok(EncryptedLogits {
            inner: out,
            count: images.count,
        })
    }

    /// Decrypts the logits of `run` (the client's side): one list of logits per image.
    fn decrypt(&self, logits: &EncryptedLogits, client_key: &ClientKey) -> PyResult<Vec<Vec<i64>>> {
        guard(|| {
            let key = client_key.require_real("decrypting logits")?;
            self.inner
                .decrypt(&logits.inner, logits.count, key)
                .map_err(to_py)
        })
    }
}

/// Adds the inference classes to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Inference>()?;
    m.add_class::<EncryptedImages>()?;
    m.add_class::<EncryptedWeights>()?;
    m.add_class::<EncryptedLogits>()?;
    Ok(())
}
