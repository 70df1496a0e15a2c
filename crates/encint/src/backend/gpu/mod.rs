//! The GPU backend (cargo feature `gpu`, off by default), and the check of a backend kind.
//!
//! A [`Server`](crate::Server) runs its circuits on the CPU unless it is built with
//! [`Server::with_backend`](crate::Server::with_backend)`(`[`BackendKind::Gpu`]`)`. Without the
//! `gpu` feature that call fails with [`GpuError::NotBuilt`]; with the feature and no usable
//! CUDA device it fails with [`GpuError::NoDevice`]. Both are typed errors, never a panic.
//!
//! # The GPU backend (feature `gpu`)
//!
//! `GpuDevice` uploads the server key once (the bootstrapping key converted to the device's
//! Fourier form, the keyswitching key as it is) and runs whole circuits through the
//! executor layer ([`encint_core::exec`]) with device-resident values:
//!
//! * the circuit's input digits are uploaded once and its output digits downloaded once;
//!   every intermediate value stays in GPU memory and its buffer is reused after its last use;
//! * each level's bootstraps (plain and half-step tables) run as **one** batch: a gather of
//!   the inputs into one list, one batched keyswitch and one batched programmable bootstrap of
//!   TFHE-rs' CUDA backend (`tfhe::core_crypto::gpu`, classical PBS with the centered
//!   modulus switch, the same as the CPU path) with one accumulator per distinct table of the
//!   level and per-ciphertext table indexes;
//! * linear nodes (`Σ wᵢ·xᵢ + c`) and the `+Δ/2` of half-step tables run on the device in
//!   encint's own kernel (`crates/encint/cuda/linear.cu`): TFHE-rs' CUDA backend exposes no
//!   weighted LWE sum.
//!
//! What is sent to the device (the level batch, its accumulators and indexes, the `+Δ/2`, the
//! launches of the linear kernel) is assembled by the pure functions of [`batch`], which build
//! without the feature and are tested on the CPU.
//!
//! The accumulators are exactly the CPU backend's test polynomials
//! ([`encint_tfhe::test_polynomial`]): TFHE-rs' GPU PBS blind-rotates whatever accumulator it
//! is given, so our 5-bit digits without padding, negacyclic tables and half-step tables need
//! no padding bit and no change on the device. Not on the GPU: tree LUTs (the byte processor's
//! bivariate tables need the multi-value first level with the precise bootstrapping key and a
//! packing keyswitch, see docs/GPU.md) and many-LUT nodes (refused by the CPU digit backend
//! too); circuits with them get [`GpuError::Unsupported`].

use crate::{Error, Result, Unsupported};

pub mod batch;
#[cfg(feature = "gpu")]
mod device;

use super::kind::BackendKind;

pub use crate::error::GpuError;

/// The parallel bootstrap lanes the planner assumes for a GPU server (where a CPU server
/// plans for its threads): a level of up to about this many bootstraps costs the GPU one
/// bootstrap's latency, so the planner's estimate (the sum over levels of
/// `ceil(bootstraps / lanes)`) counts mostly depth, and picks the shallow circuits. The
/// default is one level's latency times the bootstraps per second of wide levels, both
/// fitted to products timed on an H100 (docs/GPU.md); `ENCINT_GPU_PLAN_LANES=N` sets
/// another.
pub const PLAN_LANES: usize = 125;

/// [`PLAN_LANES`], or the value of `ENCINT_GPU_PLAN_LANES` when it is a positive integer.
pub fn plan_lanes() -> usize {
    std::env::var("ENCINT_GPU_PLAN_LANES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or(PLAN_LANES)
}

/// What [`probe`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuInfo {
    /// Number of CUDA devices (the backend uses device 0).
    pub devices: u32,
    /// Streaming multiprocessors of device 0.
    pub sms: u32,
}

/// Checks that the GPU backend can run here: [`GpuError::NotBuilt`] without the `gpu` feature,
/// [`GpuError::NoDevice`] when no CUDA device answers.
pub fn probe() -> std::result::Result<GpuInfo, GpuError> {
    #[cfg(feature = "gpu")]
    {
        device::probe()
    }
    #[cfg(not(feature = "gpu"))]
    {
        Err(GpuError::NotBuilt)
    }
}

/// Checks that `kind` can run here (always for [`BackendKind::Cpu`]; see [`probe`]).
pub fn check_backend(kind: BackendKind) -> Result<()> {
    match kind {
        BackendKind::Cpu => Ok(()),
        BackendKind::Gpu => probe().map(|_| ()).map_err(Error::Gpu),
        BackendKind::Mpi => Err(mpi_is_a_job()),
    }
}

/// Why one server cannot run on [`BackendKind::Mpi`].
fn mpi_is_a_job() -> Error {
    Unsupported::MpiServer.into()
}

/// The executor a [`Server`](crate::Server) runs its circuits on.
#[derive(Debug, Default)]
pub(crate) struct Engine {
    #[cfg(feature = "gpu")]
    device: Option<std::sync::Arc<device::GpuDevice>>,
}

impl Engine {
    /// The engine of `kind` for `key` (uploads the key to the GPU for [`BackendKind::Gpu`]).
    pub(crate) fn new(kind: BackendKind, key: &encint_tfhe::ServerKey) -> Result<Engine> {
        match kind {
            BackendKind::Cpu => Ok(Engine::default()),
            #[cfg(feature = "gpu")]
            BackendKind::Gpu => Ok(Engine {
                device: Some(std::sync::Arc::new(device::GpuDevice::new(key)?)),
            }),
            #[cfg(not(feature = "gpu"))]
            BackendKind::Gpu => {
                let _ = key;
                Err(Error::Gpu(GpuError::NotBuilt))
            }
            BackendKind::Mpi => Err(mpi_is_a_job()),
        }
    }

    /// The kind of this engine.
    pub(crate) fn kind(&self) -> BackendKind {
        #[cfg(feature = "gpu")]
        if self.device.is_some() {
            return BackendKind::Gpu;
        }
        BackendKind::Cpu
    }

    /// Runs the circuit on the GPU if this engine has one; `None` for the CPU.
    #[allow(unused_variables)]
    pub(crate) fn run(
        &self,
        circuit: &encint_core::circuit::Circuit,
        plan: &encint_core::circuit::Plan,
        inputs: &[&encint_tfhe::Digit],
    ) -> Option<Result<Vec<encint_tfhe::Digit>>> {
        #[cfg(feature = "gpu")]
        if let Some(d) = &self.device {
            return Some(d.run(circuit, plan, inputs));
        }
        None
    }
}

#[cfg(feature = "gpu")]
pub use device::{GpuBackend, GpuDevice, GpuDigit};
