//! `encint.FvInference`: the digits models on FV slots (the facade's
//! `encint::infer::FvInference`), one image per slot, every image of a batch in one run.
//! The keys are `encint.FvBitsKeys` of the set the plan names.

use std::sync::Arc;

use encint::fv_bits::{FvBitsServerKey, FvInts};
use encint::infer;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_py;
use crate::fv_bits::FvBitsKeys;
use crate::guard::guard;
use crate::infer::{model_arg, weights_arg};

/// A model's inference on FV slots, planned before any key exists.
///
/// `FvInference(model="mlp", weights="clear")`: `model` `"mlp"` or `"cnn"` (the built-in
/// digits models) or a model file's path; `weights` `"clear"` or `"encrypted"`. `plan()`
/// names the parameter set: generate `encint.FvBitsKeys(plan["set"])` for it.
#[pyclass(module = "encint._encint", frozen)]
pub struct FvInference {
    inner: infer::FvInference,
}

/// Encrypted images of one FV batch (one ciphertext per pixel, one image per slot), with
/// the server key that runs them.
#[pyclass(module = "encint._encint", frozen)]
pub struct FvImages {
    pixels: Vec<FvInts>,
    server: Arc<FvBitsServerKey>,
}

/// A model's weights and biases encrypted in every slot (`FvInference.encrypt_weights`).
#[pyclass(module = "encint._encint", frozen)]
pub struct FvWeights {
    inner: infer::FvEncryptedWeights,
}

/// The encrypted logits of one FV batch (`FvInference.run`).
#[pyclass(module = "encint._encint", frozen)]
pub struct FvLogits {
    inner: Vec<FvInts>,
}

#[pymethods]
impl FvInference {
    #[new]
    #[pyo3(signature = (model=None, weights="clear"))]
    fn new(model: Option<std::path::PathBuf>, weights: &str) -> PyResult<Self> {
        guard(|| {
            let (model, weights) = (model_arg(model)?, weights_arg(weights)?);
            let inner = infer::FvInference::compile(&model, weights).map_err(to_py)?;
            Ok(FvInference { inner })
        })
    }

    /// The plan: a dict of `set`, `slots`, `depth`, `products`, `degrees` (of the
    /// activation polynomials, per hidden layer) and `upload_bytes`.
    fn plan<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p = self.inner.plan();
        let d = PyDict::new(py);
        d.set_item("set", p.set.name())?;
        d.set_item("slots", p.set.slots())?;
        d.set_item("depth", p.depth)?;
        d.set_item("products", p.products)?;
        d.set_item("degrees", p.degrees.clone())?;
        d.set_item("upload_bytes", p.uploads * p.ciphertext_bytes)?;
        Ok(d)
    }

    /// The plan's polynomials on `images` in plain integers (no keys): each image's logits.
    fn run_clear(&self, images: Vec<Vec<i64>>) -> PyResult<Vec<Vec<i64>>> {
        guard(|| self.inner.run_clear(&images).map_err(to_py))
    }

    /// Encrypts up to `slots` images with the keys (the client's side).
    fn encrypt_images(
        &self,
        py: Python<'_>,
        images: Vec<Vec<i64>>,
        keys: &FvBitsKeys,
    ) -> PyResult<FvImages> {
        let (client, server) = keys.parts();
        let pixels = py.allow_threads(|| {
            guard(|| self.inner.encrypt_images(&images, client).map_err(to_py))
        })?;
        Ok(FvImages {
            pixels,
            server: server.clone(),
        })
    }

    /// Encrypts the model's weights in every slot (the model owner's side, for
    /// `weights="encrypted"`).
    fn encrypt_weights(&self, py: Python<'_>, keys: &FvBitsKeys) -> PyResult<FvWeights> {
        let (client, _) = keys.parts();
        let inner =
            py.allow_threads(|| guard(|| self.inner.encrypt_weights(client).map_err(to_py)))?;
        Ok(FvWeights { inner })
    }

    /// The forward pass with the images' server key (the server's side; the GIL is
    /// released).
    #[pyo3(signature = (images, weights=None))]
    fn run(
        &self,
        py: Python<'_>,
        images: &FvImages,
        weights: Option<&FvWeights>,
    ) -> PyResult<FvLogits> {
        let w = weights.map(|w| &w.inner);
        let inner = py.allow_threads(|| {
            guard(|| {
                self.inner
                    .run(&images.server, &images.pixels, w)
                    .map_err(to_py)
            })
        })?;
        Ok(FvLogits { inner })
    }

    /// Decrypts the logits of `run` (the client's side): one list of logits per image.
    fn decrypt(&self, logits: &FvLogits, keys: &FvBitsKeys) -> PyResult<Vec<Vec<i64>>> {
        let (client, _) = keys.parts();
        guard(|| self.inner.decrypt(&logits.inner, client).map_err(to_py))
    }
}

/// Adds the FV inference classes to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FvInference>()?;
    m.add_class::<FvImages>()?;
    m.add_class::<FvWeights>()?;
    m.add_class::<FvLogits>()?;
    Ok(())
}
