//! Backend selection, and the GPU backend (cargo feature `gpu`, off by default).
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
//!   every intermediate value stays in GPU memory and is freed after its last use;
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

use std::fmt;
use std::str::FromStr;

use crate::{Error, Result};

pub mod batch;

/// Which executor runs a server's circuits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BackendKind {
    /// TFHE bootstraps on the CPU (rayon pool), the default.
    #[default]
    Cpu,
    /// TFHE bootstraps on an NVIDIA GPU (cargo feature `gpu`).
    Gpu,
}

impl FromStr for BackendKind {
    type Err = Error;

    /// Parses `cpu` or `gpu`.
    fn from_str(s: &str) -> Result<BackendKind> {
        match s {
            "cpu" => Ok(BackendKind::Cpu),
            "gpu" => Ok(BackendKind::Gpu),
            other => Err(Error::InvalidInput(format!(
                "unknown backend `{other}` (expected `cpu` or `gpu`)"
            ))),
        }
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackendKind::Cpu => "cpu",
            BackendKind::Gpu => "gpu",
        })
    }
}

/// Why the GPU backend cannot run a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GpuError {
    /// This build has no GPU backend.
    #[error(
        "this encint was built without the `gpu` cargo feature: build it with \
         `scripts/cuda-toolchain.sh` and `cargo build --release -p encint-cli --features gpu` \
         (docs/GPU.md), or use the cpu backend"
    )]
    NotBuilt,
    /// The feature is on but no CUDA device can be used (no NVIDIA driver, no GPU).
    #[error("no usable CUDA device: {0}")]
    NoDevice(String),
    /// A CUDA call of encint's own kernels failed.
    #[error("CUDA error {code} in {what}")]
    Cuda {
        /// The `cudaError_t` value.
        code: i32,
        /// The operation that failed.
        what: &'static str,
    },
    /// The request needs something the GPU backend does not run.
    #[error("not supported by the GPU backend: {0}")]
    Unsupported(String),
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
    }
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

#[cfg(feature = "gpu")]
mod device {
    //! The CUDA side (feature `gpu`).

    use std::sync::{Arc, Mutex};

    use encint_core::circuit::{Circuit, NodeId, Plan, PlannedLevel};
    use encint_core::exec::{self, Backend, Output, Values};
    use encint_tfhe::params::DELTA;
    use encint_tfhe::{Digit, DigitParameters, KeySetId, ServerKey, TfheError};
    use tfhe::core_crypto::gpu::entities::lwe_bootstrap_key::CudaModulusSwitchNoiseReductionConfiguration;
    use tfhe::core_crypto::gpu::vec::{CudaVec, GpuIndex};
    use tfhe::core_crypto::gpu::{
        convert_lwe_keyswitch_key_async, convert_lwe_programmable_bootstrap_key_async,
        get_number_of_gpus, get_number_of_sms, is_cuda_available, keyswitch_async, keyswitch_gemm,
        programmable_bootstrap, CudaStreams,
    };
    use tfhe::core_crypto::prelude::lwe_bootstrap_key_size;

    use super::batch::{assemble_level, check_circuit, linear_launches};
    use super::{GpuError, GpuInfo};
    use crate::{Error, Result};

    extern "C" {
        /// One launch of `crates/encint/cuda/linear.cu` (at most
        /// [`TERMS_PER_LAUNCH`](super::batch::TERMS_PER_LAUNCH) terms).
        fn encint_gpu_linear_launch_async(
            stream: *mut std::ffi::c_void,
            gpu_index: u32,
            out: *mut u64,
            inputs: *const *const u64,
            weights: *const i64,
            n_terms: u32,
            lwe_size: u32,
            body_add: u64,
            accumulate: i32,
        ) -> i32;
    }

    /// Batches up to this size keyswitch with TFHE-rs' per-ciphertext kernel, larger ones with
    /// its GEMM kernel (TFHE-rs' own advice: the former is better up to ~128 LWEs on an H100).
    const GEMM_KS_FROM: usize = 128;

    pub(super) fn probe() -> std::result::Result<GpuInfo, GpuError> {
        if !is_cuda_available() {
            return Err(GpuError::NoDevice(
                "cudaSetDevice(0) failed (no NVIDIA driver or no GPU on this machine)".into(),
            ));
        }
        let devices = get_number_of_gpus();
        if devices == 0 {
            return Err(GpuError::NoDevice(
                "the CUDA runtime reports 0 devices".into(),
            ));
        }
        Ok(GpuInfo {
            devices,
            sms: get_number_of_sms(),
        })
    }

    /// A digit in GPU memory (one LWE ciphertext under the big key). Cloning shares it.
    #[derive(Debug, Clone)]
    pub struct GpuDigit(Arc<CudaVec<u64>>);

    impl GpuDigit {
        fn ptr(&self) -> *const u64 {
            self.0.ptr[0].cast_const().cast()
        }
    }

    /// The server key in GPU memory, with the stream every operation of this device runs on.
    pub struct GpuDevice {
        streams: CudaStreams,
        bsk: CudaVec<f64>,
        ksk: CudaVec<u64>,
        params: DigitParameters,
        key_set: KeySetId,
        /// One circuit at a time (everything runs on one stream).
        lock: Mutex<()>,
    }

    impl std::fmt::Debug for GpuDevice {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("GpuDevice")
                .field("params", &self.params.name)
                .field("key_set", &self.key_set)
                .finish_non_exhaustive()
        }
    }

    impl GpuDevice {
        /// Uploads `key` to device 0 (the bootstrapping key is converted to the device's
        /// Fourier form there). Errors if no device is usable.
        pub fn new(key: &ServerKey) -> Result<GpuDevice> {
            probe().map_err(Error::Gpu)?;
            let p = *key.params();
            let streams = CudaStreams::new_single_gpu(GpuIndex::new(0));
            let bsk_h = key.bootstrap_key();
            let mut bsk = CudaVec::<f64>::new_multi_gpu(
                lwe_bootstrap_key_size(
                    p.lwe_dimension,
                    p.glwe_dimension.to_glwe_size(),
                    p.polynomial_size,
                    p.pbs_level,
                ),
                &streams,
            );
            let ksk_h = key.keyswitch_key().ok_or_else(|| {
                Error::Gpu(GpuError::Unsupported(format!(
                    "keys of the parameter set {} (the device keyswitch works on the 64-bit \
                     torus: generate the keys with encint::KS64_PARAMETERS)",
                    p.name
                )))
            })?;
            let mut ksk = CudaVec::<u64>::new_multi_gpu(ksk_h.as_ref().len(), &streams);
            // SAFETY: both host keys outlive the copies (synchronized below).
            unsafe {
                convert_lwe_programmable_bootstrap_key_async(
                    &streams,
                    &mut bsk,
                    bsk_h.as_ref(),
                    p.lwe_dimension,
                    p.glwe_dimension,
                    p.pbs_level,
                    p.polynomial_size,
                );
                convert_lwe_keyswitch_key_async(&streams, &mut ksk, ksk_h.as_ref());
            }
            streams.synchronize();
            Ok(GpuDevice {
                streams,
                bsk,
                ksk,
                params: p,
                key_set: key.key_set(),
                lock: Mutex::new(()),
            })
        }

        /// The key set of the uploaded key.
        pub fn key_set(&self) -> KeySetId {
            self.key_set
        }

        fn lwe_size(&self) -> usize {
            self.params.big_lwe_dimension().0 + 1
        }

        /// Uploads one digit.
        pub fn upload(&self, d: &Digit) -> Result<GpuDigit> {
            let expected = self.params.big_lwe_dimension().0;
            if d.lwe_dimension() != expected {
                return Err(TfheError::DimensionMismatch {
                    expected,
                    found: d.lwe_dimension(),
                }
                .into());
            }
            // SAFETY: `d` outlives the copy (synchronized before returning).
            let v = unsafe { CudaVec::from_cpu_async(d.as_raw(), &self.streams, 0) };
            self.streams.synchronize();
            Ok(GpuDigit(Arc::new(v)))
        }

        /// Downloads one digit.
        pub fn download(&self, d: &GpuDigit) -> Result<Digit> {
            let mut host = vec![0u64; self.lwe_size()];
            // SAFETY: `host` is large enough and outlives the copy (synchronized).
            unsafe { d.0.copy_to_cpu_async(&mut host, &self.streams, 0) };
            self.streams.synchronize();
            Ok(Digit::from_raw(host, &self.params)?)
        }

        /// `Σ wᵢ·xᵢ + body_add` (body_add already scaled) into a new device digit, in the
        /// launches of [`linear_launches`].
        fn linear_raw(&self, terms: &[(*const u64, i64)], body_add: u64) -> Result<GpuDigit> {
            let size = self.lwe_size();
            // SAFETY: allocation on this device's stream; written by the first launch below
            // before any read (stream order).
            let out = unsafe { CudaVec::<u64>::new_async(size, &self.streams, 0) };
            for launch in linear_launches(terms, body_add) {
                let ptrs: Vec<*const u64> = launch.terms.iter().map(|t| t.0).collect();
                let weights: Vec<i64> = launch.terms.iter().map(|t| t.1).collect();
                // SAFETY: every pointer is a live device digit of `size` coefficients (held by
                // the caller until the stream is synchronized, or freed by a synchronizing
                // cudaFree); the kernel copies the pointer and weight arrays at launch; at
                // most TERMS_PER_LAUNCH terms.
                let code = unsafe {
                    encint_gpu_linear_launch_async(
                        self.streams.ptr[0],
                        0,
                        out.ptr[0].cast(),
                        ptrs.as_ptr(),
                        weights.as_ptr(),
                        ptrs.len() as u32,
                        size as u32,
                        launch.body_add,
                        i32::from(launch.accumulate),
                    )
                };
                if code != 0 {
                    return Err(Error::Gpu(GpuError::Cuda {
                        code,
                        what: "encint_gpu_linear_launch_async",
                    }));
                }
            }
            Ok(GpuDigit(Arc::new(out)))
        }

        /// Runs `circuit` (plan `plan`) on `inputs`: uploads them, runs every level on the
        /// device, downloads the outputs.
        pub fn run(&self, circuit: &Circuit, plan: &Plan, inputs: &[&Digit]) -> Result<Vec<Digit>> {
            let _one = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            let up = inputs
                .iter()
                .map(|d| self.upload(d))
                .collect::<Result<Vec<_>>>()?;
            let refs: Vec<&GpuDigit> = up.iter().collect();
            let out = exec::run(&GpuBackend { device: self }, circuit, plan, &refs)?;
            let result = out.iter().map(|d| self.download(d)).collect();
            self.streams.synchronize();
            result
        }
    }

    /// The executor-layer backend over a [`GpuDevice`]: values are [`GpuDigit`]s.
    #[derive(Debug, Clone, Copy)]
    pub struct GpuBackend<'a> {
        /// The device holding the key.
        pub device: &'a GpuDevice,
    }

    impl Backend for GpuBackend<'_> {
        type Value = GpuDigit;
        type Error = Error;

        fn check(&self, circuit: &Circuit, plan: &Plan) -> Result<()> {
            check_circuit(circuit, plan)
        }

        fn budget(&self) -> Option<u64> {
            Some(self.device.params.max_quadratic_weight())
        }

        fn constant(&self, value: i64) -> GpuDigit {
            self.device
                .linear_raw(&[], (value as u64).wrapping_mul(DELTA))
                .expect("a launch of the linear kernel with no terms")
        }

        fn linear(&self, terms: &[(&GpuDigit, i64)], constant: i64) -> Result<GpuDigit> {
            if terms.is_empty() {
                return Err(TfheError::EmptyLinearCombination.into());
            }
            let raw: Vec<(*const u64, i64)> = terms.iter().map(|(d, w)| (d.ptr(), *w)).collect();
            self.device
                .linear_raw(&raw, (constant as u64).wrapping_mul(DELTA))
        }

        fn bootstrap_level(
            &self,
            circuit: &Circuit,
            level: &PlannedLevel,
            values: &Values<GpuDigit>,
        ) -> Result<Vec<(NodeId, Output<GpuDigit>)>> {
            let dev = self.device;
            let p = &dev.params;
            let big = dev.lwe_size();
            let small = p.lwe_dimension.0 + 1;
            let batch = assemble_level(
                circuit,
                level,
                p.glwe_dimension.to_glwe_size().0,
                p.polynomial_size.0,
            )?;
            let jobs = &batch.jobs;
            if jobs.is_empty() {
                return Ok(Vec::new());
            }
            let n = jobs.len();
            let accs = &batch.accumulators;
            let lut_index = batch.lut_indexes();
            let trivial: Vec<u64> = (0..n as u64).collect();
            let s = &dev.streams;
            // SAFETY: every buffer below is allocated on the device's one stream and used in
            // stream order; the host vectors (`accs`, `lut_index`, `trivial`) outlive the
            // final synchronize; operand digits are held by `values` for the whole call.
            let batch_out = unsafe {
                let mut batch_in = CudaVec::<u64>::new_async(n * big, s, 0);
                for (i, job) in jobs.iter().enumerate() {
                    batch_in.copy_self_range_gpu_to_gpu_async(
                        i * big..(i + 1) * big,
                        &values.get(job.input).0,
                        s,
                        0,
                    );
                }
                let idx = CudaVec::from_cpu_async(&trivial, s, 0);
                let mut batch_small = CudaVec::<u64>::new_async(n * small, s, 0);
                if n > GEMM_KS_FROM {
                    keyswitch_gemm(
                        s,
                        &mut batch_small,
                        &idx,
                        &batch_in,
                        &idx,
                        p.big_lwe_dimension(),
                        p.lwe_dimension,
                        &dev.ksk,
                        p.ks_base_log,
                        p.ks_level,
                        n as u32,
                        true,
                    );
                } else {
                    keyswitch_async(
                        s,
                        &mut batch_small,
                        &idx,
                        &batch_in,
                        &idx,
                        p.big_lwe_dimension(),
                        p.lwe_dimension,
                        &dev.ksk,
                        p.ks_base_log,
                        p.ks_level,
                        n as u32,
                    );
                }
                let d_accs = CudaVec::from_cpu_async(accs, s, 0);
                let d_lut_index = CudaVec::from_cpu_async(&lut_index, s, 0);
                let mut batch_out = CudaVec::<u64>::new_async(n * big, s, 0);
                programmable_bootstrap(
                    s,
                    &mut batch_out,
                    &idx,
                    &d_accs,
                    &d_lut_index,
                    &batch_small,
                    &idx,
                    &dev.bsk,
                    p.lwe_dimension,
                    p.glwe_dimension,
                    p.polynomial_size,
                    p.pbs_base_log,
                    p.pbs_level,
                    n as u32,
                    Some(&CudaModulusSwitchNoiseReductionConfiguration::Centered),
                );
                s.synchronize();
                batch_out
            };
            // Scatter: each output its own digit (+Δ/2 on the body of half-step outputs).
            let base: *const u64 = batch_out.ptr[0].cast_const().cast();
            let mut out = Vec::with_capacity(n);
            for (i, job) in jobs.iter().enumerate() {
                // SAFETY: in bounds of the n·big batch.
                let src = unsafe { base.add(i * big) };
                out.push((
                    job.node,
                    Output::One(dev.linear_raw(&[(src, 1)], job.body_add())?),
                ));
            }
            // `batch_out` is freed by a synchronizing cudaFree after the copies were queued.
            s.synchronize();
            drop(batch_out);
            Ok(out)
        }
    }
}
