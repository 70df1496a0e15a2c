//! What a command fails with: [`CliError`], printed by `main` after `error: `, which exits
//! with the error's [`CliError::exit_code`] (documented in `encint --help`).
//!
//! The variants are the cases a script calling `encint` branches on: arguments refused
//! before any work (exit 2, as for the argument parser's own refusals), a result that
//! disagrees with plain arithmetic or the clear run (exit 3), and everything else (exit 1):
//! a file that cannot be read, written or opened, and the libraries' own typed errors,
//! kept as they are.

use std::fmt::Display;
use std::path::{Path, PathBuf};

use encint::Op;

/// An error of a command (see the module docs).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The arguments (or their combination, or a value they name) are refused; nothing was
    /// computed or written.
    #[error("{0}")]
    Usage(String),
    /// A file cannot be read, created or written, or does not hold what the command needs.
    #[error("{}: {message}", path.display())]
    File {
        /// The file (or folder).
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A decrypted result differs from plain arithmetic or from the clear run, or two runs
    /// of one circuit disagree.
    #[error("{0}")]
    Mismatch(String),
    /// What the command's own code should never meet (a result missing from a run, a
    /// message between processes cut short): a bug or a broken peer, not bad input.
    #[error("internal error: {0}")]
    Internal(String),
    /// The library refused or failed (its typed error, unchanged).
    #[error(transparent)]
    Library(#[from] encint::Error),
    /// A file of the library's writers and readers (it names the path): an output that
    /// exists, an output that is an input, a file too large, a read or write refused.
    #[error(transparent)]
    Files(#[from] encint::io::files::FileError),
    /// An assembly program or its compilation refused (the byte processor).
    #[error(transparent)]
    Processor(#[from] encint::processor::IsaError),
    /// The FV bit-sliced engine (FV batches of the inference) refused or failed.
    #[error(transparent)]
    FvBits(#[from] encint::fv_bits::FvBitsError),
    /// The FV scheme refused or failed.
    #[error(transparent)]
    Fv(#[from] encint::fv::FvError),
    /// A TFHE-rs timer (the benchmarks' peer) failed or has no counterpart.
    #[error(transparent)]
    Peer(#[from] PeerError),
    /// Reading or writing the standard streams, or a file named in the message.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A JSON document could not be written or read.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl CliError {
    /// The process's exit status for this error: 2 for refused arguments, 3 for a result
    /// that disagrees with its reference, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Mismatch(_) => 3,
            _ => 1,
        }
    }
}

/// The layers' own errors, each kept as the library's [`encint::Error`] it converts to.
macro_rules! through_library {
    ($($t:ty),* $(,)?) => {$(
        impl From<$t> for CliError {
            fn from(e: $t) -> Self {
                CliError::Library(e.into())
            }
        }
    )*};
}

through_library!(
    encint::CoreError,
    encint::GpuError,
    encint::keys::TfheError,
    encint::keys::EnvelopeError,
    encint::typed::TypedError,
    encint::processor::vm::RunError,
);

/// Refused arguments ([`CliError::Usage`]).
pub fn usage(message: impl Into<String>) -> CliError {
    CliError::Usage(message.into())
}

/// A result that disagrees with its reference ([`CliError::Mismatch`]).
pub fn mismatch(message: impl Into<String>) -> CliError {
    CliError::Mismatch(message.into())
}

/// What should never happen ([`CliError::Internal`]).
pub fn internal(message: impl Into<String>) -> CliError {
    CliError::Internal(message.into())
}

/// A problem with the file at `path` ([`CliError::File`]).
pub fn file(path: &Path, message: impl Display) -> CliError {
    CliError::File {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

// ---------------------------------------------------------------------------------------
// The benchmarks' peer.

/// Why a peer timer gave no time: the timers take the library's one operation enum
/// ([`Op`]) and refuse what TFHE-rs (or the timer) has no counterpart for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PeerError {
    /// A TFHE-rs high-level API call failed or returned a wrong result, or the run count
    /// is 0.
    #[error("peer benchmark: {0}")]
    Failed(String),
    /// The operation, width or type is not one the timer can time.
    #[error("peer benchmark: {0}")]
    Unsupported(String),
}

impl PeerError {
    /// `op` has no counterpart in the timer of `what` (e.g. `FheUint8`).
    pub fn unsupported(op: Op, what: &str) -> PeerError {
        PeerError::Unsupported(format!("{op}: no {what} operation here"))
    }

    /// The same error, its message led by what it is about (`"add u8: ..."`).
    pub fn about(self, what: &str) -> PeerError {
        match self {
            PeerError::Failed(m) => PeerError::Failed(format!("{what}: {m}")),
            PeerError::Unsupported(m) => PeerError::Unsupported(format!("{what}: {m}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_and_messages() {
        let u = usage("--threads must be at least 1");
        assert_eq!(
            (u.exit_code(), u.to_string().as_str()),
            (2, "--threads must be at least 1")
        );
        let m = mismatch("3 of 8 results differ");
        assert_eq!(
            (m.exit_code(), m.to_string().as_str()),
            (3, "3 of 8 results differ")
        );
        let f = file(Path::new("keys/server.key"), "cannot read: gone");
        assert_eq!(
            (f.exit_code(), f.to_string().as_str()),
            (1, "keys/server.key: cannot read: gone")
        );
        let lib = CliError::from(encint::Error::DivisionByZero);
        assert_eq!(lib.exit_code(), 1);
        assert!(matches!(
            lib,
            CliError::Library(encint::Error::DivisionByZero)
        ));
    }
}
