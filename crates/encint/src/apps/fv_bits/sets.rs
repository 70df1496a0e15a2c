//! The 128-bit FV parameter sets for bit-sliced circuits, and the choice of a set (and of an
//! adder) from a circuit's multiplicative depth before any key exists.

use encint_arith::bits::{leveled::Adder, Word};
use encint_core::bits::BitBuilder;
use encint_fv::bfv::FvParameters;

use super::program::FvProgram;
use super::{FvBitsError, Result};

/// A 128-bit parameter set for bit-sliced circuits with its measured depth.
#[derive(Debug, Clone, PartialEq)]
pub struct FvBitSet {
    /// The FV parameters (HomomorphicEncryption.org 128-bit bounds on `log q`, ternary
    /// secret, `sigma = 3.19`, `t = 65537`; see [`FvParameters::default_8192`] etc.).
    pub params: FvParameters,
    /// Practical depth measured here: squarings of a fresh random ciphertext that still
    /// decrypt (`encint fv depth --set NAME --variant hps --trials 2`).
    pub measured_depth: u32,
    /// Depth circuits may use: one below the measured depth (a product of two circuit
    /// values adds the noise of linear combinations with weights up to 4 on top of the
    /// squaring chain).
    pub usable_depth: u32,
}

impl FvBitSet {
    fn new(params: FvParameters, measured: u32) -> Self {
        Self {
            params,
            measured_depth: measured,
            usable_depth: measured.saturating_sub(1),
        }
    }

    /// Name of the FV parameter set (`128-8192`, ...).
    pub fn name(&self) -> &str {
        &self.params.name
    }

    /// Number of slots (integers per word).
    pub fn slots(&self) -> usize {
        self.params.n
    }

    /// A set by name (`128-8192`, `128-16384`, `128-32768`).
    pub fn by_name(name: &str) -> Result<Self> {
        sets()
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                FvBitsError::InvalidInput(format!(
                    "unknown bit-sliced set {name} (128-8192, 128-16384, 128-32768)"
                ))
            })
    }
}

/// The 128-bit sets, smallest first. Depths measured with
/// `encint fv depth --set S --variant hps --trials 2` (HPS): 5, 12, 26. `n = 2^16` is not
/// offered: `t = 65537` has no batching there, and no operation of the paper's benchmarks
/// needs more than the depth of `n = 2^15` except division beyond 4 bits (see docs/FV.md).
pub fn sets() -> Vec<FvBitSet> {
    vec![
        FvBitSet::new(FvParameters::default_8192(), 5),
        FvBitSet::new(FvParameters::default_16384(), 12),
        FvBitSet::new(FvParameters::default_32768(), 26),
    ]
}

/// The smallest set whose usable depth covers `depth`, or
/// [`FvBitsError::DepthTooLarge`].
pub fn choose_set(depth: u32) -> Result<FvBitSet> {
    let all = sets();
    if let Some(s) = all.iter().find(|s| s.usable_depth >= depth) {
        return Ok(s.clone());
    }
    let largest = all.last().expect("at least one set");
    Err(FvBitsError::DepthTooLarge {
        needed: depth,
        largest: largest.usable_depth,
        set: largest.name().to_string(),
    })
}

/// Depth-aware adder choice for a `w`-bit addition planned before keys exist: the
/// adder whose depth needs the smaller parameter set; on a tie, the one with fewer
/// products (ripple carry). Returns the adder and its set.
///
/// Eager operations on existing keys ([`FvBitsServerKey::add`](super::FvBitsServerKey::add),
/// `sub`, `mul`) always use the prefix adder: depth is what a chain of eager operations runs
/// out of.
pub fn plan_adder(w: usize) -> Result<(Adder, FvBitSet)> {
    let plan = |a: Adder| -> Result<(u32, u64)> {
        let mut b = BitBuilder::new();
        let (x, y) = (Word::input(&mut b, w), Word::input(&mut b, w));
        let s = a.add(&mut b, &x, &y, None);
        let p = FvProgram::compile(&b.finish(s.bits))?;
        Ok((p.depth(), p.products()))
    };
    let (dr, pr) = plan(Adder::Ripple)?;
    let (ds, ps) = plan(Adder::Sklansky)?;
    let sets = sets();
    let idx = |d: u32| sets.iter().position(|s| s.usable_depth >= d);
    let choice = match (idx(dr), idx(ds)) {
        (Some(r), Some(s)) if r < s || (r == s && pr <= ps) => Adder::Ripple,
        (None, None) => {
            return choose_set(ds).map(|s| (Adder::Sklansky, s));
        }
        (Some(_), None) => Adder::Ripple,
        _ => Adder::Sklansky,
    };
    let d = if choice == Adder::Ripple { dr } else { ds };
    Ok((choice, choose_set(d)?))
}
