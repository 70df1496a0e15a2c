//! Arithmetic modulo a word-sized integer (up to 62 bits): Barrett reduction of 128-bit
//! products, Shoup multiplication by precomputed constants, lazy (unreduced) variants.
//!
//! ```
//! use encint_fv::zq::Modulus;
//! let q = Modulus::new(65537).unwrap();
//! assert_eq!(q.mul(65536, 65536), 1);
//! let w = 12345;
//! let ws = q.shoup(w);
//! assert_eq!(q.mul_shoup(777, w, ws), q.mul(777, w));
//! ```

pub mod primes;

use crate::FvError;

/// A modulus `2 <= p < 2^62` with its Barrett constant `floor(2^128 / p)`.
///
/// The modulus need not be prime; `inv` returns `None` for non-invertible values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modulus {
    p: u64,
    ratio_hi: u64,
    ratio_lo: u64,
}

impl Modulus {
    /// Largest supported modulus (exclusive).
    pub const MAX: u64 = 1 << 62;

    /// A new modulus; errors unless `2 <= p < 2^62`.
    pub fn new(p: u64) -> Result<Self, FvError> {
        if !(2..Self::MAX).contains(&p) {
            return Err(FvError::InvalidModulus(p, "must satisfy 2 <= p < 2^62"));
        }
        let ratio = u128::MAX / p as u128;
        Ok(Self {
            p,
            ratio_hi: (ratio >> 64) as u64,
            ratio_lo: ratio as u64,
        })
    }

    /// The modulus value.
    #[inline(always)]
    pub fn value(&self) -> u64 {
        self.p
    }

    /// Reduces a 128-bit integer (Barrett).
    #[inline(always)]
    pub fn reduce_u128(&self, x: u128) -> u64 {
        let lo = x as u64;
        let hi = (x >> 64) as u64;
        let t0 = ((lo as u128 * self.ratio_lo as u128) >> 64) as u64;
        let t1 = lo as u128 * self.ratio_hi as u128 + t0 as u128;
        let t2 = hi as u128 * self.ratio_lo as u128;
        let mid = (t1 as u64 as u128) + (t2 as u64 as u128);
        let carry = ((t1 >> 64) + (t2 >> 64) + (mid >> 64)) as u64;
        let q = hi.wrapping_mul(self.ratio_hi).wrapping_add(carry);
        let mut r = lo.wrapping_sub(q.wrapping_mul(self.p));
        if r >= self.p {
            r -= self.p;
        }
        if r >= self.p {
            r -= self.p;
        }
        r
    }

    /// Reduces a 64-bit integer.
    #[inline(always)]
    pub fn reduce(&self, x: u64) -> u64 {
        if x < self.p {
            x
        } else {
            self.reduce_u128(x as u128)
        }
    }

    /// Reduces a signed integer into `[0, p)`.
    #[inline(always)]
    pub fn reduce_i64(&self, x: i64) -> u64 {
        self.with_sign(x < 0, self.reduce(x.unsigned_abs()))
    }

    /// Reduces a signed integer with `|x| < p` into `[0, p)` (one add); larger inputs fall
    /// back to [`Self::reduce_i64`].
    #[inline(always)]
    pub fn reduce_small_signed(&self, x: i64) -> u64 {
        if x.unsigned_abs() < self.p {
            // Branch-free: add p when the sign bit is set.
            (x as u64).wrapping_add(self.p & ((x >> 63) as u64))
        } else {
            self.reduce_i64(x)
        }
    }

    /// Reduces a signed 128-bit integer into `[0, p)`.
    #[inline(always)]
    pub fn reduce_i128(&self, x: i128) -> u64 {
        self.with_sign(x < 0, self.reduce_u128(x.unsigned_abs()))
    }

    /// `-r` if `negative`, else `r` (for `r` in `[0, p)`).
    #[inline(always)]
    fn with_sign(&self, negative: bool, r: u64) -> u64 {
        if negative {
            self.neg(r)
        } else {
            r
        }
    }

    /// The centred representative of `x` (in `[0, p)`), in `[-p/2, p/2)`... more precisely
    /// `x` if `x <= p/2`, else `x - p`.
    #[inline(always)]
    pub fn center(&self, x: u64) -> i64 {
        if x > self.p >> 1 {
            x as i64 - self.p as i64
        } else {
            x as i64
        }
    }

    /// `a + b mod p` for reduced inputs.
    #[inline(always)]
    pub fn add(&self, a: u64, b: u64) -> u64 {
        let s = a + b;
        if s >= self.p {
            s - self.p
        } else {
            s
        }
    }

    /// `a - b mod p` for reduced inputs.
    #[inline(always)]
    pub fn sub(&self, a: u64, b: u64) -> u64 {
        if a >= b {
            a - b
        } else {
            a + self.p - b
        }
    }

    /// `-a mod p` for a reduced input.
    #[inline(always)]
    pub fn neg(&self, a: u64) -> u64 {
        if a == 0 {
            0
        } else {
            self.p - a
        }
    }

    /// `a * b mod p` for inputs below `2^64` (Barrett).
    #[inline(always)]
    pub fn mul(&self, a: u64, b: u64) -> u64 {
        self.reduce_u128(a as u128 * b as u128)
    }

    /// The Shoup constant `floor(w * 2^64 / p)` of a reduced `w`.
    #[inline(always)]
    pub fn shoup(&self, w: u64) -> u64 {
        (((w as u128) << 64) / self.p as u128) as u64
    }

    /// Lazy Shoup multiplication: `x * w mod p` in `[0, 2p)`, for any `x < 2^64`.
    #[inline(always)]
    pub fn mul_shoup_lazy(&self, x: u64, w: u64, w_shoup: u64) -> u64 {
        let q = ((x as u128 * w_shoup as u128) >> 64) as u64;
        x.wrapping_mul(w).wrapping_sub(q.wrapping_mul(self.p))
    }

    /// Shoup multiplication: `x * w mod p` in `[0, p)`.
    #[inline(always)]
    pub fn mul_shoup(&self, x: u64, w: u64, w_shoup: u64) -> u64 {
        let r = self.mul_shoup_lazy(x, w, w_shoup);
        if r >= self.p {
            r - self.p
        } else {
            r
        }
    }

    /// `a^e mod p`.
    pub fn pow(&self, mut a: u64, mut e: u64) -> u64 {
        let mut r = 1 % self.p;
        a = self.reduce(a);
        while e > 0 {
            if e & 1 == 1 {
                r = self.mul(r, a);
            }
            a = self.mul(a, a);
            e >>= 1;
        }
        r
    }

    /// The inverse of `a` modulo `p`, if it exists (extended Euclid).
    pub fn inv(&self, a: u64) -> Option<u64> {
        let (mut r0, mut r1) = (self.p as i128, self.reduce(a) as i128);
        let (mut s0, mut s1) = (0i128, 1i128);
        while r1 != 0 {
            let q = r0 / r1;
            (r0, r1) = (r1, r0 - q * r1);
            (s0, s1) = (s1, s0 - q * s1);
        }
        if r0 != 1 {
            return None;
        }
        Some(s0.rem_euclid(self.p as i128) as u64)
    }

    /// Reduces every element of a slice in place.
    pub fn reduce_vec(&self, v: &mut [u64]) {
        for x in v {
            *x = self.reduce(*x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rejects_bad_moduli() {
        assert!(Modulus::new(0).is_err());
        assert!(Modulus::new(1).is_err());
        assert!(Modulus::new(1 << 62).is_err());
        assert!(Modulus::new((1 << 62) - 1).is_ok());
    }

    #[test]
    fn inverse_and_pow() {
        let q = Modulus::new(1_000_000_007).unwrap();
        for a in [1u64, 2, 3, 999, 1_000_000_006] {
            let i = q.inv(a).unwrap();
            assert_eq!(q.mul(a, i), 1);
            assert_eq!(q.pow(a, 1_000_000_006), 1);
        }
        let m = Modulus::new(12).unwrap();
        assert_eq!(m.inv(4), None);
        assert_eq!(m.inv(5), Some(5));
    }

    proptest! {
        #[test]
        fn barrett_matches_u128_rem(p in 2u64..(1u64 << 62), x in any::<u128>()) {
            let q = Modulus::new(p).unwrap();
            prop_assert_eq!(q.reduce_u128(x) as u128, x % p as u128);
        }

        #[test]
        fn mul_and_shoup(p in 2u64..(1u64 << 62), a in any::<u64>(), w in any::<u64>()) {
            let q = Modulus::new(p).unwrap();
            let w = w % p;
            let expect = ((a as u128 * w as u128) % p as u128) as u64;
            prop_assert_eq!(q.mul(a, w), expect);
            prop_assert_eq!(q.mul_shoup(a, w, q.shoup(w)), expect);
            let lazy = q.mul_shoup_lazy(a, w, q.shoup(w));
            prop_assert!(lazy < 2 * p);
            prop_assert_eq!(lazy % p, expect);
        }

        #[test]
        fn signed_reduction(p in 2u64..(1u64 << 62), x in any::<i64>()) {
            let q = Modulus::new(p).unwrap();
            prop_assert_eq!(q.reduce_i64(x) as i128, (x as i128).rem_euclid(p as i128));
            prop_assert_eq!(q.reduce_small_signed(x), q.reduce_i64(x));
            let small = x % p as i64;
            prop_assert_eq!(q.reduce_small_signed(small) as i128, (small as i128).rem_euclid(p as i128));
            let r = q.reduce_i64(x);
            let c = q.center(r);
            prop_assert!((c as i128 - x as i128).rem_euclid(p as i128) == 0);
            prop_assert!(2 * c.unsigned_abs() <= p);
        }
    }
}
