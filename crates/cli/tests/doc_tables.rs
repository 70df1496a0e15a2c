//! The bootstrap counts docs/BENCHMARKS.md states beside its timings, each against the
//! command that computes it without keys: the exact integers' (`encint cost --budget 25`),
//! the boolean circuits' (`encint bits cost`) and the byte processor's programs (`encint asm
//! run --clear`).

mod common;
use common::{cost_rows, doc_table, encint, example};

/// The exact integers' table of docs/BENCHMARKS.md states today's bootstraps and depth of
/// each operation within the parameters' weight (`encint cost --budget 25`) and Parmesan's
/// (its Table 5, as `encint cost` prints it): each figure equals the row of `encint cost
/// --budget 25 --json`, width by width.
#[test]
fn exact_costs_equal_the_documented_table() {
    let rows = cost_rows(&["cost", "--json", "--budget", "25"]);
    let table = doc_table(
        "docs/BENCHMARKS.md",
        "Parmesan: its paper's Table 5",
        &[
            "op",
            "ours / TFHE-rs, 2 threads, 8 16 32 bits",
            "1 thread, 8 16 bits",
            "bootstraps when timed, 8 16 32",
            "today: pbs / depth",
            "Parmesan: pbs / depth",
        ],
    );
    // The row's operation and clear arguments, from its label ("mul (exact, 2n bits)",
    // "scalar_mul(805); (3195)", "round(5)"); `None` for a row `encint cost` has no row of.
    let parse = |label: &str| -> Option<(String, Vec<Option<i64>>)> {
        let name = label.split([' ', '(']).next().unwrap().to_string();
        if name == "mul_low" {
            return None;
        }
        let args: Vec<Option<i64>> = label
            .split('(')
            .skip(1)
            .filter_map(|a| a.split(')').next()?.parse().ok())
            .map(Some)
            .collect();
        Some((name, if args.is_empty() { vec![None] } else { args }))
    };
    let figures_of = |op: &str, arg: Option<i64>, bits: u64, parmesan: bool| {
        let r = rows
            .iter()
            .find(|r| r["op"] == op && r["arg"].as_i64() == arg && r["bits"] == bits)
            .unwrap_or_else(|| panic!("no row {op} {arg:?} {bits}"));
        let (p, d) = if parmesan {
            ("parmesan_pbs", "parmesan_depth")
        } else {
            ("pbs", "depth")
        };
        format!("{}/{}", r[p].as_u64().unwrap(), r[d].as_u64().unwrap())
    };
    // A cell: `a/b c/d e/f` at 8, 16 and 32 bits, or `N bits: a/b` (one figure a clear
    // argument, `;`-separated where the row has two arguments of the same figures).
    let check = |op: &str, args: &[Option<i64>], cell: &str, parmesan: bool| {
        if let Some((bits, figure)) = cell.split_once(" bits: ") {
            let bits: u64 = bits.parse().unwrap();
            for &arg in args {
                assert_eq!(figures_of(op, arg, bits, parmesan), figure, "{op} {arg:?}");
            }
        } else {
            let cells: Vec<&str> = cell.split_whitespace().collect();
            assert_eq!(cells.len(), 3, "{op}: {cell}");
            for (bits, figure) in [8, 16, 32].into_iter().zip(cells) {
                assert_eq!(
                    figures_of(op, args[0], bits, parmesan),
                    figure,
                    "{op} {bits}"
                );
            }
        }
    };
    let mut checked = 0;
    for row in &table {
        let Some((op, args)) = parse(&row[0]) else {
            continue;
        };
        if row[4] == "no TFHE-rs equivalent" || row[4].is_empty() {
            continue;
        }
        check(&op, &args, &row[4], false);
        let parmesan = if row[5] == "the same" {
            &row[4]
        } else {
            &row[5]
        };
        check(&op, &args, parmesan, true);
        checked += 1;
    }
    // add, sub, mul, squ, scalar_mul (805 and 3195; 4095; 4097), sgn, max, round.
    assert_eq!(checked, 10, "rows checked of the exact table");
}

/// The boolean circuits' table of docs/BENCHMARKS.md states each row's bootstraps and
/// depth from `encint bits cost` (with what was timed, where that differs, beside it), and
/// its text the boolean and block products' and the divisions' bootstraps: each equals the
/// row of `encint bits cost --json`.
#[test]
fn bit_circuit_costs_equal_the_documented_table() {
    let (ok, out, err) = encint(&["bits", "cost", "--json"]);
    assert!(ok, "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).expect("JSON array");
    let row = |op: &str, bits: u64, n: u64| {
        rows.iter()
            .find(|r| r["op"] == op && r["bits"] == bits && r["n"] == n)
            .unwrap_or_else(|| panic!("no row {op} {bits} {n} in {out}"))
    };
    let count = |r: &serde_json::Value, k: &str| r[k].as_u64().unwrap();
    let table = doc_table(
        "docs/BENCHMARKS.md",
        "counts from `encint bits cost`",
        &[
            "op",
            "bits",
            "n",
            "ours ms",
            "TFHE-rs ms",
            "ratio",
            "paper ms (64 thr)",
            "ours / paper",
            "pbs / depth",
        ],
    );
    for doc in &table {
        let r = row(&doc[0], doc[1].parse().unwrap(), doc[2].parse().unwrap());
        let today = doc[8].split(" (timed").next().unwrap();
        assert_eq!(
            format!("{} / {}", count(r, "pbs"), count(r, "depth")),
            today,
            "{} {} {}",
            doc[0],
            doc[1],
            doc[2]
        );
    }
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/BENCHMARKS.md"
    ))
    .unwrap();
    let joined = |k: &str, op: &str, widths: &[u64]| {
        widths
            .iter()
            .map(|&b| count(row(op, b, 1), k).to_string())
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let products = format!(
        "The boolean product alone costs {} bootstraps at 8 to 64 bits, against {} on blocks",
        joined("bool_pbs", "mul", &[8, 16, 32, 64]),
        joined("pbs", "mul", &[8, 16, 32, 64])
    );
    assert!(
        text.contains(&products),
        "docs/BENCHMARKS.md no longer says: {products}"
    );
    let division = format!("at {} bootstraps", joined("pbs", "div", &[8, 16, 32]));
    assert!(
        text.contains(&division),
        "docs/BENCHMARKS.md no longer says: {division}"
    );
}

/// The byte processor's programs table of docs/BENCHMARKS.md states each example program's
/// blind rotations and packing keyswitches (with what was timed beside them where the
/// circuit has changed since): each equals the cost `asm run --clear --json` reports for the
/// program (seed 7, as the benchmark ran them).
#[test]
fn program_costs_equal_the_documented_table() {
    let table = doc_table(
        "docs/BENCHMARKS.md",
        "Programs against the",
        &[
            "program",
            "BR / KS",
            "1 thread ms",
            "paper ms (Table 5)",
            "ratio",
            "2 threads ms",
        ],
    );
    assert_eq!(table.len(), 6, "the six example programs");
    for row in &table {
        let f = example(&format!("{}.asm", row[0]));
        let (ok, out, err) = encint(&["asm", "run", &f, "--clear", "--seed", "7", "--json"]);
        assert!(ok, "{}: {err}", row[0]);
        let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
        let n = |k: &str| {
            v["cost"][k]
                .as_u64()
                .unwrap_or_else(|| panic!("{k} in {v}"))
        };
        assert_eq!(
            format!("{} / {}", n("blind_rotations"), n("packing_keyswitches")),
            row[1].split(" (timed").next().unwrap(),
            "{}: docs/BENCHMARKS.md",
            row[0]
        );
    }
}
