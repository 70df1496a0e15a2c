//! Every command checks its arguments (names, widths, counts, files) before it generates
//! keys, loads them, builds circuits or encrypts: a bad argument is an error naming it, and
//! the run shows no stage of work. Where stderr is not a terminal each stage prints one
//! line (`[encint] generating keys`, `[fv bench] ...`), so the tests count the stages that
//! began instead of timing the refusal.

use std::path::{Path, PathBuf};

mod common;
use common::{
    asm_encrypt, encint, encrypt_u8, example, keys_in, refused_before_work as refused, s,
    stage_lines,
};

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
    refused(
        &[
            "bench",
            "--typed",
            "match_value",
            "--bits",
            "8",
            "--types",
            "i",
        ],
        "match_value",
    );
    refused(&["bench", "--typed", "overflowing_neg"], "overflowing_neg");

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

/// The commands on files, with real keys: each bad argument is refused before the key is
/// loaded and before anything is encrypted, evaluated or decrypted.
#[test]
fn file_commands_refuse_bad_arguments_before_work() {
    let d = scratch("files");
    let k = d.join("k");
    let (client, server) = (keys_in(&k, false), k.join("server.key"));
    let (client, server) = (s(&client), s(&server));
    let a = d.join("a.ct");
    encrypt_u8(client, "7", s(&a));
    let (a, o) = (s(&a), d.join("o.ct"));
    let o = s(&o);

    let encrypt = ["encrypt", "--key", client, "--out", o];
    refused(&with(&encrypt, &["--type", "u8", "--value", "300"]), "300");
    refused(
        &with(&encrypt, &["--type", "u8", "--value", "3", "--digits", "8"]),
        "--digits",
    );
    refused(
        &with(&encrypt, &["--type", "u9000", "--value", "3"]),
        "u9000",
    );
    refused(&with(&encrypt, &["--value", "x", "--digits", "8"]), "`x`");
    refused(
        &[
            "encrypt", "--key", server, "--type", "u8", "--value", "3", "--out", o,
        ],
        "server key",
    );

    let eval = ["eval", "--server-key", server, "--out", o];
    refused(&with(&eval, &["--op", "pow", a, a]), "pow");
    refused(&with(&eval, &["--op", "add", a]), "add");
    refused(
        &with(&eval, &["--op", "add", a, a, "--threads", "0"]),
        "--threads",
    );
    refused(
        &with(&eval, &["--op", "add", a, a, "--max-nodes", "0"]),
        "--max-nodes",
    );
    refused(
        &with(&eval, &["--op", "add", a, a, "--packed", "/nonexistent"]),
        "/nonexistent",
    );
    refused(&with(&eval, &["--op", "add", a, client]), "client key");
    refused(&with(&eval, &["--op", "add", a, server]), "server key");
    refused(
        &[
            "eval",
            "--server-key",
            client,
            "--op",
            "add",
            a,
            a,
            "--out",
            o,
        ],
        "client key",
    );

    refused(&["decrypt", "--key", client, "--in", server], "server key");
    refused(&["decrypt", "--key", server, "--in", a], "server key");
    refused(
        &["decrypt", "--key", client, "--in", "/nonexistent"],
        "/nonexistent",
    );
    refused(&["public-key", "--key", server, "--out", o], "server key");
    assert!(!Path::new(o).exists(), "nothing is written");
    std::fs::remove_dir_all(&d).unwrap();
}

/// The byte processor's commands, with real keys.
#[test]
fn asm_commands_refuse_bad_arguments_before_work() {
    let d = scratch("asm");
    let ak = d.join("ak");
    let client = keys_in(&ak, true);
    let client = s(&client);
    let average = example("average.asm");
    let (up, typed, o) = (d.join("up.ct"), d.join("t.ct"), d.join("o.ct"));
    let (up, typed, o) = (s(&up), s(&typed), s(&o));
    asm_encrypt(&average, client, "a=1,2,3,4,5", up);
    encrypt_u8(client, "3", typed);

    refused(&["asm", "run", &average, "--input", "nope=1"], "nope");
    refused(&["asm", "run", &average, "--input", "a=1,2"], "`a`");
    refused(&["asm", "run", &average, "--threads", "0"], "--threads");
    refused(&["asm", "run", "/nonexistent.asm"], "/nonexistent.asm");
    let server_run = ["asm", "run", &average, "--server-key", s(&ak), "--out", o];
    refused(&with(&server_run, &["--in", typed]), "typed integer");
    refused(&with(&server_run, &["--in", client]), "client key");
    refused(
        &[
            "asm",
            "run",
            &average,
            "--server-key",
            s(&d),
            "--in",
            up,
            "--out",
            o,
        ],
        "server.key",
    );
    let encrypt = ["asm", "encrypt", &average, "--out", o];
    refused(
        &with(&encrypt, &["--key", client, "--input", "nope=3"]),
        "nope",
    );
    let server = ak.join("server.key");
    refused(&with(&encrypt, &["--key", s(&server)]), "server key");
    refused(
        &["asm", "decrypt", &average, "--key", client, "--in", typed],
        "typed integer",
    );
    refused(
        &["asm", "decrypt", &average, "--key", client, "--in", up],
        "inputs",
    );
    assert!(!Path::new(o).exists(), "nothing is written");
    std::fs::remove_dir_all(&d).unwrap();
}

/// The exit status tells refused arguments (2: the argument parser's refusals and the
/// commands' own checks alike) from a file that does not hold what the command needs (1).
#[test]
fn exit_status_tells_refused_arguments_from_bad_files() {
    let status = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_encint"))
            .args(args)
            .output()
            .expect("the encint binary runs")
            .status
            .code()
    };
    // The argument parser: a thread count of 0.
    assert_eq!(status(&["demo", "--threads", "0"]), Some(2));
    // The command's own check: `--clear` needs the operands' type.
    assert_eq!(
        status(&["eval", "--clear", "--op", "add", "1", "2"]),
        Some(2)
    );
    assert_eq!(
        status(&["eval", "--clear", "--op", "add", "--type", "u8", "1", "2"]),
        Some(0)
    );
    // A file that is no key: the key given to `decrypt` holds no envelope.
    let d = scratch("exit-status");
    let bad = junk(&d, "not-a.key");
    let out = d.join("value.ct");
    assert_eq!(
        status(&["decrypt", "--key", s(&bad), "--in", s(&out)]),
        Some(1)
    );
}
