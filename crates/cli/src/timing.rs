//! What every benchmark command shares: medians, thread pools, timed runs, JSON output.

use std::time::Instant;

use crate::error::{internal, usage};
use crate::{AnyResult, CliResult};

/// The median of `times` (the upper one of an even count); `times` must not be empty.
pub fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Milliseconds since `start`.
pub fn ms_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// A rayon pool of `threads` threads (default: all cores; checked against the limit).
pub fn pool(threads: Option<usize>) -> AnyResult<rayon::ThreadPool> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        b = b.num_threads(encint::check_threads(t)?);
    }
    b.build().map_err(|e| internal(e.to_string()))
}

/// Times `run` (milliseconds) `runs` times; `after` sees each result outside the timed
/// region (to check it) and says whether the row is heavy, which ends it after that run.
/// Returns the times and the first result.
pub fn timed_runs<T>(
    runs: usize,
    mut run: impl FnMut() -> AnyResult<T>,
    mut after: impl FnMut(&T) -> AnyResult<bool>,
) -> AnyResult<(Vec<f64>, T)> {
    let mut times = Vec::new();
    let mut first = None;
    let mut n = runs;
    while times.len() < n {
        let t = Instant::now();
        let r = run()?;
        times.push(ms_since(t));
        if after(&r)? {
            n = 1;
        }
        first.get_or_insert(r);
    }
    Ok((times, first.ok_or_else(|| usage("at least one run"))?))
}

/// Prints `rows` as a pretty JSON array on stdout.
pub fn print_json<T: serde::Serialize + ?Sized>(rows: &T) -> CliResult {
    println!("{}", serde_json::to_string_pretty(rows)?);
    Ok(())
}

/// Prints `rows` as a pretty JSON array on stdout, each row as `row` writes it.
pub fn print_json_rows<R>(rows: &[R], row: impl Fn(&R) -> serde_json::Value) -> CliResult {
    print_json(&rows.iter().map(row).collect::<Vec<_>>())
}

/// `value` with one decimal, or `-` when there is none.
pub fn ms_or_dash(value: Option<f64>) -> String {
    value.map_or_else(|| "-".into(), |v| format!("{v:.1}"))
}
