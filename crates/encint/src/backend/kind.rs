//! Where circuits run: the CPU (the default), an NVIDIA GPU, or every rank of an MPI job. The
//! one list of backends, for the library, the command-line tool and the Python package.

use std::fmt;
use std::str::FromStr;

use crate::{Error, Result};

/// Where circuits run. A [`Server`](crate::Server) runs on [`BackendKind::Cpu`] or
/// [`BackendKind::Gpu`] ([`Server::with_backend`](crate::Server::with_backend));
/// [`BackendKind::Mpi`] is a whole job over the ranks of `mpirun` (feature `mpi`, see
/// `encint::backend::mpi`), which one server does not run.
///
/// # Examples
///
/// ```
/// use encint::BackendKind;
///
/// assert_eq!("gpu".parse::<BackendKind>()?, BackendKind::Gpu);
/// assert_eq!("MPI".parse::<BackendKind>()?, BackendKind::Mpi);
/// assert_eq!(BackendKind::default().to_string(), "cpu");
/// assert!("tpu".parse::<BackendKind>().is_err());
/// // A server runs on the CPU or a GPU; an MPI job is run by `encint::backend::mpi`.
/// assert!(encint::backend::gpu::check_backend(BackendKind::Mpi).is_err());
/// # Ok::<(), encint::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BackendKind {
    /// TFHE bootstraps on the CPU (rayon pool), the default.
    #[default]
    Cpu,
    /// TFHE bootstraps on an NVIDIA GPU (cargo feature `gpu`), each level as one batch.
    Gpu,
    /// Every rank of an MPI job (`mpirun -n K`, cargo feature `mpi`): rank 0 owns inputs and
    /// outputs, each level's bootstraps are spread over the ranks.
    Mpi,
}

impl FromStr for BackendKind {
    type Err = Error;

    /// Parses `cpu`, `gpu` or `mpi` (in any case).
    fn from_str(s: &str) -> Result<BackendKind> {
        match s.to_ascii_lowercase().as_str() {
            "cpu" => Ok(BackendKind::Cpu),
            "gpu" => Ok(BackendKind::Gpu),
            "mpi" => Ok(BackendKind::Mpi),
            _ => Err(Error::InvalidInput(format!(
                "unknown backend `{s}` (expected cpu, gpu or mpi)"
            ))),
        }
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackendKind::Cpu => "cpu",
            BackendKind::Gpu => "gpu",
            BackendKind::Mpi => "mpi",
        })
    }
}
