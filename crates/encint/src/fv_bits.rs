//! Bit-sliced binary arithmetic on FV (seed 003): the boolean circuits of
//! [`encint_arith::bits`] run on FV ciphertexts whose slots each hold one bit of a
//! different integer.
//!
//! Layout: bit `i` of integer `r` is slot `r` of ciphertext `i` (little-endian two's
//! complement), so one [`FvWord`] of width `w` is `w` ciphertexts and holds up to `n`
//! integers (`n` = ring degree: 8192, 16384 or 32768 slots). Over `Z_t` with the batching
//! prime `t = 65537` (`t = 1 mod 2n` up to `n = 2^15`): AND = `ab` (one product and a
//! relinearisation), XOR = `a + b - 2ab`, OR = `a + b - ab`, MUX = `o + s(t - o)`,
//! NOT = `1 - a`, constants are plaintexts added to a ciphertext. A full adder
//! (XOR3 and MAJ of the same bits) costs two products: `ab` and `(a ⊕ b)c`. With
//! `t = 2` the power-of-two ring `X^n + 1` has a single slot (`X^n + 1 = (X + 1)^n` mod 2),
//! which is why the slots need a large prime `t` and every bit holds 0 or 1 of `Z_t`.
//!
//! The executor ([`FvBitsServerKey::run`]) compiles a circuit into products and linear
//! combinations ([`FvProgram`]), knows its multiplicative depth before running, and runs
//! it level by level: all products of a level are independent and run in parallel on
//! rayon's threads, values are freed after their last use.
//!
//! Parameter choice ([`choose_set`]): the smallest 128-bit set (HomomorphicEncryption.org
//! table, see [`FvBitSet`]) whose measured practical depth covers the circuit's depth, or
//! [`FvBitsError::DepthTooLarge`] naming the depth needed and the largest available, before
//! any key exists.
//!
//! ```no_run
//! use encint::fv_bits::{choose_set, FvBitsClientKey, FvProgram};
//! use encint_arith::bits::{leveled, Word};
//! use encint_core::bits::BitBuilder;
//!
//! // The circuit first, then the parameter set, then the keys.
//! let mut b = BitBuilder::new();
//! let (x, y) = (Word::input(&mut b, 16), Word::input(&mut b, 16));
//! let s = leveled::add_sklansky(&mut b, &x, &y, None);
//! let circuit = b.finish(s.bits);
//! let depth = FvProgram::compile(&circuit).unwrap().depth();
//! let set = choose_set(depth).unwrap();
//! let (client, server) = FvBitsClientKey::generate(&set).unwrap();
//! let a = client.encrypt(&[1, 2, 60000], 16, false).unwrap();
//! let c = client.encrypt(&[5, 7, 10000], 16, false).unwrap();
//! let sum = server.add(&a, &c).unwrap();
//! assert_eq!(client.decrypt(&sum).unwrap(), vec![6, 9, 4464]);
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use encint_arith::bits::{self as ops, leveled, leveled::Adder, Word};
use encint_core::bits::{fv as fvcost, BitBuilder, BitCircuit, Gate};
use encint_fv::bfv::{
    BatchEncoder, Ciphertext, FvContext, FvParameters, RelinKey, SecretKey, Variant,
};
use encint_fv::FvError;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

/// The FV variant the bit executor uses: HPS, the fastest multiplication with
/// relinearisation at sets A and B (`n = 2^13, 2^14`, the sizes of the first two 128-bit
/// sets) in docs/FV.md; the 128-bit sets themselves were not benchmarked per variant.
pub const VARIANT: Variant = Variant::Hps;

/// Errors of the bit-sliced FV layer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FvBitsError {
    /// No 128-bit parameter set covers the circuit's multiplicative depth.
    #[error("the circuit needs multiplicative depth {needed}; the largest 128-bit set ({set}) covers {largest}")]
    DepthTooLarge {
        /// Depth the circuit needs (plus the depth its inputs already used).
        needed: u32,
        /// Usable depth of the largest set.
        largest: u32,
        /// Name of the largest set.
        set: String,
    },
    /// The keys' parameter set does not cover the circuit's depth.
    #[error("the circuit needs multiplicative depth {needed} (inputs at level {input_level}); set {set} covers {available}")]
    DepthExceedsKeys {
        /// Depth of the circuit.
        needed: u32,
        /// Depth already used by the inputs.
        input_level: u32,
        /// Usable depth of the keys' set.
        available: u32,
        /// Set name.
        set: String,
    },
    /// A word of another key set (or parameter set) was given.
    #[error("word of key set {found:#018x}, expected {expected:#018x}")]
    WrongKeySet {
        /// This key's id.
        expected: u64,
        /// The word's key id.
        found: u64,
    },
    /// A slot decrypted to something other than 0 or 1 (noise overflow or a foreign word).
    #[error("bit {bit} of slot {slot} decrypted to {value}, not 0 or 1")]
    NotABit {
        /// Bit position.
        bit: usize,
        /// Slot.
        slot: usize,
        /// Decrypted value.
        value: u64,
    },
    /// A value, width or shape is out of range.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// The FV layer refused an operation.
    #[error(transparent)]
    Fv(#[from] FvError),
    /// Serialized bytes could not be read (wrong kind, set, version or malformed).
    #[error("serialization: {0}")]
    Envelope(String),
}

/// Result of this module.
pub type Result<T> = std::result::Result<T, FvBitsError>;

/// A 128-bit parameter set for bit-sliced circuits with its measured depth.
#[derive(Debug, Clone, PartialEq)]
pub struct FvBitSet {
    /// The FV parameters (HomomorphicEncryption.org 128-bit bounds on `log q`, ternary
    /// secret, `sigma = 3.19`, `t = 65537`; see [`FvParameters::default_8192`] etc.).
    pub params: FvParameters,
    /// Practical depth measured here: squarings of a fresh random ciphertext that still
    /// decrypt (`encint fv depth --set NAME --variant hps --trials 2`).
    pub measured_depth: u32,
    /// Depth circuits may use: one below the measured depth (a product of two circuit
    /// values adds the noise of linear combinations with weights up to 4 on top of the
    /// squaring chain).
    pub usable_depth: u32,
}

impl FvBitSet {
    fn new(params: FvParameters, measured: u32) -> Self {
        Self {
            params,
            measured_depth: measured,
            usable_depth: measured.saturating_sub(1),
        }
    }

    /// Name of the FV parameter set (`128-8192`, ...).
    pub fn name(&self) -> &str {
        &self.params.name
    }

    /// Number of slots (integers per word).
    pub fn slots(&self) -> usize {
        self.params.n
    }

    /// A set by name (`128-8192`, `128-16384`, `128-32768`).
    pub fn by_name(name: &str) -> Result<Self> {
        sets()
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                FvBitsError::InvalidInput(format!(
                    "unknown bit-sliced set {name} (128-8192, 128-16384, 128-32768)"
                ))
            })
    }
}

/// The 128-bit sets, smallest first. Depths measured with
/// `encint fv depth --set S --variant hps --trials 2` (HPS): 5, 12, 26. `n = 2^16` is not
/// offered: `t = 65537` has no batching there, and no seed-003 row needs more than the
/// depth of `n = 2^15` except division beyond 4 bits (see docs/FV.md).
pub fn sets() -> Vec<FvBitSet> {
    vec![
        FvBitSet::new(FvParameters::default_8192(), 5),
        FvBitSet::new(FvParameters::default_16384(), 12),
        FvBitSet::new(FvParameters::default_32768(), 26),
    ]
}

/// The smallest set whose usable depth covers `depth`, or
/// [`FvBitsError::DepthTooLarge`].
pub fn choose_set(depth: u32) -> Result<FvBitSet> {
    let all = sets();
    if let Some(s) = all.iter().find(|s| s.usable_depth >= depth) {
        return Ok(s.clone());
    }
    let largest = all.last().expect("at least one set");
    Err(FvBitsError::DepthTooLarge {
        needed: depth,
        largest: largest.usable_depth,
        set: largest.name().to_string(),
    })
}

/// A node of a compiled program.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    /// Input bit number `.0` (in the concatenation of the input words).
    Input(usize),
    /// Product (with relinearisation) of two nodes.
    Mul(u32, u32),
    /// `Σ w·node + c` over input and product nodes; `c` in `[0, t)`.
    Lin(Vec<(u32, i64)>, u64),
}

/// An affine form over input and product nodes, coefficients centred mod `t`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Affine {
    terms: Vec<(u32, i64)>,
    c: i64,
}

/// A boolean circuit compiled for FV: products and linear combinations, with levels.
#[derive(Debug, Clone)]
pub struct FvProgram {
    nodes: Vec<Node>,
    level: Vec<u32>,
    live: Vec<bool>,
    outputs: Vec<u32>,
    inputs: usize,
    depth: u32,
    products: u64,
}

struct Compiler {
    t: i64,
    nodes: Vec<Node>,
    level: Vec<u32>,
    lin_cache: HashMap<Affine, u32>,
    mul_cache: HashMap<(u32, u32), u32>,
}

impl Compiler {
    fn norm(&self, v: i64) -> i64 {
        let r = v.rem_euclid(self.t);
        if r > self.t / 2 {
            r - self.t
        } else {
            r
        }
    }

    fn atom(x: u32) -> Affine {
        Affine {
            terms: vec![(x, 1)],
            c: 0,
        }
    }

    fn konst(c: i64) -> Affine {
        Affine {
            terms: Vec::new(),
            c,
        }
    }

    fn comb(&self, parts: &[(&Affine, i64)]) -> Affine {
        let mut acc: HashMap<u32, i64> = HashMap::new();
        let mut c = 0i64;
        for (a, w) in parts {
            for &(x, v) in &a.terms {
                let e = acc.entry(x).or_insert(0);
                *e = self.norm(*e + self.norm(v * w));
            }
            c = self.norm(c + self.norm(a.c * w));
        }
        let mut terms: Vec<(u32, i64)> = acc.into_iter().filter(|&(_, v)| v != 0).collect();
        terms.sort_unstable();
        Affine { terms, c }
    }

    fn push(&mut self, n: Node, level: u32) -> u32 {
        self.nodes.push(n);
        self.level.push(level);
        (self.nodes.len() - 1) as u32
    }

    /// A node holding `a`.
    fn mat(&mut self, a: &Affine) -> u32 {
        if a.c == 0 && a.terms.len() == 1 && a.terms[0].1 == 1 {
            return a.terms[0].0;
        }
        if let Some(&n) = self.lin_cache.get(a) {
            return n;
        }
        let level = a
            .terms
            .iter()
            .map(|&(x, _)| self.level[x as usize])
            .max()
            .unwrap_or(0);
        let c = a.c.rem_euclid(self.t) as u64;
        let n = self.push(Node::Lin(a.terms.clone(), c), level);
        self.lin_cache.insert(a.clone(), n);
        n
    }

    fn mul(&mut self, a: &Affine, b: &Affine) -> Affine {
        if a.terms.is_empty() {
            return self.comb(&[(b, a.c)]);
        }
        if b.terms.is_empty() {
            return self.comb(&[(a, b.c)]);
        }
        let (x, y) = (self.mat(a), self.mat(b));
        let key = (x.min(y), x.max(y));
        if let Some(&m) = self.mul_cache.get(&key) {
            return Self::atom(m);
        }
        let level = self.level[x as usize].max(self.level[y as usize]) + 1;
        let m = self.push(Node::Mul(key.0, key.1), level);
        self.mul_cache.insert(key, m);
        Self::atom(m)
    }

    fn xor(&mut self, a: &Affine, b: &Affine) -> Affine {
        let p = self.mul(a, b);
        self.comb(&[(a, 1), (b, 1), (&p, -2)])
    }

    fn depth(&self, a: &Affine) -> u32 {
        a.terms
            .iter()
            .map(|&(x, _)| self.level[x as usize])
            .max()
            .unwrap_or(0)
    }

    /// The three operands of a full adder, the deepest last.
    fn by_depth(&self, v: [&Affine; 3]) -> [Affine; 3] {
        let mut v = v.map(|a| (self.depth(a), a.clone()));
        v.sort_by_key(|(d, _)| *d);
        let [a, b, c] = v;
        [a.1, b.1, c.1]
    }
}

impl FvProgram {
    /// Compiles a circuit (counters are first expanded into full and half adders).
    pub fn compile(circuit: &BitCircuit) -> Result<Self> {
        let circuit = fvcost::expand_counters(circuit);
        let t = 65537i64;
        let mut cp = Compiler {
            t,
            nodes: Vec::new(),
            level: Vec::new(),
            lin_cache: HashMap::new(),
            mul_cache: HashMap::new(),
        };
        let live_gates = circuit.live();
        let mut val: Vec<Affine> = Vec::with_capacity(circuit.gates().len());
        for (i, g) in circuit.gates().iter().enumerate() {
            if !live_gates[i] {
                val.push(Compiler::konst(0));
                continue;
            }
            let v = |b: &encint_core::bits::Bit| val[b.index()].clone();
            let a = match g {
                Gate::Input(k) => {
                    let n = cp.push(Node::Input(*k as usize), 0);
                    Compiler::atom(n)
                }
                Gate::Const(c) => Compiler::konst(i64::from(*c)),
                Gate::Not(x) => cp.comb(&[(&Compiler::konst(1), 1), (&v(x), -1)]),
                Gate::And(x, y) => cp.mul(&v(x), &v(y)),
                Gate::Or(x, y) => {
                    let (a, b) = (v(x), v(y));
                    let p = cp.mul(&a, &b);
                    cp.comb(&[(&a, 1), (&b, 1), (&p, -1)])
                }
                Gate::Xor(x, y) => cp.xor(&v(x), &v(y)),
                Gate::Mux { sel, then, other } => {
                    let (s, th, o) = (v(sel), v(then), v(other));
                    let d = cp.comb(&[(&th, 1), (&o, -1)]);
                    let p = cp.mul(&s, &d);
                    cp.comb(&[(&o, 1), (&p, 1)])
                }
                Gate::Xor3(x, y, z) => {
                    let [a, b, c] = cp.by_depth([&v(x), &v(y), &v(z)]);
                    let ab = cp.xor(&a, &b);
                    cp.xor(&ab, &c)
                }
                Gate::Maj(x, y, z) => {
                    let [a, b, c] = cp.by_depth([&v(x), &v(y), &v(z)]);
                    let p = cp.mul(&a, &b);
                    let ab = cp.xor(&a, &b);
                    let q = cp.mul(&ab, &c);
                    cp.comb(&[(&p, 1), (&q, 1)])
                }
                other => {
                    return Err(FvBitsError::InvalidInput(format!(
                        "gate {other:?} has no FV form"
                    )))
                }
            };
            val.push(a);
        }
        let outs: Vec<Affine> = circuit
            .outputs()
            .iter()
            .map(|o| val[o.index()].clone())
            .collect();
        let outputs: Vec<u32> = outs.iter().map(|a| cp.mat(a)).collect();
        // Liveness from the outputs back (nodes are in topological order).
        let mut live = vec![false; cp.nodes.len()];
        for &o in &outputs {
            live[o as usize] = true;
        }
        for i in (0..cp.nodes.len()).rev() {
            if !live[i] {
                continue;
            }
            match &cp.nodes[i] {
                Node::Input(_) => {}
                Node::Mul(a, b) => {
                    live[*a as usize] = true;
                    live[*b as usize] = true;
                }
                Node::Lin(terms, _) => {
                    for &(x, _) in terms {
                        live[x as usize] = true;
                    }
                }
            }
        }
        let depth = outputs
            .iter()
            .map(|&o| cp.level[o as usize])
            .max()
            .unwrap_or(0);
        let products = cp
            .nodes
            .iter()
            .zip(&live)
            .filter(|(n, l)| **l && matches!(n, Node::Mul(..)))
            .count() as u64;
        Ok(Self {
            nodes: cp.nodes,
            level: cp.level,
            live,
            outputs,
            inputs: circuit.input_count(),
            depth,
            products,
        })
    }

    /// Multiplicative depth (products on the longest path).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Ciphertext products (each with a relinearisation).
    pub fn products(&self) -> u64 {
        self.products
    }

    /// Number of input bits.
    pub fn input_count(&self) -> usize {
        self.inputs
    }

    /// Evaluates the program on plaintext bits (the clear twin of the FV run, over `Z_t`
    /// exactly as the ciphertexts compute).
    pub fn eval_clear(&self, inputs: &[bool]) -> Result<Vec<u64>> {
        if inputs.len() != self.inputs {
            return Err(FvBitsError::InvalidInput(format!(
                "{} input bits, expected {}",
                inputs.len(),
                self.inputs
            )));
        }
        let t = 65537i64;
        let mut v = vec![0i64; self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            v[i] = match n {
                Node::Input(k) => i64::from(inputs[*k]),
                Node::Mul(a, b) => (v[*a as usize] * v[*b as usize]).rem_euclid(t),
                Node::Lin(terms, c) => terms.iter().fold(*c as i64, |acc, &(x, w)| {
                    (acc + w * v[x as usize]).rem_euclid(t)
                }),
            };
        }
        Ok(self.outputs.iter().map(|&o| v[o as usize] as u64).collect())
    }
}

fn key_id() -> u64 {
    ChaCha20Rng::from_entropy().next_u64()
}

/// The client side: secret key, encryption and decryption of bit-sliced words.
pub struct FvBitsClientKey {
    ctx: Arc<FvContext>,
    sk: SecretKey,
    encoder: BatchEncoder,
    set: FvBitSet,
    key_id: u64,
}

impl std::fmt::Debug for FvBitsClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "FvBitsClientKey({}, {:#018x})",
            self.set.name(),
            self.key_id
        )
    }
}

/// The server side: relinearisation key and the executor.
#[derive(Clone)]
pub struct FvBitsServerKey {
    ctx: Arc<FvContext>,
    rlk: Arc<RelinKey>,
    set: FvBitSet,
    key_id: u64,
}

impl std::fmt::Debug for FvBitsServerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "FvBitsServerKey({}, {:#018x})",
            self.set.name(),
            self.key_id
        )
    }
}

/// A vector of up to `n` encrypted integers of one width (1..=64 bits), bit-sliced:
/// ciphertext `i` holds bit `i` of every integer.
#[derive(Debug, Clone, PartialEq)]
pub struct FvWord {
    bits: Vec<Ciphertext>,
    signed: bool,
    count: usize,
    level: u32,
    key_id: u64,
}

impl FvWord {
    /// Width in bits.
    pub fn width(&self) -> usize {
        self.bits.len()
    }
    /// Number of integers held (slots used).
    pub fn len(&self) -> usize {
        self.count
    }
    /// Whether it holds no integer (never, for a word made by this module).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// Whether the integers read as two's complement.
    pub fn is_signed(&self) -> bool {
        self.signed
    }
    /// Multiplicative depth already used (0 for fresh encryptions).
    pub fn level(&self) -> u32 {
        self.level
    }
    /// Id of the key set it belongs to.
    pub fn key_id(&self) -> u64 {
        self.key_id
    }
}

fn check_width(width: usize) -> Result<()> {
    if (1..=64).contains(&width) {
        Ok(())
    } else {
        Err(FvBitsError::InvalidInput(format!(
            "width {width} outside 1..=64"
        )))
    }
}

impl FvBitsClientKey {
    /// Fresh keys for `set` (choose it with [`choose_set`] from the circuit's depth).
    pub fn generate(set: &FvBitSet) -> Result<(Self, FvBitsServerKey)> {
        let ctx = Arc::new(FvContext::new(set.params.clone())?);
        let encoder = BatchEncoder::new(&ctx)?;
        let mut rng = ChaCha20Rng::from_entropy();
        let sk = SecretKey::generate(&ctx, &mut rng);
        let rlk = ctx.generate_relin_key(&sk, VARIANT, &mut rng)?;
        let key_id = key_id();
        Ok((
            Self {
                ctx: ctx.clone(),
                sk,
                encoder,
                set: set.clone(),
                key_id,
            },
            FvBitsServerKey {
                ctx,
                rlk: Arc::new(rlk),
                set: set.clone(),
                key_id,
            },
        ))
    }

    /// The parameter set.
    pub fn set(&self) -> &FvBitSet {
        &self.set
    }

    /// The key set id recorded in words.
    pub fn key_id(&self) -> u64 {
        self.key_id
    }

    /// Encrypts up to `n` integers of `width` bits (1..=64), unsigned
    /// (`0 ≤ v < 2^width`) or two's complement (given as `i64` cast to `u64`, i.e.
    /// `v as u64`, and range-checked as signed).
    pub fn encrypt(&self, values: &[u64], width: usize, signed: bool) -> Result<FvWord> {
        check_width(width)?;
        let n = self.set.slots();
        if values.is_empty() || values.len() > n {
            return Err(FvBitsError::InvalidInput(format!(
                "{} values for {n} slots",
                values.len()
            )));
        }
        for &v in values {
            let ok = if signed {
                let s = v as i64;
                width == 64 || (-(1i64 << (width - 1))..(1i64 << (width - 1))).contains(&s)
            } else {
                width == 64 || v < (1u64 << width)
            };
            if !ok {
                return Err(FvBitsError::InvalidInput(format!(
                    "{} does not fit {width} {} bits",
                    if signed {
                        (v as i64).to_string()
                    } else {
                        v.to_string()
                    },
                    if signed { "signed" } else { "unsigned" }
                )));
            }
        }
        let bits = (0..width)
            .into_par_iter()
            .map(|i| {
                let mut slots = vec![0u64; n];
                for (s, &v) in slots.iter_mut().zip(values) {
                    *s = (v >> i) & 1;
                }
                let pt = self.encoder.encode(&self.ctx, &slots)?;
                let mut rng = ChaCha20Rng::from_entropy();
                Ok(self
                    .ctx
                    .encrypt_symmetric(&self.sk, &pt, VARIANT, &mut rng)?)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(FvWord {
            bits,
            signed,
            count: values.len(),
            level: 0,
            key_id: self.key_id,
        })
    }

    /// Encrypts signed integers as `width`-bit two's complement.
    pub fn encrypt_signed(&self, values: &[i64], width: usize) -> Result<FvWord> {
        let u: Vec<u64> = values.iter().map(|&v| v as u64).collect();
        self.encrypt(&u, width, true)
    }

    fn check(&self, x: &FvWord) -> Result<()> {
        if x.key_id != self.key_id {
            return Err(FvBitsError::WrongKeySet {
                expected: self.key_id,
                found: x.key_id,
            });
        }
        Ok(())
    }

    /// Decrypts to the unsigned values (the low `width` bits), one per integer held.
    /// Errors if a slot is not 0 or 1.
    pub fn decrypt(&self, x: &FvWord) -> Result<Vec<u64>> {
        self.check(x)?;
        let planes = x
            .bits
            .par_iter()
            .map(|c| Ok(self.encoder.decode(&self.ctx.decrypt(&self.sk, c)?)?))
            .collect::<Result<Vec<Vec<u64>>>>()?;
        let mut out = vec![0u64; x.count];
        for (bit, plane) in planes.iter().enumerate() {
            for (slot, o) in out.iter_mut().enumerate() {
                match plane[slot] {
                    0 => {}
                    1 => *o |= 1 << bit,
                    value => return Err(FvBitsError::NotABit { bit, slot, value }),
                }
            }
        }
        Ok(out)
    }

    /// Decrypts two's-complement values (sign-extended from the word's width).
    pub fn decrypt_signed(&self, x: &FvWord) -> Result<Vec<i64>> {
        let w = x.width();
        Ok(self
            .decrypt(x)?
            .into_iter()
            .map(|u| {
                if w < 64 && (u >> (w - 1)) & 1 == 1 {
                    (u as i64) - (1i64 << w)
                } else {
                    u as i64
                }
            })
            .collect())
    }

    /// The smallest invariant noise budget (bits) over the word's ciphertexts: a test
    /// and diagnosis tool (it needs the secret key).
    pub fn noise_budget(&self, x: &FvWord) -> Result<f64> {
        self.check(x)?;
        let mut m = f64::INFINITY;
        for c in &x.bits {
            m = m.min(self.ctx.noise_budget(&self.sk, c)?);
        }
        Ok(m)
    }
}

/// Statistics of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunStats {
    /// Multiplicative depth of the circuit.
    pub depth: u32,
    /// Products (with relinearisation) performed.
    pub products: u64,
    /// Largest number of products in one level (the parallel width).
    pub widest_level: u64,
}

enum Val<'a> {
    In(&'a Ciphertext),
    Own(Ciphertext),
}

impl Val<'_> {
    fn get(&self) -> &Ciphertext {
        match self {
            Val::In(c) => c,
            Val::Own(c) => c,
        }
    }
}

impl FvBitsServerKey {
    /// The parameter set.
    pub fn set(&self) -> &FvBitSet {
        &self.set
    }

    /// The key set id.
    pub fn key_id(&self) -> u64 {
        self.key_id
    }

    fn check_inputs(&self, inputs: &[&FvWord]) -> Result<(usize, u32)> {
        let mut count = None;
        let mut level = 0;
        for x in inputs {
            if let Some(c) = x.bits.iter().find(|c| c.context_id() != self.ctx.id()) {
                return Err(FvError::ParameterMismatch(format!(
                    "ciphertext of parameter fingerprint {:#x}, keys of {}",
                    c.context_id(),
                    self.set.name()
                ))
                .into());
            }
            if x.key_id != self.key_id {
                return Err(FvBitsError::WrongKeySet {
                    expected: self.key_id,
                    found: x.key_id,
                });
            }
            match count {
                None => count = Some(x.count),
                Some(c) if c != x.count => {
                    return Err(FvBitsError::InvalidInput(format!(
                        "words hold {c} and {} integers",
                        x.count
                    )))
                }
                _ => {}
            }
            level = level.max(x.level);
        }
        let count = count.ok_or_else(|| FvBitsError::InvalidInput("no input word".into()))?;
        Ok((count, level))
    }

    /// Runs a circuit on words (their bits concatenated, in order) and returns its output
    /// bits as one unsigned word, with the run's statistics. Refuses, before any
    /// product, circuits deeper than the keys' set allows.
    pub fn run(&self, circuit: &BitCircuit, inputs: &[&FvWord]) -> Result<(FvWord, RunStats)> {
        let program = FvProgram::compile(circuit)?;
        self.run_program(&program, inputs)
    }

    /// [`Self::run`] for a compiled program.
    pub fn run_program(
        &self,
        program: &FvProgram,
        inputs: &[&FvWord],
    ) -> Result<(FvWord, RunStats)> {
        let (count, in_level) = self.check_inputs(inputs)?;
        let bits: Vec<&Ciphertext> = inputs.iter().flat_map(|x| x.bits.iter()).collect();
        if bits.len() != program.inputs {
            return Err(FvBitsError::InvalidInput(format!(
                "circuit expects {} input bits, got {}",
                program.inputs,
                bits.len()
            )));
        }
        if in_level + program.depth > self.set.usable_depth {
            return Err(FvBitsError::DepthExceedsKeys {
                needed: program.depth,
                input_level: in_level,
                available: self.set.usable_depth,
                set: self.set.name().to_string(),
            });
        }
        let nodes = &program.nodes;
        let mut uses = vec![0u32; nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            if !program.live[i] {
                continue;
            }
            match n {
                Node::Input(_) => {}
                Node::Mul(a, b) => {
                    uses[*a as usize] += 1;
                    uses[*b as usize] += 1;
                }
                Node::Lin(t, _) => t.iter().for_each(|&(x, _)| uses[x as usize] += 1),
            }
        }
        for &o in &program.outputs {
            uses[o as usize] += 1;
        }
        let mut vals: Vec<Option<Val>> = (0..nodes.len()).map(|_| None).collect();
        let mut by_level: Vec<(Vec<usize>, Vec<usize>)> =
            vec![(Vec::new(), Vec::new()); program.depth as usize + 1];
        for (i, n) in nodes.iter().enumerate() {
            if !program.live[i] {
                continue;
            }
            match n {
                Node::Input(k) => vals[i] = Some(Val::In(bits[*k])),
                Node::Mul(..) => by_level[program.level[i] as usize].0.push(i),
                Node::Lin(..) => by_level[program.level[i] as usize].1.push(i),
            }
        }
        let any_input = bits.first().copied();
        let mut stats = RunStats {
            depth: program.depth,
            products: program.products,
            widest_level: 0,
        };
        for (muls, lins) in &by_level {
            stats.widest_level = stats.widest_level.max(muls.len() as u64);
            let done: Vec<(usize, Ciphertext)> = muls
                .par_iter()
                .map(|&i| {
                    let Node::Mul(a, b) = &nodes[i] else {
                        unreachable!("muls holds products")
                    };
                    let (x, y) = (
                        vals[*a as usize].as_ref().expect("operand ready").get(),
                        vals[*b as usize].as_ref().expect("operand ready").get(),
                    );
                    Ok((i, self.ctx.mul_relin(x, y, &self.rlk)?))
                })
                .collect::<Result<_>>()?;
            for (i, c) in done {
                vals[i] = Some(Val::Own(c));
            }
            let done: Vec<(usize, Ciphertext)> = lins
                .par_iter()
                .map(|&i| {
                    let Node::Lin(terms, c) = &nodes[i] else {
                        unreachable!("lins holds linear combinations")
                    };
                    let ct = if terms.is_empty() {
                        let z = any_input.ok_or_else(|| {
                            FvBitsError::InvalidInput("a circuit without inputs".into())
                        })?;
                        self.ctx.linear_combination(&[(z, 0)], *c)?
                    } else {
                        let ts: Vec<(&Ciphertext, i64)> = terms
                            .iter()
                            .map(|&(x, w)| (vals[x as usize].as_ref().expect("ready").get(), w))
                            .collect();
                        self.ctx.linear_combination(&ts, *c)?
                    };
                    Ok((i, ct))
                })
                .collect::<Result<_>>()?;
            for (i, c) in done {
                vals[i] = Some(Val::Own(c));
            }
            // Free operands after their last use.
            for &i in muls.iter().chain(lins) {
                let ops: Vec<u32> = match &nodes[i] {
                    Node::Mul(a, b) => vec![*a, *b],
                    Node::Lin(t, _) => t.iter().map(|&(x, _)| x).collect(),
                    Node::Input(_) => Vec::new(),
                };
                for o in ops {
                    let u = &mut uses[o as usize];
                    *u -= 1;
                    if *u == 0 {
                        vals[o as usize] = None;
                    }
                }
            }
        }
        let mut out = Vec::with_capacity(program.outputs.len());
        for &o in &program.outputs {
            let u = &mut uses[o as usize];
            *u -= 1;
            let v = if *u == 0 {
                vals[o as usize].take().expect("output ready")
            } else {
                Val::In(vals[o as usize].as_ref().expect("output ready").get())
            };
            out.push(match v {
                Val::In(c) => c.clone(),
                Val::Own(c) => c,
            });
        }
        Ok((
            FvWord {
                bits: out,
                signed: false,
                count,
                level: in_level + program.depth,
                key_id: self.key_id,
            },
            stats,
        ))
    }

    /// Traced evaluation: `build` records any number of operations on words shaped like
    /// `inputs` (one circuit, one run) and returns result words with their signedness.
    pub fn eval(
        &self,
        inputs: &[&FvWord],
        build: impl FnOnce(&mut BitBuilder, &[Word]) -> Vec<(Word, bool)>,
    ) -> Result<(Vec<FvWord>, RunStats)> {
        let widths: Vec<usize> = inputs.iter().map(|x| x.width()).collect();
        let (circuit, shapes) = ops::trace_words(&widths, build);
        let (all, stats) = self.run(&circuit, inputs)?;
        let mut it = all.bits.into_iter();
        let words = shapes
            .into_iter()
            .map(|(width, signed)| FvWord {
                bits: it.by_ref().take(width).collect(),
                signed,
                count: all.count,
                level: all.level,
                key_id: all.key_id,
            })
            .collect();
        Ok((words, stats))
    }

    fn binary(
        &self,
        a: &FvWord,
        b: &FvWord,
        signed: Option<bool>,
        f: impl FnOnce(&mut BitBuilder, &Word, &Word) -> Word,
    ) -> Result<FvWord> {
        if a.width() != b.width() || a.signed != b.signed {
            return Err(FvBitsError::InvalidInput(format!(
                "operands differ: {} bits {} vs {} bits {}",
                a.width(),
                if a.signed { "signed" } else { "unsigned" },
                b.width(),
                if b.signed { "signed" } else { "unsigned" }
            )));
        }
        let s = signed.unwrap_or(a.signed);
        let (mut out, _) = self.eval(&[a, b], |bb, w| vec![(f(bb, &w[0], &w[1]), s)])?;
        Ok(out.pop().expect("one result"))
    }

    /// `a + b` (wrapping).
    pub fn add(&self, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        self.binary(a, b, None, |bb, x, y| leveled::add_sklansky(bb, x, y, None))
    }
    /// `a - b` (wrapping).
    pub fn sub(&self, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        self.binary(a, b, None, |bb, x, y| {
            leveled::sub(bb, Adder::Sklansky, x, y)
        })
    }
    /// `a · b` (wrapping; the same bits for signed and unsigned).
    pub fn mul(&self, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        self.binary(a, b, None, |bb, x, y| {
            leveled::mul(bb, Adder::Sklansky, x, y)
        })
    }
    /// Unsigned `a / b` (`a / 0 = 2^w - 1`). Signed words are refused.
    pub fn div(&self, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        unsigned_only(a)?;
        self.binary(a, b, None, |bb, x, y| leveled::div_rem_unsigned(bb, x, y).0)
    }
    /// Unsigned `a mod b` (`a mod 0 = a`). Signed words are refused.
    pub fn rem(&self, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        unsigned_only(a)?;
        self.binary(a, b, None, |bb, x, y| leveled::div_rem_unsigned(bb, x, y).1)
    }
    /// `a < b` as a 1-bit unsigned word (signed comparison for signed words).
    pub fn lt(&self, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        let signed = a.signed;
        self.binary(a, b, Some(false), |bb, x, y| Word {
            bits: vec![if signed {
                leveled::lt_signed(bb, x, y)
            } else {
                leveled::lt_unsigned(bb, x, y)
            }],
        })
    }
    /// `a == b` as a 1-bit unsigned word.
    pub fn eq(&self, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        self.binary(a, b, Some(false), |bb, x, y| Word {
            bits: vec![leveled::eq(bb, x, y)],
        })
    }
    /// `sel ? a : b` slot by slot, for a 1-bit `sel` (one product per bit).
    pub fn select(&self, sel: &FvWord, a: &FvWord, b: &FvWord) -> Result<FvWord> {
        if sel.width() != 1 || a.width() != b.width() {
            return Err(FvBitsError::InvalidInput(
                "select needs a 1-bit selector and operands of one width".into(),
            ));
        }
        let signed = a.signed;
        let (mut out, _) = self.eval(&[sel, a, b], |bb, w| {
            vec![(ops::select(bb, w[0].bits[0], &w[1], &w[2]), signed)]
        })?;
        Ok(out.pop().expect("one result"))
    }
}

fn unsigned_only(a: &FvWord) -> Result<()> {
    if a.signed {
        Err(FvBitsError::InvalidInput(
            "division of signed words is not implemented on FV (unsigned only)".into(),
        ))
    } else {
        Ok(())
    }
}

/// Depth-aware adder choice for a `w`-bit addition planned before keys exist: the
/// adder whose depth needs the smaller parameter set; on a tie, the one with fewer
/// products (ripple carry). Returns the adder and its set.
///
/// Eager operations on existing keys ([`FvBitsServerKey::add`], `sub`, `mul`) always use
/// the prefix adder: depth is what a chain of eager operations runs out of.
pub fn plan_adder(w: usize) -> Result<(Adder, FvBitSet)> {
    let plan = |a: Adder| -> Result<(u32, u64)> {
        let mut b = BitBuilder::new();
        let (x, y) = (Word::input(&mut b, w), Word::input(&mut b, w));
        let s = a.add(&mut b, &x, &y, None);
        let p = FvProgram::compile(&b.finish(s.bits))?;
        Ok((p.depth(), p.products()))
    };
    let (dr, pr) = plan(Adder::Ripple)?;
    let (ds, ps) = plan(Adder::Sklansky)?;
    let sets = sets();
    let idx = |d: u32| sets.iter().position(|s| s.usable_depth >= d);
    let choice = match (idx(dr), idx(ds)) {
        (Some(r), Some(s)) if r < s || (r == s && pr <= ps) => Adder::Ripple,
        (None, None) => {
            return choose_set(ds).map(|s| (Adder::Sklansky, s));
        }
        (Some(_), None) => Adder::Ripple,
        _ => Adder::Sklansky,
    };
    let d = if choice == Adder::Ripple { dr } else { ds };
    Ok((choice, choose_set(d)?))
}

// ---------------------------------------------------------------------------------------
// Serialization: the TFHE side's versioned, checked envelope ([`encint_tfhe::envelope`])
// with the parameter id `fv-bits/<set>`; every decoded ciphertext and key is checked
// against the set (sizes, reduced residues, ternary secret) before use.

use encint_tfhe::envelope::{self, Kind};

fn params_id(set: &FvBitSet) -> String {
    format!("fv-bits/{}", set.name())
}

fn env_err(e: impl std::fmt::Display) -> FvBitsError {
    FvBitsError::Envelope(e.to_string())
}

fn set_of_envelope(bytes: &[u8]) -> Result<FvBitSet> {
    let (h, _) = envelope::read_header(bytes).map_err(env_err)?;
    let name = h
        .params_id
        .strip_prefix("fv-bits/")
        .ok_or_else(|| env_err(format!("not a bit-sliced FV envelope ({})", h.params_id)))?;
    FvBitSet::by_name(name)
}

#[derive(serde::Serialize, serde::Deserialize)]
struct WordPayload {
    key_id: u64,
    signed: bool,
    count: u64,
    level: u32,
    bits: Vec<Vec<Vec<Vec<u64>>>>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct ServerPayload {
    key_id: u64,
    k0: Vec<Vec<u64>>,
    k1: Vec<Vec<u64>>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct ClientPayload {
    key_id: u64,
    coeffs: Vec<i8>,
}

fn word_to_bytes(set: &FvBitSet, x: &FvWord) -> Result<Vec<u8>> {
    let p = WordPayload {
        key_id: x.key_id,
        signed: x.signed,
        count: x.count as u64,
        level: x.level,
        bits: x.bits.iter().map(|c| c.to_raw()).collect(),
    };
    envelope::seal(Kind::Ciphertext, &params_id(set), &p).map_err(env_err)
}

fn word_from_bytes(ctx: &FvContext, set: &FvBitSet, key_id: u64, bytes: &[u8]) -> Result<FvWord> {
    let p: WordPayload =
        envelope::open_unvalidated(bytes, Kind::Ciphertext, &params_id(set)).map_err(env_err)?;
    if p.key_id != key_id {
        return Err(FvBitsError::WrongKeySet {
            expected: key_id,
            found: p.key_id,
        });
    }
    check_width(p.bits.len())?;
    if p.count == 0 || p.count > set.slots() as u64 || p.level > set.usable_depth {
        return Err(env_err("word with an impossible count or level"));
    }
    let bits = p
        .bits
        .into_iter()
        .map(|raw| {
            let c = Ciphertext::from_raw(ctx, VARIANT, raw)?;
            if c.len() != 2 {
                return Err(FvError::MalformedCiphertext("not relinearised".into()));
            }
            Ok(c)
        })
        .collect::<std::result::Result<Vec<_>, FvError>>()?;
    Ok(FvWord {
        bits,
        signed: p.signed,
        count: p.count as usize,
        level: p.level,
        key_id,
    })
}

impl FvBitsServerKey {
    /// The key in a versioned, checked envelope (a few to ~130 MiB: `K` pairs of
    /// `K·n` words).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let (k0, k1) = self
            .rlk
            .to_raw_rns()
            .ok_or_else(|| env_err("not an RNS key"))?;
        let p = ServerPayload {
            key_id: self.key_id,
            k0: k0.to_vec(),
            k1: k1.to_vec(),
        };
        envelope::seal(Kind::ServerKey, &params_id(&self.set), &p).map_err(env_err)
    }

    /// Reads a key written by [`Self::to_bytes`] (its set is named in the envelope).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let set = set_of_envelope(bytes)?;
        let p: ServerPayload = envelope::open_unvalidated(bytes, Kind::ServerKey, &params_id(&set))
            .map_err(env_err)?;
        let ctx = Arc::new(FvContext::new(set.params.clone())?);
        let rlk = RelinKey::from_raw_rns(&ctx, VARIANT, p.k0, p.k1)?;
        Ok(Self {
            ctx,
            rlk: Arc::new(rlk),
            set,
            key_id: p.key_id,
        })
    }

    /// A word in a versioned, checked envelope (bounded at 256 MiB: a 64-bit word of
    /// `128-32768` is too large and is refused with a typed error).
    pub fn word_to_bytes(&self, x: &FvWord) -> Result<Vec<u8>> {
        word_to_bytes(&self.set, x)
    }

    /// Reads a word of this key set (its set, key id, sizes and residues checked).
    pub fn word_from_bytes(&self, bytes: &[u8]) -> Result<FvWord> {
        word_from_bytes(&self.ctx, &self.set, self.key_id, bytes)
    }
}

impl FvBitsClientKey {
    /// The secret key in an envelope (keep it on the client; wrap the bytes in a zeroizing
    /// buffer if they stay in memory).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let p = ClientPayload {
            key_id: self.key_id,
            coeffs: self.sk.coefficients().iter().map(|&c| c as i8).collect(),
        };
        envelope::seal(Kind::ClientKey, &params_id(&self.set), &p).map_err(env_err)
    }

    /// Reads a client key written by [`Self::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let set = set_of_envelope(bytes)?;
        let p: ClientPayload = envelope::open_unvalidated(bytes, Kind::ClientKey, &params_id(&set))
            .map_err(env_err)?;
        let ctx = Arc::new(FvContext::new(set.params.clone())?);
        let coeffs: Vec<i64> = p.coeffs.iter().map(|&c| i64::from(c)).collect();
        let sk = SecretKey::from_coefficients(&ctx, &coeffs)?;
        let encoder = BatchEncoder::new(&ctx)?;
        Ok(Self {
            ctx,
            sk,
            encoder,
            set,
            key_id: p.key_id,
        })
    }

    /// A word in an envelope (see [`FvBitsServerKey::word_to_bytes`]).
    pub fn word_to_bytes(&self, x: &FvWord) -> Result<Vec<u8>> {
        self.check(x)?;
        word_to_bytes(&self.set, x)
    }

    /// Reads a word of this key set.
    pub fn word_from_bytes(&self, bytes: &[u8]) -> Result<FvWord> {
        word_from_bytes(&self.ctx, &self.set, self.key_id, bytes)
    }
}
