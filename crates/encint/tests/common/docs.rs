//! Reading the documentation's tables from tests, so that a figure a page states and the
//! code's figure are compared, and a page and its test change together.

/// The rows of the first Markdown table of `file` (relative to the workspace root) after
/// the text `after` whose header row is exactly `header` (cells as written, without the
/// bars): each row's cells, trimmed, backquotes removed. Panics when the file has no such
/// table, so that a doc and the test reading it change together.
pub fn doc_table(file: &str, after: &str, header: &[&str]) -> Vec<Vec<String>> {
    let path = format!("{}/../../{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let from = text
        .find(after)
        .unwrap_or_else(|| panic!("{file} no longer says {after:?}"));
    let text = &text[from..];
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().replace('`', ""))
            .collect()
    };
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with('|') && cells(line) == header {
            let rows: Vec<Vec<String>> = lines
                .skip(1)
                .take_while(|l| l.trim_start().starts_with('|'))
                .map(cells)
                .collect();
            assert!(!rows.is_empty(), "{file}: the table {header:?} has no rows");
            return rows;
        }
    }
    panic!("{file} has no table with the header {header:?} after {after:?}");
}
