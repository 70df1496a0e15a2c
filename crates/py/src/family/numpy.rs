//! NumPy's integer semantics on top of the facade's (TFHE-rs') operations, each as one
//! circuit: `//` floors and `%` takes the divisor's sign (Rust truncates and takes the
//! dividend's), a division by an encrypted zero gives 0 for both (TFHE-rs: all ones and
//! the dividend), and the reflected operations of a clear left operand (`3 - x`,
//! `100 // x`). [`fused`] runs such a composition as one circuit: traced by the facade's
//! `compile_with` and run on ciphertexts, or recorded directly into the trace of
//! `encint.compile`.

use std::sync::{Arc, Mutex, PoisonError};

use encint::fhe::{compile_with, FheType, FheValue, Repr, Values};
use encint::typed::{IntType, Op};
use encint::{Error, Result};

use super::operand::{Rhs, K};

/// Values of the family, any number of any types: the arguments and results of a
/// [`fused`] circuit.
#[derive(Clone, Debug)]
pub struct Many(pub Vec<FheValue>);

impl Values for Many {
    type Layout = Vec<IntType>;
    fn layout(&self) -> Vec<IntType> {
        self.0.iter().map(FheValue::ty).collect()
    }
    fn leaf_count(layout: &Vec<IntType>) -> Option<usize> {
        Some(layout.len())
    }
    fn leaf_types(layout: &Vec<IntType>) -> Vec<IntType> {
        layout.clone()
    }
    fn leaves(&self) -> Vec<&Repr> {
        self.0.iter().map(FheType::repr).collect()
    }
    fn from_leaves(layout: &Vec<IntType>, leaves: &mut dyn Iterator<Item = Repr>) -> Result<Self> {
        layout
            .iter()
            .map(|_| {
                let r = leaves.next().ok_or_else(|| {
                    Error::InvalidInput("fewer values than the layout needs".into())
                })?;
                FheValue::from_repr(r)
            })
            .collect::<Result<Vec<_>>>()
            .map(Many)
    }
}

/// Whether `v` is a node of a trace (inside `encint.compile`), not ciphertexts.
pub fn is_traced(v: &FheValue) -> bool {
    v.as_typed().is_none()
}

/// `f(args)` as one circuit: recorded into the arguments' trace when they are traced,
/// else traced now by the facade's `compile_with` and run once on this thread's server.
pub fn fused(
    args: Vec<FheValue>,
    f: impl Fn(&[FheValue]) -> Result<Vec<FheValue>> + Send + Sync + 'static,
) -> Result<Vec<FheValue>> {
    if args.iter().any(is_traced) {
        return f(&args);
    }
    // `compile_with` takes a function that cannot fail: its error waits here, the
    // function returns no value, and the error is returned after tracing.
    let failed: Arc<Mutex<Option<Error>>> = Arc::new(Mutex::new(None));
    let slot = failed.clone();
    let layout = Many(args.clone()).layout();
    let compiled = compile_with(layout, move |a: Many| match f(&a.0) {
        Ok(v) => Some(Many(v)),
        Err(e) => {
            *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
            None
        }
    });
    let take = |failed: &Mutex<Option<Error>>| {
        failed.lock().unwrap_or_else(PoisonError::into_inner).take()
    };
    let compiled = match compiled {
        Ok(c) => c,
        Err(e) => return Err(take(&failed).unwrap_or(e)),
    };
    if let Some(e) = take(&failed) {
        return Err(e);
    }
    let out = compiled.run(&Many(args));
    if let Some(e) = take(&failed) {
        return Err(e);
    }
    out?.map(|m| m.0)
        .ok_or_else(|| Error::InvalidInput("the composition returned no value".into()))
}

/// [`fused`] of a function with one result.
pub fn fused1(
    args: Vec<FheValue>,
    f: impl Fn(&[FheValue]) -> Result<FheValue> + Send + Sync + 'static,
) -> Result<FheValue> {
    let mut out = fused(args, move |a| Ok(vec![f(a)?]))?;
    out.pop()
        .ok_or_else(|| Error::InvalidInput("the composition returned no value".into()))
}

/// The other operand of [`elementwise`].
#[derive(Clone, Debug)]
pub enum Each {
    /// One clear value for every element.
    Clear(i128),
    /// One value of the family for every element.
    Value(FheValue),
    /// A value of the family per element.
    Values(Vec<FheValue>),
    /// A clear value per element (a NumPy array's).
    Clears(Vec<i128>),
}

/// Where [`elementwise`]'s circuit finds the other operand of element `i`.
enum Pick {
    Clear(i128),
    Clears(Vec<i128>),
    /// The argument after the left operands.
    One,
    /// The argument `i` after the left operands.
    Each,
}

/// `x op y`, or `y op x` with `swap`, for each of `n` elements as one circuit ([`fused`]):
/// `xs` holds `n` values, or one for every element (a value with a NumPy array). A clear
/// zero divisor among [`Each::Clears`] gives 0 for `//` and `%` there, as NumPy does.
pub fn elementwise(
    xs: Vec<FheValue>,
    n: usize,
    op: Op,
    other: Each,
    swap: bool,
) -> Result<Vec<FheValue>> {
    let m = xs.len();
    let count = |found: usize| {
        if found == n {
            Ok(())
        } else {
            Err(Error::InvalidInput(format!(
                "{found} operands for {n} elements"
            )))
        }
    };
    if m != 1 {
        count(m)?;
    }
    let mut args = xs;
    let pick = match other {
        Each::Clear(k) => Pick::Clear(k),
        Each::Clears(ks) => {
            count(ks.len())?;
            Pick::Clears(ks)
        }
        Each::Value(v) => {
            args.push(v);
            Pick::One
        }
        Each::Values(vs) => {
            count(vs.len())?;
            args.extend(vs);
            Pick::Each
        }
    };
    let division = matches!(op, Op::FloorDiv | Op::Mod) && !swap;
    fused(args, move |v| {
        (0..n)
            .map(|i| {
                let x = &v[if m == 1 { 0 } else { i }];
                let y = match &pick {
                    Pick::Clear(k) => Rhs::Clear(*k),
                    // NumPy's x // 0 and x % 0: 0 (a product by 0 is linear, no bootstrap).
                    Pick::Clears(ks) if division && ks[i] == 0 => return x.binary(Op::Mul, K(0)),
                    Pick::Clears(ks) => Rhs::Clear(ks[i]),
                    Pick::One => Rhs::Value(v[m].clone()),
                    Pick::Each => Rhs::Value(v[m + i].clone()),
                };
                apply(x, op, y, swap)
            })
            .collect()
    })
}

/// `x op rhs`, or `rhs op x` with `swap` (then `rhs` is clear).
pub fn apply(x: &FheValue, op: Op, rhs: Rhs, swap: bool) -> Result<FheValue> {
    match (swap, rhs) {
        (true, Rhs::Clear(k)) if op.commutes() => apply(x, op, Rhs::Clear(k), false),
        (true, Rhs::Clear(k)) if op == Op::Sub => fused1(vec![x.clone()], move |v| {
            v[0].unary(Op::Neg)?.binary(Op::Add, K(k))
        }),
        (true, Rhs::Clear(k)) => fused1(vec![x.clone()], move |v| {
            // The constant as a value of the circuit (no bootstrap: a product by 0 and a
            // sum with a constant are linear).
            let c = v[0].binary(Op::Mul, K(0))?.binary(Op::Add, K(k))?;
            apply(&c, op, Rhs::Value(v[0].clone()), false)
        }),
        (true, Rhs::Value(y)) => apply(&y, op, Rhs::Value(x.clone()), false),
        (false, rhs) => match op {
            Op::FloorDiv | Op::Mod => divide(x, rhs, op == Op::FloorDiv),
            op => x.binary(op, rhs),
        },
    }
}

/// NumPy's `x // d` (`floor`) or `x % d` for a non-zero clear `d` or an encrypted `d`.
fn divide(x: &FheValue, d: Rhs, floor: bool) -> Result<FheValue> {
    let ty = x.ty();
    match d {
        Rhs::Clear(0) => Err(Error::InvalidInput("division by a clear zero".into())),
        Rhs::Clear(k) if !ty.signed => x.binary(if floor { Op::Div } else { Op::Rem }, K(k)),
        Rhs::Clear(k) => fused1(vec![x.clone()], move |v| clear_signed(&v[0], k, floor)),
        Rhs::Value(d) => fused1(vec![x.clone(), d], move |v| encrypted(&v[0], &v[1], floor)),
    }
}

/// Signed `x // k` or `x % k` for a clear `k != 0`, flooring.
fn clear_signed(x: &FheValue, k: i128, floor: bool) -> Result<FheValue> {
    let ty = x.ty();
    let k = ty.wrap(k);
    let (q, r) = if floor {
        let q = x.binary(Op::Div, K(k))?;
        let qk = q.binary(Op::Mul, K(k))?;
        (Some(q), x.binary(Op::Sub, &qk)?)
    } else {
        (None, x.binary(Op::Rem, K(k))?)
    };
    // The truncated remainder has the dividend's sign; flooring corrects a non-zero one
    // of the other sign than the divisor's.
    let wrong = if k > 0 {
        r.binary(Op::LT, K(0))?
    } else {
        r.binary(Op::GT, K(0))?
    };
    match q {
        Some(q) => {
            let q1 = q.binary(Op::Sub, K(1))?;
            wrong.select(&q1, &q)
        }
        None => {
            let rk = r.binary(Op::Add, K(k))?;
            wrong.select(&rk, &r)
        }
    }
}

/// `x // d` or `x % d` for an encrypted `d` (0 where `d == 0`), flooring when signed.
fn encrypted(x: &FheValue, d: &FheValue, floor: bool) -> Result<FheValue> {
    let ty = x.ty();
    let zero = d.binary(Op::EQ, K(0))?;
    let result = if !ty.signed {
        x.binary(if floor { Op::Div } else { Op::Rem }, d)?
    } else {
        let (q, r) = if floor {
            let q = x.binary(Op::Div, d)?;
            let qd = q.binary(Op::Mul, d)?;
            (Some(q), x.binary(Op::Sub, &qd)?)
        } else {
            (None, x.binary(Op::Rem, d)?)
        };
        let nonzero = r.binary(Op::NE, K(0))?;
        let signs = r.binary(Op::Xor, d)?.binary(Op::LT, K(0))?;
        let wrong = nonzero.binary(Op::And, &signs)?;
        match q {
            Some(q) => {
                let q1 = q.binary(Op::Sub, K(1))?;
                wrong.select(&q1, &q)?
            }
            None => {
                let rd = r.binary(Op::Add, d)?;
                wrong.select(&rd, &r)?
            }
        }
    };
    zero.select(K(0), &result)
}

/// Checks that `ty` is the type an operation needs.
pub fn same_type(found: IntType, want: IntType) -> Result<()> {
    if found == want {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!(
            "a value of type {found} where {want} is expected"
        )))
    }
}
