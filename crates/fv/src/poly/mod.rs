//! Polynomials of `Z_q[X]/(X^n + 1)`: in RNS form ([`RnsPoly`], coefficient or NTT
//! representation) and in Hybrid Position-Residue form ([`hpr::HprPoly`]).

pub mod hpr;

use crate::ntt::NttOperator;
use crate::rns::RnsBasis;
use crate::zq::Modulus;
use crate::FvError;
use num_bigint::BigUint;

/// A polynomial in RNS form: residue `i` of coefficient `c` at `i * n + c`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RnsPoly {
    pub(crate) data: Vec<u64>,
    pub(crate) n: usize,
    pub(crate) ntt: bool,
}

impl RnsPoly {
    /// The zero polynomial with `k` residues of degree `n`, coefficient representation.
    pub fn zero(k: usize, n: usize) -> Self {
        Self {
            data: vec![0; k * n],
            n,
            ntt: false,
        }
    }

    /// A polynomial with small signed coefficients, reduced modulo each modulus.
    pub fn from_signed(coeffs: &[i64], moduli: &[Modulus]) -> Self {
        let n = coeffs.len();
        let mut data = vec![0u64; moduli.len() * n];
        for (i, m) in moduli.iter().enumerate() {
            for (d, &c) in data[i * n..(i + 1) * n].iter_mut().zip(coeffs) {
                *d = m.reduce_i64(c);
            }
        }
        Self {
            data,
            n,
            ntt: false,
        }
    }

    /// Wraps raw residues (checked length, coefficient representation).
    pub fn from_residues(data: Vec<u64>, n: usize, k: usize) -> Result<Self, FvError> {
        FvError::check_len(n * k, data.len())?;
        Ok(Self {
            data,
            n,
            ntt: false,
        })
    }

    /// Degree `n`.
    pub fn degree(&self) -> usize {
        self.n
    }

    /// Number of residues.
    pub fn num_moduli(&self) -> usize {
        self.data.len() / self.n.max(1)
    }

    /// Whether the polynomial is in NTT representation.
    pub fn is_ntt(&self) -> bool {
        self.ntt
    }

    /// The flat residues.
    pub fn data(&self) -> &[u64] {
        &self.data
    }

    /// Residues modulo the `i`-th modulus.
    pub fn residues(&self, i: usize) -> &[u64] {
        &self.data[i * self.n..(i + 1) * self.n]
    }

    /// To NTT representation (no-op if already there).
    pub fn to_ntt(&mut self, ops: &[NttOperator]) {
        if !self.ntt {
            ntt_forward(&mut self.data, ops, self.n);
            self.ntt = true;
        }
    }

    /// To coefficient representation (no-op if already there).
    pub fn to_coeff(&mut self, ops: &[NttOperator]) {
        if self.ntt {
            ntt_backward(&mut self.data, ops, self.n);
            self.ntt = false;
        }
    }

    /// `self += other` residue-wise (same representation).
    pub fn add_assign(&mut self, other: &RnsPoly, moduli: &[Modulus]) {
        add_flat(&mut self.data, &other.data, moduli, self.n);
    }

    /// `self -= other` residue-wise (same representation).
    pub fn sub_assign(&mut self, other: &RnsPoly, moduli: &[Modulus]) {
        let n = self.n;
        for (i, m) in moduli.iter().enumerate() {
            for (a, &b) in self.data[i * n..(i + 1) * n]
                .iter_mut()
                .zip(&other.data[i * n..(i + 1) * n])
            {
                *a = m.sub(*a, b);
            }
        }
    }

    /// Coefficients as integers in `[0, Q)` (CRT; for tests and conversions).
    pub fn to_biguint(&self, basis: &RnsBasis) -> Vec<BigUint> {
        let n = self.n;
        (0..n)
            .map(|c| {
                let col: Vec<u64> = (0..basis.len()).map(|i| self.data[i * n + c]).collect();
                basis.reconstruct(&col)
            })
            .collect()
    }
}

/// Forward NTT of every residue of a flat buffer.
pub fn ntt_forward(data: &mut [u64], ops: &[NttOperator], n: usize) {
    for (chunk, op) in data.chunks_exact_mut(n).zip(ops) {
        op.forward(chunk);
    }
}

/// Backward NTT of every residue of a flat buffer.
pub fn ntt_backward(data: &mut [u64], ops: &[NttOperator], n: usize) {
    for (chunk, op) in data.chunks_exact_mut(n).zip(ops) {
        op.backward(chunk);
    }
}

/// `a += b` residue-wise on flat buffers.
pub fn add_flat(a: &mut [u64], b: &[u64], moduli: &[Modulus], n: usize) {
    for (i, m) in moduli.iter().enumerate() {
        for (x, &y) in a[i * n..(i + 1) * n].iter_mut().zip(&b[i * n..(i + 1) * n]) {
            *x = m.add(*x, y);
        }
    }
}

/// `a *= b` pointwise on flat NTT buffers.
pub fn mul_flat(a: &mut [u64], b: &[u64], ops: &[NttOperator], n: usize) {
    for (i, op) in ops.iter().enumerate() {
        op.mul_assign(&mut a[i * n..(i + 1) * n], &b[i * n..(i + 1) * n]);
    }
}

/// `acc += a * b` pointwise on flat NTT buffers.
pub fn mul_acc_flat(acc: &mut [u64], a: &[u64], b: &[u64], ops: &[NttOperator], n: usize) {
    for (i, op) in ops.iter().enumerate() {
        let r = i * n..(i + 1) * n;
        op.mul_accumulate(&mut acc[r.clone()], &a[r.clone()], &b[r]);
    }
}
