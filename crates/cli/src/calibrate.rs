//! `encint calibrate`: measures this machine's bootstraps and saves the profile the planner
//! reads as `--machine calibrated`.

use std::path::PathBuf;

use clap::Args;
use encint::machine::{cached_path, calibrate, save_profile, Calibration, LevelTime};
use encint::{BackendKind, Machine};

use crate::backend::{BackendArgs, DigitSetup};
use crate::error::{internal, usage};
use crate::CliResult;

/// The long help of `encint calibrate`.
pub const LONG_ABOUT: &str = "\
Measure this machine for the planner: generate keys, time levels of bootstraps (one round \
and two rounds wide on the CPU's threads; 1 and 288 bootstraps on a GPU), fit a level's \
latency and a round's time to them, and save the profile. Later commands read it as \
`--machine calibrated` (encint cost, encint eval) and Rust and Python as \
encint::machine::profile(\"calibrated\") / encint.machine_profile(\"calibrated\").

The profile is saved to --out, or by default to $ENCINT_MACHINE_PROFILE, else \
$XDG_CACHE_HOME/encint/machine.json, else ~/.cache/encint/machine.json; a file there that is \
not a machine profile is never replaced. The keys are the default parameters' (KS32, 128-bit \
security, failure probability at most 2^-128 per bootstrap; on a GPU the KS64 set); they are \
dropped at the end. The levels bootstrap one encrypted digit through distinct tables, as any \
circuit's bootstraps do.";

/// Arguments of `encint calibrate`.
#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Threads to measure with (default: all cores; at most 4 per core and 144 in all).
    #[arg(long, value_parser = crate::arg_values::threads)]
    threads: Option<usize>,
    /// Timed runs of each level width; the median is kept (1 to 100).
    #[arg(long, default_value_t = 7, value_parser = |s: &str| crate::arg_values::in_range(s, 1, 100))]
    repeats: usize,
    /// Levels chained in each run (1 to 64).
    #[arg(long, default_value_t = 8, value_parser = |s: &str| crate::arg_values::in_range(s, 1, 64))]
    levels: usize,
    /// The profile file to write (default: the cached profile, see above).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Measure and print, without saving.
    #[arg(long, conflicts_with = "out")]
    dry_run: bool,
    /// Print one JSON object (the profile, the two timed levels, the file) instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Runs `encint calibrate`.
pub fn run(a: CalibrateArgs) -> CliResult {
    if a.backend.wants_mpi()? {
        return Err(usage(
            "--backend mpi: calibrate measures one process (cpu or gpu)",
        ));
    }
    a.backend.check()?;
    // The destination is settled before any work: a missing cache place is an error now.
    let path = match (&a.out, a.dry_run) {
        (_, true) => None,
        (Some(p), false) => Some(p.clone()),
        (None, false) => Some(cached_path()?),
    };
    let setup = DigitSetup::fresh(a.backend.params(), a.threads);
    let (client, key) = setup.keys.obtain()?;
    let client = client.ok_or_else(|| internal("fresh keys come with a client key"))?;
    let server = setup.server(key, a.backend.in_process())?;
    let opts = Calibration {
        repeats: a.repeats,
        levels: a.levels,
    };
    let sp = crate::progress::spinner(&format!(
        "timing {} runs of {} levels of bootstraps on {}",
        2 * (opts.repeats + 1),
        opts.levels,
        where_(&server)
    ));
    let measured = calibrate(&client, &server, &opts)?;
    sp.finish_and_clear();
    if let Some(p) = &path {
        save_profile(&measured.machine, p)?;
    }
    let m = &measured.machine;
    if a.json {
        let level = |l: &LevelTime| serde_json::json!({"width": l.width, "rounds": l.rounds, "ms": l.seconds * 1e3});
        let out = serde_json::json!({
            "name": m.name,
            "lanes": m.lanes,
            "round_ms": m.round_s * 1e3,
            "latency_ms": m.latency_s * 1e3,
            "plan_threads": m.plan_threads,
            "gpu": m.gpu,
            "narrow": level(&measured.narrow),
            "wide": level(&measured.wide),
            "repeats": opts.repeats,
            "levels": opts.levels,
            "saved": path.as_ref().map(|p| p.display().to_string()),
        });
        println!("{out}");
        return Ok(());
    }
    for l in [&measured.narrow, &measured.wide] {
        println!(
            "a level of {:>3} bootstraps ({} round{}): {:8.2} ms (median of {})",
            l.width,
            l.rounds,
            if l.rounds == 1 { "" } else { "s" },
            l.seconds * 1e3,
            opts.repeats
        );
    }
    let builtin = if m.gpu {
        Machine::h100()
    } else {
        Machine::cpu(m.lanes)
    };
    println!(
        "profile {}: {} lane{}, a round {:.2} ms, a level's latency {:.2} ms \
         (built-in {}: {:.2} ms, {:.2} ms)",
        m.name,
        m.lanes,
        if m.lanes == 1 { "" } else { "s" },
        m.round_s * 1e3,
        m.latency_s * 1e3,
        builtin.name,
        builtin.round_s * 1e3,
        builtin.latency_s * 1e3,
    );
    match (&path, &a.out) {
        (Some(p), None) => println!("saved to {}: use it as --machine calibrated", p.display()),
        (Some(p), Some(_)) => println!(
            "saved to {}: use it as --machine {}",
            p.display(),
            p.display()
        ),
        (None, _) => println!("not saved (--dry-run)"),
    }
    Ok(())
}

/// The backend and threads being measured, for the progress line.
fn where_(server: &encint::Server) -> String {
    match server.backend() {
        BackendKind::Gpu => "the GPU".into(),
        _ => match server.threads() {
            1 => "1 thread".into(),
            n => format!("{n} threads"),
        },
    }
}
