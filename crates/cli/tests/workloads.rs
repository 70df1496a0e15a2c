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
