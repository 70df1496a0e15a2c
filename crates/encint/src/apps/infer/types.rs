//! The integer types of an inference circuit: the smallest that hold every value of the
//! model exactly, computed from its weights, biases and input range.

use crate::typed::IntType;
use crate::{Error, Result};

use super::layer::Layer;
use super::model::Model;

/// The types an inference circuit uses, from the model's bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Types {
    /// The type of an input pixel (unsigned, `0..=input_max`).
    pub input: IntType,
    /// Per layer: the type of its accumulators `x·W + b` (signed), wide enough for the
    /// largest and smallest value any input in range gives.
    pub accumulators: Vec<IntType>,
    /// Per hidden layer: the type of its activations (unsigned, `0..=max`).
    pub activations: Vec<IntType>,
    /// The type the weights are encrypted in (signed, from the largest weight).
    pub weight: IntType,
    /// The type the biases are encrypted in (signed, from the largest bias).
    pub bias: IntType,
}

/// The smallest unsigned type holding `0..=max`.
pub fn unsigned_for(max: i128) -> Result<IntType> {
    let bits = (128 - max.max(1).leading_zeros()) as usize;
    IntType::new(bits, false).map_err(Error::from)
}

/// The smallest signed type (at least 2 bits) holding `lo..=hi`.
pub fn signed_for(lo: i128, hi: i128) -> Result<IntType> {
    let mut bits = 2usize;
    while bits < 128 && !(-(1i128 << (bits - 1)) <= lo && hi < (1i128 << (bits - 1))) {
        bits += 1;
    }
    IntType::new(bits, true).map_err(Error::from)
}

/// The range `(lo, hi)` of a layer's accumulators over inputs in `0..=input_max` (each
/// column of its weight matrix over every row of inputs in range).
pub fn accumulator_range(layer: &Layer, input_max: i64) -> (i128, i128) {
    column_ranges(layer, input_max)
        .into_iter()
        .fold((i128::MAX, i128::MIN), |(lo, hi), (l, h)| {
            (lo.min(l), hi.max(h))
        })
}

/// Per column of a layer's weight matrix (per output, or per output channel of a
/// convolution): the range `(lo, hi)` of its accumulator over inputs in `0..=input_max`.
pub fn column_ranges(layer: &Layer, input_max: i64) -> Vec<(i128, i128)> {
    let [rows, cols] = layer.matrix_shape();
    (0..cols)
        .map(|j| {
            let (mut l, mut h) = (i128::from(layer.bias[j]), i128::from(layer.bias[j]));
            for i in 0..rows {
                let w = i128::from(layer.weights[i * cols + j]) * i128::from(input_max);
                if w > 0 {
                    h += w;
                } else {
                    l += w;
                }
            }
            (l, h)
        })
        .collect()
}

impl Types {
    /// The types of `model`'s circuit.
    pub fn of(model: &Model) -> Result<Types> {
        let input = unsigned_for(model.input_max.into())?;
        let mut accumulators = Vec::new();
        let mut activations = Vec::new();
        let mut input_max = model.input_max;
        for layer in &model.layers {
            let (lo, hi) = accumulator_range(layer, input_max);
            accumulators.push(signed_for(lo, hi)?);
            if let Some(a) = layer.activation {
                activations.push(unsigned_for(a.max.into())?);
                input_max = a.max;
            }
        }
        let largest = |v: &mut dyn Iterator<Item = &i64>| {
            v.map(|&w| i128::from(w))
                .fold((0, 0), |(l, h), w| (w.min(l), w.max(h)))
        };
        let (wl, wh) = largest(&mut model.layers.iter().flat_map(|l| &l.weights));
        let (bl, bh) = largest(&mut model.layers.iter().flat_map(|l| &l.bias));
        Ok(Types {
            input,
            accumulators,
            activations,
            weight: signed_for(wl, wh)?,
            bias: signed_for(bl, bh)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_the_smallest_that_hold_the_range() {
        assert_eq!(unsigned_for(3).unwrap(), IntType::new(2, false).unwrap());
        assert_eq!(unsigned_for(4).unwrap(), IntType::new(3, false).unwrap());
        assert_eq!(unsigned_for(1).unwrap(), IntType::new(1, false).unwrap());
        assert_eq!(signed_for(-8, 7).unwrap(), IntType::new(4, true).unwrap());
        assert_eq!(signed_for(-9, 7).unwrap(), IntType::new(5, true).unwrap());
        assert_eq!(signed_for(-8, 8).unwrap(), IntType::new(5, true).unwrap());
        assert_eq!(signed_for(0, 0).unwrap(), IntType::new(2, true).unwrap());
    }
}
