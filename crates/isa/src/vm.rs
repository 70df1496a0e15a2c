//! The virtual machine: turns an assembled [`Program`] into one circuit (every instruction
//! recorded in order, so independent instructions share bootstrap levels), and runs it in
//! clear mode. Encrypted runs give the same circuit to the TFHE tree executor (crate
//! `encint`), with the same input and output layout.

use std::collections::HashMap;
use std::sync::Arc;

use encint_core::circuit::{Builder, Circuit, Cost, NodeId, DEFAULT_MAX_NODES};
use encint_core::clear;

use crate::asm::{AsmError, Operand, Program};
use crate::instr::{self, Arg, Kind, Value};
use crate::{Byte, Fixed};

/// A clear datum of a program input or output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Datum {
    /// A byte (interpret as `u8` or two's complement `i8` as the program intends).
    Byte(u8),
    /// A fixed-point value: raw 16 bits, `value = raw / 256` (two's complement).
    Fixed(i16),
}

impl std::fmt::Display for Datum {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Datum::Byte(v) if v >= 128 => write!(f, "{v} (signed {})", v as i8),
            Datum::Byte(v) => write!(f, "{v}"),
            Datum::Fixed(r) => write!(f, "{:.6} (raw {})", r as f64 / 256.0, r),
        }
    }
}

/// A compiled program: its circuit and where each named input and output lives in it.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The whole program as one circuit. Inputs: every input element in declaration order,
    /// nibbles most significant first (a byte is 2 inputs, a fixed-point value 4).
    pub circuit: Circuit,
    /// Input elements: (name, kind), in circuit input order.
    pub inputs: Vec<(String, Kind)>,
    /// Output elements: (name, kind, first circuit output position).
    pub outputs: Vec<(String, Kind, usize)>,
}

/// Nibbles per datum of `kind`.
pub fn nibbles(kind: Kind) -> usize {
    match kind {
        Kind::Fixed => 4,
        Kind::Bits => 8,
        _ => 2,
    }
}

fn value_nodes(v: &Value) -> Vec<NodeId> {
    match v {
        Value::Byte(b) => vec![b.hi, b.lo],
        Value::Fixed(f) => vec![f.int.hi, f.int.lo, f.frac.hi, f.frac.lo],
        Value::Bits(bits) => bits.clone(),
    }
}

fn value_kind(v: &Value) -> Kind {
    match v {
        Value::Byte(_) => Kind::Byte,
        Value::Fixed(_) => Kind::Fixed,
        Value::Bits(_) => Kind::Bits,
    }
}

fn arg_of(v: &Value) -> Arg {
    match v {
        Value::Byte(b) => Arg::Byte(*b),
        Value::Fixed(f) => Arg::Fixed(*f),
        Value::Bits(b) => Arg::Bits(b.clone()),
    }
}

/// Compiles `program` into one circuit for a parameter set whose bootstrap inputs may
/// carry quadratic weight up to `budget` (its `max_quadratic_weight`).
///
/// The circuit is limited to [`DEFAULT_MAX_NODES`] nodes: a program that passes it is
/// refused at the instruction where it does, before the rest is built
/// ([`compile_with_limit`] sets another limit).
pub fn compile(program: &Program, budget: u64) -> Result<Compiled, AsmError> {
    compile_with_limit(program, budget, DEFAULT_MAX_NODES)
}

/// [`compile`] with a limit of `max_nodes` circuit nodes, checked after each instruction
/// (one instruction adds at most a few dozen nodes).
pub fn compile_with_limit(
    program: &Program,
    budget: u64,
    max_nodes: u64,
) -> Result<Compiled, AsmError> {
    let mut b = Builder::with_budget(budget);
    let mut regs: HashMap<String, Value> = HashMap::new();
    let mut inputs = Vec::new();
    for d in &program.inputs {
        let names: Vec<String> = match d.len {
            Some(l) => (0..l).map(|k| format!("{}[{k}]", d.name)).collect(),
            None => vec![d.name.clone()],
        };
        for n in names {
            let v = match d.kind {
                Kind::Fixed => {
                    let ns: Vec<NodeId> = (0..4).map(|_| b.input()).collect();
                    Value::Fixed(Fixed {
                        int: Byte {
                            hi: ns[0],
                            lo: ns[1],
                        },
                        frac: Byte {
                            hi: ns[2],
                            lo: ns[3],
                        },
                    })
                }
                _ => {
                    let (hi, lo) = (b.input(), b.input());
                    Value::Byte(Byte { hi, lo })
                }
            };
            inputs.push((n.clone(), d.kind));
            regs.insert(n, v);
        }
    }
    let tables: HashMap<&str, Arc<[u16; 256]>> = program
        .tables
        .iter()
        .map(|(k, v)| {
            let mut t = [0u16; 256];
            t.copy_from_slice(v);
            (k.as_str(), Arc::new(t))
        })
        .collect();
    for ins in &program.instrs {
        let e = |m: String| AsmError {
            line: ins.line,
            col: ins.col,
            message: m,
        };
        if ins.op == crate::asm::MOVE {
            if let [Operand::Reg(r)] = ins.args.as_slice() {
                let v = regs
                    .get(r)
                    .cloned()
                    .ok_or_else(|| e(format!("register `{r}` is used before it is set")))?;
                regs.insert(ins.dst.clone(), v);
                continue;
            }
        }
        let mut args = Vec::with_capacity(ins.args.len());
        for a in &ins.args {
            args.push(match a {
                Operand::Imm(v) => Arg::Imm(*v),
                Operand::Table(t) => Arg::Table(tables[t.as_str()].clone()),
                Operand::Reg(r) => arg_of(
                    regs.get(r)
                        .ok_or_else(|| e(format!("register `{r}` is used before it is set")))?,
                ),
            });
        }
        let label = format!("{} (line {})", ins.op, ins.line);
        let v = b
            .labelled(&label, |b| instr::emit(b, &ins.op, &args))
            .map_err(|x| e(x.to_string()))?;
        regs.insert(ins.dst.clone(), v);
        if b.node_count() as u64 > max_nodes {
            return Err(e(format!(
                "the program's circuit passes {max_nodes} nodes here (the limit of an \
                 encrypted run); split the program"
            )));
        }
    }
    let mut outs = Vec::new();
    let mut outputs = Vec::new();
    for (name, line, col) in &program.outputs {
        let names: Vec<String> = match program.arrays.get(name) {
            Some(&l) if !regs.contains_key(name) => {
                (0..l).map(|k| format!("{name}[{k}]")).collect()
            }
            _ => vec![name.clone()],
        };
        for n in names {
            let v = regs.get(&n).ok_or_else(|| AsmError {
                line: *line,
                col: *col,
                message: format!("output `{n}` is never set"),
            })?;
            outputs.push((n, value_kind(v), outs.len()));
            outs.extend(value_nodes(v));
        }
    }
    Ok(Compiled {
        circuit: b.finish(outs),
        inputs,
        outputs,
    })
}

/// Errors of running a program (beyond assembly errors).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// A required input was not supplied, or given with the wrong number of elements.
    #[error("input `{0}`: {1}")]
    Input(String, String),
    /// The circuit layer reported an error.
    #[error(transparent)]
    Core(#[from] encint_core::CoreError),
    /// An output nibble is not in `0..16` (a bug in an instruction circuit).
    #[error("output `{0}` has a nibble outside 0..16")]
    Output(String),
}

/// Splits input data into circuit input nibbles, in [`Compiled::inputs`] order.
/// `data` maps each input element name (`a`, `xs[2]`) to its datum.
/// A name in `data` that is not an input element of the program (an unknown input, or an
/// array element past the array's length) is refused, as a missing one is.
pub fn encode_inputs(c: &Compiled, data: &HashMap<String, Datum>) -> Result<Vec<i64>, RunError> {
    let mut extra: Vec<&String> = data
        .keys()
        .filter(|k| !c.inputs.iter().any(|(n, _)| n == *k))
        .collect();
    extra.sort();
    if let Some(name) = extra.first() {
        return Err(RunError::Input(
            (*name).clone(),
            "is not an input of the program (an unknown name, or an element past the array's length)"
                .into(),
        ));
    }
    let mut out = Vec::new();
    for (name, kind) in &c.inputs {
        let d = data
            .get(name)
            .ok_or_else(|| RunError::Input(name.clone(), "missing".into()))?;
        match (kind, d) {
            (Kind::Fixed, Datum::Fixed(r)) => {
                let r = *r as u16;
                out.extend([(r >> 12) & 15, (r >> 8) & 15, (r >> 4) & 15, r & 15].map(i64::from));
            }
            (Kind::Fixed, Datum::Byte(v)) => {
                out.extend([(*v >> 4) as i64, (*v & 15) as i64, 0, 0]);
            }
            (_, Datum::Byte(v)) => out.extend([(*v >> 4) as i64, (*v & 15) as i64]),
            (_, Datum::Fixed(_)) => {
                return Err(RunError::Input(name.clone(), "expects a byte".into()))
            }
        }
    }
    Ok(out)
}

/// Reads output data from circuit output nibbles.
pub fn decode_outputs(c: &Compiled, values: &[i64]) -> Result<Vec<(String, Datum)>, RunError> {
    c.outputs
        .iter()
        .map(|(name, kind, at)| {
            let n = nibbles(*kind);
            let ns = &values[*at..*at + n];
            if ns.iter().any(|v| !(0..16).contains(v)) {
                return Err(RunError::Output(name.clone()));
            }
            let d = match kind {
                Kind::Fixed => Datum::Fixed(
                    ((ns[0] << 12) | (ns[1] << 8) | (ns[2] << 4) | ns[3]) as u16 as i16,
                ),
                Kind::Bits => Datum::Byte(
                    ns.iter()
                        .enumerate()
                        .fold(0u8, |acc, (i, &b)| acc | (((b & 1) as u8) << i)),
                ),
                _ => Datum::Byte((ns[0] * 16 + ns[1]) as u8),
            };
            Ok((name.clone(), d))
        })
        .collect()
}

/// Runs a compiled program in clear mode: outputs and the cost an encrypted run would have.
pub fn run_clear(
    c: &Compiled,
    data: &HashMap<String, Datum>,
) -> Result<(Vec<(String, Datum)>, Cost), RunError> {
    let inputs = encode_inputs(c, data)?;
    let (out, cost) = clear::run(&c.circuit, &inputs)?;
    Ok((decode_outputs(c, &out)?, cost))
}

/// Parses a command-line datum for an input of `kind`: a byte (`0..=255` or `-128..=-1`)
/// or, for fixed-point inputs, a decimal number (`-1.25`, rounded down to 1/256).
pub fn parse_datum(kind: Kind, s: &str) -> Result<Datum, String> {
    let s = s.trim();
    match kind {
        Kind::Fixed => {
            let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
            let raw = (v * 256.0).floor();
            if !(-32768.0..=32767.0).contains(&raw) {
                return Err(format!("{v} is out of the fixed-point range [-128, 128)"));
            }
            Ok(Datum::Fixed(raw as i16))
        }
        _ => {
            let v: i64 = s.parse().map_err(|_| format!("`{s}` is not an integer"))?;
            if !(-128..=255).contains(&v) {
                return Err(format!("{v} does not fit in a byte"));
            }
            Ok(Datum::Byte(v as u8))
        }
    }
}

/// Parses `NAME=V` or `NAME=V1,V2,...` (arrays) against the program's inputs.
pub fn parse_input_arg(
    c: &Compiled,
    arg: &str,
    data: &mut HashMap<String, Datum>,
) -> Result<(), String> {
    let (name, vals) = arg
        .split_once('=')
        .ok_or_else(|| format!("`{arg}`: expected NAME=VALUE"))?;
    let name = name.trim();
    let elems: Vec<&(String, Kind)> = c
        .inputs
        .iter()
        .filter(|(n, _)| n == name || n.strip_prefix(name).is_some_and(|r| r.starts_with('[')))
        .collect();
    if elems.is_empty() {
        return Err(format!("the program has no input `{name}`"));
    }
    let parts: Vec<&str> = vals.split(',').collect();
    if parts.len() != elems.len() {
        return Err(format!(
            "input `{name}` takes {} value(s), got {}",
            elems.len(),
            parts.len()
        ));
    }
    for ((n, k), p) in elems.into_iter().zip(parts) {
        data.insert(n.clone(), parse_datum(*k, p)?);
    }
    Ok(())
}
