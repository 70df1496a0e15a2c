//! Negacyclic lookup tables over the 5-bit message space Z_32 (Klemsa and Önen, "Parmesan:
//! Parallel ARithMETicS over ENcrypted data", §2.2.2).
//!
//! A digit ciphertext holds `m ∈ Z_32` without padding. Bootstrapping evaluates a
//! *negacyclic* function: `f(x + 16) = -f(x) (mod 32)`, so a table is given by its
//! 16 values on `[0, 16)`. Algorithms describe a LUT by its values on the selector
//! domain they need; [`NegacyclicLut::from_fn`] finds the negacyclic table, or
//! reports the two selectors that cannot coexist.

use crate::CoreError;

/// Size of the message space (π = 5 bits, no padding).
pub const MODULUS: i64 = 32;
/// Half the message space: the negacyclic period.
pub const HALF: i64 = MODULUS / 2;

/// Reduces `v` into the signed representative range `[-16, 16)`.
pub fn reduce(v: i64) -> i64 {
    (v + HALF).rem_euclid(MODULUS) - HALF
}

/// A negacyclic table: `table[x] = f(x)` for `x ∈ [0, 16)`, `f(x + 16) = -f(x)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NegacyclicLut {
    /// Values on `[0, 16)`, each in `[-16, 16)`.
    pub table: [i8; 16],
}

impl NegacyclicLut {
    /// The identity on `[-8, 8)`-ish inputs (a refresh of a digit).
    pub fn identity() -> Self {
        let mut table = [0i8; 16];
        for (x, t) in table.iter_mut().enumerate() {
            *t = x as i8;
        }
        NegacyclicLut { table }
    }

    /// Builds the table of `f` on `domain`; unconstrained entries are 0.
    ///
    /// Fails with [`CoreError::NotNegacyclic`] if two selectors of the domain land
    /// on the same table entry with incompatible values.
    ///
    /// ```
    /// use encint_core::lut::NegacyclicLut;
    /// // Product of two signed bits from the selector 3x + y (Parmesan, Algorithm 4).
    /// let lut = NegacyclicLut::from_fn(-4..=4, |s| {
    ///     let (x, y) = ((s + 1).div_euclid(3), (s + 1).rem_euclid(3) - 1);
    ///     x * y
    /// }).unwrap();
    /// assert_eq!(lut.eval(3 * -1 + 1), -1);
    /// ```
    pub fn from_fn(
        domain: impl IntoIterator<Item = i64>,
        f: impl Fn(i64) -> i64,
    ) -> Result<Self, CoreError> {
        let mut table = [0i8; 16];
        let mut owner: [Option<i64>; 16] = [None; 16];
        for x in domain {
            let p = x.rem_euclid(MODULUS);
            let (slot, value) = if p < HALF {
                (p as usize, reduce(f(x)))
            } else {
                ((p - HALF) as usize, reduce(-f(x)))
            };
            match owner[slot] {
                Some(other) if i64::from(table[slot]) != value => {
                    return Err(CoreError::NotNegacyclic { a: other, b: x });
                }
                Some(_) => {}
                None => {
                    owner[slot] = Some(x);
                    table[slot] = value as i8;
                }
            }
        }
        Ok(NegacyclicLut { table })
    }

    /// Evaluates the negacyclic extension at any integer selector, result in `[-16, 16)`.
    pub fn eval(&self, x: i64) -> i64 {
        let p = x.rem_euclid(MODULUS);
        if p < HALF {
            i64::from(self.table[p as usize])
        } else {
            reduce(-i64::from(self.table[(p - HALF) as usize]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduce_range() {
        for v in -100..100 {
            let r = reduce(v);
            assert!((-16..16).contains(&r));
            assert_eq!((r - v).rem_euclid(32), 0);
        }
    }

    #[test]
    fn from_fn_reproduces_function_on_domain() {
        // sign on [-15, 15] is negacyclic over Z_32 (Parmesan §4.1, analysis).
        let lut = NegacyclicLut::from_fn(-15..=15, i64::signum).unwrap();
        for x in -15..=15 {
            assert_eq!(lut.eval(x), x.signum());
        }
    }

    #[test]
    fn conflict_is_reported() {
        // The identity on [-9, 9] needs f(9) = -f(-7) but 9 != 7.
        assert!(matches!(
            NegacyclicLut::from_fn(-9..=9, |x| x),
            Err(CoreError::NotNegacyclic { .. })
        ));
    }

    #[test]
    fn negacyclic_property() {
        let lut = NegacyclicLut::from_fn(0..16, |x| x * 3 - 7).unwrap();
        for x in -64..64 {
            assert_eq!(lut.eval(x + 16), reduce(-lut.eval(x)));
        }
    }
}

/// A 256-entry table on two nibbles (`LUTeval` of Trama et al.'s 8-bit processor): `f(hi,
/// lo) = entries[16·hi + lo]`, inputs and entries in `0..16`. Evaluated by the tree-based
/// method: a first blind rotation on `hi` builds the encrypted test polynomial of row `hi`,
/// a second one on `lo` reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Table256 {
    /// `entries[16·hi + lo]`, each in `0..16`.
    pub entries: [u8; 256],
}

impl Table256 {
    /// The table of `f` on all nibble pairs; fails if a value is outside `0..16`.
    pub fn from_fn(f: impl Fn(u8, u8) -> i64) -> Result<Self, CoreError> {
        let mut entries = [0u8; 256];
        for hi in 0..16u8 {
            for lo in 0..16u8 {
                let v = f(hi, lo);
                if !(0..16).contains(&v) {
                    return Err(CoreError::InvalidArgument(format!(
                        "tree table value {v} at ({hi}, {lo}) is not a nibble"
                    )));
                }
                entries[16 * hi as usize + lo as usize] = v as u8;
            }
        }
        Ok(Table256 { entries })
    }

    /// `f(hi, lo)`; `None` if an input is not a nibble.
    pub fn eval(&self, hi: i64, lo: i64) -> Option<i64> {
        if (0..16).contains(&hi) && (0..16).contains(&lo) {
            Some(self.entries[(16 * hi + lo) as usize] as i64)
        } else {
            None
        }
    }

    /// Row `hi` as a function of `lo`.
    pub fn row(&self, hi: u8) -> [u8; 16] {
        let mut r = [0u8; 16];
        r.copy_from_slice(&self.entries[16 * hi as usize..16 * hi as usize + 16]);
        r
    }
}
