//! The `encint` binary's machine-readable outputs, checked against the
//! acceptance figures (Parmesan's bootstraps and depth, the chain statistic).

use std::process::Command;

fn encint(args: &[&str]) -> (bool, String, String) {
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

#[test]
fn cost_json_is_never_worse_than_parmesan() {
    let (ok, out, err) = encint(&["cost", "--json"]);
    assert!(ok, "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).expect("JSON array");
    assert_eq!(rows.len(), 24);
    for r in &rows {
        for key in ["op", "bits", "arg", "pbs", "depth", "width", "qweight"] {
            assert!(r.get(key).is_some(), "missing {key} in {r}");
        }
        assert!(r["pbs"].as_u64() <= r["parmesan_pbs"].as_u64(), "{r}");
        assert!(r["depth"].as_u64() <= r["parmesan_depth"].as_u64(), "{r}");
    }
    let (ok, out, _) = encint(&["cost", "--json", "--budget", "25"]);
    assert!(ok);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert!(rows.iter().all(|r| r["qweight"].as_u64().unwrap() <= 25));
}

#[test]
fn chain_statistic_beats_parmesan() {
    let (ok, out, err) = encint(&["chains", "--stats", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["average"].as_f64().unwrap() <= 3.10, "{v}");
    assert!(v["windows"].as_u64().unwrap() > 0);
}

#[test]
fn clear_demo_checks_itself_and_errors_are_reported() {
    let (ok, out, err) = encint(&["demo", "--clear", "--seed", "5"]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("all results match"));
    let (ok, _, err) = encint(&[
        "decrypt",
        "--key",
        "/nonexistent/client.key",
        "--in",
        "x.ct",
    ]);
    assert!(!ok);
    assert!(err.contains("cannot read"), "{err}");
    let (ok, _, err) = encint(&["chains", "--show", "4"]);
    assert!(!ok && err.contains("odd"), "{err}");
}

fn example(name: &str) -> String {
    format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn asm_run_clear_sorts_and_reports_cost() {
    let f = example("bubble_sort.asm");
    let (ok, out, err) = encint(&["asm", "run", &f, "--clear", "--input", "a=9,3,200,0,17"]);
    assert!(ok, "{err}");
    let got: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("out a["))
        .map(|l| {
            l.split('=')
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(got, ["0", "3", "9", "17", "200"], "{out}");
    assert!(out.contains("blind rotations"), "{out}");
}

#[test]
fn asm_errors_are_typed_with_positions() {
    let dir = std::env::temp_dir().join(format!("encint-asm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.asm");
    std::fs::write(&bad, "input a\nx = ADD a\n").unwrap();
    let (ok, _, err) = encint(&["asm", "run", bad.to_str().unwrap(), "--clear"]);
    assert!(!ok);
    assert!(err.contains("line 2, column 5"), "{err}");
    let f = example("array_max.asm");
    for arg in ["a=1,2", "b=3", "a=1,2,3,4,999"] {
        let (ok, _, err) = encint(&["asm", "run", &f, "--clear", "--input", arg]);
        assert!(!ok && err.starts_with("error:"), "{arg}: {err}");
    }
    let (ok, _, _) = encint(&["asm", "run", "/nonexistent.asm", "--clear"]);
    assert!(!ok);
    let (ok, out, _) = encint(&["asm", "list"]);
    assert!(ok && out.lines().count() >= 80);
}

#[test]
fn asm_over_files_keygen_encrypt_run_decrypt() {
    // Client and server steps as separate processes, keys and links through files; the
    // result must be the plain maximum.
    let dir = std::env::temp_dir().join(format!("encint-asm-files-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let keys = dir.join("keys");
    let (k, s) = (keys.to_str().unwrap(), dir.to_str().unwrap());
    let f = example("array_max.asm");
    let (ok, _, err) = encint(&["asm", "keygen", "--out", k]);
    assert!(ok, "{err}");
    let client = format!("{k}/client.key");
    let (input, output) = (format!("{s}/in.ct"), format!("{s}/out.ct"));
    let (ok, _, err) = encint(&[
        "asm",
        "encrypt",
        &f,
        "--key",
        &client,
        "--input",
        "a=9,3,200,0,17",
        "--out",
        &input,
    ]);
    assert!(ok, "{err}");
    let run = |keys_dir: &str| {
        encint(&[
            "asm",
            "run",
            &f,
            "--server-key",
            keys_dir,
            "--in",
            &input,
            "--out",
            &output,
            "--threads",
            "2",
        ])
    };
    let (ok, _, err) = run(k);
    assert!(ok, "{err}");
    let (ok, out, err) = encint(&["asm", "decrypt", &f, "--key", &client, "--in", &output]);
    assert!(ok, "{err}");
    assert!(out.contains("out m = 200"), "{out}");
    // The uplink is not a result, and a run without keys is refused.
    let (ok, _, err) = encint(&["asm", "decrypt", &f, "--key", &client, "--in", &input]);
    assert!(!ok && err.contains("envelope"), "{err}");
    let (ok, _, _) = run(s);
    assert!(!ok);
    let _ = std::fs::remove_dir_all(&dir);
}
