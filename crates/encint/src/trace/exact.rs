//! A Rust closure on exact integers recorded into one circuit ([`Tracer`],
//! [`Server::trace`]).

use encint_arith::{Arith, SInt};
use encint_core::circuit::{Builder, NodeId};

use crate::limits::{self, Estimate, Limits};
use crate::{EncInt, Error, Op, Result, Server};

/// Records operations on circuit integers inside [`Server::trace`].
///
/// Each operation is checked before it is built: its output width (an upper bound) must
/// fit [`Limits::max_digits`] and the circuit recorded so far plus its node estimate must
/// fit [`Limits::max_nodes`] (see [`crate::limits`]). The first operation that would pass
/// a limit is not built: it and every later operation return an empty integer, and
/// [`Server::trace`] returns the error ([`Error::LimitExceeded`], naming the operation)
/// before the circuit is finished or anything runs.
pub struct Tracer<'a> {
    /// The arithmetic.
    pub arith: &'a Arith,
    /// The circuit being recorded.
    pub builder: &'a mut Builder,
    limits: Limits,
    recorded: usize,
    error: Option<Error>,
}

impl std::fmt::Debug for Tracer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tracer")
            .field("recorded", &self.recorded)
            .field("limits", &self.limits)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl<'a> Tracer<'a> {
    /// A tracer recording into `builder`, checked against `limits`.
    pub fn new(arith: &'a Arith, builder: &'a mut Builder, limits: Limits) -> Self {
        Tracer {
            arith,
            builder,
            limits,
            recorded: 0,
            error: None,
        }
    }

    /// The error of the first operation refused, if any (it and the later operations were
    /// not built).
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// The recorded outputs, or the error of the first refused operation.
    pub fn finish(self, outputs: Vec<SInt>) -> Result<Vec<SInt>> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(outputs),
        }
    }

    /// Checks one operation before it is built; `false` (and the error kept) if it would
    /// pass a limit or an earlier one did.
    fn admit(&mut self, name: &str, est: Estimate) -> bool {
        if self.error.is_some() {
            return false;
        }
        let index = self.recorded;
        self.recorded += 1;
        let so_far = u64::try_from(self.builder.node_count()).unwrap_or(u64::MAX);
        match super::admit(&self.limits, index, name, est, so_far) {
            Ok(()) => true,
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }

    fn op(&mut self, op: Op, args: &[&SInt]) -> SInt {
        let widths: Vec<usize> = args.iter().map(|x| x.len()).collect();
        if !self.admit(&format!("{op:?}"), limits::op_on(op, &widths)) {
            return SInt::default();
        }
        let owned: Vec<SInt> = args.iter().map(|&x| x.clone()).collect();
        match self.arith.apply(self.builder, op, &owned) {
            Ok(s) => s,
            Err(e) => {
                self.error = Some(e.into());
                SInt::default()
            }
        }
    }

    /// `a + b`.
    pub fn add(&mut self, a: &SInt, b: &SInt) -> SInt {
        self.op(Op::Add, &[a, b])
    }
    /// `a - b`.
    pub fn sub(&mut self, a: &SInt, b: &SInt) -> SInt {
        self.op(Op::Sub, &[a, b])
    }
    /// `a · b`.
    pub fn mul(&mut self, a: &SInt, b: &SInt) -> SInt {
        self.op(Op::Mul, &[a, b])
    }
    /// `k · a`.
    pub fn mul_scalar(&mut self, a: &SInt, k: i64) -> SInt {
        self.op(Op::ScalarMul(k.into()), &[a])
    }
    /// `a²`.
    pub fn square(&mut self, a: &SInt) -> SInt {
        self.op(Op::Square, &[a])
    }
    /// `max(a, b)`.
    pub fn max(&mut self, a: &SInt, b: &SInt) -> SInt {
        self.op(Op::Max, &[a, b])
    }
    /// `min(a, b)`.
    pub fn min(&mut self, a: &SInt, b: &SInt) -> SInt {
        self.op(Op::Min, &[a, b])
    }
    /// `sgn(a)` as a one-digit integer.
    pub fn signum(&mut self, a: &SInt) -> SInt {
        if !self.admit("Signum", limits::op(Op::Signum, a.len(), 0)) {
            return SInt::default();
        }
        let d: NodeId = self.arith.signum(self.builder, a);
        SInt { digits: vec![d] }
    }
    /// Sum of many integers as a balanced tree.
    pub fn sum(&mut self, terms: Vec<SInt>) -> SInt {
        let widest = terms.iter().map(SInt::len).max().unwrap_or(0);
        if !self.admit("sum", limits::sum(terms.len(), widest)) {
            return SInt::default();
        }
        self.arith.sum(self.builder, terms)
    }
}

impl Server {
    /// Runs `f` as one circuit: `f` receives the traced inputs and returns the
    /// traced outputs. An operation that would pass the digit or node limit stops the
    /// trace ([`Error::LimitExceeded`], see [`Tracer`]) before the circuit is finished.
    ///
    /// ```no_run
    /// # use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
    /// # let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// # let server = Server::new(key);
    /// let xs: Vec<_> = [3, -5, 7].iter().map(|&v| encint::encrypt(&client, v, 4).unwrap()).collect();
    /// let refs: Vec<&encint::EncInt> = xs.iter().collect();
    /// // 3·x0 - 5·x1 + 7·x2 with every scalar product in the same batches.
    /// let out = server.trace(&refs, |t, x| {
    ///     let terms = vec![t.mul_scalar(&x[0], 3), t.mul_scalar(&x[1], -5), t.mul_scalar(&x[2], 7)];
    ///     vec![t.sum(terms)]
    /// }).unwrap();
    /// assert_eq!(encint::decrypt(&client, &out[0]).unwrap(), 9 + 25 + 49);
    /// ```
    pub fn trace(
        &self,
        inputs: &[&EncInt],
        f: impl FnOnce(&mut Tracer<'_>, &[SInt]) -> Vec<SInt>,
    ) -> Result<Vec<EncInt>> {
        let limits = Limits {
            max_digits: crate::MAX_DIGITS as u64,
            max_nodes: self.max_nodes(),
        };
        self.eval_fallible(inputs, |arith, builder, ins| {
            let mut t = Tracer::new(arith, builder, limits);
            let outputs = f(&mut t, ins);
            t.finish(outputs)
        })
        .map(|r| r.0)
    }
}
