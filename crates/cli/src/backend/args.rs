//! The backend options of the commands that run circuits, and the parameter sets of a
//! benchmark. Checked before any key is generated (docs/MPI.md, docs/GPU.md).

use clap::{Args, ValueEnum};

use crate::error::usage;
use crate::CliResult;

/// Where a circuit's bootstraps run: the library's one list of backends.
pub use encint::BackendKind;

fn parse_backend(s: &str) -> Result<BackendKind, String> {
    s.parse::<BackendKind>().map_err(|e| match e {
        encint::Error::InvalidInput(m) => m,
        other => other.to_string(),
    })
}

/// The backend options of `demo`, `eval`, `bench`, `asm run`, `asm bench` and `infer`.
#[derive(Args, Clone, Debug)]
pub struct BackendArgs {
    /// Where bootstraps run: cpu (this process), mpi (every rank of `mpirun -n K`; eval,
    /// bench, asm run and infer; needs a build with `--features mpi`, see docs/MPI.md), gpu (an
    /// NVIDIA GPU; needs a build with `--features gpu`, see docs/GPU.md). Checked before
    /// any key is generated.
    #[arg(long, default_value = "cpu", value_parser = parse_backend)]
    pub backend: BackendKind,
    /// With --backend mpi: seconds rank 0 waits for a rank beyond 4x its own share of a
    /// level before it reports the rank dead and ends the job.
    #[arg(long = "mpi-timeout", default_value_t = 60, value_name = "SECS")]
    pub mpi_timeout: u64,
    /// Fault injection for the tests: `exit:LEVEL` or `hang:LEVEL` on a rank other than 0.
    #[arg(long = "mpi-fault", hide = true)]
    pub mpi_fault: Option<String>,
}

pub(super) const NO_MPI: &str = "this encint was built without the `mpi` feature: build it with \
     `cargo build --release -p encint-cli --features mpi` (needs an MPI library, see docs/MPI.md)";

impl BackendArgs {
    /// The parameter set to generate keys with for this backend: the GPU backend's device
    /// keyswitch needs a 64-bit keyswitching key ([`encint::KS64_PARAMETERS`]); the others run
    /// the default set, whose keyswitch lands on the 32-bit torus.
    pub fn params(&self) -> &'static encint::keys::DigitParameters {
        match self.backend {
            BackendKind::Gpu => &encint::KS64_PARAMETERS,
            BackendKind::Cpu | BackendKind::Mpi => &encint::DEFAULT_PARAMETERS,
        }
    }

    /// `Ok(true)` for MPI (when built with it), `Ok(false)` for the in-process backends
    /// (which [`BackendArgs::check`] then checks), an error for MPI in a build without it.
    pub fn wants_mpi(&self) -> Result<bool, crate::error::CliError> {
        match self.backend {
            BackendKind::Mpi if cfg!(feature = "mpi") => Ok(true),
            BackendKind::Mpi => Err(usage(NO_MPI)),
            BackendKind::Cpu | BackendKind::Gpu => Ok(false),
        }
    }

    /// Errors now if the in-process backend cannot run here (GPU: feature off, no
    /// device), or for MPI on a command that has no MPI path.
    pub fn check(&self) -> CliResult {
        match self.backend {
            BackendKind::Cpu => Ok(()),
            BackendKind::Gpu => Ok(encint::backend::gpu::check_backend(BackendKind::Gpu)?),
            BackendKind::Mpi if cfg!(feature = "mpi") => Err(usage(
                "--backend mpi runs `eval`, `bench`, `asm run` and `infer` (under mpirun); \
                     this command runs on cpu or gpu",
            )),
            BackendKind::Mpi => Err(usage(NO_MPI)),
        }
    }

    /// [`BackendArgs::check`], and an error unless the backend can run circuits with tree
    /// LUTs (the byte processor): the GPU backend cannot yet (docs/GPU.md).
    pub fn check_processor(&self) -> CliResult {
        self.check()?;
        match self.backend {
            BackendKind::Cpu | BackendKind::Mpi => Ok(()),
            BackendKind::Gpu => Err(encint::Error::Gpu(encint::GpuError::Unsupported(
                "the byte processor's tree LUTs run on the CPU backend only (docs/GPU.md \
                 says what a GPU path needs)"
                    .into(),
            ))
            .into()),
        }
    }

    /// The library's in-process backend for [`encint::Server::with_backend`].
    pub fn in_process(&self) -> BackendKind {
        match self.backend {
            BackendKind::Gpu => BackendKind::Gpu,
            BackendKind::Cpu | BackendKind::Mpi => BackendKind::Cpu,
        }
    }
}

/// The parameter sets encint can generate keys for (`--params`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ParamSet {
    /// [`encint::DEFAULT_PARAMETERS`]: TFHE-rs' `PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128`
    /// (keyswitch on the 32-bit torus).
    Ks32,
    /// [`encint::KS64_PARAMETERS`]: TFHE-rs' `PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128`
    /// (keyswitch on the 64-bit torus; the GPU backend's).
    Ks64,
}

impl ParamSet {
    /// The parameter set itself.
    pub fn params(self) -> &'static encint::keys::DigitParameters {
        match self {
            ParamSet::Ks32 => &encint::DEFAULT_PARAMETERS,
            ParamSet::Ks64 => &encint::KS64_PARAMETERS,
        }
    }
}

/// The parameter sets of a benchmark: ours and TFHE-rs' (`--params`, `--peer-params`).
#[derive(Args, Clone, Debug)]
pub struct ParamArgs {
    /// Our parameter set: ks32 (TFHE-rs' PARAM_MESSAGE_2_CARRY_2_KS32_PBS_TUNIFORM_2M128, the
    /// default) or ks64 (its PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128, the default of
    /// TFHE-rs' ConfigBuilder and the GPU backend's set; the default with --backend gpu). Both:
    /// 128-bit security, p-fail 2^-129.6 per bootstrap, the same noise budget; ks32 reads a
    /// keyswitching key of half the size, about 9 % off each bootstrap here.
    #[arg(long, value_enum)]
    pub params: Option<ParamSet>,
    /// TFHE-rs' parameter set: default (`ConfigBuilder::default()`, the 64-bit keyswitch, what
    /// a TFHE-rs user gets) or ks32 (the set of our default, for a comparison at equal
    /// bootstrap cost).
    #[arg(long = "peer-params", value_enum, default_value = "default")]
    pub peer_params: crate::peer::PeerParams,
}

impl ParamArgs {
    /// Our parameter set: `--params`, else the backend's ([`BackendArgs::params`]). Also fixes
    /// TFHE-rs' set for this process (before any peer key exists).
    pub fn resolve(
        &self,
        backend: Option<&BackendArgs>,
    ) -> Result<&'static encint::keys::DigitParameters, crate::error::CliError> {
        crate::peer::set_peer_params(self.peer_params).map_err(usage)?;
        Ok(match (self.params, backend) {
            (Some(p), _) => p.params(),
            (None, Some(b)) => b.params(),
            (None, None) => &encint::DEFAULT_PARAMETERS,
        })
    }
}
