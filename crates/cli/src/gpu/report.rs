//! The output of `encint gpu ...`: aligned text as the command goes, or with `--json` one
//! JSON object at the end (its fields, and the table's rows under `rows`).

use serde_json::{Map, Value};

use crate::CliResult;

/// Lines and rows of one command's output.
pub struct Report {
    json: bool,
    fields: Map<String, Value>,
    rows: Vec<Value>,
}

impl Report {
    /// An empty report: text (`json == false`) or one JSON object.
    pub fn new(json: bool) -> Report {
        Report {
            json,
            fields: Map::new(),
            rows: Vec::new(),
        }
    }

    /// A line of text (nothing with `--json`).
    pub fn line(&self, text: impl std::fmt::Display) {
        if !self.json {
            println!("{text}");
        }
    }

    /// A field of the JSON object (nothing in text).
    pub fn field(&mut self, key: &str, value: impl Into<Value>) {
        self.fields.insert(key.into(), value.into());
    }

    /// One row of the table: `text` as its line, or `row` among the JSON object's `rows`.
    pub fn row(&mut self, row: Value, text: impl FnOnce() -> String) {
        if self.json {
            self.rows.push(row);
        } else {
            println!("{}", text());
        }
    }

    /// The JSON object: the fields, and the rows under `rows` when there are some.
    fn object(mut self) -> Value {
        if !self.rows.is_empty() {
            self.fields.insert("rows".into(), Value::Array(self.rows));
        }
        Value::Object(self.fields)
    }

    /// Prints the JSON object (with `--json`; nothing in text).
    pub fn finish(self) -> CliResult {
        if self.json {
            crate::timing::print_json(&self.object())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_holds_the_fields_and_the_rows_in_order() {
        let mut r = Report::new(true);
        r.field("runs", 5);
        let mut printed = false;
        r.row(serde_json::json!({"op": "add", "bits": 8}), || {
            printed = true;
            String::new()
        });
        r.row(serde_json::json!({"op": "mul", "bits": 8}), String::new);
        assert!(!printed, "no text with --json");
        let v = r.object();
        assert_eq!(v["runs"], 5);
        assert_eq!(v["rows"][0]["op"], "add");
        assert_eq!(v["rows"][1]["op"], "mul");
        assert_eq!(v["rows"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn text_prints_rows_and_keeps_none() {
        let mut r = Report::new(false);
        r.field("width", 8);
        let mut printed = 0;
        r.row(serde_json::json!({"op": "add"}), || {
            printed += 1;
            "add".into()
        });
        assert_eq!(printed, 1);
        let v = r.object();
        assert_eq!(v["width"], 8);
        assert!(v.get("rows").is_none(), "{v}");
    }
}
