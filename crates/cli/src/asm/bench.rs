//! `encint asm bench`: instructions on random encrypted bytes beside TFHE-rs' `FheUint8`,
//! or the example programs, each result checked against the clear executor.

use std::time::Instant;

use clap::Args;
use encint::backend::tree::run_tree;
use encint::circuit::clear;
use encint::circuit::{Builder, Circuit, Cost};
use encint::keys::{ClientKey, Digit, ServerKey, TreeKey, DEFAULT_PARAMETERS};
use encint::processor::instr::{emit, signature, Arg, Kind, Value};
use encint::processor::vm;
use encint::processor::Byte;
use encint::Op;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::error::{file, mismatch, usage};
use crate::ops_arg::OpsArg;
use crate::peer::byte::time_peer8;
use crate::peer::init_peer_keys;
use crate::progress::spinner;
use crate::timing::{median, ms_or_dash, pool, print_json};
use crate::{AnyResult, CliResult};

/// Client, server and tree keys of one process.
pub struct Keys {
    client: ClientKey,
    server: ServerKey,
    tree: TreeKey,
}

/// Generates the keys (a few seconds), with a spinner on stderr.
pub fn keys() -> Keys {
    let sp = spinner("generating client, server and tree keys");
    let (client, server) = ClientKey::generate(&DEFAULT_PARAMETERS);
    let tree = TreeKey::generate(&client);
    sp.finish_and_clear();
    Keys {
        client,
        server,
        tree,
    }
}

/// Encrypts circuit input nibbles with the seeded uplink (one seed, bodies only) and lets the
/// "server" expand them.
fn encrypt_nibbles(k: &Keys, nibbles: &[i64]) -> AnyResult<Vec<Digit>> {
    let vals: Vec<u8> = nibbles.iter().map(|&v| v as u8).collect();
    let seeded = k.client.encrypt_nibbles_seeded(&vals)?;
    let bytes = seeded.to_bytes();
    let back = encint::keys::SeededNibbles::from_bytes(&bytes)?;
    Ok(back.expand_for(&k.server)?)
}

fn eval(
    k: &Keys,
    circuit: &Circuit,
    inputs: &[Digit],
    pool: &rayon::ThreadPool,
) -> AnyResult<Vec<Digit>> {
    let refs: Vec<&Digit> = inputs.iter().collect();
    Ok(pool.install(|| run_tree(&k.server, &k.tree, circuit, &refs))?)
}

fn decrypt(k: &Keys, out: &[Digit]) -> Vec<i64> {
    out.iter().map(|d| k.client.decrypt_digit(d)).collect()
}

/// Arguments of `encint asm bench`.
#[derive(Args)]
pub struct AsmBenchArgs {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Threads for both encint and TFHE-rs (default: all cores; at most 4 per core).
    #[arg(long, value_parser = crate::arg_values::threads)]
    pub threads: Option<usize>,
    /// Time the example programs (examples/*.asm) instead of the instructions.
    #[arg(long)]
    pub programs: bool,
    /// Timed runs per instruction (median reported; at least 1; the programs of
    /// --programs run once).
    #[arg(long, default_value_t = 3, value_parser = crate::arg_values::count)]
    pub runs: usize,
    /// Which instructions (`--ops ADD,MUL`, mnemonics; default: the rows of the processor
    /// paper's Table 4).
    #[command(flatten)]
    pub ops: OpsArg,
    /// Skip the TFHE-rs FheUint8 timings.
    #[arg(long)]
    pub no_peer: bool,
    /// Directory of the example programs (with --programs).
    #[arg(long, default_value = "examples")]
    pub examples: std::path::PathBuf,
    #[command(flatten)]
    pub backend: crate::backend::BackendArgs,
}

/// The instructions of the processor paper's Table 4 with their one-core times there (ms), the
/// immediate used, and the TFHE-rs FheUint8 equivalent.
pub const TABLE4: &[(&str, f64, i64, Option<Op>)] = &[
    ("ANDI", 69.0, 0x5a, None),
    ("AND", 278.0, 0, Some(Op::And)),
    ("SHLI", 72.0, 3, None),
    ("SHL", 478.0, 0, Some(Op::ShlVar)),
    ("ROLI", 125.0, 3, None),
    ("ROL", 714.0, 0, Some(Op::RotlVar)),
    ("EQI", 88.0, 77, None),
    ("EQ", 393.0, 0, Some(Op::EQ)),
    ("LTI", 126.0, 77, None),
    ("LT", 623.0, 0, Some(Op::LT)),
    ("CDUPI", 33.0, 77, None),
    ("CDUP", 159.0, 0, None),
    ("CSEL", 694.0, 0, None),
    ("NEG", 215.0, 0, None),
    ("ABS", 215.0, 0, None),
    ("ADDI", 137.0, 77, None),
    ("ADD", 493.0, 0, Some(Op::Add)),
    ("SUB", 493.0, 0, Some(Op::Sub)),
    ("ADDZ", 271.0, 0, None),
    ("MIN", 1176.0, 0, Some(Op::Min)),
    ("MAX", 1176.0, 0, Some(Op::Max)),
    ("MULI", 133.0, 77, None),
    ("DIVI", 133.0, 7, None),
    ("MODI", 267.0, 7, None),
    ("MUL", 725.0, 0, Some(Op::Mul)),
    ("MULM", 2442.0, 0, None),
    ("DIV4", 1624.0, 0, None),
    ("MOD4", 724.0, 0, None),
    ("DIV", 7711.0, 0, Some(Op::Div)),
    ("MOD", 7584.0, 0, Some(Op::Rem)),
];

/// A one-instruction circuit on fresh byte inputs, and the input values to use.
fn instruction_circuit(name: &str, imm: i64, rng: &mut impl Rng) -> AnyResult<(Circuit, Vec<i64>)> {
    let sig = signature(name).ok_or_else(|| usage(format!("unknown instruction `{name}`")))?;
    let mut b = Builder::with_budget(encint::DEFAULT_PARAMETERS.max_quadratic_weight());
    let mut args = Vec::new();
    let mut vals = Vec::new();
    let boolean_first = matches!(
        sig.name,
        "CDUP" | "NCDUP" | "CSEL" | "CDUPI" | "NCDUPI" | "CSELI"
    );
    for (i, k) in sig.args.iter().enumerate() {
        match k {
            Kind::Byte => {
                let (hi, lo) = (b.input(), b.input());
                let v: u8 = if i == 0 && boolean_first {
                    rng.gen_range(0..2)
                } else if sig.name == "ADDZ" && i == 1 {
                    0
                } else if matches!(sig.name, "DIV" | "MOD" | "DIV4" | "MOD4") && i == 1 {
                    rng.gen_range(1..=255)
                } else {
                    rng.gen()
                };
                vals.extend([(v >> 4) as i64, (v & 15) as i64]);
                args.push(Arg::Byte(Byte { hi, lo }));
            }
            Kind::Imm => args.push(Arg::Imm(imm)),
            other => {
                return Err(usage(format!(
                    "`{name}` takes a {other:?} operand: not benchmarked"
                )))
            }
        }
    }
    let out = match emit(&mut b, sig.name, &args)? {
        Value::Byte(x) => vec![x.hi, x.lo],
        Value::Fixed(f) => vec![f.int.hi, f.int.lo, f.frac.hi, f.frac.lo],
        Value::Bits(bits) => bits,
    };
    Ok((b.finish(out), vals))
}

#[derive(Serialize)]
struct InstrRow {
    instr: String,
    threads: usize,
    ours_ms: f64,
    peer_ms: Option<f64>,
    blind_rotations: u64,
    keyswitches: u64,
    depth: u32,
    paper_ms: f64,
}

#[derive(Serialize)]
struct ProgramRow {
    program: String,
    threads: usize,
    ms: f64,
    blind_rotations: u64,
    keyswitches: u64,
    paper_ms: Option<f64>,
}

/// Times `circuit` on encrypted `vals` (median of `runs`), checking each result against the
/// clear executor.
fn time_circuit(
    k: &Keys,
    circuit: &Circuit,
    vals: &[i64],
    runs: usize,
    pool: &rayon::ThreadPool,
) -> AnyResult<(f64, Cost)> {
    let (want, cost) = clear::run(circuit, vals)?;
    let inputs = encrypt_nibbles(k, vals)?;
    let mut times = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let out = eval(k, circuit, &inputs, pool)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        if decrypt(k, &out) != want {
            return Err(mismatch("encrypted result differs from the clear run"));
        }
    }
    Ok((median(times), cost))
}

/// `encint asm bench`: the rows (or the example programs) are known before any key is
/// generated.
pub fn bench(a: AsmBenchArgs) -> CliResult {
    a.backend.check_processor()?;
    let pool = pool(a.threads)?;
    let threads = pool.current_num_threads();
    if a.programs {
        let programs = example_programs(&a.examples)?;
        let k = keys();
        return bench_programs(&a, &programs, &k, &pool, threads);
    }
    let known: Vec<&str> = TABLE4.iter().map(|r| r.0).collect();
    if let Some(bad) = a.ops.unknown(&known) {
        return Err(usage(format!(
            "--ops: {bad} is not among the Table 4 rows: {}",
            known.join(",")
        )));
    }
    let rows: Vec<&(&str, f64, i64, Option<Op>)> =
        TABLE4.iter().filter(|r| a.ops.wants(r.0)).collect();
    let k = keys();
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    if !a.no_peer {
        let sp = spinner("generating TFHE-rs keys");
        init_peer_keys();
        sp.finish_and_clear();
    }
    let mut out = Vec::new();
    if !a.json {
        println!(
            "{:<6} {:>10} {:>10} {:>7} {:>10} {:>7} {:>4} {:>4}",
            "instr", "ours ms", "TFHE-rs", "ratio", "paper ms", "ratio", "BR", "KS"
        );
    }
    for &&(name, paper_ms, imm, peer) in &rows {
        let sp = spinner(&format!("{name} on {threads} thread(s)"));
        let (circuit, vals) = instruction_circuit(name, imm, &mut rng)?;
        let (ours_ms, cost) = time_circuit(&k, &circuit, &vals, a.runs, &pool)?;
        let peer_ms = match (peer, a.no_peer) {
            (Some(op), false) => Some(pool.install(|| time_peer8(op, a.runs))?.median_ms),
            _ => None,
        };
        sp.finish_and_clear();
        let row = InstrRow {
            instr: name.to_string(),
            threads,
            ours_ms,
            peer_ms,
            blind_rotations: cost.blind_rotations,
            keyswitches: cost.packing_keyswitches,
            depth: cost.depth,
            paper_ms,
        };
        if !a.json {
            println!(
                "{:<6} {:>10.1} {:>10} {:>7} {:>10.0} {:>7.2} {:>4} {:>4}",
                row.instr,
                row.ours_ms,
                ms_or_dash(row.peer_ms),
                row.peer_ms
                    .map_or("-".into(), |p| format!("{:.2}", row.ours_ms / p)),
                row.paper_ms,
                row.ours_ms / row.paper_ms,
                row.blind_rotations,
                row.keyswitches
            );
        }
        out.push(row);
    }
    if a.json {
        print_json(&out)?;
    }
    Ok(())
}

/// The processor paper's Table 5 figures (seconds → ms) for the example programs.
fn paper_program_ms(stem: &str) -> Option<f64> {
    Some(match stem {
        "bubble_sort" => 16000.0,
        "array_max" => 4710.0,
        "average" => 3680.0,
        "array_assign" => 4450.0,
        "neuron_sigmoid" => 16000.0,
        "neuron_heaviside" => 6850.0,
        _ => return None,
    })
}

/// The example programs of `dir` (`*.asm`, by name), each assembled and compiled, with
/// their inputs: an error before any key exists if one does not load.
fn example_programs(dir: &std::path::Path) -> AnyResult<Vec<(String, vm::Compiled, Data)>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| file(dir, format!("cannot read: {e}")))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(file(dir, "holds no program (*.asm)"));
    }
    files
        .iter()
        .map(|f| {
            let stem = f.file_stem().unwrap_or_default().to_string_lossy();
            let c = super::program::load(f)?;
            let data = super::program::inputs_from_args(&c, &[], 7)?;
            Ok((stem.to_string(), c, data))
        })
        .collect()
}

/// Input values of a program, by name.
type Data = std::collections::HashMap<String, encint::processor::Datum>;

fn bench_programs(
    a: &AsmBenchArgs,
    programs: &[(String, vm::Compiled, Data)],
    k: &Keys,
    pool: &rayon::ThreadPool,
    threads: usize,
) -> CliResult {
    let mut rows = Vec::new();
    for (stem, c, data) in programs {
        let vals = vm::encode_inputs(c, data)?;
        let sp = spinner(&format!("{stem} on {threads} thread(s)"));
        let (ms, cost) = time_circuit(k, &c.circuit, &vals, 1, pool)?;
        sp.finish_and_clear();
        let row = ProgramRow {
            program: stem.clone(),
            threads,
            ms,
            blind_rotations: cost.blind_rotations,
            keyswitches: cost.packing_keyswitches,
            paper_ms: paper_program_ms(stem),
        };
        if !a.json {
            println!(
                "{:<18} {:>10.0} ms  (paper {:>6} ms)  {:>5} BR {:>4} KS",
                row.program,
                row.ms,
                row.paper_ms.map_or("-".into(), |p| format!("{p:.0}")),
                row.blind_rotations,
                row.keyswitches
            );
        }
        rows.push(row);
    }
    if a.json {
        print_json(&rows)?;
    }
    Ok(())
}
