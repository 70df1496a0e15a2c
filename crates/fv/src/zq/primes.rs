//! Primality testing and generation of NTT-friendly primes (`p = 1 mod 2n`).

use crate::FvError;

fn mul_mod(a: u64, b: u64, m: u64) -> u64 {
    ((a as u128 * b as u128) % m as u128) as u64
}

fn pow_mod(mut a: u64, mut e: u64, m: u64) -> u64 {
    let mut r = 1 % m;
    a %= m;
    while e > 0 {
        if e & 1 == 1 {
            r = mul_mod(r, a, m);
        }
        a = mul_mod(a, a, m);
        e >>= 1;
    }
    r
}

/// Deterministic Miller-Rabin primality test for 64-bit integers.
///
/// ```
/// use encint_fv::zq::primes::is_prime;
/// assert!(is_prime(65537));
/// assert!(!is_prime(65536));
/// ```
pub fn is_prime(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    for &b in &BASES {
        if n.is_multiple_of(b) {
            return n == b;
        }
    }
    let mut d = n - 1;
    let mut s = 0;
    while d.is_multiple_of(2) {
        d /= 2;
        s += 1;
    }
    'outer: for &a in &BASES {
        let mut x = pow_mod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul_mod(x, x, n);
            if x == n - 1 {
                continue 'outer;
            }
        }
        return false;
    }
    true
}

/// `count` distinct primes of exactly `bits` bits with `p = 1 mod 2n`, largest first,
/// skipping any prime listed in `exclude`.
///
/// ```
/// use encint_fv::zq::primes::ntt_primes;
/// let ps = ntt_primes(61, 1 << 13, 3, &[]).unwrap();
/// assert!(ps.iter().all(|&p| p % (1 << 14) == 1 && p >> 60 == 1));
/// ```
pub fn ntt_primes(bits: u32, n: usize, count: usize, exclude: &[u64]) -> Result<Vec<u64>, FvError> {
    if !(10..=62).contains(&bits) || !n.is_power_of_two() {
        return Err(FvError::NotEnoughPrimes { bits, n, count });
    }
    let step = 2 * n as u64;
    let hi = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let lo = 1u64 << (bits - 1);
    // Largest candidate = 1 mod 2n below 2^bits.
    let mut c = hi - (hi % step) + 1;
    if c > hi {
        c -= step;
    }
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        if c < lo || c < step {
            return Err(FvError::NotEnoughPrimes { bits, n, count });
        }
        if is_prime(c) && !exclude.contains(&c) {
            out.push(c);
        }
        c -= step;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_prime(n: u64) -> bool {
        if n < 2 {
            return false;
        }
        let mut d = 2;
        while d * d <= n {
            if n.is_multiple_of(d) {
                return false;
            }
            d += 1;
        }
        true
    }

    #[test]
    fn miller_rabin_matches_trial_division() {
        for n in 0..20000u64 {
            assert_eq!(is_prime(n), naive_prime(n), "{n}");
        }
        // Carmichael numbers and a strong pseudoprime to several bases.
        for n in [561u64, 1105, 1729, 3_215_031_751, 3_825_123_056_546_413_051] {
            assert!(!is_prime(n));
        }
        assert!(is_prime((1 << 61) - 1));
    }

    #[test]
    fn generated_primes_are_ntt_friendly_and_distinct() {
        let n = 1 << 12;
        let ps = ntt_primes(55, n, 6, &[]).unwrap();
        let more = ntt_primes(55, n, 3, &ps[..2]).unwrap();
        for &p in ps.iter().chain(&more) {
            assert!(naive_prime_big(p));
            assert_eq!(p % (2 * n as u64), 1);
            assert_eq!(64 - p.leading_zeros(), 55);
        }
        assert!(!more.contains(&ps[0]) && !more.contains(&ps[1]));
        let mut s = ps.clone();
        s.dedup();
        assert_eq!(s.len(), 6);
    }

    fn naive_prime_big(p: u64) -> bool {
        // Fermat checks in several bases as an independent sanity check.
        [2u64, 3, 5, 7, 11]
            .iter()
            .all(|&a| pow_mod(a, p - 1, p) == 1)
    }

    #[test]
    fn errors_on_impossible_requests() {
        assert!(ntt_primes(12, 1 << 12, 5, &[]).is_err());
        assert!(ntt_primes(70, 16, 1, &[]).is_err());
    }
}
