//! `encint cost`: bootstrap cost of every operation beside Parmesan's; with `--threads`
//! the planner's table of the typed operations (`typed`), with `--nodes` the scale model
//! of an MPI job (`scale`).

mod scale;
mod typed;

use clap::Args;
use encint::arith::Config;
use encint::arith::{cost_table, CostRow};

use crate::error::usage;
use crate::CliResult;

/// `encint cost`.
#[derive(Args)]
#[command(group(clap::ArgGroup::new("planner").args(["threads", "machine"]).multiple(true)))]
pub struct CostArgs {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    json: bool,
    /// Noise budget (largest quadratic weight at a LUT input); default: Parmesan's forms, unbounded.
    #[arg(long)]
    budget: Option<u64>,
    /// Print the planner's table instead: for each typed (TFHE-rs-like) operation and
    /// width, every form's bootstraps, depth and estimated time at N threads (the sum over
    /// levels of ceil(level width / N) bootstrap times), the chosen form first. With
    /// --nodes: threads per node (default 1). No thread is started: N is modelled, 1 to
    /// 65536.
    #[arg(long, value_name = "N", value_parser = crate::arg_values::modelled_threads)]
    threads: Option<usize>,
    /// With --threads or --machine: widths in bits, 4 to 128 (default 8,16,32,64; the table divides by
    /// 7, a value of every type from 4 bits). With --nodes: the one operand width of the
    /// scale model, 1 to 512 (default 32).
    #[arg(long, value_delimiter = ',', value_parser = |s: &str| crate::arg_values::in_range(s, 1, 512))]
    bits: Vec<usize>,
    /// With --threads or --machine: operands in lazy form (wrapping results) instead of
    /// canonical (one bit per digit, `encrypt_as` with `Form::Canonical`).
    #[arg(long, requires = "planner", conflicts_with = "nodes")]
    lazy: bool,
    /// With --threads or --machine: operands in radix-4 form (two-bit blocks, what
    /// `encrypt` gives and `encint bench --typed` times) instead of canonical.
    #[arg(long, requires = "planner", conflicts_with_all = ["nodes", "lazy"])]
    radix4: bool,
    /// Add to the planner's table (or, with --workloads, to each workload) the estimated
    /// time on machine profile P, in milliseconds, and choose each operation's form by it:
    /// `cpu:N` (N threads, 11.5 ms per bootstrap), `h100` (5.0 ms per level plus 25,000
    /// bootstraps per second), `h200` (4.5 ms per level), `calibrated` (what `encint
    /// calibrate` measured here) or a profile file. A level costs the profile's
    /// latency plus one round per lane-full of its bootstraps. The circuits are built for
    /// --threads threads, or without it for the threads the planner chooses on that
    /// machine (a CPU's threads, 125 lanes on a GPU).
    #[arg(long, value_name = "P", conflicts_with_all = ["nodes"],
          value_parser = crate::arg_values::machine)]
    machine: Option<encint::Machine>,
    /// Print each whole-program workload of `encint bench --workloads` (all, or the
    /// comma-separated names given) compiled for --threads threads (default 2, or the
    /// --machine profile's): its
    /// bootstraps, depth and estimated rounds traced operation by operation, and as
    /// compiled with chains of linear operations and products feeding sums reduced at once.
    #[arg(long, value_delimiter = ',', num_args = 0.., value_name = "NAMES",
          conflicts_with_all = ["nodes", "lazy", "radix4", "bits", "budget"])]
    workloads: Option<Vec<String>>,
    #[command(flatten)]
    scale: scale::ScaleArgs,
}

/// Runs `encint cost`.
pub fn run(a: CostArgs) -> CliResult {
    if let Some(names) = &a.workloads {
        let threads = a
            .threads
            .or(a.machine.as_ref().map(|m| m.plan_threads))
            .unwrap_or(2);
        return crate::bench::print_workload_costs(names, threads, a.machine.as_ref(), a.json);
    }
    if a.scale.nodes.is_some() {
        let bits = match a.bits.as_slice() {
            [] => 32,
            [b] => *b,
            _ => return Err(usage("with --nodes, --bits takes one width")),
        };
        return scale::scale(&a.scale, a.threads.unwrap_or(1), bits, a.json);
    }
    if let Some(threads) = a.threads.or(a.machine.as_ref().map(|m| m.plan_threads)) {
        let bits = if a.bits.is_empty() {
            vec![8, 16, 32, 64]
        } else {
            a.bits.clone()
        };
        if let Some(b) = bits.iter().find(|b| !(4..=128).contains(*b)) {
            return Err(usage(format!(
                "--bits {b}: the planner's table has widths 4 to 128 (its rows divide by 7, \
                 a value of every type from 4 bits)"
            )));
        }
        let form = match (a.lazy, a.radix4) {
            (true, _) => encint::typed::Form::Lazy,
            (_, true) => encint::typed::Form::Radix4,
            _ => encint::typed::Form::Canonical,
        };
        return typed::print(threads, &bits, form, a.machine.as_ref(), a.json);
    }
    if !a.bits.is_empty() {
        return Err(usage(
            "--bits needs --threads or --machine (the planner) or --nodes (the scale model)",
        ));
    }
    let config = match a.budget {
        Some(q) => Config { max_qweight: q },
        None => Config::PARMESAN,
    };
    let rows = cost_table(config);
    if a.json {
        return crate::timing::print_json_rows(&rows, |r| {
            serde_json::json!({
                "op": r.op, "bits": r.bits, "arg": r.arg,
                "pbs": r.cost.bootstraps, "depth": r.cost.depth,
                "width": r.cost.width, "qweight": r.cost.max_qweight,
                "parmesan_pbs": r.parmesan.0, "parmesan_depth": r.parmesan.1,
            })
        });
    }
    println!(
        "{:<11} {:>4} {:>6} {:>6} {:>6} {:>6} {:>8} | {:>9} {:>9}",
        "op", "bits", "arg", "pbs", "depth", "width", "qweight", "Parm.pbs", "Parm.dep"
    );
    for r in &rows {
        print_row(r);
    }
    println!(
        "\nqweight = largest sum of squared weights at a bootstrap input; encint's parameters \
(TFHE-rs' PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128, and its KS_PBS sibling) allow 25. Rows marked * exceed it;\n\
`encint cost --budget 25` shows the restructured forms."
    );
    Ok(())
}

fn print_row(r: &CostRow) {
    let arg = r.arg.map(|a| a.to_string()).unwrap_or_default();
    let flag = if r.cost.max_qweight > 25 { "*" } else { "" };
    println!(
        "{:<11} {:>4} {:>6} {:>6} {:>6} {:>6} {:>7}{:1} | {:>9} {:>9}",
        r.op,
        r.bits,
        arg,
        r.cost.bootstraps,
        r.cost.depth,
        r.cost.width,
        r.cost.max_qweight,
        flag,
        r.parmesan.0,
        r.parmesan.1
    );
}
