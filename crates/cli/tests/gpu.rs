//! `--backend gpu` and `encint gpu ...` where the GPU backend cannot run: a clear error,
//! before any key is generated (without the `gpu` feature: "built without"; with it on a
//! machine without a usable CUDA device: "no usable CUDA device").

mod common;
use common::encint;

/// The error this build gives for a GPU request on this machine, or `None` when a GPU is
/// usable here (then the commands are checked on the device by `encint gpu selftest`).
fn expected_error() -> Option<&'static str> {
    if !cfg!(feature = "gpu") {
        return Some("built without the `gpu` cargo feature");
    }
    let (ok, _, _) = encint(&["gpu", "info"]);
    (!ok).then_some("no usable CUDA device")
}

#[test]
fn gpu_requests_fail_cleanly_where_the_backend_cannot_run() {
    let Some(want) = expected_error() else {
        return;
    };
    let asm = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/array_assign.asm"
    );
    let commands: Vec<Vec<&str>> = vec![
        vec!["demo", "--backend", "gpu"],
        vec!["bench", "--backend", "gpu", "--bits", "8", "--ops", "add"],
        vec!["asm", "run", asm, "--backend", "gpu"],
        vec!["asm", "bench", "--backend", "gpu", "--no-peer"],
        vec!["gpu", "info"],
        vec!["gpu", "selftest"],
        vec!["gpu", "throughput", "--width", "8"],
        vec!["gpu", "bench", "--bits", "8"],
    ];
    for args in &commands {
        let t = std::time::Instant::now();
        let (ok, _, err) = encint(args);
        assert!(!ok, "{args:?} succeeded");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        // Refused before key generation (which takes seconds).
        assert!(t.elapsed().as_secs() < 5, "{args:?} took {:?}", t.elapsed());
    }
}

#[test]
fn unknown_backends_are_refused_and_cpu_stays_the_default() {
    let (ok, _, err) = encint(&["demo", "--backend", "tpu"]);
    assert!(!ok);
    assert!(err.contains("unknown backend `tpu`"), "{err}");
    let (ok, out, _) = encint(&["demo", "--help"]);
    assert!(ok);
    assert!(
        out.contains("--backend") && out.contains("[default: cpu]"),
        "{out}"
    );
    // The byte processor's clear run ignores the backend.
    let asm = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/array_assign.asm"
    );
    let (ok, _, err) = encint(&["asm", "run", asm, "--clear", "--backend", "gpu"]);
    assert!(ok, "{err}");
}
