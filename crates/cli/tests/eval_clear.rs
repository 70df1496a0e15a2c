//! `encint eval --clear`: every operation on u8, i16, bool and the exact `int`, run through
//! its circuit on the clear executor, against plain Rust integer arithmetic with TFHE-rs'
//! semantics (wrapping results, shift amounts modulo the width, division by an encrypted
//! zero as the `eval --help` table says); and bad input as typed errors.

mod common;
use common::encint;

/// Runs `encint eval --clear --json` and returns (result text, bootstraps, depth).
fn clear(ty: &str, op: &str, operands: &[String], extra: &[&str]) -> (String, u64, u64) {
    let mut args = vec!["eval", "--clear", "--json", "--type", ty, "--op", op];
    args.extend_from_slice(extra);
    args.push("--");
    args.extend(operands.iter().map(String::as_str));
    let (ok, out, err) = encint(&args);
    assert!(ok, "{args:?} failed: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    let v: serde_json::Value = serde_json::from_str(out.trim())
        .unwrap_or_else(|e| panic!("{args:?}: not one JSON object ({e}): {out}"));
    assert_eq!(v["executor"], "clear", "{out}");
    assert_eq!(v["op"], op, "{out}");
    let result = v["result"].as_str().unwrap_or_else(|| panic!("{out}"));
    let bootstraps = v["bootstraps"].as_u64().unwrap_or_else(|| panic!("{out}"));
    let depth = v["depth"].as_u64().unwrap_or_else(|| panic!("{out}"));
    (result.to_string(), bootstraps, depth)
}

/// The two-operand operations of the typed values, by their `--op` names.
const BINARY: &[&str] = &[
    "add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "rotl", "rotr", "min",
    "max", "lt", "le", "gt", "ge", "eq", "ne",
];

#[macro_use]
#[path = "../../arith/tests/common/wrapping_reference.rs"]
mod wrapping_reference;

/// `a op b` on u8 with TFHE-rs' semantics (comparisons as 0 or 1).
fn u8_binary(op: &str, a: u8, b: u8) -> u8 {
    wrapping_reference!(u8, u8)(op, a, b)
}

/// `a op b` on i16 with TFHE-rs' semantics (comparisons as 0 or 1).
fn i16_binary(op: &str, a: i16, b: i16) -> i16 {
    wrapping_reference!(i16, u16)(op, a, b)
}

/// `a op b` on bool, TFHE-rs' one-bit unsigned type: arithmetic modulo 2, a division by 0
/// all ones, shift and rotation amounts modulo 1 (no move).
fn bool_binary(op: &str, a: bool, b: bool) -> bool {
    match op {
        "add" | "sub" | "xor" | "ne" => a ^ b,
        "mul" | "and" | "min" => a & b,
        "div" => !b || a,
        "rem" => !b && a,
        "or" | "max" => a | b,
        "shl" | "shr" | "rotl" | "rotr" => a,
        "lt" => !a & b,
        "le" => !a | b,
        "gt" => a & !b,
        "ge" => a | !b,
        "eq" => a == b,
        _ => panic!("no reference for {op}"),
    }
}

fn is_comparison(op: &str) -> bool {
    matches!(op, "lt" | "le" | "gt" | "ge" | "eq" | "ne")
}

fn text_of_bool(v: bool) -> String {
    v.to_string()
}

/// The text the command prints for the result `want` of `op`: a comparison's 0 or 1 as a
/// boolean, any other value as a number.
fn expected_text<T: ToString + PartialEq + From<u8>>(op: &str, want: T) -> String {
    if is_comparison(op) {
        text_of_bool(want == T::from(1))
    } else {
        want.to_string()
    }
}

#[test]
fn every_u8_operation_matches_wrapping_arithmetic() {
    let pairs: [(u8, u8); 5] = [(200, 100), (7, 0), (255, 255), (0, 13), (131, 10)];
    for op in BINARY {
        for &(a, b) in &pairs {
            let want = expected_text(op, u8_binary(op, a, b));
            let (got, bootstraps, _) = clear("u8", op, &[a.to_string(), b.to_string()], &[]);
            assert_eq!(got, want, "u8 {op} {a} {b}");
            // Every operation on two unknown bytes bootstraps (rotations by an encrypted
            // amount included).
            assert!(bootstraps > 0, "u8 {op}: no bootstrap");
        }
    }
    for &a in &[0u8, 1, 128, 200, 255] {
        for (op, want) in [
            ("not", !a),
            ("neg", a.wrapping_neg()),
            ("square", a.wrapping_mul(a)),
            ("abs", a),
        ] {
            let (got, _, _) = clear("u8", op, &[a.to_string()], &[]);
            assert_eq!(got, want.to_string(), "u8 {op} {a}");
        }
        for k in [3i128, -1, 256 + 5] {
            let s = k.to_string();
            let want = a.wrapping_mul(k as u8);
            let (got, _, _) = clear("u8", "scalar_mul", &[a.to_string()], &["--scalar", &s]);
            assert_eq!(got, want.to_string(), "u8 scalar_mul {a} by {k}");
        }
        // A clear second operand (`--scalar`) in place of a value.
        for op in ["add", "sub", "div", "rem", "shl", "rotr", "lt"] {
            let b = 6u8;
            let want = expected_text(op, u8_binary(op, a, b));
            let (got, _, _) = clear("u8", op, &[a.to_string()], &["--scalar", "6"]);
            assert_eq!(got, want, "u8 {op} {a} --scalar 6");
        }
        for c in [true, false] {
            let (got, _, _) = clear(
                "u8",
                "select",
                &[c.to_string(), a.to_string(), "77".into()],
                &[],
            );
            assert_eq!(got, if c { a } else { 77 }.to_string(), "select {c} {a} 77");
        }
        let (got, _, _) = clear("u8", "cast", &[a.to_string()], &["--to", "i8"]);
        assert_eq!(got, (a as i8).to_string(), "cast {a} to i8");
        let (got, _, _) = clear("u8", "cast", &[a.to_string()], &["--to", "i16"]);
        assert_eq!(got, i16::from(a).to_string(), "cast {a} to i16");
        let (got, _, _) = clear("u8", "cast", &[a.to_string()], &["--to", "bool"]);
        assert_eq!(got, (a != 0).to_string(), "cast {a} to bool");
    }
}

#[test]
fn every_i16_operation_matches_wrapping_arithmetic() {
    let pairs: [(i16, i16); 6] = [
        (-300, 7),
        (i16::MIN, -1),
        (1234, 0),
        (-1234, 0),
        (32767, 32767),
        (-5, 19),
    ];
    for op in BINARY {
        for &(a, b) in &pairs {
            // An encrypted shift amount is an unsigned value of the width.
            let shift = matches!(*op, "shl" | "shr" | "rotl" | "rotr");
            let s = b as u16;
            let second = if shift { s.to_string() } else { b.to_string() };
            let want = expected_text(op, i16_binary(op, a, b));
            let (got, _, _) = clear("i16", op, &[a.to_string(), second.clone()], &[]);
            assert_eq!(got, want, "i16 {op} {a} {second}");
        }
    }
    for &a in &[0i16, -1, i16::MIN, i16::MAX, -300] {
        for (op, want) in [
            ("not", !a),
            ("neg", a.wrapping_neg()),
            ("square", a.wrapping_mul(a)),
            ("abs", a.wrapping_abs()),
        ] {
            let (got, _, _) = clear("i16", op, &[a.to_string()], &[]);
            assert_eq!(got, want.to_string(), "i16 {op} {a}");
        }
        let (got, _, _) = clear("i16", "scalar_mul", &[a.to_string()], &["--scalar", "-805"]);
        assert_eq!(got, a.wrapping_mul(-805).to_string(), "i16 {a} * -805");
        let (got, _, _) = clear("i16", "div", &[a.to_string()], &["--scalar", "-7"]);
        assert_eq!(got, a.wrapping_div(-7).to_string(), "i16 {a} / -7");
        let (got, _, _) = clear("i16", "shr", &[a.to_string()], &["--scalar", "19"]);
        assert_eq!(got, a.wrapping_shr(19).to_string(), "i16 {a} >> 19");
        let (got, _, _) = clear(
            "i16",
            "select",
            &["false".into(), a.to_string(), "-2".into()],
            &[],
        );
        assert_eq!(got, "-2", "select false {a} -2");
        let (got, _, _) = clear("i16", "cast", &[a.to_string()], &["--to", "u8"]);
        assert_eq!(got, (a as u8).to_string(), "cast {a} to u8");
        let (got, _, _) = clear("i16", "cast", &[a.to_string()], &["--to", "i32"]);
        assert_eq!(got, i32::from(a).to_string(), "cast {a} to i32");
    }
}

#[test]
fn every_bool_operation_matches_one_bit_arithmetic() {
    for op in BINARY {
        for a in [false, true] {
            for b in [false, true] {
                let want = bool_binary(op, a, b);
                let (got, _, _) = clear("bool", op, &[a.to_string(), b.to_string()], &[]);
                assert_eq!(got, want.to_string(), "bool {op} {a} {b}");
            }
        }
    }
    for a in [false, true] {
        // Negation, square and absolute value are the identity modulo 2.
        for (op, want) in [("not", !a), ("neg", a), ("square", a), ("abs", a)] {
            let (got, _, _) = clear("bool", op, &[a.to_string()], &[]);
            assert_eq!(got, want.to_string(), "bool {op} {a}");
        }
        for c in [false, true] {
            let (got, _, _) = clear(
                "bool",
                "select",
                &[c.to_string(), a.to_string(), (!a).to_string()],
                &[],
            );
            assert_eq!(got, (if c { a } else { !a }).to_string());
        }
        let (got, _, _) = clear("bool", "cast", &[a.to_string()], &["--to", "u8"]);
        assert_eq!(got, u8::from(a).to_string(), "cast {a} to u8");
        let (got, _, _) = clear("bool", "scalar_mul", &[a.to_string()], &["--scalar", "3"]);
        assert_eq!(got, a.to_string(), "bool {a} * 3 (odd)");
    }
    // 0 and 1 are bool values too.
    let (got, _, _) = clear("bool", "and", &["1".into(), "0".into()], &[]);
    assert_eq!(got, "false");
}

/// `⌊a / 2^i + 1/2⌋ · 2^i`.
fn round_at(a: i128, i: u32) -> i128 {
    if i == 0 {
        return a;
    }
    (a + (1 << (i - 1))).div_euclid(1 << i) << i
}

#[test]
fn every_int_operation_matches_exact_arithmetic() {
    let pairs: [(i128, i128); 5] = [(1234, -567), (-1, 1), (0, 0), (-4095, -4095), (77, 300)];
    for &(a, b) in &pairs {
        let two = [a.to_string(), b.to_string()];
        for (op, want) in [
            ("add", a + b),
            ("sub", a - b),
            ("mul", a * b),
            ("max", a.max(b)),
            ("min", a.min(b)),
            ("lt", i128::from(a < b)),
            ("le", i128::from(a <= b)),
            ("gt", i128::from(a > b)),
            ("ge", i128::from(a >= b)),
            ("eq", i128::from(a == b)),
            ("ne", i128::from(a != b)),
        ] {
            let (got, _, _) = clear("int", op, &two, &[]);
            assert_eq!(got, want.to_string(), "int {op} {a} {b}");
        }
        // The wrapping product of n-digit operands: congruent to a·b modulo 2^n, below
        // 2^n in magnitude.
        let (got, _, _) = clear("int", "mul_low", &two, &["--digits", "13"]);
        let got: i128 = got.parse().expect("an integer");
        assert_eq!(
            (got - a * b).rem_euclid(1 << 13),
            0,
            "mul_low {a} {b}: {got}"
        );
        assert!(got.abs() < 1 << 13, "mul_low {a} {b}: {got}");
        for x in [a, b] {
            let one = [x.to_string()];
            for (op, want) in [
                ("neg", -x),
                ("squ", x * x),
                ("square", x * x),
                ("sgn", x.signum()),
                ("abs", x.abs()),
            ] {
                let (got, _, _) = clear("int", op, &one, &[]);
                assert_eq!(got, want.to_string(), "int {op} {x}");
            }
            let (got, _, _) = clear("int", "scalar_mul", &one, &["--scalar", "-805"]);
            assert_eq!(got, (x * -805).to_string(), "int {x} * -805");
            for i in [0u32, 1, 3] {
                let pos = i.to_string();
                let (got, _, _) = clear("int", "round", &one, &["--position", &pos]);
                assert_eq!(got, round_at(x, i).to_string(), "int round {x} at {i}");
            }
        }
    }
    // Exact: no wrap, whatever the operands' digit count.
    let big = (1i128 << 62) - 1;
    let (got, _, _) = clear("int", "mul", &[big.to_string(), big.to_string()], &[]);
    assert_eq!(got, (big * big).to_string());
}

#[test]
fn the_circuit_is_the_one_its_cost_says() {
    // More digits, more work: the cost is the circuit's, not a constant.
    let (_, small, _) = clear("int", "mul", &["3".into(), "5".into()], &["--digits", "4"]);
    let (_, large, _) = clear("int", "mul", &["3".into(), "5".into()], &["--digits", "16"]);
    assert!(0 < small && small < large, "{small} {large}");
    // A clear operand folds into the circuit: a product by a constant costs less than one
    // by a value.
    let (_, by_value, _) = clear("u8", "mul", &["9".into(), "6".into()], &[]);
    let (_, by_clear, _) = clear("u8", "mul", &["9".into()], &["--scalar", "6"]);
    assert!(by_clear < by_value, "{by_clear} {by_value}");
    // The text line carries the same numbers.
    let (ok, out, err) = encint(&[
        "eval", "--clear", "--type", "u8", "--op", "add", "200", "100",
    ]);
    assert!(ok, "{err}");
    let (_, b, d) = clear("u8", "add", &["200".into(), "100".into()], &[]);
    assert!(
        out.contains("= 44 (u8)") && out.contains(&format!("{b} bootstraps, depth {d}")),
        "{out}"
    );
}

#[test]
fn bad_input_is_a_typed_error() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--type", "u8", "--op", "add", "300", "1"],
            "not a value of u8",
        ),
        (
            &["--type", "u8", "--op", "add", "1", "x"],
            "not a value of u8",
        ),
        (
            &["--type", "i8", "--op", "add", "-129", "1"],
            "not a value of i8",
        ),
        (
            &["--type", "bool", "--op", "and", "2", "1"],
            "not a value of bool",
        ),
        (
            &["--type", "u8", "--op", "pow", "1", "2"],
            "unknown operation `pow`",
        ),
        (
            &["--type", "u8", "--op", "add", "1"],
            "takes 2 operand(s), got 1",
        ),
        (
            &["--type", "u8", "--op", "not", "1", "2"],
            "takes 1 operand(s), got 2",
        ),
        (
            &["--type", "u8", "--op", "div", "5", "--scalar", "0"],
            "scalar 0",
        ),
        (&["--type", "u8", "--op", "cast", "5"], "needs `--to TYPE`"),
        (
            &["--type", "u8", "--op", "add", "--to", "u16", "1", "2"],
            "`--to` goes only",
        ),
        (
            &["--type", "int", "--op", "add", "1", "2", "--digits", "1"],
            "needs 2 digits",
        ),
        (
            &["--type", "int", "--op", "add", "1", "2.5"],
            "not an integer",
        ),
        (&["--type", "int", "--op", "rotl", "1", "2"], "rotl"),
        (&["--type", "int", "--op", "round", "5"], "bit position"),
        (
            &["--type", "u8", "--op", "add", "1", "2", "--digits", "8"],
            "--type int",
        ),
        (&["--op", "add", "1", "2"], "needs `--type TYPE`"),
        (&["--type", "u8", "--op", "add"], "no operand given"),
        (&["--type", "u9000", "--op", "add", "1", "2"], "u9000"),
        (
            &["--type", "u8", "--op", "add", "--out", "x.ct", "1", "2"],
            "cannot be used",
        ),
        (
            &["--type", "u8", "--op", "add", "--threads", "0", "1", "2"],
            "threads",
        ),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["eval", "--clear"];
        args.extend_from_slice(extra);
        let (ok, out, err) = encint(&args);
        assert!(!ok, "{args:?} succeeded: {out}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // `--type` belongs to `--clear`.
    let (ok, _, err) = encint(&["eval", "--type", "u8", "--op", "add", "1", "2"]);
    assert!(!ok && err.contains("--clear"), "{err}");
}

/// `encint eval --json` on ciphertexts of real keys: (bootstraps, depth), and the result
/// decrypted as text.
fn encrypted(dir: &std::path::Path, ty: &str, op: &str, values: &[&str]) -> (u64, u64, String) {
    let s = |p: &std::path::Path| p.to_str().expect("a UTF-8 path").to_owned();
    let (client, server) = (s(&dir.join("k/client.key")), s(&dir.join("k/server.key")));
    let mut files = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let f = s(&dir.join(format!("{op}-{ty}-{i}.ct")));
        let (ok, _, err) = encint(&[
            "encrypt", "--key", &client, "--type", ty, "--value", v, "--out", &f, "--force",
        ]);
        assert!(ok, "{err}");
        files.push(f);
    }
    let out = s(&dir.join(format!("{op}-{ty}-out.ct")));
    let mut args = vec![
        "eval",
        "--server-key",
        &server,
        "--op",
        op,
        "--threads",
        "2",
    ];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--out", &out, "--force", "--json"]);
    let (ok, stdout, err) = encint(&args);
    assert!(ok, "{args:?}: {err}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).expect("a JSON object");
    let (ok, dec, err) = encint(&["decrypt", "--key", &client, "--in", &out, "--json"]);
    assert!(ok, "{err}");
    let d: serde_json::Value = serde_json::from_str(dec.trim()).expect("a JSON object");
    (
        v["bootstraps"].as_u64().expect("bootstraps"),
        v["depth"].as_u64().expect("depth"),
        d["value"].to_string(),
    )
}

#[test]
fn the_clear_run_is_the_encrypted_circuit() {
    let dir = std::env::temp_dir().join(format!("encint-eval-clear-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let keys = dir.join("k");
    let (ok, _, err) = encint(&["keygen", "--out", keys.to_str().expect("UTF-8")]);
    assert!(ok, "{err}");
    for (ty, op, values) in [
        ("u8", "add", &["200", "100"][..]),
        ("u8", "lt", &["3", "200"][..]),
        ("i16", "mul", &["-300", "7"][..]),
        ("bool", "xor", &["true", "true"][..]),
    ] {
        let (b, d, value) = encrypted(&dir, ty, op, values);
        let operands: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        let (result, cb, cd) = clear(ty, op, &operands, &["--threads", "2"]);
        assert_eq!((cb, cd), (b, d), "{ty} {op}: clear cost, encrypted cost");
        assert_eq!(result, value.trim_matches('"'), "{ty} {op}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
