//! Every command checks its arguments (names, widths, counts, files) before it generates
//! keys, loads them, builds circuits or encrypts: a bad argument is an error naming it, and
//! the run shows no stage of work. Where stderr is not a terminal each stage prints one
//! line (`[encint] generating keys`, `[fv bench] ...`), so the tests count the stages that
//! began instead of timing the refusal.

use std::path::{Path, PathBuf};

mod common;
use common::{encint, refused_before_work as refused, s, stage_lines};

/// `base` followed by `extra`.
fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    [base, extra].concat()
}

fn scratch(name: &str) -> PathBuf {
    common::scratch("before-work", name)
}

/// A command without stages of work (a cost table): it fails naming `name` and prints
/// nothing on stdout, not a part of a table.
fn refused_before_output(args: &[&str], name: &str) {
    let (ok, out, err) = encint(args);
    assert!(!ok, "{args:?} succeeded:\n{out}");
    assert!(
        err.contains(name),
        "{args:?}: the error does not name `{name}`: {err}"
    );
    assert!(out.is_empty(), "{args:?} printed before failing:\n{out}");
}

/// A file of `len` bytes that is no envelope.
fn junk(d: &Path, name: &str) -> PathBuf {
    let p = d.join(name);
    std::fs::write(&p, b"not an envelope").unwrap();
    p
}

#[test]
fn key_generating_commands_refuse_bad_arguments_before_work() {
    let d = scratch("keys");
    let file = junk(&d, "a-file");
    let missing = d.join("missing.key");
    let new = d.join("new.key");
    refused(&["demo", "--threads", "0"], "--threads");
    refused(&["demo", "--threads", "100000"], "--threads");
    refused(&["keygen", "--out", s(&file)], s(&file));
    let k = d.join("k");
    refused(&["keygen", "--out", s(&k), "--params", "ks99"], "ks99");
    refused(&["asm", "keygen", "--out", s(&file)], s(&file));
    for cmd in ["public-key", "packing-key"] {
        refused(&[cmd, "--key", s(&missing), "--out", s(&new)], s(&missing));
        refused(&[cmd, "--key", s(&file), "--out", s(&new)], s(&file));
    }
    refused(&["sizes", "--bits", "8"], "--bits");
    assert!(!k.exists() && !new.exists(), "nothing is written");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn benchmarks_refuse_bad_arguments_before_work() {
    let bench = ["bench", "--runs", "1", "--threads", "1"];
    refused(&with(&bench, &["--ops", "pow", "--bits", "8"]), "pow");
    refused(
        &with(&bench, &["--ops", "add", "--scalars", "7", "--bits", "12"]),
        "12",
    );
    refused(&with(&bench, &["--typed", "pow", "--bits", "8"]), "pow");
    refused(&with(&bench, &["--typed", "add", "--bits", "12"]), "12");
    refused(&with(&bench, &["--typed", "add", "--types", "x"]), "`x`");
    refused(&with(&bench, &["--workloads", "nope"]), "nope");
    refused(&["bench", "--runs", "0"], "--runs");
    refused(&["bench", "--threads", "0"], "--threads");
    refused(&["bench", "--threads", "100000"], "--threads");

    let asm = ["asm", "bench", "--no-peer"];
    refused(&with(&asm, &["--ops", "FOO"]), "FOO");
    refused(&with(&asm, &["--runs", "0"]), "--runs");
    refused(&with(&asm, &["--threads", "0"]), "--threads");
    refused(
        &with(&asm, &["--programs", "--examples", "/nonexistent"]),
        "/nonexistent",
    );

    refused(&["bits", "bench", "--ops", "pow"], "pow");
    refused(&["bits", "bench", "--ops", "add", "--bits", "7"], "7");
    refused(&["bits", "bench", "--ops", "dot", "--n", "3"], "3");
    refused(&["bits", "bench", "--threads", "0"], "--threads");
    refused(&["bits", "bench", "--threads", "100000"], "--threads");
    refused_before_output(&["bits", "cost", "--bits", "7"], "7");
    refused_before_output(&["bits", "cost", "--ops", "pow"], "pow");

    refused(&["fv", "bench", "--runs", "0"], "--runs");
    refused(&["fv", "bench", "--set", "E"], "E");
    refused(&["fv", "bench", "--variant", "foo"], "foo");
    refused(&["fv", "depth", "--trials", "0"], "--trials");
    refused(&["fv", "depth", "--set", "E"], "E");
    refused(&["fv", "bits", "bench", "--threads", "0"], "--threads");
    refused(&["fv", "bits", "bench", "--threads", "100000"], "--threads");
    refused(&["fv", "bits", "bench", "--ops", "pow"], "pow");
    refused(&["fv", "bits", "bench", "--bits", "0"], "--bits");
    refused(&["fv", "bits", "bench", "--slots", "0"], "--slots");
    // No row is an add of 4 bits: an empty table is an error naming what was asked.
    let (ok, out, err) = encint(&["fv", "bits", "bench", "--ops", "add", "--bits", "4"]);
    assert!(!ok && out.is_empty(), "{out}");
    assert!(err.contains("add") && err.contains('4'), "{err}");
    assert!(stage_lines(&err).is_empty(), "{err}");

    refused(&["gpu", "bench", "--bits", "7"], "7");
    refused(&["gpu", "bench", "--runs", "0"], "--runs");
    refused(&["gpu", "throughput", "--threads", "0"], "--threads");
    refused(&["gpu", "throughput", "--runs", "0"], "--runs");
    refused(&["gpu", "throughput", "--width", "0"], "--width");
    refused(&["gpu", "selftest", "--bits", "1"], "--bits");

    refused_before_output(&["cost", "--threads", "0"], "--threads");
    refused_before_output(&["cost", "--nodes", "0"], "--nodes");
    refused_before_output(&["cost", "--threads", "2", "--bits", "0"], "--bits");
}

#[test]
fn inference_refuses_bad_arguments_before_work() {
    refused(&["infer", "--images", "0"], "--images");
    refused(&["infer", "--images", "100000"], "--images");
    refused(&["infer", "--threads", "0"], "--threads");
    refused(&["infer", "--batch", "0"], "--batch");
    refused(
        &["infer", "--model", "/nonexistent.json"],
        "/nonexistent.json",
    );
    refused(&["infer", "--fv", "--batch", "4"], "--batch");
}
