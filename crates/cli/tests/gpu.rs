//! `--backend gpu` and `encint gpu ...` where the GPU backend cannot run: a clear error,
//! before any key is generated (without the `gpu` feature: "built without"; with it on a
//! machine without a usable CUDA device: "no usable CUDA device"). Where a device is usable,
//! `encint gpu info` and `encint gpu selftest` run on it and must report every check matching
//! the clear executor.

mod common;
use common::encint;

/// The error this build gives for a GPU request on this machine, or `None` when a GPU is
/// usable here (then `gpu_selftest_passes_where_a_device_is_usable` runs on it).
fn expected_error() -> Option<&'static str> {
    if !cfg!(feature = "gpu") {
        return Some("built without the `gpu` cargo feature");
    }
    let (ok, _, _) = encint(&["gpu", "info"]);
    (!ok).then_some("no usable CUDA device")
}

#[test]
fn gpu_requests_fail_cleanly_where_the_backend_cannot_run() {
    let Some(want) = expected_error() else {
        return;
    };
    let asm = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/array_assign.asm"
    );
    let commands: Vec<Vec<&str>> = vec![
        vec!["demo", "--backend", "gpu"],
        vec!["bench", "--backend", "gpu", "--bits", "8", "--ops", "add"],
        vec!["asm", "run", asm, "--backend", "gpu"],
        vec!["asm", "bench", "--backend", "gpu", "--no-peer"],
        vec!["gpu", "info"],
        vec!["gpu", "selftest"],
        vec!["gpu", "throughput", "--width", "8"],
        vec!["gpu", "bench", "--bits", "8"],
        vec!["gpu", "info", "--json"],
        vec!["gpu", "selftest", "--json"],
        vec!["gpu", "throughput", "--width", "8", "--json"],
        vec!["gpu", "bench", "--bits", "8", "--json"],
        vec!["gpu", "bench", "--bits", "8", "--typed"],
        vec!["infer", "--backend", "gpu", "--images", "1"],
    ];
    for args in &commands {
        // Refused before key generation: no stage of work shows on stderr.
        common::refused_before_work(args, want);
    }
}

/// Reported as ignored in a build without the `gpu` feature; in one with it, on a machine
/// without a device, it says so and checks nothing.
#[test]
#[cfg_attr(
    not(feature = "gpu"),
    ignore = "needs the gpu feature and a CUDA device"
)]
fn gpu_selftest_passes_where_a_device_is_usable() {
    if let Some(why) = expected_error() {
        eprintln!("SKIPPED gpu_selftest_passes_where_a_device_is_usable: {why}");
        return;
    }
    let (ok, out, err) = encint(&["gpu", "info"]);
    assert!(ok, "{err}");
    assert!(out.contains("CUDA devices:"), "{out}");
    // One width keeps it short: the digit level (every digit value through plain and
    // half-step tables and linear nodes) and every operation at 8 bits.
    let (ok, out, err) = encint(&["gpu", "selftest", "--bits", "8", "--cases", "1"]);
    assert!(ok, "selftest failed:\n{out}\n{err}");
    assert!(!out.contains("MISMATCH"), "{out}");
    assert!(
        out.contains("digit level:") && out.contains("all match the clear executor"),
        "{out}"
    );
    let summary = out
        .lines()
        .find(|l| l.starts_with("all ") && l.contains("GPU checks match the clear executor"))
        .unwrap_or_else(|| panic!("no summary line:\n{out}"));
    let checks: usize = summary
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{summary}"));
    // 32 digit values × 6 tables + 96 linear nodes and tables at least, and the operations.
    assert!(checks > 300, "{summary}");
    // The same checks as one JSON object: the same count, every row matching.
    let (ok, out, err) = encint(&["gpu", "selftest", "--bits", "8", "--cases", "1", "--json"]);
    assert!(ok, "selftest --json failed:\n{out}\n{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(v["checks"].as_u64(), Some(checks as u64), "{v}");
    assert_eq!(v["failures"].as_u64(), Some(0), "{v}");
    assert_eq!(v["digit_level"]["mismatches"].as_u64(), Some(0), "{v}");
    let rows = v["rows"].as_array().expect("rows");
    assert!(!rows.is_empty() && rows.iter().all(|r| r["ok"] == true && r["bits"] == 8));
}

#[test]
fn unknown_backends_are_refused_and_cpu_stays_the_default() {
    let (ok, _, err) = encint(&["demo", "--backend", "tpu"]);
    assert!(!ok);
    assert!(err.contains("unknown backend `tpu`"), "{err}");
    let (ok, out, _) = encint(&["demo", "--help"]);
    assert!(ok);
    assert!(
        out.contains("--backend") && out.contains("[default: cpu]"),
        "{out}"
    );
    // The byte processor's clear run ignores the backend.
    let asm = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/array_assign.asm"
    );
    let (ok, _, err) = encint(&["asm", "run", asm, "--clear", "--backend", "gpu"]);
    assert!(ok, "{err}");
}
