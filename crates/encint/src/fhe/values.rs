//! [`Values`]: what a compiled function or an array call takes and returns (values of the
//! family, arrays of them, tuples of those), flattened to the leaf values a circuit sees.

use std::sync::Arc;

use encint_arith::typed::{Form, IntType};
use encint_core::circuit::{Circuit, Cost};

use super::repr::{self, run_circuit, Repr, RunDigits, Shape};
use super::{FheArray, FheBool, FheInteger, FheType, FheValue};
use crate::trace::{Target, Trace};
use crate::typed::EncTyped;
use crate::{Error, Result, Server};

/// Arguments and results of compiled functions and array calls: values of the family,
/// [`FheArray`]s of them, and tuples of up to four of those.
pub trait Values: Sized + Clone {
    /// What fixes the leaves besides the type: `()` for one value, the shape of an array.
    type Layout: Clone + PartialEq + std::fmt::Debug + Send + Sync;
    /// This value's layout.
    fn layout(&self) -> Self::Layout;
    /// The number of leaf values of a layout; `None` when it passes `usize` (a shape
    /// whose product overflows). Checked against the circuit limits before [`Values::leaf_types`]
    /// allocates one entry per leaf.
    fn leaf_count(layout: &Self::Layout) -> Option<usize>;
    /// The leaf values' types for a layout, in order.
    fn leaf_types(layout: &Self::Layout) -> Vec<IntType>;
    /// The leaf values, in order.
    fn leaves(&self) -> Vec<&Repr>;
    /// Rebuilds a value of `layout` from its leaves.
    fn from_leaves(layout: &Self::Layout, leaves: &mut dyn Iterator<Item = Repr>) -> Result<Self>;
}

/// Most leaf values a compiled function or an array call takes: each is at least one
/// input node of its circuit, whose nodes are at most [`crate::DEFAULT_MAX_NODES`].
pub const MAX_LEAVES: usize = crate::DEFAULT_MAX_NODES as usize;

/// The number of elements of an array of `shape`, or `None` when the product passes
/// `usize`.
pub fn shape_len(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

/// The leaf count of `layout`, checked before anything of that size is allocated: errors
/// ([`Error::LimitExceeded`]) past [`MAX_LEAVES`] or when the count overflows.
pub fn checked_leaves<A: Values>(layout: &A::Layout) -> Result<usize> {
    match A::leaf_count(layout) {
        Some(n) if n <= MAX_LEAVES => Ok(n),
        Some(n) => Err(Error::LimitExceeded(format!(
            "arguments of {n} values, more than the {MAX_LEAVES} one circuit takes"
        ))),
        None => Err(Error::LimitExceeded(format!(
            "arguments of layout {layout:?}: more values than a machine can count"
        ))),
    }
}

fn missing() -> Error {
    Error::ShapeMismatch("fewer values than the layout needs".into())
}

macro_rules! scalar_values {
    ([$($g:tt)*] $ty:ty) => {
        impl<$($g)*> Values for $ty {
            type Layout = ();
            fn layout(&self) {}
            fn leaf_count(_: &()) -> Option<usize> {
                Some(<$ty as FheType>::static_type().into_iter().count())
            }
            fn leaf_types(_: &()) -> Vec<IntType> {
                <$ty as FheType>::static_type().into_iter().collect()
            }
            fn leaves(&self) -> Vec<&Repr> {
                vec![self.repr()]
            }
            fn from_leaves(_: &(), leaves: &mut dyn Iterator<Item = Repr>) -> Result<Self> {
                <$ty as FheType>::from_repr(leaves.next().ok_or_else(missing)?)
            }
        }
    };
}
scalar_values!([const N: usize, const S: bool] FheInteger<N, S>);
scalar_values!([] FheBool);

impl Values for FheValue {
    type Layout = IntType;
    fn layout(&self) -> IntType {
        self.ty()
    }
    fn leaf_count(_: &IntType) -> Option<usize> {
        Some(1)
    }
    fn leaf_types(layout: &IntType) -> Vec<IntType> {
        vec![*layout]
    }
    fn leaves(&self) -> Vec<&Repr> {
        vec![self.repr()]
    }
    fn from_leaves(_: &IntType, leaves: &mut dyn Iterator<Item = Repr>) -> Result<Self> {
        FheValue::from_repr(leaves.next().ok_or_else(missing)?)
    }
}

/// The elements of an array of `shape`, each of the types `types`.
fn array_from_leaves<T: FheType>(
    shape: &[usize],
    leaves: &mut dyn Iterator<Item = Repr>,
) -> Result<FheArray<T>> {
    let n = shape_len(shape).ok_or_else(missing)?;
    let items = (0..n)
        .map(|_| T::from_repr(leaves.next().ok_or_else(missing)?))
        .collect::<Result<Vec<T>>>()?;
    FheArray::new(items, shape.to_vec())
}

/// Arrays of a type the Rust type fixes: the layout is the shape.
macro_rules! static_array_values {
    ([$($g:tt)*] $ty:ty) => {
        impl<$($g)*> Values for FheArray<$ty> {
            type Layout = Vec<usize>;
            fn layout(&self) -> Vec<usize> {
                self.shape().to_vec()
            }
            fn leaf_count(layout: &Vec<usize>) -> Option<usize> {
                let per = <$ty as FheType>::static_type().into_iter().count();
                shape_len(layout)?.checked_mul(per)
            }
            fn leaf_types(layout: &Vec<usize>) -> Vec<IntType> {
                let ty = <$ty as FheType>::static_type().into_iter();
                ty.cycle().take(shape_len(layout).unwrap_or(0)).collect()
            }
            fn leaves(&self) -> Vec<&Repr> {
                self.items().iter().map(FheType::repr).collect()
            }
            fn from_leaves(
                layout: &Vec<usize>,
                leaves: &mut dyn Iterator<Item = Repr>,
            ) -> Result<Self> {
                array_from_leaves(layout, leaves)
            }
        }
    };
}
static_array_values!([const N: usize, const S: bool] FheInteger<N, S>);
static_array_values!([] FheBool);

/// Arrays of a type chosen at run time: the layout is the shape and the element type.
impl Values for FheArray<FheValue> {
    type Layout = (Vec<usize>, IntType);
    fn layout(&self) -> Self::Layout {
        let ty = self.items().first().map_or(IntType::BOOL, FheValue::ty);
        (self.shape().to_vec(), ty)
    }
    fn leaf_count(layout: &Self::Layout) -> Option<usize> {
        shape_len(&layout.0)
    }
    fn leaf_types(layout: &Self::Layout) -> Vec<IntType> {
        vec![layout.1; shape_len(&layout.0).unwrap_or(0)]
    }
    fn leaves(&self) -> Vec<&Repr> {
        self.items().iter().map(FheType::repr).collect()
    }
    fn from_leaves(layout: &Self::Layout, leaves: &mut dyn Iterator<Item = Repr>) -> Result<Self> {
        array_from_leaves(&layout.0, leaves)
    }
}

impl<V: Values> Values for Option<V> {
    type Layout = Option<V::Layout>;
    fn layout(&self) -> Self::Layout {
        self.as_ref().map(Values::layout)
    }
    fn leaf_count(layout: &Self::Layout) -> Option<usize> {
        layout.as_ref().map_or(Some(0), V::leaf_count)
    }
    fn leaf_types(layout: &Self::Layout) -> Vec<IntType> {
        layout.as_ref().map(V::leaf_types).unwrap_or_default()
    }
    fn leaves(&self) -> Vec<&Repr> {
        self.as_ref().map(Values::leaves).unwrap_or_default()
    }
    fn from_leaves(layout: &Self::Layout, leaves: &mut dyn Iterator<Item = Repr>) -> Result<Self> {
        layout
            .as_ref()
            .map(|l| V::from_leaves(l, leaves))
            .transpose()
    }
}

macro_rules! tuple_values {
    ($($t:ident $i:tt),*) => {
        impl<$($t: Values),*> Values for ($($t,)*) {
            type Layout = ($($t::Layout,)*);
            fn layout(&self) -> Self::Layout {
                ($(self.$i.layout(),)*)
            }
            fn leaf_count(layout: &Self::Layout) -> Option<usize> {
                let n = 0usize;
                $(let n = n.checked_add($t::leaf_count(&layout.$i)?)?;)*
                Some(n)
            }
            fn leaf_types(layout: &Self::Layout) -> Vec<IntType> {
                let mut v = Vec::new();
                $(v.extend($t::leaf_types(&layout.$i));)*
                v
            }
            fn leaves(&self) -> Vec<&Repr> {
                let mut v = Vec::new();
                $(v.extend(self.$i.leaves());)*
                v
            }
            fn from_leaves(
                layout: &Self::Layout,
                leaves: &mut dyn Iterator<Item = Repr>,
            ) -> Result<Self> {
                Ok(($($t::from_leaves(&layout.$i, leaves)?,)*))
            }
        }
    };
}
tuple_values!(A 0);
tuple_values!(A 0, B 1);
tuple_values!(A 0, B 1, C 2);
tuple_values!(A 0, B 1, C 2, D 3);

/// A function traced into one circuit: the circuit, its output shapes and layout.
pub(crate) struct Traced<L> {
    pub circuit: Circuit,
    pub shapes: Vec<Shape>,
    pub out_layout: L,
    /// The cost and estimated rounds (at the trace's threads) of the function traced
    /// operation by operation, before chains are reduced at once.
    pub unoptimised: (Cost, u64),
}

/// How one trace is planned ([`trace_best`] tries each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Modes {
    /// Chains of additions reduced at once ([`super::Composer::with_chain_sums`]).
    pub chain_sums: bool,
    /// Radix-4 inputs split into canonical bits at the start ([`repr::input_in_bits`]).
    pub in_bits: bool,
    /// Each operation planned by the target machine's estimated time, block additions
    /// free to take a parallel prefix, instead of each planned for the machine's threads
    /// (no effect without a machine).
    pub machine_ops: bool,
}

/// Traces `f` in every [`Modes`] that applies and keeps the circuit that ranks first on
/// `target` ([`Target::rank`]: the fewer estimated rounds at its threads, or the less
/// estimated time on its machine; then fewer bootstraps; the first on a tie). The modes:
/// additions as they come and chains of additions reduced at once; when an input is in
/// radix-4 blocks, those inputs kept in blocks or split into canonical bits at the start
/// (a function of shifts, selections and comparisons can run cheaper on bits than on
/// blocks); and on a machine, each operation planned for its threads or by its time
/// (choosing operation by operation can lose on the whole function, where a shallower
/// step off the critical path only adds bootstraps, or win, so both are traced).
pub(crate) fn trace_best<A: Values, O: Values>(
    layout: &A::Layout,
    forms: &[Form],
    budget: u64,
    target: &Target,
    f: impl Fn(A) -> Result<O>,
) -> Result<Traced<O::Layout>> {
    // The planner's order: a circuit the parameter set runs before any faster one it refuses.
    let key = |t: &Traced<O::Layout>| target.rank(&t.circuit, budget);
    let plain = trace_with::<A, O>(layout, forms, budget, target, Modes::default(), &f)?;
    let unoptimised = plain.unoptimised;
    let mut best = plain;
    let splits: &[bool] = if forms.contains(&Form::Radix4) {
        &[false, true]
    } else {
        &[false]
    };
    let per_op: &[bool] = if target.machine.is_some() {
        &[false, true]
    } else {
        &[false]
    };
    for &machine_ops in per_op {
        for &in_bits in splits {
            for chain_sums in [false, true] {
                let modes = Modes {
                    chain_sums,
                    in_bits,
                    machine_ops,
                };
                if modes == Modes::default() {
                    continue;
                }
                let t = trace_with::<A, O>(layout, forms, budget, target, modes, &f)?;
                if key(&t) < key(&best) {
                    best = t;
                }
            }
        }
    }
    best.unoptimised = unoptimised;
    Ok(best)
}

/// Traces `f` on fresh inputs of `layout` whose leaves have forms `forms`, for `target`
/// and the noise budget `budget`, planned in `modes`.
pub(crate) fn trace_with<A: Values, O: Values>(
    layout: &A::Layout,
    forms: &[Form],
    budget: u64,
    target: &Target,
    modes: Modes,
    f: impl FnOnce(A) -> Result<O>,
) -> Result<Traced<O::Layout>> {
    let plan = (budget, target);
    trace_within::<A, O>(layout, forms, plan, modes, crate::DEFAULT_MAX_NODES, f)
}

/// [`trace_with`] with a circuit of at most `max_nodes` nodes; `plan` is the noise budget
/// and the target.
fn trace_within<A: Values, O: Values>(
    layout: &A::Layout,
    forms: &[Form],
    (budget, target): (u64, &Target),
    modes: Modes,
    max_nodes: u64,
    f: impl FnOnce(A) -> Result<O>,
) -> Result<Traced<O::Layout>> {
    checked_leaves::<A>(layout)?;
    let types = A::leaf_types(layout);
    if types.len() != forms.len() {
        return Err(Error::ShapeMismatch(format!(
            "{} forms for {} values",
            forms.len(),
            types.len()
        )));
    }
    let digits = types.iter().zip(forms).fold(0u64, |n, (&ty, form)| {
        n.saturating_add(form.digits(ty) as u64)
    });
    if digits > max_nodes {
        return Err(Error::LimitExceeded(format!(
            "arguments of {digits} digits, more than the {max_nodes} nodes of one circuit"
        )));
    }
    let t = Trace::new(
        budget,
        target,
        modes.chain_sums,
        modes.machine_ops,
        max_nodes,
    );
    let inputs = types
        .iter()
        .zip(forms)
        .map(|(&ty, &form)| {
            if modes.in_bits {
                repr::input_in_bits(&t, ty, form)
            } else {
                repr::input(&t, ty, form)
            }
        })
        .collect::<Result<Vec<Repr>>>()?;
    let args = A::from_leaves(layout, &mut inputs.into_iter())?;
    let out = traced(|| f(args))?;
    let values = out
        .leaves()
        .into_iter()
        .map(|r| match r {
            Repr::Traced(u, v) if Arc::ptr_eq(u, &t) => Ok(v.clone()),
            _ => Err(Error::Tracing(
                "a result that is not computed from the arguments (a ciphertext or a value \
                 of another trace)"
                    .into(),
            )),
        })
        .collect::<Result<Vec<_>>>()?;
    let (circuit, shapes) = repr::finish(&t, &values)?;
    let unoptimised = (
        circuit.cost(),
        encint_arith::bits::makespan(&circuit, target.threads),
    );
    Ok(Traced {
        circuit,
        shapes,
        out_layout: out.layout(),
        unoptimised,
    })
}

thread_local! {
    /// How many functions this thread is tracing (traces nest).
    static TRACING: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Whether this thread is tracing a function: an operator's error then ends the trace
/// (see [`super::or_panic`]).
pub(crate) fn tracing() -> bool {
    TRACING.with(|t| t.get() > 0)
}

/// An operator's error unwinding to the tracer of its function.
pub(crate) struct TracedError(pub Error);

/// Runs a function being traced: an operator's error inside it ([`TracedError`]) comes
/// back as the error; any other panic goes on.
fn traced<O>(f: impl FnOnce() -> Result<O>) -> Result<O> {
    TRACING.with(|t| t.set(t.get() + 1));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    TRACING.with(|t| t.set(t.get() - 1));
    match out {
        Ok(r) => r,
        Err(payload) => match payload.downcast::<TracedError>() {
            Ok(e) => Err(e.0),
            Err(other) => std::panic::resume_unwind(other),
        },
    }
}

/// The ciphertexts of `args`' leaves, or `None` if one is a value of a trace.
pub(crate) fn ciphers<A: Values>(args: &A) -> Option<Vec<&EncTyped>> {
    args.leaves()
        .into_iter()
        .map(|r| match r {
            Repr::Cipher(x) => Some(x),
            Repr::Traced(..) => None,
        })
        .collect()
}

/// Runs a traced circuit through `run` (with `server`'s key set) on `inputs`, rebuilding
/// the output of `layout`.
pub(crate) fn run_traced<O: Values>(
    server: &Server,
    run: RunDigits<'_>,
    traced: &Traced<O::Layout>,
    inputs: &[&EncTyped],
) -> Result<O> {
    let outs = run_circuit(server, run, &traced.circuit, inputs, &traced.shapes)?;
    O::from_leaves(&traced.out_layout, &mut outs.into_iter().map(Repr::Cipher))
}

/// `f(args)` as one circuit: recorded into the arguments' trace when they are traced
/// (inside [`super::compile`]), else traced now and run once on this thread's server.
pub(crate) fn one_circuit<A: Values, O: Values>(
    args: A,
    f: impl FnOnce(A) -> Result<O>,
) -> Result<O> {
    let Some(inputs) = ciphers(&args) else {
        return f(args);
    };
    crate::server::with_server(|s| {
        let forms: Vec<Form> = inputs.iter().map(|x| x.form()).collect();
        let budget = s.key().params().max_quadratic_weight();
        let target = Target::of(s);
        let traced =
            trace_with::<A, O>(&args.layout(), &forms, budget, &target, Modes::default(), f)?;
        run_traced(s, &|c, d| s.run_circuit(c, d), &traced, &inputs)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fhe::{FheUint16, FheUint8};

    /// A function growing its circuit operation by operation stops with `LimitExceeded` at
    /// the first operation past the node limit, from inside the operators (no panic), and
    /// the same function within the limit traces.
    #[test]
    fn a_trace_stops_at_the_operation_past_its_node_limit() {
        let long = |x: FheUint16| -> Result<FheUint16> {
            let mut acc = x.clone();
            for _ in 0..1000 {
                acc = &(&acc * &x) ^ &acc;
            }
            Ok(acc)
        };
        let two = Target::threads(2);
        let plan = (crate::DEFAULT_PARAMETERS.max_quadratic_weight(), &two);
        let forms = [Form::DEFAULT];
        match trace_within::<FheUint16, FheUint16>(
            &(),
            &forms,
            plan,
            Modes::default(),
            20_000,
            long,
        ) {
            Err(Error::LimitExceeded(m)) => {
                assert!(
                    m.contains("20000 allowed") && m.contains("traced operation "),
                    "{m}"
                )
            }
            Err(e) => panic!("another error: {e}"),
            Ok(t) => panic!("traced {} nodes", t.circuit.nodes().len()),
        }
        let short = |x: FheUint8| -> Result<FheUint8> { Ok(&(&x * &x) ^ &x) };
        let t =
            trace_within::<FheUint8, FheUint8>(&(), &forms, plan, Modes::default(), 20_000, short)
                .unwrap();
        assert!(t.circuit.nodes().len() < 20_000);
    }
}
