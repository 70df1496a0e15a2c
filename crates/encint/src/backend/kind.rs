//! Which executor runs a server's circuits: the CPU (the default) or the GPU backend.

use std::fmt;
use std::str::FromStr;

use crate::{Error, Result};

/// Which executor runs a server's circuits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BackendKind {
    /// TFHE bootstraps on the CPU (rayon pool), the default.
    #[default]
    Cpu,
    /// TFHE bootstraps on an NVIDIA GPU (cargo feature `gpu`).
    Gpu,
}

impl FromStr for BackendKind {
    type Err = Error;

    /// Parses `cpu` or `gpu`.
    fn from_str(s: &str) -> Result<BackendKind> {
        match s {
            "cpu" => Ok(BackendKind::Cpu),
            "gpu" => Ok(BackendKind::Gpu),
            other => Err(Error::InvalidInput(format!(
                "unknown backend `{other}` (expected `cpu` or `gpu`)"
            ))),
        }
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackendKind::Cpu => "cpu",
            BackendKind::Gpu => "gpu",
        })
    }
}
