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

/// A case whose result is `want`, a value of the Rust type that names its encrypted type.
fn case<T: Want>(op: &'static str, files: &[&String], extra: &[&'static str], want: T) -> Case {
    let (want, ty) = want.want();
    case_as(op, files, extra, want, ty)
}

/// A case whose result is `want` of the encrypted type `ty`.
fn case_as(
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

/// A clear result: its value, and the name of the encrypted type of the same range.
trait Want {
    fn want(self) -> (i128, &'static str);
}

macro_rules! want {
    ($($t:ty),*) => {$(
        impl Want for $t {
            fn want(self) -> (i128, &'static str) {
                (i128::from(self), stringify!($t))
            }
        }
    )*};
}

want!(bool, u8, i8, i16, u32, i32);

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
    vec![
        case("add", &[&fa, &fb], &[], a.wrapping_add(bv)),
        case("sub", &[&fb, &fa], &[], bv.wrapping_sub(a)),
        case("mul", &[&fa, &fb], &[], a.wrapping_mul(bv)),
        case("mul", &[&fa], &["--scalar", "-3"], a.wrapping_mul(253)),
        case("scalar_mul", &[&fa], &["--scalar", "5"], a.wrapping_mul(5)),
        case("div", &[&fa, &fz], &[], div_u8(a, 0)),
        case("div", &[&fa], &["--scalar", "9"], a / 9),
        case("rem", &[&fa, &fz], &[], rem_u8(a, 0)),
        case("rem", &[&fa], &["--scalar", "7"], a % 7),
        case("and", &[&fa, &fb], &[], a & bv),
        case("or", &[&fa, &fb], &[], a | bv),
        case("xor", &[&fa], &["--scalar", "85"], a ^ 85),
        case("min", &[&fa, &fb], &[], a.min(bv)),
        case("max", &[&fa], &["--scalar", "201"], a.max(201)),
        case("lt", &[&fa, &fb], &[], a < bv),
        case("gt", &[&fa, &fb], &[], a > bv),
        case("ge", &[&fa], &["--scalar", "200"], a >= 200),
        case("eq", &[&fa, &fb], &[], a == bv),
        case("ne", &[&fa], &["--scalar", "200"], a != 200),
        case("shl", &[&fa, &fs], &[], a.wrapping_shl(n)),
        case("shr", &[&fa, &fs], &[], a.wrapping_shr(n)),
        case("rotl", &[&fa, &fs], &[], a.rotate_left(n)),
        case("rotr", &[&fa, &fs], &[], a.rotate_right(n)),
        case("not", &[&fa], &[], !a),
        case("neg", &[&fa], &[], a.wrapping_neg()),
        case("square", &[&fa], &[], a.wrapping_mul(a)),
        case("abs", &[&fa], &[], a),
        case("select", &[&ft, &fa, &fb], &[], a),
        case("select", &[&ff, &fa], &["--scalar", "9"], 9u8),
        case("cast", &[&fa], &["--to", "i16"], a as i16),
        case("cast", &[&fa], &["--to", "i8"], a as i8),
        case("cast", &[&fa], &["--to", "bool"], a != 0),
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
    vec![
        case("add", &[&fx, &fy], &[], x.wrapping_add(y)),
        case(
            "add",
            &[&fmin],
            &["--scalar", "-1"],
            i16::MIN.wrapping_add(-1),
        ),
        case("sub", &[&fx, &fy], &[], x.wrapping_sub(y)),
        case("mul", &[&fx, &fy], &[], x.wrapping_mul(y)),
        // An encrypted 16-bit divisor costs seconds: the divisor is clear here (the
        // reciprocal circuit), the encrypted divider runs on u8 above. Likewise two of the
        // shifts take a clear amount.
        case("div", &[&fx], &["--scalar", "-7"], x.wrapping_div(-7)),
        case("rem", &[&fx], &["--scalar", "-7"], x.wrapping_rem(-7)),
        case(
            "div",
            &[&fmin],
            &["--scalar", "-1"],
            i16::MIN.wrapping_div(-1),
        ),
        case("and", &[&fx, &fy], &[], x & y),
        case("or", &[&fx, &fy], &[], x | y),
        case("xor", &[&fx, &fy], &[], x ^ y),
        case("min", &[&fx, &fy], &[], x.min(y)),
        case("max", &[&fx, &fy], &[], x.max(y)),
        case("lt", &[&fx, &fy], &[], x < y),
        case("le", &[&fx], &["--scalar", "-300"], x <= -300),
        case("ge", &[&fy, &fx], &[], y >= x),
        case("eq", &[&fx, &fy], &[], x == y),
        case("ne", &[&fx, &fy], &[], x != y),
        case("shl", &[&fx, &fs], &[], x.wrapping_shl(n)),
        case("shr", &[&fx], &["--scalar", "19"], x.wrapping_shr(19)),
        case("rotl", &[&fx], &["--scalar", "19"], x.rotate_left(19)),
        case("rotr", &[&fx, &fs], &[], x.rotate_right(n)),
        case("not", &[&fx], &[], !x),
        case("neg", &[&fmin], &[], i16::MIN.wrapping_neg()),
        case("square", &[&fx], &[], x.wrapping_mul(x)),
        case("abs", &[&fmin], &[], i16::MIN.wrapping_abs()),
        case("select", &[&ft, &fx, &fy], &[], x),
        case("cast", &[&fx], &["--to", "u8"], x as u8),
        case("cast", &[&fx], &["--to", "i32"], i32::from(x)),
        case("cast", &[&fx], &["--to", "u32"], x as u32),
    ]
}

fn bool_cases(k: &Keys) -> Vec<Case> {
    let (t, f) = (true, false);
    let (ft, ff) = (k.enc("bool", "true"), k.enc("bool", "0"));
    vec![
        case("and", &[&ft, &ff], &[], t & f),
        case("or", &[&ft, &ff], &[], t | f),
        case("xor", &[&ft, &ff], &[], t ^ f),
        case("not", &[&ff], &[], !f),
        case("eq", &[&ft, &ff], &[], t == f),
        case("lt", &[&ff, &ft], &[], !f & t),
        case(
            "add",
            &[&ft, &ft],
            &[],
            (u8::from(t) + u8::from(t)) % 2 == 1,
        ),
        case("select", &[&ft, &ff, &ft], &[], f),
        case("cast", &[&ft], &["--to", "u8"], u8::from(t)),
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
        case_as("add", &[&fp, &fq], &[], p + q, "int"),
        case_as("sub", &[&fq, &fp], &[], q - p, "int"),
        case_as("neg", &[&fp], &[], -p, "int"),
        case_as("mul", &[&fp, &fq], &[], p * q, "int"),
        case_as("square", &[&fp], &[], p * p, "int"),
        case_as("scalar_mul", &[&fp], &["--scalar", "805"], p * 805, "int"),
        case_as("sgn", &[&fp], &[], p.signum(), "int"),
        case_as("max", &[&fp, &fq], &[], p.max(q), "int"),
        case_as("min", &[&fp, &fq], &[], p.min(q), "int"),
        case_as("abs", &[&fp], &[], p.abs(), "int"),
        case_as("round", &[&fp], &["--position", "3"], round_at(p, 3), "int"),
        case_as("lt", &[&fp, &fq], &[], b(p < q), "int"),
        case_as("le", &[&fq, &fp], &[], b(q <= p), "int"),
        case_as("gt", &[&fp, &fq], &[], b(p > q), "int"),
        case_as("ge", &[&fq, &fp], &[], b(q >= p), "int"),
        case_as("eq", &[&fp, &fq], &[], b(p == q), "int"),
        case_as("ne", &[&fp, &fq], &[], b(p != q), "int"),
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

/// Asserts that `encint <command> --help` succeeds and mentions each of `needles`.
fn assert_help_mentions(command: &str, needles: &[&str]) {
    let (ok, out, err) = encint(&[command, "--help"]);
    assert!(ok, "{err}");
    for needle in needles {
        assert!(out.contains(needle), "{command} --help lacks {needle}");
    }
}

#[test]
fn help_explains_types_and_semantics() {
    assert_help_mentions(
        "encrypt",
        &[
            "--type",
            "--digits",
            "u8",
            "bool",
            "int",
            "outside its type",
        ],
    );
    assert_help_mentions(
        "eval",
        &[
            "modulo the width",
            "Division by an encrypted 0",
            "select",
            "cast --to",
            "--scalar",
        ],
    );
}
