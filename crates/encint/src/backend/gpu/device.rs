//! The CUDA side of the GPU backend (feature `gpu`): the server key on the device, uploads
//! and downloads, and the executor-layer backend whose level batches run there.

// Unsafe code: the CUDA backend's device buffers and kernel launches are FFI.
#![allow(unsafe_code)]

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
            // One argument list for both keyswitch kernels (the GEMM one takes one more flag).
            macro_rules! keyswitch {
                ($kernel:ident $(, $extra:expr)?) => {
                    $kernel(
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
                        $($extra)?
                    )
                };
            }
            if n > GEMM_KS_FROM {
                keyswitch!(keyswitch_gemm, true);
            } else {
                keyswitch!(keyswitch_async);
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
