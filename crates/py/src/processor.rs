//! The byte processor (Trama, Clet, Boudguiga and Sirdey, "Designing a General-Purpose 8-bit
//! (T)FHE Processor Abstraction"): `Program` assembles source text and runs it on clear
//! data or, with `ProcessorKeys`, on encrypted data (seeded uplink, packed downlink, each
//! naming the values it holds so that one program's inputs or result are never read as
//! another's).
//! Inputs are a dict of name → int (a byte), float (a fixed-point value) or list of them
//! (an array); outputs come back the same way.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use encint::keys::envelope::Kind;
use encint::processor::vm::Datum;
use encint::processor::{
    Downlink, Outputs, ProcessorKeys as RKeys, Program as RProgram, SealedProcessorKeys, Uplink,
};
use encint::DEFAULT_PARAMETERS;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFloat, PyList};

use crate::errors::{file_err, invalid, to_py};
use crate::eval::cost_dict;
use crate::files::read_bounded;
use crate::guard::detached;
use crate::keys::ClientKey;
use crate::methods::reduce;
use crate::progress::{self, Progress, Watched};
use encint::io::files::{Mode, Output};

/// The server-side keys of the byte processor (digit server key, tree key, packing key;
/// a few hundred MB). Made with `ProcessorKeys.generate()`, which also returns the
/// client key; saved and loaded as checked envelopes: `to_bytes`/`from_bytes` (three
/// byte strings), `save`/`load` (a directory of three files, the CLI's layout), pickling.
#[pyclass(module = "encint._encint", frozen)]
pub struct ProcessorKeys {
    keys: RKeys,
}

#[pymethods]
impl ProcessorKeys {
    /// Generates `(client_key, processor_keys)` (several seconds, GIL released).
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<(ClientKey, ProcessorKeys)> {
        let (client, keys) = progress::one_step(py, "generating keys", || {
            Ok(RKeys::generate(&DEFAULT_PARAMETERS))
        })?;
        let ck = ClientKey::from_parts(client, Some(keys.server.clone()));
        Ok((ck, ProcessorKeys { keys }))
    }

    /// The three keys as checked envelopes `(server, tree, packing)`.
    fn to_bytes<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    )> {
        let s = detached(py, || self.keys.seal().map_err(to_py))?;
        Ok((
            PyBytes::new(py, &s.server),
            PyBytes::new(py, &s.tree),
            PyBytes::new(py, &s.packing),
        ))
    }

    /// Reads keys written by `to_bytes` (every envelope checked, key sets matched).
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        server: Vec<u8>,
        tree: Vec<u8>,
        packing: Vec<u8>,
    ) -> PyResult<ProcessorKeys> {
        let sealed = SealedProcessorKeys {
            server,
            tree,
            packing,
        };
        let keys = detached(py, || RKeys::open(&sealed).map_err(to_py))?;
        Ok(ProcessorKeys { keys })
    }

    /// Saves the three keys as checked envelopes in `directory` (created if missing):
    /// `server.key`, `tree.key` and `packing.key`, the files `encint asm keygen` writes
    /// and `encint asm run --server-key DIR` reads. Existing files are kept (raising
    /// `FileExistsError` before anything is written) unless `overwrite=True`.
    #[pyo3(signature = (directory, overwrite = false))]
    fn save(&self, py: Python<'_>, directory: PathBuf, overwrite: bool) -> PyResult<()> {
        let paths = key_paths(&directory);
        let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
        encint::io::files::check_new(&refs, overwrite).map_err(file_err)?;
        std::fs::create_dir_all(&directory).map_err(|e| {
            pyo3::exceptions::PyOSError::new_err(format!(
                "cannot create {}: {e}",
                directory.display()
            ))
        })?;
        let s = detached(py, || self.keys.seal().map_err(to_py))?;
        let outputs: Vec<Output> = refs
            .iter()
            .zip([&s.server, &s.tree, &s.packing])
            .map(|(path, bytes)| Output {
                path,
                bytes,
                mode: Mode::Public,
            })
            .collect();
        detached(py, || {
            encint::io::files::write_all(&outputs, overwrite).map_err(file_err)
        })
    }

    /// Loads keys saved by `save` (or by `encint asm keygen`) from `directory`: every
    /// envelope checked (kind, version, parameters, sizes), the three key sets matched.
    #[staticmethod]
    fn load(py: Python<'_>, directory: PathBuf) -> PyResult<ProcessorKeys> {
        let [s, t, p] = key_paths(&directory);
        let sealed = SealedProcessorKeys {
            server: read_bounded(&s, Kind::ServerKey)?,
            tree: read_bounded(&t, Kind::ServerKey)?,
            packing: read_bounded(&p, Kind::ServerKey)?,
        };
        let keys = detached(py, || RKeys::open(&sealed).map_err(to_py))?;
        Ok(ProcessorKeys { keys })
    }

    fn __reduce__(&self, py: Python<'_>) -> PyResult<(PyObject, PyObject)> {
        reduce::<ProcessorKeys>(py, "from_bytes", self.to_bytes(py)?)
    }
}

/// The key files of a processor key directory (the CLI's names).
fn key_paths(directory: &Path) -> [PathBuf; 3] {
    ["server.key", "tree.key", "packing.key"].map(|name| directory.join(name))
}

/// An assembled byte-processor program (the format of `examples/*.asm`).
#[pyclass(module = "encint._encint", frozen)]
pub struct Program {
    program: RProgram,
    /// Serializes encrypted runs of one program (they use the global pool fully).
    lock: Mutex<()>,
}

fn data_of(d: &Bound<'_, PyDict>) -> PyResult<HashMap<String, Datum>> {
    fn datum(name: &str, v: &Bound<'_, PyAny>) -> PyResult<Datum> {
        if v.is_instance_of::<PyFloat>() {
            let f: f64 = v.extract()?;
            let raw = (f * 256.0).round();
            if !(i16::MIN as f64..=i16::MAX as f64).contains(&raw) {
                return Err(invalid(format!(
                    "{name}: {f} is outside the fixed-point range"
                )));
            }
            return Ok(Datum::Fixed(raw as i16));
        }
        let i: i64 = v.extract().map_err(|_| {
            PyTypeError::new_err(format!("{name}: expected an int, a float or a list"))
        })?;
        if (-128..=255).contains(&i) {
            Ok(Datum::Byte(i as u8))
        } else {
            Err(invalid(format!("{name}: {i} is not a byte (-128..=255)")))
        }
    }
    let mut out = HashMap::new();
    for (k, v) in d.iter() {
        let name: String = k.extract()?;
        if let Ok(list) = v.downcast::<PyList>() {
            for (i, x) in list.iter().enumerate() {
                let n = format!("{name}[{i}]");
                out.insert(n.clone(), datum(&n, &x)?);
            }
        } else {
            out.insert(name.clone(), datum(&name, &v)?);
        }
    }
    Ok(out)
}

fn outputs_dict<'py>(py: Python<'py>, out: &Outputs) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let value = |x: &Datum| -> PyResult<PyObject> {
        Ok(match *x {
            Datum::Byte(b) => b.into_pyobject(py)?.into_any().unbind(),
            Datum::Fixed(r) => (f64::from(r) / 256.0)
                .into_pyobject(py)?
                .into_any()
                .unbind(),
        })
    };
    for (name, x) in out {
        match name.split_once('[') {
            Some((base, _)) => {
                let list = match d.get_item(base)? {
                    Some(l) => l.downcast_into::<PyList>()?,
                    None => {
                        let l = PyList::empty(py);
                        d.set_item(base, &l)?;
                        l
                    }
                };
                list.append(value(x)?)?;
            }
            None => d.set_item(name, value(x)?)?,
        }
    }
    Ok(d)
}

#[pymethods]
impl Program {
    /// Assembles and compiles `source` (raises `ProgramError` with the assembler's message).
    #[new]
    fn new(py: Python<'_>, source: String) -> PyResult<Program> {
        let program = detached(py, || {
            RProgram::assemble(&source, &DEFAULT_PARAMETERS).map_err(to_py)
        })?;
        Ok(Program {
            program,
            lock: Mutex::new(()),
        })
    }

    /// Input element names in circuit order (arrays as `name[i]`).
    #[getter]
    fn inputs(&self) -> Vec<String> {
        self.program
            .compiled()
            .inputs
            .iter()
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// The cost of an encrypted run (bootstraps, blind rotations, depth, ...).
    fn cost<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        cost_dict(py, &self.program.cost())
    }

    /// Runs on clear data: `{name: value or list}` → `{name: value or list}`.
    fn run_clear<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let data = data_of(data)?;
        let (out, _) = detached(py, || self.program.run_clear(&data).map_err(to_py))?;
        outputs_dict(py, &out)
    }

    /// Client side: encrypts the inputs into the uplink (bytes): the seeded nibbles with
    /// the inputs' signature (every element's name and kind, in order), the file
    /// `encint asm encrypt` writes.
    fn encrypt_inputs<'py>(
        &self,
        py: Python<'py>,
        key: &ClientKey,
        data: &Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let client = key.require_real("the processor")?;
        let data = data_of(data)?;
        let up = detached(py, || {
            let up = self.program.encrypt_uplink(client, &data).map_err(to_py)?;
            up.to_bytes(client.params()).map_err(to_py)
        })?;
        Ok(PyBytes::new(py, &up))
    }

    /// Server side: runs the program on an uplink; returns the packed downlink (bytes),
    /// which names the outputs. Inputs encrypted for another program (another signature,
    /// even of as many nibbles) raise `InvalidInputError` before anything is evaluated.
    fn run<'py>(
        &self,
        py: Python<'py>,
        keys: &ProcessorKeys,
        uplink: Vec<u8>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let down = detached(py, || {
            let up = Uplink::from_bytes(&uplink).map_err(to_py)?;
            self.program.check_uplink(&up).map_err(to_py)?;
            let _g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
            let progress = Progress::new("processor");
            let backend = keys.keys.backend();
            let result =
                self.program
                    .run_uplink_on(&Watched::new(&backend, &*progress), &keys.keys, &up);
            let down = progress.finish(result, to_py)?;
            down.to_bytes(keys.keys.server.params()).map_err(to_py)
        })?;
        Ok(PyBytes::new(py, &down))
    }

    /// Client side: decrypts a downlink into `{name: value or list}`; another program's
    /// result raises `InvalidInputError`.
    fn decrypt_outputs<'py>(
        &self,
        py: Python<'py>,
        key: &ClientKey,
        downlink: Vec<u8>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let client = key.require_real("the processor")?;
        let out = detached(py, || {
            let down = Downlink::from_bytes(&downlink).map_err(to_py)?;
            self.program.decrypt_downlink(client, &down).map_err(to_py)
        })?;
        outputs_dict(py, &out)
    }
}

/// Adds `ProcessorKeys` and `Program` to the module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ProcessorKeys>()?;
    m.add_class::<Program>()?;
    Ok(())
}
