//! The CUDA side of the GPU backend (feature `gpu`): the server key on the device, uploads
//! and downloads, and the executor-layer backend whose level batches run there.

// Unsafe code: the CUDA backend's device buffers and kernel launches are FFI.
#![allow(unsafe_code)]

use std::sync::{Arc, Mutex};

use encint_core::circuit::{Circuit, Node, NodeId, Plan, PlannedLevel};
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

use super::batch::{assemble_level_for, check_circuit, linear_launches};
use super::{GpuError, GpuInfo};
use crate::{Error, Result};

unsafe extern "C" {
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
/// `ENCINT_GPU_GEMM_KS_FROM=N` moves the threshold (`0`: always GEMM; a huge N: never).
const GEMM_KS_FROM: usize = 128;

/// Most digit buffers kept for reuse (16 KiB each with the 64-bit parameters: 1 GiB).
const POOL_MAX: usize = 1 << 16;

/// Freed digit buffers, kept for the next allocation: dropping a `CudaVec` calls `cudaFree`,
/// which synchronizes the whole device, once per intermediate digit. Reuse is safe because
/// every operation of a device runs on its one stream, in order.
type Pool = Arc<Mutex<Vec<CudaVec<u64>>>>;

/// One digit's device buffer; back to its pool when the last [`GpuDigit`] holding it drops.
struct Buffer {
    vec: Option<CudaVec<u64>>,
    pool: Pool,
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if let Some(v) = self.vec.take() {
            let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
            if pool.len() < POOL_MAX {
                pool.push(v);
            }
        }
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer").finish_non_exhaustive()
    }
}

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
pub struct GpuDigit(Arc<Buffer>);

impl GpuDigit {
    fn vec(&self) -> &CudaVec<u64> {
        self.0.vec.as_ref().expect("a live digit holds its buffer")
    }

    fn ptr(&self) -> *const u64 {
        self.vec().ptr[0].cast_const().cast()
    }

    fn ptr_mut(&self) -> *mut u64 {
        self.vec().ptr[0].cast()
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
    pool: Pool,
    gemm_ks_from: usize,
    /// `ENCINT_GPU_TRACE` set: each level's phases, synchronized and timed, reported as
    /// info records of the `log` facade (the CLI prints them on stderr).
    trace: bool,
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
            pool: Arc::default(),
            gemm_ks_from: std::env::var("ENCINT_GPU_GEMM_KS_FROM")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(GEMM_KS_FROM),
            trace: std::env::var_os("ENCINT_GPU_TRACE").is_some(),
        })
    }

    /// The key set of the uploaded key.
    pub fn key_set(&self) -> KeySetId {
        self.key_set
    }

    fn lwe_size(&self) -> usize {
        self.params.big_lwe_dimension().0 + 1
    }

    /// A digit buffer: a reused one, else a new allocation (stream-ordered).
    fn alloc(&self) -> GpuDigit {
        let reused = self.pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
        // SAFETY: allocated on the device's one stream, before any use on it.
        let vec = reused
            .unwrap_or_else(|| unsafe { CudaVec::new_async(self.lwe_size(), &self.streams, 0) });
        GpuDigit(Arc::new(Buffer {
            vec: Some(vec),
            pool: self.pool.clone(),
        }))
    }

    /// Uploads digits (one synchronization for all).
    pub fn upload(&self, digits: &[&Digit]) -> Result<Vec<GpuDigit>> {
        let expected = self.params.big_lwe_dimension().0;
        let mut out = Vec::with_capacity(digits.len());
        for d in digits {
            if d.lwe_dimension() != expected {
                return Err(TfheError::DimensionMismatch {
                    expected,
                    found: d.lwe_dimension(),
                }
                .into());
            }
            let reused = self.pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
            // SAFETY: `digits` outlive the copies (synchronized before returning); the
            // buffer is the device's, used on its one stream.
            let vec = unsafe {
                match reused {
                    Some(mut v) => {
                        v.copy_from_cpu_async(d.as_raw(), &self.streams, 0);
                        v
                    }
                    None => CudaVec::from_cpu_async(d.as_raw(), &self.streams, 0),
                }
            };
            out.push(GpuDigit(Arc::new(Buffer {
                vec: Some(vec),
                pool: self.pool.clone(),
            })));
        }
        self.streams.synchronize();
        Ok(out)
    }

    /// Downloads digits (one synchronization for all).
    pub fn download(&self, digits: &[GpuDigit]) -> Result<Vec<Digit>> {
        let mut host = vec![vec![0u64; self.lwe_size()]; digits.len()];
        for (h, d) in host.iter_mut().zip(digits) {
            // SAFETY: `h` is large enough and outlives the copy (synchronized below).
            unsafe { d.vec().copy_to_cpu_async(h, &self.streams, 0) };
        }
        self.streams.synchronize();
        host.into_iter()
            .map(|h| Ok(Digit::from_raw(h, &self.params)?))
            .collect()
    }

    /// `Σ wᵢ·xᵢ + body_add` (body_add already scaled) into a new device digit, in the
    /// launches of [`linear_launches`].
    fn linear_raw(&self, terms: &[(*const u64, i64)], body_add: u64) -> Result<GpuDigit> {
        let size = self.lwe_size();
        // Written by the first launch below before any read (stream order).
        let out = self.alloc();
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
                    out.ptr_mut(),
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
        Ok(out)
    }

    /// Runs `circuit` (plan `plan`) on `inputs`: uploads them, runs every level on the
    /// device, downloads the outputs.
    pub fn run(&self, circuit: &Circuit, plan: &Plan, inputs: &[&Digit]) -> Result<Vec<Digit>> {
        let _one = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let t = std::time::Instant::now();
        let up = self.upload(inputs)?;
        let t_up = t.elapsed();
        let refs: Vec<&GpuDigit> = up.iter().collect();
        // One table per blind rotation here: shared rotations run as plain bootstraps.
        let unpacked;
        let (circuit, plan) = if circuit
            .nodes()
            .iter()
            .any(|n| matches!(n, Node::ManyLut { .. }))
        {
            unpacked = circuit.unpack_many();
            let plan = unpacked.plan();
            (&unpacked, std::borrow::Cow::Owned(plan))
        } else {
            (circuit, std::borrow::Cow::Borrowed(plan))
        };
        let out = exec::run(&GpuBackend { device: self }, circuit, &plan, &refs)?;
        self.streams.synchronize();
        let t_run = t.elapsed();
        let result = self.download(&out);
        if self.trace {
            log::info!(
                "gpu circuit: {} inputs up {:.2} ms, levels {:.2} ms, {} outputs down {:.2} ms",
                inputs.len(),
                t_up.as_secs_f64() * 1e3,
                (t_run - t_up).as_secs_f64() * 1e3,
                out.len(),
                (t.elapsed() - t_run).as_secs_f64() * 1e3
            );
        }
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
        let batch = assemble_level_for(circuit, level, p)?;
        let jobs = &batch.jobs;
        if jobs.is_empty() {
            return Ok(Vec::new());
        }
        let n = jobs.len();
        let accs = &batch.accumulators;
        let lut_index = batch.lut_indexes();
        let trivial: Vec<u64> = (0..n as u64).collect();
        let s = &dev.streams;
        let t0 = std::time::Instant::now();
        let mut marks = Vec::new();
        let mut mark = |what: &'static str| {
            if dev.trace {
                s.synchronize();
                marks.push((what, t0.elapsed()));
            }
        };
        // SAFETY: every buffer below is allocated on the device's one stream and used in
        // stream order; the host vectors (`accs`, `lut_index`, `trivial`) outlive the
        // final synchronize; operand digits are held by `values` for the whole call.
        let batch_out = unsafe {
            let mut batch_in = CudaVec::<u64>::new_async(n * big, s, 0);
            for (i, job) in jobs.iter().enumerate() {
                batch_in.copy_self_range_gpu_to_gpu_async(
                    i * big..(i + 1) * big,
                    values.get(job.input).vec(),
                    s,
                    0,
                );
            }
            mark("gather");
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
            if n > dev.gemm_ks_from {
                keyswitch!(keyswitch_gemm, true);
            } else {
                keyswitch!(keyswitch_async);
            }
            mark("keyswitch");
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
            mark("pbs");
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
        mark("scatter");
        if dev.trace {
            let mut last = std::time::Duration::ZERO;
            let phases: Vec<String> = marks
                .iter()
                .map(|(what, at)| {
                    let d = *at - last;
                    last = *at;
                    format!("{what} {:.2}", d.as_secs_f64() * 1e3)
                })
                .collect();
            log::info!(
                "gpu level: {n} bootstraps, {} tables (ms): {}",
                accs.len() / (p.glwe_dimension.to_glwe_size().0 * p.polynomial_size.0),
                phases.join(", ")
            );
        }
        Ok(out)
    }
}
