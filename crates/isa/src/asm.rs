//! The assembler: a small text format for byte-processor programs.
//!
//! ```text
//! ; comments start with ';' or '#'
//! input a, b            ; encrypted byte inputs
//! input xs[5]           ; an input array of 5 bytes (xs[0] .. xs[4])
//! input f: fixed        ; a 16-bit fixed-point input
//! const n = 5           ; a named constant (expressions allowed: n - 1, 2 * n)
//! table sq = 0, 1, 4, 9 ; a clear table (missing entries are 0; at most 256 values)
//! s = ADD a, b          ; dst = MNEMONIC operands (registers, immediates, tables)
//! m = MAXI s, 100
//! for i in 0..n-1 {     ; constant loop, unrolled at assembly time (end exclusive)
//!   xs[i] = ADDI xs[i], i
//! }
//! output s, m, xs       ; outputs: registers or whole arrays
//! ```
//!
//! `dst = src` copies a register (free). Registers are created by assignment and may be
//! reassigned; array elements are registers
//! named `xs[k]` with a constant index expression. Mnemonics are case-insensitive (see
//! [`crate::instr::signatures`]). Every error carries its line and column.

use std::collections::HashMap;

use crate::instr::{self, Kind};

/// An assembly error at a position of the source (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {col}: {message}")]
pub struct AsmError {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub col: usize,
    /// What is wrong.
    pub message: String,
}

/// A declared input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputDecl {
    /// Name (array elements are `name[k]`).
    pub name: String,
    /// Byte or fixed-point.
    pub kind: Kind,
    /// Array length, or `None` for a scalar.
    pub len: Option<usize>,
}

/// An operand after unrolling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    /// A register (array elements are named `xs[k]`).
    Reg(String),
    /// An immediate.
    Imm(i64),
    /// A named table.
    Table(String),
}

/// One unrolled instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instr {
    /// Source line (1-based).
    pub line: usize,
    /// Source column of the mnemonic.
    pub col: usize,
    /// Destination register.
    pub dst: String,
    /// Mnemonic, upper case.
    pub op: String,
    /// Operands.
    pub args: Vec<Operand>,
}

/// An assembled program: declarations and the unrolled instruction stream.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Program {
    /// Inputs, in declaration order.
    pub inputs: Vec<InputDecl>,
    /// Output names (registers or arrays), in order.
    pub outputs: Vec<(String, usize, usize)>,
    /// Tables by name (256 entries each).
    pub tables: HashMap<String, Vec<u16>>,
    /// Instructions after loop unrolling.
    pub instrs: Vec<Instr>,
    /// Array lengths by name (inputs and arrays created by indexed assignment).
    pub arrays: HashMap<String, usize>,
}

/// Pseudo-mnemonic of a register copy `dst = src` (free: no circuit nodes).
pub const MOVE: &str = "MOVE";

/// Largest number of instructions a program may unroll to.
pub const MAX_INSTRUCTIONS: usize = 100_000;

/// Largest source text [`assemble`] accepts, in bytes.
pub const MAX_SOURCE_BYTES: usize = 1 << 20;

/// Deepest nesting of `for` blocks.
pub const MAX_LOOP_NESTING: usize = 32;

/// Most loop-body executions in one program, all loops together (empty bodies included).
pub const MAX_LOOP_ITERATIONS: u64 = 1_000_000;

/// Deepest nesting of parentheses and unary minus signs in a constant expression.
pub const MAX_EXPR_DEPTH: usize = 64;

/// Largest array (input or grown by assignment): indices run below this.
pub const MAX_ARRAY_LEN: usize = 4096;

/// Most lines processed while assembling, loop bodies counted once per iteration (bounds
/// the work of loops whose bodies emit nothing).
pub const MAX_ASSEMBLY_STEPS: u64 = 4_000_000;

/// Most output entries (`output` names, an array counting as its length).
pub const MAX_OUTPUTS: usize = 4096;

struct Line<'a> {
    no: usize,
    text: &'a str,
}

fn err(line: usize, col: usize, message: impl Into<String>) -> AsmError {
    AsmError {
        line,
        col,
        message: message.into(),
    }
}

/// Column (1-based) of `part` inside `text` (both slices of the same line).
fn col_of(text: &str, part: &str) -> usize {
    let off = (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
    off.min(text.len()) + 1
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// Evaluates a constant expression: integers, names from `env`, `+ - *`, parentheses.
fn eval(expr: &str, env: &HashMap<String, i64>) -> Result<i64, String> {
    let toks = tokenize_expr(expr)?;
    let mut pos = 0;
    let v = parse_sum(&toks, &mut pos, env, 0)?;
    if pos != toks.len() {
        return Err(format!("unexpected `{}` in expression `{expr}`", toks[pos]));
    }
    Ok(v)
}

fn tokenize_expr(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if "+-*()".contains(c) {
            out.push(c.to_string());
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else {
            return Err(format!("unexpected character `{c}` in expression `{s}`"));
        }
    }
    if out.is_empty() {
        return Err("empty expression".into());
    }
    Ok(out)
}

type Env = HashMap<String, i64>;

fn parse_sum(t: &[String], pos: &mut usize, env: &Env, depth: usize) -> Result<i64, String> {
    let mut v = parse_prod(t, pos, env, depth)?;
    while *pos < t.len() && (t[*pos] == "+" || t[*pos] == "-") {
        let plus = t[*pos] == "+";
        *pos += 1;
        let r = parse_prod(t, pos, env, depth)?;
        v = if plus {
            v.checked_add(r)
        } else {
            v.checked_sub(r)
        }
        .ok_or("overflow")?;
    }
    Ok(v)
}

fn parse_prod(t: &[String], pos: &mut usize, env: &Env, depth: usize) -> Result<i64, String> {
    let mut v = parse_atom(t, pos, env, depth)?;
    while *pos < t.len() && t[*pos] == "*" {
        *pos += 1;
        v = v
            .checked_mul(parse_atom(t, pos, env, depth)?)
            .ok_or("overflow")?;
    }
    Ok(v)
}

/// An atom; `depth` counts the enclosing parentheses and minus signs (the recursion depth
/// is bounded by [`MAX_EXPR_DEPTH`], so no input can overflow the stack).
fn parse_atom(t: &[String], pos: &mut usize, env: &Env, depth: usize) -> Result<i64, String> {
    let tok = t.get(*pos).ok_or("expression ends too early")?;
    *pos += 1;
    if (tok == "-" || tok == "(") && depth >= MAX_EXPR_DEPTH {
        return Err(format!(
            "expression nested deeper than {MAX_EXPR_DEPTH} levels"
        ));
    }
    match tok.as_str() {
        "-" => parse_atom(t, pos, env, depth + 1)?
            .checked_neg()
            .ok_or_else(|| "overflow".into()),
        "(" => {
            let v = parse_sum(t, pos, env, depth + 1)?;
            if t.get(*pos).map(String::as_str) != Some(")") {
                return Err("missing `)`".into());
            }
            *pos += 1;
            Ok(v)
        }
        s if s.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
            let parsed = if let Some(h) = s.strip_prefix("0x") {
                i64::from_str_radix(h, 16)
            } else if let Some(b) = s.strip_prefix("0b") {
                i64::from_str_radix(b, 2)
            } else {
                s.parse()
            };
            parsed.map_err(|_| format!("bad number `{s}`"))
        }
        s => env
            .get(s)
            .copied()
            .ok_or_else(|| format!("unknown constant `{s}`")),
    }
}

/// Splits on commas at bracket depth 0.
fn split_commas(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

struct Assembler<'a> {
    lines: Vec<Line<'a>>,
    prog: Program,
    consts: HashMap<String, i64>,
    iterations: u64,
    steps: u64,
    output_entries: usize,
    /// For each line ending with `{`, the index of its matching `}` line.
    closes: HashMap<usize, usize>,
}

/// Assembles `src` into a [`Program`].
///
/// ```
/// let p = encint_isa::asm::assemble("input a, b\ns = ADD a, b\noutput s\n").unwrap();
/// assert_eq!(p.instrs.len(), 1);
/// let e = encint_isa::asm::assemble("input a\ns = FOO a\n").unwrap_err();
/// assert_eq!((e.line, e.col), (2, 5));
/// ```
///
/// Every resource is bounded before it is used: [`MAX_SOURCE_BYTES`], [`MAX_LOOP_NESTING`],
/// [`MAX_LOOP_ITERATIONS`], [`MAX_EXPR_DEPTH`], [`MAX_ARRAY_LEN`], [`MAX_OUTPUTS`] and
/// [`MAX_INSTRUCTIONS`]; constant arithmetic is checked (overflow is an error).
pub fn assemble(src: &str) -> Result<Program, AsmError> {
    if src.len() > MAX_SOURCE_BYTES {
        return Err(err(
            1,
            1,
            format!(
                "source of {} bytes, more than the {MAX_SOURCE_BYTES} allowed",
                src.len()
            ),
        ));
    }
    let lines = src
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let cut = l.find([';', '#']).unwrap_or(l.len());
            Line {
                no: i + 1,
                text: &l[..cut],
            }
        })
        // Blank lines do nothing: dropping them here keeps every visited line counted.
        .filter(|l| !l.text.trim().is_empty())
        .collect();
    let mut a = Assembler {
        lines,
        prog: Program::default(),
        consts: HashMap::new(),
        iterations: 0,
        steps: 0,
        output_entries: 0,
        closes: HashMap::new(),
    };
    let mut open = Vec::new();
    for (j, l) in a.lines.iter().enumerate() {
        let t = l.text.trim();
        if t.ends_with('{') {
            open.push(j);
        } else if t == "}" {
            if let Some(o) = open.pop() {
                a.closes.insert(o, j);
            }
        }
    }
    let n = a.lines.len();
    let end = a.block(0, n, 0)?;
    if end != n {
        let l = &a.lines[end];
        return Err(err(
            l.no,
            col_of(l.text, l.text.trim_start()),
            "unmatched `}`",
        ));
    }
    Ok(a.prog)
}

impl Assembler<'_> {
    /// Processes lines from `start` until a closing `}` at this depth (returns its index) or
    /// the end.
    fn block(&mut self, start: usize, end: usize, depth: usize) -> Result<usize, AsmError> {
        let mut i = start;
        while i < end {
            let (no, text) = (self.lines[i].no, self.lines[i].text);
            let t = text.trim();
            if t.is_empty() {
                i += 1;
                continue;
            }
            self.steps += 1;
            if self.steps > MAX_ASSEMBLY_STEPS {
                return Err(err(
                    no,
                    1,
                    format!("assembly takes more than {MAX_ASSEMBLY_STEPS} steps"),
                ));
            }
            let col = col_of(text, t);
            if t == "}" {
                if depth == 0 {
                    return Err(err(no, col, "unmatched `}`"));
                }
                return Ok(i);
            }
            let (word, rest) = match t.find(char::is_whitespace) {
                Some(p) => (&t[..p], t[p..].trim_start()),
                None => (t, ""),
            };
            match word {
                "input" => self.input(no, text, rest)?,
                "output" => self.output(no, text, rest)?,
                "const" => self.constant(no, text, rest)?,
                "table" => self.table(no, text, rest)?,
                "for" => {
                    i = self.for_loop(i, end, depth, no, text, rest)?;
                    continue;
                }
                _ => self.instruction(no, text, t)?,
            }
            i += 1;
        }
        Ok(end)
    }

    fn for_loop(
        &mut self,
        i: usize,
        end: usize,
        depth: usize,
        no: usize,
        text: &str,
        rest: &str,
    ) -> Result<usize, AsmError> {
        // for VAR in A..B {
        let c = col_of(text, rest);
        let body = rest
            .strip_suffix('{')
            .ok_or_else(|| err(no, c, "expected `for VAR in START..END {`"))?;
        let (var, range) = body
            .split_once(" in ")
            .ok_or_else(|| err(no, c, "expected `for VAR in START..END {`"))?;
        let var = var.trim();
        if !is_ident(var) {
            return Err(err(no, c, format!("bad loop variable `{var}`")));
        }
        let (a, b) = range
            .split_once("..")
            .ok_or_else(|| err(no, col_of(text, range), "expected a range START..END"))?;
        let a = eval(a, &self.consts).map_err(|m| err(no, col_of(text, a), m))?;
        let b = eval(b, &self.consts).map_err(|m| err(no, col_of(text, b), m))?;
        if depth + 1 > MAX_LOOP_NESTING {
            return Err(err(
                no,
                c,
                format!("`for` nested deeper than {MAX_LOOP_NESTING} levels"),
            ));
        }
        let count = u64::try_from((i128::from(b) - i128::from(a)).max(0)).unwrap_or(u64::MAX);
        if count > MAX_LOOP_ITERATIONS - self.iterations {
            return Err(err(
                no,
                c,
                format!("loops run more than {MAX_LOOP_ITERATIONS} iterations in all"),
            ));
        }
        self.iterations += count;
        // The matching close brace (precomputed).
        let close = self
            .closes
            .get(&i)
            .copied()
            .filter(|&j| j < end)
            .ok_or_else(|| err(no, 1, "`for` block is not closed with `}`"))?;
        let saved = self.consts.get(var).copied();
        for v in a..b {
            self.consts.insert(var.to_string(), v);
            let stop = self.block(i + 1, close, depth + 1)?;
            debug_assert_eq!(stop, close);
            if self.prog.instrs.len() > MAX_INSTRUCTIONS {
                return Err(err(no, 1, "program unrolls to too many instructions"));
            }
        }
        match saved {
            Some(s) => self.consts.insert(var.to_string(), s),
            None => self.consts.remove(var),
        };
        Ok(close + 1)
    }

    fn define_name(&self, no: usize, col: usize, name: &str) -> Result<(), AsmError> {
        if !is_ident(name) {
            return Err(err(no, col, format!("`{name}` is not a valid name")));
        }
        if self.consts.contains_key(name) || self.prog.tables.contains_key(name) {
            return Err(err(no, col, format!("`{name}` is already defined")));
        }
        if instr::signature(name).is_some() {
            return Err(err(no, col, format!("`{name}` is an instruction mnemonic")));
        }
        Ok(())
    }

    fn input(&mut self, no: usize, text: &str, rest: &str) -> Result<(), AsmError> {
        for part in split_commas(rest) {
            let p = part.trim();
            let c = col_of(text, p);
            let (decl, kind) = match p.split_once(':') {
                Some((d, k)) => match k.trim() {
                    "byte" => (d.trim(), Kind::Byte),
                    "fixed" => (d.trim(), Kind::Fixed),
                    other => return Err(err(no, c, format!("unknown input type `{other}`"))),
                },
                None => (p, Kind::Byte),
            };
            let (name, len) = match decl.split_once('[') {
                Some((n, l)) => {
                    let l = l
                        .strip_suffix(']')
                        .ok_or_else(|| err(no, c, "expected `name[LENGTH]`"))?;
                    let len = eval(l, &self.consts).map_err(|m| err(no, c, m))?;
                    if !(1..=MAX_ARRAY_LEN as i64).contains(&len) {
                        return Err(err(
                            no,
                            c,
                            format!("array length {len} not in 1..={MAX_ARRAY_LEN}"),
                        ));
                    }
                    (n.trim(), Some(len as usize))
                }
                None => (decl, None),
            };
            self.define_name(no, c, name)?;
            if self.prog.inputs.iter().any(|d| d.name == name) {
                return Err(err(no, c, format!("input `{name}` declared twice")));
            }
            if let Some(l) = len {
                self.prog.arrays.insert(name.to_string(), l);
            }
            self.prog.inputs.push(InputDecl {
                name: name.to_string(),
                kind,
                len,
            });
        }
        Ok(())
    }

    fn output(&mut self, no: usize, text: &str, rest: &str) -> Result<(), AsmError> {
        for part in split_commas(rest) {
            let p = part.trim();
            let c = col_of(text, p);
            let (name, entries) = match self.prog.arrays.get(p) {
                Some(&len) => (p.to_string(), len),
                None => (self.reg_name(no, text, p)?, 1),
            };
            self.output_entries += entries;
            if self.output_entries > MAX_OUTPUTS {
                return Err(err(
                    no,
                    c,
                    format!("more than {MAX_OUTPUTS} output entries"),
                ));
            }
            self.prog.outputs.push((name, no, c));
        }
        Ok(())
    }

    /// The column, new name and value text of a `NAME = VALUE` definition of the given
    /// form (for the error message), with the name reserved.
    fn definition<'t>(
        &self,
        no: usize,
        text: &str,
        rest: &'t str,
        form: &str,
    ) -> Result<(usize, &'t str, &'t str), AsmError> {
        let c = col_of(text, rest);
        let (name, value) = rest
            .split_once('=')
            .ok_or_else(|| err(no, c, format!("expected `{form}`")))?;
        let name = name.trim();
        self.define_name(no, c, name)?;
        Ok((c, name, value))
    }

    fn constant(&mut self, no: usize, text: &str, rest: &str) -> Result<(), AsmError> {
        let (_, name, expr) = self.definition(no, text, rest, "const NAME = EXPR")?;
        let v = eval(expr, &self.consts).map_err(|m| err(no, col_of(text, expr), m))?;
        self.consts.insert(name.to_string(), v);
        Ok(())
    }

    fn table(&mut self, no: usize, text: &str, rest: &str) -> Result<(), AsmError> {
        let (c, name, vals) = self.definition(no, text, rest, "table NAME = v0, v1, ...")?;
        let mut entries = vec![0u16; 256];
        let parts = split_commas(vals);
        if parts.len() > 256 {
            return Err(err(no, c, "a table has at most 256 entries"));
        }
        for (k, p) in parts.into_iter().enumerate() {
            let p = p.trim();
            let v = eval(p, &self.consts).map_err(|m| err(no, col_of(text, p), m))?;
            entries[k] = u16::try_from(v).ok().filter(|&x| x < 256).ok_or_else(|| {
                err(
                    no,
                    col_of(text, p),
                    format!("table entry {v} not in 0..=255"),
                )
            })?;
        }
        self.prog.tables.insert(name.to_string(), entries);
        Ok(())
    }

    /// Resolves `name` or `name[expr]` to a register name.
    fn reg_name(&self, no: usize, text: &str, p: &str) -> Result<String, AsmError> {
        let c = col_of(text, p);
        match p.split_once('[') {
            Some((n, idx)) => {
                let n = n.trim();
                let idx = idx
                    .strip_suffix(']')
                    .ok_or_else(|| err(no, c, "expected `name[INDEX]`"))?;
                let k = eval(idx, &self.consts).map_err(|m| err(no, col_of(text, idx), m))?;
                if let Some(&len) = self.prog.arrays.get(n) {
                    if k < 0 || k as usize >= len {
                        return Err(err(
                            no,
                            c,
                            format!("index {k} out of bounds for `{n}[{len}]`"),
                        ));
                    }
                }
                if k < 0 {
                    return Err(err(no, c, format!("negative index {k}")));
                }
                if k >= MAX_ARRAY_LEN as i64 {
                    return Err(err(
                        no,
                        c,
                        format!("index {k} not below the array limit {MAX_ARRAY_LEN}"),
                    ));
                }
                if !is_ident(n) {
                    return Err(err(no, c, format!("`{n}` is not a valid name")));
                }
                Ok(format!("{n}[{k}]"))
            }
            None if is_ident(p) => Ok(p.to_string()),
            None => Err(err(no, c, format!("`{p}` is not a register"))),
        }
    }

    fn instruction(&mut self, no: usize, text: &str, t: &str) -> Result<(), AsmError> {
        let c0 = col_of(text, t);
        let (dst, rhs) = t
            .split_once('=')
            .ok_or_else(|| err(no, c0, "expected `DEST = MNEMONIC operands` or a directive"))?;
        let dst_t = dst.trim();
        let dst_name = self.reg_name(no, text, dst_t)?;
        if self.consts.contains_key(&dst_name) || self.prog.tables.contains_key(&dst_name) {
            return Err(err(
                no,
                c0,
                format!("`{dst_name}` is a constant or table, not a register"),
            ));
        }
        if let Some((arr, idx)) = dst_name.split_once('[') {
            let k: usize = idx.trim_end_matches(']').parse().unwrap_or(0);
            if !self.prog.arrays.contains_key(arr) || self.prog.arrays[arr] <= k {
                // Growing arrays by assignment (e.g. `ys[3] = ...`).
                let e = self.prog.arrays.entry(arr.to_string()).or_insert(0);
                *e = (*e).max(k + 1);
            }
        }
        let rhs_t = rhs.trim();
        if !rhs_t.contains(char::is_whitespace) && instr::signature(rhs_t).is_none() {
            // `dst = src`: a register copy (free: no circuit nodes).
            let src = self.reg_name(no, text, rhs_t)?;
            self.prog.instrs.push(Instr {
                line: no,
                col: col_of(text, rhs_t),
                dst: dst_name,
                op: MOVE.to_string(),
                args: vec![Operand::Reg(src)],
            });
            return Ok(());
        }
        let (op, ops) = match rhs_t.find(char::is_whitespace) {
            Some(p) => (&rhs_t[..p], rhs_t[p..].trim()),
            None => (rhs_t, ""),
        };
        let op_col = col_of(text, op);
        let sig = instr::signature(op)
            .ok_or_else(|| err(no, op_col, format!("unknown instruction `{op}`")))?;
        let parts: Vec<&str> = if ops.is_empty() {
            Vec::new()
        } else {
            split_commas(ops)
        };
        if parts.len() != sig.args.len() {
            return Err(err(
                no,
                op_col,
                format!(
                    "`{}` takes {} operands ({:?}), got {}",
                    sig.name,
                    sig.args.len(),
                    sig.args,
                    parts.len()
                ),
            ));
        }
        let mut args = Vec::with_capacity(parts.len());
        for (p, kind) in parts.into_iter().zip(sig.args) {
            let p = p.trim();
            let c = col_of(text, p);
            let arg = match kind {
                Kind::Imm => Operand::Imm(eval(p, &self.consts).map_err(|m| err(no, c, m))?),
                Kind::Table => {
                    if !self.prog.tables.contains_key(p) {
                        return Err(err(no, c, format!("unknown table `{p}`")));
                    }
                    Operand::Table(p.to_string())
                }
                Kind::Byte | Kind::Fixed | Kind::Bits => Operand::Reg(self.reg_name(no, text, p)?),
            };
            args.push(arg);
        }
        self.prog.instrs.push(Instr {
            line: no,
            col: op_col,
            dst: dst_name,
            op: sig.name.to_string(),
            args,
        });
        if self.prog.instrs.len() > MAX_INSTRUCTIONS {
            return Err(err(no, c0, "program unrolls to too many instructions"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions() {
        let env: HashMap<String, i64> = [("n".to_string(), 5)].into();
        assert_eq!(eval("n - 1", &env), Ok(4));
        assert_eq!(eval("2 * (n + 1) - -3", &env), Ok(15));
        assert_eq!(eval("0x10 + 0b11", &env), Ok(19));
        assert!(eval("m", &env).is_err());
        assert!(eval("1 +", &env).is_err());
    }

    #[test]
    fn errors_carry_positions() {
        let e = assemble("input a\n  x = ADD a, b, c\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 7));
        let e = assemble("input xs[3]\nxs[3] = ADDI xs[0], 1\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = assemble("for i in 0..2 {\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = assemble("}\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = assemble("table t = 256\n").unwrap_err();
        assert_eq!((e.line, e.col), (1, 11));
    }
}
