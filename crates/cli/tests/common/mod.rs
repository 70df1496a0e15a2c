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
