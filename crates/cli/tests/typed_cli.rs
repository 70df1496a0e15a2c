//! `encint cost --threads N`: the planner's table for the typed operations.

mod common;
use common::encint;

#[test]
fn planner_table_chooses_the_fastest_form() {
    for threads in ["1", "2"] {
        let (ok, out, err) = encint(&["cost", "--threads", threads, "--bits", "8", "--json"]);
        assert!(ok, "{err}");
        let rows: Vec<serde_json::Value> = serde_json::from_str(&out).expect("JSON array");
        assert!(rows.len() > 60, "{} rows", rows.len());
        // Rows of one (op, type) are consecutive, the chosen one first with the fewest rounds.
        let mut i = 0;
        while i < rows.len() {
            let key = (&rows[i]["op"], &rows[i]["type"]);
            assert_eq!(rows[i]["chosen"], true, "{}", rows[i]);
            let best = rows[i]["rounds"].as_u64().unwrap();
            let mut j = i + 1;
            while j < rows.len() && (&rows[j]["op"], &rows[j]["type"]) == key {
                assert_eq!(rows[j]["chosen"], false);
                assert!(rows[j]["rounds"].as_u64().unwrap() >= best, "{}", rows[j]);
                j += 1;
            }
            assert!(rows[i]["qweight"].as_u64().unwrap() <= 25, "{}", rows[i]);
            i = j;
        }
        // The budgets (TFHE-rs 1.8.2 bootstraps at 8 bits, its pbs-stats counter) that
        // fresh operands meet.
        for (op, ty, tfhe_rs) in [
            ("div", "u8", 164),
            ("max", "i8", 18),
            ("ge", "i8", 6),
            ("scalar_mul(4095)", "i8", 20),
            ("scalar_mul(805)", "i8", 10),
        ] {
            let r = rows
                .iter()
                .find(|r| r["op"] == op && r["type"] == ty && r["chosen"] == true)
                .unwrap_or_else(|| panic!("no row {op} {ty}"));
            assert!(r["pbs"].as_u64().unwrap() <= tfhe_rs, "{r}");
        }
        // Division by a scalar: the reciprocal (magic number) circuit, listed beside the
        // general divider and chosen.
        for ty in ["u8", "i8"] {
            for op in ["div(7)", "rem(7)"] {
                let of = |form: &str| {
                    rows.iter()
                        .find(|r| r["op"] == op && r["type"] == ty && r["form"] == form)
                        .unwrap_or_else(|| panic!("no {form} row {op} {ty}"))
                };
                let (magic, bits) = (of("magic"), of("bits"));
                assert_eq!(magic["chosen"], true, "{magic}");
                assert!(
                    magic["pbs"].as_u64() < bits["pbs"].as_u64(),
                    "{magic} {bits}"
                );
            }
        }
    }
    let (ok, _, err) = encint(&["cost", "--threads", "0"]);
    assert!(!ok && err.contains("at least 1"), "{err}");
}
