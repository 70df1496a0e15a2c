//! Reading the cost figures that the docs state, so that tests pin the docs' own lines.
#![allow(dead_code)] // each test file uses a part

use encint_core::circuit::Builder;
use encint_isa::Byte;

/// The rows of the first Markdown table after the line containing `heading` in
/// `docs/<file>`: the first cell (instruction, with an optional `(immediate)`) and the
/// numbers of the second cell, in order (`3 / 0 (7 / 4)` gives `[3, 0, 7, 4]`).
pub fn doc_table(file: &str, heading: &str) -> Vec<(String, Vec<u64>)> {
    let path = format!("{}/../../docs/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let start = text
        .find(heading)
        .unwrap_or_else(|| panic!("docs/{file} has no line `{heading}`"));
    let rows: Vec<(String, Vec<u64>)> = text[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // header and separator
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let nums = cells[2]
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
            (cells[1].to_string(), nums)
        })
        .collect();
    assert!(
        !rows.is_empty(),
        "docs/{file}: empty table after `{heading}`"
    );
    rows
}

/// Splits `NAME(imm)` into the mnemonic and the immediate.
pub fn name_and_imm(cell: &str) -> (&str, Option<i64>) {
    match cell.split_once('(') {
        Some((n, rest)) => (n, Some(rest.trim_end_matches(')').parse().unwrap())),
        None => (cell, None),
    }
}

/// The default parameter set's noise budget (the circuits are built for it).
pub fn budget() -> u64 {
    encint_tfhe::DEFAULT_PARAMETERS.max_quadratic_weight()
}

/// An encrypted byte of two fresh input nibbles, each of quadratic weight `q`.
pub fn input_byte(b: &mut Builder, q: u64) -> Byte {
    let hi = b.input_with_qweight(q);
    let lo = b.input_with_qweight(q);
    Byte { hi, lo }
}
