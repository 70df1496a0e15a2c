//! Samplers: ternary secrets, rounded Gaussian errors, uniform residues.

use crate::zq::Modulus;
use rand::{CryptoRng, Rng, RngCore};

/// `n` coefficients uniform in `{-1, 0, 1}`.
pub fn ternary<R: RngCore + CryptoRng>(n: usize, rng: &mut R) -> Vec<i64> {
    (0..n).map(|_| rng.gen_range(-1i64..=1)).collect()
}

/// `n` samples of a rounded Gaussian of standard deviation `sigma`, cut at `6 sigma`.
pub fn gaussian<R: RngCore + CryptoRng>(n: usize, sigma: f64, rng: &mut R) -> Vec<i64> {
    let bound = 6.0 * sigma;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let u1: f64 = 1.0 - rng.gen::<f64>(); // (0, 1]
        let u2: f64 = rng.gen::<f64>();
        let r = (-2.0 * u1.ln()).sqrt() * sigma;
        let (s, c) = (2.0 * std::f64::consts::PI * u2).sin_cos();
        for z in [r * c, r * s] {
            if z.abs() <= bound && out.len() < n {
                out.push(z.round() as i64);
            }
        }
    }
    out
}

/// Uniform residues modulo each modulus (flat, `moduli.len() * n`).
pub fn uniform<R: RngCore + CryptoRng>(moduli: &[Modulus], n: usize, rng: &mut R) -> Vec<u64> {
    let mut out = Vec::with_capacity(moduli.len() * n);
    for m in moduli {
        let p = m.value();
        out.extend((0..n).map(|_| rng.gen_range(0..p)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn distributions_have_expected_moments() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let g = gaussian(100_000, 8.0, &mut rng);
        let mean = g.iter().sum::<i64>() as f64 / g.len() as f64;
        let var = g.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / g.len() as f64;
        assert!(mean.abs() < 0.2, "{mean}");
        assert!((var.sqrt() - 8.0).abs() < 0.2, "{var}");
        assert!(g.iter().all(|x| x.abs() <= 48));
        let t = ternary(30_000, &mut rng);
        for v in -1..=1 {
            let c = t.iter().filter(|&&x| x == v).count();
            assert!((9_000..11_000).contains(&c));
        }
    }
}
