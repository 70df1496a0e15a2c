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
