//! `encint calibrate` and `--machine`: a measured profile is saved where `calibrated` finds
//! it and the planner reads it; a file that is not a profile is never replaced; a server
//! planning for a GPU profile computes the plain integers' values.

mod common;
use common::{encint, s, scratch, stage_lines, succeeds};

use std::process::Command;

/// Runs the binary with the cached profile at `cache`: (success, stdout, stderr).
fn with_cache(cache: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_encint"))
        .args(args)
        .env("ENCINT_MACHINE_PROFILE", cache)
        .output()
        .expect("the encint binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn calibrate_saves_what_machine_calibrated_reads() {
    let dir = scratch("machine", "cache");
    let cache = dir.join("profile").join("machine.json");
    // Before any calibration, `calibrated` names the command to run.
    let cost = ["cost", "--machine", "calibrated", "--bits", "8", "--json"];
    let (ok, _, err) = with_cache(&cache, &cost);
    assert!(!ok && err.contains("encint calibrate"), "{err}");
    let (ok, out, err) = with_cache(
        &cache,
        &[
            "calibrate",
            "--threads",
            "1",
            "--repeats",
            "1",
            "--levels",
            "2",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["name"], "measured:cpu:1");
    assert_eq!(
        (j["lanes"].as_u64(), j["plan_threads"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(j["saved"], s(&cache));
    assert_eq!(
        (j["narrow"]["width"].as_u64(), j["wide"]["width"].as_u64()),
        (Some(1), Some(2))
    );
    let round = j["round_ms"].as_f64().unwrap();
    let latency = j["latency_ms"].as_f64().unwrap();
    assert!(round > 0.1 && latency >= 0.0, "{j}");
    assert!(cache.exists());
    // The planner's rows on the measured profile: each row's ms is its rounds on one lane
    // times the round, plus its bootstrapping levels times the latency.
    let (ok, out, err) = with_cache(&cache, &cost);
    assert!(ok, "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert!(rows.len() >= 20);
    for r in &rows {
        assert_eq!(r["machine"], "measured:cpu:1", "{r}");
        let ms = r["ms"].as_f64().unwrap();
        let (pbs, depth) = (r["pbs"].as_f64().unwrap(), r["depth"].as_f64().unwrap());
        // One lane: every bootstrap is a round; at most one latency per level.
        // (ms is printed to 3 decimals.)
        assert!(ms >= pbs * round - 1e-3, "{r}");
        assert!(ms <= pbs * round + depth * latency + 1e-3, "{r}");
    }
    // The file is also a profile by its path; text output names where it was saved.
    let by_path = succeeds(&["cost", "--machine", s(&cache), "--bits", "8", "--json"]);
    assert_eq!(by_path, out);
    let (ok, text, err) = with_cache(&cache, &["calibrate", "--threads", "1", "--repeats", "1"]);
    assert!(ok, "{err}");
    assert!(text.contains("profile measured:cpu:1") && text.contains("--machine calibrated"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn calibrate_never_replaces_another_file() {
    let dir = scratch("machine", "keep");
    let notes = dir.join("notes.json");
    std::fs::write(&notes, "{\"mine\": true}").unwrap();
    let (ok, _, err) = encint(&[
        "calibrate",
        "--threads",
        "1",
        "--repeats",
        "1",
        "--out",
        s(&notes),
    ]);
    assert!(!ok && err.contains("not overwriting"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "{\"mine\": true}");
    // Bad options are refused before the keys.
    for args in [
        vec!["calibrate", "--repeats", "0"],
        vec!["calibrate", "--levels", "65"],
        vec!["calibrate", "--threads", "0"],
        vec!["calibrate", "--dry-run", "--out", s(&notes)],
    ] {
        let (ok, _, err) = encint(&args);
        assert!(!ok && stage_lines(&err).is_empty(), "{args:?}: {err}");
    }
    // A hostile profile file is a usage error of --machine, naming the file.
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        "{\"format\": \"encint-machine-profile\", \"version\": 1, \"lanes\": 0}",
    )
    .unwrap();
    let (ok, _, err) = encint(&["cost", "--machine", s(&bad), "--bits", "8"]);
    assert!(!ok && err.contains("bad.json"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `encint eval --machine h100` on typed files: the planner's choice for the profile, and
/// the decrypted result is the plain integers'.
#[test]
fn eval_on_a_machine_profile_computes_the_same_value() {
    let dir = scratch("machine", "eval");
    succeeds(&["keygen", "--out", s(&dir)]);
    let (client, server) = (dir.join("client.key"), dir.join("server.key"));
    let (a, b, out) = (dir.join("a.ct"), dir.join("b.ct"), dir.join("out.ct"));
    for (value, path) in [("-77", &a), ("1234", &b)] {
        succeeds(&[
            "encrypt",
            "--key",
            s(&client),
            "--type",
            "i16",
            "--value",
            value,
            "--out",
            s(path),
        ]);
    }
    for (op, want) in [
        ("lt", "true"),
        ("max", "1234"),
        ("mul", &((-77i16).wrapping_mul(1234)).to_string()),
    ] {
        let line = succeeds(&[
            "eval",
            "--server-key",
            s(&server),
            "--op",
            op,
            "--machine",
            "h100",
            "--threads",
            "2",
            "--out",
            s(&out),
            "--force",
            s(&a),
            s(&b),
        ]);
        assert!(!line.is_empty());
        let got = succeeds(&["decrypt", "--key", s(&client), "--in", s(&out), "--json"]);
        let got: serde_json::Value = serde_json::from_str(&got).unwrap();
        assert_eq!(got["value"].to_string(), want, "{op}: {got}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
