//! Shortest free-doubling addition-subtraction chains (ASC*).
//!
//! Scalar multiplication `k·X` of an encrypted integer `X` by a cleartext `k`
//! (Klemsa and Önen, "Parmesan: Parallel ARithMETicS over ENcrypted data", Section 3.2,
//! Definition 2, Appendix B) is evaluated by a chain
//! of additions/subtractions in which doubling is free: in the signed binary
//! representation with encrypted digits, multiplying by `2^e` only prepends
//! `e` unencrypted zero digits. This module defines the chain model, provides
//! an exhaustive search for shortest chains, a committed table for all odd
//! `k < 4096`, and the double-and-add/sub baseline.
//!
//! # The model
//!
//! Elements are odd positive integers; element 0 is `1`. Step `i` creates
//! element `i + 1` from two earlier elements `x = v[a]`, `y = v[b]`
//! (`a == b` allowed) as
//!
//! ```text
//! r = s_a·2^(e_a)·x + s_b·2^(e_b)·y,   s_a, s_b ∈ {+1, −1},  e_a, e_b ≥ 0,
//! v[i+1] = |r| / 2^ν(r)                 (the odd part of |r|; r ≠ 0)
//! ```
//!
//! Each step costs one addition/subtraction. Free (cost 0) are shifts left
//! (doubling), negation, and dropping low digits that are provably zero: a
//! value known to be a multiple of `2^t` has its `t` low signed-binary digits
//! equal to zero, so they can be dropped (the odd-part normalisation). The
//! target `k` is an element of the chain (in the table always the last one);
//! any `2^t·k` needs nothing more.
//!
//! This is a superset of Parmesan's Definition 2, which requires
//! `k_i = ±k_r ± 2^t·k_s` itself to be odd (one shift zero, no normalisation
//! of an even combination). Here an even combination such as
//! `x + y = 2^c·k'` may be normalised to its odd part `k'` for free.
//!
//! # Replaying a step on encrypted values
//!
//! For step `i` with operands `X_a`, `X_b` (encryptions of `v[a]·X`,
//! `v[b]·X`): shift `X_a` left by `a_shift` digits (prepend zeros), negate it
//! if `a_negative`; the same for `X_b` with `b_shift`, `b_negative`; add the
//! two (the one addition). The result is `r·X` where `r` is the raw value
//! from [`Chain::step_value`] (always positive for chains produced here);
//! its `ν(r)` lowest digits are zero and are dropped (shift right by `ν(r)`),
//! giving `v[i+1]·X`. If `k = 2^t·v[last]`, shift the last element left by `t`.

pub mod search;

#[cfg(test)]
mod tests;

use std::sync::OnceLock;

/// One step of a chain: `r = (−1)^a_negative·2^a_shift·v[a] + (−1)^b_negative·2^b_shift·v[b]`,
/// the new element being the odd part of `|r|`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChainStep {
    /// Index of the first operand (an earlier element).
    pub a: usize,
    /// Left shift applied to the first operand.
    pub a_shift: u32,
    /// Whether the first operand is negated.
    pub a_negative: bool,
    /// Index of the second operand (an earlier element, may equal `a`).
    pub b: usize,
    /// Left shift applied to the second operand.
    pub b_shift: u32,
    /// Whether the second operand is negated.
    pub b_negative: bool,
}

/// A free-doubling addition-subtraction chain. Element 0 is `1`; step `i`
/// creates element `i + 1`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Chain {
    /// The value the chain computes: `target = 2^t·(last element)`.
    pub target: u64,
    /// The steps, one addition/subtraction each.
    pub steps: Vec<ChainStep>,
}

/// Errors of chain evaluation and table parsing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    /// A step refers to an element that does not exist (yet).
    #[error("step {step} refers to element {index}, which does not exist yet")]
    InvalidIndex {
        /// The step index.
        step: usize,
        /// The offending element index.
        index: usize,
    },
    /// A step combination is zero.
    #[error("zero combination{}", in_step(.step))]
    ZeroResult {
        /// The step index (`None` when reported by [`Chain::step_value`]).
        step: Option<usize>,
    },
    /// Arithmetic overflow (an element does not fit `u64` or a shift is too large).
    #[error("arithmetic overflow{}", in_step(.step))]
    Overflow {
        /// The step index (`None` when reported by [`Chain::step_value`]).
        step: Option<usize>,
    },
    /// The chain does not compute its target.
    #[error("chain computes {value}, not its target {target}")]
    TargetMismatch {
        /// The declared target.
        target: u64,
        /// The last element computed.
        value: u64,
    },
    /// A malformed table line.
    #[error("malformed chain table line {line}: {message}")]
    Parse {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// ` in step i` when the step is known.
fn in_step(step: &Option<usize>) -> String {
    step.map(|i| format!(" in step {i}")).unwrap_or_default()
}

/// `s·2^e·x` with overflow checking.
fn shifted(x: i128, e: u32, negative: bool) -> Option<i128> {
    if e >= 127 {
        return if x == 0 { Some(0) } else { None };
    }
    let v = x.checked_mul(1i128 << e)?;
    if negative {
        v.checked_neg()
    } else {
        Some(v)
    }
}

impl Chain {
    /// Number of additions/subtractions (= number of steps).
    pub fn additions(&self) -> usize {
        self.steps.len()
    }

    /// The raw combination `r = ±2^a_shift·x ± 2^b_shift·y` of a step applied
    /// to the operand values `x = v[a]`, `y = v[b]`, and `ν(r)`, the number of
    /// trailing zero bits of `r` (low digits to drop). The new element is
    /// `|r| >> ν(r)`. Errors on a zero combination or overflow (with
    /// `step: None`).
    pub fn step_value(x: i128, y: i128, step: &ChainStep) -> Result<(i128, u32), ChainError> {
        let overflow = ChainError::Overflow { step: None };
        let xs = shifted(x, step.a_shift, step.a_negative).ok_or(overflow.clone())?;
        let ys = shifted(y, step.b_shift, step.b_negative).ok_or(overflow.clone())?;
        let r = xs.checked_add(ys).ok_or(overflow)?;
        if r == 0 {
            return Err(ChainError::ZeroResult { step: None });
        }
        Ok((r, r.trailing_zeros()))
    }

    /// All elements (element 0 is 1), evaluated with checked arithmetic.
    pub fn try_elements(&self) -> Result<Vec<u64>, ChainError> {
        let mut v: Vec<u64> = Vec::with_capacity(self.steps.len() + 1);
        v.push(1);
        for (i, s) in self.steps.iter().enumerate() {
            for index in [s.a, s.b] {
                if index > i {
                    return Err(ChainError::InvalidIndex { step: i, index });
                }
            }
            let (r, z) =
                Self::step_value(v[s.a] as i128, v[s.b] as i128, s).map_err(|e| match e {
                    ChainError::ZeroResult { .. } => ChainError::ZeroResult { step: Some(i) },
                    _ => ChainError::Overflow { step: Some(i) },
                })?;
            let e = u64::try_from(r.unsigned_abs() >> z)
                .map_err(|_| ChainError::Overflow { step: Some(i) })?;
            v.push(e);
        }
        Ok(v)
    }

    /// All elements (element 0 is 1), evaluated with checked arithmetic.
    ///
    /// # Panics
    /// If the chain is invalid (see [`Chain::try_elements`] for the fallible version).
    pub fn elements(&self) -> Vec<u64> {
        match self.try_elements() {
            Ok(v) => v,
            Err(e) => panic!("invalid chain for {}: {e}", self.target),
        }
    }

    /// The last element (1 for a chain without steps). Errors on an invalid
    /// index, a zero combination or overflow.
    pub fn evaluate(&self) -> Result<u64, ChainError> {
        Ok(*self
            .try_elements()?
            .last()
            .expect("element 0 always exists"))
    }

    /// Replays the chain on values of another type (e.g. encrypted integers):
    /// `values[0] = x`, and for step `i`
    /// `values[i + 1] = op(&values[a], &values[b], step, zeros)`, where `op`
    /// must compute `(±values[a]·2^a_shift ± values[b]·2^b_shift) / 2^zeros`
    /// (signs from `a_negative`, `b_negative`; `zeros` = `ν(r)` low digits
    /// that are provably zero and must be dropped). Returns all values;
    /// `values.last()` times `2^t` is `target·x`. The chain is evaluated
    /// in the clear first, so errors are reported before `op` is called.
    pub fn replay<T>(
        &self,
        x: T,
        mut op: impl FnMut(&T, &T, &ChainStep, u32) -> T,
    ) -> Result<Vec<T>, ChainError> {
        let elems = self.try_elements()?;
        let mut values = Vec::with_capacity(elems.len());
        values.push(x);
        for s in &self.steps {
            let (_, zeros) = Self::step_value(elems[s.a] as i128, elems[s.b] as i128, s)?;
            let v = op(&values[s.a], &values[s.b], s, zeros);
            values.push(v);
        }
        Ok(values)
    }

    /// Checks that the chain is valid and that `target = 2^t·(last element)`.
    pub fn verify(&self) -> Result<(), ChainError> {
        let value = self.evaluate()?;
        let t = self.target;
        if t == 0 || t >> t.trailing_zeros() != value {
            return Err(ChainError::TargetMismatch { target: t, value });
        }
        Ok(())
    }
}

/// Shortest chains (within the bounds of the [`search`](mod@search) module) for
/// every odd `k` in `1..max_k`, sorted by `k` (index `(k−1)/2`); `k = 1` has zero steps. The
/// search proceeds by increasing length; among the shortest chains it picks one
/// with the least [`search::SecondaryCost`]. See the module documentation.
/// `search(4096)` takes a few seconds in an optimised build.
pub fn search(max_k: u64) -> Vec<Chain> {
    search::search_with_stats(max_k).0
}

fn table_header() -> String {
    format!(
        "\
# encint: shortest free-doubling addition-subtraction chains (ASC*)
#
# Model: elements are odd positive integers, element e0 = 1. Step i creates
# element e(i+1) = odd part of |r|, r = (+/-)2^sa*e[a] (+/-)2^sb*e[b], from two
# earlier elements (a = b allowed). One step = one addition/subtraction;
# shifts, negation and dropping provably-zero low digits (the odd-part
# normalisation) are free. Superset of Parmesan's Definition 2.
# Bounds: one shift is zero, r > 0, r < 2^{r} (shifts <= {e}, implied).
# Chains are shortest within these bounds (exhaustive search by length);
# among the shortest: least depth, then fewest active digits, then shortest
# result (see search::SecondaryCost), then first found.
#
# Format: <k> <additions> then per step
#   ; <sign>e<a><<<sa> <sign>e<b><<<sb> = <r> -> <new element>
",
        r = search::R_MAX,
        e = search::E_MAX
    )
}

/// Renders chains as a plain-text table: a header comment (`#` lines)
/// describing the model and bounds, then one chain per line:
/// `k n ; +e0<<2 +e0<<0 = 5 -> 5 ; …`.
pub fn render_table(chains: &[Chain]) -> String {
    let mut out = table_header();
    let mut dist: Vec<usize> = Vec::new();
    let mut total = 0usize;
    for c in chains {
        let l = c.additions();
        if dist.len() <= l {
            dist.resize(l + 1, 0);
        }
        dist[l] += 1;
        total += l;
    }
    out.push_str(&format!(
        "#\n# {} chains, {} additions in total",
        chains.len(),
        total
    ));
    out.push_str("; chains per length:");
    for (l, n) in dist.iter().enumerate() {
        out.push_str(&format!(" {l}:{n}"));
    }
    out.push('\n');
    for c in chains {
        out.push_str(&format!("{} {}", c.target, c.additions()));
        let elems = c.try_elements();
        for (i, s) in c.steps.iter().enumerate() {
            let sign = |n: bool| if n { '-' } else { '+' };
            out.push_str(&format!(
                " ; {}e{}<<{} {}e{}<<{}",
                sign(s.a_negative),
                s.a,
                s.a_shift,
                sign(s.b_negative),
                s.b,
                s.b_shift
            ));
            if let Ok(v) = &elems {
                if let Ok((r, _)) = Chain::step_value(v[s.a] as i128, v[s.b] as i128, s) {
                    out.push_str(&format!(" = {} -> {}", r, v[i + 1]));
                }
            }
        }
        out.push('\n');
    }
    out
}

fn parse_operand(tok: &str, line: usize) -> Result<(usize, u32, bool), ChainError> {
    let err = |m: &str| ChainError::Parse {
        line,
        message: format!("{m}: `{tok}`"),
    };
    let (neg, rest) = match tok.as_bytes().first() {
        Some(b'+') => (false, &tok[1..]),
        Some(b'-') => (true, &tok[1..]),
        _ => return Err(err("operand must start with + or -")),
    };
    let rest = rest
        .strip_prefix('e')
        .ok_or_else(|| err("operand must be e<index><<<shift>"))?;
    let (idx, sh) = rest
        .split_once("<<")
        .ok_or_else(|| err("operand lacks <<"))?;
    let idx = idx.parse::<usize>().map_err(|_| err("bad element index"))?;
    let sh = sh.parse::<u32>().map_err(|_| err("bad shift"))?;
    Ok((idx, sh, neg))
}

/// `token` as a number, or a parse error naming `what` it should be.
fn parse_number<T: std::str::FromStr>(
    token: &str,
    what: &str,
    line: usize,
) -> Result<T, ChainError> {
    token.parse().map_err(|_| ChainError::Parse {
        line,
        message: format!("bad {what} `{token}`"),
    })
}

fn parse_line(text: &str, line: usize) -> Result<Chain, ChainError> {
    let err = |m: String| ChainError::Parse { line, message: m };
    let mut parts = text.split(';');
    let head: Vec<&str> = parts.next().unwrap_or("").split_whitespace().collect();
    if head.len() != 2 {
        return Err(err("expected `<k> <additions>`".into()));
    }
    let target: u64 = parse_number(head[0], "target", line)?;
    let n: usize = parse_number(head[1], "addition count", line)?;
    let mut steps = Vec::new();
    let mut claims = Vec::new();
    for p in parts {
        let toks: Vec<&str> = p.split_whitespace().collect();
        if toks.len() != 2 && toks.len() != 6 {
            return Err(err(format!("malformed step `{}`", p.trim())));
        }
        let (a, a_shift, a_negative) = parse_operand(toks[0], line)?;
        let (b, b_shift, b_negative) = parse_operand(toks[1], line)?;
        if toks.len() == 6 {
            if toks[2] != "=" || toks[4] != "->" {
                return Err(err(format!("malformed step `{}`", p.trim())));
            }
            let r: i128 = parse_number(toks[3], "value", line)?;
            let v: u64 = parse_number(toks[5], "element", line)?;
            claims.push(Some((r, v)));
        } else {
            claims.push(None);
        }
        steps.push(ChainStep {
            a,
            a_shift,
            a_negative,
            b,
            b_shift,
            b_negative,
        });
    }
    if steps.len() != n {
        return Err(err(format!(
            "declares {n} additions but has {} steps",
            steps.len()
        )));
    }
    let chain = Chain { target, steps };
    let elems = chain.try_elements().map_err(|e| err(e.to_string()))?;
    for (i, (claim, s)) in claims.iter().zip(&chain.steps).enumerate() {
        if let Some((r, v)) = claim {
            let (rr, _) = Chain::step_value(elems[s.a] as i128, elems[s.b] as i128, s)
                .map_err(|e| err(e.to_string()))?;
            if rr != *r || elems[i + 1] != *v {
                return Err(err(format!(
                    "step {i} computes {rr} -> {}, not {r} -> {v}",
                    elems[i + 1]
                )));
            }
        }
    }
    chain.verify().map_err(|e| err(e.to_string()))?;
    Ok(chain)
}

/// Parses a table written by [`render_table`]. Blank lines and `#` comments
/// are ignored. The optional `= r -> v` annotations are checked, and every
/// chain must compute its target.
pub fn parse_table(text: &str) -> Result<Vec<Chain>, ChainError> {
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        out.push(parse_line(t, i + 1)?);
    }
    Ok(out)
}

struct Table {
    chains: Vec<Chain>,
    /// `index[(k−1)/2]` = position of the chain for odd `k` in `chains`.
    index: Vec<usize>,
}

fn the_table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let chains =
            parse_table(include_str!("table12.txt")).expect("committed chain table is valid");
        let max = chains.iter().map(|c| c.target).max().unwrap_or(0);
        let mut index = vec![usize::MAX; (max / 2 + 1) as usize];
        for (i, c) in chains.iter().enumerate() {
            if c.target % 2 == 1 {
                index[(c.target / 2) as usize] = i;
            }
        }
        Table { chains, index }
    })
}

/// The committed table (`table12.txt`): shortest chains for all odd
/// `k < 4096`, sorted by `k`, parsed and verified once.
pub fn table() -> &'static [Chain] {
    &the_table().chains
}

/// The committed shortest chain for odd `k < 4096` (O(1)); `None` for even or
/// out-of-range `k`.
pub fn chain_for(k: u64) -> Option<&'static Chain> {
    if k & 1 == 0 {
        return None;
    }
    let t = the_table();
    let i = *t.index.get((k / 2) as usize)?;
    t.chains.get(i)
}

/// The non-adjacent form of `k`, least-significant digit first.
pub fn naf(k: u64) -> Vec<i8> {
    let mut out = Vec::new();
    let mut k = k as u128;
    while k != 0 {
        if k % 2 == 1 {
            let d: i8 = if k % 4 == 1 { 1 } else { -1 };
            out.push(d);
            k = if d == 1 { k - 1 } else { k + 1 };
        } else {
            out.push(0);
        }
        k /= 2;
    }
    out
}

/// The double-and-add/sub baseline over the NAF of `k`: (number of nonzero
/// NAF digits − 1) additions. `target = k` (even `k` allowed: the last element
/// is the odd part of `k`).
///
/// # Panics
/// If `k == 0`.
pub fn double_and_add(k: u64) -> Chain {
    double_and_add_signed(&naf(k))
}

/// Double-and-add/sub over a signed-digit vector (least-significant first,
/// digits in `{-1, 0, 1}`): starting from the most significant nonzero digit,
/// each further nonzero digit `d` at distance `g` below the previous one costs
/// one step `2^g·acc + d·1`. The chain computes `|Σ d_i·2^i|` (if the leading
/// digit is −1 all digits are negated); it has (number of nonzero digits − 1)
/// steps.
///
/// # Panics
/// If all digits are zero, a digit is outside `{-1, 0, 1}`, or the value does
/// not fit `u64`.
pub fn double_and_add_signed(digits: &[i8]) -> Chain {
    assert!(
        digits.iter().all(|d| (-1..=1).contains(d)),
        "digits must be in {{-1, 0, 1}}"
    );
    let top = digits
        .iter()
        .rposition(|&d| d != 0)
        .expect("digits must not all be zero");
    let flip = digits[top] < 0;
    let mut steps = Vec::new();
    let mut prev = top;
    for i in (0..top).rev() {
        let d = digits[i];
        if d == 0 {
            continue;
        }
        let neg = (d < 0) != flip;
        steps.push(ChainStep {
            a: steps.len(),
            a_shift: (prev - i) as u32,
            a_negative: false,
            b: 0,
            b_shift: 0,
            b_negative: neg,
        });
        prev = i;
    }
    let value: i128 = digits
        .iter()
        .enumerate()
        .map(|(i, &d)| (d as i128) << i)
        .sum();
    let target = u64::try_from(value.unsigned_abs()).expect("value fits u64");
    Chain { target, steps }
}
