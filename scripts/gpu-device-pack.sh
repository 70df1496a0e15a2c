#!/usr/bin/env bash
# Packs the GPU build for a run on a lent GPU machine (the `device` tool of the tool library):
# copies the `encint` binary built with `--features gpu` (stripped) and the CUDA runtime it
# links (libcudart.so.13, from scripts/cuda-toolchain.sh) into <repo>/.gpu-carry (git-ignored).
# The GPU machine has the NVIDIA driver (the real libcuda.so.1) but no Rust and no CUDA toolkit.
#
#   scripts/gpu-device-pack.sh [TARGET_DIR]     # default TARGET_DIR: <repo>/target-gpu
#
# Then, with the device tool, from the checkout the session runs from (copy .gpu-carry there if
# you built in another worktree), name `.gpu-carry` in `carry` and run (docs/GPU.md):
#   export LD_LIBRARY_PATH=$PWD/.gpu-carry; .gpu-carry/encint gpu selftest
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="${1:-$ROOT/target-gpu}"
BIN="$TARGET/release/encint"
CUDART="$ROOT/.cuda/py/nvidia/cu13/lib/libcudart.so.13"
[[ -x "$BIN" ]] || { echo "no $BIN: build with --features gpu first (docs/GPU.md)" >&2; exit 1; }
[[ -f "$CUDART" ]] || { echo "no $CUDART: run scripts/cuda-toolchain.sh" >&2; exit 1; }
# grep -c reads all of strings' output: with -q, strings could die of SIGPIPE and
# pipefail would report a binary that has the symbol as one that has not.
if ! strings "$BIN" | grep -c encint_gpu_linear_launch_async >/dev/null; then
  echo "$BIN has no GPU backend (built without --features gpu?)" >&2
  exit 1
fi
mkdir -p "$ROOT/.gpu-carry"
cp "$BIN" "$ROOT/.gpu-carry/encint"
strip "$ROOT/.gpu-carry/encint" 2>/dev/null || true
cp "$CUDART" "$ROOT/.gpu-carry/"
du -sh "$ROOT/.gpu-carry"/*
