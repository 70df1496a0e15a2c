//! `encint bench --workloads`: bad requests are refused with a message, before any key is
//! generated.

mod common;
use common::encint;

#[test]
fn unknown_workloads_and_zero_runs_are_errors() {
    for args in [
        &["bench", "--workloads", "sum16_u16,sum99"][..],
        &["bench", "--workloads", "sum16_u16", "--runs", "0"],
        &["bench", "--workloads", "sum16_u16", "--threads", "0"],
    ] {
        let (ok, _, err) = encint(args);
        assert!(!ok, "{args:?} succeeded");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.trim().is_empty(), "{args:?}: no message");
    }
    let (_, _, err) = encint(&["bench", "--workloads", "sum99"]);
    assert!(err.contains("sum99") && err.contains("mlp_u8"), "{err}");
    let (_, _, err) = encint(&["bench", "--workloads", "horner_u16", "--runs", "0"]);
    assert!(err.contains("--runs"), "{err}");
}

/// The smallest workload end to end on both sides, as JSON.
#[test]
fn sum16_json_row_on_both_sides() {
    let (ok, out, err) = encint(&[
        "bench",
        "--workloads",
        "sum16_u16",
        "--runs",
        "1",
        "--threads",
        "2",
        "--peer-params",
        "ks32",
        "--json",
    ]);
    assert!(ok, "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).expect("JSON array");
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(r["workload"], "sum16_u16");
    assert_eq!(r["threads"], 2);
    assert_eq!(
        r["peer_params"],
        "PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128"
    );
    let (ours, peer) = (
        r["ours_ms"].as_f64().unwrap(),
        r["peer_ms"].as_f64().unwrap(),
    );
    assert!(ours > 0.0 && peer > 0.0, "{r}");
    assert!(
        (r["ratio"].as_f64().unwrap() - ours / peer).abs() < 1e-9,
        "{r}"
    );
    assert!(
        r["pbs"].as_u64().unwrap() > 0 && r["depth"].as_u64().unwrap() > 0,
        "{r}"
    );
    assert!(r["log2_p_fail"].as_f64().unwrap() < -128.0, "{r}");
}
