//! The serialized form of a [`TreeKey`] (inside a checked envelope of kind
//! [`crate::Kind::ServerKey`]): a layout tag, the parameter set's id, the Fourier
//! coefficients of the precise bootstrapping key **in the standard order** and the packing
//! rows. The dimensions come from the parameter set and every length is checked before the
//! key is rebuilt; lengths read from the bytes only size plain vectors, which the envelope's
//! limit bounds (tfhe's own Fourier-key deserializer would allocate whatever the bytes
//! claim).
//!
//! # Why the standard order
//!
//! tfhe keeps Fourier coefficients in the order of the FFT plan it picked, and it picks the
//! plan by timing candidates once per process (`Method::Measure`). Two processes can pick
//! different plans, hence different orders: a key written in one process's order and read
//! by another would blind-rotate with permuted coefficients and decrypt to garbage, silently
//! and at random (this was the asm file-flow bug). So the coefficients are written in the
//! plan-independent standard order that tfhe's `serialize_fourier_buffer` defines, and put
//! back in the reading process's own order on load.

use std::fmt;
use std::sync::Arc;

use tfhe::core_crypto::prelude::*;

use super::keys::{TreeKey, TreeKeyInner};
use super::{PACKING_LEVEL, PRECISE_PBS_BASE_LOG, PRECISE_PBS_LEVEL};
use crate::envelope::{next_field, Validate};
use crate::params::DigitParameters;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use tfhe::core_crypto::fft_impl::fft64::c64;
use tfhe::core_crypto::fft_impl::fft64::math::fft::{Fft, FftView};

/// First field of every serialized tree key. Keys written before the layout was fixed start
/// with the parameter id instead, so they are refused rather than read in the wrong order.
const LAYOUT: &str = "tree-key/fourier-standard-order/1";

#[derive(Serialize)]
struct TreeKeyWireRef<'a> {
    layout: &'a str,
    params_id: &'a str,
    key_set: crate::KeySetId,
    fourier: &'a [c64],
    packing: &'a [u64],
}

/// A decoded tree key, before its lengths are checked.
struct TreeKeyWire {
    params_id: String,
    key_set: crate::KeySetId,
    fourier: Vec<c64>,
    packing: Vec<u64>,
}

/// Reads the fields in order and checks the layout tag before anything else, so that a key
/// of the old layout gets its own error rather than a decoding error further on.
struct WireVisitor;

impl<'de> serde::de::Visitor<'de> for WireVisitor {
    type Value = TreeKeyWire;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tree key")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<TreeKeyWire, A::Error> {
        use serde::de::Error;
        const KEY: &str = "tree key";
        let layout: String = next_field(&mut seq, KEY, "its layout tag")?;
        if layout != LAYOUT {
            return Err(A::Error::custom(
                "tree key in the layout of encint before its Fourier-order fix (such a key \
                 can decrypt wrongly in any other process than the one that made it): \
                 generate the keys again",
            ));
        }
        Ok(TreeKeyWire {
            params_id: next_field(&mut seq, KEY, "its parameter id")?,
            key_set: next_field(&mut seq, KEY, "its key set id")?,
            fourier: next_field(&mut seq, KEY, "its bootstrapping key")?,
            packing: next_field(&mut seq, KEY, "its packing key")?,
        })
    }
}

/// `positions[i]`: where coefficient `i` of the standard order sits in a plan's own layout,
/// for Fourier polynomials of `n` coefficients. `to_standard` reorders one polynomial from
/// the plan's layout to the standard order (the plan's `serialize_fourier_buffer`); it is
/// run once on the buffer `0, 1, …, n−1`, and its output must be a permutation of it.
pub(super) fn standard_positions(
    n: usize,
    to_standard: impl FnOnce(&[c64]) -> Result<Vec<c64>, String>,
) -> Result<Vec<usize>, String> {
    let index: Vec<c64> = (0..n).map(|k| c64::new(k as f64, 0.0)).collect();
    let reordered = to_standard(&index)?;
    let mut seen = vec![false; n];
    let mut positions = Vec::with_capacity(n);
    for v in &reordered {
        let k = v.re as usize;
        if v.im != 0.0 || v.re != k as f64 || k >= n || seen[k] {
            return Err("the FFT plan's Fourier order is not a permutation".into());
        }
        seen[k] = true;
        positions.push(k);
    }
    if positions.len() != n {
        return Err(format!(
            "the FFT plan reordered {} of {n} Fourier coefficients",
            positions.len()
        ));
    }
    Ok(positions)
}

/// Reorders one polynomial from the plan's layout to the standard order, through the plan's
/// own serializer (bincode in memory).
pub(super) fn plan_to_standard(
    serialize: impl Fn(
        &mut bincode::Serializer<&mut Vec<u8>, bincode::DefaultOptions>,
    ) -> Result<(), bincode::Error>,
) -> Result<Vec<c64>, String> {
    use bincode::Options;
    let mut bytes = Vec::new();
    let mut ser = bincode::Serializer::new(&mut bytes, bincode::DefaultOptions::new());
    serialize(&mut ser).map_err(|e| format!("cannot reorder a Fourier polynomial: {e}"))?;
    bincode::DefaultOptions::new()
        .deserialize(&bytes)
        .map_err(|e| format!("cannot reorder a Fourier polynomial: {e}"))
}

/// [`standard_positions`] for this process's tfhe plan of Fourier size `n`.
fn process_positions(fft: FftView<'_>, n: usize) -> Result<Vec<usize>, String> {
    standard_positions(n, |buf| {
        plan_to_standard(|ser| fft.serialize_fourier_buffer(ser, buf))
    })
}

impl Serialize for TreeKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let p = &self.inner.params;
        let fft = Fft::new(p.polynomial_size);
        let n = p.polynomial_size.to_fourier_polynomial_size().0;
        let positions = process_positions(fft.as_view(), n).map_err(S::Error::custom)?;
        let reorder = |data: &[c64]| -> Vec<c64> {
            data.chunks_exact(n)
                .flat_map(|poly| positions.iter().map(move |&k| poly[k]))
                .collect()
        };
        TreeKeyWireRef {
            layout: LAYOUT,
            params_id: p.name,
            key_set: self.inner.key_set,
            fourier: &reorder(self.inner.fourier_bsk.as_view().data()),
            packing: &self.inner.packing,
        }
        .serialize(serializer)
    }
}

fn rebuild(p: DigitParameters, w: TreeKeyWire) -> Result<TreeKey, String> {
    let glwe_size = p.glwe_dimension.to_glwe_size();
    let mut fourier_bsk = FourierLweBootstrapKey::new(
        p.lwe_dimension,
        glwe_size,
        p.polynomial_size,
        DecompositionBaseLog(PRECISE_PBS_BASE_LOG),
        DecompositionLevelCount(PRECISE_PBS_LEVEL),
    );
    let n = p.polynomial_size.to_fourier_polynomial_size().0;
    let positions = process_positions(Fft::new(p.polynomial_size).as_view(), n)?;
    let dst = fourier_bsk.as_mut_view().data();
    if dst.len() != w.fourier.len() {
        return Err(format!(
            "tree bootstrapping key has {} coefficients, expected {}",
            w.fourier.len(),
            dst.len()
        ));
    }
    for (out, poly) in dst.chunks_exact_mut(n).zip(w.fourier.chunks_exact(n)) {
        for (&k, &v) in positions.iter().zip(poly) {
            out[k] = v;
        }
    }
    let packing_len = p.big_lwe_dimension().0 * PACKING_LEVEL * glwe_size.0 * p.polynomial_size.0;
    if w.packing.len() != packing_len {
        return Err(format!(
            "tree packing key has {} coefficients, expected {packing_len}",
            w.packing.len()
        ));
    }
    Ok(TreeKey {
        inner: Arc::new(TreeKeyInner::new(p, w.key_set, fourier_bsk, w.packing)),
    })
}

impl<'de> Deserialize<'de> for TreeKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        const FIELDS: &[&str] = &["layout", "params_id", "key_set", "fourier", "packing"];
        let w = deserializer.deserialize_struct("TreeKeyWire", FIELDS, WireVisitor)?;
        let params = DigitParameters::from_id(&w.params_id)
            .ok_or_else(|| D::Error::custom(format!("unknown parameter set {}", w.params_id)))?;
        rebuild(params, w).map_err(D::Error::custom)
    }
}

impl Validate for TreeKey {
    fn validate(&self, params: &DigitParameters) -> Result<(), String> {
        if self.inner.params.name == params.name {
            Ok(())
        } else {
            Err(format!(
                "tree key for {}, expected {}",
                self.inner.params.name, params.name
            ))
        }
    }
}
