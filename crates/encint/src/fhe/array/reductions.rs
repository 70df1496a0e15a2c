//! The array operations of one circuit over many elements: a function or an operation
//! applied elementwise, reductions (sum, min, max), dot and matrix products (encrypted or
//! clear weights).

use encint_arith::typed::Op;

use super::*;

impl<T: FheType> FheArray<T>
where
    FheArray<T>: Values,
{
    /// `op` elementwise on `self` and `rhs` (an array of this shape, or one value for
    /// every element), results of type `O`: one circuit. Errors on another shape, or an
    /// `op` whose results are not of type `O`.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheBool, FheUint8};
    /// use encint::typed::Op;
    ///
    /// type A = FheArray<FheUint8>;
    /// let f = compile_with((vec![2], vec![2]), |(x, y): (A, A)| {
    ///     let lt: FheArray<FheBool> = x.elementwise(Op::LT, &y).expect("one shape");
    ///     let sum: A = x.elementwise(Op::Add, 1u8).expect("a u8 result"); // x + 1, broadcast
    ///     (lt, sum)
    /// })?;
    /// let (x, y) = ([3u8, 255], [4u8, 1]);
    /// let expected = [x[0] < y[0], x[1] < y[1]].map(i128::from);
    /// let sums = x.map(|v| i128::from(v.wrapping_add(1)));
    /// assert_eq!(f.run_clear(&[3, 255, 4, 1])?, [expected, sums].concat());
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn elementwise<O: FheType>(
        &self,
        op: Op,
        rhs: impl IntoArrayOperand<T>,
    ) -> Result<FheArray<O>>
    where
        FheArray<O>: Values,
    {
        let (arr, clear) = split(&rhs.array_operand(), &self.shape)?;
        one_circuit((self.clone(), arr), |(x, arr)| {
            let items = x
                .items
                .iter()
                .enumerate()
                .map(|(i, xi)| checked_binary::<T, O>(op, xi, element(&arr, clear, i)))
                .collect::<Result<Vec<O>>>()?;
            FheArray::new(items, x.shape.clone())
        })
    }

    /// `op` (neg, not, square, a scalar product, ...) on every element: one circuit.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheInt8};
    /// use encint::typed::Op;
    ///
    /// let neg = compile_with(vec![3], |x: FheArray<FheInt8>| x.map_unary(Op::Neg).expect("-x"))?;
    /// let x = [5i8, -100, i8::MIN];
    /// let expected = x.map(|v| i128::from(v.wrapping_neg())).to_vec();
    /// assert_eq!(neg.run_clear(&x.map(i128::from))?, expected);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn map_unary(&self, op: Op) -> Result<FheArray<T>> {
        self.map_unary_to(op)
    }

    /// `op` on every element, its results of the type `O` (the counts of bits give
    /// [`FheUint32`](crate::fhe::FheUint32) values, a cast its target): one circuit. Errors
    /// when `op`'s results are not of `O`'s type.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint16, FheUint32};
    /// use encint::typed::Op;
    ///
    /// let lz = compile_with(vec![3], |x: FheArray<FheUint16>| {
    ///     x.map_unary_to::<FheUint32>(Op::LeadingZeros).expect("u32 counts")
    /// })?;
    /// let x = [1u16, 0x0f00, 0];
    /// let expected = x.map(|v| i128::from(v.leading_zeros())).to_vec();
    /// assert_eq!(lz.run_clear(&x.map(i128::from))?, expected);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn map_unary_to<O: FheType>(&self, op: Op) -> Result<FheArray<O>>
    where
        FheArray<O>: Values,
    {
        if op.arity() != 1 {
            return Err(Error::WrongOperation(format!(
                "{op} takes more than one operand"
            )));
        }
        one_circuit(self.clone(), |x| {
            let items = x
                .items
                .iter()
                .map(|xi| O::from_repr(dynamic::unary(op, xi.repr())?))
                .collect::<Result<Vec<O>>>()?;
            FheArray::new(items, x.shape.clone())
        })
    }

    /// The sum of every element (wrapping): one circuit, one multi-operand reduction (a
    /// counter tree over all the elements' bits, or their radix-4 digit columns reduced
    /// once, or a tree of additions when the planner estimates it faster; see
    /// [`crate::fhe::Composer::sum`]). Errors on an empty array.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// let sum = compile_with(vec![4], |x: FheArray<FheUint8>| x.sum().expect("four values"))?;
    /// let x = [200u8, 100, 7, 1];
    /// let expected = x.iter().fold(0u8, |s, &v| s.wrapping_add(v));
    /// assert_eq!(sum.run_clear(&x.map(i128::from))?, vec![i128::from(expected)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn sum(&self) -> Result<T> {
        if self.items.is_empty() {
            return Err(Error::ShapeMismatch(
                "the sum of an empty array inside a circuit has no input to hold it".into(),
            ));
        }
        one_circuit(self.clone(), |x| sum(&x.items))
    }

    /// The smallest element, signed: one circuit; errors on an empty array.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheInt8};
    ///
    /// let f = compile_with(vec![4], |x: FheArray<FheInt8>| x.min().expect("four values"))?;
    /// let x = [-5i8, 7, -100, 3];
    /// let expected = x.iter().copied().min().expect("four values");
    /// assert_eq!(f.run_clear(&x.map(i128::from))?, vec![i128::from(expected)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn min(&self) -> Result<T> {
        self.reduce(Op::Min)
    }

    /// The largest element: one circuit; errors on an empty array.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// let f = compile_with(vec![4], |x: FheArray<FheUint8>| x.max().expect("four values"))?;
    /// let x = [5u8, 7, 200, 3];
    /// let expected = x.iter().copied().max().expect("four values");
    /// assert_eq!(f.run_clear(&x.map(i128::from))?, vec![i128::from(expected)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn max(&self) -> Result<T> {
        self.reduce(Op::Max)
    }

    /// `Σ selfᵢ · rhsᵢ` over two one-dimensional arrays of one length (wrapping): one
    /// circuit. Errors unless both arrays are vectors of one length.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheInt8};
    ///
    /// type V = FheArray<FheInt8>;
    /// let dot = compile_with((vec![3], vec![3]), |(x, y): (V, V)| x.dot(&y).expect("3 and 3"))?;
    /// let (x, y) = ([10i8, -20, 30], [5i8, 6, -7]);
    /// let expected = (0..3).fold(0i8, |s, i| s.wrapping_add(x[i].wrapping_mul(y[i])));
    /// let args: Vec<i128> = x.iter().chain(&y).map(|&v| v.into()).collect();
    /// assert_eq!(dot.run_clear(&args)?, vec![i128::from(expected)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn dot(&self, rhs: &FheArray<T>) -> Result<T> {
        if self.shape.len() != 1 || rhs.shape != self.shape {
            return Err(Error::ShapeMismatch(format!(
                "dot of shapes {:?} and {:?}: two vectors of one length",
                self.shape, rhs.shape
            )));
        }
        one_circuit((self.clone(), rhs.clone()), |(x, y)| {
            dot(&x.items, &y.items)
        })
    }

    /// The matrix product of a `(n, k)` and a `(k, m)` array (wrapping): one circuit.
    /// Errors unless both are matrices with matching inner sizes.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// type M = FheArray<FheUint8>;
    /// let f = compile_with((vec![1, 2], vec![2, 2]), |(x, w): (M, M)| {
    ///     assert!(w.matmul(&x).is_err()); // (2, 2) · (1, 2): inner sizes differ
    ///     x.matmul(&w).expect("(1, 2) · (2, 2)")
    /// })?;
    /// let (x, w) = ([3u8, 10], [1u8, 2, 3, 4]);
    /// let expected = [x[0] * w[0] + x[1] * w[2], x[0] * w[1] + x[1] * w[3]];
    /// assert_eq!(f.run_clear(&[3, 10, 1, 2, 3, 4])?, expected.map(i128::from).to_vec());
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn matmul(&self, rhs: &FheArray<T>) -> Result<FheArray<T>> {
        let (&[n, k], &[k2, m]) = (self.shape.as_slice(), rhs.shape.as_slice()) else {
            return Err(Error::ShapeMismatch(format!(
                "matmul of shapes {:?} and {:?}: two matrices",
                self.shape, rhs.shape
            )));
        };
        if k != k2 {
            return Err(Error::ShapeMismatch(format!(
                "matmul of shapes {:?} and {:?}: inner sizes differ",
                self.shape, rhs.shape
            )));
        }
        one_circuit((self.clone(), rhs.clone()), |(x, y)| {
            let mut items = Vec::with_capacity(n * m);
            for i in 0..n {
                for j in 0..m {
                    let row = &x.items[i * k..(i + 1) * k];
                    let col: Vec<T> = (0..k).map(|t| y.items[t * m + j].clone()).collect();
                    items.push(dot(row, &col)?);
                }
            }
            FheArray::new(items, vec![n, m])
        })
    }

    /// `Σ selfᵢ · wᵢ` over a one-dimensional array and clear weights `w` of its length
    /// (wrapping): one circuit. The weights are folded into one counter tree over the
    /// elements' bits, so only the reduction bootstraps (a zero weight costs nothing).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheInt8};
    ///
    /// let w = [3, 0, -2];
    /// let f = compile_with(vec![3], move |x: FheArray<FheInt8>| x.dot_clear(&w).expect("3"))?;
    /// let x = [20i8, 99, -40];
    /// let expected = (0..3).fold(0i8, |s, i| s.wrapping_add(x[i].wrapping_mul(w[i] as i8)));
    /// assert_eq!(f.run_clear(&x.map(i128::from))?, vec![i128::from(expected)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn dot_clear(&self, w: &[i128]) -> Result<T> {
        if self.shape.len() != 1 || self.items.len() != w.len() {
            return Err(Error::ShapeMismatch(format!(
                "dot of shape {:?} with {} clear weights: a vector and weights of its length",
                self.shape,
                w.len()
            )));
        }
        one_circuit(self.clone(), |x| dot_clear(&x.items, w, 0))
    }

    /// `self · w + bias` for a `(n, k)` array, a clear `(k, m)` matrix `w` (row-major) and
    /// a clear bias of `m` values added to every row (wrapping): one circuit, each result
    /// one counter tree with the weights and its bias folded in (see
    /// [`FheArray::dot_clear`]). Errors on shapes that do not match.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheInt8};
    ///
    /// // One dense layer: a (1, 2) input, a clear (2, 2) weight matrix and bias.
    /// let (w, bias) = ([1, -1, 2, 3], [10, -10]);
    /// let layer = compile_with(vec![1, 2], move |x: FheArray<FheInt8>| {
    ///     x.matmul_clear(&w, [2, 2], &bias).expect("(1, 2) · (2, 2)")
    /// })?;
    /// let x = [7i8, -4];
    /// let y0 = x[0] * w[0] as i8 + x[1] * w[2] as i8 + bias[0] as i8;
    /// let y1 = x[0] * w[1] as i8 + x[1] * w[3] as i8 + bias[1] as i8;
    /// assert_eq!(layer.run_clear(&x.map(i128::from))?, vec![i128::from(y0), i128::from(y1)]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn matmul_clear(
        &self,
        w: &[i128],
        w_shape: [usize; 2],
        bias: &[i128],
    ) -> Result<FheArray<T>> {
        let [k2, m] = w_shape;
        let &[n, k] = self.shape.as_slice() else {
            return Err(Error::ShapeMismatch(format!(
                "matmul of shape {:?} with a clear matrix: a matrix on the left",
                self.shape
            )));
        };
        if k != k2 || k2.checked_mul(m) != Some(w.len()) || bias.len() != m {
            return Err(Error::ShapeMismatch(format!(
                "matmul of shape {:?} with a clear matrix of shape {w_shape:?}, {} weights \
                 and {} biases",
                self.shape,
                w.len(),
                bias.len()
            )));
        }
        one_circuit(self.clone(), |x| {
            let mut items = Vec::with_capacity(n * m);
            for i in 0..n {
                let row = &x.items[i * k..(i + 1) * k];
                for j in 0..m {
                    let col: Vec<i128> = (0..k).map(|t| w[t * m + j]).collect();
                    items.push(dot_clear(row, &col, bias[j])?);
                }
            }
            FheArray::new(items, vec![n, m])
        })
    }

    fn reduce(&self, op: Op) -> Result<T> {
        one_circuit(self.clone(), |x| tree(op, x.items))
    }
}
