//! Tree-based evaluation of 256-entry tables on two nibbles (LUTeval / MVLUTeval of
//! "Designing a General-Purpose 8-bit (T)FHE Processor Abstraction", Sections 2.3 and 3.2).
//!
//! A [`Table256`] `t` maps two nibbles `(hi, lo)` (digits with values in `0..16`) to
//! `t[16·hi + lo]`. Its evaluation is a two-level tree:
//!
//! 1. **First level** ([`TreeKey::first_level`]): one keyswitch, modulus switch and blind
//!    rotation of `hi` over the trivial test polynomial `TV0 = (Δ/2)·(1 + X + … + X^(N-1))`
//!    (multi-value bootstrapping, Carpov–Izabachène–Mollimard 2018). Every negacyclic table `g`
//!    on the 32 slots has a step-function test polynomial equal to `TV0·v_g` for a sparse integer
//!    polynomial `v_g = Σ D_k X^(p_k)` (the jumps `D_k` of the step function at the box
//!    boundaries `p_k = k·B − B/2`, `B = 2N/32`), so the rotated accumulator yields any number of
//!    univariate tables of `hi` ("singles") and, for every row table, the 16 values
//!    `t[16·hi + j]`, `j = 0..16`. The output noise is the blind-rotation noise times `‖v_g‖₂`
//!    (up to ≈ 64), so this rotation uses a second, *precise* bootstrapping key
//!    ([`PRECISE_PBS_BASE_LOG`], [`PRECISE_PBS_LEVEL`]) under the same secret keys and noise
//!    distribution (hence the same security) as the default one.
//! 2. **Packing** (inside [`TreeKey::first_level`] for every row table): a functional packing
//!    keyswitch turns the 16 row values into an encrypted second-level test polynomial
//!    ([`Accumulator`]) whose box `j` holds `t[16·hi + j]·Δ`. The box shape `1 + … + X^(B-1)` is
//!    baked into the packing key, so the per-coefficient keyswitch noise is not amplified.
//! 3. **Second level** ([`TreeKey::second_level`]): keyswitch `lo`, modulus switch, blind-rotate
//!    the encrypted accumulator with the default (fast) bootstrapping key and extract: the result
//!    encrypts `t[16·hi + lo]`.
//!
//! # Noise and failure probability
//!
//! Every blind-rotation input is an ordinary digit (the `hi` or `lo` argument), keyswitched and
//! modulus-switched exactly like in [`crate::ServerKey::bootstrap`]; under the usual rule
//! (quadratic weight ≤ [`crate::DigitParameters::max_quadratic_weight`]) each rotation fails
//! with probability ≤ `2^-129.6`, so a LUTeval fails with probability ≤ `2^-128.6` (union bound
//! over its two rotations) and an MVLUTeval over `k` tables with ≤ `(k + 1)·2^-129.6`.
//!
//! The outputs are not exactly fresh: in units of the variance of a fresh
//! [`crate::ServerKey::bootstrap`] output, a first-level single output has variance at most
//! [`FIRST_LEVEL_QWEIGHT_BOUND`] and a second-level output at most
//! [`SECOND_LEVEL_QWEIGHT_BOUND`] (see their documentation for the measurements). A circuit
//! executor should charge these weights when such outputs enter a linear combination.
//! Outputs of one first level share a blind rotation and are *not independent* of each other.
//!
//! Files: `table` (tables and their test polynomials), `keys` (the tree key and its
//! generation), `pack` (the packing keyswitch kernel), `eval` (first and second levels),
//! `wire` (serialization).

mod eval;
mod keys;
mod pack;
mod table;
#[cfg(test)]
mod tests;
mod wire;

pub use keys::TreeKey;
pub use table::{Accumulator, Table256};

use tfhe::core_crypto::prelude::DefaultRandomGenerator;

type Gen = DefaultRandomGenerator;

/// Base log of the precise bootstrapping key used by the first level.
pub const PRECISE_PBS_BASE_LOG: usize = 15;
/// Level count of the precise bootstrapping key used by the first level.
pub const PRECISE_PBS_LEVEL: usize = 2;
/// Base log of the functional packing keyswitching key.
pub const PACKING_BASE_LOG: usize = 22;
/// Level count of the functional packing keyswitching key.
pub const PACKING_LEVEL: usize = 1;

/// Variance bound, in units of the variance of a fresh [`crate::ServerKey::bootstrap`] output,
/// of a first-level *single* output of [`TreeKey::first_level`] for the worst table.
///
/// Model: precise blind-rotation variance `2^-46.4` times `‖v‖² ≤ 4096` against the fresh
/// `2^-29.7` gives ≈ 0.04; measured 0.11 (σ ≈ 2^-16.4 against 2^-14.8, 400 samples,
/// alternating 0/15 table, `tests/tree.rs`). An executor may charge such an output quadratic
/// weight 1.
pub const FIRST_LEVEL_QWEIGHT_BOUND: f64 = 0.25;

/// Variance bound, in units of the variance of a fresh [`crate::ServerKey::bootstrap`] output,
/// of a second-level output ([`TreeKey::second_level`], [`TreeKey::lut_eval`],
/// [`TreeKey::mv_lut_eval`]) for the worst table.
///
/// It is the fresh blind-rotation noise (1) plus the accumulator noise (row value noise
/// ≈ 0.11 in the worst case plus packing rounding and key noise ≈ 0.01, model ≈ 1.12);
/// measured 1.19 ± 0.1 (400 samples, worst-case table, `tests/tree.rs`). An executor should
/// charge such an output quadratic weight 2 (integer weights) or 1.25 (real weights).
pub const SECOND_LEVEL_QWEIGHT_BOUND: f64 = 1.25;
