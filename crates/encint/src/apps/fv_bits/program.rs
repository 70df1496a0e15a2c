//! The FV compiler of boolean circuits: gates become products (with relinearisation) and
//! affine combinations over `Z_t`, with each node's multiplicative level known before running.

use std::collections::HashMap;

use encint_core::bits::{fv as fvcost, BitCircuit, Gate};

use super::{FvBitsError, Result};

/// A node of a compiled program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Node {
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
    pub(super) nodes: Vec<Node>,
    pub(super) level: Vec<u32>,
    pub(super) live: Vec<bool>,
    pub(super) outputs: Vec<u32>,
    pub(super) inputs: usize,
    pub(super) depth: u32,
    pub(super) products: u64,
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
