//! Chains of linear operations inside a compiled function, reduced at once (see
//! [`Composer::with_chain_sums`]).

use std::sync::Arc;

use encint_arith::typed::{Form, IntType, Op};

use super::{same, Composer, Value, MAX_CHAIN_TERMS};
use crate::{Error, Result};

/// `Σ wᵢ·xᵢ + c` modulo `2^n`: what a chain of linear operations (additions,
/// subtractions, negations, products by clear values, shifts left by clear amounts) has
/// added up so far. Each value appears once; no weight is zero.
#[derive(Debug, Clone)]
pub(super) struct Linear {
    terms: Vec<(Value, i128)>,
    constant: i128,
}

impl Linear {
    /// `self + sign·other` for values of `ty`.
    fn plus(mut self, other: &Linear, sign: i128, ty: IntType) -> Linear {
        for (v, w) in &other.terms {
            let w = ty.wrap(w.wrapping_mul(sign));
            match self.terms.iter_mut().find(|(x, _)| same(x, v)) {
                Some((_, acc)) => *acc = ty.wrap(acc.wrapping_add(w)),
                None => self.terms.push((v.clone(), w)),
            }
        }
        self.terms.retain(|&(_, w)| w != 0);
        self.constant = ty.wrap(
            self.constant
                .wrapping_add(other.constant.wrapping_mul(sign)),
        );
        self
    }

    /// `k·self` for values of `ty`.
    fn scaled(mut self, k: i128, ty: IntType) -> Linear {
        for (_, w) in &mut self.terms {
            *w = ty.wrap(w.wrapping_mul(k));
        }
        self.terms.retain(|&(_, w)| w != 0);
        self.constant = ty.wrap(self.constant.wrapping_mul(k));
        self
    }
}

impl Composer<'_> {
    /// `op` on `args` as a step of a linear chain (see [`Composer::with_chain_sums`]):
    /// `None` when `op` is not linear (or its operands are booleans or of two types).
    pub(super) fn chain(&mut self, op: Op, args: &[&Value]) -> Result<Option<Value>> {
        let ty = args[0].ty;
        if ty == IntType::BOOL || args.iter().any(|v| v.ty != ty) {
            return Ok(None);
        }
        let lin = match (op, args) {
            (Op::Add, [a, b]) => self.linear(a).plus(&self.linear(b), 1, ty),
            (Op::Sub, [a, b]) => self.linear(a).plus(&self.linear(b), -1, ty),
            (Op::Neg, [a]) => self.linear(a).scaled(-1, ty),
            (Op::ScalarMul(k), [a]) => self.linear(a).scaled(k, ty),
            (Op::Shl(k), [a]) if (k as usize) < ty.bits => self.linear(a).scaled(1i128 << k, ty),
            _ => return Ok(None),
        };
        if lin.terms.len() > MAX_CHAIN_TERMS {
            self.chain_sums = false;
            let plain = self.apply(op, args);
            self.chain_sums = true;
            return plain.map(Some);
        }
        let mut out = match lin.terms.as_slice() {
            [] => self.constant(ty, lin.constant),
            [(x, 1)] if lin.constant == 0 => x.clone(),
            // A one-operand step (its result is cheap from its operand, and the operand
            // may be used elsewhere), or an addition or subtraction of values that carry
            // no chain: as it comes.
            _ if args.len() == 1
                || args
                    .iter()
                    .all(|v| v.terms.is_none() && v.factors.is_none()) =>
            {
                self.chain_sums = false;
                let plain = self.apply(op, args);
                self.chain_sums = true;
                plain?
            }
            terms
                if terms.iter().all(|&(_, w)| w == 1)
                    && terms.iter().any(|(v, _)| v.factors.is_some()) =>
            {
                self.sum_of_products(terms, lin.constant)?
            }
            terms if lin.constant == 0 && terms.iter().all(|&(_, w)| w == 1) => {
                let refs: Vec<&Value> = terms.iter().map(|(v, _)| v).collect();
                self.sum(&refs)?
            }
            terms => {
                let refs: Vec<&Value> = terms.iter().map(|(v, _)| v).collect();
                let ws: Vec<i128> = terms.iter().map(|&(_, w)| w).collect();
                self.dot_clear(&refs, &ws, lin.constant)?
            }
        };
        out.terms = Some(Arc::new(lin));
        Ok(Some(out))
    }

    /// `a·b` inside a chain where one factor is `k·x + c` (its chain recorded) and the
    /// other `x` itself: `k·x² + c·x`, the square (each cross product built once) and one
    /// reduction with clear weights, instead of the product of two values. `None` when
    /// the factors are not of that shape.
    pub(super) fn distribute(&mut self, a: &Value, b: &Value) -> Result<Option<Value>> {
        for (t, x) in [(a, b), (b, a)] {
            let Some(lin) = &t.terms else { continue };
            let [(y, k)] = lin.terms.as_slice() else {
                continue;
            };
            if !same(y, x) {
                continue;
            }
            let (k, c, ty) = (*k, lin.constant, x.ty);
            // The square itself, not `x · x`: `x` may carry a chain of its own (`y + 0` is
            // `y` with the chain `1·y`), and the product would come back here.
            let square = self.apply(Op::Square, &[x])?;
            let lin = Linear {
                terms: vec![(square, k), (x.without_terms(), c)],
                constant: 0,
            }
            .scaled(1, ty);
            let refs: Vec<&Value> = lin.terms.iter().map(|(v, _)| v).collect();
            let ws: Vec<i128> = lin.terms.iter().map(|&(_, w)| w).collect();
            let mut out = match lin.terms.as_slice() {
                [(v, 1)] => v.clone(),
                _ => self.dot_clear(&refs, &ws, 0)?,
            };
            out.terms = Some(Arc::new(lin));
            return Ok(Some(out));
        }
        Ok(None)
    }

    /// `Σ terms + c` (every weight 1) where some terms are products: one block reduction
    /// of the products and the other terms ([`encint_arith::typed::dot_plus`]).
    fn sum_of_products(&mut self, terms: &[(Value, i128)], c: i128) -> Result<Value> {
        let ty = terms[0].0.ty;
        let (mut xs, mut ys, mut zs) = (Vec::new(), Vec::new(), Vec::new());
        for (v, _) in terms {
            match &v.factors {
                Some(f) => {
                    xs.push((&f.0.digits, f.0.form));
                    ys.push((&f.1.digits, f.1.form));
                }
                None => zs.push((&v.digits, v.form)),
            }
        }
        let (digits, form) =
            encint_arith::typed::dot_plus(self.ar, self.b, ty, &xs, &ys, &zs, c)
                .ok_or_else(|| Error::ShapeMismatch("lists of different lengths".into()))?;
        Ok(Value::new(digits, ty, form))
    }

    /// `v` as a linear combination: the one its chain recorded, a known constant, or `v`
    /// itself.
    fn linear(&self, v: &Value) -> Linear {
        if let Some(t) = &v.terms {
            return (**t).clone();
        }
        match self.known_value(v) {
            Some(c) => Linear {
                terms: Vec::new(),
                constant: c,
            },
            None => Linear {
                terms: vec![(v.without_terms(), 1)],
                constant: 0,
            },
        }
    }

    /// `v`'s value modulo `2^n`, as the pattern of its type, when every digit is known.
    fn known_value(&self, v: &Value) -> Option<i128> {
        let base: i128 = match v.form {
            Form::Radix4 => 4,
            Form::Canonical | Form::Lazy => 2,
        };
        let mut acc: i128 = 0;
        let mut scale: i128 = 1;
        for &d in &v.digits.digits {
            let d = i128::from(self.b.const_value(d)?);
            acc = v.ty.wrap(acc.wrapping_add(d.wrapping_mul(scale)));
            scale = v.ty.wrap(scale.wrapping_mul(base));
        }
        Some(v.ty.wrap(acc))
    }
}
