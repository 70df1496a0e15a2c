//! The uploads through the binary: `keygen` (ordinary and `--compressed`), `encrypt`
//! (seeded by default, `--expanded` on request, `--public-key` by a party without the
//! client key), `eval` on seeded, expanded, public-key and mixed files, `decrypt`, all
//! against plain integers; results packed (`packing-key`, `eval --packed`); the errors of
//! another key set's and of truncated files; and `encint sizes --json`.

use std::path::{Path, PathBuf};

mod common;
use common::{encint, s};

/// A scratch directory `d` and a key set generated in `d/k`: `(d, k)`.
fn scratch_with_keys(name: &str) -> (PathBuf, PathBuf) {
    let d = common::scratch("seeded", name);
    let k = d.join("k");
    keygen(&k, &[]);
    (d, k)
}

/// Writes every `step`-th prefix of `file` (and the one a byte short) to `dir/cut.ct` and
/// runs `check` on that file each time; `check` returns the errors it got, each of which
/// must name the file.
fn check_truncations(file: &Path, dir: &Path, step: usize, check: impl Fn(&Path) -> Vec<String>) {
    let bytes = std::fs::read(file).unwrap();
    let cut = dir.join("cut.ct");
    for n in (0..bytes.len()).step_by(step).chain([bytes.len() - 1]) {
        std::fs::write(&cut, &bytes[..n]).unwrap();
        for err in check(&cut) {
            assert!(err.contains("cut.ct"), "{n}: {err}");
        }
    }
}

fn keygen(dir: &Path, extra: &[&str]) {
    let mut args = vec!["keygen", "--out", s(dir)];
    args.extend_from_slice(extra);
    let (ok, _, err) = encint(&args);
    assert!(ok, "{err}");
}

/// `encint <command> --key <keys>/client.key --out <out>`: a key derived from the client
/// key of `keys` (`public-key`, `packing-key`), which must succeed.
fn derive_key(command: &str, keys: &Path, out: &Path) {
    let client = keys.join("client.key");
    let (ok, _, err) = encint(&[command, "--key", s(&client), "--out", s(out)]);
    assert!(ok, "{err}");
}

/// `encrypt` into `out`: the file's size.
fn enc(keys: &Path, args: &[&str], out: &Path) -> u64 {
    enc_with("--key", &keys.join("client.key"), args, out)
}

/// `encrypt` with the public key file `pk` into `out`: the file's size.
fn enc_pk(pk: &Path, args: &[&str], out: &Path) -> u64 {
    enc_with("--public-key", pk, args, out)
}

fn enc_with(flag: &str, key: &Path, args: &[&str], out: &Path) -> u64 {
    let mut a = vec!["encrypt", flag, s(key)];
    a.extend_from_slice(args);
    a.extend(["--out", s(out)]);
    let (ok, stdout, err) = encint(&a);
    assert!(ok, "{err}");
    let len = std::fs::metadata(out).unwrap().len();
    assert!(stdout.contains(&format!("({len} bytes")), "{stdout}");
    len
}

fn eval(keys: &Path, op: &str, files: &[&Path], out: &Path) -> Result<(), String> {
    eval_with(keys, op, files, out, &[])
}

fn eval_with(
    keys: &Path,
    op: &str,
    files: &[&Path],
    out: &Path,
    extra: &[&str],
) -> Result<(), String> {
    let key = keys.join("server.key");
    let mut a = vec!["eval", "--server-key", s(&key), "--op", op];
    a.extend(files.iter().map(|f| s(f)));
    a.extend_from_slice(extra);
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
    let (d, k) = scratch_with_keys("flow");
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
    let (d, k) = scratch_with_keys("errors");
    let other = d.join("other");
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
    check_truncations(&mine, &d, 17, |cut| {
        vec![
            dec(&k, cut).unwrap_err(),
            eval(&k, "neg", &[cut], &d.join("out.ct")).unwrap_err(),
        ]
    });
    std::fs::remove_dir_all(&d).unwrap();
}

/// A party holding only the public key file encrypts; the server computes; the client
/// decrypts the plain results. Another key set's public key, a truncated public key and
/// `--public-key` with `--expanded` are errors.
#[test]
fn public_key_encryption_by_a_party_without_the_client_key() {
    let (d, k) = scratch_with_keys("public");
    // The encrypting party's directory holds the public key and nothing else.
    let party = d.join("party");
    std::fs::create_dir_all(&party).unwrap();
    let pk = party.join("public.key");
    std::fs::copy(k.join("public.key"), &pk).unwrap();
    let pk_len = std::fs::metadata(&pk).unwrap().len();
    assert!(pk_len < 20_000, "a public key of {pk_len} bytes");
    let (a, b) = (51234u16, 40001u16);
    let (pa, pb) = (party.join("a.ct"), party.join("b.ct"));
    let len = enc_pk(&pk, &["--type", "u16", "--value", &a.to_string()], &pa);
    assert!(len < 13_000, "a u16 under the public key in {len} bytes");
    enc_pk(&pk, &["--type", "u16", "--value", &b.to_string()], &pb);
    // A public-key file beside a seeded one.
    let sb = d.join("b-seeded.ct");
    enc(&k, &["--type", "u16", "--value", &b.to_string()], &sb);
    let sum = d.join("sum.ct");
    eval(&k, "add", &[&pa, &sb], &sum).unwrap();
    assert_eq!(dec(&k, &sum).unwrap(), a.wrapping_add(b).to_string());
    let prod = d.join("prod.ct");
    eval(&k, "mul", &[&pa, &pb], &prod).unwrap();
    assert_eq!(dec(&k, &prod).unwrap(), a.wrapping_mul(b).to_string());
    assert_eq!(dec(&k, &pa).unwrap(), a.to_string());
    // Exact integers and bools under the public key.
    let (x, y) = (party.join("x.ct"), party.join("y.ct"));
    enc_pk(&pk, &["--value", "-1234", "--digits", "12"], &x);
    enc_pk(&pk, &["--value", "567", "--digits", "12"], &y);
    let p = d.join("p.ct");
    eval(&k, "mul", &[&x, &y], &p).unwrap();
    assert_eq!(dec(&k, &p).unwrap(), (-1234 * 567).to_string());
    let t = party.join("t.ct");
    enc_pk(&pk, &["--type", "bool", "--value", "true"], &t);
    assert_eq!(dec(&k, &t).unwrap(), "true");

    // `encint public-key` of the client key: another public key of the same key set.
    let pk2 = d.join("again.key");
    derive_key("public-key", &k, &pk2);
    let c = d.join("c.ct");
    enc_pk(&pk2, &["--type", "i8", "--value", "-100"], &c);
    assert_eq!(dec(&k, &c).unwrap(), "-100");

    // Another key set's public key: the server and the client key refuse its files.
    let other = d.join("other");
    keygen(&other, &[]);
    let theirs = d.join("theirs.ct");
    enc_pk(
        &other.join("public.key"),
        &["--type", "u16", "--value", "7"],
        &theirs,
    );
    let err = eval(&k, "add", &[&pa, &theirs], &d.join("mixed.ct")).unwrap_err();
    assert!(err.contains("key set"), "{err}");
    assert!(dec(&k, &theirs).unwrap_err().contains("key set"));
    assert_eq!(dec(&other, &theirs).unwrap(), "7");
    // A truncated public key, a public key given as --key, --expanded with --public-key.
    let bytes = std::fs::read(&pk).unwrap();
    let cut = d.join("cut.key");
    for n in [0, 10, 100, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&cut, &bytes[..n]).unwrap();
        let out = d.join("never.ct");
        let (ok, _, err) = encint(&[
            "encrypt",
            "--public-key",
            s(&cut),
            "--type",
            "u8",
            "--value",
            "1",
            "--out",
            s(&out),
        ]);
        assert!(
            !ok && err.contains("cut.key") && !err.contains("panicked"),
            "{n}: {err}"
        );
        assert!(!out.exists());
    }
    for (flag, extra) in [("--key", None), ("--public-key", Some("--expanded"))] {
        let mut args = vec!["encrypt", flag, s(&pk), "--type", "u8", "--value", "1"];
        args.extend(extra);
        let out = d.join("never.ct");
        args.extend(["--out", s(&out)]);
        let (ok, _, err) = encint(&args);
        assert!(!ok && !err.contains("panicked"), "{flag}: {err}");
        assert!(!out.exists());
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// `eval --packed`: typed and exact results packed with the client's packing key decrypt
/// to the plain results; another key set's packing key and a truncated packed file are
/// errors.
#[test]
fn packed_results_round_trip() {
    let (d, k) = scratch_with_keys("packed");
    let packing = d.join("packing.key");
    derive_key("packing-key", &k, &packing);
    let (a, b) = (51234u16, 40001u16);
    let (fa, fb) = (d.join("a.ct"), d.join("b.ct"));
    enc(&k, &["--type", "u16", "--value", &a.to_string()], &fa);
    enc(&k, &["--type", "u16", "--value", &b.to_string()], &fb);
    let extra = ["--packed", s(&packing)];
    let sum = d.join("sum.ct");
    eval_with(&k, "add", &[&fa, &fb], &sum, &extra).unwrap();
    let len = std::fs::metadata(&sum).unwrap().len();
    assert!(len < 4_000, "a packed u16 of {len} bytes");
    assert_eq!(dec(&k, &sum).unwrap(), a.wrapping_add(b).to_string());
    let lt = d.join("lt.ct");
    eval_with(&k, "lt", &[&fa, &fb], &lt, &extra).unwrap();
    assert_eq!(dec(&k, &lt).unwrap(), (a < b).to_string());
    let (x, y) = (d.join("x.ct"), d.join("y.ct"));
    enc(&k, &["--value", "-1234", "--digits", "12"], &x);
    enc(&k, &["--value", "567", "--digits", "12"], &y);
    let p = d.join("p.ct");
    eval_with(&k, "mul", &[&x, &y], &p, &extra).unwrap();
    assert_eq!(dec(&k, &p).unwrap(), (-1234 * 567).to_string());
    // Another key set's packing key: refused, nothing written.
    let other = d.join("other");
    keygen(&other, &[]);
    let theirs = d.join("theirs.key");
    derive_key("packing-key", &other, &theirs);
    let err = eval_with(
        &k,
        "add",
        &[&fa, &fb],
        &d.join("no.ct"),
        &["--packed", s(&theirs)],
    )
    .unwrap_err();
    assert!(err.contains("key set"), "{err}");
    // Another key set's client key, and a truncated packed file: errors naming the file.
    assert!(dec(&other, &sum).unwrap_err().contains("key set"));
    check_truncations(&sum, &d, 211, |cut| vec![dec(&k, cut).unwrap_err()]);
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
    // The public key and 64 u16 under it, beside TFHE-rs' CompactPublicKey and list.
    let n = |x: &serde_json::Value| x.as_u64().unwrap();
    assert!(n(&ours["public_key"]) < n(&peer["CompactPublicKey"]), "{v}");
    assert!(
        n(&ours["public_array_64_u16"]) <= n(&peer["CompactCiphertextList_64_u16"]),
        "{v}"
    );
    assert!(
        n(&ours["public_u16"]) < n(&ours["public_array_64_u16"]),
        "{v}"
    );
}
