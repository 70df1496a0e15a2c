//! Clear tables on encrypted values: the output of a table of matches for an encrypted
//! input (TFHE-rs' `match_value` and `match_value_or`; a lookup table as Concrete has
//! them, given as its matches). The table is clear, the input and the output encrypted:
//! the server learns the table, not which entry matched.

use encint_arith::typed::IntType;

use super::dynamic::match_value;
use super::values::{one_circuit, Values};
use super::{FheArray, FheBool, FheInteger, FheType, FheValue};
use crate::{Error, Result};

/// A clear table of matches, `(input, output)` pairs with distinct inputs, for
/// [`FheInteger::match_value`] (TFHE-rs' `MatchValues`).
///
/// # Examples
///
/// ```
/// use encint::fhe::MatchValues;
///
/// let squares = MatchValues::new((0u8..16).map(|v| (v, u16::from(v) * u16::from(v))))?;
/// assert_eq!(squares.pairs()[3], (3, 9));
/// assert!(MatchValues::new([(1, 2), (1, 3)]).is_err()); // 1 matched twice
/// # Ok::<(), encint::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchValues {
    pairs: Vec<(i128, i128)>,
}

impl MatchValues {
    /// The table of `pairs`; errors when an input is matched twice or there are more than
    /// [`MAX_MATCHES`](super::MAX_MATCHES) pairs. Whether the values fit the types is
    /// checked where the table is used.
    pub fn new<I: Into<i128>, O: Into<i128>>(
        pairs: impl IntoIterator<Item = (I, O)>,
    ) -> Result<Self> {
        let pairs: Vec<(i128, i128)> = pairs
            .into_iter()
            .map(|(i, o)| (i.into(), o.into()))
            .collect();
        let widest = IntType {
            bits: 128,
            signed: true,
        };
        super::compose::check_pairs(widest, &pairs, widest)?;
        Ok(MatchValues { pairs })
    }

    /// The `(input, output)` pairs, in the order given.
    pub fn pairs(&self) -> &[(i128, i128)] {
        &self.pairs
    }
}

/// The type `O` names, or an error for [`FheValue`].
fn output_type<O: FheType>() -> Result<IntType> {
    O::static_type().ok_or_else(|| {
        Error::InvalidInput("a table's output needs a type: use FheValue::match_value".into())
    })
}

impl<const N: usize, const SIGNED: bool> FheInteger<N, SIGNED> {
    /// The output of `matches` for this value as a value of `O`, and whether an input
    /// matched (the output is 0 when none did); TFHE-rs' `match_value`. Errors when an
    /// input is not a value of this type or an output not one of `O`.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheBool, FheUint16, FheUint8, MatchValues};
    ///
    /// let table = MatchValues::new([(3u8, 300u16), (7, 700)])?;
    /// let f = compile(move |x: FheUint8| {
    ///     let (y, found): (FheUint16, FheBool) = x.match_value(&table).expect("a table");
    ///     (y, found)
    /// })?;
    /// assert_eq!(f.run_clear(&[7])?, vec![700, 1]);
    /// assert_eq!(f.run_clear(&[8])?, vec![0, 0]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn match_value<O: FheType>(&self, matches: &MatchValues) -> Result<(O, FheBool)> {
        let (y, found) = match_value(self.repr(), matches.pairs(), 0, output_type::<O>()?)?;
        Ok((O::from_repr(y)?, FheBool::from_repr(found)?))
    }

    /// The output of `matches` for this value as a value of `O`, `default` when no input
    /// matches; TFHE-rs' `match_value_or`. The same circuit as
    /// [`FheInteger::match_value`]: the default costs nothing more.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile, FheInt8, MatchValues};
    ///
    /// // The sign of a value as a table on three inputs, 9 elsewhere.
    /// let table = MatchValues::new([(-1i8, -1i8), (0, 0), (1, 1)])?;
    /// let f = compile(move |x: FheInt8| -> FheInt8 { x.match_value_or(&table, 9).expect("a table") })?;
    /// assert_eq!(f.run_clear(&[-1])?, vec![-1]);
    /// assert_eq!(f.run_clear(&[100])?, vec![9]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn match_value_or<O: FheType>(
        &self,
        matches: &MatchValues,
        default: impl Into<i128>,
    ) -> Result<O> {
        let out = output_type::<O>()?;
        let (y, _) = match_value(self.repr(), matches.pairs(), default.into(), out)?;
        O::from_repr(y)
    }
}

impl FheValue {
    /// The output of the table `pairs` (`(input, output)` values, inputs distinct values of
    /// this value's type) for this value as a value of `out`, `default` when none matches,
    /// and whether one matched: [`FheInteger::match_value`] for a type chosen at run time.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheValue};
    /// use encint::typed::IntType;
    ///
    /// let (u4, u8t) = (IntType::new(4, false)?, IntType::new(8, false)?);
    /// // A whole table: 15 - x squared, on every value of a u4.
    /// let pairs: Vec<(i128, i128)> = (0..16).map(|v| (v, (15 - v) * (15 - v))).collect();
    /// let f = compile_with(u4, move |x: FheValue| {
    ///     let (y, _) = x.match_value(&pairs, 0, u8t).expect("a table");
    ///     y
    /// })?;
    /// assert_eq!(f.run_clear(&[3])?, vec![144]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn match_value(
        &self,
        pairs: &[(i128, i128)],
        default: i128,
        out: IntType,
    ) -> Result<(FheValue, FheValue)> {
        let (y, found) = match_value(self.repr(), pairs, default, out)?;
        Ok((FheValue::of(y), FheValue::of(found)))
    }
}

impl<T: FheType> FheArray<T> {
    /// [`FheInteger::match_value_or`] on every element, in one circuit: an array of `O` of
    /// the same shape.
    ///
    /// # Examples
    ///
    /// ```
    /// use encint::fhe::{compile_with, FheArray, FheUint8, MatchValues};
    ///
    /// let grades = MatchValues::new([(0u8, 10u8), (1, 20), (2, 30)])?;
    /// let f = compile_with(vec![4], move |x: FheArray<FheUint8>| -> FheArray<FheUint8> {
    ///     x.match_value_or(&grades, 0).expect("a table")
    /// })?;
    /// assert_eq!(f.run_clear(&[2, 0, 9, 1])?, vec![30, 10, 0, 20]);
    /// # Ok::<(), encint::Error>(())
    /// ```
    pub fn match_value_or<O: FheType>(
        &self,
        matches: &MatchValues,
        default: impl Into<i128>,
    ) -> Result<FheArray<O>>
    where
        FheArray<T>: Values,
        FheArray<O>: Values,
    {
        let out = output_type::<O>()?;
        let default = default.into();
        one_circuit(self.clone(), |x| {
            let items = x
                .items()
                .iter()
                .map(|xi| {
                    let (y, _) = match_value(xi.repr(), matches.pairs(), default, out)?;
                    O::from_repr(y)
                })
                .collect::<Result<Vec<O>>>()?;
            FheArray::new(items, x.shape().to_vec())
        })
    }
}
