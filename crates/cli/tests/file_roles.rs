//! A file given where another belongs is refused with an error that names the file, what
//! it holds and what was expected, before any work: keys of every role (server, tree,
//! packing, client, public), ciphertexts of every kind (exact, typed, packed, the byte
//! processor's links), files of earlier releases. And the byte processor's links name the
//! values they hold, so a run or a decryption with another program is refused.

use std::path::{Path, PathBuf};

mod common;
use common::{asm_encrypt, encint, encrypt_u8, example, keys_in, s, stage_lines};

fn scratch(name: &str) -> PathBuf {
    common::scratch("file-roles", name)
}

/// Runs `args`: it must fail before any stage of work, the error naming `path` and
/// containing every phrase of `says`.
fn named(args: &[&str], path: &Path, says: &[&str]) {
    let (ok, out, err) = encint(args);
    assert!(!ok, "{args:?} succeeded:\n{out}");
    assert!(
        err.contains(s(path)),
        "{args:?}: the error does not name {}:\n{err}",
        path.display()
    );
    for phrase in says {
        assert!(err.contains(phrase), "{args:?}: no `{phrase}` in:\n{err}");
    }
    assert!(stage_lines(&err).is_empty(), "{args:?}: work began:\n{err}");
}

/// A copy of the envelope file `from` at `to` with its kind tag (byte 10) set to 2, the
/// server-key kind: a tree or packing key as earlier releases wrote it.
fn as_earlier_release(from: &Path, to: &Path) {
    let mut bytes = std::fs::read(from).unwrap();
    assert!(matches!(bytes[10], 5 | 6), "a tree or packing key");
    bytes[10] = 2;
    std::fs::write(to, bytes).unwrap();
}

/// The line `  out NAME = VALUE` of a decrypted or clear run.
fn output<'a>(out: &'a str, name: &str) -> &'a str {
    let prefix = format!("  out {name} = ");
    out.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no output {name} in:\n{out}"))
}

#[test]
fn every_file_given_in_the_wrong_place_is_named() {
    let d = scratch("wrong-place");
    let ak = d.join("ak");
    keys_in(&ak, true);
    let [client, server, tree, packing] =
        ["client.key", "server.key", "tree.key", "packing.key"].map(|f| ak.join(f));
    let (t, packed, up, o) = (
        d.join("t.ct"),
        d.join("p.ct"),
        d.join("up.ct"),
        d.join("o.ct"),
    );
    encrypt_u8(s(&client), "200", s(&t));
    let eval = |key: &Path, inputs: &[&Path], out: &Path, extra: &[&str]| {
        let mut v = vec!["eval", "--server-key", s(key), "--op", "add"];
        v.extend(inputs.iter().map(|p| s(p)));
        v.extend(["--out", s(out)]);
        v.extend(extra);
        encint(&v)
    };
    let (ok, _, err) = eval(&server, &[&t, &t], &packed, &["--packed", s(&packing)]);
    assert!(ok, "{err}");
    let average = example("average.asm");
    asm_encrypt(&average, s(&client), "a=1,2,3,4,5", s(&up));

    // Keys where the server key belongs.
    let needs_server = "--server-key needs a server key";
    for (key, holds) in [
        (&packing, "this file holds a packing key"),
        (&tree, "this file holds a tree key"),
        (&client, "this file holds a client key (secret)"),
    ] {
        let (ok, _, err) = eval(key, &[&t, &t], &o, &[]);
        assert!(!ok && err.contains(s(key)), "{err}");
        assert!(err.contains(holds) && err.contains(needs_server), "{err}");
        assert!(stage_lines(&err).is_empty(), "{err}");
    }
    let (_, _, err) = eval(&client, &[&t, &t], &o, &[]);
    assert!(err.contains("never leaves the client"), "{err}");
    // Tree and packing keys as earlier releases wrote them (the server-key kind): named
    // where a server key belongs, still read where they belong.
    let (old_tree, old_packing) = (d.join("old-tree.key"), d.join("old-packing.key"));
    as_earlier_release(&tree, &old_tree);
    as_earlier_release(&packing, &old_packing);
    for (key, holds) in [(&old_packing, "a packing key"), (&old_tree, "a tree key")] {
        let (ok, _, err) = eval(key, &[&t, &t], &o, &[]);
        assert!(
            !ok && err.contains(holds) && err.contains(needs_server),
            "{err}"
        );
    }
    let old_packed = d.join("old-packed.ct");
    let (ok, _, err) = eval(
        &server,
        &[&t, &t],
        &old_packed,
        &["--packed", s(&old_packing)],
    );
    assert!(ok, "{err}");
    let (ok, out, err) = encint(&["decrypt", "--key", s(&client), "--in", s(&old_packed)]);
    // 200 + 200 modulo 2^8.
    assert!(ok && out.trim() == "144", "{out}{err}");
    // Other keys where a packing key belongs.
    let (ok, _, err) = eval(&server, &[&t, &t], &o, &["--packed", s(&server)]);
    assert!(!ok && err.contains("this file holds a server key"), "{err}");
    assert!(err.contains("--packed needs a packing key"), "{err}");

    // Ciphertexts where they do not belong.
    for (wrong, other, says) in [
        (
            &packed,
            &t,
            &[
                "this file holds a packed result",
                "eval's input files need encrypted values",
            ][..],
        ),
        (&up, &up, &["a byte-processor program's encrypted inputs"]),
    ] {
        let args = [
            "eval",
            "--server-key",
            s(&server),
            "--op",
            "add",
            s(wrong),
            s(other),
            "--out",
            s(&o),
        ];
        named(&args, wrong, says);
    }
    for (wrong, holds) in [
        (&t, "this file holds a typed integer"),
        (&up, "encrypted inputs"),
    ] {
        named(
            &[
                "asm",
                "decrypt",
                &average,
                "--key",
                s(&client),
                "--in",
                s(wrong),
            ],
            wrong,
            &[holds, "--in needs a program's encrypted result"],
        );
    }
    named(
        &[
            "asm",
            "run",
            &average,
            "--server-key",
            s(&ak),
            "--in",
            s(&t),
            "--out",
            s(&o),
        ],
        &t,
        &[
            "this file holds a typed integer",
            "--in needs a program's encrypted inputs",
        ],
    );
    named(
        &["decrypt", "--key", s(&client), "--in", s(&up)],
        &up,
        &[
            "encrypted inputs",
            "--in needs an encrypted value or a packed result",
        ],
    );
    named(
        &["decrypt", "--key", s(&client), "--in", s(&server)],
        &server,
        &["this file holds a server key"],
    );
    // Keys where the client key belongs, and the reverse.
    named(
        &["decrypt", "--key", s(&server), "--in", s(&t)],
        &server,
        &["this file holds a server key", "--key needs a client key"],
    );
    named(
        &["decrypt", "--key", s(&client), "--in", s(&client)],
        &client,
        &["this file holds a client key"],
    );
    named(
        &[
            "encrypt",
            "--public-key",
            s(&client),
            "--type",
            "u8",
            "--value",
            "1",
            "--out",
            s(&o),
        ],
        &client,
        &["--public-key needs a public key"],
    );
    // A byte-processor key directory with its keys swapped.
    let swapped = d.join("swapped");
    std::fs::create_dir_all(&swapped).unwrap();
    for (from, to) in [
        (&server, "server.key"),
        (&packing, "tree.key"),
        (&tree, "packing.key"),
    ] {
        std::os::unix::fs::symlink(from, swapped.join(to)).unwrap();
    }
    named(
        &[
            "asm",
            "run",
            &average,
            "--server-key",
            s(&swapped),
            "--in",
            s(&up),
            "--out",
            s(&o),
        ],
        &swapped.join("tree.key"),
        &[
            "this file holds a packing key",
            "needs a tree key in tree.key",
        ],
    );
    assert!(!o.exists(), "nothing is written");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn argument_errors_say_what_was_asked() {
    // `--type int` without its digit count: the error asks for --digits, not for a type.
    let (ok, _, err) = encint(&[
        "encrypt", "--key", "k", "--type", "int", "--value", "5", "--out", "x.ct",
    ]);
    assert!(
        !ok && err.contains("--digits") && !err.contains("give --type"),
        "{err}"
    );
    // Widths the planner's table has no row for: refused before its first line.
    let (ok, out, err) = encint(&["cost", "--threads", "2", "--bits", "1"]);
    assert!(!ok && out.is_empty(), "{out}");
    assert!(
        err.contains("--bits 1") && err.contains("4 to 128"),
        "{err}"
    );
    let (ok, out, err) = encint(&["cost", "--threads", "2", "--bits", "4", "--json"]);
    assert!(ok, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(rows.as_array().is_some_and(|r| !r.is_empty()), "{out}");
}

/// `asm encrypt` writes the signature of the inputs it encrypts (their names, kinds and
/// order); `asm run` refuses the inputs of another program before any key is loaded, even
/// one whose inputs take as many nibbles (`a[5]`: 10; `x: fixed, y: fixed, z`: 10; five
/// bytes: 10), and `asm decrypt` refuses the result of another program. Files of earlier
/// releases (bare nibbles) are refused, naming them.
#[test]
fn byte_processor_links_are_bound_to_their_program() {
    let d = scratch("links");
    let ak = d.join("ak");
    let client = keys_in(&ak, true);
    let average = example("average.asm");
    let xyz = d.join("xyz.asm");
    std::fs::write(
        &xyz,
        "input x: fixed, y: fixed, z\ns = FADD x, y\nt = ADD z, z\noutput s, t\n",
    )
    .unwrap();
    let five = d.join("five.asm");
    std::fs::write(&five, "input p, q, r, u, v\ns = ADD p, q\noutput s\n").unwrap();
    let (up, o) = (d.join("up.ct"), d.join("o.ct"));
    asm_encrypt(&average, s(&client), "a=1,2,3,4,5", s(&up));
    let run_to = |program: &str, input: &Path, out: &Path| {
        encint(&[
            "asm",
            "run",
            program,
            "--server-key",
            s(&ak),
            "--in",
            s(input),
            "--out",
            s(out),
        ])
    };
    let run = |program: &str, input: &Path| run_to(program, input, &o);
    for (other, takes) in [
        (&xyz, "this program takes x: fixed, y: fixed, z: byte"),
        (
            &five,
            "this program takes p: byte, q: byte, r: byte, u: byte, v: byte",
        ),
    ] {
        let (ok, _, err) = run(s(other), &up);
        assert!(!ok, "{} ran on the inputs of average.asm", other.display());
        assert!(err.contains(s(&up)), "{err}");
        assert!(
            err.contains("with inputs a[5]: byte") && err.contains(takes),
            "{err}"
        );
        assert!(stage_lines(&err).is_empty(), "keys were loaded: {err}");
        assert!(!o.exists());
    }
    // Its own program runs; the result decrypts to plain arithmetic: 1+2+3+4+5 = 15, and
    // 15 / 5 = 3 (fixed point: raw 3 * 256).
    let (ok, _, err) = run(&average, &up);
    assert!(ok, "{err}");
    let decrypt = |program: &str, input: &Path| {
        encint(&[
            "asm",
            "decrypt",
            program,
            "--key",
            s(&client),
            "--in",
            s(input),
        ])
    };
    let (ok, out, err) = decrypt(&average, &o);
    assert!(ok, "{err}");
    assert_eq!(output(&out, "s"), "15");
    assert_eq!(output(&out, "avg"), "3.000000 (raw 768)");
    // Another program's outputs: refused before the key is read.
    let (ok, _, err) = decrypt(s(&xyz), &o);
    assert!(!ok, "xyz.asm decrypted the result of average.asm");
    assert!(err.contains("with outputs s: byte, avg: fixed"), "{err}");
    assert!(
        err.contains("this program has outputs s: fixed, t: byte"),
        "{err}"
    );
    assert!(stage_lines(&err).is_empty(), "{err}");

    // Earlier releases wrote the bare nibbles: the uplink's and the downlink's payloads
    // without tag or signature (a seeded and a packed list).
    let bare = |from: &Path, to: &Path, skip: usize| {
        let bytes = std::fs::read(from).unwrap();
        let header = 13 + u16::from_le_bytes([bytes[11], bytes[12]]) as usize;
        let mut old = bytes[..header].to_vec();
        old.extend_from_slice(&bytes[header + skip..]);
        std::fs::write(to, old).unwrap();
    };
    // Tag (8 bytes), the signature's length (8) and its elements: names of 4 bytes
    // (`a[0]`) each with its length (8) and kind (1).
    let (old_up, old_down) = (d.join("old-up.ct"), d.join("old-down.ct"));
    bare(&up, &old_up, 8 + 8 + 5 * (8 + 4 + 1));
    // `s` and `avg`.
    bare(&o, &old_down, 8 + 8 + (8 + 1 + 1) + (8 + 3 + 1));
    let (ok, _, err) = run_to(&average, &old_up, &d.join("o2.ct"));
    assert!(!ok && err.contains("of an earlier release"), "{err}");
    assert!(err.contains("encrypt them again"), "{err}");
    let (ok, _, err) = decrypt(&average, &old_down);
    assert!(!ok && err.contains("of an earlier release"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}
