#!/usr/bin/env bash
# Installs a CUDA 13 toolchain for encint's `gpu` feature into <repo>/.cuda (git-ignored), with
# no system CUDA install and no GPU needed on the build machine, and prints the environment a
# build needs. Idempotent: a second run only re-checks and re-prints.
#
#   scripts/cuda-toolchain.sh                 # install (if needed), then print `export ...` lines
#   eval "$(scripts/cuda-toolchain.sh --env)" # install quietly and export into this shell
#   CARGO_TARGET_DIR=target-gpu cargo build --release -p encint-cli --features gpu
#
# What it installs (PyPI wheels, the only nvcc on PyPI is CUDA 13.x):
#   nvidia-cuda-nvcc, nvidia-cuda-runtime, nvidia-cuda-cccl, nvidia-cuda-crt  (13.x)
# and around them, under .cuda/:
#   bin/nvcc          a wrapper given to CMake as CUDACXX (see below)
#   sm90/fake_sm90.h  the header the wrapper pre-includes into the two GPU-detection programs
#   <cu13>/lib/stubs/libcuda.so  an empty stub with soname libcuda.so.1 (link only; the real
#                     driver library is loaded on the GPU machine)
#   <cu13>/lib/libcudart.so -> libcudart.so.13
#
# Target architecture: sm_90 (H100/H200), with TFHE-rs' CUDA_ARCH define at 900.
# tfhe-cuda-backend's CMake detects the GPU twice at build time: CMake's own detection for
# CMAKE_CUDA_ARCHITECTURES=native (it compiles and runs CMakeCUDACompilerABI.cu), and the crate's
# check_cuda.cu, whose output "-arch=sm_XY" becomes CUDA_ARCH=XY0. Without a GPU both fail and
# the crate falls back to sm_70 / CUDA_ARCH=700, which nvcc 13 rejects. The wrapper compiles
# exactly those two programs with a pre-included header that answers "one device, compute
# capability 9.0", so CMake takes its GPU path: native = 90-real, CUDA_ARCH=900; and it rewrites
# the `-arch=native` CMake then passes into `-arch=sm_90` (nvcc resolves `native` itself, and
# without a GPU silently falls back to sm_75). Result: the device code is sm_90 SASS + compute_90
# PTX and the Hopper code paths of the PBS (thread-block-cluster / distributed-shared-memory
# variants, `#if CUDA_ARCH >= 900`) are compiled in, as on a build made on an H100.
# ENCINT_CUDA_SM=XY picks another capability (e.g. 80 for an A100).
set -euo pipefail

want_env_only=0
[[ "${1:-}" == "--env" ]] && want_env_only=1

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/.cuda"
PY="$DIR/py"
SM="${ENCINT_CUDA_SM:-90}"
PYTHON="${PYTHON:-python3}"

log() { if [[ $want_env_only == 0 ]]; then echo "cuda-toolchain: $*" >&2; fi; }

CU="$PY/nvidia/cu13"
if [[ ! -x "$CU/bin/nvcc" || ! -f "$CU/lib/libcudart.so.13" || ! -d "$CU/include/cccl" || ! -f "$CU/include/crt/host_defines.h" ]]; then
  log "installing CUDA 13 wheels into $PY"
  "$PYTHON" -m pip install --quiet --disable-pip-version-check --upgrade --target "$PY" \
    "nvidia-cuda-nvcc>=13,<14" "nvidia-cuda-runtime>=13,<14" \
    "nvidia-cuda-cccl>=13,<14" "nvidia-cuda-crt>=13,<14" >&2
fi
[[ -x "$CU/bin/nvcc" ]] || { echo "cuda-toolchain: nvcc missing under $CU" >&2; exit 1; }

# libcudart.so for `-lcudart` (the wheel ships only the soname file).
ln -sfn libcudart.so.13 "$CU/lib/libcudart.so"

# Stub libcuda.so (the link of check_cuda.cu names -lcuda; nvcc searches lib/stubs).
mkdir -p "$CU/lib/stubs"
if [[ ! -f "$CU/lib/stubs/libcuda.so" ]]; then
  log "building the stub libcuda.so"
  echo 'int encint_libcuda_stub;' > "$DIR/stub.c"
  cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$CU/lib/stubs/libcuda.so" "$DIR/stub.c"
fi

# The answer of the two detection programs: one device of compute capability $SM.
mkdir -p "$DIR/sm90" "$DIR/bin"
cat > "$DIR/sm90/fake_sm90.h.new" <<H
// Pre-included by .cuda/bin/nvcc into CMake's and tfhe-cuda-common's GPU detection programs only.
#include <cuda_runtime.h>
#include <string.h>
static cudaError_t encint_fake_device_count(int *count) { *count = 1; return cudaSuccess; }
static cudaError_t encint_fake_device_properties(cudaDeviceProp *p, int) {
  memset(p, 0, sizeof(*p));
  p->major = ${SM:0:1}; p->minor = ${SM:1:1};
  return cudaSuccess;
}
#undef cudaGetDeviceCount
#undef cudaGetDeviceProperties
#define cudaGetDeviceCount encint_fake_device_count
#define cudaGetDeviceProperties encint_fake_device_properties
H
mv "$DIR/sm90/fake_sm90.h.new" "$DIR/sm90/fake_sm90.h"

cat > "$DIR/bin/nvcc.new" <<W
#!/usr/bin/env bash
# encint's nvcc wrapper (written by scripts/cuda-toolchain.sh): the real nvcc, except that the
# two GPU-detection programs (CMakeCUDACompilerABI.cu, check_cuda.cu) are compiled with a header
# that reports one device of compute capability $SM, so a build without a GPU targets sm_$SM.
# CMake turns CMAKE_CUDA_ARCHITECTURES=native into nvcc's own -arch=native, which needs a GPU at
# compile time (without one nvcc silently falls back to its default, sm_75): it becomes sm_$SM.
real="$CU/bin/nvcc"
args=()
probe=0
for a in "\$@"; do
  case "\$a" in
    *CMakeCUDACompilerABI.cu|*/check_cuda.cu|check_cuda.cu) probe=1; args+=("\$a") ;;
    -arch=native) args+=("-arch=sm_$SM") ;;
    *) args+=("\$a") ;;
  esac
done
if [[ \$probe == 1 ]]; then
  exec "\$real" -include "$DIR/sm90/fake_sm90.h" "\${args[@]}"
fi
exec "\$real" "\${args[@]}"
W
chmod +x "$DIR/bin/nvcc.new"
mv "$DIR/bin/nvcc.new" "$DIR/bin/nvcc"

log "nvcc: $("$CU/bin/nvcc" --version | tail -2 | head -1)"
log "target: sm_$SM (CUDA_ARCH=${SM}0)"
cat <<E
export CUDACXX="$DIR/bin/nvcc"
export CUDA_PATH="$CU"
export CUDAToolkit_ROOT="$CU"
export PATH="$CU/bin:\$PATH"
export RUSTFLAGS="-L $CU/lib"
export LIBRARY_PATH="$CU/lib:$CU/lib/stubs\${LIBRARY_PATH:+:\$LIBRARY_PATH}"
export ENCINT_CUDA_LIB="$CU/lib"
E
