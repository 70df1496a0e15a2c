//! `encint eval`: one operation on ciphertext files, on the backend `--backend` names.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use encint::io::files::{self, Mode};
use encint::{EncInt, Op};

use encint::io::wire::CiphertextKind;
use encint::keys::envelope::Kind;
use encint::typed::EncTyped;

use super::typed::{file_kind, parse_typed_op, run_typed, type_name, typed_files, TypeArg};
use crate::backend::{with_digits, DigitSetup, KeySource};
use crate::error::{file, usage};
use crate::keyfiles::{
    content, expect_server, expect_server_side, load_ct, load_packing, read_envelope, VALUES,
};
use crate::progress::spinner;
use crate::{AnyResult, CliResult};

/// The help of `encint eval`.
const EVAL_HELP: &str =
    "The input files say what they hold: every operand of one call must be of one kind and
one type (select: a bool condition, then two values of one type), encrypted under the
key set of --server-key; anything else is an error and nothing is written.

Typed values (encrypt --type uN, iN or bool); results wrap modulo 2^N:
  add sub mul div rem and or xor min max  two operands: two files, or one file and a clear
                                          --scalar K (converted to the type as Rust's `as`)
  shl shr rotl rotr                       shift or rotate by the second operand, taken
                                          modulo the width N (as Rust's wrapping_shl and
                                          TFHE-rs); an encrypted amount is uN of the same
                                          width; shr is arithmetic on signed types
  lt le gt ge eq ne                       comparisons: the result is a bool
  not neg square abs                      one operand (abs(MIN) = MIN)
  select                                  select C A B: A if the bool C is true, else B
                                          (B may be a clear --scalar)
  cast --to TYPE                          truncation, or zero/sign extension by the source's
                                          signedness (Rust's `as`); to bool: x != 0
  scalar_mul                              mul by a clear --scalar
  count_ones count_zeros leading_zeros    counts of bits of the two's-complement pattern,
  leading_ones trailing_zeros             a u32 (a leading or trailing count of a value
  trailing_ones                           without such a bit is the width N)
  ilog2                                   the position of the highest one bit, a u32
                                          (floor(log2 x) for x > 0; 0 for 0, N-1 for x < 0)
  reverse_bits                            the pattern's bits in reverse order
Division truncates toward zero, MIN / -1 = MIN. Division by an encrypted 0 gives all ones
(unsigned) or -1 for x >= 0 and 1 for x < 0 (signed), and x % 0 = x; a clear --scalar 0
divisor is an error.

Exact integers (encrypt --digits N): add, sub, neg, mul, mul_low, scalar_mul (--scalar),
squ (or square), sgn, max, min, abs, round (--position), lt, le, gt, ge, eq, ne. Results
never wrap: they have as many digits as they need.

--clear runs the operation's circuit on the clear executor instead: no key and no file,
the arguments are the operands' plain values of --type (int, bool, uN, iN; a select's
condition is a bool, an amount of shl/shr/rotl/rotr an unsigned value of the width), and
it prints the result with the bootstrap count and depth of the circuit a server key of the
default parameters runs on freshly encrypted operands (--threads: the planner's threads).

--packed FILE writes the result packed with the client's packing key (`encint
packing-key`): its digits keyswitched into one GLWE ciphertext per 2048 digits and
rounded to 14 bits, 3.8 KB for a u16 instead of 262 KB; decrypt reads it.

Examples:
  encint eval --server-key k/server.key --op div a.ct b.ct --out q.ct
  encint eval --server-key k/server.key --op add a.ct b.ct --packed k/packing.key --out s.ct
  encint eval --server-key k/server.key --op shl a.ct --scalar 3 --out s.ct
  encint eval --server-key k/server.key --op cast --to i16 a.ct --out c.ct
  encint eval --clear --type i16 --op div -300 7
  encint eval --clear --type int --op mul --json 1234 -567";

/// `encint eval`.
#[derive(Args)]
#[command(after_help = EVAL_HELP, allow_negative_numbers = true)]
pub struct EvalArgs {
    /// The server key file.
    #[arg(long = "server-key", required_unless_present = "clear")]
    pub(super) server_key: Option<PathBuf>,
    /// Operation. Typed values: add, sub, mul, div, rem, and, or, xor, not, neg, shl, shr,
    /// rotl, rotr, min, max, lt, le, gt, ge, eq, ne, select, abs, square, cast,
    /// scalar_mul, and the counts of bits (a u32 result): count_ones, count_zeros,
    /// leading_zeros, leading_ones, trailing_zeros, trailing_ones, ilog2; reverse_bits.
    /// Exact integers: add, sub, neg, mul, mul_low, scalar_mul, squ, sgn, max,
    /// min, abs, round, lt, le, gt, ge, eq, ne. See below.
    #[arg(long)]
    pub(super) op: String,
    /// Input ciphertext files, in operand order (with `--clear`: the operands' values).
    #[arg(value_name = "FILE")]
    pub(super) files: Vec<PathBuf>,
    /// An input ciphertext file (repeat for more), as an alternative to the positional
    /// files.
    #[arg(long = "in")]
    inputs: Vec<PathBuf>,
    /// A clear operand: the second operand of a typed two-operand operation or of
    /// select's false branch, the factor of scalar_mul.
    #[arg(long, allow_hyphen_values = true, conflicts_with = "position")]
    pub(super) scalar: Option<i128>,
    /// The bit position of round (only with `--op round` on exact integers).
    #[arg(long)]
    pub(super) position: Option<i64>,
    /// The target type of `--op cast`: uN (N >= 2), iN or bool.
    #[arg(long, value_parser = super::typed::parse_type, value_name = "TYPE")]
    pub(super) to: Option<TypeArg>,
    /// Output ciphertext file (never one of the input files, even with --force).
    #[arg(long, required_unless_present = "clear")]
    out: Option<PathBuf>,
    /// Replace the output file if it exists.
    #[arg(long)]
    force: bool,
    /// Threads for bootstrapping (default: all cores; at most 4 per core). The planner
    /// picks each operation's algorithm for this count, with `--clear` too.
    #[arg(long, value_parser = crate::arg_values::threads)]
    pub(super) threads: Option<usize>,
    /// Plan the circuit for machine profile P instead of this machine's threads: cpu:N,
    /// h100, h200, calibrated (what `encint calibrate` saved) or a profile file. A typed
    /// operation takes the algorithm of least estimated time on P, an exact product or
    /// square the circuit of least estimated time; bootstraps still run here, on
    /// --threads.
    #[arg(long, value_name = "P", value_parser = crate::arg_values::machine)]
    pub(super) machine: Option<encint::Machine>,
    /// Largest circuit to build and run, in nodes (default 2097152; checked from an
    /// estimate before building; at least 1).
    #[arg(long = "max-nodes", value_parser = crate::arg_values::count_u64)]
    max_nodes: Option<u64>,
    /// Write the result packed with this packing key file (`encint packing-key`): a few KB
    /// instead of 16 KB per digit.
    #[arg(long, value_name = "FILE")]
    packed: Option<PathBuf>,
    /// Print a JSON object (op, type, bootstraps, depth, ms, out; with `--clear`: op,
    /// type, operands and result as text, bootstraps, depth) instead of the line.
    #[arg(long)]
    pub(super) json: bool,
    /// Run the operation's circuit on the clear executor, without keys or files: the
    /// arguments are the operands' plain values, of `--type`; prints the result with the
    /// circuit's bootstrap count and depth (the circuit a server key of the default
    /// parameters runs on freshly encrypted operands). No security: for checks and cost.
    #[arg(
        long,
        conflicts_with_all = ["server_key", "out", "inputs", "packed", "force"]
    )]
    pub(super) clear: bool,
    /// With `--clear`: the operands' type, int (the exact integer), bool, uN (N >= 2) or
    /// iN.
    #[arg(
        long = "type",
        value_parser = super::typed::parse_type,
        value_name = "TYPE",
        requires = "clear"
    )]
    pub(super) ty: Option<TypeArg>,
    /// With `--clear --type int`: the digit count of every operand (|value| < 2^N;
    /// default: the fewest that hold every operand).
    #[arg(long, requires = "clear")]
    pub(super) digits: Option<usize>,
    #[command(flatten)]
    pub(super) backend: crate::backend::BackendArgs,
}

impl EvalArgs {
    /// `--out` (clap requires it without `--clear`).
    fn out_path(&self) -> AnyResult<&PathBuf> {
        self.out
            .as_ref()
            .ok_or_else(|| usage("`--out FILE` is required (or `--clear`)"))
    }

    /// `--server-key` (clap requires it without `--clear`).
    /// The server's settings: its key read from `server_key`, the threads, node limit and
    /// machine profile given.
    fn setup<'a>(&'a self, server_key: &'a Path) -> DigitSetup<'a> {
        DigitSetup {
            keys: KeySource::File(server_key),
            threads: self.threads,
            max_nodes: self.max_nodes,
            machine: self.machine.as_ref(),
        }
    }

    fn server_key_path(&self) -> AnyResult<&PathBuf> {
        self.server_key
            .as_ref()
            .ok_or_else(|| usage("`--server-key FILE` is required (or `--clear`)"))
    }
}

/// The operation `--op` (with `--scalar` or `--position`) names.
pub(super) fn parse_op(a: &EvalArgs) -> AnyResult<Op> {
    let scalar = a
        .scalar
        .map(i64::try_from)
        .transpose()
        .map_err(|_| usage("the scalar of an exact integer operation must fit 64 bits"))?;
    let arg = match (a.op.as_str(), scalar, a.position) {
        ("scalar_mul", s, None) => s,
        ("round", None, p) => p,
        (_, None, None) => None,
        (op, _, _) => {
            return Err(usage(format!(
                "`--scalar` goes only with `--op scalar_mul` and `--position` only with \
                 `--op round` (got `--op {op}`)"
            )))
        }
    };
    Ok(Op::parse(&a.op, arg.map(i128::from))?)
}

/// The input files: positional or `--in`, not both.
fn input_paths(a: &EvalArgs) -> AnyResult<Vec<PathBuf>> {
    match (a.files.is_empty(), a.inputs.is_empty()) {
        (false, false) => Err(usage(
            "give the input files either as arguments or with --in, not both",
        )),
        (true, true) => Err(usage("no input ciphertext file given")),
        (false, true) => Ok(a.files.clone()),
        (true, false) => Ok(a.inputs.clone()),
    }
}

/// `encint eval` on files: the arguments are checked before any key is read; the first input file
/// says whether the operation is on typed values or exact integers (an unreadable one is
/// reported after the exact integers' argument checks, as before typed files existed).
pub fn eval_files(a: EvalArgs) -> CliResult {
    // A backend this build or machine lacks is named before anything is read.
    if !a.backend.wants_mpi()? {
        a.backend.check()?;
    }
    let paths = input_paths(&a)?;
    let mut inputs = Vec::with_capacity(paths.len());
    for p in &paths {
        // What each file holds is checked from its first bytes, before it is read whole.
        if let Err(e) = content(p) {
            parse_op(&a)?;
            return Err(e);
        }
        expect_server_side(p, VALUES, INPUTS_NEED)?;
        inputs.push(read_envelope(p, Kind::Ciphertext)?);
    }
    let kinds: Vec<CiphertextKind> = inputs.iter().map(|b| file_kind(b)).collect();
    if let Some(i) = kinds.iter().position(|&k| k != kinds[0]) {
        return Err(usage(format!(
            "{} holds a value of kind {}, {} one of kind {}: one operation takes one kind of \
             value",
            paths[0].display(),
            kinds[0].name(),
            paths[i].display(),
            kinds[i].name()
        )));
    }
    if kinds[0] == CiphertextKind::Typed {
        return eval_typed(&a, &paths, &inputs);
    }
    let op = parse_op(&a)?;
    if a.to.is_some() {
        return Err(usage("`--to` goes only with `--op cast` on typed values"));
    }
    let (out_path, server_key) = (a.out_path()?, a.server_key_path()?);
    check_output(&a, &paths)?;
    check_arity(&a, op.arity(), paths.len(), "input ciphertext(s)")?;
    expect_server(server_key)?;
    let packing = packing_key(&a)?;
    let setup = a.setup(server_key);
    with_digits(&a.backend, setup, |server, _, exec| {
        let ins = paths
            .iter()
            .map(|p| load_ct(p))
            .collect::<AnyResult<Vec<EncInt>>>()?;
        let refs: Vec<&EncInt> = ins.iter().collect();
        let (out, cost, seconds) = evaluate(&a, || Ok(exec.apply(server, op, &refs)?))?;
        let params = server.key().params();
        let bytes = match &packing {
            Some(k) => encint::io::packed::pack_int(k, &out)?.to_bytes(params)?,
            None => out.to_bytes(params)?,
        };
        files::write_one(out_path, &bytes, Mode::Public, a.force)?;
        let what = format!("{} output digits", out.len());
        report(&a, "int", &what, seconds, &cost, out_path);
        if let Some(line) = exec.report() {
            println!("{line}");
        }
        Ok(())
    })
}

/// What `eval` says of an input file that holds no encrypted value.
const INPUTS_NEED: &str =
    "eval's input files need encrypted values (`encint encrypt`, or eval's unpacked results)";

/// Refuses `--out` where it is one of the input files (ciphertexts, keys), or exists
/// without `--force`, before any key is read.
fn check_output(a: &EvalArgs, inputs: &[PathBuf]) -> CliResult {
    let out = a.out_path()?;
    let mut all: Vec<&std::path::Path> = inputs.iter().map(PathBuf::as_path).collect();
    all.extend(a.server_key.as_deref());
    all.extend(a.packed.as_deref());
    files::check_distinct(&[out], &all)?;
    Ok(files::check_new(&[out], a.force)?)
}

/// The packing key of `--packed`, read before any work.
fn packing_key(a: &EvalArgs) -> AnyResult<Option<encint::keys::PackingKey>> {
    a.packed.as_deref().map(load_packing).transpose()
}

/// Runs `apply` (the evaluation of `a.op`) under a spinner: its result, its cost and the
/// seconds it took.
fn evaluate<T>(
    a: &EvalArgs,
    apply: impl FnOnce() -> AnyResult<(T, encint::Cost)>,
) -> AnyResult<(T, encint::Cost, f64)> {
    let pb = spinner(&format!("evaluating {}", a.op));
    let start = Instant::now();
    let (out, cost) = apply()?;
    let seconds = start.elapsed().as_secs_f64();
    pb.finish_and_clear();
    Ok((out, cost, seconds))
}

/// Reports a finished evaluation written to `out`: the JSON object of `--json`, else one
/// line; `ty` names the result's type, `what` describes the result in the line.
fn report(
    a: &EvalArgs,
    ty: &str,
    what: &str,
    seconds: f64,
    cost: &encint::Cost,
    out: &std::path::Path,
) {
    if a.json {
        let v = serde_json::json!({
            "op": a.op,
            "type": ty,
            "bootstraps": cost.bootstraps,
            "depth": cost.depth,
            "ms": seconds * 1e3,
            "out": out.display().to_string(),
        });
        println!("{v}");
    } else {
        println!(
            "{} done in {:.1} ms: {} bootstraps, depth {}, {what} -> {}",
            a.op,
            seconds * 1e3,
            cost.bootstraps,
            cost.depth,
            out.display()
        );
    }
}

/// The typed operation of `a` on `given` operands (`what` they are, for the message),
/// checked against its arguments: `--to` only with a cast, `--scalar` where it replaces an
/// operand, the operand count.
pub(super) fn typed_op(a: &EvalArgs, given: usize, what: &str) -> AnyResult<Op> {
    if a.position.is_some() {
        return Err(usage(
            "`--position` goes only with `--op round` on exact integers",
        ));
    }
    let to = match (a.op.as_str(), a.to) {
        ("cast", Some(TypeArg::Typed(t))) => Some(t),
        ("cast", Some(TypeArg::Int)) => {
            return Err(usage("a typed value casts to uN, iN or bool, not int"))
        }
        ("cast", None) => None,
        (_, Some(_)) => return Err(usage("`--to` goes only with `--op cast`")),
        (_, None) => None,
    };
    let op = parse_typed_op(&a.op, to)?;
    if a.op == "scalar_mul" && a.scalar.is_none() {
        return Err(usage("`--op scalar_mul` needs `--scalar K`"));
    }
    let want =
        typed_files(op, a.scalar.is_some()).map_err(|e| usage(format!("`{}`: {e}", a.op)))?;
    if given != want {
        return Err(usage(format!(
            "`{}` takes {want} {what}{}, got {given}",
            a.op,
            if a.scalar.is_some() {
                " with --scalar"
            } else {
                ""
            },
        )));
    }
    Ok(op)
}

/// `encint eval` on typed values: `bytes` read from `paths`.
fn eval_typed(a: &EvalArgs, paths: &[PathBuf], bytes: &[Vec<u8>]) -> CliResult {
    let op = typed_op(a, paths.len(), "input ciphertext(s)")?;
    if a.backend.wants_mpi()? {
        return Err(usage(
            "--backend mpi runs exact integers; typed values run on cpu or gpu",
        ));
    }
    let (out_path, server_key) = (a.out_path()?, a.server_key_path()?);
    check_output(a, paths)?;
    expect_server(server_key)?;
    let ins = paths
        .iter()
        .zip(bytes)
        .map(|(p, b)| EncTyped::from_bytes(b).map_err(|e| file(p, e)))
        .collect::<AnyResult<Vec<EncTyped>>>()?;
    let packing = packing_key(a)?;
    let setup = a.setup(server_key);
    with_digits(&a.backend, setup, |server, _, _| {
        let refs: Vec<&EncTyped> = ins.iter().collect();
        let (out, cost, seconds) = evaluate(a, || Ok(run_typed(server, op, &refs, a.scalar)?))?;
        let params = server.key().params();
        let bytes = match &packing {
            Some(k) => encint::io::packed::pack_typed(k, &out)?.to_bytes(params)?,
            None => out.to_bytes(params)?,
        };
        files::write_one(out_path, &bytes, Mode::Public, a.force)?;
        let ty = type_name(out.ty());
        report(a, &ty, &format!("a {ty}"), seconds, &cost, out_path);
        Ok(())
    })
}

/// Refuses `got` operands for `a.op`, which takes `arity` (`what` names them).
pub(super) fn check_arity(a: &EvalArgs, arity: usize, got: usize, what: &str) -> CliResult {
    if got != arity {
        return Err(usage(format!("`{}` takes {arity} {what}, got {got}", a.op)));
    }
    Ok(())
}
