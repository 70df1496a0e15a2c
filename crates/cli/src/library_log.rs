//! Prints what the library reports through the `log` facade, on standard error as the
//! library once printed it itself: the GPU backend's opt-in trace (`ENCINT_GPU_TRACE`, info
//! records, printed as they are) and an MPI job's last words before an abort (error
//! records, printed after `error: ` like the command's own errors). The library crates
//! never print.

use log::{Level, LevelFilter, Log, Metadata, Record};

/// The logger: encint's records up to info, each on one line of standard error.
struct Stderr;

/// Whether a record of `target` at `level` is printed: encint's, up to info.
fn shown(target: &str, level: Level) -> bool {
    target.starts_with("encint") && level <= Level::Info
}

/// The line printed for `record`, if it is printed.
fn line(record: &Record) -> Option<String> {
    shown(record.target(), record.level()).then(|| match record.level() {
        Level::Error => format!("error: {}", record.args()),
        _ => record.args().to_string(),
    })
}

impl Log for Stderr {
    fn enabled(&self, metadata: &Metadata) -> bool {
        shown(metadata.target(), metadata.level())
    }

    fn log(&self, record: &Record) {
        if let Some(line) = line(record) {
            eprintln!("{line}");
        }
    }

    fn flush(&self) {}
}

/// Installs the logger (once, at the start of `main`).
pub fn install() {
    static LOGGER: Stderr = Stderr;
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(LevelFilter::Info);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(target: &str, level: Level, message: &str) -> Option<String> {
        line(
            &Record::builder()
                .target(target)
                .level(level)
                .args(format_args!("{message}"))
                .build(),
        )
    }

    #[test]
    fn encint_records_print_as_the_library_printed_them() {
        assert_eq!(
            printed(
                "encint::backend::mpi",
                Level::Error,
                "cluster: rank 2 did not take"
            ),
            Some("error: cluster: rank 2 did not take".to_string())
        );
        assert_eq!(
            printed(
                "encint::backend::gpu::device",
                Level::Info,
                "gpu level: 8 bootstraps"
            ),
            Some("gpu level: 8 bootstraps".to_string())
        );
        assert_eq!(printed("encint", Level::Debug, "detail"), None);
        assert_eq!(printed("tfhe::core_crypto", Level::Error, "theirs"), None);
    }
}
