//! `--ops`: the one flag that picks, by name, which of a command's rows (operations,
//! instructions, circuits) it runs.

use clap::Args;

/// The rows a command runs, by name; none given: every row.
#[derive(Args, Debug, Clone, Default)]
pub struct OpsArg {
    /// Rows to run, comma-separated names (listed in the command's description); default:
    /// all. `--only` is the former name.
    #[arg(
        long = "ops",
        alias = "only",
        value_delimiter = ',',
        value_name = "OPS"
    )]
    pub ops: Vec<String>,
}

impl OpsArg {
    /// Whether the row named `name` runs (names compare without regard to ASCII case).
    pub fn wants(&self, name: &str) -> bool {
        self.ops.is_empty() || self.ops.iter().any(|o| o.eq_ignore_ascii_case(name))
    }

    /// The first name given that is not among `known`, if any.
    pub fn unknown<'a>(&'a self, known: &[&str]) -> Option<&'a str> {
        self.ops
            .iter()
            .find(|o| !known.iter().any(|k| o.eq_ignore_ascii_case(k)))
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_selects_everything_and_names_ignore_case() {
        let all = OpsArg::default();
        assert!(all.wants("add") && all.wants("MUL"));
        assert_eq!(all.unknown(&["add"]), None);
        let some = OpsArg {
            ops: vec!["Add".into(), "div".into()],
        };
        assert!(some.wants("add") && some.wants("DIV") && !some.wants("mul"));
        assert_eq!(some.unknown(&["add", "sub", "mul", "div"]), None);
        assert_eq!(some.unknown(&["add", "mul"]), Some("div"));
    }
}
