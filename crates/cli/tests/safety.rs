//! The binary on hostile and careless input: files are never overwritten or leaked,
//! ciphertexts of different key sets are never combined, limits and argument conflicts
//! are errors before any work.

use std::path::{Path, PathBuf};
mod common;
use common::{encint, encrypt_u8, keys_in, s};

fn scratch(name: &str) -> PathBuf {
    common::scratch("safety", name)
}

/// `encint encrypt --key KEY --value VALUE --bits BITS --out OUT` and `extra`.
fn encrypt(
    key: &str,
    value: &str,
    bits: &str,
    out: &str,
    extra: &[&str],
) -> (bool, String, String) {
    let args = [
        "encrypt", "--key", key, "--value", value, "--bits", bits, "--out", out,
    ];
    encint(&[&args[..], extra].concat())
}

/// `encint eval --server-key KEY --op OP --in ... --out OUT`.
fn eval(key: &str, op: &str, inputs: &[&str], out: &str) -> (bool, String, String) {
    let mut args = vec!["eval", "--server-key", key, "--op", op];
    for i in inputs {
        args.extend(["--in", i]);
    }
    args.extend(["--out", out]);
    encint(&args)
}

/// `encint decrypt --key KEY --in CT`.
fn decrypt(key: &str, ct: &str) -> (bool, String, String) {
    encint(&["decrypt", "--key", key, "--in", ct])
}

/// The names in directory `d`, sorted.
fn names(d: &Path) -> Vec<String> {
    let set: std::collections::BTreeSet<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    set.into_iter().collect()
}

/// One test with real keys (two key generations): safe output, key-set binding.
#[test]
fn files_are_kept_and_key_sets_are_bound() {
    let d = scratch("keys");
    let (k1, k2) = (d.join("k1"), d.join("k2"));
    let (ok, _, err) = encint(&["keygen", "--out", s(&k1)]);
    assert!(ok, "{err}");
    assert_eq!(
        names(&k1),
        ["client.key", "public.key", "server.key"],
        "no temporary left"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(k1.join("client.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let client1 = std::fs::read(k1.join("client.key")).unwrap();
    let server1_len = std::fs::metadata(k1.join("server.key")).unwrap().len();

    // keygen into an existing key directory: refused, both keys kept.
    let (ok, _, err) = encint(&["keygen", "--out", s(&k1)]);
    assert!(!ok && err.contains("already exists"), "{err}");
    assert!(
        err.contains("client.key"),
        "the error names the path: {err}"
    );
    assert_eq!(std::fs::read(k1.join("client.key")).unwrap(), client1);
    assert_eq!(names(&k1), ["client.key", "public.key", "server.key"]);

    let key1 = k1.join("client.key");
    let a = d.join("a.ct");
    let (ok, _, err) = encrypt(s(&key1), "-1234", "16", s(&a), &[]);
    assert!(ok, "{err}");
    // encrypt --out onto the secret key: refused, the key is intact.
    let (ok, _, err) = encrypt(s(&key1), "5", "4", s(&key1), &[]);
    assert!(
        !ok && err.contains("is the same file as the input"),
        "{err}"
    );
    assert_eq!(std::fs::read(&key1).unwrap(), client1);
    // A planted symlink at the destination is not followed.
    #[cfg(unix)]
    {
        let target = d.join("stolen");
        let link = d.join("link.ct");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let (ok, _, err) = encrypt(s(&key1), "5", "4", s(&link), &[]);
        assert!(!ok, "{err}");
        assert!(!target.exists());
    }
    // --force replaces.
    let (ok, _, err) = encrypt(s(&key1), "7", "4", s(&a), &["--force"]);
    assert!(ok, "{err}");
    let (ok, out, err) = decrypt(s(&key1), s(&a));
    assert!(ok && out.trim() == "7", "{out}{err}");
    // Values past i128 (up to the digit limit) encrypt and decrypt exactly: -(2^129 + 5)
    // in 131 digits; 2^131 does not fit 131 digits and is refused.
    let big = d.join("past-i128.ct");
    let minus_big = "-680564733841876926926749214863536422917"; // -(2^129 + 5)
    let (ok, _, err) = encrypt(s(&key1), minus_big, "131", s(&big), &[]);
    assert!(ok, "{err}");
    let (ok, out, err) = decrypt(s(&key1), s(&big));
    assert!(ok && out.trim() == minus_big, "{out}{err}");
    // 2^131:
    let (ok, _, err) = encrypt(
        s(&key1),
        "2722258935367507707706996859454145691648",
        "131",
        s(&d.join("too-big.ct")),
        &[],
    );
    assert!(!ok && err.contains("does not fit"), "{err}");

    // A second key set, on the other parameter set (the 64-bit keyswitch): its ciphertexts
    // are never combined with the first's.
    let (ok, out, err) = encint(&["keygen", "--out", s(&k2), "--params", "ks64"]);
    assert!(ok, "{err}");
    assert!(out.contains("KS_PBS_TUNIFORM_2M128"), "{out}");
    let b = d.join("b.ct");
    let (ok, _, err) = encrypt(s(&k2.join("client.key")), "3", "4", s(&b), &[]);
    assert!(ok, "{err}");
    let c = d.join("c.ct");
    let (ok, _, err) = eval(s(&k1.join("server.key")), "add", &[s(&a), s(&b)], s(&c));
    assert!(!ok && err.contains("key set"), "{err}");
    assert!(!c.exists());
    let (ok, _, err) = decrypt(s(&key1), s(&b));
    assert!(!ok && err.contains("key set"), "{err}");
    // Within the second set, keys and ciphertexts of that parameter set work end to end.
    let b2 = d.join("b2.ct");
    let (ok, _, err) = eval(s(&k2.join("server.key")), "add", &[s(&b), s(&b)], s(&b2));
    assert!(ok, "{err}");
    let (ok, out, err) = decrypt(s(&k2.join("client.key")), s(&b2));
    assert!(ok && out.trim() == "6", "{out}{err}");
    // The matching key set works, and eval does not overwrite its output either.
    let (ok, _, err) = eval(s(&k1.join("server.key")), "add", &[s(&a), s(&a)], s(&c));
    assert!(ok, "{err}");
    let (ok, out, err) = decrypt(s(&key1), s(&c));
    assert!(ok && out.trim() == "14", "{out}{err}");
    let (ok, _, err) = eval(s(&k1.join("server.key")), "neg", &[s(&a)], s(&c));
    assert!(!ok && err.contains("already exists"), "{err}");
    let (ok, out, _) = decrypt(s(&key1), s(&c));
    assert!(ok && out.trim() == "14", "{out}");

    // Limits: a huge digit count is an error, not a panic or an abort.
    for bits in ["18446744073709551615", "1000000000", "4097"] {
        let (ok, _, err) = encrypt(s(&key1), "1", bits, s(&d.join("big.ct")), &[]);
        assert!(!ok && err.contains("limit exceeded"), "{bits}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    assert_eq!(
        std::fs::metadata(k1.join("server.key")).unwrap().len(),
        server1_len
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn argument_conflicts_and_limits_are_errors_before_work() {
    let d = scratch("args");
    let missing = d.join("missing");
    let out = d.join("o.ct");
    let base = [
        "eval",
        "--server-key",
        s(&missing),
        "--in",
        s(&missing),
        "--out",
        s(&out),
    ];
    let run = |extra: &[&str]| {
        let mut v: Vec<&str> = base.to_vec();
        v.extend_from_slice(extra);
        encint(&v)
    };
    // --scalar with round (which takes --position) used to round at the scalar.
    let (ok, _, err) = run(&["--op", "round", "--scalar", "3"]);
    assert!(!ok && err.contains("--scalar"), "{err}");
    let (ok, _, err) = run(&["--op", "round", "--scalar", "3", "--position", "5"]);
    assert!(!ok && err.contains("--scalar"), "{err}");
    let (ok, _, err) = run(&["--op", "scalar_mul", "--position", "5"]);
    assert!(!ok && err.contains("--position"), "{err}");
    let (ok, _, err) = run(&["--op", "add", "--scalar", "5"]);
    assert!(!ok && err.contains("--scalar"), "{err}");
    // Threads: capped, refused before loading anything.
    let (ok, _, err) = run(&["--op", "add", "--threads", "100000"]);
    assert!(!ok && err.contains("threads"), "{err}");
    // Reads are bounded: an endless file is refused from its first bytes (no envelope),
    // and a read past the envelope limit is refused too (`files::read_bounded`'s tests).
    #[cfg(target_os = "linux")]
    {
        let (ok, _, err) = decrypt("/dev/zero", "/dev/zero");
        assert!(!ok && err.contains("/dev/zero"), "{err}");
        assert!(err.contains("not an encint envelope"), "{err}");
    }
    // A ciphertext header before 300 MiB (a sparse file): refused by its size.
    let huge = d.join("huge.ct");
    let id = encint::DEFAULT_PARAMETERS.id();
    let header =
        encint::keys::envelope::seal(encint::keys::envelope::Kind::Ciphertext, id, &()).unwrap();
    std::fs::write(&huge, header).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&huge)
        .unwrap()
        .set_len(300 << 20)
        .unwrap();
    let (ok, _, err) = decrypt(s(&missing), s(&huge));
    assert!(!ok && err.contains("larger than"), "{err}");
    // asm run with --in/--out but no --server-key used to run on random clear inputs,
    // exit 0 and write nothing: now a usage error naming the missing flag.
    let program = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/average.asm");
    let (inp, outp) = (d.join("in.ct"), d.join("out.ct"));
    std::fs::write(&inp, b"not read").unwrap();
    let (ok, _, err) = encint(&["asm", "run", program, "--in", s(&inp), "--out", s(&outp)]);
    assert!(!ok && err.contains("--server-key"), "{err}");
    let (ok, _, err) = encint(&["asm", "run", program, "--out", s(&outp)]);
    assert!(!ok && err.contains("--server-key"), "{err}");
    assert!(!outp.exists());
    // chains --generate does not overwrite either.
    let f = d.join("table.rs");
    std::fs::write(&f, "keep").unwrap();
    let (ok, _, err) = encint(&["chains", "--generate", s(&f)]);
    assert!(!ok && err.contains("already exists"), "{err}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "keep");
    std::fs::remove_dir_all(&d).unwrap();
}

/// `encint asm list | head -1` used to panic ("failed printing to stdout") once the
/// reader closed the pipe; the process must end quietly instead.
#[test]
fn closed_stdout_pipe_is_not_a_panic() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_encint"))
        .args(["asm", "list"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the encint binary starts");
    // Close the reading end before the child has printed anything.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("the child ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
}

/// `--ops` (and its former name `--only`) picks rows by name on every command that has
/// rows; an unknown name is an error before any key is generated (no stage of work shows
/// on stderr).
#[test]
fn ops_pick_rows_by_name_and_unknown_names_are_refused() {
    let (ok, out, err) = encint(&["bits", "cost", "--ops", "add,div", "--bits", "8", "--json"]);
    assert!(ok, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ops: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["op"].as_str().unwrap())
        .collect();
    assert_eq!(ops, ["add", "div"], "{out}");
    let (ok, out, _) = encint(&["bits", "cost", "--only", "mul", "--bits", "8", "--json"]);
    assert!(ok);
    assert!(out.contains("\"mul\"") && !out.contains("\"add\""), "{out}");
    for (args, name) in [
        (&["bits", "cost", "--ops", "pow"][..], "pow"),
        (&["asm", "bench", "--ops", "FOO", "--no-peer"][..], "FOO"),
        (&["fv", "bits", "bench", "--ops", "pow"][..], "pow"),
    ] {
        common::refused_before_work(args, name);
    }
}

/// An output that is one of the command's inputs is refused with or without `--force`,
/// before any work: `public-key --key K --out K --force` used to replace the only client
/// key with its public key. The same file is found through `..`, a symlink or a hard link.
#[test]
fn an_output_onto_an_input_is_refused_even_with_force() {
    let d = scratch("distinct");
    let k = d.join("k");
    let (key, server) = (keys_in(&k, false), k.join("server.key"));
    let secret = std::fs::read(&key).unwrap();
    let a = d.join("a.ct");
    encrypt_u8(s(&key), "9", s(&a));
    let a_bytes = std::fs::read(&a).unwrap();
    #[cfg(unix)]
    let (link, hard) = {
        let (link, hard) = (d.join("link.key"), d.join("hard.key"));
        std::os::unix::fs::symlink(&key, &link).unwrap();
        std::fs::hard_link(&key, &hard).unwrap();
        (link, hard)
    };
    let dotted = k.join("..").join("k").join("client.key");
    let mut outputs = vec![key.clone(), dotted];
    #[cfg(unix)]
    outputs.extend([link.clone(), hard.clone()]);
    let program = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/average.asm");
    for out in &outputs {
        let out = s(out);
        for force in [true, false] {
            let f = if force { &["--force"][..] } else { &[][..] };
            for args in [
                vec!["public-key", "--key", s(&key), "--out", out],
                vec!["packing-key", "--key", s(&key), "--out", out],
                vec![
                    "encrypt",
                    "--key",
                    s(&key),
                    "--type",
                    "u8",
                    "--value",
                    "1",
                    "--out",
                    out,
                ],
                vec!["asm", "encrypt", program, "--key", s(&key), "--out", out],
            ] {
                let args = [&args[..], f].concat();
                common::refused_before_work(&args, "is the same file as the input");
                let (_, _, err) = encint(&args);
                assert!(err.contains(out) && err.contains("client.key"), "{err}");
            }
        }
    }
    assert_eq!(
        std::fs::read(&key).unwrap(),
        secret,
        "the client key is intact"
    );
    // eval onto one of its operands, onto its server key; asm run onto its inputs or keys.
    let eval = |out: &Path| {
        vec![
            "eval".to_string(),
            "--server-key".into(),
            s(&server).into(),
            "--op".into(),
            "add".into(),
            s(&a).into(),
            s(&a).into(),
            "--out".into(),
            s(out).into(),
            "--force".into(),
        ]
    };
    for out in [&a, &server] {
        let args = eval(out);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        common::refused_before_work(&args, "is the same file as the input");
    }
    for out in [&a, &server, &k.join("tree.key")] {
        common::refused_before_work(
            &[
                "asm",
                "run",
                program,
                "--server-key",
                s(&k),
                "--in",
                s(&a),
                "--out",
                s(out),
                "--force",
            ],
            "is the same file as the input",
        );
    }
    assert_eq!(std::fs::read(&a).unwrap(), a_bytes, "the operand is intact");
    std::fs::remove_dir_all(&d).unwrap();
}
