//! Traced mode: record a whole function once and run it as one circuit, so
//! independent operations share bootstrap batches.

use encint_arith::{Arith, SInt};
use encint_core::circuit::{Builder, NodeId};

use crate::{EncInt, Result, Server};

/// Records operations on circuit integers inside [`Server::trace`].
pub struct Tracer<'a> {
    /// The arithmetic.
    pub arith: &'a Arith,
    /// The circuit being recorded.
    pub builder: &'a mut Builder,
}

impl Tracer<'_> {
    /// `a + b`.
    pub fn add(&mut self, a: &SInt, b: &SInt) -> SInt {
        self.arith.add(self.builder, a, b)
    }
    /// `a - b`.
    pub fn sub(&mut self, a: &SInt, b: &SInt) -> SInt {
        self.arith.sub(self.builder, a, b)
    }
    /// `a · b`.
    pub fn mul(&mut self, a: &SInt, b: &SInt) -> SInt {
        self.arith.mul(self.builder, a, b)
    }
    /// `k · a`.
    pub fn mul_scalar(&mut self, a: &SInt, k: i64) -> SInt {
        self.arith.scalar_mul(self.builder, a, k)
    }
    /// `a²`.
    pub fn square(&mut self, a: &SInt) -> SInt {
        self.arith.square(self.builder, a)
    }
    /// `max(a, b)`.
    pub fn max(&mut self, a: &SInt, b: &SInt) -> SInt {
        self.arith.max(self.builder, a, b)
    }
    /// `min(a, b)`.
    pub fn min(&mut self, a: &SInt, b: &SInt) -> SInt {
        self.arith.min(self.builder, a, b)
    }
    /// `sgn(a)` as a one-digit integer.
    pub fn signum(&mut self, a: &SInt) -> SInt {
        let d: NodeId = self.arith.signum(self.builder, a);
        SInt { digits: vec![d] }
    }
    /// Sum of many integers as a balanced tree.
    pub fn sum(&mut self, terms: Vec<SInt>) -> SInt {
        self.arith.sum(self.builder, terms)
    }
}

impl Server {
    /// Runs `f` as one circuit: `f` receives the traced inputs and returns the
    /// traced outputs.
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
        self.eval(inputs, |arith, builder, ins| {
            let mut t = Tracer { arith, builder };
            f(&mut t, ins)
        })
        .map(|r| r.0)
    }
}
