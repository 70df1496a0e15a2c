//! [`FheArray`]: n-dimensional arrays of values of the family. Every call (an elementwise
//! operation, a comparison, a selection, a sum, a dot or matrix product, a reduction) is
//! one circuit, so the bootstraps of all its elements share each level's batch.

use encint_arith::typed::{Form, IntType, Op};
use encint_tfhe::ClientKey;

use super::dynamic;
use super::values::{one_circuit, Values};
use super::{or_panic, wrap, Clear, FheBool, FheInteger, FheType, IntoOperand, Operand};
use crate::{Error, Result};

/// An array of values of one type of the family, row-major, of any shape.
///
/// The operators `+ - * / % & | ^` on `&FheArray<T>` are the elementwise methods
/// ([`FheArray::add`] ...), with an array of the same shape, a value of `T` or a clear
/// integer on the right; they panic where the methods return an error.
///
/// # Examples
///
/// ```
/// use encint::fhe::{set_server_key, FheArray, FheUint8};
/// use encint::{ClientKey, DEFAULT_PARAMETERS};
///
/// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
/// set_server_key(server_key);
/// let x = FheArray::<FheUint8>::encrypt(&[1u8, 2, 3, 4], &[4], &client)?;
/// let w = FheArray::<FheUint8>::encrypt(&[5u8, 6, 7, 8], &[4], &client)?;
/// let d = x.dot(&w)?; // one circuit: four products and their sum
/// assert_eq!(d.decrypt::<u8>(&client)?, 70);
/// let y = x.add(&w)?.mul(3u8)?; // elementwise, then by a clear scalar
/// assert_eq!(y.decrypt::<u8>(&client)?, vec![18, 24, 30, 36]);
/// let m = FheArray::<FheUint8>::encrypt(&[1u8, 2, 3, 4], &[2, 2], &client)?;
/// assert_eq!(m.matmul(&m)?.decrypt::<u8>(&client)?, vec![7, 10, 15, 22]);
/// # Ok::<(), encint::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct FheArray<T> {
    shape: Vec<usize>,
    items: Vec<T>,
}

/// The right operand of an elementwise operation on an [`FheArray<T>`]: an array of the
/// same shape, or one value broadcast to every element (a value of `T`, or a clear one).
#[derive(Debug)]
pub enum ArrayOperand<'a, T> {
    /// An array of the same shape.
    Array(&'a FheArray<T>),
    /// One value for every element.
    Scalar(Operand<'a>),
}

/// What may stand right of an elementwise operation on [`FheArray<T>`]: `&FheArray<T>`,
/// a value of `T` (`T` or `&T`), or a clear integer (`bool` for booleans).
pub trait IntoArrayOperand<T> {
    /// The operand.
    fn array_operand(&self) -> ArrayOperand<'_, T>;
}

impl<T> IntoArrayOperand<T> for &FheArray<T> {
    fn array_operand(&self) -> ArrayOperand<'_, T> {
        ArrayOperand::Array(self)
    }
}

macro_rules! scalar_operands {
    ($($t:ty),*) => {$(
        impl<T> IntoArrayOperand<T> for $t where $t: IntoOperand<T> {
            fn array_operand(&self) -> ArrayOperand<'_, T> {
                ArrayOperand::Scalar(self.operand())
            }
        }
    )*};
}
scalar_operands!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, bool);

impl<const N: usize, const S: bool> IntoArrayOperand<FheInteger<N, S>> for &FheInteger<N, S> {
    fn array_operand(&self) -> ArrayOperand<'_, FheInteger<N, S>> {
        ArrayOperand::Scalar(Operand::Value(self.repr()))
    }
}

impl IntoArrayOperand<FheBool> for &FheBool {
    fn array_operand(&self) -> ArrayOperand<'_, FheBool> {
        ArrayOperand::Scalar(Operand::Value(self.repr()))
    }
}

impl<T> FheArray<T> {
    /// An array of `items` (row-major) of shape `shape`; errors if the element count is
    /// not the product of the shape.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// // Four values reshaped into a 2 × 2 matrix, squared.
    /// let f = compile_with(vec![4], |x: FheArray<FheUint8>| {
    ///     assert!(FheArray::new(x.items().to_vec(), vec![3]).is_err()); // 4 elements, not 3
    ///     let m = FheArray::new(x.into_items(), vec![2, 2]).expect("2 × 2 = 4");
    ///     m.matmul(&m).expect("two 2 × 2 matrices")
    /// })?;
    /// let [a, b, c, d] = [1u8, 2, 3, 4];
    /// let expected = [a * a + b * c, a * b + b * d, c * a + d * c, c * b + d * d];
    /// assert_eq!(f.run_clear(&[1, 2, 3, 4])?, expected.map(i128::from).to_vec());
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn new(items: Vec<T>, shape: Vec<usize>) -> Result<Self> {
        let n = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
        if n != Some(items.len()) {
            return Err(Error::ShapeMismatch(format!(
                "{} elements for the shape {shape:?}",
                items.len()
            )));
        }
        Ok(FheArray { shape, items })
    }

    /// The shape.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// let f = compile_with(vec![2, 3], |x: FheArray<FheUint8>| {
    ///     assert_eq!(x.shape(), &[2, 3]);
    ///     x.sum().expect("a non-empty array")
    /// })?;
    /// assert_eq!(f.run_clear(&[1, 2, 3, 4, 5, 6])?, vec![1 + 2 + 3 + 4 + 5 + 6]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The elements, row-major.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// let f = compile_with(vec![2, 3], |x: FheArray<FheUint8>| {
    ///     assert_eq!(x.items().len(), 2 * 3);
    ///     x.sum().expect("a non-empty array")
    /// })?;
    /// assert_eq!(f.run_clear(&[1, 2, 3, 4, 5, 6])?, vec![1 + 2 + 3 + 4 + 5 + 6]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// The elements, row-major.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// let f = compile_with(vec![2, 3], |x: FheArray<FheUint8>| {
    ///     let mut items = x.into_items(); // the six values, row-major
    ///     items.swap(0, 5);
    ///     FheArray::new(items, vec![6]).expect("six values")
    /// })?;
    /// assert_eq!(f.run_clear(&[1, 2, 3, 4, 5, 6])?, vec![6, 2, 3, 4, 5, 1]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn into_items(self) -> Vec<T> {
        self.items
    }

    /// Number of elements.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// let f = compile_with(vec![2, 3], |x: FheArray<FheUint8>| {
    ///     assert_eq!(x.len(), 6);
    ///     x.sum().expect("a non-empty array")
    /// })?;
    /// assert_eq!(f.run_clear(&[1, 2, 3, 4, 5, 6])?, vec![1 + 2 + 3 + 4 + 5 + 6]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the array has no element.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8};
    ///
    /// let f = compile_with(vec![2, 3], |x: FheArray<FheUint8>| {
    ///     assert!(!x.is_empty());
    ///     x.sum().expect("a non-empty array")
    /// })?;
    /// assert_eq!(f.run_clear(&[1, 2, 3, 4, 5, 6])?, vec![1 + 2 + 3 + 4 + 5 + 6]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// Refuses the encryption of `count` values of `ty` in the default form whose ciphertexts
/// would pass [`crate::limits::MAX_CIPHERTEXT_BYTES`].
fn check_encryption(count: usize, ty: IntType, client: &ClientKey) -> Result<()> {
    let count = u64::try_from(count).unwrap_or(u64::MAX);
    crate::limits::check_ciphertexts(
        "an array's encryption",
        count,
        ty,
        Form::DEFAULT,
        client.params(),
    )
}

impl<const N: usize, const S: bool> FheArray<FheInteger<N, S>> {
    /// Encrypts `values` (row-major) as an array of shape `shape`; errors on a value
    /// outside the type or a count that does not match the shape.
    ///
    /// Refused before anything is allocated ([`Error::LimitExceeded`]): ciphertexts of
    /// more than [`MAX_CIPHERTEXT_BYTES`](crate::limits::MAX_CIPHERTEXT_BYTES).
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{FheArray, FheInt8};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let m = FheArray::<FheInt8>::encrypt(&[-1i8, 2, -3, 4, -5, 6], &[2, 3], &client)?;
    /// assert_eq!(m.shape(), &[2, 3]);
    /// assert!(FheArray::<FheInt8>::encrypt(&[1i8, 2], &[3], &client).is_err()); // 2 ≠ 3
    /// assert!(FheArray::<FheInt8>::encrypt(&[200u8], &[1], &client).is_err()); // no i8
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn encrypt<C: Clear>(values: &[C], shape: &[usize], client: &ClientKey) -> Result<Self> {
        check_encryption(values.len(), FheInteger::<N, S>::TYPE, client)?;
        let items = values
            .iter()
            .map(|&v| FheInteger::encrypt(v, client))
            .collect::<Result<Vec<_>>>()?;
        FheArray::new(items, shape.to_vec())
    }

    /// Decrypts every element into `C`, row-major; errors as
    /// [`FheInteger::decrypt`] does.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{set_server_key, FheArray, FheUint8};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// set_server_key(server_key);
    /// let x = FheArray::<FheUint8>::encrypt(&[250u8, 3], &[2], &client)?;
    /// let y = &x + 10u8; // one circuit for both elements
    /// assert_eq!(y.decrypt::<u8>(&client)?, vec![250u8.wrapping_add(10), 3 + 10]);
    /// assert_eq!(y.decrypt::<u16>(&client)?, vec![4, 13]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn decrypt<C: Clear>(&self, client: &ClientKey) -> Result<Vec<C>> {
        self.items.iter().map(|x| x.decrypt(client)).collect()
    }
}

impl FheArray<FheBool> {
    /// Encrypts booleans (row-major) as an array of shape `shape`; refused as
    /// [`FheArray::<FheUint8>::encrypt`](FheArray::encrypt) is.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{FheArray, FheBool};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, _) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// let m = FheArray::<FheBool>::encrypt(&[true, false, false, true], &[2, 2], &client)?;
    /// assert_eq!((m.shape(), m.len()), (&[2, 2][..], 4));
    /// assert!(FheArray::<FheBool>::encrypt(&[true], &[2], &client).is_err());
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn encrypt(values: &[bool], shape: &[usize], client: &ClientKey) -> Result<Self> {
        check_encryption(values.len(), IntType::BOOL, client)?;
        let items = values
            .iter()
            .map(|&v| FheBool::encrypt(v, client))
            .collect::<Result<Vec<_>>>()?;
        FheArray::new(items, shape.to_vec())
    }

    /// Decrypts every element, row-major.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{set_server_key, FheArray, FheUint8};
    /// use encint::{ClientKey, DEFAULT_PARAMETERS};
    ///
    /// let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    /// set_server_key(server_key);
    /// let clear = [7u8, 200, 13];
    /// let x = FheArray::<FheUint8>::encrypt(&clear, &[3], &client)?;
    /// let big = x.gt(100u8)?; // an array of booleans
    /// assert_eq!(big.decrypt(&client)?, clear.map(|v| v > 100).to_vec());
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn decrypt(&self, client: &ClientKey) -> Result<Vec<bool>> {
        self.items.iter().map(|x| x.decrypt(client)).collect()
    }

    /// Elementwise `if c { a } else { b }` (NumPy's `where`), one circuit; `a` and `b`
    /// arrays of this shape or values broadcast.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheBool, FheInt8};
    ///
    /// // ReLU: `where(x > 0, x, 0)`.
    /// let relu = compile_with(vec![4], |x: FheArray<FheInt8>| {
    ///     let positive: FheArray<FheBool> = x.gt(0i8).expect("a comparison");
    ///     positive.select(&x, 0i8).expect("one shape")
    /// })?;
    /// let x = [-5i8, 7, 0, -128];
    /// let expected = x.map(|v| i128::from(v.max(0))).to_vec();
    /// assert_eq!(relu.run_clear(&x.map(i128::from))?, expected);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn select<T: FheType>(
        &self,
        a: impl IntoArrayOperand<T>,
        b: impl IntoArrayOperand<T>,
    ) -> Result<FheArray<T>>
    where
        FheArray<T>: Values,
    {
        let (a_arr, a_clear) = split(&a.array_operand(), &self.shape)?;
        let (b_arr, b_clear) = split(&b.array_operand(), &self.shape)?;
        one_circuit((self.clone(), a_arr, b_arr), |(c, a, b)| {
            let items = c
                .items
                .iter()
                .enumerate()
                .map(|(i, ci)| {
                    let (x, y) = (element(&a, a_clear, i), element(&b, b_clear, i));
                    wrap(dynamic::select(ci.repr(), x, y, T::static_type()))
                })
                .collect::<Result<Vec<T>>>()?;
            FheArray::new(items, c.shape.clone())
        })
    }
}

/// An operand as an array: of `shape` (cloned), or of one value broadcast (an encrypted
/// value), or a clear value.
fn split<T: FheType>(
    o: &ArrayOperand<'_, T>,
    shape: &[usize],
) -> Result<(Option<FheArray<T>>, Option<i128>)> {
    match o {
        ArrayOperand::Array(a) if a.shape == shape => Ok((Some((*a).clone()), None)),
        ArrayOperand::Array(a) => Err(Error::ShapeMismatch(format!(
            "arrays of shapes {shape:?} and {:?}",
            a.shape
        ))),
        ArrayOperand::Scalar(Operand::Value(r)) => Ok((
            Some(FheArray::new(vec![T::from_repr((*r).clone())?], vec![1])?),
            None,
        )),
        ArrayOperand::Scalar(Operand::Clear(k)) => Ok((None, Some(*k))),
    }
}

/// Element `i` of a split operand (a one-element array is broadcast).
fn element<'a, T: FheType>(
    arr: &'a Option<FheArray<T>>,
    clear: Option<i128>,
    i: usize,
) -> Operand<'a> {
    match arr {
        Some(a) if a.items.len() == 1 => Operand::Value(a.items[0].repr()),
        Some(a) => Operand::Value(a.items[i].repr()),
        None => Operand::Clear(clear.unwrap_or(0)),
    }
}

mod elementwise;
mod reductions;

/// `op` on `x` and `rhs` with a result of type `O` (refused if `op` gives another type).
fn checked_binary<T: FheType, O: FheType>(op: Op, x: &T, rhs: Operand<'_>) -> Result<O> {
    wrap(dynamic::binary(op, x.repr(), rhs))
}

/// `Σ xᵢ·yᵢ` over two lists of one length: one sum of products
/// ([`crate::fhe::Composer::dot`]).
fn dot<T: FheType>(x: &[T], y: &[T]) -> Result<T> {
    let args: Vec<_> = x.iter().chain(y).map(FheType::repr).collect();
    let n = x.len();
    wrap(dynamic::record(&args, |c, v| {
        let (a, b): (Vec<_>, Vec<_>) = (v[..n].iter().collect(), v[n..].iter().collect());
        c.dot(&a, &b)
    }))
}

/// `Σ xᵢ` as one reduction ([`crate::fhe::Composer::sum`]).
fn sum<T: FheType>(x: &[T]) -> Result<T> {
    let args: Vec<_> = x.iter().map(FheType::repr).collect();
    wrap(dynamic::record(&args, |c, v| {
        let xs: Vec<_> = v.iter().collect();
        c.sum(&xs)
    }))
}

/// `Σ xᵢ·wᵢ + c` with clear weights and constant ([`crate::fhe::Composer::dot_clear`]).
fn dot_clear<T: FheType>(x: &[T], w: &[i128], c: i128) -> Result<T> {
    let args: Vec<_> = x.iter().map(FheType::repr).collect();
    wrap(dynamic::record(&args, |comp, v| {
        let xs: Vec<_> = v.iter().collect();
        comp.dot_clear(&xs, w, c)
    }))
}

impl FheArray<super::FheValue> {
    /// The matrix product of a `(n, k)` and a `(k, m)` array whose elements may be of any
    /// (narrower) types, plus `bias` (`m` values added to every row) when given, as values
    /// of `ty`: each product exact, each sum modulo `2^N` of `ty`; one circuit, each entry
    /// one counter tree over the operands' own bits (so small weights and activations
    /// summed into a wide accumulator pay only for their own bits). Errors on shapes that
    /// do not match.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheValue};
    /// use encint::typed::IntType;
    ///
    /// let (u4, i4) = (IntType::new(4, false)?, IntType::new(4, true)?);
    /// let i16t = IntType::new(16, true)?;
    /// type V = FheArray<FheValue>;
    /// // A (1, 2) row of u4 activations times a (2, 1) column of i4 weights, summed in i16.
    /// let f = compile_with(((vec![1, 2], u4), (vec![2, 1], i4)), move |(x, w): (V, V)| {
    ///     x.matmul_widening(&w, None, i16t).expect("(1, 2) · (2, 1)")
    /// })?;
    /// assert_eq!(f.run_clear(&[15, 9, -8, 7])?, vec![15 * -8 + 9 * 7]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn matmul_widening(
        &self,
        rhs: &FheArray<super::FheValue>,
        bias: Option<&FheArray<super::FheValue>>,
        ty: encint_arith::typed::IntType,
    ) -> Result<FheArray<super::FheValue>> {
        let (&[n, k], &[k2, m]) = (self.shape.as_slice(), rhs.shape.as_slice()) else {
            return Err(Error::ShapeMismatch(format!(
                "matmul of shapes {:?} and {:?}: two matrices",
                self.shape, rhs.shape
            )));
        };
        if k != k2 || bias.is_some_and(|b| b.items.len() != m) {
            return Err(Error::ShapeMismatch(format!(
                "matmul of shapes {:?} and {:?} with {} biases",
                self.shape,
                rhs.shape,
                bias.map_or(0, |b| b.items.len())
            )));
        }
        one_circuit((self.clone(), rhs.clone(), bias.cloned()), |(x, y, c)| {
            let mut items = Vec::with_capacity(n * m);
            for i in 0..n {
                for j in 0..m {
                    let mut args: Vec<_> = x.items[i * k..(i + 1) * k]
                        .iter()
                        .map(FheType::repr)
                        .collect();
                    args.extend((0..k).map(|t| y.items[t * m + j].repr()));
                    if let Some(c) = &c {
                        args.push(c.items[j].repr());
                    }
                    items.push(wrap(dynamic::record(&args, |comp, v| {
                        let xs: Vec<_> = v[..k].iter().collect();
                        let ys: Vec<_> = v[k..2 * k].iter().collect();
                        let cs: Vec<_> = v[2 * k..].iter().collect();
                        comp.dot_widening(&xs, &ys, &cs, ty)
                    }))?);
                }
            }
            FheArray::new(items, vec![n, m])
        })
    }
}

/// `op` over `items` as a balanced tree (its depth grows as the logarithm of the count).
fn tree<T: FheType>(op: Op, mut items: Vec<T>) -> Result<T> {
    if items.is_empty() {
        return match op {
            Op::Add => Err(Error::ShapeMismatch(
                "the sum of an empty array inside a circuit has no input to hold it".into(),
            )),
            _ => Err(Error::ShapeMismatch(format!("{op} of an empty array"))),
        };
    }
    while items.len() > 1 {
        let mut next = Vec::with_capacity(items.len().div_ceil(2));
        let mut it = items.into_iter();
        while let Some(a) = it.next() {
            match it.next() {
                Some(b) => next.push(checked_binary(op, &a, Operand::Value(b.repr()))?),
                None => next.push(a),
            }
        }
        items = next;
    }
    items
        .pop()
        .ok_or_else(|| Error::ShapeMismatch("an empty reduction".into()))
}

/// Operators on arrays (`&x + &y`, `&x * 3u8`, ...): the methods above, panicking on their
/// errors as the family's operators do.
macro_rules! array_operators {
    ($($trait:ident $method:ident => $call:ident;)*) => {$(
        impl<T: FheType, R: IntoArrayOperand<T>> std::ops::$trait<R> for &FheArray<T>
        where
            FheArray<T>: Values,
        {
            type Output = FheArray<T>;
            fn $method(self, rhs: R) -> FheArray<T> {
                or_panic(self.$call(rhs))
            }
        }
    )*};
}
array_operators! {
    Add add => add;
    Sub sub => sub;
    Mul mul => mul;
    Div div => div;
    Rem rem => rem;
    BitAnd bitand => bitand;
    BitOr bitor => bitor;
    BitXor bitxor => bitxor;
}
