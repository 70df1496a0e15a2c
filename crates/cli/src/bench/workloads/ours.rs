//! The workloads on encint's side, each written once as a user writes it with
//! `encint::fhe`: a function of typed values and arrays, compiled with
//! [`compile_with`] into one circuit whose cost is known before any key exists.

use std::time::Instant;

use encint::fhe::{
    compile_on, compile_with, Compiled, FheArray, FheInt16, FheInteger, FheType, FheUint16,
    FheUint32, FheUint8, Repr, Values,
};
use encint::typed::{decrypt_typed, encrypt_typed_as, Form};
use encint::{ClientKey, Cost, Machine, Server};

use super::plain::{Workload, HASH_MUL, HASH_ROUNDS};
use crate::error::{internal, mismatch, usage};
use crate::AnyResult;

/// Array calls inside a workload see the shapes its layout fixes; they cannot fail.
const SHAPES: &str = "shapes fixed by the workload's layout";

/// A workload compiled into one circuit, its inputs and outputs as lists of clear values
/// (each argument's elements in turn, row-major).
pub trait Program: Send {
    /// The circuit's cost on freshly encrypted inputs.
    fn cost(&self) -> Cost;
    /// The circuit's estimated time in bootstrap rounds at `threads` threads.
    fn rounds(&self, threads: usize) -> u64;
    /// The circuit's estimated time on `machine`, in seconds.
    fn seconds(&self, machine: &Machine) -> f64;
    /// The cost and estimated rounds (at the compiling pool's threads) of the same program
    /// traced operation by operation, before the whole-circuit rewriting.
    fn unoptimised(&self) -> (Cost, u64);
    /// The circuit run by the clear executor on `inputs`.
    #[cfg(test)]
    fn run_clear(&self, inputs: &[i128]) -> encint::Result<Vec<i128>>;
    /// Encrypts `inputs` with `client`, runs the circuit `runs` times on `server` (timing
    /// each run, in milliseconds), and decrypts; an error if two runs disagree.
    fn time(
        &self,
        server: &Server,
        client: &ClientKey,
        inputs: &[i128],
        runs: usize,
    ) -> AnyResult<(Vec<f64>, Vec<i128>)>;
}

struct Circuit<A: Values, O: Values> {
    layout: A::Layout,
    f: Compiled<A, O>,
}

impl<A: Values, O: Values> Program for Circuit<A, O> {
    fn cost(&self) -> Cost {
        self.f.cost()
    }

    fn rounds(&self, threads: usize) -> u64 {
        self.f.rounds(threads)
    }

    fn seconds(&self, machine: &Machine) -> f64 {
        machine.seconds(self.f.circuit())
    }

    fn unoptimised(&self) -> (Cost, u64) {
        (self.f.unoptimised_cost(), self.f.unoptimised_rounds())
    }

    #[cfg(test)]
    fn run_clear(&self, inputs: &[i128]) -> encint::Result<Vec<i128>> {
        self.f.run_clear(inputs)
    }

    fn time(
        &self,
        server: &Server,
        client: &ClientKey,
        inputs: &[i128],
        runs: usize,
    ) -> AnyResult<(Vec<f64>, Vec<i128>)> {
        let types = A::leaf_types(&self.layout);
        if types.len() != inputs.len() {
            return Err(usage(format!(
                "{} inputs for {} arguments",
                inputs.len(),
                types.len()
            )));
        }
        let leaves = types
            .iter()
            .zip(inputs)
            // What a user's encryption gives (`FheUint16::encrypt`): the form the
            // circuit was compiled for, so no run traces again.
            .map(|(&ty, &v)| {
                Ok(Repr::Cipher(encrypt_typed_as(
                    client,
                    v,
                    ty,
                    Form::DEFAULT,
                )?))
            })
            .collect::<encint::Result<Vec<Repr>>>()?;
        let args = A::from_leaves(&self.layout, &mut leaves.into_iter())?;
        let mut times = Vec::with_capacity(runs);
        let mut first: Option<Vec<i128>> = None;
        for _ in 0..runs {
            let t = Instant::now();
            let out = self.f.run_on(server, &args)?;
            times.push(crate::timing::ms_since(t));
            let values = out
                .leaves()
                .into_iter()
                .map(|r| match r {
                    Repr::Cipher(x) => Ok(decrypt_typed(client, x)?),
                    Repr::Traced(..) => Err(internal("a traced value out of a compiled run")),
                })
                .collect::<AnyResult<Vec<i128>>>()?;
            match &first {
                Some(f) if *f != values => {
                    return Err(mismatch(format!("two runs disagree: {f:?} and {values:?}")))
                }
                Some(_) => {}
                None => first = Some(values),
            }
        }
        Ok((
            times,
            first.ok_or_else(|| usage("--runs must be at least 1"))?,
        ))
    }
}

/// `f` compiled for arguments of `layout`, boxed.
fn program<A, O>(
    machine: Option<&Machine>,
    layout: A::Layout,
    f: impl Fn(A) -> O + Send + Sync + 'static,
) -> encint::Result<Box<dyn Program>>
where
    A: Values + 'static,
    O: Values + 'static,
{
    let compiled = match machine {
        Some(m) => compile_on(m, layout.clone(), f)?,
        None => compile_with(layout.clone(), f)?,
    };
    Ok(Box::new(Circuit {
        layout,
        f: compiled,
    }))
}

/// Every element of `x` converted to `T` (as Rust's `as`), in an array of `shape`.
fn cast_all<const N: usize, const S: bool, T: FheType>(
    x: &FheArray<FheInteger<N, S>>,
    shape: Vec<usize>,
) -> FheArray<T> {
    let items = x.items().iter().map(|v| v.cast_into::<T>()).collect();
    FheArray::new(items, shape).expect(SHAPES)
}

/// The workload compiled for rayon's current thread count.
pub fn compile(w: Workload, machine: Option<&Machine>) -> encint::Result<Box<dyn Program>> {
    type U8s = FheArray<FheUint8>;
    type U16s = FheArray<FheUint16>;
    match w {
        Workload::Sum16U16 => program(machine, vec![16], |x: U16s| x.sum().expect(SHAPES)),
        Workload::Dot32U16 => program(machine, (vec![32], vec![32]), |(x, y): (U16s, U16s)| {
            x.dot(&y).expect(SHAPES)
        }),
        Workload::HornerU16 => program(machine, (), |x: FheUint16| {
            &(&(&(&(&(&x * 3u16) + 7u16) * &x) + 11u16) * &x) + 5u16
        }),
        Workload::Sort8U8 => program(machine, vec![8], |x: U8s| {
            let mut v = x.into_items();
            for round in 0..8 {
                for i in (round % 2..7).step_by(2) {
                    let (lo, hi) = (v[i].min(&v[i + 1]), v[i].max(&v[i + 1]));
                    v[i] = lo;
                    v[i + 1] = hi;
                }
            }
            FheArray::new(v, vec![8]).expect(SHAPES)
        }),
        Workload::MeanVar16U16 => program(machine, vec![16], |x: U16s| {
            let wide: FheArray<FheUint32> = cast_all(&x, vec![16]);
            (wide.sum().expect(SHAPES), wide.dot(&wide).expect(SHAPES))
        }),
        Workload::HashU32 => program(machine, ((), ()), |(x, key): (FheUint32, FheUint32)| {
            let mut x = x;
            for _ in 0..HASH_ROUNDS {
                x = &(&(&(&x ^ &(&x >> 7u32)) * HASH_MUL) + &(&x << 3u32)) ^ &key;
            }
            x
        }),
        Workload::Matmul4U8 => program(machine, (vec![4, 4], vec![4, 4]), |(a, b): (U8s, U8s)| {
            a.matmul(&b).expect(SHAPES)
        }),
        Workload::MlpU8 => program(machine, (vec![8, 16], vec![16]), |(w, x): (U8s, U8s)| {
            let w16: U16s = cast_all(&w, vec![8, 16]);
            let x16: U16s = cast_all(&x, vec![16, 1]);
            let sums = w16.matmul(&x16).expect(SHAPES);
            let relu: Vec<FheInt16> = sums
                .items()
                .iter()
                .map(|s| s.cast_into::<FheInt16>().max(0i16))
                .collect();
            FheArray::new(relu, vec![8]).expect(SHAPES)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every workload's circuit, run by the clear executor, against plain arithmetic on
    /// random and edge inputs.
    #[test]
    fn every_circuit_matches_plain_arithmetic_in_clear() {
        for w in Workload::ALL {
            let program = compile(w, None).unwrap();
            let cost = program.cost();
            assert!(cost.bootstraps > 0 && cost.depth > 0, "{w}: {cost:?}");
            let mut cases: Vec<Vec<Vec<u64>>> = (1..=4).map(|seed| w.inputs(seed)).collect();
            cases.extend([w.filled(0), w.filled(u64::MAX)]);
            for x in cases {
                let flat: Vec<i128> = x.iter().flatten().map(|&v| i128::from(v)).collect();
                let got = program.run_clear(&flat).unwrap();
                assert_eq!(got, w.reference(&x), "{w} on {x:?}");
            }
        }
    }

    /// Each workload's circuit compiled for two threads: exactly the bootstraps, depth and
    /// estimated rounds docs/BENCHMARKS.md states (`tests/cli.rs` reads the page's tables
    /// and compares `encint cost --workloads`; these are the same figures, pinned where the
    /// circuits are compiled).
    #[test]
    fn estimates_are_the_documented_figures() {
        // (workload, bootstraps, depth, estimated rounds at two threads).
        let pins = [
            (Workload::Sum16U16, 59, 10, 30),
            (Workload::Dot32U16, 2395, 44, 1198),
            (Workload::HornerU16, 139, 18, 70),
            (Workload::Sort8U8, 476, 32, 238),
            (Workload::MeanVar16U16, 1713, 40, 857),
            (Workload::HashU32, 1056, 107, 528),
            (Workload::Matmul4U8, 1200, 11, 600),
            (Workload::MlpU8, 4888, 33, 2444),
        ];
        let pool = crate::timing::pool(Some(2)).unwrap();
        for (w, pbs, depth, rounds) in pins {
            let program = pool.install(|| compile(w, None)).unwrap();
            let cost = program.cost();
            assert_eq!(
                (cost.bootstraps, u64::from(cost.depth), program.rounds(2)),
                (pbs, depth, rounds),
                "{w}"
            );
        }
    }

    #[test]
    fn wrong_input_counts_and_values_are_errors() {
        let program = compile(Workload::HornerU16, None).unwrap();
        assert!(program.run_clear(&[]).is_err());
        assert!(program.run_clear(&[1, 2]).is_err());
        assert!(program.run_clear(&[65536]).is_err());
        assert!(program.run_clear(&[-1]).is_err());
    }

    /// The smallest workload with real keys, on our side only.
    #[test]
    fn sum_with_real_keys() {
        let w = Workload::Sum16U16;
        let x = w.inputs(3);
        let flat: Vec<i128> = x.iter().flatten().map(|&v| i128::from(v)).collect();
        let program = compile(w, None).unwrap();
        let (client, key) = ClientKey::generate(&encint::DEFAULT_PARAMETERS);
        let server = Server::with_threads(key, 2).unwrap();
        let (times, got) = program.time(&server, &client, &flat, 1).unwrap();
        assert_eq!(times.len(), 1);
        assert_eq!(got, w.reference(&x));
    }
}
