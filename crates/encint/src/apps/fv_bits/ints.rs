//! Integers in FV slots: one ciphertext holds up to `n` integers modulo `t = 65537`, one per
//! slot. Sums and products by clear integers cost no depth, a product of two ciphertexts
//! one level, and any function of a value known to lie in `d + 1` consecutive integers is
//! a polynomial of degree `d` modulo `t` ([`SlotPoly`]), evaluated with baby steps and
//! giant steps in about `2·sqrt(2d)` products.
//!
//! A bit-sliced [`FvWord`] becomes one [`FvInts`] by the linear combination of its bit
//! planes (`Σ 2^i·b_i`, the sign bit weighing `-2^(w-1)`), at no depth.

use rayon::prelude::*;

use encint_fv::bfv::Ciphertext;

use super::keys::{FvBitsClientKey, FvBitsServerKey, FvWord};
use super::{FvBitsError, Result, VARIANT};

/// The plaintext modulus of every bit-sliced set: slot values are integers modulo it.
pub const SLOT_MODULUS: u64 = 65_537;

/// Up to `n` integers modulo [`SLOT_MODULUS`], one per slot of one FV ciphertext (read back
/// centred, in `-32768..=32768`).
#[derive(Debug, Clone, PartialEq)]
pub struct FvInts {
    ct: Ciphertext,
    count: usize,
    key_id: u64,
}

impl FvInts {
    /// Number of integers held (slots used).
    pub fn len(&self) -> usize {
        self.count
    }
    /// Whether it holds no integer (never, for a value made by this module).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// Multiplicative depth already used (0 for fresh encryptions).
    pub fn level(&self) -> u32 {
        self.ct.depth()
    }
    /// Id of the key set it belongs to.
    pub fn key_id(&self) -> u64 {
        self.key_id
    }
}

fn centred(v: u64) -> i64 {
    if v > SLOT_MODULUS / 2 {
        v as i64 - SLOT_MODULUS as i64
    } else {
        v as i64
    }
}

fn reduce(v: i64) -> u64 {
    v.rem_euclid(SLOT_MODULUS as i64) as u64
}

/// `v` modulo [`SLOT_MODULUS`], centred: what a slot holding `v` decrypts to.
pub(crate) fn centre(v: i64) -> i64 {
    centred(reduce(v))
}

impl FvBitsClientKey {
    /// Encrypts up to `n` integers (each in `-32768..=32768`), one per slot; with `fill`,
    /// the last value is repeated over every remaining slot (a value the same for every
    /// slot: one integer broadcast to all).
    pub fn encrypt_ints(&self, values: &[i64], fill: bool) -> Result<FvInts> {
        let n = self.set.slots();
        if values.is_empty() || values.len() > n {
            return Err(FvBitsError::InvalidInput(format!(
                "{} values for {n} slots",
                values.len()
            )));
        }
        let half = (SLOT_MODULUS / 2) as i64;
        if let Some(v) = values.iter().find(|v| !(-half..=half).contains(v)) {
            return Err(FvBitsError::InvalidInput(format!(
                "{v} is outside -{half}..={half}"
            )));
        }
        let last = values[values.len() - 1];
        let slots: Vec<u64> = (0..n)
            .map(|i| match values.get(i) {
                Some(&v) => reduce(v),
                None if fill => reduce(last),
                None => 0,
            })
            .collect();
        let pt = self.encoder.encode(&self.ctx, &slots)?;
        let mut rng = <rand_chacha::ChaCha20Rng as rand::SeedableRng>::from_entropy();
        let ct = self
            .ctx
            .encrypt_symmetric(&self.sk, &pt, VARIANT, &mut rng)?;
        Ok(FvInts {
            ct,
            count: if fill { n } else { values.len() },
            key_id: self.key_id,
        })
    }

    /// Decrypts the integers held (centred: `-32768..=32768`).
    pub fn decrypt_ints(&self, x: &FvInts) -> Result<Vec<i64>> {
        self.check_id(x.key_id)?;
        let slots = self.encoder.decode(&self.ctx.decrypt(&self.sk, &x.ct)?)?;
        Ok(slots[..x.count].iter().map(|&v| centred(v)).collect())
    }

    /// The invariant noise budget (bits) left in `x`: a test and diagnosis tool (it needs
    /// the secret key).
    pub fn noise_budget_ints(&self, x: &FvInts) -> Result<f64> {
        self.check_id(x.key_id)?;
        Ok(self.ctx.noise_budget(&self.sk, &x.ct)?)
    }
}

impl FvBitsServerKey {
    fn check_ints(&self, xs: &[&FvInts]) -> Result<usize> {
        let mut count = usize::MAX;
        for x in xs {
            if x.key_id != self.key_id {
                return Err(FvBitsError::WrongKeySet {
                    expected: self.key_id,
                    found: x.key_id,
                });
            }
            count = count.min(x.count);
        }
        Ok(count)
    }

    fn ints(&self, ct: Ciphertext, count: usize) -> FvInts {
        FvInts {
            ct,
            count,
            key_id: self.key_id,
        }
    }

    /// The integers of a bit-sliced word (two's complement for a signed word), at no depth.
    pub fn word_ints(&self, w: &FvWord) -> Result<FvInts> {
        if w.key_id != self.key_id {
            return Err(FvBitsError::WrongKeySet {
                expected: self.key_id,
                found: w.key_id,
            });
        }
        let top = w.bits.len() - 1;
        let terms: Vec<(&Ciphertext, i64)> = w
            .bits
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let weight = 1i64 << i;
                (
                    c,
                    if w.signed && i == top {
                        -weight
                    } else {
                        weight
                    },
                )
            })
            .collect();
        let ct = self.ctx.linear_combination(&terms, 0)?;
        Ok(self.ints(ct, w.count))
    }

    /// `Σ wᵢ·xᵢ + constant` (modulo `t`), at no depth; at least one term.
    pub fn linear_ints(&self, terms: &[(&FvInts, i64)], constant: i64) -> Result<FvInts> {
        let xs: Vec<&FvInts> = terms.iter().map(|t| t.0).collect();
        let count = self.check_ints(&xs)?;
        let cts: Vec<(&Ciphertext, i64)> = terms.iter().map(|(x, w)| (&x.ct, *w)).collect();
        let ct = self.ctx.linear_combination(&cts, reduce(constant))?;
        Ok(self.ints(ct, count))
    }

    /// `Σ aᵢ·bᵢ + constant`: products of ciphertexts summed before one relinearisation
    /// (one level of depth); at least one pair.
    pub fn dot_ints(&self, pairs: &[(&FvInts, &FvInts)], constant: i64) -> Result<FvInts> {
        let xs: Vec<&FvInts> = pairs.iter().flat_map(|p| [p.0, p.1]).collect();
        let count = self.check_ints(&xs)?;
        let mut sum: Option<Ciphertext> = None;
        for (a, b) in pairs {
            let p = self.ctx.mul(&a.ct, &b.ct)?;
            sum = Some(match sum {
                None => p,
                Some(s) => self.ctx.add(&s, &p)?,
            });
        }
        let sum =
            sum.ok_or_else(|| FvBitsError::InvalidInput("a dot product of no pairs".into()))?;
        let mut ct = self.ctx.relinearize(&sum, &self.rlk)?;
        if constant != 0 {
            ct = self.ctx.linear_combination(&[(&ct, 1)], reduce(constant))?;
        }
        Ok(self.ints(ct, count))
    }

    /// `p(x)` in every slot: baby steps `x^1..x^k`, giant steps `(x^k)^j`, each chunk
    /// `Σ_{i<k} c_{jk+i}·x^i` a linear combination, the chunks' products with the giant
    /// steps summed before one relinearisation. Depth: [`SlotPoly::depth`].
    pub fn poly_ints(&self, x: &FvInts, p: &SlotPoly) -> Result<FvInts> {
        let count = self.check_ints(&[x])?;
        let d = p.degree();
        let (k, m) = (p.baby, p.chunks());
        let top = if m > 1 { k } else { d.max(1) };
        // powers[i] = x^i for i in 1..=top (index 0 unused); x^i = x^a·x^(i-a) with `a`
        // the largest power of two below `i`, so x^i is ceil(log2 i) deep.
        let mut powers: Vec<Ciphertext> = Vec::with_capacity(top + 1);
        powers.push(x.ct.clone());
        powers.push(x.ct.clone());
        for i in 2..=top {
            let a = split(i);
            let next = self.ctx.mul_relin(&powers[a], &powers[i - a], &self.rlk)?;
            powers.push(next);
        }
        // giants[j] = (x^k)^j for j in 1..m (index 0 unused).
        let mut giants: Vec<Ciphertext> = Vec::with_capacity(m);
        if m > 1 {
            giants.push(powers[k].clone());
            giants.push(powers[k].clone());
        }
        for j in 2..m {
            let a = split(j);
            let next = self.ctx.mul_relin(&giants[a], &giants[j - a], &self.rlk)?;
            giants.push(next);
        }
        // Each chunk as (its linear combination in x, or None when it is a constant; the
        // constant).
        let chunk = |j: usize| -> Result<(Option<Ciphertext>, u64)> {
            let cs = &p.coeffs[j * k..((j + 1) * k).min(p.coeffs.len())];
            let terms: Vec<(&Ciphertext, i64)> = cs
                .iter()
                .enumerate()
                .skip(1)
                .filter(|&(_, &c)| c != 0)
                .map(|(i, &c)| (&powers[i], centred(c)))
                .collect();
            if terms.is_empty() {
                return Ok((None, cs[0]));
            }
            Ok((Some(self.ctx.linear_combination(&terms, cs[0])?), 0))
        };
        let chunks: Vec<(Option<Ciphertext>, u64)> =
            (0..m).into_par_iter().map(chunk).collect::<Result<_>>()?;
        // Products of chunks and giant steps (three parts each), summed.
        let mut products: Option<Ciphertext> = None;
        // Two-part terms of the result, and its constant.
        let mut terms: Vec<(Ciphertext, i64)> = Vec::new();
        let mut constant = 0u64;
        for (j, (c, lead)) in chunks.into_iter().enumerate() {
            match (j, c) {
                (0, Some(c)) => terms.push((c, 1)),
                (0, None) => constant = lead,
                (_, None) if lead == 0 => {}
                (_, None) => terms.push((giants[j].clone(), centred(lead))),
                (_, Some(c)) => {
                    let prod = self.ctx.mul(&c, &giants[j])?;
                    products = Some(match products {
                        None => prod,
                        Some(s) => self.ctx.add(&s, &prod)?,
                    });
                }
            }
        }
        if let Some(s) = products {
            terms.push((self.ctx.relinearize(&s, &self.rlk)?, 1));
        }
        if terms.is_empty() {
            // A constant polynomial: x·0 + c.
            terms.push((x.ct.clone(), 0));
        }
        let refs: Vec<(&Ciphertext, i64)> = terms.iter().map(|(c, w)| (c, *w)).collect();
        let ct = self.ctx.linear_combination(&refs, constant)?;
        Ok(self.ints(ct, count))
    }
}

/// The split `x^i = x^a·x^(i-a)` of a power: `a` the largest power of two below `i`.
fn split(i: usize) -> usize {
    let a = 1usize << (usize::BITS - 1 - i.leading_zeros());
    if a == i {
        i / 2
    } else {
        a
    }
}

/// `ceil(log2 i)` (0 for `i <= 1`).
fn ceil_log2(i: usize) -> u32 {
    if i <= 1 {
        0
    } else {
        usize::BITS - (i - 1).leading_zeros()
    }
}

/// A polynomial over the integers modulo [`SLOT_MODULUS`], with the baby-step size of its
/// evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotPoly {
    coeffs: Vec<u64>,
    baby: usize,
}

impl SlotPoly {
    /// The polynomial of smallest degree equal to `f` on every integer of `lo..=hi`
    /// (modulo [`SLOT_MODULUS`]): Newton's divided differences on the consecutive points,
    /// then the monomial coefficients. At most 4,096 points.
    ///
    /// ```
    /// use encint::fv_bits::SlotPoly;
    ///
    /// // A ReLU on -8..=7.
    /// let p = SlotPoly::interpolate(-8, 7, |v| v.max(0))?;
    /// assert!((-8..=7).all(|v| p.eval(v) == v.max(0)));
    /// assert_eq!((p.degree(), p.depth(), p.products()), (15, 4, 8));
    /// # Ok::<(), encint::fv_bits::FvBitsError>(())
    /// ```
    pub fn interpolate(lo: i64, hi: i64, f: impl Fn(i64) -> i64) -> Result<SlotPoly> {
        let points = hi - lo + 1;
        if !(1..=4096).contains(&points) {
            return Err(FvBitsError::InvalidInput(format!(
                "a polynomial through {points} points (1..=4096)"
            )));
        }
        let t = SLOT_MODULUS;
        let n = points as usize;
        let mul = |a: u64, b: u64| a * b % t;
        let inv = |a: u64| pow(a, t - 2);
        // Divided differences: after step j, dd[i] = f[x_i..x_{i+j}]; the Newton
        // coefficient a_j is dd[0] after step j (consecutive points: x_{i+j} - x_i = j).
        let mut dd: Vec<u64> = (0..n).map(|i| reduce(f(lo + i as i64))).collect();
        let mut newton = vec![dd[0]];
        for j in 1..n {
            let ij = inv(j as u64);
            for i in 0..n - j {
                dd[i] = mul((dd[i + 1] + t - dd[i]) % t, ij);
            }
            newton.push(dd[0]);
        }
        // Horner on the Newton form: P = a_0 + (x - x_0)(a_1 + (x - x_1)(...)).
        let mut coeffs = vec![newton[n - 1]];
        for j in (0..n - 1).rev() {
            let xj = reduce(lo + j as i64);
            let mut next = vec![0u64; coeffs.len() + 1];
            for (i, &c) in coeffs.iter().enumerate() {
                next[i + 1] = (next[i + 1] + c) % t;
                next[i] = (next[i] + t - mul(c, xj)) % t;
            }
            next[0] = (next[0] + newton[j]) % t;
            coeffs = next;
        }
        while coeffs.len() > 1 && coeffs.last() == Some(&0) {
            coeffs.pop();
        }
        Ok(Self::with_coefficients(coeffs))
    }

    fn with_coefficients(coeffs: Vec<u64>) -> SlotPoly {
        SlotPoly { coeffs, baby: 1 }.choose(|p| (p.products(), p.depth()))
    }

    /// The same polynomial evaluated with the baby-step size (a power of two) that
    /// minimises `key`.
    fn choose<K: Ord>(self, key: impl Fn(&SlotPoly) -> K) -> SlotPoly {
        let d = self.degree();
        (0..=ceil_log2(d + 1))
            .map(|e| SlotPoly {
                coeffs: self.coeffs.clone(),
                baby: 1 << e,
            })
            .min_by_key(|p| key(p))
            .unwrap_or(self)
    }

    /// The same polynomial evaluated in the least depth (`ceil(log2(degree))`, every
    /// power computed: more products). [`SlotPoly::interpolate`] gives the evaluation of
    /// fewest products, at most one level deeper.
    pub fn shallowest(&self) -> SlotPoly {
        self.clone().choose(|p| (p.depth(), p.products()))
    }

    /// The degree.
    pub fn degree(&self) -> usize {
        self.coeffs.len() - 1
    }

    fn chunks(&self) -> usize {
        self.coeffs.len().div_ceil(self.baby)
    }

    /// Multiplicative depth of its evaluation by [`FvBitsServerKey::poly_ints`].
    pub fn depth(&self) -> u32 {
        let (k, m) = (self.baby, self.chunks());
        if m == 1 {
            return ceil_log2(self.degree());
        }
        ceil_log2(k) + ceil_log2(m - 1) + 1
    }

    /// Products of ciphertexts in its evaluation (an upper bound: chunks with no power of
    /// `x` need none).
    pub fn products(&self) -> usize {
        let (k, m) = (self.baby, self.chunks());
        if m == 1 {
            return self.degree().saturating_sub(1);
        }
        (k - 1) + (m - 2) + (m - 1)
    }

    /// The value at `v`, centred (`-32768..=32768`): the clear reference of an evaluation.
    pub fn eval(&self, v: i64) -> i64 {
        let x = reduce(v);
        let r = self
            .coeffs
            .iter()
            .rev()
            .fold(0u64, |acc, &c| (acc * x + c) % SLOT_MODULUS);
        centred(r)
    }
}

fn pow(mut b: u64, mut e: u64) -> u64 {
    let mut r = 1u64;
    b %= SLOT_MODULUS;
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % SLOT_MODULUS;
        }
        b = b * b % SLOT_MODULUS;
        e >>= 1;
    }
    r
}
