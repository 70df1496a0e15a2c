//! The seeded upload through the binary: `keygen` (ordinary and `--compressed`),
//! `encrypt` (seeded by default, `--expanded` on request), `eval` on seeded, expanded and
//! mixed files, `decrypt`, all against plain integers; the errors of another key set's and
//! of truncated seeded files; and `encint sizes --json`.

use std::path::{Path, PathBuf};

mod common;
use common::encint;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("encint-seeded-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn keygen(dir: &Path, extra: &[&str]) {
    let mut args = vec!["keygen", "--out", s(dir)];
    args.extend_from_slice(extra);
    let (ok, _, err) = encint(&args);
    assert!(ok, "{err}");
}

/// `encrypt` into `out`: the file's size.
fn enc(keys: &Path, args: &[&str], out: &Path) -> u64 {
    let key = keys.join("client.key");
    let mut a = vec!["encrypt", "--key", s(&key)];
    a.extend_from_slice(args);
    a.extend(["--out", s(out)]);
    let (ok, stdout, err) = encint(&a);
    assert!(ok, "{err}");
    let len = std::fs::metadata(out).unwrap().len();
    assert!(stdout.contains(&format!("({len} bytes")), "{stdout}");
    len
}

fn eval(keys: &Path, op: &str, files: &[&Path], out: &Path) -> Result<(), String> {
    let key = keys.join("server.key");
    let mut a = vec!["eval", "--server-key", s(&key), "--op", op];
    a.extend(files.iter().map(|f| s(f)));
    a.extend(["--out", s(out)]);
    let (ok, _, err) = encint(&a);
    assert!(!err.contains("panicked"), "{err}");
    if ok {
        Ok(())
    } else {
        assert!(!out.exists(), "no output on an error");
        Err(err)
    }
}

fn dec(keys: &Path, ct: &Path) -> Result<String, String> {
    let key = keys.join("client.key");
    let (ok, out, err) = encint(&["decrypt", "--key", s(&key), "--in", s(ct)]);
    assert!(!err.contains("panicked"), "{err}");
    if ok {
        Ok(out.trim().to_owned())
    } else {
        Err(err)
    }
}

#[test]
fn keygen_encrypt_eval_decrypt_with_seeded_files() {
    let d = scratch("flow");
    let k = d.join("k");
    keygen(&k, &[]);
    let (a, b) = (51234u16, 40001u16);
    let sa = d.join("a.ct");
    let sb = d.join("b.ct");
    let eb = d.join("b-expanded.ct");
    let seeded = enc(&k, &["--type", "u16", "--value", &a.to_string()], &sa);
    enc(&k, &["--type", "u16", "--value", &b.to_string()], &sb);
    let expanded = enc(
        &k,
        &["--type", "u16", "--value", &b.to_string(), "--expanded"],
        &eb,
    );
    assert!(seeded <= 980, "a seeded u16 file of {seeded} bytes");
    assert!(expanded > 200 * seeded, "{expanded} against {seeded}");
    assert_eq!(dec(&k, &sa).unwrap(), a.to_string());
    assert_eq!(dec(&k, &eb).unwrap(), b.to_string());
    // Seeded with seeded, and seeded with expanded.
    let sum = d.join("sum.ct");
    eval(&k, "add", &[&sa, &sb], &sum).unwrap();
    assert_eq!(dec(&k, &sum).unwrap(), a.wrapping_add(b).to_string());
    let lt = d.join("lt.ct");
    eval(&k, "lt", &[&sa, &eb], &lt).unwrap();
    assert_eq!(dec(&k, &lt).unwrap(), (a < b).to_string());

    // Exact integers: seeded and expanded.
    let x = d.join("x.ct");
    let y = d.join("y.ct");
    let sx = enc(&k, &["--value", "-1234", "--digits", "12"], &x);
    let ey = enc(&k, &["--value", "567", "--digits", "12", "--expanded"], &y);
    assert!(sx * 100 < ey, "{sx} against {ey}");
    assert_eq!(dec(&k, &x).unwrap(), "-1234");
    let p = d.join("p.ct");
    eval(&k, "mul", &[&x, &y], &p).unwrap();
    assert_eq!(dec(&k, &p).unwrap(), (-1234 * 567).to_string());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn another_key_set_and_truncated_files_are_errors() {
    let d = scratch("errors");
    let k = d.join("k");
    let other = d.join("other");
    keygen(&k, &[]);
    keygen(&other, &["--compressed"]);
    let mine = d.join("mine.ct");
    let theirs = d.join("theirs.ct");
    enc(&k, &["--type", "i8", "--value", "-100"], &mine);
    enc(&other, &["--type", "i8", "--value", "27"], &theirs);
    // The compressed server key loads and computes on its own key set's files.
    let neg = d.join("neg.ct");
    eval(&other, "neg", &[&theirs], &neg).unwrap();
    assert_eq!(dec(&other, &neg).unwrap(), "-27");
    let size = std::fs::metadata(other.join("server.key")).unwrap().len();
    assert!(size <= 40_000_000, "compressed server key of {size} bytes");
    // Another key set: refused by the server and by the client key.
    let err = eval(&k, "add", &[&mine, &theirs], &d.join("mixed.ct")).unwrap_err();
    assert!(err.contains("key set"), "{err}");
    let err = dec(&k, &theirs).unwrap_err();
    assert!(err.contains("key set"), "{err}");
    // A truncated seeded file, at every length: an error naming the file.
    let bytes = std::fs::read(&mine).unwrap();
    let cut = d.join("cut.ct");
    for n in (0..bytes.len()).step_by(17).chain([bytes.len() - 1]) {
        std::fs::write(&cut, &bytes[..n]).unwrap();
        let err = dec(&k, &cut).unwrap_err();
        assert!(err.contains("cut.ct"), "{n}: {err}");
        let err = eval(&k, "neg", &[&cut], &d.join("out.ct")).unwrap_err();
        assert!(err.contains("cut.ct"), "{n}: {err}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn sizes_json_reports_every_form() {
    let (ok, out, err) = encint(&["sizes", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    let ours = &v["encint"];
    let positive = |x: &serde_json::Value| x.as_u64().is_some_and(|n| n > 0);
    for f in ["client_key", "server_key", "server_key_compressed"] {
        assert!(positive(&ours[f]), "{f}: {v}");
    }
    assert!(ours["server_key_compressed"].as_u64() < ours["server_key"].as_u64());
    let values = ours["values"].as_array().unwrap();
    let types: Vec<&str> = values.iter().map(|x| x["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["u8", "u16", "u32", "u64"]);
    for x in values.iter().chain([&ours["int16"], &ours["array_64_u16"]]) {
        assert!(positive(&x["seeded"]) && positive(&x["expanded"]), "{x}");
        assert!(x["seeded"].as_u64() < x["expanded"].as_u64(), "{x}");
    }
    let peer = &v["tfhe_rs"];
    for f in [
        "FheUint16",
        "CompressedFheUint16",
        "CompactCiphertextList_1_u16",
        "CompactCiphertextList_64_u16",
        "ServerKey",
        "CompressedServerKey",
        "CompactPublicKey",
    ] {
        assert!(positive(&peer[f]), "{f}: {v}");
    }
    assert!(peer["CompressedServerKey"].as_u64() < peer["ServerKey"].as_u64());
}
