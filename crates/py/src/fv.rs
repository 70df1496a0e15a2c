//! FV batches through the `encint::fv` facade as it is today: a key set (secret, public,
//! relinearisation keys of one variant) encrypts a vector of `n` slots (the batching
//! encoder, values mod `t`); batches add, subtract (as `a + (t-1)·b` is not available,
//! only `+` and `*` are offered) and multiply slot-wise. The Python layer converts NumPy
//! arrays. Kept separate so that a batched FV integer type can replace it.

use std::sync::Arc;

use encint::fv::{
    BatchEncoder, Ciphertext, FvContext, FvParameters, PublicKey, RelinKey, SecretKey, Variant,
};
use pyo3::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use crate::errors::{fv_err, KeyMismatchError};
use crate::guard::detached;

/// The public evaluation side of an FV key set (context and relinearisation key).
struct Eval {
    ctx: FvContext,
    rlk: RelinKey,
    id: u64,
}

/// An FV key set (secret: keep it on the client). `FvKeys(params="128-8192")`
/// generates one; `params` is a set name of `encint-fv` (`128-8192`, `128-16384`,
/// `128-32768` are the 128-bit sets of the HomomorphicEncryption.org standard).
#[pyclass(module = "encint._encint", frozen)]
pub struct FvKeys {
    eval: Arc<Eval>,
    sk: SecretKey,
    pk: PublicKey,
    encoder: BatchEncoder,
}

/// An encrypted vector of `slots` values mod `t`; `+` and `*` work slot-wise. Products
/// past the parameter set's depth raise `NoiseBudgetError`, and so does decrypting a
/// batch whose noise has reached the decryption bound.
#[pyclass(module = "encint._encint", frozen)]
pub struct FvBatch {
    eval: Arc<Eval>,
    ct: Ciphertext,
}

static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

#[pymethods]
impl FvKeys {
    #[new]
    #[pyo3(signature = (params = "128-8192"))]
    fn new(py: Python<'_>, params: &str) -> PyResult<FvKeys> {
        let p = FvParameters::by_name(params).map_err(fv_err)?;
        detached(py, || {
            let ctx = FvContext::new(p).map_err(fv_err)?;
            let encoder = BatchEncoder::new(&ctx).map_err(fv_err)?;
            let mut rng = ChaCha20Rng::from_entropy();
            let sk = SecretKey::generate(&ctx, &mut rng);
            let pk = ctx
                .generate_public_key(&sk, Variant::Hpr, &mut rng)
                .map_err(fv_err)?;
            let rlk = ctx
                .generate_relin_key(&sk, Variant::Hpr, &mut rng)
                .map_err(fv_err)?;
            let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(FvKeys {
                eval: Arc::new(Eval { ctx, rlk, id }),
                sk,
                pk,
                encoder,
            })
        })
    }

    /// Number of slots (the ring degree `n`).
    #[getter]
    fn slots(&self) -> usize {
        self.eval.ctx.parameters().n
    }

    /// The plaintext modulus `t`.
    #[getter]
    fn plaintext_modulus(&self) -> u64 {
        self.eval.ctx.parameters().t
    }

    /// Encrypts exactly `slots` values, each in `0..t` (the Python wrapper pads and
    /// reduces NumPy arrays).
    fn _encrypt(&self, py: Python<'_>, values: Vec<u64>) -> PyResult<FvBatch> {
        detached(py, || {
            let pt = self
                .encoder
                .encode(&self.eval.ctx, &values)
                .map_err(fv_err)?;
            let mut rng = ChaCha20Rng::from_entropy();
            let ct = self
                .eval
                .ctx
                .encrypt(&self.pk, &pt, &mut rng)
                .map_err(fv_err)?;
            Ok(FvBatch {
                eval: self.eval.clone(),
                ct,
            })
        })
    }

    /// Decrypts all slots (values in `0..t`).
    fn _decrypt(&self, py: Python<'_>, batch: &FvBatch) -> PyResult<Vec<u64>> {
        if batch.eval.id != self.eval.id {
            return Err(KeyMismatchError::new_err("an FV batch of another key set"));
        }
        detached(py, || {
            let pt = self.eval.ctx.decrypt(&self.sk, &batch.ct).map_err(fv_err)?;
            self.encoder.decode(&pt).map_err(fv_err)
        })
    }
}

impl FvBatch {
    fn check(&self, other: &FvBatch) -> PyResult<()> {
        if self.eval.id != other.eval.id {
            return Err(KeyMismatchError::new_err(
                "FV batches of different key sets",
            ));
        }
        Ok(())
    }
}

#[pymethods]
impl FvBatch {
    fn __add__(&self, py: Python<'_>, other: &FvBatch) -> PyResult<FvBatch> {
        self.check(other)?;
        detached(py, || {
            Ok(FvBatch {
                eval: self.eval.clone(),
                ct: self.eval.ctx.add(&self.ct, &other.ct).map_err(fv_err)?,
            })
        })
    }

    fn __mul__(&self, py: Python<'_>, other: &FvBatch) -> PyResult<FvBatch> {
        self.check(other)?;
        detached(py, || {
            Ok(FvBatch {
                eval: self.eval.clone(),
                ct: self
                    .eval
                    .ctx
                    .mul_relin(&self.ct, &other.ct, &self.eval.rlk)
                    .map_err(fv_err)?,
            })
        })
    }

    /// Multiplicative depth used so far (products on the longest path from encryption).
    /// A product past the set's depth raises `NoiseBudgetError` before any work, and
    /// decryption checks the noise: a batch is never decrypted to wrong values.
    #[getter]
    fn depth(&self) -> u32 {
        self.ct.depth()
    }

    /// The largest multiplicative depth of the key set's parameters.
    #[getter]
    fn max_depth(&self) -> Option<u32> {
        self.eval.ctx.parameters().max_depth
    }

    fn __repr__(&self) -> String {
        format!(
            "FvBatch(<{} slots, depth {}>)",
            self.eval.ctx.parameters().n,
            self.ct.depth()
        )
    }
}

/// Adds `FvKeys` and `FvBatch` to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FvKeys>()?;
    m.add_class::<FvBatch>()?;
    Ok(())
}
