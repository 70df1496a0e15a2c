//! Shared functions of the binary's integration tests (each test binary uses some of them).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh, empty folder `encint-{suite}-{name}-{process id}` under the temporary folder.
pub fn scratch(suite: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("encint-{suite}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A path as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs the `encint` binary: (success, stdout, stderr).
pub fn encint(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_encint"))
        .args(args)
        .output()
        .expect("the encint binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `args`, which must succeed: its stdout.
pub fn succeeds(args: &[&str]) -> String {
    let (ok, out, err) = encint(args);
    assert!(ok, "{args:?}: {err}");
    out
}

/// The path of `examples/{name}` (the byte processor's example programs).
pub fn example(name: &str) -> String {
    format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Generates a key set into the folder `dir` (`keygen`, or `asm keygen` where `asm`):
/// the path of its client key.
pub fn keys_in(dir: &Path, asm: bool) -> PathBuf {
    let keygen = ["asm", "keygen", "--out", s(dir)];
    succeeds(if asm { &keygen } else { &keygen[1..] });
    dir.join("client.key")
}

/// Encrypts `value` as a `u8` with the client key `key` into the file `out`.
pub fn encrypt_u8(key: &str, value: &str, out: &str) {
    succeeds(&[
        "encrypt", "--key", key, "--type", "u8", "--value", value, "--out", out,
    ]);
}

/// Encrypts the inputs `input` (`name=values`) of the byte processor's `program` with the
/// client key `key` into the uplink file `out`.
pub fn asm_encrypt(program: &str, key: &str, input: &str, out: &str) {
    succeeds(&[
        "asm", "encrypt", program, "--key", key, "--input", input, "--out", out,
    ]);
}

/// A model file of 2 inputs, 2 hidden units and 2 classes, and an image file of 2 images
/// with their classes, in a fresh scratch folder:
/// hidden `h = min(max(x·W1 + b1, 0), 3)`, scores `h·W2 + b2`.
/// `[1, 2]`: h = (min(7, 3), max(-2 + 2 + 1, 0)) = (3, 1), scores (5, -2): class 0.
/// `[0, 0]`: h = (0, 1), scores (-1, 1): class 1.
pub fn small_network(suite: &str, name: &str) -> (PathBuf, PathBuf) {
    let d = scratch(suite, name);
    let (model, images) = (d.join("model.json"), d.join("images.json"));
    std::fs::write(
        &model,
        r#"{"format": "encint-mlp", "version": 1, "input_size": 2, "input_max": 3,
            "layers": [{"weights": [[1, -2], [3, 1]], "bias": [0, 1],
                        "relu": {"shift": 0, "max": 3}},
                       {"weights": [[2, -1], [-1, 1]], "bias": [0, 0]}]}"#,
    )
    .unwrap();
    std::fs::write(
        &images,
        r#"{"format": "encint-images", "version": 1,
            "images": [[1, 2], [0, 0]], "labels": [0, 1]}"#,
    )
    .unwrap();
    (model, images)
}

/// The stage lines of a run's stderr: `[encint] generating keys` and the like (what a
/// spinner prints where stderr is not a terminal), and the `fv` commands' `[fv ...]`
/// lines. A command that refuses its arguments before any work prints none.
pub fn stage_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.starts_with('[')).collect()
}

/// Runs `args`, which must fail with an error naming `name` before any stage of work
/// (key generation, loading keys, building circuits, encrypting) began.
pub fn refused_before_work(args: &[&str], name: &str) {
    let (ok, out, err) = encint(args);
    assert!(!ok, "{args:?} succeeded:\n{out}\n{err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(
        err.contains(name),
        "{args:?}: the error does not name `{name}`:\n{err}"
    );
    let stages = stage_lines(&err);
    assert!(
        stages.is_empty(),
        "{args:?}: work began before the refusal: {stages:?}\n{err}"
    );
}

/// The JSON rows a command prints (it must succeed).
pub fn cost_rows(args: &[&str]) -> Vec<serde_json::Value> {
    let (ok, out, err) = encint(args);
    assert!(ok, "{err}");
    serde_json::from_str(&out).expect("JSON array")
}

#[path = "../../../encint/tests/common/docs.rs"]
mod docs;
#[allow(unused_imports)]
pub use docs::doc_table;
