//! Scalar multiplication by a clear integer (Parmesan, Algorithm 2): the
//! Koyama-Tsuruoka recoding of `|k|`, 12-digit sliding windows, one shortest
//! ASC* per distinct window value (shared), and a balanced sum of the windows.

use std::collections::HashMap;

use encint_core::chains::{chain_for, Chain};
use encint_core::circuit::Builder;
use encint_core::recode::{koyama_tsuruoka, sliding_windows};

use crate::{Arith, SInt};

/// Window width of the recoding (the committed chains cover odd values < 2^12).
pub const WINDOW: u32 = 12;

impl Arith {
    /// `k · x` for any `i64` scalar.
    pub fn scalar_mul(&self, b: &mut Builder, x: &SInt, k: i64) -> SInt {
        b.labelled("scalar_mul", |b| {
            if k == 0 || x.is_empty() {
                return SInt::default();
            }
            let digits = koyama_tsuruoka(u128::from(k.unsigned_abs()));
            let mut multiples: HashMap<u64, SInt> = HashMap::new();
            let mut terms = Vec::new();
            for w in sliding_windows(&digits, WINDOW) {
                let m = w.value.unsigned_abs();
                let v = match multiples.get(&m) {
                    Some(v) => v.clone(),
                    None => {
                        let v = self.chain_multiple(b, x, m);
                        multiples.insert(m, v.clone());
                        v
                    }
                };
                let t = v.shl(b, w.shift as usize);
                terms.push(if w.value < 0 { t.neg(b) } else { t });
            }
            let r = self.sum(b, terms);
            if k < 0 {
                r.neg(b)
            } else {
                r
            }
        })
    }

    /// `m · x` for odd `m < 2^12` by its shortest ASC*: each step is one parallel
    /// addition of shifted (and possibly negated) earlier multiples; the known-zero
    /// low digits of an even combination are dropped (free halving).
    fn chain_multiple(&self, b: &mut Builder, x: &SInt, m: u64) -> SInt {
        if m == 1 {
            return x.clone();
        }
        let chain: &Chain = chain_for(m).expect("every odd window value below 2^12 has a chain");
        let mut elements: Vec<(i128, SInt)> = vec![(1, x.clone())];
        for step in &chain.steps {
            let (va, ea) = (elements[step.a].0, elements[step.a].1.clone());
            let (vb, eb) = (elements[step.b].0, elements[step.b].1.clone());
            let (r, nu) = Chain::step_value(va, vb, step).expect("committed chains evaluate");
            let mut ta = ea.shl(b, step.a_shift as usize);
            if step.a_negative {
                ta = ta.neg(b);
            }
            let mut tb = eb.shl(b, step.b_shift as usize);
            if step.b_negative {
                tb = tb.neg(b);
            }
            let mut s = self.add(b, &ta, &tb);
            if r < 0 {
                s = s.neg(b);
            }
            // r·X is a multiple of 2^nu for every X, so its nu low digits are 0.
            let nu = (nu as usize).min(s.len());
            s.digits.drain(..nu);
            elements.push((r.abs() >> nu, s));
        }
        let target = i128::from(m);
        elements
            .into_iter()
            .find(|e| e.0 == target)
            .map(|e| e.1)
            .expect("a chain contains its target")
    }
}
