//! The `encint` binary's machine-readable outputs, checked against the
//! acceptance figures (Parmesan's bootstraps and depth, the chain statistic).

mod common;
use common::{asm_encrypt, cost_rows, doc_table, encint, example, keys_in};

#[test]
fn cost_json_is_never_worse_than_parmesan() {
    let (ok, out, err) = encint(&["cost", "--json"]);
    assert!(ok, "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).expect("JSON array");
    assert_eq!(rows.len(), 24);
    for r in &rows {
        for key in ["op", "bits", "arg", "pbs", "depth", "width", "qweight"] {
            assert!(r.get(key).is_some(), "missing {key} in {r}");
        }
        assert!(r["pbs"].as_u64() <= r["parmesan_pbs"].as_u64(), "{r}");
        // Products and squares run on radix-4 blocks, the maximum's comparison on a ripple
        // of radix-4 carries: far fewer bootstraps, deeper.
        if !matches!(r["op"].as_str(), Some("mul" | "squ" | "max")) {
            assert!(r["depth"].as_u64() <= r["parmesan_depth"].as_u64(), "{r}");
        }
    }
    let (ok, out, _) = encint(&["cost", "--json", "--budget", "25"]);
    assert!(ok);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert!(rows.iter().all(|r| r["qweight"].as_u64().unwrap() <= 25));
}

#[test]
fn chain_statistic_beats_parmesan() {
    let (ok, out, err) = encint(&["chains", "--stats", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // Paper bound (Klemsa and Önen, Parmesan, Appendix B: their average is 3.10).
    assert!(v["average"].as_f64().unwrap() <= 3.10, "{v}");
    // Exact figures of README.md ("1552 distinct windows, 4720 additions, average 3.04").
    assert!(
        readme().contains("1552 distinct windows, 4720 additions, average 3.04"),
        "README.md no longer states the chain statistic this test pins"
    );
    assert_eq!(v["windows"].as_u64(), Some(1552), "{v}");
    assert_eq!(v["total"].as_u64(), Some(4720), "{v}");
    assert_eq!(format!("{:.2}", v["average"].as_f64().unwrap()), "3.04");
}

fn readme() -> String {
    std::fs::read_to_string(format!("{}/../../README.md", env!("CARGO_MANIFEST_DIR")))
        .expect("README.md")
}

/// One row of the README's cost table: op, bits, scalar argument, bootstraps, depth,
/// Parmesan's bootstraps and depth.
type Row = (&'static str, u64, Option<i64>, u64, u64, u64, u64);

/// Bootstraps and depth per width (one value: every width).
type Counts = (&'static [u64], &'static [u64]);

/// One line of README.md's "Cost of the operations" table (Parmesan's forms): operations,
/// widths, scalar arguments, our counts, and Parmesan's where they differ from ours. Each is
/// one line quoted in `README_LINES` below.
type Line = (
    &'static [&'static str],
    &'static [u64],
    &'static [Option<i64>],
    Counts,
    Option<Counts>,
);

const W: &[u64] = &[4, 8, 16, 32];
const SQU_PARMESAN: Counts = (&[24, 122, 488, 1837], &[5, 11, 19, 27]);

const README_TABLE: &[Line] = &[
    (&["add", "sub"], W, &[None], (&[8, 16, 32, 64], &[2]), None),
    (
        &["scalar_mul"],
        &[16],
        &[Some(4095), Some(4097)],
        (&[32], &[2]),
        None,
    ),
    (&["scalar_mul"], &[16], &[Some(4096)], (&[0], &[0]), None),
    (
        &["scalar_mul"],
        &[16],
        &[Some(805), Some(3195)],
        (&[108], &[6]),
        Some((&[114], &[6])),
    ),
    (
        &["mul"],
        W,
        &[None],
        (&[27, 74, 216, 707], &[7, 13, 24, 55]),
        Some((&[40, 176, 725, 2617], &[7, 15, 23, 41])),
    ),
    (
        &["squ"],
        W,
        &[None],
        (&[17, 53, 158, 529], &[6, 12, 22, 51]),
        Some(SQU_PARMESAN),
    ),
    (&["sgn"], &[32], &[None], (&[11], &[3]), None),
    (
        &["max"],
        &[32],
        &[None],
        (&[48], &[17]),
        Some((&[109], &[6])),
    ),
    (&["round"], &[32], &[Some(5)], (&[56], &[4]), None),
];

/// The rows of `README_TABLE`, in `encint cost`'s order.
fn readme_rows() -> Vec<Row> {
    let at = |v: &[u64], i: usize| v[i.min(v.len() - 1)];
    let mut rows = Vec::new();
    for &(ops, widths, args, ours, parmesan) in README_TABLE {
        let (pbs, depth) = ours;
        let (ppbs, pdepth) = parmesan.unwrap_or(ours);
        for &op in ops {
            for &arg in args {
                for (i, &bits) in widths.iter().enumerate() {
                    rows.push((
                        op,
                        bits,
                        arg,
                        at(pbs, i),
                        at(depth, i),
                        at(ppbs, i),
                        at(pdepth, i),
                    ));
                }
            }
        }
    }
    rows
}

/// The README lines `README_TABLE` transcribes (the test fails if one is edited without it).
const README_LINES: &[&str] = &[
    "| add, sub | 4, 8, 16, 32 | 8, 16, 32, 64 / 2 | same |",
    "| scalar_mul x4095, x4097 | 16 | 32 / 2 | 32 / 2 |",
    "| scalar_mul x4096 | 16 | 0 / 0 | 0 / 0 |",
    "| scalar_mul x805, x3195 | 16 | **108** / 6 | 114 / 6 |",
    "| mul | 4, 8, 16, 32 | **27, 74, 216, 707** / 7, **13**, 24, 55 | 40, 176, 725, 2617 / 7, 15, 23, 41 |",
    "| squ | 4, 8, 16, 32 | **17, 53, 158, 529** / 6, 12, 22, 51 | 24, 122, 488, 1837 / 5, 11, 19, 27 |",
    "| sgn | 32 | 11 / 3 | 11 / 3 |",
    "| max | 32 | **48** / 17 | 109 / 6 |",
    "| round at 5 | 32 | 56 / 4 | 56 / 4 |",
    // The budget forms and the weights of Parmesan's forms:
    "sgn 15 / 3, max 80 / 18, round 58 / 5 (all other rows unchanged, weight <= 25).",
    "have LUT inputs of quadratic",
    "weight 85 (signum's first level)",
];

fn check_row(r: &serde_json::Value, want: &Row, pbs: u64, depth: u64) {
    let (op, bits, arg, _, _, ppbs, pdepth) = *want;
    assert_eq!(r["op"].as_str(), Some(op), "{r}");
    assert_eq!(r["bits"].as_u64(), Some(bits), "{r}");
    assert_eq!(r["arg"].as_i64(), arg, "{r}");
    assert_eq!(
        (r["pbs"].as_u64(), r["depth"].as_u64()),
        (Some(pbs), Some(depth)),
        "{r}"
    );
    assert_eq!(
        (r["parmesan_pbs"].as_u64(), r["parmesan_depth"].as_u64()),
        (Some(ppbs), Some(pdepth)),
        "{r}"
    );
}

/// Pins every row of README.md's cost table ("Cost of the operations") and the budget
/// forms stated below it ("sgn 15 / 3, max 80 / 18, round 58 / 5 ... weight <= 25").
#[test]
fn cost_rows_match_the_readme_exactly() {
    let text = readme();
    for line in README_LINES {
        assert!(text.contains(line), "README.md no longer contains: {line}");
    }
    let readme_rows = readme_rows();
    assert_eq!(readme_rows.len(), 24);
    let rows = cost_rows(&["cost", "--json"]);
    assert_eq!(rows.len(), readme_rows.len());
    for (r, want) in rows.iter().zip(&readme_rows) {
        check_row(r, want, want.3, want.4);
        // Parmesan's forms: signum and rounding at weight 85, the maximum's selector at
        // 41, the rest within the parameters' 25.
        let q = r["qweight"].as_u64().unwrap();
        if matches!(want.0, "sgn" | "round") {
            assert_eq!(q, 85, "{r}");
        } else if want.0 == "max" {
            assert_eq!(q, 41, "{r}");
        } else {
            assert!(q <= 25, "{r}");
        }
    }
    let budget = cost_rows(&["cost", "--json", "--budget", "25"]);
    assert_eq!(budget.len(), readme_rows.len());
    for (r, want) in budget.iter().zip(&readme_rows) {
        let (pbs, depth) = match want.0 {
            "sgn" => (15, 3),
            "max" => (80, 18),
            "round" => (58, 5),
            _ => (want.3, want.4),
        };
        check_row(r, want, pbs, depth);
        assert!(r["qweight"].as_u64().unwrap() <= 25, "{r}");
    }
}

#[test]
fn clear_demo_checks_itself_and_errors_are_reported() {
    let (ok, out, err) = encint(&["demo", "--clear", "--seed", "5"]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("all results match"));
    // The typed rows (compiled functions on the clear executor), each checked by the demo
    // against i16 arithmetic: seven rows, no mismatch.
    assert!(out.contains("all typed results match"), "{out}");
    assert_eq!(out.matches(" ok").count(), 15, "{out}");
    let (ok, _, err) = encint(&[
        "decrypt",
        "--key",
        "/nonexistent/client.key",
        "--in",
        "x.ct",
    ]);
    assert!(!ok);
    assert!(err.contains("cannot read"), "{err}");
    let (ok, _, err) = encint(&["chains", "--show", "4"]);
    assert!(!ok && err.contains("odd"), "{err}");
}

/// `demo --json` on the clear executor: every row's decrypted value against plain
/// arithmetic computed here (exact rows in i128, typed rows as Rust's wrapping i16).
#[test]
fn clear_demo_json_rows_match_plain_arithmetic() {
    let (ok, out, err) = encint(&["demo", "--clear", "--seed", "7", "--json"]);
    assert!(ok, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["seed"], 7);
    assert_eq!(v["executor"], "clear");
    assert_eq!(v["ok"], true);
    let x = v["x"].as_i64().unwrap() as i128;
    let y = v["y"].as_i64().unwrap() as i128;
    let (p, q) = (x as i16, y as i16);
    let exact = |name: &str| -> i128 {
        match name {
            "x + y" => x + y,
            "x - y" => x - y,
            "x * y" => x * y,
            "805 * x" => 805 * x,
            "x^2" => x * x,
            "max(x, y)" => x.max(y),
            "sgn(x)" => x.signum(),
            "round(x, 5)" => (x + 16).div_euclid(32) * 32,
            other => panic!("unexpected exact row {other}"),
        }
    };
    let typed = |name: &str| -> i16 {
        match name {
            "x + y" => p.wrapping_add(q),
            "x * y" => p.wrapping_mul(q),
            "x / 7" => p / 7,
            "x < y" => i16::from(p < q),
            "x >> 3" => p >> 3,
            "[x,y,x,y].[y,y,x,x]" => p
                .wrapping_mul(q)
                .wrapping_add(q.wrapping_mul(q))
                .wrapping_add(p.wrapping_mul(p))
                .wrapping_add(q.wrapping_mul(p)),
            "x*x + 3y + 7" => p
                .wrapping_mul(p)
                .wrapping_add(q.wrapping_mul(3))
                .wrapping_add(7),
            other => panic!("unexpected typed row {other}"),
        }
    };
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 15, "{v}");
    for r in rows {
        let name = r["operation"].as_str().unwrap();
        let want = match r["section"].as_str().unwrap() {
            "exact" => exact(name),
            "typed" => i128::from(typed(name)),
            other => panic!("section {other}"),
        };
        assert_eq!(r["decrypted"].as_i64().unwrap() as i128, want, "{r}");
        assert_eq!(r["ok"], true, "{r}");
        assert!(r["ms"].is_null(), "no time on the clear executor: {r}");
        assert!(r["depth"].as_u64().is_some(), "{r}");
    }
    let sections: Vec<&str> = rows
        .iter()
        .map(|r| r["section"].as_str().unwrap())
        .collect();
    assert_eq!(sections.iter().filter(|&&s| s == "exact").count(), 8);
}

#[test]
fn asm_run_clear_sorts_and_reports_cost() {
    let f = example("bubble_sort.asm");
    let (ok, out, err) = encint(&["asm", "run", &f, "--clear", "--input", "a=9,3,200,0,17"]);
    assert!(ok, "{err}");
    let got: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("out a["))
        .map(|l| {
            l.split('=')
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(got, ["0", "3", "9", "17", "200"], "{out}");
    assert!(out.contains("blind rotations"), "{out}");
}

/// `asm run --clear --json`: random bytes in, the outputs against Rust's sort of the
/// inputs the report gives, the cost as numbers.
#[test]
fn asm_run_clear_json_sorts() {
    let f = example("bubble_sort.asm");
    let (ok, out, err) = encint(&["asm", "run", &f, "--clear", "--seed", "11", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["executor"], "clear");
    let byte = |x: &serde_json::Value| x["byte"].as_u64().expect("a byte") as u8;
    let inputs = v["inputs"].as_object().unwrap();
    let mut want: Vec<u8> = inputs
        .iter()
        .filter(|(k, _)| k.starts_with("a["))
        .map(|(_, x)| byte(x))
        .collect();
    assert!(!want.is_empty(), "{v}");
    want.sort_unstable();
    let outputs = v["outputs"].as_object().unwrap();
    let got: Vec<u8> = (0..want.len())
        .map(|i| byte(&outputs[&format!("a[{i}]")]))
        .collect();
    assert_eq!(got, want, "{v}");
    assert!(v["cost"]["blind_rotations"].as_u64().unwrap() > 0, "{v}");
}

#[test]
fn asm_errors_are_typed_with_positions() {
    let dir = std::env::temp_dir().join(format!("encint-asm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.asm");
    std::fs::write(&bad, "input a\nx = ADD a\n").unwrap();
    let (ok, _, err) = encint(&["asm", "run", bad.to_str().unwrap(), "--clear"]);
    assert!(!ok);
    assert!(err.contains("line 2, column 5"), "{err}");
    let f = example("array_max.asm");
    for arg in ["a=1,2", "b=3", "a=1,2,3,4,999"] {
        let (ok, _, err) = encint(&["asm", "run", &f, "--clear", "--input", arg]);
        assert!(!ok && err.starts_with("error:"), "{arg}: {err}");
    }
    let (ok, _, _) = encint(&["asm", "run", "/nonexistent.asm", "--clear"]);
    assert!(!ok);
    // README.md and docs/ISA.md: "89 instructions" / "`encint asm list` prints all 89".
    let (ok, out, _) = encint(&["asm", "list"]);
    assert!(ok);
    assert_eq!(out.lines().count(), 89, "{out}");
    // The same rows as JSON: one object per instruction, the table's mnemonics in order.
    let (ok, json, _) = encint(&["asm", "list", "--json"]);
    assert!(ok);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    let names: Vec<&str> = out
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    let json_names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(json_names, names);
}

#[test]
fn asm_over_files_keygen_encrypt_run_decrypt() {
    // Client and server steps as separate processes, keys and links through files; the
    // result must be the plain maximum.
    let dir = std::env::temp_dir().join(format!("encint-asm-files-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let keys = dir.join("keys");
    let (k, s) = (keys.to_str().unwrap(), dir.to_str().unwrap());
    let f = example("array_max.asm");
    let client = keys_in(&keys, true);
    let client = client.to_str().unwrap();
    let (input, output) = (format!("{s}/in.ct"), format!("{s}/out.ct"));
    asm_encrypt(&f, client, "a=9,3,200,0,17", &input);
    let run = |keys_dir: &str| {
        encint(&[
            "asm",
            "run",
            &f,
            "--server-key",
            keys_dir,
            "--in",
            &input,
            "--out",
            &output,
            "--threads",
            "2",
        ])
    };
    let (ok, _, err) = run(k);
    assert!(ok, "{err}");
    let (ok, out, err) = encint(&["asm", "decrypt", &f, "--key", client, "--in", &output]);
    assert!(ok, "{err}");
    assert!(out.contains("out m = 200"), "{out}");
    // The uplink is not a result, and a run without keys is refused.
    let (ok, _, err) = encint(&["asm", "decrypt", &f, "--key", client, "--in", &input]);
    assert!(!ok && err.contains("encrypted inputs"), "{err}");
    let (ok, _, _) = run(s);
    assert!(!ok);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The workloads' costs at 2 threads (`encint cost --workloads --threads 2`: bootstraps,
/// depth and estimated rounds of the circuit traced operation by operation and of the one
/// kept) equal, figure for figure, both tables of docs/BENCHMARKS.md that state them (the
/// programs' table, and the bootstraps and depth beside the measured times); the
/// rewriting gains on `horner_u16` by those figures.
#[test]
fn workload_costs_equal_the_documented_tables() {
    let (ok, out, err) = encint(&["cost", "--workloads", "--json", "--threads", "2"]);
    assert!(ok, "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).expect("JSON array");
    let n = |r: &serde_json::Value, k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{k} in {r}"));
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["workload"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("no workload {name} in {out}"))
    };
    let rewriting = doc_table(
        "docs/BENCHMARKS.md",
        "each compiled for 2 threads",
        &[
            "workload",
            "program",
            "pbs before",
            "depth before",
            "rounds before",
            "pbs after",
            "depth after",
            "rounds after",
        ],
    );
    assert_eq!(rewriting.len(), rows.len(), "{out}");
    let keys = [
        "pbs_before",
        "depth_before",
        "rounds_before",
        "pbs_after",
        "depth_after",
        "rounds_after",
    ];
    for doc in &rewriting {
        let r = row(&doc[0]);
        for (k, cell) in keys.iter().zip(&doc[2..]) {
            assert_eq!(
                n(r, k).to_string(),
                *cell,
                "{k} of {}: docs/BENCHMARKS.md",
                doc[0]
            );
        }
    }
    let timed = doc_table(
        "docs/BENCHMARKS.md",
        "the arguments encrypted in the default form",
        &[
            "workload",
            "ours ms (2 thr)",
            "TFHE-rs ms (2 thr)",
            "ours / TFHE-rs (2 thr)",
            "ours ms (1 thr)",
            "TFHE-rs ms (1 thr)",
            "ours / TFHE-rs (1 thr)",
            "our pbs",
            "our depth",
        ],
    );
    assert_eq!(timed.len(), rows.len());
    for doc in &timed {
        let r = row(&doc[0]);
        assert_eq!(n(r, "pbs_after").to_string(), doc[7], "{}", doc[0]);
        assert_eq!(n(r, "depth_after").to_string(), doc[8], "{}", doc[0]);
    }
    let horner = row("horner_u16");
    assert!(n(horner, "pbs_after") < n(horner, "pbs_before"), "{horner}");
    let (ok, _, err) = encint(&["cost", "--workloads", "sum16_u16,nope"]);
    assert!(!ok && err.contains("nope"), "{err}");
}

/// The rows `encint cost --threads 2 --json` (with `extra` flags) prints, by operation,
/// type and form.
fn planner_rows(extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["cost", "--threads", "2", "--json"];
    args.extend_from_slice(extra);
    cost_rows(&args)
}

/// The figures of one planner row, as the docs write them: `pbs/depth` or
/// `pbs/depth/rounds`.
fn figures(r: &serde_json::Value, with_rounds: bool) -> String {
    let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{k} in {r}"));
    if with_rounds {
        format!("{}/{}/{}", n("pbs"), n("depth"), n("rounds"))
    } else {
        format!("{}/{}", n("pbs"), n("depth"))
    }
}

/// The typed table of docs/BENCHMARKS.md states, for every operation at 8 to 64 bits of
/// both signs, the bootstraps and depth of the circuit the planner chooses for operands as
/// `encrypt` gives them at 2 threads, and TFHE-rs' counts: each figure equals the row of
/// `encint cost --threads 2 --radix4 --json`, and every operation that command prints is
/// in the table.
#[test]
fn typed_costs_equal_the_documented_table() {
    let rows = planner_rows(&["--radix4"]);
    let chosen = |op: &str, ty: &str| {
        let found: Vec<_> = rows
            .iter()
            .filter(|r| r["chosen"] == true && r["op"] == op && r["type"] == ty)
            .collect();
        assert_eq!(found.len(), 1, "{op} {ty}: {found:?}");
        found[0]
    };
    let table = doc_table(
        "docs/BENCHMARKS.md",
        "Operands as `encrypt` gives them",
        &[
            "op",
            "pbs / depth, u8 u16 u32 u64",
            "pbs / depth, i8 i16 i32 i64",
            "TFHE-rs pbs, 8 16 32",
            "ours / TFHE-rs, u8 i8 u16 i16 u32 i32 u64 i64",
            "measured",
        ],
    );
    let mut ops: Vec<&str> = rows.iter().map(|r| r["op"].as_str().unwrap()).collect();
    ops.sort_unstable();
    ops.dedup();
    let mut documented: Vec<&str> = table.iter().map(|row| row[0].as_str()).collect();
    documented.sort_unstable();
    assert_eq!(documented, ops, "operations of the typed table");
    for row in &table {
        let op = row[0].as_str();
        let signed = if row[2] == "the same" {
            &row[1]
        } else {
            &row[2]
        };
        for (sign, cells) in [("u", &row[1]), ("i", signed)] {
            let cells: Vec<&str> = cells.split_whitespace().collect();
            assert_eq!(cells.len(), 4, "{op}: {cells:?}");
            for (bits, cell) in [8, 16, 32, 64].iter().zip(cells) {
                let ty = format!("{sign}{bits}");
                assert_eq!(figures(chosen(op, &ty), false), cell, "{op} {ty}");
            }
        }
        // TFHE-rs' count is given on one sign's row of each width.
        let peer = |bits: u32| {
            rows.iter()
                .filter(|r| r["op"] == op && r["chosen"] == true)
                .filter(|r| r["type"] == format!("u{bits}") || r["type"] == format!("i{bits}"))
                .find_map(|r| r["tfhe_rs_pbs"].as_u64())
        };
        if row[3] == "–" {
            assert_eq!(peer(8), None, "{op}: TFHE-rs' count is not in the table");
        } else {
            let cells: Vec<&str> = row[3].split_whitespace().collect();
            assert_eq!(cells.len(), 3, "{op}: {cells:?}");
            for (bits, cell) in [8, 16, 32].into_iter().zip(cells) {
                assert_eq!(
                    peer(bits).map(|p| p.to_string()).as_deref(),
                    Some(cell),
                    "{op} {bits}: TFHE-rs"
                );
            }
        }
    }
}

/// The canonical-bits table of docs/CIRCUITS.md states, at 2 threads, the chosen circuit
/// and the other one of each operation (bootstraps / depth / rounds at 8 to 64 bits):
/// each equals the row of `encint cost --threads 2 --json`, chosen or not as it says.
#[test]
fn canonical_costs_equal_the_documented_table() {
    let rows = planner_rows(&[]);
    let table = doc_table(
        "docs/CIRCUITS.md",
        "### On canonical bits",
        &[
            "op",
            "chosen at 2 threads, 8 16 32 64 bits",
            "the other circuit",
        ],
    );
    for row in &table {
        let (names, sign) = match row[0].rsplit_once(", ") {
            Some((names, "signed")) => (names, "i"),
            Some((names, "unsigned")) => (names, "u"),
            _ => (row[0].as_str(), "u"),
        };
        for op in names.split(", ") {
            for (cell, chosen) in [(&row[1], true), (&row[2], false)] {
                let (form, cells) = cell.split_once(": ").expect("form: figures");
                let cells: Vec<&str> = cells.split_whitespace().collect();
                assert_eq!(cells.len(), 4, "{op}: {cells:?}");
                for (bits, want) in [8, 16, 32, 64].iter().zip(cells) {
                    let ty = format!("{sign}{bits}");
                    let r = rows
                        .iter()
                        .find(|r| r["op"] == op && r["type"] == ty.as_str() && r["form"] == form)
                        .unwrap_or_else(|| panic!("no {form} row for {op} {ty}"));
                    assert_eq!(r["chosen"], chosen, "{op} {ty} {form}: chosen");
                    assert_eq!(figures(r, true), want, "{op} {ty} {form}");
                }
            }
        }
    }
}

/// `cost --machine`: each row's milliseconds follow the profile's model from the row's own
/// figures (on `cpu:2` its rounds at 2 threads times one bootstrap of 11.5 ms; on the H100
/// its depth times the level latency of 5.0 ms plus its bootstraps at 25,000 per second),
/// the rows themselves those of the table without a machine, and a profile not known a
/// usage error naming the ones that are.
#[test]
fn cost_machine_rows_follow_the_profile() {
    let rows = |machine: &str| planner_rows(&["--radix4", "--bits", "8,16", "--machine", machine]);
    let plain = planner_rows(&["--radix4", "--bits", "8,16"]);
    let close = |got: &serde_json::Value, want: f64| {
        let got = got.as_f64().unwrap_or_else(|| panic!("ms {got}"));
        (got - want).abs() <= 1e-6 * want.max(1.0)
    };
    fn n(r: &serde_json::Value, k: &str) -> f64 {
        r[k].as_f64().unwrap_or_else(|| panic!("{k} in {r}"))
    }
    let cpu2: fn(&serde_json::Value) -> f64 = |r| n(r, "rounds") * 11.5;
    let h100: fn(&serde_json::Value) -> f64 = |r| n(r, "depth") * 5.0 + n(r, "pbs") * 0.04;
    // The rows of one operation and type: (form, chosen, row).
    type Group<'a> = Vec<(String, bool, &'a serde_json::Value)>;
    fn groups(rows: &[serde_json::Value]) -> std::collections::BTreeMap<String, Group<'_>> {
        let mut g: std::collections::BTreeMap<String, Group<'_>> = Default::default();
        for r in rows {
            let form = r["form"].as_str().unwrap_or_default();
            let key = format!("{} {}", r["op"], r["type"]);
            let row = (form.to_string(), r["chosen"].as_bool() == Some(true), r);
            g.entry(key).or_default().push(row);
        }
        g
    }
    let plain_groups = groups(&plain);
    let mut moved = 0;
    for (machine, want) in [("cpu:2", cpu2), ("h100", h100)] {
        let got = rows(machine);
        assert_eq!(got.len(), plain.len(), "{machine}");
        assert!(got.len() >= 40, "{machine}: {} rows", got.len());
        for r in &got {
            assert_eq!(r["machine"], machine, "{r}");
            assert!(close(&r["ms"], want(r)), "{machine}: {r}");
        }
        for (key, rows) in groups(&got) {
            let before = &plain_groups[&key];
            assert_eq!(rows.len(), before.len(), "{machine} {key}");
            // On the CPU the same circuits as without the profile, in the machine's order;
            // on the GPU circuits planned for its level latency, never estimated slower
            // there than those.
            for (form, _, r) in &rows {
                let (_, _, p) = before.iter().find(|(f, _, _)| f == form).unwrap();
                if machine == "cpu:2" {
                    for k in ["pbs", "depth", "rounds"] {
                        assert_eq!(r[k], p[k], "{machine}: {k} in {r} against {p}");
                    }
                } else {
                    assert!(n(r, "ms") <= want(p) + 1e-6, "{machine}: {r} against {p}");
                }
            }
            // The chosen row first, and none faster on the machine.
            assert!(
                rows[0].1 && rows.iter().filter(|r| r.1).count() == 1,
                "{machine} {key}: {rows:?}"
            );
            let best = n(rows[0].2, "ms");
            assert!(rows.iter().all(|r| n(r.2, "ms") >= best), "{machine} {key}");
            // On 2 threads the choice is the rounds order's.
            let chosen_before = before.iter().find(|r| r.1).unwrap();
            if machine == "cpu:2" {
                assert_eq!(rows[0].0, chosen_before.0, "{key}");
            } else if rows[0].0 != chosen_before.0 {
                moved += 1;
            }
        }
    }
    // The GPU's latency per level moves some choices to shallower circuits.
    assert!(moved > 0);
    // Without --threads, a GPU profile plans for its 125 lanes.
    let gpu = cost_rows(&["cost", "--machine", "h200", "--bits", "8", "--json"]);
    assert!(gpu
        .iter()
        .all(|r| r["threads"] == 125 && r["machine"] == "h200"));
    let (ok, _, err) = encint(&["cost", "--threads", "2", "--machine", "tpu"]);
    assert!(!ok);
    assert!(err.contains("cpu:N") && err.contains("h100"), "{err}");
}

#[test]
fn cost_workloads_on_a_machine_profile() {
    let names = "sum16_u16,horner_u16";
    let plain = cost_rows(&["cost", "--workloads", names, "--json"]);
    let two = cost_rows(&["cost", "--workloads", names, "--machine", "cpu:2", "--json"]);
    let gpu = cost_rows(&["cost", "--workloads", names, "--machine", "h100", "--json"]);
    assert_eq!(plain.len(), 2);
    let n = |r: &serde_json::Value, k: &str| r[k].as_f64().unwrap_or_else(|| panic!("{k} in {r}"));
    for (p, r) in plain.iter().zip(&two) {
        // The same circuits as the 2-thread default, timed at 11.5 ms per round.
        for k in [
            "workload",
            "pbs_after",
            "depth_after",
            "rounds_after",
            "threads",
        ] {
            assert_eq!(p[k], r[k], "{k}: {p} against {r}");
        }
        let want = n(r, "rounds_after") * 11.5;
        assert!((n(r, "ms_after") - want).abs() < 1e-6 * want, "{r}");
    }
    for r in &gpu {
        // Planned for the card's 125 lanes: 5 ms per level, 0.04 ms per bootstrap.
        assert_eq!(r["machine"], "h100");
        assert_eq!(r["threads"], 125);
        let want = n(r, "depth_after") * 5.0 + n(r, "pbs_after") * 0.04;
        assert!((n(r, "ms_after") - want).abs() < 1e-6 * want, "{r}");
    }
}
