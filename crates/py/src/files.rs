//! Key files: bounded reads and the library's safe writer ([`encint::io::files`]).

use std::path::Path;

use encint::io::files::Mode;
use encint::keys::envelope::{self, Kind};
use pyo3::prelude::*;

use crate::errors::file_err;

/// Reads a whole file, refusing one longer than the envelope limit of `kind`.
pub fn read_bounded(path: &Path, kind: Kind) -> PyResult<Vec<u8>> {
    encint::io::files::read_bounded(path, envelope::max_len(kind)).map_err(file_err)
}

/// Writes `bytes` with the library's safe writer: a temporary in the same directory (mode
/// 0600 for [`Mode::Secret`] from its creation), then an atomic move; an existing file is
/// replaced only with `overwrite` (a symlink there is replaced, never followed).
pub fn write_new(path: &Path, bytes: &[u8], overwrite: bool, mode: Mode) -> PyResult<()> {
    encint::io::files::write_one(path, bytes, mode, overwrite).map_err(file_err)
}
