//! The executor of compiled programs on bit-sliced words (level by level, products of a
//! level in parallel) and the eager operations built on it.

use encint_arith::bits::{self as ops, leveled, leveled::Adder, Word};
use encint_core::bits::{BitBuilder, BitCircuit};
use encint_fv::bfv::Ciphertext;
use encint_fv::FvError;
use rayon::prelude::*;

use super::keys::{FvBitsServerKey, FvWord};
use super::program::{FvProgram, Node};
use super::sets::FvBitSet;
use super::{FvBitsError, Result};

/// Statistics of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunStats {
    /// Multiplicative depth of the circuit.
    pub depth: u32,
    /// Products (with relinearisation) performed.
    pub products: u64,
    /// Largest number of products in one level (the parallel width).
    pub widest_level: u64,
}

enum Val<'a> {
    In(&'a Ciphertext),
    Own(Ciphertext),
}

impl Val<'_> {
    fn get(&self) -> &Ciphertext {
        match self {
            Val::In(c) => c,
            Val::Own(c) => c,
        }
    }
}

impl FvBitsServerKey {
    /// The parameter set.
    pub fn set(&self) -> &FvBitSet {
        &self.set
    }

    /// The key set id.
    pub fn key_id(&self) -> u64 {
        self.key_id
    }

    fn check_inputs(&self, inputs: &[&FvWord]) -> Result<(usize, u32)> {
        let mut count = None;
        let mut level = 0;
        for x in inputs {
            if let Some(c) = x.bits.iter().find(|c| c.context_id() != self.ctx.id()) {
                return Err(FvError::ParameterMismatch(format!(
                    "ciphertext of parameter fingerprint {:#x}, keys of {}",
                    c.context_id(),
                    self.set.name()
                ))
                .into());
            }
            if x.key_id != self.key_id {
                return Err(FvBitsError::WrongKeySet {
                    expected: self.key_id,
                    found: x.key_id,
                });
            }
            match count {
                None => count = Some(x.count),
                Some(c) if c != x.count => {
                    return Err(FvBitsError::InvalidInput(format!(
                        "words hold {c} and {} integers",
                        x.count
                    )))
                }
                _ => {}
            }
            level = level.max(x.level);
        }
        let count = count.ok_or_else(|| FvBitsError::InvalidInput("no input word".into()))?;
        Ok((count, level))
    }

    /// Runs a circuit on words (their bits concatenated, in order) and returns its output
    /// bits as one unsigned word, with the run's statistics. Refuses, before any
    /// product, circuits deeper than the keys' set allows.
    pub fn run(&self, circuit: &BitCircuit, inputs: &[&FvWord]) -> Result<(FvWord, RunStats)> {
        let program = FvProgram::compile(circuit)?;
        self.run_program(&program, inputs)
    }

    /// [`Self::run`] for a compiled program.
    pub fn run_program(
        &self,
        program: &FvProgram,
        inputs: &[&FvWord],
    ) -> Result<(FvWord, RunStats)> {
        let (count, in_level) = self.check_inputs(inputs)?;
        let bits: Vec<&Ciphertext> = inputs.iter().flat_map(|x| x.bits.iter()).collect();
        if bits.len() != program.inputs {
            return Err(FvBitsError::InvalidInput(format!(
                "circuit expects {} input bits, got {}",
                program.inputs,
                bits.len()
            )));
        }
        if in_level + program.depth > self.set.usable_depth {
            return Err(FvBitsError::DepthExceedsKeys {
                needed: program.depth,
                input_level: in_level,
                available: self.set.usable_depth,
                set: self.set.name().to_string(),
            });
        }
        let nodes = &program.nodes;
        let mut uses = vec![0u32; nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            if !program.live[i] {
                continue;
            }
            match n {
                Node::Input(_) => {}
                Node::Mul(a, b) => {
                    uses[*a as usize] += 1;
                    uses[*b as usize] += 1;
                }
                Node::Lin(t, _) => t.iter().for_each(|&(x, _)| uses[x as usize] += 1),
            }
        }
        for &o in &program.outputs {
            uses[o as usize] += 1;
        }
        let mut vals: Vec<Option<Val>> = (0..nodes.len()).map(|_| None).collect();
        let mut by_level: Vec<(Vec<usize>, Vec<usize>)> =
            vec![(Vec::new(), Vec::new()); program.depth as usize + 1];
        for (i, n) in nodes.iter().enumerate() {
            if !program.live[i] {
                continue;
            }
            match n {
                Node::Input(k) => vals[i] = Some(Val::In(bits[*k])),
                Node::Mul(..) => by_level[program.level[i] as usize].0.push(i),
                Node::Lin(..) => by_level[program.level[i] as usize].1.push(i),
            }
        }
        let any_input = bits.first().copied();
        let mut stats = RunStats {
            depth: program.depth,
            products: program.products,
            widest_level: 0,
        };
        for (muls, lins) in &by_level {
            stats.widest_level = stats.widest_level.max(muls.len() as u64);
            let done: Vec<(usize, Ciphertext)> = muls
                .par_iter()
                .map(|&i| {
                    let Node::Mul(a, b) = &nodes[i] else {
                        unreachable!("muls holds products")
                    };
                    let (x, y) = (
                        vals[*a as usize].as_ref().expect("operand ready").get(),
                        vals[*b as usize].as_ref().expect("operand ready").get(),
                    );
                    Ok((i, self.ctx.mul_relin(x, y, &self.rlk)?))
                })
                .collect::<Result<_>>()?;
            for (i, c) in done {
                vals[i] = Some(Val::Own(c));
            }
            let done: Vec<(usize, Ciphertext)> = lins
                .par_iter()
                .map(|&i| {
                    let Node::Lin(terms, c) = &nodes[i] else {
                        unreachable!("lins holds linear combinations")
                    };
                    let ct = if terms.is_empty() {
                        let z = any_input.ok_or_else(|| {
                            FvBitsError::InvalidInput("a circuit without inputs".into())
                        })?;
                        self.ctx.linear_combination(&[(z, 0)], *c)?
                    } else {
                        let ts: Vec<(&Ciphertext, i64)> = terms
                            .iter()
                            .map(|&(x, w)| (vals[x as usize].as_ref().expect("ready").get(), w))
                            .collect();
                        self.ctx.linear_combination(&ts, *c)?
                    };
                    Ok((i, ct))
                })
                .collect::<Result<_>>()?;
            for (i, c) in done {
                vals[i] = Some(Val::Own(c));
            }
            // Free operands after their last use.
            for &i in muls.iter().chain(lins) {
                let ops: Vec<u32> = match &nodes[i] {
                    Node::Mul(a, b) => vec![*a, *b],
                    Node::Lin(t, _) => t.iter().map(|&(x, _)| x).collect(),
                    Node::Input(_) => Vec::new(),
                };
                for o in ops {
                    let u = &mut uses[o as usize];
                    *u -= 1;
                    if *u == 0 {
                        vals[o as usize] = None;
                    }
                }
            }
        }
        let mut out = Vec::with_capacity(program.outputs.len());
        for &o in &program.outputs {
            let u = &mut uses[o as usize];
            *u -= 1;
            let v = if *u == 0 {
                vals[o as usize].take().expect("output ready")
            } else {
                Val::In(vals[o as usize].as_ref().expect("output ready").get())
            };
            out.push(match v {
                Val::In(c) => c.clone(),
                Val::Own(c) => c,
            });
        }
        Ok((
            FvWord {
                bits: out,
                signed: false,
                count,
                level: in_level + program.depth,
                key_id: self.key_id,
            },
            stats,
        ))
    }

    /// Traced evaluation: `build` records any number of operations on words shaped like
    /// `inputs` (one circuit, one run) and returns result words with their signedness.
    pub fn eval(
        &self,
        inputs: &[&FvWord],
        build: impl FnOnce(&mut BitBuilder, &[Word]) -> Vec<(Word, bool)>,
    ) -> Result<(Vec<FvWord>, RunStats)> {
        let widths: Vec<usize> = inputs.iter().map(|x| x.width()).collect();
        let (circuit, shapes) = ops::trace_words(&widths, build);
        let (all, stats) = self.run(&circuit, inputs)?;
        let (count, level, key_id) = (all.count, all.level, all.key_id);
        let words = crate::bit_circuits::split_words(all.bits, shapes, |bits, signed| FvWord {
            bits,
            signed,
            count,
            level,
            key_id,
        });
        Ok((words, stats))
    }

    fn binary(
        &self,
        a: &FvWord,
        b: &FvWord,
        signed: Option<bool>,
        f: impl FnOnce(&mut BitBuilder, &Word, &Word) -> Word,
    ) -> Result<FvWord> {
        let differ =
            crate::bit_circuits::operands_differ((a.width(), a.signed), (b.width(), b.signed));
        if let Some(msg) = differ {
            return Err(FvBitsError::InvalidInput(msg));
        }
        let s = signed.unwrap_or(a.signed);
        let (mut out, _) = self.eval(&[a, b], |bb, w| vec![(f(bb, &w[0], &w[1]), s)])?;
        Ok(out.pop().expect("one result"))
    }

    /// `a + b` (wrapping).
    pub fn add(&self, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        self.binary(a, b, None, |bb, x, y| leveled::add_sklansky(bb, x, y, None))
    }
    /// `a - b` (wrapping).
    pub fn sub(&self, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        self.binary(a, b, None, |bb, x, y| {
            leveled::sub(bb, Adder::Sklansky, x, y)
        })
    }
    /// `a · b` (wrapping; the same bits for signed and unsigned).
    pub fn mul(&self, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        self.binary(a, b, None, |bb, x, y| {
            leveled::mul(bb, Adder::Sklansky, x, y)
        })
    }
    /// Unsigned `a / b` (`a / 0 = 2^w - 1`). Signed words are refused.
    pub fn div(&self, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        unsigned_only(a)?;
        self.binary(a, b, None, |bb, x, y| leveled::div_rem_unsigned(bb, x, y).0)
    }
    /// Unsigned `a mod b` (`a mod 0 = a`). Signed words are refused.
    pub fn rem(&self, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        unsigned_only(a)?;
        self.binary(a, b, None, |bb, x, y| leveled::div_rem_unsigned(bb, x, y).1)
    }
    /// `a < b` as a 1-bit unsigned word (signed comparison for signed words).
    pub fn lt(&self, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        let signed = a.signed;
        self.binary(a, b, Some(false), |bb, x, y| Word {
            bits: vec![if signed {
                leveled::lt_signed(bb, x, y)
            } else {
                leveled::lt_unsigned(bb, x, y)
            }],
        })
    }
    /// `a == b` as a 1-bit unsigned word.
    pub fn eq(&self, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        self.binary(a, b, Some(false), |bb, x, y| Word {
            bits: vec![leveled::eq(bb, x, y)],
        })
    }
    /// `sel ? a : b` slot by slot, for a 1-bit `sel` (one product per bit).
    pub fn select(&self, sel: &FvWord, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        if sel.width() != 1 || a.width() != b.width() {
            return Err(FvBitsError::InvalidInput(
                "select needs a 1-bit selector and operands of one width".into(),
            ));
        }
        let signed = a.signed;
        let (mut out, _) = self.eval(&[sel, a, b], |bb, w| {
            vec![(ops::select(bb, w[0].bits[0], &w[1], &w[2]), signed)]
        })?;
        Ok(out.pop().expect("one result"))
    }
}

fn unsigned_only(a: &FvWord) -> Result<()> {
    if a.signed {
        Err(FvBitsError::InvalidInput(
            "division of signed words is not implemented on FV (unsigned only)".into(),
        ))
    } else {
        Ok(())
    }
}
