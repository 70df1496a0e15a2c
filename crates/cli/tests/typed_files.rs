//! `encint encrypt --type`, `eval` and `decrypt` on typed values and exact integers, through
//! the binary with real keys: every operation on u8, i16, bool and int against Rust's own
//! integer arithmetic, and the errors of mixed types, other key sets, missing operands and
//! values outside their type.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

mod common;
use common::{encint, s};

fn scratch(name: &str) -> PathBuf {
    common::scratch("typed", name)
}

/// A key directory and the files written under it.
struct Keys {
    dir: PathBuf,
    next: AtomicUsize,
}

impl Keys {
    fn new(dir: PathBuf) -> Keys {
        let (ok, _, err) = encint(&["keygen", "--out", s(&dir.join("k"))]);
        assert!(ok, "{err}");
        Keys {
            dir,
            next: AtomicUsize::new(0),
        }
    }

    fn client(&self) -> String {
        s(&self.dir.join("k/client.key")).to_owned()
    }

    fn server(&self) -> String {
        s(&self.dir.join("k/server.key")).to_owned()
    }

    fn fresh(&self) -> PathBuf {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        self.dir.join(format!("{n}.ct"))
    }

    /// Encrypts `value` as `ty` (`int:N` for an exact integer of N digits).
    fn enc(&self, ty: &str, value: &str) -> String {
        let out = self.fresh();
        let client = self.client();
        let mut args = vec!["encrypt", "--key", &client, "--value", value];
        let digits;
        match ty.strip_prefix("int:") {
            Some(n) => {
                digits = n.to_owned();
                args.extend(["--digits", &digits]);
            }
            None => args.extend(["--type", ty]),
        }
        args.extend(["--out", s(&out)]);
        let (ok, _, err) = encint(&args);
        assert!(ok, "encrypt {ty} {value}: {err}");
        s(&out).to_owned()
    }

    /// `eval --op OP FILES EXTRA --json`: the output file, or the error.
    fn eval(&self, op: &str, files: &[&str], extra: &[&str]) -> Result<String, String> {
        let out = self.fresh();
        let server = self.server();
        let mut args = vec!["eval", "--server-key", &server, "--op", op];
        args.extend_from_slice(files);
        args.extend_from_slice(extra);
        args.extend(["--out", s(&out), "--json"]);
        let (ok, stdout, err) = encint(&args);
        if !ok {
            assert!(!out.exists(), "{op}: no output on an error");
            assert!(!err.contains("panicked"), "{err}");
            return Err(err);
        }
        let v: serde_json::Value = serde_json::from_str(stdout.trim()).expect("a JSON object");
        assert!(v["bootstraps"].as_u64().is_some(), "{v}");
        Ok(s(&out).to_owned())
    }

    /// Decrypts: (value, type); `true`/`false` read as 1/0.
    fn dec(&self, ct: &str) -> (i128, String) {
        let (ok, out, err) = encint(&["decrypt", "--key", &self.client(), "--in", ct, "--json"]);
        assert!(ok, "{err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).expect("a JSON object");
        let value = match &v["value"] {
            serde_json::Value::Bool(b) => i128::from(*b),
            serde_json::Value::Number(n) => i128::from(n.as_i64().expect("an integer")),
            other => panic!("value {other}"),
        };
        (value, v["type"].as_str().unwrap().to_owned())
    }
}

/// One evaluation and the value and type Rust's arithmetic gives.
struct Case {
    op: &'static str,
    files: Vec<String>,
    extra: Vec<&'static str>,
    want: i128,
    ty: &'static str,
}

fn case(
    op: &'static str,
    files: &[&String],
    extra: &[&'static str],
    want: i128,
    ty: &'static str,
) -> Case {
    Case {
        op,
        files: files.iter().map(|f| (*f).clone()).collect(),
        extra: extra.to_vec(),
        want,
        ty,
    }
}

/// Runs the cases on two workers; returns the mismatches.
fn run(k: &Keys, cases: &[Case]) -> Vec<String> {
    let check = |c: &Case| -> Option<String> {
        let files: Vec<&str> = c.files.iter().map(String::as_str).collect();
        let what = format!("{} {:?}", c.op, c.extra);
        match k.eval(c.op, &files, &c.extra) {
            Err(e) => Some(format!("{what}: {e}")),
            Ok(out) => {
                let (v, ty) = k.dec(&out);
                (v != c.want || ty != c.ty)
                    .then(|| format!("{what}: got {v} ({ty}), want {} ({})", c.want, c.ty))
            }
        }
    };
    let mut bad = Vec::new();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let check = &check;
                scope.spawn(move || {
                    cases
                        .iter()
                        .skip(w)
                        .step_by(2)
                        .filter_map(check)
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for w in workers {
            bad.extend(w.join().unwrap());
        }
    });
    bad
}

fn b(x: bool) -> i128 {
    i128::from(x)
}

/// Division as TFHE-rs defines it for a zero divisor: unsigned all ones; signed `-1` for
/// a dividend >= 0 and `1` below.
fn div_u8(a: u8, d: u8) -> u8 {
    a.checked_div(d).unwrap_or(u8::MAX)
}

fn rem_u8(a: u8, d: u8) -> u8 {
    a.checked_rem(d).unwrap_or(a)
}

fn u8_cases(k: &Keys) -> Vec<Case> {
    let (a, bv, amount) = (200u8, 7u8, 11u8);
    let fa = k.enc("u8", &a.to_string());
    let fb = k.enc("u8", &bv.to_string());
    let fz = k.enc("u8", "0");
    let fs = k.enc("u8", &amount.to_string());
    let (ft, ff) = (k.enc("bool", "true"), k.enc("bool", "false"));
    let n = u32::from(amount);
    let w = |v: u8| i128::from(v);
    vec![
        case("add", &[&fa, &fb], &[], w(a.wrapping_add(bv)), "u8"),
        case("sub", &[&fb, &fa], &[], w(bv.wrapping_sub(a)), "u8"),
        case("mul", &[&fa, &fb], &[], w(a.wrapping_mul(bv)), "u8"),
        case(
            "mul",
            &[&fa],
            &["--scalar", "-3"],
            w(a.wrapping_mul(253)),
            "u8",
        ),
        case(
            "scalar_mul",
            &[&fa],
            &["--scalar", "5"],
            w(a.wrapping_mul(5)),
            "u8",
        ),
        case("div", &[&fa, &fz], &[], w(div_u8(a, 0)), "u8"),
        case("div", &[&fa], &["--scalar", "9"], w(a / 9), "u8"),
        case("rem", &[&fa, &fz], &[], w(rem_u8(a, 0)), "u8"),
        case("rem", &[&fa], &["--scalar", "7"], w(a % 7), "u8"),
        case("and", &[&fa, &fb], &[], w(a & bv), "u8"),
        case("or", &[&fa, &fb], &[], w(a | bv), "u8"),
        case("xor", &[&fa], &["--scalar", "85"], w(a ^ 85), "u8"),
        case("min", &[&fa, &fb], &[], w(a.min(bv)), "u8"),
        case("max", &[&fa], &["--scalar", "201"], w(a.max(201)), "u8"),
        case("lt", &[&fa, &fb], &[], b(a < bv), "bool"),
        case("gt", &[&fa, &fb], &[], b(a > bv), "bool"),
        case("ge", &[&fa], &["--scalar", "200"], b(a >= 200), "bool"),
        case("eq", &[&fa, &fb], &[], b(a == bv), "bool"),
        case("ne", &[&fa], &["--scalar", "200"], b(a != 200), "bool"),
        case("shl", &[&fa, &fs], &[], w(a.wrapping_shl(n)), "u8"),
        case("shr", &[&fa, &fs], &[], w(a.wrapping_shr(n)), "u8"),
        case("rotl", &[&fa, &fs], &[], w(a.rotate_left(n)), "u8"),
        case("rotr", &[&fa, &fs], &[], w(a.rotate_right(n)), "u8"),
        case("not", &[&fa], &[], w(!a), "u8"),
        case("neg", &[&fa], &[], w(a.wrapping_neg()), "u8"),
        case("square", &[&fa], &[], w(a.wrapping_mul(a)), "u8"),
        case("abs", &[&fa], &[], w(a), "u8"),
        case("select", &[&ft, &fa, &fb], &[], w(a), "u8"),
        case("select", &[&ff, &fa], &["--scalar", "9"], 9, "u8"),
        case(
            "cast",
            &[&fa],
            &["--to", "i16"],
            i128::from(a as i16),
            "i16",
        ),
        case("cast", &[&fa], &["--to", "i8"], i128::from(a as i8), "i8"),
        case("cast", &[&fa], &["--to", "bool"], b(a != 0), "bool"),
    ]
}

fn i16_cases(k: &Keys) -> Vec<Case> {
    let (x, y, amount) = (-300i16, 77i16, 19u16);
    let fx = k.enc("i16", &x.to_string());
    let fy = k.enc("i16", &y.to_string());
    let fmin = k.enc("i16", &i16::MIN.to_string());
    let fs = k.enc("u16", &amount.to_string());
    let ft = k.enc("bool", "true");
    let n = u32::from(amount);
    let w = |v: i16| i128::from(v);
    vec![
        case("add", &[&fx, &fy], &[], w(x.wrapping_add(y)), "i16"),
        case(
            "add",
            &[&fmin],
            &["--scalar", "-1"],
            w(i16::MIN.wrapping_add(-1)),
            "i16",
        ),
        case("sub", &[&fx, &fy], &[], w(x.wrapping_sub(y)), "i16"),
        case("mul", &[&fx, &fy], &[], w(x.wrapping_mul(y)), "i16"),
        // An encrypted 16-bit divisor costs seconds: the divisor is clear here (the
        // reciprocal circuit), the encrypted divider runs on u8 above. Likewise two of the
        // shifts take a clear amount.
        case(
            "div",
            &[&fx],
            &["--scalar", "-7"],
            w(x.wrapping_div(-7)),
            "i16",
        ),
        case(
            "rem",
            &[&fx],
            &["--scalar", "-7"],
            w(x.wrapping_rem(-7)),
            "i16",
        ),
        case(
            "div",
            &[&fmin],
            &["--scalar", "-1"],
            w(i16::MIN.wrapping_div(-1)),
            "i16",
        ),
        case("and", &[&fx, &fy], &[], w(x & y), "i16"),
        case("or", &[&fx, &fy], &[], w(x | y), "i16"),
        case("xor", &[&fx, &fy], &[], w(x ^ y), "i16"),
        case("min", &[&fx, &fy], &[], w(x.min(y)), "i16"),
        case("max", &[&fx, &fy], &[], w(x.max(y)), "i16"),
        case("lt", &[&fx, &fy], &[], b(x < y), "bool"),
        case("le", &[&fx], &["--scalar", "-300"], b(x <= -300), "bool"),
        case("ge", &[&fy, &fx], &[], b(y >= x), "bool"),
        case("eq", &[&fx, &fy], &[], b(x == y), "bool"),
        case("ne", &[&fx, &fy], &[], b(x != y), "bool"),
        case("shl", &[&fx, &fs], &[], w(x.wrapping_shl(n)), "i16"),
        case(
            "shr",
            &[&fx],
            &["--scalar", "19"],
            w(x.wrapping_shr(19)),
            "i16",
        ),
        case(
            "rotl",
            &[&fx],
            &["--scalar", "19"],
            w(x.rotate_left(19)),
            "i16",
        ),
        case("rotr", &[&fx, &fs], &[], w(x.rotate_right(n)), "i16"),
        case("not", &[&fx], &[], w(!x), "i16"),
        case("neg", &[&fmin], &[], w(i16::MIN.wrapping_neg()), "i16"),
        case("square", &[&fx], &[], w(x.wrapping_mul(x)), "i16"),
        case("abs", &[&fmin], &[], w(i16::MIN.wrapping_abs()), "i16"),
        case("select", &[&ft, &fx, &fy], &[], w(x), "i16"),
        case("cast", &[&fx], &["--to", "u8"], i128::from(x as u8), "u8"),
        case(
            "cast",
            &[&fx],
            &["--to", "i32"],
            i128::from(i32::from(x)),
            "i32",
        ),
        case(
            "cast",
            &[&fx],
            &["--to", "u32"],
            i128::from(x as u32),
            "u32",
        ),
    ]
}

fn bool_cases(k: &Keys) -> Vec<Case> {
    let (t, f) = (true, false);
    let (ft, ff) = (k.enc("bool", "true"), k.enc("bool", "0"));
    vec![
        case("and", &[&ft, &ff], &[], b(t & f), "bool"),
        case("or", &[&ft, &ff], &[], b(t | f), "bool"),
        case("xor", &[&ft, &ff], &[], b(t ^ f), "bool"),
        case("not", &[&ff], &[], b(!f), "bool"),
        case("eq", &[&ft, &ff], &[], b(t == f), "bool"),
        case("lt", &[&ff, &ft], &[], b(!f & t), "bool"),
        case(
            "add",
            &[&ft, &ft],
            &[],
            i128::from((u8::from(t) + u8::from(t)) % 2),
            "bool",
        ),
        case("select", &[&ft, &ff, &ft], &[], b(f), "bool"),
        case(
            "cast",
            &[&ft],
            &["--to", "u8"],
            i128::from(u8::from(t)),
            "u8",
        ),
    ]
}

/// `round` at bit `i`: the nearest multiple of `2^i`, halves up.
fn round_at(x: i128, i: u32) -> i128 {
    (x + (1 << (i - 1))).div_euclid(1 << i) << i
}

fn int_cases(k: &Keys) -> Vec<Case> {
    let (p, q) = (-100i128, 77i128);
    let fp = k.enc("int:8", &p.to_string());
    let fq = k.enc("int:8", &q.to_string());
    vec![
        case("add", &[&fp, &fq], &[], p + q, "int"),
        case("sub", &[&fq, &fp], &[], q - p, "int"),
        case("neg", &[&fp], &[], -p, "int"),
        case("mul", &[&fp, &fq], &[], p * q, "int"),
        case("square", &[&fp], &[], p * p, "int"),
        case("scalar_mul", &[&fp], &["--scalar", "805"], p * 805, "int"),
        case("sgn", &[&fp], &[], p.signum(), "int"),
        case("max", &[&fp, &fq], &[], p.max(q), "int"),
        case("min", &[&fp, &fq], &[], p.min(q), "int"),
        case("abs", &[&fp], &[], p.abs(), "int"),
        case("round", &[&fp], &["--position", "3"], round_at(p, 3), "int"),
        case("lt", &[&fp, &fq], &[], b(p < q), "int"),
        case("le", &[&fq, &fp], &[], b(q <= p), "int"),
        case("gt", &[&fp, &fq], &[], b(p > q), "int"),
        case("ge", &[&fq, &fp], &[], b(q >= p), "int"),
        case("eq", &[&fp, &fq], &[], b(p == q), "int"),
        case("ne", &[&fp, &fq], &[], b(p != q), "int"),
    ]
}

/// Every operation on u8, i16, bool and int, and every refusal, with one key set (and a
/// second for the key-set check).
#[test]
fn typed_files_round_trip_every_operation() {
    let d = scratch("ops");
    let k = Keys::new(d.clone());
    let mut cases = u8_cases(&k);
    cases.extend(i16_cases(&k));
    cases.extend(bool_cases(&k));
    cases.extend(int_cases(&k));
    let bad = run(&k, &cases);
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );

    // Decrypt prints a typed value in its type's range, unsigned as unsigned.
    let big = k.enc("u64", &u64::MAX.to_string());
    let (ok, out, err) = encint(&["decrypt", "--key", &k.client(), "--in", &big]);
    assert!(ok && out.trim() == u64::MAX.to_string(), "{out}{err}");
    let (ok, out, err) = encint(&["decrypt", "--key", &k.client(), "--in", &cases[0].files[0]]);
    assert!(ok && out.trim() == "200", "{out}{err}");

    // Values outside their type: an error, no file.
    for (ty, value) in [("u8", "256"), ("u8", "-1"), ("i16", "40000"), ("bool", "2")] {
        let out = d.join(format!("out-of-range-{ty}.ct"));
        let (ok, _, err) = encint(&[
            "encrypt",
            "--key",
            &k.client(),
            "--type",
            ty,
            "--value",
            value,
            "--out",
            s(&out),
        ]);
        assert!(!ok && err.contains("not a value of"), "{ty} {value}: {err}");
        assert!(!out.exists());
    }
    let (ok, _, err) = encint(&[
        "encrypt",
        "--key",
        &k.client(),
        "--type",
        "u9x",
        "--value",
        "1",
        "--out",
        "x.ct",
    ]);
    assert!(!ok && err.contains("unknown type"), "{err}");
    let (ok, _, err) = encint(&[
        "encrypt",
        "--key",
        &k.client(),
        "--type",
        "u8",
        "--digits",
        "8",
        "--value",
        "1",
        "--out",
        "x.ct",
    ]);
    assert!(!ok && err.contains("--digits"), "{err}");

    // Refusals of eval: mixed types, mixed kinds, a missing operand, a shift amount of
    // another type, a cast without a target, a clear zero divisor.
    let a8 = k.enc("u8", "3");
    let a16 = k.enc("i16", "3");
    let exact = k.enc("int:4", "3");
    for (op, files, extra, needle) in [
        ("add", vec![&a8, &a16], vec![], "i16"),
        ("add", vec![&a8, &exact], vec![], "exact integer"),
        ("add", vec![&a8], vec![], "takes 2"),
        ("select", vec![&a8, &a8, &a8], vec![], "bool"),
        ("shl", vec![&a16, &a16], vec![], "shift amount"),
        ("cast", vec![&a8], vec![], "--to"),
        ("div", vec![&a8], vec!["--scalar", "0"], "division by"),
        ("neg", vec![&a8], vec!["--scalar", "1"], "--scalar"),
        ("frobnicate", vec![&a8], vec![], "unknown operation"),
    ] {
        let files: Vec<&str> = files.iter().map(|f| f.as_str()).collect();
        let err = k.eval(op, &files, &extra).expect_err(op);
        assert!(err.contains(needle), "{op}: {err}");
    }

    // A value of another key set is never combined with this one's.
    let k2 = Keys::new(d.join("second"));
    let other = k2.enc("u8", "3");
    let err = k.eval("add", &[&a8, &other], &[]).expect_err("key sets");
    assert!(err.contains("key set"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn help_explains_types_and_semantics() {
    let (ok, out, err) = encint(&["encrypt", "--help"]);
    assert!(ok, "{err}");
    for needle in [
        "--type",
        "--digits",
        "u8",
        "bool",
        "int",
        "outside its type",
    ] {
        assert!(out.contains(needle), "encrypt --help lacks {needle}");
    }
    let (ok, out, err) = encint(&["eval", "--help"]);
    assert!(ok, "{err}");
    for needle in [
        "modulo the width",
        "Division by an encrypted 0",
        "select",
        "cast --to",
        "--scalar",
    ] {
        assert!(out.contains(needle), "eval --help lacks {needle}");
    }
}
