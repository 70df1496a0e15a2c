// encint's own CUDA kernels for the GPU backend (crates/encint/src/backend/gpu/), compiled by
// crates/encint/build.rs only with the `gpu` feature. TFHE-rs' CUDA backend has no public entry
// point for a weighted sum of LWE ciphertexts with a plaintext constant (its linear algebra
// header offers only an in-place add of radix ciphertexts), so the linear nodes of a circuit and
// the +Δ/2 of half-step bootstraps run here.
#include <cuda_runtime.h>
#include <stdint.h>

#define ENCINT_TERMS_PER_LAUNCH 16

struct EncintTerms {
  const uint64_t *ptr[ENCINT_TERMS_PER_LAUNCH];
  int64_t weight[ENCINT_TERMS_PER_LAUNCH];
};

// out[j] (+)= Σ_i weight_i · in_i[j] (mod 2^64), and body_add on the body (j = lwe_size - 1).
__global__ void encint_linear_kernel(uint64_t *out, EncintTerms terms,
                                     uint32_t n_terms, uint32_t lwe_size,
                                     uint64_t body_add, int accumulate) {
  uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= lwe_size)
    return;
  uint64_t acc = accumulate ? out[j] : 0;
  for (uint32_t i = 0; i < n_terms; i++)
    acc += (uint64_t)terms.weight[i] * terms.ptr[i][j];
  if (j == lwe_size - 1)
    acc += body_add;
  out[j] = acc;
}

extern "C" {

// One launch: out = (accumulate ? out : 0) + Σ weights[i] · inputs[i], plus body_add on the
// body (all device pointers to LWE ciphertexts of `lwe_size` u64 coefficients), on `stream`.
// At most ENCINT_TERMS_PER_LAUNCH terms: longer sums are split by the caller
// (`encint::backend::gpu::batch::linear_launches`, whose host model `apply_linear_launch` is tested on
// the CPU). `out` may not alias an input. Returns the CUDA error code (0 = success;
// cudaErrorInvalidValue for too many terms).
int encint_gpu_linear_launch_async(void *stream, uint32_t gpu_index,
                                   uint64_t *out,
                                   const uint64_t *const *inputs,
                                   const int64_t *weights, uint32_t n_terms,
                                   uint32_t lwe_size, uint64_t body_add,
                                   int accumulate) {
  if (n_terms > ENCINT_TERMS_PER_LAUNCH)
    return (int)cudaErrorInvalidValue;
  cudaError_t err = cudaSetDevice((int)gpu_index);
  if (err != cudaSuccess)
    return (int)err;
  const uint32_t threads = 256;
  const uint32_t blocks = (lwe_size + threads - 1) / threads;
  EncintTerms t;
  for (uint32_t i = 0; i < ENCINT_TERMS_PER_LAUNCH; i++) {
    t.ptr[i] = i < n_terms ? inputs[i] : nullptr;
    t.weight[i] = i < n_terms ? weights[i] : 0;
  }
  encint_linear_kernel<<<blocks, threads, 0, (cudaStream_t)stream>>>(
      out, t, n_terms, lwe_size, body_add, accumulate ? 1 : 0);
  return (int)cudaGetLastError();
}
}
