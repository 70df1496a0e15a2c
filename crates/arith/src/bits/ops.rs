//! Named whole circuits of the boolean layer (kernels: sums, products, dot products,
//! convolutions, division), as the CLI's `bits cost` and `bits bench` rows and the
//! facade's eager bit-vector operations use them. Single operations of the library are
//! [`crate::Op`]s; a kernel is a fixed circuit shape with its own operand layout.

use encint_core::bits::{BitBuilder, BitCircuit, QWEIGHT_BUDGET};
use encint_core::circuit::{Builder, Circuit, NodeId};
use encint_core::CoreError;

use super::{add, div_rem_unsigned, dot, mul, mul_full, sub, sum_columns, Word};

/// A named boolean-layer circuit on `bits`-bit unsigned operands (a benchmark kernel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitKernel {
    /// `x + y mod 2^bits`.
    Add,
    /// `x - y mod 2^bits`.
    Sub,
    /// `x · y mod 2^bits`.
    Mul,
    /// `x · y`, `2·bits` bits.
    MulFull,
    /// `Σ x_i · y_i mod 2^bits` over `n` pairs.
    Dot,
    /// One output of a 2-D convolution, Version 1 (Trifan et al.): the dot product of an
    /// `n × n` kernel with its window (`n²` pairs).
    ConvV1,
    /// One kernel position of a 2-D convolution, Version 2 (Trifan et al.): an `n × n` feature
    /// map, each output `acc_ij + x_ij · k` (inputs: `n²` accumulators, `n²` map values,
    /// one kernel value).
    ConvV2,
    /// `x / y` unsigned (`x / 0` = all ones).
    Div,
    /// `x % y` unsigned (`x % 0 = x`).
    Rem,
}

impl BitKernel {
    /// Every operation, in report order.
    pub const ALL: [BitKernel; 9] = [
        BitKernel::Add,
        BitKernel::Sub,
        BitKernel::Mul,
        BitKernel::MulFull,
        BitKernel::Dot,
        BitKernel::ConvV1,
        BitKernel::ConvV2,
        BitKernel::Div,
        BitKernel::Rem,
    ];

    /// The operation's name (`add`, `sub`, `mul`, `mul_full`, `dot`, `conv_v1`,
    /// `conv_v2`, `div`, `rem`).
    pub fn name(self) -> &'static str {
        match self {
            BitKernel::Add => "add",
            BitKernel::Sub => "sub",
            BitKernel::Mul => "mul",
            BitKernel::MulFull => "mul_full",
            BitKernel::Dot => "dot",
            BitKernel::ConvV1 => "conv_v1",
            BitKernel::ConvV2 => "conv_v2",
            BitKernel::Div => "div",
            BitKernel::Rem => "rem",
        }
    }

    /// The operation of a name.
    pub fn parse(name: &str) -> Result<BitKernel, CoreError> {
        BitKernel::ALL
            .into_iter()
            .find(|op| op.name() == name)
            .ok_or_else(|| CoreError::InvalidArgument(format!("unknown bit operation `{name}`")))
    }

    /// Number of `bits`-bit input words for size `n` (see each variant).
    pub fn input_words(self, n: usize) -> usize {
        match self {
            BitKernel::Dot => 2 * n,
            BitKernel::ConvV1 => 2 * n * n,
            BitKernel::ConvV2 => 2 * n * n + 1,
            _ => 2,
        }
    }

    /// The circuit on `bits`-bit words (1..=128), inputs word after word, least
    /// significant bit first; `n` sizes `dot`, `conv_v1`, `conv_v2` (ignored otherwise).
    pub fn circuit(self, bits: usize, n: usize) -> Result<BitCircuit, CoreError> {
        if !(1..=128).contains(&bits) {
            return Err(CoreError::InvalidArgument(format!(
                "width {bits} outside 1..=128"
            )));
        }
        if matches!(self, BitKernel::Dot | BitKernel::ConvV1 | BitKernel::ConvV2) && n == 0 {
            return Err(CoreError::InvalidArgument(
                "size n must be at least 1".into(),
            ));
        }
        let mut b = BitBuilder::new();
        let words: Vec<Word> = (0..self.input_words(n))
            .map(|_| Word::input(&mut b, bits))
            .collect();
        let out = match self {
            BitKernel::Add => add(&mut b, &words[0], &words[1]),
            BitKernel::Sub => sub(&mut b, &words[0], &words[1]),
            BitKernel::Mul => mul(&mut b, &words[0], &words[1]),
            BitKernel::MulFull => mul_full(&mut b, &words[0], &words[1]),
            BitKernel::Dot | BitKernel::ConvV1 => {
                let half = words.len() / 2;
                dot(&mut b, &words[..half], &words[half..], bits)
            }
            BitKernel::ConvV2 => {
                let m = n * n;
                let k = &words[2 * m];
                let mut bits_out = Vec::new();
                for i in 0..m {
                    // acc + x · k: the accumulator's bits join the partial products' columns.
                    let mut cols: Vec<Vec<_>> = words[i].bits.iter().map(|&v| vec![v]).collect();
                    for (p, &xp) in words[m + i].bits.iter().enumerate() {
                        for (q, &kq) in k.bits.iter().enumerate() {
                            if p + q < bits {
                                let pp = b.and(xp, kq);
                                cols[p + q].push(pp);
                            }
                        }
                    }
                    bits_out.extend(sum_columns(&mut b, cols, bits).bits);
                }
                Word { bits: bits_out }
            }
            BitKernel::Div => div_rem_unsigned(&mut b, &words[0], &words[1]).0,
            BitKernel::Rem => div_rem_unsigned(&mut b, &words[0], &words[1]).1,
        };
        Ok(b.finish(out.bits))
    }

    /// The TFHE digit circuit of the operation (same inputs and outputs as
    /// [`BitKernel::circuit`], one digit per bit): the boolean circuit lowered, or for the
    /// products (`mul`, `mul_full`, `dot`, `conv_v1`, `conv_v2`) the radix-4 block
    /// circuit of [`crate::blocks`] when it has fewer bootstraps.
    pub fn digit_circuit(self, bits: usize, n: usize) -> Result<Circuit, CoreError> {
        let lowered = encint_core::bits::lower(&self.circuit(bits, n)?)?;
        let Some(blocks) = self.block_circuit(bits, n) else {
            return Ok(lowered);
        };
        Ok(if blocks.cost().bootstraps < lowered.cost().bootstraps {
            blocks
        } else {
            lowered
        })
    }

    /// The radix-4 block circuit of a product operation (`None` for the others); its
    /// arguments are checked by [`BitKernel::circuit`] first.
    fn block_circuit(self, bits: usize, n: usize) -> Option<Circuit> {
        use crate::blocks::sum_products;
        let mut b = Builder::new();
        let words: Vec<Vec<NodeId>> = (0..self.input_words(n))
            .map(|_| (0..bits).map(|_| b.input()).collect())
            .collect();
        let out = match self {
            BitKernel::Mul | BitKernel::MulFull => {
                let width = if self == BitKernel::Mul {
                    bits
                } else {
                    2 * bits
                };
                sum_products(
                    &mut b,
                    &[(&words[0], &words[1])],
                    &[],
                    width,
                    QWEIGHT_BUDGET,
                )
            }
            BitKernel::Dot | BitKernel::ConvV1 => {
                let half = words.len() / 2;
                let pairs: Vec<(&[NodeId], &[NodeId])> = words[..half]
                    .iter()
                    .zip(&words[half..])
                    .map(|(x, y)| (x.as_slice(), y.as_slice()))
                    .collect();
                sum_products(&mut b, &pairs, &[], bits, QWEIGHT_BUDGET)
            }
            BitKernel::ConvV2 => {
                let m = n * n;
                let k = &words[2 * m];
                (0..m)
                    .flat_map(|i| {
                        sum_products(
                            &mut b,
                            &[(&words[m + i], k)],
                            &[&words[i]],
                            bits,
                            QWEIGHT_BUDGET,
                        )
                    })
                    .collect()
            }
            _ => return None,
        };
        Some(b.finish(out))
    }
}
