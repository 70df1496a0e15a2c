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
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The elements, row-major.
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// The elements, row-major.
    pub fn into_items(self) -> Vec<T> {
        self.items
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the array has no element.
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
    pub fn encrypt<C: Clear>(values: &[C], shape: &[usize], client: &ClientKey) -> Result<Self> {
        check_encryption(values.len(), FheInteger::<N, S>::TYPE, client)?;
        let items = values
            .iter()
            .map(|&v| FheInteger::encrypt(v, client))
            .collect::<Result<Vec<_>>>()?;
        FheArray::new(items, shape.to_vec())
    }

    /// Decrypts every element into `C`, row-major.
    pub fn decrypt<C: Clear>(&self, client: &ClientKey) -> Result<Vec<C>> {
        self.items.iter().map(|x| x.decrypt(client)).collect()
    }
}

impl FheArray<FheBool> {
    /// Encrypts booleans (row-major) as an array of shape `shape`; refused as
    /// [`FheArray::<FheUint8>::encrypt`](FheArray::encrypt) is.
    pub fn encrypt(values: &[bool], shape: &[usize], client: &ClientKey) -> Result<Self> {
        check_encryption(values.len(), IntType::BOOL, client)?;
        let items = values
            .iter()
            .map(|&v| FheBool::encrypt(v, client))
            .collect::<Result<Vec<_>>>()?;
        FheArray::new(items, shape.to_vec())
    }

    /// Decrypts every element, row-major.
    pub fn decrypt(&self, client: &ClientKey) -> Result<Vec<bool>> {
        self.items.iter().map(|x| x.decrypt(client)).collect()
    }

    /// Elementwise `if c { a } else { b }` (NumPy's `where`), one circuit; `a` and `b`
    /// arrays of this shape or values broadcast.
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

impl<T: FheType> FheArray<T>
where
    FheArray<T>: Values,
{
    /// `op` elementwise on `self` and `rhs` (an array of this shape, or one value for
    /// every element), results of type `O`: one circuit.
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
    pub fn map_unary(&self, op: Op) -> Result<FheArray<T>> {
        if op.arity() != 1 {
            return Err(Error::WrongOperation(format!(
                "{op} takes more than one operand"
            )));
        }
        one_circuit(self.clone(), |x| {
            let items = x
                .items
                .iter()
                .map(|xi| wrap(dynamic::unary(op, xi.repr())))
                .collect::<Result<Vec<T>>>()?;
            FheArray::new(items, x.shape.clone())
        })
    }

    /// The sum of every element (wrapping): one circuit, one multi-operand reduction (a
    /// counter tree over all the elements' bits, or their radix-4 digit columns reduced
    /// once, or a tree of additions when the planner estimates it faster; see
    /// [`super::Composer::sum`]). Errors on an empty array.
    pub fn sum(&self) -> Result<T> {
        if self.items.is_empty() {
            return Err(Error::ShapeMismatch(
                "the sum of an empty array inside a circuit has no input to hold it".into(),
            ));
        }
        one_circuit(self.clone(), |x| sum(&x.items))
    }

    /// The smallest element: one circuit; errors on an empty array.
    pub fn min(&self) -> Result<T> {
        self.reduce(Op::Min)
    }

    /// The largest element: one circuit; errors on an empty array.
    pub fn max(&self) -> Result<T> {
        self.reduce(Op::Max)
    }

    /// `Σ selfᵢ · rhsᵢ` over two one-dimensional arrays of one length (wrapping): one
    /// circuit.
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
    /// [`FheArray::dot_clear`]).
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

/// Elementwise methods `name(&self, rhs) -> Result<FheArray<$out>>` by
/// [`FheArray::elementwise`].
macro_rules! elementwise {
    ($($(#[doc = $doc:literal])* $name:ident -> $out:ty => $op:expr;)*) => {
        impl<T: FheType> FheArray<T>
        where
            FheArray<T>: Values,
        {
            $(
                $(#[doc = $doc])*
                pub fn $name(&self, rhs: impl IntoArrayOperand<T>) -> Result<FheArray<$out>> {
                    self.elementwise::<$out>($op, rhs)
                }
            )*
        }
    };
}

elementwise! {
    /// Elementwise sum (wrapping).
    add -> T => Op::Add;
    /// Elementwise difference (wrapping).
    sub -> T => Op::Sub;
    /// Elementwise product (wrapping).
    mul -> T => Op::Mul;
    /// Elementwise quotient (see the family's division semantics).
    div -> T => Op::Div;
    /// Elementwise remainder.
    rem -> T => Op::Rem;
    /// Elementwise bitwise and.
    bitand -> T => Op::And;
    /// Elementwise bitwise or.
    bitor -> T => Op::Or;
    /// Elementwise bitwise xor.
    bitxor -> T => Op::Xor;
    /// Elementwise minimum.
    minimum -> T => Op::Min;
    /// Elementwise maximum.
    maximum -> T => Op::Max;
    /// Elementwise `==`.
    eq -> FheBool => Op::EQ;
    /// Elementwise `!=`.
    ne -> FheBool => Op::NE;
    /// Elementwise `<`.
    lt -> FheBool => Op::LT;
    /// Elementwise `<=`.
    le -> FheBool => Op::LE;
    /// Elementwise `>`.
    gt -> FheBool => Op::GT;
    /// Elementwise `>=`.
    ge -> FheBool => Op::GE;
}

/// `op` on `x` and `rhs` with a result of type `O` (refused if `op` gives another type).
fn checked_binary<T: FheType, O: FheType>(op: Op, x: &T, rhs: Operand<'_>) -> Result<O> {
    wrap(dynamic::binary(op, x.repr(), rhs))
}

/// `Σ xᵢ·yᵢ` over two lists of one length: one sum of products
/// ([`super::Composer::dot`]).
fn dot<T: FheType>(x: &[T], y: &[T]) -> Result<T> {
    let args: Vec<_> = x.iter().chain(y).map(FheType::repr).collect();
    let n = x.len();
    wrap(dynamic::record(&args, |c, v| {
        let (a, b): (Vec<_>, Vec<_>) = (v[..n].iter().collect(), v[n..].iter().collect());
        c.dot(&a, &b)
    }))
}

/// `Σ xᵢ` as one reduction ([`super::Composer::sum`]).
fn sum<T: FheType>(x: &[T]) -> Result<T> {
    let args: Vec<_> = x.iter().map(FheType::repr).collect();
    wrap(dynamic::record(&args, |c, v| {
        let xs: Vec<_> = v.iter().collect();
        c.sum(&xs)
    }))
}

/// `Σ xᵢ·wᵢ + c` with clear weights and constant ([`super::Composer::dot_clear`]).
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
    /// summed into a wide accumulator pay only for their own bits).
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
