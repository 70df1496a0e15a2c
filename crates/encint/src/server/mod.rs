//! The server side: evaluation of operations on [`EncInt`]s with a [`ServerKey`],
//! eagerly (one circuit per operation) or traced (see [`crate::Tracer`]), and
//! operator syntax through a per-thread server.

use encint_arith::machine::Machine;
use encint_arith::{Arith, Config, Op, SInt};
use encint_core::circuit::{Builder, Circuit, Cost, Plan};
use encint_core::exec::Backend;
use encint_tfhe::{Digit, ServerKey};

use crate::backend::digit as executor;
use crate::limits::{DEFAULT_MAX_NODES, MAX_DIGITS};
use crate::{EncInt, Error, Result};

/// An output digit as every circuit of a server ends it: itself when its noise is a fresh
/// digit's, else refreshed by one identity table (so results compose).
pub(crate) fn fresh_output(
    b: &mut Builder,
    d: encint_core::circuit::NodeId,
) -> encint_core::circuit::NodeId {
    if b.qweight(d) <= 1 {
        return d;
    }
    let identity = encint_core::lut::NegacyclicLut::from_fn(-2..=2, |v| v)
        .expect("the identity on -2..=2 is a negacyclic table");
    b.lut(d, &identity)
}

/// Ends a circuit as a server ends it (every output digit fresh) and checks its size
/// against the default limits ([`MAX_DIGITS`](crate::MAX_DIGITS) digits an output,
/// [`DEFAULT_MAX_NODES`] nodes): for circuits costed or run without a server.
pub(crate) fn finish_outputs(mut b: Builder, outs: &[&SInt]) -> Result<(Circuit, Vec<usize>)> {
    let mut lens = Vec::with_capacity(outs.len());
    let mut flat = Vec::new();
    for o in outs {
        if o.len() > MAX_DIGITS {
            return Err(Error::LimitExceeded(format!(
                "an output of {} digits, more than the {MAX_DIGITS} allowed",
                o.len()
            )));
        }
        lens.push(o.len());
        flat.extend(o.digits.iter().map(|&d| fresh_output(&mut b, d)));
    }
    let circuit = b.finish(flat);
    let nodes = circuit.nodes().len() as u64;
    if nodes > DEFAULT_MAX_NODES {
        return Err(Error::LimitExceeded(format!(
            "the circuit: {nodes} circuit nodes, more than the {DEFAULT_MAX_NODES} allowed"
        )));
    }
    Ok((circuit, lens))
}

/// Most threads per core a [`Server`] pool may have ([`check_threads`]).
pub const MAX_THREADS_PER_CORE: usize = 4;

/// Checks a thread count: at least 1 and at most [`MAX_THREADS_PER_CORE`] times the
/// machine's cores (more only adds contention, and huge counts take minutes to spawn).
///
/// # Examples
///
/// ```
/// let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
/// assert_eq!(encint::check_threads(1)?, 1);
/// assert!(encint::check_threads(0).is_err());
/// assert!(encint::check_threads(encint::MAX_THREADS_PER_CORE * cores + 1).is_err());
/// # Ok::<(), encint::Error>(())
/// ```
pub fn check_threads(threads: usize) -> Result<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max = MAX_THREADS_PER_CORE * cores;
    if (1..=max).contains(&threads) {
        Ok(threads)
    } else {
        Err(Error::ThreadPool(format!(
            "{threads} threads requested; between 1 and {max} ({MAX_THREADS_PER_CORE} per core) allowed"
        )))
    }
}

/// Evaluates operations with a server key. Holds the arithmetic configured for
/// the key's noise budget, the circuit size limit and, optionally, its own thread pool.
///
/// Every input must belong to the server key's key set ([`Error::KeySetMismatch`]).
#[derive(Debug)]
pub struct Server {
    key: ServerKey,
    arith: Arith,
    pool: Option<rayon::ThreadPool>,
    max_nodes: u64,
    engine: crate::backend::gpu::Engine,
    machine: Option<Machine>,
}

impl Server {
    /// A server on the global rayon pool.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    ///
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let server = Server::new(server_key);
    /// let a = encint::encrypt(&client, -9, 5)?;
    /// let b = encint::encrypt(&client, 12, 5)?;
    /// assert_eq!(encint::decrypt(&client, &server.add(&a, &b)?)?, -9 + 12);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn new(key: ServerKey) -> Self {
        let budget = key.params().max_quadratic_weight();
        Server {
            key,
            arith: Arith::new(Config {
                max_qweight: budget,
            }),
            pool: None,
            max_nodes: DEFAULT_MAX_NODES,
            engine: crate::backend::gpu::Engine::default(),
            machine: None,
        }
    }

    /// Plans this server's circuits for `machine`: the typed operations take the
    /// algorithm and form of least estimated time there ([`Machine::seconds`]), the exact
    /// integers' products and squares likewise ([`Arith::on_machine`]), and compiled and
    /// composed functions are planned for [`Machine::plan_threads`]. Without a profile the
    /// server plans for its own threads (the fewest bootstrap rounds). Circuits only change
    /// shape, never result.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// use encint::typed::{decrypt_typed, encrypt_typed, IntType, Op};
    /// use encint::Machine;
    ///
    /// let mut server = Server::with_threads(server_key, 2)?;
    /// assert!(server.machine().is_none());
    /// server.set_machine(Machine::parse("h100")?);
    /// assert_eq!(server.machine().map(|m| m.name.as_str()), Some("h100"));
    /// assert_eq!(server.plan_threads(), Machine::h100().plan_threads);
    ///
    /// let u64t = IntType::new(64, false)?;
    /// let (a, b) = (encrypt_typed(&client, 9, u64t)?, encrypt_typed(&client, 5, u64t)?);
    /// let plan = server.typed_plan(Op::LT, &[&a, &b])?; // ranked by time on the h100
    /// assert_eq!(plan.machine, "h100");
    /// let (lt, _) = server.typed_apply(Op::LT, &[&a, &b])?;
    /// assert_eq!(decrypt_typed(&client, &lt)?, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_machine(&mut self, machine: Machine) {
        self.arith = Arith::on_machine(self.arith.config(), machine.clone());
        self.machine = Some(machine);
    }

    /// The machine profile this server plans for, if one was set ([`Server::set_machine`]).
    pub fn machine(&self) -> Option<&Machine> {
        self.machine.as_ref()
    }

    /// This server, running its circuits on `kind` ([`BackendKind::Cpu`] by default).
    /// For [`BackendKind::Gpu`] the server key is uploaded to the GPU once, here; errors
    /// ([`Error::Gpu`]) without the `gpu` feature or without a usable device.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{BackendKind, ClientKey, Server, DEFAULT_PARAMETERS};
    /// # fn gpu(server: Server) -> encint::Result<Server> {
    /// let server = server.with_backend(BackendKind::Gpu)?;
    /// assert_eq!(server.backend(), BackendKind::Gpu);
    /// # Ok(server) }
    /// ```
    ///
    /// [`BackendKind::Cpu`]: crate::BackendKind::Cpu
    /// [`BackendKind::Gpu`]: crate::BackendKind::Gpu
    pub fn with_backend(mut self, kind: crate::BackendKind) -> Result<Self> {
        self.engine = crate::backend::gpu::Engine::new(kind, &self.key)?;
        Ok(self)
    }

    /// The backend this server runs its circuits on.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (_, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// assert_eq!(server.backend(), encint::BackendKind::Cpu); // the default
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn backend(&self) -> crate::BackendKind {
        self.engine.kind()
    }

    /// Sets the largest circuit (in nodes) this server builds or runs (default
    /// [`DEFAULT_MAX_NODES`]); a larger circuit is refused before it runs
    /// ([`Error::LimitExceeded`]).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// # let mut server = server;
    /// let a = encint::encrypt(&client, 100, 8)?;
    /// server.set_max_nodes(10);
    /// assert!(matches!(server.mul(&a, &a), Err(encint::Error::LimitExceeded(_))));
    /// server.set_max_nodes(encint::DEFAULT_MAX_NODES);
    /// assert_eq!(encint::decrypt(&client, &server.mul(&a, &a)?)?, 100 * 100);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn set_max_nodes(&mut self, max_nodes: u64) {
        self.max_nodes = max_nodes;
    }

    /// The largest circuit (in nodes) this server builds or runs.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (_, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// assert_eq!(server.max_nodes(), encint::DEFAULT_MAX_NODES);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn max_nodes(&self) -> u64 {
        self.max_nodes
    }

    fn check_nodes(&self, nodes: u64, what: &str) -> Result<()> {
        if nodes > self.max_nodes {
            return Err(Error::LimitExceeded(format!(
                "{what}: {nodes} circuit nodes, more than the {} allowed (raise the limit \
                 with Server::set_max_nodes or --max-nodes)",
                self.max_nodes
            )));
        }
        Ok(())
    }

    /// A server with its own pool of `threads` threads (see [`check_threads`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    ///
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let server = Server::with_threads(server_key, 2)?;
    /// assert_eq!(server.threads(), 2);
    /// let a = encint::encrypt(&client, 21, 6)?;
    /// assert_eq!(encint::decrypt(&client, &server.mul_scalar(&a, -2)?)?, 21 * -2);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn with_threads(key: ServerKey, threads: usize) -> Result<Self> {
        check_threads(threads)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::ThreadPool(e.to_string()))?;
        let mut s = Server::new(key);
        s.pool = Some(pool);
        Ok(s)
    }

    /// The server key.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// assert_eq!(server.key().key_set(), client.key_set());
    /// assert_eq!(server.key().params(), client.params());
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn key(&self) -> &ServerKey {
        &self.key
    }

    /// Errors ([`Error::KeySetMismatch`]) unless `found`, the key set of input number
    /// `position`, is the server key's.
    pub(crate) fn check_key_set(
        &self,
        position: usize,
        found: encint_tfhe::KeySetId,
    ) -> Result<()> {
        let expected = self.key.key_set();
        if found == expected {
            Ok(())
        } else {
            Err(Error::KeySetMismatch {
                position,
                expected,
                found,
            })
        }
    }

    /// Runs `f` on this server's thread pool (or the current one if it has none).
    pub(crate) fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }

    /// The arithmetic (its configuration follows the key's noise budget).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (_, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let budget = server.arith().config().max_qweight;
    /// assert_eq!(budget, DEFAULT_PARAMETERS.max_quadratic_weight());
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn arith(&self) -> &Arith {
        &self.arith
    }

    /// Builds a circuit with `build` on integers shaped like `inputs`, checks it,
    /// runs it and returns the results with the circuit's cost. Every output digit
    /// is made fresh (refreshed if its noise is not), so results compose.
    ///
    /// Refused before anything runs: an input of another key set
    /// ([`Error::KeySetMismatch`]), more than [`MAX_DIGITS`](crate::MAX_DIGITS) digits in an
    /// input or output, or a circuit of more than [`Server::max_nodes`] nodes
    /// ([`Error::LimitExceeded`]; [`Server::apply`] checks an estimate before building).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// let a = encint::encrypt(&client, 11, 5)?;
    /// let b = encint::encrypt(&client, -6, 5)?;
    /// // Two outputs of one circuit: a + b and 2a (a shift: no bootstrap).
    /// let (out, cost) = server.eval(&[&a, &b], |ar, bld, x| {
    ///     vec![ar.add(bld, &x[0], &x[1]), x[0].shl(bld, 1)]
    /// })?;
    /// assert_eq!(encint::decrypt(&client, &out[0])?, 11 + -6);
    /// assert_eq!(encint::decrypt(&client, &out[1])?, 2 * 11);
    /// assert!(cost.bootstraps > 0);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn eval(
        &self,
        inputs: &[&EncInt],
        build: impl FnOnce(&Arith, &mut Builder, &[SInt]) -> Vec<SInt>,
    ) -> Result<(Vec<EncInt>, Cost)> {
        self.eval_fallible(inputs, |ar, b, x| Ok(build(ar, b, x)))
    }

    /// [`Server::eval`] with a `build` that may refuse (its error is returned before the
    /// circuit is finished).
    pub(crate) fn eval_fallible(
        &self,
        inputs: &[&EncInt],
        build: impl FnOnce(&Arith, &mut Builder, &[SInt]) -> Result<Vec<SInt>>,
    ) -> Result<(Vec<EncInt>, Cost)> {
        self.eval_with(inputs, build, |circuit, plan, digits| {
            self.run_own(circuit, plan, digits)
        })
    }

    /// Runs a checked circuit on this server's engine and pool, watched by this thread's
    /// [`Watch`](crate::watch::Watch) if a [`watching`](crate::watch::watching) call is
    /// running (on the CPU; the GPU runs the whole circuit in one call).
    fn run_own(&self, circuit: &Circuit, plan: &Plan, digits: &[&Digit]) -> Result<Vec<Digit>> {
        if let Some(out) = self.engine.run(circuit, plan, digits) {
            return out;
        }
        let watch = crate::watch::current();
        self.install(|| {
            let watch = watch.as_deref().map(|w| w as _);
            executor::run_planned_watched(&self.key, circuit, plan, digits, watch)
        })
    }

    /// [`Server::eval`] on another backend (e.g. `encint::backend::mpi::MpiBackend`, feature
    /// `mpi`): the same circuit, checks and outputs; the backend runs on the calling thread
    /// and uses its own threads. Its server key must be this server's.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// use encint::backend::digit::DigitBackend;
    /// let backend = DigitBackend { server: server.key() };
    /// let a = encint::encrypt(&client, 9, 5)?;
    /// let (out, _) = server.eval_on(&backend, &[&a, &a], |ar, bld, x| {
    ///     vec![ar.sub(bld, &x[0], &x[1])]
    /// })?;
    /// assert_eq!(encint::decrypt(&client, &out[0])?, 9 - 9);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn eval_on<B: Backend<Value = Digit, Error = Error>>(
        &self,
        backend: &B,
        inputs: &[&EncInt],
        build: impl FnOnce(&Arith, &mut Builder, &[SInt]) -> Vec<SInt>,
    ) -> Result<(Vec<EncInt>, Cost)> {
        let watch = crate::watch::current();
        self.eval_with(
            inputs,
            |ar, b, x| Ok(build(ar, b, x)),
            |circuit, plan, digits| {
                crate::watch::run(
                    backend,
                    circuit,
                    plan,
                    digits,
                    watch.as_deref().map(|w| w as _),
                )
            },
        )
    }

    fn eval_with(
        &self,
        inputs: &[&EncInt],
        build: impl FnOnce(&Arith, &mut Builder, &[SInt]) -> Result<Vec<SInt>>,
        exec: impl FnOnce(&Circuit, &Plan, &[&Digit]) -> Result<Vec<Digit>>,
    ) -> Result<(Vec<EncInt>, Cost)> {
        for (position, x) in inputs.iter().enumerate() {
            self.check_key_set(position, x.key_set)?;
            if x.len() > crate::MAX_DIGITS {
                return Err(Error::LimitExceeded(format!(
                    "input {position} has {} digits, more than the {} allowed",
                    x.len(),
                    crate::MAX_DIGITS
                )));
            }
        }
        let mut b = Builder::new();
        self.arith.plan_builder(&mut b, self.plan_threads());
        b.set_prefix_adders(true);
        let ins: Vec<SInt> = inputs
            .iter()
            .map(|x| SInt::input(&mut b, x.len()))
            .collect();
        let outs = build(&self.arith, &mut b, &ins)?;
        let mut lens = Vec::with_capacity(outs.len());
        let mut flat = Vec::new();
        for o in &outs {
            lens.push(o.len());
            flat.extend(o.digits.iter().map(|&d| fresh_output(&mut b, d)));
        }
        if let Some(n) = lens.iter().find(|&&n| n > crate::MAX_DIGITS) {
            return Err(Error::LimitExceeded(format!(
                "an output of {n} digits, more than the {} allowed",
                crate::MAX_DIGITS
            )));
        }
        let circuit = b.finish(flat);
        self.check_nodes(circuit.nodes().len() as u64, "the circuit")?;
        // Schedule, liveness and grouping once, for the cost and the run.
        let plan = circuit.plan();
        let cost = plan.cost(&circuit);
        let digits: Vec<&Digit> = inputs.iter().flat_map(|x| x.digits.iter()).collect();
        let out = exec(&circuit, &plan, &digits)?;
        Ok((self.regroup(lens, out), cost))
    }

    /// Splits the output digits into integers of `lens` digits.
    fn regroup(&self, lens: Vec<usize>, out: Vec<Digit>) -> Vec<EncInt> {
        let mut it = out.into_iter();
        lens.into_iter()
            .map(|n| EncInt {
                key_set: self.key.key_set(),
                digits: it.by_ref().take(n).collect(),
            })
            .collect()
    }

    /// Runs a digit circuit of the caller's (plain and half-step tables, linear nodes) on this
    /// server's backend and pool, one digit per circuit input; checked like [`Server::eval`]'s
    /// circuits (size limit, noise budget, node kinds) before anything runs. The digits must
    /// belong to this server's key set (they carry no key-set label to check).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// use encint::circuit::Builder;
    /// use encint::{EncInt, SInt};
    ///
    /// // x + y on four digits each, built by hand.
    /// let mut b = Builder::new();
    /// let (x, y) = (SInt::input(&mut b, 4), SInt::input(&mut b, 4));
    /// let sum = server.arith().add(&mut b, &x, &y);
    /// let circuit = b.finish(sum.digits);
    /// let (u, v) = (encint::encrypt(&client, 7, 4)?, encint::encrypt(&client, -3, 4)?);
    /// let inputs: Vec<_> = u.digits().iter().chain(v.digits()).collect();
    /// let out = server.run_circuit(&circuit, &inputs)?;
    /// assert_eq!(encint::decrypt(&client, &EncInt::from_digits(out, client.key_set()))?, 7 + -3);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn run_circuit(
        &self,
        circuit: &encint_core::circuit::Circuit,
        inputs: &[&Digit],
    ) -> Result<Vec<Digit>> {
        self.check_nodes(circuit.nodes().len() as u64, "the circuit")?;
        self.run_own(circuit, &circuit.plan(), inputs)
    }

    /// [`Server::run_circuit`] on another backend (an MPI job's ranks: see
    /// [`Server::eval_on`]), checked the same way.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// use encint::circuit::Builder;
    /// use encint::backend::digit::DigitBackend;
    /// use encint::{EncInt, SInt};
    ///
    /// let mut b = Builder::new();
    /// let x = SInt::input(&mut b, 4);
    /// let twice = server.arith().add(&mut b, &x, &x);
    /// let circuit = b.finish(twice.digits);
    /// let u = encint::encrypt(&client, -5, 4)?;
    /// let backend = DigitBackend { server: server.key() };
    /// let inputs: Vec<_> = u.digits().iter().collect();
    /// let out = server.run_circuit_on(&backend, &circuit, &inputs)?;
    /// assert_eq!(encint::decrypt(&client, &EncInt::from_digits(out, client.key_set()))?, -5 + -5);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn run_circuit_on<B: Backend<Value = Digit, Error = Error>>(
        &self,
        backend: &B,
        circuit: &encint_core::circuit::Circuit,
        inputs: &[&Digit],
    ) -> Result<Vec<Digit>> {
        self.check_nodes(circuit.nodes().len() as u64, "the circuit")?;
        let watch = crate::watch::current();
        let watch = watch.as_deref().map(|w| w as _);
        crate::watch::run(backend, circuit, &circuit.plan(), inputs, watch)
    }

    /// Runs one operation; returns the result and the circuit's cost. Errors on a wrong
    /// number of operands, an operation that does not exist on exact integers, or a
    /// result past the limits.
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// use encint::Op;
    /// let a = encint::encrypt(&client, -20, 6)?;
    /// let b = encint::encrypt(&client, 13, 6)?;
    /// let (m, cost) = server.apply(Op::Max, &[&a, &b])?;
    /// assert_eq!(encint::decrypt(&client, &m)?, (-20i128).max(13));
    /// assert!(cost.bootstraps > 0);
    /// assert!(server.apply(Op::Max, &[&a]).is_err()); // two operands
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn apply(&self, op: Op, args: &[&EncInt]) -> Result<(EncInt, Cost)> {
        self.apply_checked(op, args, |args, build| self.eval(args, build))
    }

    /// [`Server::apply`] on another backend (see [`Server::eval_on`]).
    ///
    /// # Examples
    ///
    /// ```
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(server_key);
    /// use encint::backend::digit::DigitBackend;
    /// let backend = DigitBackend { server: server.key() };
    /// let a = encint::encrypt(&client, -7, 4)?;
    /// let (s, _) = server.apply_on(&backend, encint::Op::Square, &[&a])?;
    /// assert_eq!(encint::decrypt(&client, &s)?, (-7) * (-7));
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn apply_on<B: Backend<Value = Digit, Error = Error>>(
        &self,
        backend: &B,
        op: Op,
        args: &[&EncInt],
    ) -> Result<(EncInt, Cost)> {
        self.apply_checked(op, args, |args, build| self.eval_on(backend, args, build))
    }

    fn apply_checked(
        &self,
        op: Op,
        args: &[&EncInt],
        eval: impl FnOnce(
            &[&EncInt],
            &dyn Fn(&Arith, &mut Builder, &[SInt]) -> Vec<SInt>,
        ) -> Result<(Vec<EncInt>, Cost)>,
    ) -> Result<(EncInt, Cost)> {
        op.check_exact(args.len())?;
        let n = args.first().map_or(0, |x| x.len() as u64);
        let m = args.get(1).map_or(0, |x| x.len() as u64);
        let widths: Vec<usize> = args.iter().map(|x| x.len()).collect();
        let est = crate::limits::op_on(op, &widths);
        if est.width > crate::MAX_DIGITS as u64 {
            return Err(Error::LimitExceeded(format!(
                "{op:?} on {n} and {m} digits: an output of up to {} digits, more than the {} allowed",
                est.width,
                crate::MAX_DIGITS
            )));
        }
        self.check_nodes(est.nodes, &format!("{op:?} on {n} and {m} digits"))?;
        // Cannot fail once `Op::check_exact` passed; an error would leave no output (refused below).
        let (mut out, cost) = eval(args, &|ar, b, x| ar.apply(b, op, x).into_iter().collect())?;
        let out = out
            .pop()
            .ok_or_else(|| Error::Internal("the operation built no output".into()))?;
        Ok((out, cost))
    }

    fn one(&self, op: Op, args: &[&EncInt]) -> Result<EncInt> {
        self.apply(op, args).map(|r| r.0)
    }
}

mod operators;

pub(crate) use operators::with_server;
pub use operators::{set_server, unset_server};
