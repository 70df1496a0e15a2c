//! `--backend mpi` under `mpirun -n 3` (feature `mpi`; needs Open MPI's `mpirun`):
//! a product and a byte-processor program against plain arithmetic and the clear run,
//! a dead rank, a hung rank and a key mismatch ending with a clear error on rank 0.
//!
//! Run: `cargo test --workspace --release --features encint-cli/mpi --test mpi`.
#![cfg(feature = "mpi")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::encint;

/// A job still running after this has hung (a dead rank that nothing reported): it is
/// killed so that the tests end. Not a bound on speed: the jobs end in seconds, a faulty
/// rank within its `--mpi-timeout`.
const HANG: Duration = Duration::from_secs(1800);

struct Run {
    ok: bool,
    out: String,
    err: String,
}

/// `mpirun` with `groups` (each: ranks, arguments), killed if it hangs ([`HANG`]).
fn mpirun(groups: &[(u32, Vec<String>)]) -> Run {
    let mut cmd = Command::new("mpirun");
    cmd.args(["--allow-run-as-root", "--oversubscribe"]);
    for (k, (n, args)) in groups.iter().enumerate() {
        if k > 0 {
            cmd.arg(":");
        }
        cmd.args(["-n", &n.to_string(), env!("CARGO_BIN_EXE_encint")]);
        cmd.args(args);
    }
    let dir = std::env::temp_dir();
    let tag = format!("{}-{:?}", std::process::id(), Instant::now());
    let (o, e) = (
        dir.join(format!("mpi-out-{tag}")),
        dir.join(format!("mpi-err-{tag}")),
    );
    cmd.stdout(Stdio::from(std::fs::File::create(&o).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(&e).unwrap()));
    let start = Instant::now();
    let mut child = cmd.spawn().expect("mpirun runs (install openmpi-bin)");
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mpirun still ran after {HANG:?}: a hang");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let run = Run {
        ok: status.success(),
        out: read(&o),
        err: read(&e),
    };
    let _ = std::fs::remove_file(o);
    let _ = std::fs::remove_file(e);
    run
}

fn s(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

fn p(path: &Path) -> String {
    path.display().to_string()
}

/// Keys (two key sets) and two encrypted 8-bit operands in a fresh directory.
fn setup(name: &str, x: i128, y: i128) -> PathBuf {
    let d = std::env::temp_dir().join(format!("encint-mpi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for keys in ["keys", "other"] {
        let (ok, _, err) = encint(&["keygen", "--out", &p(&d.join(keys))]);
        assert!(ok, "{err}");
    }
    for (v, f) in [(x, "x.ct"), (y, "y.ct")] {
        let (ok, _, err) = encint(&[
            "encrypt",
            "--key",
            &p(&d.join("keys/client.key")),
            "--value",
            &v.to_string(),
            "--bits",
            "8",
            "--out",
            &p(&d.join(f)),
        ]);
        assert!(ok, "{err}");
    }
    d
}

/// `eval --op mul` of x.ct and y.ct with the server key `key` into `out`, on one thread.
fn mul_args(d: &Path, key: &str, out: &str) -> Vec<String> {
    let (key, x, y, out) = (d.join(key), d.join("x.ct"), d.join("y.ct"), d.join(out));
    s(&[
        "eval",
        "--threads",
        "1",
        "--server-key",
        &p(&key),
        "--op",
        "mul",
    ])
    .into_iter()
    .chain(s(&["--in", &p(&x), "--in", &p(&y), "--out", &p(&out)]))
    .collect()
}

/// [`mul_args`] on the MPI backend (10 s timeout), and `extra`.
fn eval_args(d: &Path, key: &str, out: &str, extra: &[&str]) -> Vec<String> {
    let mut a = mul_args(d, key, out);
    a.extend(s(&["--backend", "mpi", "--mpi-timeout", "10"]));
    a.extend(s(extra));
    a
}

fn decrypt(d: &Path, f: &str) -> i128 {
    let (ok, out, err) = encint(&[
        "decrypt",
        "--key",
        &p(&d.join("keys/client.key")),
        "--in",
        &p(&d.join(f)),
    ]);
    assert!(ok, "{err}");
    out.trim().parse().unwrap()
}

/// Groups of ranks of one job: ranks, server key, the fault they inject.
type Groups<'a> = &'a [(u32, &'a str, Option<&'a str>)];

/// `eval` over groups of ranks writing `out`:
/// fails with `message` on stderr and leaves no output.
fn eval_fails(d: &Path, out: &str, groups: Groups, message: &str) {
    let groups: Vec<(u32, Vec<String>)> = groups
        .iter()
        .map(|&(n, key, fault)| {
            let extra = fault.map_or(vec![], |f| vec!["--mpi-fault", f]);
            (n, eval_args(d, key, out, &extra))
        })
        .collect();
    let r = mpirun(&groups);
    assert!(!r.ok);
    assert!(r.err.contains(message), "{}", r.err);
    assert!(!d.join(out).exists(), "no output after an error");
}

#[test]
fn mul_dead_rank_hung_rank_and_key_mismatch() {
    let (x, y) = (-117i128, 93i128);
    let d = setup("mul", x, y);
    // A product over 3 ranks: the plain product, and the same as one process.
    let r = mpirun(&[(3, eval_args(&d, "keys/server.key", "p3.ct", &[]))]);
    assert!(r.ok, "{}\n{}", r.out, r.err);
    assert!(r.out.contains("mpi: 3 rank(s)"), "{}", r.out);
    assert_eq!(decrypt(&d, "p3.ct"), x * y);
    let one = mul_args(&d, "keys/server.key", "p1.ct");
    let (ok, _, err) = encint(&one.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok, "{err}");
    assert_eq!(decrypt(&d, "p1.ct"), decrypt(&d, "p3.ct"));

    // Each failure: the output file, the groups of ranks (ranks, server key, fault), the
    // error rank 0 reports.
    let failures: [(&str, Groups, &str); 3] = [
        // Rank 2 holds another key set: refused before any work, on rank 0.
        (
            "k.ct",
            &[(2, "keys/server.key", None), (1, "other/server.key", None)],
            "error: cluster: key mismatch: rank 2 holds server key set",
        ),
        // Rank 2 stops answering at level 1: rank 0 gives up after its bound (10 s + 4x
        // its own share) with a clear error, and the job ends.
        (
            "h.ct",
            &[
                (2, "keys/server.key", None),
                (1, "keys/server.key", Some("hang:1")),
            ],
            "error: cluster: rank 2 did not send its results of level 1 within the timeout",
        ),
        // Rank 1 dies at level 2: the job ends with an error and no output, never a result.
        (
            "e.ct",
            &[
                (1, "keys/server.key", None),
                (1, "keys/server.key", Some("exit:2")),
                (1, "keys/server.key", None),
            ],
            "error: cluster: the MPI runtime is ending the job (a rank died",
        ),
    ];
    for (out, groups, message) in failures {
        eval_fails(&d, out, groups, message);
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn byte_program_matches_the_clear_run() {
    let d = std::env::temp_dir().join(format!("encint-mpi-asm-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let prog = d.join("p.asm");
    std::fs::write(
        &prog,
        "input x, y\ns = ADD x, y\nm = MAX s, y\nz = EQI m, 200\noutput s, m, z\n",
    )
    .unwrap();
    let inputs = ["--input", "x=77", "--input", "y=123"];
    // The clear run, and plain arithmetic: s = 200, m = max(200, 123), z = 1.
    let (ok, clear, err) = encint(&[&["asm", "run", &p(&prog), "--clear"][..], &inputs].concat());
    assert!(ok, "{err}");
    for line in ["out s = 200", "out m = 200", "out z = 1"] {
        assert!(clear.contains(line), "{clear}");
    }
    let mut args = s(&[
        "asm",
        "run",
        &p(&prog),
        "--backend",
        "mpi",
        "--threads",
        "1",
    ]);
    args.extend(s(&inputs));
    let r = mpirun(&[(3, args)]);
    assert!(r.ok, "{}\n{}", r.out, r.err);
    for line in [
        "out s = 200",
        "out m = 200",
        "out z = 1",
        "matches the clear run",
    ] {
        assert!(r.out.contains(line), "{}", r.out);
    }
    assert!(r.out.contains("mpi: 3 rank(s)"), "{}", r.out);
    let _ = std::fs::remove_dir_all(&d);
}

/// A small network over the ranks, with its weights in the clear and encrypted: every
/// image's decrypted scores must equal the model's in plain integers (the command compares
/// them and exits non-zero on a difference; here the test also checks the scores' argmax
/// against the classes worked out by hand in `common::small_network`).
#[test]
fn inference_over_ranks_matches_the_plain_model() {
    let (model, images) = common::small_network("mpi", "infer");
    for weights in ["clear", "encrypted"] {
        let args = s(&[
            "infer",
            "--backend",
            "mpi",
            "--threads",
            "1",
            "--model",
            &p(&model),
            "--test-images",
            &p(&images),
            "--images",
            "2",
            "--weights",
            weights,
            "--json",
        ]);
        let r = mpirun(&[(3, args)]);
        assert!(r.ok, "{weights}: {}\n{}", r.out, r.err);
        let v: serde_json::Value = serde_json::from_str(r.out.trim()).unwrap();
        assert_eq!(v["mismatches"], 0, "{}", r.out);
        assert_eq!(v["images"], 2, "{}", r.out);
        assert_eq!(v["circuit_accuracy"], 1.0, "{}", r.out);
        assert_eq!(v["backend"], "mpi over 3 rank(s)", "{}", r.out);
    }
}
