//! Parameter sets: the HPR paper's sets A to D (Table II) and 128-bit defaults following
//! the HomomorphicEncryption.org standard table (ternary secrets, classical security).

use crate::FvError;

/// A parameter set for FV in its three variants.
///
/// The RNS variants (BEHZ, HPS) use `q = q_1 ... q_K` with `K = rns_count` primes of
/// `rns_bits` bits; HPR uses `q = p^d` with `p` the product of `hpr_k` primes of
/// `hpr_bits` bits. Both have the same size, `K * rns_bits = hpr_k * hpr_d * hpr_bits`.
#[derive(Debug, Clone, PartialEq)]
pub struct FvParameters {
    /// Short name ("A", "B", "C", "D", "128-8192", ...).
    pub name: String,
    /// Ring degree (power of two).
    pub n: usize,
    /// Plaintext modulus.
    pub t: u64,
    /// Standard deviation of the error distribution.
    pub sigma: f64,
    /// Number of RNS moduli of the RNS variants.
    pub rns_count: usize,
    /// Bit size of each RNS modulus.
    pub rns_bits: u32,
    /// HPR: number of primes in the radix `p`.
    pub hpr_k: usize,
    /// HPR: number of digits.
    pub hpr_d: usize,
    /// HPR: bit size of each prime of `p`.
    pub hpr_bits: u32,
    /// Claimed security level, in bits, and its source.
    pub security: &'static str,
    /// The largest multiplicative depth that decrypts correctly: squarings of a fresh
    /// ciphertext, measured with `encint fv depth --set S --variant all` (the smallest
    /// over the variants). Products past it are refused with
    /// [`FvError::DepthExceeded`]; `None` for a set never measured (decryption still
    /// checks the noise of every ciphertext).
    pub max_depth: Option<u32>,
}

/// The error width and security claim shared by a family of parameter sets.
struct Family {
    sigma: f64,
    security: &'static str,
}

/// The HPR paper's sets.
const PAPER: Family = Family {
    sigma: 8.0,
    security: "about 100 bits (HPR paper, Table II, LWE estimator, sigma = 8)",
};

/// The HomomorphicEncryption.org standard's 128-bit sets.
const STANDARD: Family = Family {
    sigma: 3.19,
    security: "128 bits (HomomorphicEncryption.org standard, ternary secret, sigma = 3.19)",
};

impl FvParameters {
    /// A set of `family` with `t = 65537`: degree `2^log_n`, `count` RNS primes of `bits`
    /// bits, HPR `(k, d)` with primes of the same size.
    fn of(
        family: &Family,
        name: &str,
        log_n: u32,
        count: usize,
        bits: u32,
        (k, d): (usize, usize),
        max_depth: u32,
    ) -> Self {
        Self {
            name: name.into(),
            n: 1 << log_n,
            t: 65537,
            sigma: family.sigma,
            rns_count: count,
            rns_bits: bits,
            hpr_k: k,
            hpr_d: d,
            hpr_bits: bits,
            security: family.security,
            max_depth: Some(max_depth),
        }
    }

    /// Set A: `n = 2^13`, `log q = 275` (5 x 55 bits; HPR 1 x 5), about 100-bit security.
    pub fn set_a() -> Self {
        Self::of(&PAPER, "A", 13, 5, 55, (1, 5), 7)
    }

    /// Set B: `n = 2^14`, `log q = 549` (9 x 61 bits; HPR 3 x 3), about 100-bit security.
    pub fn set_b() -> Self {
        Self::of(&PAPER, "B", 14, 9, 61, (3, 3), 16)
    }

    /// Set C: `n = 2^15`, `log q = 1098` (18 x 61 bits; HPR 3 x 6), about 100-bit security.
    pub fn set_c() -> Self {
        Self::of(&PAPER, "C", 15, 18, 61, (3, 6), 32)
    }

    /// Set D: `n = 2^16`, `log q = 2196` (36 x 61 bits; HPR 3 x 12), about 100-bit
    /// security. With `t = 65537` there is no batching at this degree (`2^17` does not
    /// divide `t - 1`).
    pub fn set_d() -> Self {
        Self::of(&PAPER, "D", 16, 36, 61, (3, 12), 66)
    }

    /// 128-bit default for `n = 2^13`: `log q = 216 <= 218` (4 x 54 bits; HPR 1 x 4).
    pub fn default_8192() -> Self {
        Self::of(&STANDARD, "128-8192", 13, 4, 54, (1, 4), 5)
    }

    /// 128-bit default for `n = 2^14`: `log q = 432 <= 438` (8 x 54 bits; HPR 2 x 4).
    pub fn default_16384() -> Self {
        Self::of(&STANDARD, "128-16384", 14, 8, 54, (2, 4), 12)
    }

    /// 128-bit default for `n = 2^15`: `log q = 880 <= 881` (16 x 55 bits; HPR 4 x 4).
    pub fn default_32768() -> Self {
        Self::of(&STANDARD, "128-32768", 15, 16, 55, (4, 4), 26)
    }

    /// The 128-bit default set users get (`n = 2^14`).
    pub fn default_128() -> Self {
        Self::default_16384()
    }

    /// A parameter set by name: `A`, `B`, `C`, `D`, `128-8192`, `128-16384`, `128-32768`.
    pub fn by_name(name: &str) -> Result<Self, FvError> {
        match name.to_ascii_uppercase().as_str() {
            "A" => Ok(Self::set_a()),
            "B" => Ok(Self::set_b()),
            "C" => Ok(Self::set_c()),
            "D" => Ok(Self::set_d()),
            "128-8192" => Ok(Self::default_8192()),
            "128-16384" | "DEFAULT" => Ok(Self::default_16384()),
            "128-32768" => Ok(Self::default_32768()),
            _ => Err(FvError::UnknownName {
                kind: "parameter set",
                name: name.into(),
            }),
        }
    }

    /// A copy with another plaintext modulus.
    pub fn with_plaintext_modulus(mut self, t: u64) -> Self {
        self.t = t;
        self
    }

    /// `log2 q` (rounded to bits of the moduli).
    pub fn log_q(&self) -> u32 {
        self.rns_count as u32 * self.rns_bits
    }

    /// Checks the set's internal consistency.
    pub fn validate(&self) -> Result<(), FvError> {
        if !self.n.is_power_of_two() || !(16..=(1 << 17)).contains(&self.n) {
            return Err(FvError::InvalidDegree(self.n));
        }
        if !(2..(1 << 29)).contains(&self.t) {
            return Err(FvError::InvalidParameters(format!(
                "plaintext modulus {} must be in [2, 2^29)",
                self.t
            )));
        }
        if self.rns_count == 0 || !(20..=61).contains(&self.rns_bits) {
            return Err(FvError::InvalidParameters(
                "RNS moduli: need >= 1 of 20..=61 bits".into(),
            ));
        }
        if self.hpr_k == 0 || self.hpr_d == 0 || !(20..=61).contains(&self.hpr_bits) {
            return Err(FvError::InvalidParameters(
                "HPR: need k, d >= 1 and 20..=61-bit primes".into(),
            ));
        }
        if !(self.sigma > 0.0 && self.sigma < 1e6) {
            return Err(FvError::InvalidParameters("sigma out of range".into()));
        }
        Ok(())
    }
}
