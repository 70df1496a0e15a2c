#!/usr/bin/env bash
# The full sweep of the typed operations on real keys: every operation (and casts) x widths
# 8, 16, 32, 64 x unsigned and signed x operands as encrypted (radix-4), canonical and as an
# earlier operation's result, an edge case and a random case each, against the BigInt
# reference (crates/encint/tests/typed_cells_real.rs; CI runs a random sample of the same
# cells). Prints the seed, each cell as it passes and the totals; exits non-zero on the first
# mismatch. About an hour or more on two cores.
#
#   scripts/real-sweep.sh                  # a fresh seed
#   TYPED_CELLS_SEED=7 scripts/real-sweep.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --release -j "${JOBS:-2}" --test typed_cells_real -- --ignored --nocapture \
  every_cell_on_real_keys
