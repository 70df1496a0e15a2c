//! What the GPU backend sends to the device, as pure functions that build without the `gpu`
//! feature (and without CUDA), so that the default build tests them on the CPU.
//!
//! * [`check_circuit`]: the node kinds the GPU backend refuses (tree LUTs, many-LUT nodes).
//! * [`assemble_level`]: one circuit level's bootstraps (the units of the shared unit runner,
//!   `backend/units.rs`) as one batch: which value feeds each
//!   slot of the gathered input list, one GLWE accumulator per distinct `(table, half-step)`
//!   pair, the per-slot accumulator indexes of TFHE-rs' classical PBS, and the `+Δ/2` each
//!   output gets on its body ([`BatchJob::body_add`]).
//! * [`linear_launches`]: how a linear node `Σ wᵢ·xᵢ + c` is split into launches of encint's
//!   kernel (`crates/encint/cuda/linear.cu`, at most [`TERMS_PER_LAUNCH`] terms each: the
//!   first writes, the later ones accumulate, only the first adds the constant), and
//!   [`apply_linear_launch`], the kernel's semantics on host memory (the reference the CUDA
//!   kernel implements, one thread per coefficient).
//!
//! `crates/encint/tests/gpu_batch.rs` runs whole circuits through these functions with the
//! CPU's keyswitch and programmable bootstrap of TFHE-rs' `core_crypto` on the assembled
//! accumulators, and compares the decryptions with the clear executor.

use std::collections::HashMap;

use encint_core::circuit::{Circuit, Node, NodeId, Plan, PlannedLevel};
use encint_tfhe::params::DELTA;
use encint_tfhe::{DigitParameters, TfheError};

use super::GpuError;
use crate::backend::digit::find_live;
use crate::backend::units::{level_units, Unit};
use crate::{Error, Result};

/// Largest number of terms one launch of the linear kernel takes (the size of the kernel's
/// by-value argument arrays, `ENCINT_TERMS_PER_LAUNCH` in `cuda/linear.cu`).
pub const TERMS_PER_LAUNCH: usize = 16;

/// Refuses circuits whose live nodes the GPU backend does not run (tree LUTs, many-LUT
/// bootstraps) with [`GpuError::Unsupported`].
pub fn check_circuit(circuit: &Circuit, plan: &Plan) -> Result<()> {
    if let Some(id) = find_live(circuit, plan.live(), |n| {
        matches!(n, Node::ManyLut { .. } | Node::Tree { .. })
    }) {
        return Err(Error::Gpu(GpuError::Unsupported(format!(
            "node {} of operation `{}` is a {} (the GPU backend runs plain and half-step \
             tables and linear nodes)",
            id.0,
            circuit.label(id),
            match circuit.node(id) {
                Node::Tree { .. } => "tree LUT",
                _ => "many-LUT bootstrap",
            }
        ))));
    }
    Ok(())
}

/// One bootstrap of a level's batch: slot `i` of the batch is job `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchJob {
    /// The bootstrap node whose output this slot is.
    pub node: NodeId,
    /// The node whose value is gathered into this slot.
    pub input: NodeId,
    /// Whether the table is a half-step table (values in units of `Δ/2`).
    pub half: bool,
    /// Index of this slot's accumulator in [`LevelBatch::accumulators`].
    pub accumulator: usize,
}

impl BatchJob {
    /// What is added to the body of this slot's output after the bootstrap: `Δ/2` for a
    /// half-step table, 0 otherwise.
    pub fn body_add(&self) -> u64 {
        if self.half {
            DELTA / 2
        } else {
            0
        }
    }
}

/// One level's bootstraps, ready for one batched keyswitch and one batched PBS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelBatch {
    /// The slots: plain tables first (in the level's order), then half-step tables.
    pub jobs: Vec<BatchJob>,
    /// The distinct accumulators, each `glwe_size · polynomial_size` words: a GLWE with a
    /// zero mask and the body [`encint_tfhe::test_polynomial`] of its table.
    pub accumulators: Vec<u64>,
    /// Words of one accumulator.
    pub accumulator_len: usize,
}

impl LevelBatch {
    /// The accumulator of slot `i`'s job.
    pub fn accumulator(&self, i: usize) -> &[u64] {
        let k = self.jobs[i].accumulator;
        &self.accumulators[k * self.accumulator_len..(k + 1) * self.accumulator_len]
    }

    /// The per-slot accumulator indexes (TFHE-rs' `lut_indexes`).
    pub fn lut_indexes(&self) -> Vec<u64> {
        self.jobs.iter().map(|j| j.accumulator as u64).collect()
    }

    /// Number of distinct accumulators.
    pub fn distinct(&self) -> usize {
        self.accumulators
            .len()
            .checked_div(self.accumulator_len)
            .unwrap_or(0)
    }
}

/// [`assemble_level`] with the GLWE size and polynomial size of the parameter set `params`.
pub fn assemble_level_for(
    circuit: &Circuit,
    level: &PlannedLevel,
    params: &DigitParameters,
) -> Result<LevelBatch> {
    assemble_level(
        circuit,
        level,
        params.glwe_dimension.to_glwe_size().0,
        params.polynomial_size.0,
    )
}

/// Assembles the bootstraps of `level` (plain and half-step tables; other node kinds are not
/// part of the batch: [`check_circuit`] refuses them) for GLWE size `glwe_size` and
/// polynomial size `polynomial_size`. Errors with [`TfheError::EvenHalfStep`] on a half-step
/// table with an even value.
pub fn assemble_level(
    circuit: &Circuit,
    level: &PlannedLevel,
    glwe_size: usize,
    polynomial_size: usize,
) -> Result<LevelBatch> {
    let mut tables = Vec::new();
    for (unit, ids) in level_units(circuit, level, false, |id| id)? {
        match unit {
            Unit::Lut { input, lut } => tables.push((ids[0], input, lut, false)),
            Unit::Half { input, lut } => {
                if let Some(&v) = lut.values.iter().find(|v| v.rem_euclid(2) == 0) {
                    return Err(TfheError::EvenHalfStep(v).into());
                }
                tables.push((ids[0], input, lut, true));
            }
            Unit::Many { .. } => {
                return Err(Error::Gpu(GpuError::Unsupported(
                    "a many-LUT bootstrap (the device runs one table per blind rotation: \
                     take the circuit apart with Circuit::unpack_many)"
                        .into(),
                )))
            }
            Unit::Multi { .. } => unreachable!("units without trees have no multi-value unit"),
        }
    }
    let accumulator_len = glwe_size * polynomial_size;
    let mut distinct: HashMap<([i64; 16], bool), usize> = HashMap::new();
    let mut accumulators: Vec<u64> = Vec::new();
    let jobs = tables
        .into_iter()
        .map(|(node, input, t, half)| {
            let next = distinct.len();
            let accumulator = *distinct.entry((t.values, half)).or_insert_with(|| {
                let mask = glwe_size.saturating_sub(1) * polynomial_size;
                accumulators.extend(std::iter::repeat_n(0u64, mask));
                accumulators.extend(encint_tfhe::test_polynomial(&t, half, polynomial_size));
                next
            });
            BatchJob {
                node,
                input,
                half,
                accumulator,
            }
        })
        .collect();
    Ok(LevelBatch {
        jobs,
        accumulators,
        accumulator_len,
    })
}

/// One launch of the linear kernel: `out (+)= Σ weight·term`, plus `body_add` on the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinearLaunch<T> {
    /// At most [`TERMS_PER_LAUNCH`] `(operand, weight)` pairs.
    pub terms: Vec<(T, i64)>,
    /// Added to the body (the last coefficient), already scaled.
    pub body_add: u64,
    /// Whether the launch adds to `out` (every launch after the first) or overwrites it.
    pub accumulate: bool,
}

/// Splits `Σ terms + body_add` into launches of at most [`TERMS_PER_LAUNCH`] terms, in order:
/// the first overwrites the output and adds `body_add`, the others accumulate. No terms (a
/// trivial constant) is one launch with no terms.
pub fn linear_launches<T: Copy>(terms: &[(T, i64)], body_add: u64) -> Vec<LinearLaunch<T>> {
    if terms.is_empty() {
        return vec![LinearLaunch {
            terms: Vec::new(),
            body_add,
            accumulate: false,
        }];
    }
    terms
        .chunks(TERMS_PER_LAUNCH)
        .enumerate()
        .map(|(i, chunk)| LinearLaunch {
            terms: chunk.to_vec(),
            body_add: if i == 0 { body_add } else { 0 },
            accumulate: i > 0,
        })
        .collect()
}

/// What one launch of the kernel computes, on host memory: for every coefficient `j` of
/// `out`, `out[j] = (accumulate ? out[j] : 0) + Σ weight·term[j]` (mod 2⁶⁴), plus `body_add`
/// on the last coefficient. Every term must be as long as `out`.
pub fn apply_linear_launch(out: &mut [u64], launch: &LinearLaunch<&[u64]>) -> Result<()> {
    if launch.terms.len() > TERMS_PER_LAUNCH {
        return Err(Error::InvalidInput(format!(
            "{} terms in one launch (at most {TERMS_PER_LAUNCH})",
            launch.terms.len()
        )));
    }
    if let Some((t, _)) = launch.terms.iter().find(|(t, _)| t.len() != out.len()) {
        return Err(TfheError::DimensionMismatch {
            expected: out.len().saturating_sub(1),
            found: t.len().saturating_sub(1),
        }
        .into());
    }
    let last = out.len().wrapping_sub(1);
    for (j, o) in out.iter_mut().enumerate() {
        let mut acc = if launch.accumulate { *o } else { 0 };
        for (t, w) in &launch.terms {
            acc = acc.wrapping_add((*w as u64).wrapping_mul(t[j]));
        }
        if j == last {
            acc = acc.wrapping_add(launch.body_add);
        }
        *o = acc;
    }
    Ok(())
}
