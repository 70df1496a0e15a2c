//! `--backend` without the `mpi` feature, and the scale model of `encint cost --nodes`.

mod common;
use common::encint;

#[cfg(not(feature = "mpi"))]
#[test]
fn backends_not_built_are_clear_errors() {
    let dir = std::env::temp_dir().join(format!("encint-backend-{}", std::process::id()));
    let out = dir.join("never.ct");
    let out = out.to_str().unwrap();
    for (backend, says) in [("mpi", "--features mpi"), ("gpu", "`gpu` cargo feature")] {
        let (ok, _, err) = encint(&[
            "eval",
            "--backend",
            backend,
            "--server-key",
            "none.key",
            "--op",
            "neg",
            "--in",
            "a.ct",
            "--out",
            out,
        ]);
        assert!(!ok);
        assert!(err.contains(says), "{err}");
        let (ok, _, err) = encint(&["bench", "--backend", backend, "--bits", "8"]);
        assert!(!ok && err.contains(says), "{err}");
        let (ok, _, err) = encint(&["asm", "run", "none.asm", "--backend", backend]);
        assert!(!ok && err.contains(says), "{err}");
    }
    assert!(!dir.join("never.ct").exists());
}

#[test]
fn scale_model_rows() {
    let (ok, out, err) = encint(&["cost", "--nodes", "8", "--threads", "1", "--json"]);
    assert!(ok, "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    let nodes: Vec<u64> = rows.iter().map(|r| r["nodes"].as_u64().unwrap()).collect();
    assert_eq!(nodes, [1, 4, 8, 16, 64]);
    // One node, one thread: every one of the 542 blind rotations at the default 16.7 ms.
    assert_eq!(rows[0]["pbs"], 542);
    assert!((rows[0]["total_s"].as_f64().unwrap() - 542.0 * 0.0167).abs() < 1e-6);
    assert_eq!(rows[0]["comm_s"].as_f64(), Some(0.0));
    // More nodes: less compute, more communication, never above 1 node's time.
    for w in rows.windows(2) {
        assert!(w[1]["compute_s"].as_f64() < w[0]["compute_s"].as_f64());
        assert!(w[1]["comm_s"].as_f64() >= w[0]["comm_s"].as_f64());
    }
    let (ok, _, err) = encint(&["cost", "--nodes", "0"]);
    assert!(!ok && err.contains("--nodes"), "{err}");
    let (ok, _, _) = encint(&["cost", "--nodes", "4", "--gbps", "0"]);
    assert!(!ok);
}
