//! [`compile`]: a whole function over values of the family (and arrays of them) traced
//! into one circuit, whose cost is known before any key exists, then run many times.

use std::sync::{Arc, Mutex, PoisonError};

use encint_arith::typed::Form;
use encint_core::circuit::{Circuit, Cost};

use super::repr::RunDigits;
use super::values::{ciphers, run_traced, trace_best, Traced, Values};
use crate::trace::Target;
use crate::{Error, Machine, Result, Server, DEFAULT_PARAMETERS};

type Function<A, O> = dyn Fn(A) -> O + Send + Sync;

/// Circuits traced for argument forms and a noise budget.
type ByForms<L> = Vec<(Vec<Form>, u64, Arc<Traced<L>>)>;

/// A function compiled into one circuit (see [`compile`]): its cost is known before any
/// key exists, and it runs on ciphertexts ([`Compiled::run`]) or, as its own oracle, on
/// clear values ([`Compiled::run_clear`]).
///
/// # Examples
///
/// ```
/// use encint::fhe::{compile, Compiled, FheBool, FheUint8};
///
/// type Two = (FheUint8, FheUint8);
/// let lt: Compiled<Two, FheBool> = compile(|(a, b): Two| a.lt(&b))?;
/// for (a, b) in [(1u8, 2u8), (2, 1), (9, 9)] {
///     assert_eq!(lt.run_clear(&[a.into(), b.into()])?, vec![i128::from(a < b)]);
/// }
/// # Ok::<(), encint::Error>(())
/// ```
pub struct Compiled<A: Values, O: Values> {
    f: Arc<Function<A, O>>,
    layout: A::Layout,
    target: Target,
    /// The argument forms the function was compiled for ([`Form::DEFAULT`] unless
    /// [`compile_for`] named others).
    forms: Vec<Form>,
    fresh: Arc<Traced<O::Layout>>,
    /// Circuits for other argument forms or noise budgets, traced when first met.
    others: Mutex<ByForms<O::Layout>>,
}

impl<A: Values, O: Values> std::fmt::Debug for Compiled<A, O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("layout", &self.layout)
            .field("threads", &self.target.threads)
            .field("cost", &self.cost())
            .finish()
    }
}

/// Traces `f` once, on arguments as encryption gives them, into one circuit planned for
/// rayon's current thread count and the default parameters' noise budget. Every operator
/// and array call inside `f` is recorded, not run, so independent work shares bootstrap
/// levels; [`Compiled::cost`] is known now, before any key exists, and
/// [`Compiled::run`] runs the circuit on ciphertexts as often as needed. A chain of
/// linear operations (`a + b - c`, `3 * x + 7`, `x * y + z * w + 5`, `(t * k) + (x << 3)`)
/// becomes one reduction of all its terms, as an array's `sum` is, where that makes the
/// whole circuit faster (the function is traced both ways, and on radix-4 arguments, the
/// form encryption gives, both ways again with the arguments split into bits first; the
/// circuit of fewer estimated rounds is kept, and [`Compiled::unoptimised_cost`] tells
/// what it saved). [`compile_for`] compiles for arguments in other forms.
///
/// `A` is a value of the family or a tuple of them; a function of arrays needs their
/// shapes: [`compile_with`].
///
/// # Examples
///
/// ```
/// use encint::fhe::{compile, set_server_key, FheUint8};
/// use encint::{ClientKey, DEFAULT_PARAMETERS};
///
/// // A polynomial, compiled before any key exists.
/// let poly = compile(|(x, y): (FheUint8, FheUint8)| &(&x * &x) + &(&y * 3u8) + 7u8)?;
/// let cost = poly.cost(); // bootstraps, depth, widest level
/// assert!(cost.bootstraps > 0 && cost.depth > 0);
///
/// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
/// set_server_key(server_key);
/// let x = FheUint8::encrypt(9u8, &client)?;
/// let y = FheUint8::encrypt(20u8, &client)?;
/// let r = poly.run(&(x, y))?;
/// assert_eq!(r.decrypt::<u8>(&client)?, (81 + 60 + 7) as u8);
/// # Ok::<(), encint::Error>(())
/// ```
pub fn compile<A, O, F>(f: F) -> Result<Compiled<A, O>>
where
    A: Values,
    A::Layout: Default,
    O: Values,
    F: Fn(A) -> O + Send + Sync + 'static,
{
    compile_with(A::Layout::default(), f)
}

/// [`compile`] for arguments of a given layout: the shapes of array arguments (`vec![4]`
/// for a vector of four, `(vec![2, 3], ())` for a matrix and a value).
///
/// # Examples
///
/// ```
/// use encint::fhe::{compile_with, FheArray, FheUint8};
///
/// let dot = compile_with(
///     (vec![4], vec![4]),
///     |(x, w): (FheArray<FheUint8>, FheArray<FheUint8>)| x.dot(&w).expect("two vectors of 4"),
/// )?;
/// assert!(dot.cost().bootstraps > 0);
/// # Ok::<(), encint::Error>(())
/// ```
pub fn compile_with<A, O, F>(layout: A::Layout, f: F) -> Result<Compiled<A, O>>
where
    A: Values,
    O: Values,
    F: Fn(A) -> O + Send + Sync + 'static,
{
    let forms = vec![Form::DEFAULT; super::values::checked_leaves::<A>(&layout)?];
    compile_for(layout, &forms, f)
}

/// [`compile_with`] for arguments stored in `forms` (one per leaf value, in the order of
/// the arguments and, inside an array, row-major): what [`FheUint8::encrypt_as`] and
/// [`FheValue::encrypt_as`] give, or an earlier compiled function's results.
/// [`Compiled::cost`] and [`Compiled::run_clear`] are then those of such arguments;
/// [`Compiled::run`] still takes arguments in any form. Errors if `forms` does not have
/// one form per leaf value.
///
/// [`FheUint8::encrypt_as`]: super::FheInteger::encrypt_as
/// [`FheValue::encrypt_as`]: super::FheValue::encrypt_as
///
/// # Examples
///
/// ```
/// use encint::fhe::{compile, compile_for, FheUint16};
/// use encint::typed::Form;
///
/// // On canonical bits a shift by a constant is free; on radix-4 blocks it is not.
/// let f = |x: FheUint16| &x << 3u16;
/// let bits = compile_for((), &[Form::Canonical], f)?;
/// let blocks = compile(f)?;
/// assert_eq!(bits.cost().bootstraps, 0);
/// assert!(blocks.cost().bootstraps > 0);
/// assert_eq!(bits.run_clear(&[1000])?, blocks.run_clear(&[1000])?);
/// # Ok::<(), encint::Error>(())
/// ```
pub fn compile_for<A, O, F>(layout: A::Layout, forms: &[Form], f: F) -> Result<Compiled<A, O>>
where
    A: Values,
    O: Values,
    F: Fn(A) -> O + Send + Sync + 'static,
{
    let leaves = super::values::checked_leaves::<A>(&layout)?;
    if forms.len() != leaves {
        return Err(Error::ShapeMismatch(format!(
            "{} forms for {leaves} argument values",
            forms.len()
        )));
    }
    compile_planned(
        layout,
        forms,
        Target::threads(rayon::current_num_threads()),
        f,
    )
}

/// [`compile_with`] planned for `machine` instead of this process's threads: the
/// operations are planned for [`Machine::plan_threads`] (a CPU's threads, a GPU's lanes),
/// whether or not this machine has them, and the whole-function traces [`compile`]
/// compares are ranked by their estimated time there ([`Machine::seconds`]). [`Machine::seconds`] of [`Compiled::circuit`] estimates its time
/// there; on a CPU profile of N threads the circuit is the one [`compile`] gives inside a
/// pool of N.
///
/// # Examples
///
/// ```
/// use encint::fhe::{compile_on, FheArray, FheUint16};
/// use encint::Machine;
///
/// let sum = |x: FheArray<FheUint16>| x.sum().expect("a vector");
/// let (small, big) = (Machine::parse("cpu:2")?, Machine::parse("cpu:192")?);
/// let on_small = compile_on(&small, vec![16], sum)?;
/// let on_big = compile_on(&big, vec![16], sum)?;
/// assert_eq!(on_big.threads(), 192);
/// // Each machine's circuit is at least as fast there as the other's.
/// assert!(big.seconds(on_big.circuit()) <= big.seconds(on_small.circuit()));
/// assert!(small.seconds(on_small.circuit()) <= small.seconds(on_big.circuit()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compile_on<A, O, F>(machine: &Machine, layout: A::Layout, f: F) -> Result<Compiled<A, O>>
where
    A: Values,
    O: Values,
    F: Fn(A) -> O + Send + Sync + 'static,
{
    let forms = vec![Form::DEFAULT; super::values::checked_leaves::<A>(&layout)?];
    compile_planned(layout, &forms, Target::on(machine), f)
}

/// [`compile_for`] planned for `target`.
fn compile_planned<A, O, F>(
    layout: A::Layout,
    forms: &[Form],
    target: Target,
    f: F,
) -> Result<Compiled<A, O>>
where
    A: Values,
    O: Values,
    F: Fn(A) -> O + Send + Sync + 'static,
{
    let forms = forms.to_vec();
    let f: Arc<Function<A, O>> = Arc::new(f);
    let budget = DEFAULT_PARAMETERS.max_quadratic_weight();
    let fresh = Arc::new(trace_best::<A, O>(&layout, &forms, budget, &target, |a| {
        Ok(f(a))
    })?);
    Ok(Compiled {
        f,
        layout,
        target,
        forms,
        fresh,
        others: Mutex::new(Vec::new()),
    })
}

impl<A: Values, O: Values> Compiled<A, O> {
    /// The circuit's cost on freshly encrypted arguments.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    ///
    /// let f = compile(|(a, b): (FheUint8, FheUint8)| &a * &b)?;
    /// let cost = f.cost(); // no key exists yet
    /// assert!(cost.bootstraps > 0 && cost.depth > 0);
    /// assert!(cost.width <= cost.bootstraps); // the widest level is part of the whole
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn cost(&self) -> Cost {
        self.fresh.circuit.cost()
    }

    /// The cost of the same function traced operation by operation, as the operators
    /// come, each result normalised (on freshly encrypted arguments): what [`compile`]'s
    /// whole-circuit rewriting saves is this against [`Compiled::cost`]. Never less
    /// time than the kept circuit: [`compile`] keeps this circuit when the rewriting does
    /// not estimate faster.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    ///
    /// type Four = (FheUint8, FheUint8, FheUint8, FheUint8);
    /// let f = compile(|(a, b, c, d): Four| &(&(&a + &b) + &c) + &d)?; // one chain of sums
    /// let (kept, plain) = (f.cost(), f.unoptimised_cost());
    /// assert!(plain.bootstraps > 0);
    /// assert!(kept.bootstraps > 0);
    /// let sum = [100u8, 100, 50, 10].iter().fold(0u8, |s, &v| s.wrapping_add(v));
    /// assert_eq!(f.run_clear(&[100, 100, 50, 10])?, vec![i128::from(sum)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn unoptimised_cost(&self) -> Cost {
        self.fresh.unoptimised.0
    }

    /// [`Compiled::unoptimised_cost`]'s estimated rounds at the thread count the function
    /// was compiled for ([`Compiled::threads`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    ///
    /// type Three = (FheUint8, FheUint8, FheUint8);
    /// let f = compile(|(a, b, c): Three| &(&a * 3u8) + &(&b * 5u8) + &c)?;
    /// // The kept circuit is never estimated slower than the one traced as the operators came.
    /// assert!(f.rounds(f.threads()) <= f.unoptimised_rounds());
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn unoptimised_rounds(&self) -> u64 {
        self.fresh.unoptimised.1
    }

    /// The thread count the circuit was planned for (rayon's when compiled).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    ///
    /// let f = compile(|x: FheUint8| &x * &x)?;
    /// assert_eq!(f.threads(), rayon::current_num_threads());
    /// // Planned for four threads instead: compile inside a pool of four.
    /// let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    /// let g = pool.install(|| compile(|x: FheUint8| &x * &x))?;
    /// assert_eq!(g.threads(), 4);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn threads(&self) -> usize {
        self.target.threads
    }

    /// The machine profile the function was compiled for ([`compile_on`]), if any.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, compile_on, FheUint8};
    /// use encint::Machine;
    ///
    /// let square = |x: FheUint8| &x * &x;
    /// assert!(compile(square)?.machine().is_none());
    /// let on_gpu = compile_on(&Machine::h100(), (), square)?;
    /// assert_eq!(on_gpu.machine().map(|m| m.name.as_str()), Some("h100"));
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn machine(&self) -> Option<&Machine> {
        self.target.machine.as_ref()
    }

    /// The circuit (on freshly encrypted arguments).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    /// use encint::typed::Form;
    ///
    /// let f = compile(|(a, b): (FheUint8, FheUint8)| &a ^ &b)?;
    /// // One input digit per radix-4 block of each argument, as encryption gives them.
    /// let blocks = Form::DEFAULT.digits(FheUint8::TYPE);
    /// assert_eq!(f.circuit().inputs().len(), 2 * blocks);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn circuit(&self) -> &Circuit {
        &self.fresh.circuit
    }

    /// Estimated time in bootstrap rounds at `threads` threads: the sum over levels of
    /// `⌈bootstraps in the level / threads⌉`.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    ///
    /// let f = compile(|(a, b): (FheUint8, FheUint8)| &a * &b)?;
    /// let cost = f.cost();
    /// assert_eq!(f.rounds(1), cost.bootstraps); // one bootstrap per round
    /// let wide = usize::try_from(cost.width).unwrap(); // every level in one round
    /// assert!(f.rounds(wide) <= f.rounds(2) && f.rounds(2) <= f.rounds(1));
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn rounds(&self, threads: usize) -> u64 {
        encint_arith::bits::makespan(&self.fresh.circuit, threads)
    }

    /// Runs the function on `args` with this thread's server (see
    /// [`set_server_key`](super::set_server_key)); errors without one
    /// ([`Error::NoServer`]), on arguments of another layout or of another key set.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, set_server_key, FheInt8};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let f = compile(|(a, b): (FheInt8, FheInt8)| a.max(&b))?;
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// set_server_key(server_key);
    /// let args = (FheInt8::encrypt(-7i8, &client)?, FheInt8::encrypt(3i8, &client)?);
    /// assert_eq!(f.run(&args)?.decrypt::<i8>(&client)?, (-7i8).max(3));
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn run(&self, args: &A) -> Result<O> {
        crate::server::with_server(|s| self.run_on(s, args))
    }

    /// Runs the function on `args` with `server`. Arguments in another form than
    /// encryption gives (results of earlier operations) or a server of another noise
    /// budget get their own circuit, traced the first time.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    /// use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    ///
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let server = Server::new(server_key); // not set on the thread: passed
    /// let inc = compile(|x: FheUint8| &x + 1u8)?;
    /// let y = inc.run_on(&server, &FheUint8::encrypt(255u8, &client)?)?;
    /// assert_eq!(y.decrypt::<u8>(&client)?, 255u8.wrapping_add(1));
    /// let z = inc.run_on(&server, &y)?; // a result as argument, whatever its form
    /// assert_eq!(z.decrypt::<u8>(&client)?, 255u8.wrapping_add(1).wrapping_add(1));
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn run_on(&self, server: &Server, args: &A) -> Result<O> {
        self.run_with(server, &|c, d| server.run_circuit(c, d), args)
    }

    /// [`Compiled::run_on`] with the bootstraps on another backend (an MPI job's ranks):
    /// `server` checks the arguments' key set and the noise budget, `backend` runs.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::backend::digit::DigitBackend;
    /// use encint::fhe::{compile, FheUint8};
    /// use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    ///
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let server = Server::new(server_key);
    /// let backend = DigitBackend { server: server.key() }; // bootstraps on this process
    /// let sq = compile(|x: FheUint8| x.square())?;
    /// let y = sq.run_on_backend(&server, &backend, &FheUint8::encrypt(20u8, &client)?)?;
    /// assert_eq!(y.decrypt::<u8>(&client)?, 20u8.wrapping_mul(20));
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn run_on_backend<B>(&self, server: &Server, backend: &B, args: &A) -> Result<O>
    where
        B: encint_core::exec::Backend<Value = encint_tfhe::Digit, Error = Error>,
    {
        self.run_with(server, &|c, d| server.run_circuit_on(backend, c, d), args)
    }

    fn run_with(&self, server: &Server, run: RunDigits<'_>, args: &A) -> Result<O> {
        let layout = args.layout();
        if layout != self.layout {
            return Err(Error::TypeMismatch(format!(
                "arguments of layout {layout:?}, compiled for {:?}",
                self.layout
            )));
        }
        let inputs = ciphers(args).ok_or_else(|| {
            Error::Tracing("a compiled function runs on ciphertexts, not traced values".into())
        })?;
        let forms: Vec<Form> = inputs.iter().map(|x| x.form()).collect();
        let budget = server.key().params().max_quadratic_weight();
        let traced = self.traced_for(forms, budget)?;
        run_traced(server, run, &traced, &inputs)
    }

    /// Runs the circuit in the clear ([`crate::circuit::clear`], the oracle of every
    /// encrypted run) on the arguments' leaf values `values` (in the order of the
    /// arguments and, inside an array, row-major), as freshly encrypted arguments would
    /// hold them; returns the result's leaf values in the same order. Errors on a count
    /// that does not match the arguments or a value outside its type. No keys are needed:
    /// the circuit's digits go through the clear executor bootstrap by bootstrap, so this
    /// is the circuit's own answer, not a re-computation.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheUint8};
    ///
    /// let f = compile(|(x, y): (FheUint8, FheUint8)| &(&x * &y) + 3u8)?;
    /// assert_eq!(f.run_clear(&[20, 13])?, vec![(20 * 13 + 3) % 256]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn run_clear(&self, values: &[i128]) -> Result<Vec<i128>> {
        let types = A::leaf_types(&self.layout);
        if types.len() != values.len() {
            return Err(Error::ShapeMismatch(format!(
                "{} values for {} arguments",
                values.len(),
                types.len()
            )));
        }
        let mut digits = Vec::new();
        for (position, ((&ty, &v), form)) in types.iter().zip(values).zip(&self.forms).enumerate() {
            if !ty.contains(v) {
                return Err(Error::OutOfRange(format!(
                    "argument value {position} ({v}) is not a value of {ty}"
                )));
            }
            digits.extend(form.encode(ty, v));
        }
        let (out, _) = encint_core::clear::run(&self.fresh.circuit, &digits)?;
        let mut it = out.into_iter();
        self.fresh
            .shapes
            .iter()
            .map(|&(ty, form, n)| {
                let d: Vec<i64> = it.by_ref().take(n).collect();
                form.value(ty, &d).ok_or_else(|| {
                    Error::OutOfRange(format!("output digits {d:?} hold no value of {ty}"))
                })
            })
            .collect()
    }

    fn traced_for(&self, forms: Vec<Form>, budget: u64) -> Result<Arc<Traced<O::Layout>>> {
        if budget == DEFAULT_PARAMETERS.max_quadratic_weight() && forms == self.forms {
            return Ok(self.fresh.clone());
        }
        let mut others = self.others.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, _, t)) = others.iter().find(|(f, b, _)| *f == forms && *b == budget) {
            return Ok(t.clone());
        }
        let f = self.f.clone();
        let t = Arc::new(trace_best::<A, O>(
            &self.layout,
            &forms,
            budget,
            &self.target,
            |a| Ok(f(a)),
        )?);
        others.push((forms, budget, t.clone()));
        Ok(t)
    }
}
