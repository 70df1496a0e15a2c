#!/usr/bin/env bash
# The checks of docs/GPU.md on a GPU machine, from the repository root there, with the
# packed build in .gpu-carry/ (scripts/gpu-device-pack.sh): info, selftest, the typed and
# exact benchmarks beside TFHE-rs' GPU API (typed also planned for 16 lanes), inference,
# the demo, the throughput of one level, and the machine's calibration (GPU, 16 CPU
# threads). Each step's stdout and stderr go to
# $OUT/<step>.out and .err (default /tmp/out); the exit status and seconds are printed.
#
#   bash scripts/gpu-device-checks.sh              # every step
#   bash scripts/gpu-device-checks.sh selftest demo  # only the steps named
set -o pipefail
export LD_LIBRARY_PATH=$PWD/.gpu-carry; E=.gpu-carry/encint; O=${OUT:-/tmp/out}; mkdir -p $O
want() { [[ -z "$STEPS" || " $STEPS " == *" $1 "* ]]; }
STEPS="$*"
t() { local name=$1; shift; want "$name" || return 0; local s=$(date +%s); timeout "$@" > $O/$name.out 2> $O/$name.err; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - s )) s"; tail -c 600 $O/$name.out; echo; }
nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
$E gpu info
t selftest 100 $E gpu selftest
t bench_typed 150 $E gpu bench --typed --runs 5 --json
t infer_mlp_100 100 $E infer --backend gpu --images 100 --json
t infer_mlp_1 45 $E infer --backend gpu --images 1 --json
t bench_typed_l16 100 env ENCINT_GPU_PLAN_LANES=16 $E gpu bench --typed --runs 5 --no-peer --json
t infer_cnn_20 60 $E infer --backend gpu --model cnn --images 20 --json
t infer_mlp_enc_4 90 $E infer --backend gpu --weights encrypted --images 4 --json
t demo 40 $E demo --backend gpu --seed 7
t bench 120 $E gpu bench --runs 3 --json
t throughput16 45 $E gpu throughput --width 4096 --threads 16 --runs 3 --json
t calibrate_gpu 60 $E calibrate --backend gpu --dry-run --json
t calibrate_cpu16 40 $E calibrate --threads 16 --dry-run --json
echo done
