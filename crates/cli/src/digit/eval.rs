//! `encint eval`: one operation on ciphertext files, on the backend `--backend` names.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use encint::files::{self, Mode};
use encint::{EncInt, Op};

use crate::backend::{with_digits, DigitSetup, KeySource};
use crate::keyfiles::load_ct;
use crate::progress::spinner;
use crate::{AnyResult, CliResult};

/// `encint eval`.
#[derive(Args)]
pub struct EvalArgs {
    /// The server key file.
    #[arg(long = "server-key")]
    server_key: PathBuf,
    /// Operation: add, sub, neg, mul, mul_low, scalar_mul, squ, sgn, max, min, abs,
    /// round, lt, le, gt, ge, eq, ne.
    #[arg(long)]
    op: String,
    /// Input ciphertext(s): one or two, as the operation needs.
    #[arg(long = "in", required = true)]
    inputs: Vec<PathBuf>,
    /// The clear scalar of scalar_mul (only with `--op scalar_mul`).
    #[arg(long, allow_hyphen_values = true, conflicts_with = "position")]
    scalar: Option<i64>,
    /// The bit position of round (only with `--op round`).
    #[arg(long)]
    position: Option<i64>,
    /// Output ciphertext file.
    #[arg(long)]
    out: PathBuf,
    /// Replace the output file if it exists.
    #[arg(long)]
    force: bool,
    /// Threads for bootstrapping (default: all cores; at most 4 per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Largest circuit to build and run, in nodes (default 2097152; checked from an
    /// estimate before building).
    #[arg(long = "max-nodes")]
    max_nodes: Option<u64>,
    #[command(flatten)]
    backend: crate::backend::BackendArgs,
}

/// The operation `--op` (with `--scalar` or `--position`) names.
fn parse_op(a: &EvalArgs) -> AnyResult<Op> {
    let arg = match (a.op.as_str(), a.scalar, a.position) {
        ("scalar_mul", s, None) => s,
        ("round", None, p) => p,
        (_, None, None) => None,
        (op, _, _) => {
            return Err(format!(
                "`--scalar` goes only with `--op scalar_mul` and `--position` only with \
                 `--op round` (got `--op {op}`)"
            )
            .into())
        }
    };
    Ok(Op::parse(&a.op, arg)?)
}

/// `encint eval`: the arguments are checked before any key is read.
pub fn eval(a: EvalArgs) -> CliResult {
    let op = parse_op(&a)?;
    if let Some(t) = a.threads {
        encint::check_threads(t)?;
    }
    files::check_new(&[&a.out], a.force)?;
    if a.inputs.len() != op.arity() {
        return Err(format!(
            "`{}` takes {} input ciphertext(s), got {}",
            a.op,
            op.arity(),
            a.inputs.len()
        )
        .into());
    }
    let setup = DigitSetup {
        keys: KeySource::File(&a.server_key),
        threads: a.threads,
        max_nodes: a.max_nodes,
    };
    with_digits(&a.backend, setup, |server, _, exec| {
        let ins = a
            .inputs
            .iter()
            .map(|p| load_ct(p))
            .collect::<AnyResult<Vec<EncInt>>>()?;
        let pb = spinner(&format!("evaluating {}", a.op));
        let start = Instant::now();
        let refs: Vec<&EncInt> = ins.iter().collect();
        let (out, cost) = exec.apply(server, op, &refs)?;
        let elapsed = start.elapsed();
        pb.finish_and_clear();
        let bytes = out.to_bytes(server.key().params())?;
        files::write_one(&a.out, &bytes, Mode::Public, a.force)?;
        println!(
            "{} done in {:.1} ms: {} bootstraps, depth {}, {} output digits -> {}",
            a.op,
            elapsed.as_secs_f64() * 1e3,
            cost.bootstraps,
            cost.depth,
            out.len(),
            a.out.display()
        );
        if let Some(line) = exec.report() {
            println!("{line}");
        }
        Ok(())
    })
}
