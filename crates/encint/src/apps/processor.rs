//! The byte processor (D. Trama, P.-E. Clet, A. Boudguiga and R. Sirdey, *Designing a
//! General-Purpose 8-bit (T)FHE Processor Abstraction*) as a library: assemble a program, generate keys, encrypt
//! the inputs through the seeded uplink, run the program's circuit on the server with the
//! tree backend, return the outputs through the packed downlink and decrypt them. Both
//! links name the values they hold ([`Uplink`], [`Downlink`]: a [`Signature`] beside the
//! nibbles), so that a run or a decryption with another program is refused before any
//! work.
//!
//! ```
//! use std::collections::HashMap;
//! use encint::processor::{Program, ProcessorKeys, Uplink};
//! use encint::DEFAULT_PARAMETERS;
//! use encint::processor::Datum;
//!
//! // y = x + 3 (mod 256) and z = (y == 20).
//! let src = "input x\ny = ADDI x, 3\nz = EQI y, 20\noutput y\noutput z\n";
//! let program = Program::assemble(src, &DEFAULT_PARAMETERS).unwrap();
//! let (client, server) = ProcessorKeys::generate(&DEFAULT_PARAMETERS);
//! // The server-side keys travel (or are saved) in checked envelopes.
//! let server = ProcessorKeys::open(&server.seal().unwrap()).unwrap();
//! let data = HashMap::from([("x".to_string(), Datum::Byte(17))]);
//! let uplink = program.encrypt_uplink(&client, &data).unwrap();          // client
//! let uplink = Uplink::from_bytes(&uplink.to_bytes(client.params()).unwrap()).unwrap();
//! let downlink = program.run_uplink(&server, &uplink).unwrap();          // server
//! let out = program.decrypt_downlink(&client, &downlink).unwrap();       // client
//! assert_eq!(out, program.run_clear(&data).unwrap().0);
//! // Another program with inputs of the same size is refused the uplink.
//! let other = Program::assemble("input y\nz = ADDI y, 1\noutput z\n", &DEFAULT_PARAMETERS).unwrap();
//! assert!(other.run_uplink(&server, &uplink).is_err());
//! assert_eq!(out[0], ("y".to_string(), Datum::Byte(20)));
//! assert_eq!(out[1], ("z".to_string(), Datum::Byte(1)));
//! ```

use std::collections::HashMap;

use encint_core::circuit::{Cost, Plan};
use encint_core::exec;
use encint_tfhe::envelope::{self, Kind};
use encint_tfhe::{
    ClientKey, DigitParameters, PackedNibbles, PackingKey, SeededNibbles, ServerKey, TreeKey,
};

use crate::backend::tree::TreeBackend;
use crate::{Error, Result};

mod links;
pub use links::{Downlink, Link, LinkNibbles, Signature, Uplink, INPUTS_TAG, OUTPUTS_TAG};

pub use encint_isa::vm::{Compiled, Datum};
pub use encint_isa::{Byte, Fixed, IsaError};

/// The assembler: source text to an [`asm::Program`] ([`asm::assemble`]), its limits and
/// its [`asm::AsmError`].
pub use encint_isa::asm;

/// The instruction set: each instruction's [`instr::Signature`] and the circuit it emits
/// into a [`crate::circuit::Builder`] ([`instr::emit`]).
pub use encint_isa::instr;

/// Programs as circuits: compilation ([`vm::compile`]), input and output encoding, the
/// clear run ([`vm::run_clear`]) and its [`vm::RunError`].
pub use encint_isa::vm;

/// Named output data of a program run, in declaration order.
pub type Outputs = Vec<(String, Datum)>;

/// The keys a byte-processor server needs: the digit server key, the tree key (first-level
/// multi-value bootstraps and packing keyswitches) and the downlink packing key. All are
/// generated from the client key; none reveals it.
#[derive(Debug, Clone)]
pub struct ProcessorKeys {
    /// Plain and half-step bootstraps, keyswitches.
    pub server: ServerKey,
    /// Tree LUTs (the processor paper's `LUTeval`/`MVLUTeval`).
    pub tree: TreeKey,
    /// Packs the outputs into a few GLWE ciphertexts for the downlink.
    pub packing: PackingKey,
}

impl ProcessorKeys {
    /// The backend that runs a program's circuit on these keys: plain and half-step
    /// bootstraps on the server key, tree LUTs on the tree key.
    pub fn backend(&self) -> TreeBackend<'_> {
        TreeBackend {
            server: &self.server,
            tree: &self.tree,
        }
    }

    /// Generates a client key and the matching server-side keys (a few seconds and a few
    /// hundred MB: the tree key holds a precise bootstrapping key).
    pub fn generate(params: &DigitParameters) -> (ClientKey, ProcessorKeys) {
        let (client, server) = ClientKey::generate(params);
        let keys = ProcessorKeys::for_client(&client, server);
        (client, keys)
    }

    /// The tree and packing keys of `client`, beside its existing `server` key.
    pub fn for_client(client: &ClientKey, server: ServerKey) -> ProcessorKeys {
        ProcessorKeys {
            tree: TreeKey::generate(client),
            packing: PackingKey::generate(client),
            server,
        }
    }
}

/// The server-side keys in checked envelopes, to save and load like the digit keys: the
/// digit server key ([`Kind::ServerKey`]), the tree key ([`Kind::TreeKey`]) and the
/// packing key ([`Kind::PackingKey`]; earlier releases wrote these two with the server-key
/// kind, and [`ProcessorKeys::open`] still reads them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedProcessorKeys {
    /// The [`ServerKey`] envelope (the same bytes as a digit `server.key`).
    pub server: Vec<u8>,
    /// The [`TreeKey`] envelope.
    pub tree: Vec<u8>,
    /// The [`PackingKey`] envelope.
    pub packing: Vec<u8>,
}

impl ProcessorKeys {
    /// Seals the three keys in checked envelopes, each of its own kind.
    pub fn seal(&self) -> Result<SealedProcessorKeys> {
        let id = self.server.params().id();
        Ok(SealedProcessorKeys {
            server: envelope::seal(Kind::ServerKey, id, &self.server)?,
            tree: envelope::seal(Kind::TreeKey, id, &self.tree)?,
            packing: envelope::seal(Kind::PackingKey, id, &self.packing)?,
        })
    }

    /// Opens sealed keys, checking every envelope (each must hold its own key: a tree key
    /// where the server key belongs is [`encint_tfhe::EnvelopeError::WrongKind`]) and
    /// that all three are of the server key's parameter set and key set.
    pub fn open(sealed: &SealedProcessorKeys) -> Result<ProcessorKeys> {
        let (header, _) = envelope::read_header(&sealed.server)?;
        let params = DigitParameters::from_id(&header.params_id).ok_or_else(|| {
            Error::Malformed(format!("unknown parameter set `{}`", header.params_id))
        })?;
        let same_set = |bytes: &[u8], what: &str| -> Result<()> {
            let (h, _) = envelope::read_header(bytes)?;
            if h.params_id != params.id() {
                return Err(Error::InvalidInput(format!(
                    "the {what} is for parameters {}, the server key for {}",
                    h.params_id,
                    params.id()
                )));
            }
            Ok(())
        };
        same_set(&sealed.tree, "tree key")?;
        same_set(&sealed.packing, "packing key")?;
        let keys = ProcessorKeys {
            server: encint_tfhe::open_server_key(&sealed.server)?,
            tree: encint_tfhe::open_tree_key(&sealed.tree)?,
            packing: encint_tfhe::open_packing_key(&sealed.packing)?,
        };
        keys.check_key_sets()?;
        Ok(keys)
    }

    /// Errors unless the tree and packing keys belong to the server key's key set
    /// ([`Error::TreeKeyMismatch`], [`Error::PackingKeyMismatch`]).
    pub fn check_key_sets(&self) -> Result<()> {
        let server = self.server.key_set();
        if self.tree.key_set() != server {
            return Err(Error::TreeKeyMismatch {
                server,
                tree: self.tree.key_set(),
            });
        }
        if self.packing.key_set() != server {
            return Err(Error::PackingKeyMismatch {
                server,
                packing: self.packing.key_set(),
            });
        }
        Ok(())
    }
}

/// An assembled and compiled byte-processor program, with its execution plan.
#[derive(Debug, Clone)]
pub struct Program {
    compiled: Compiled,
    plan: Plan,
}

impl Program {
    /// Assembles `src` (the format of `examples/*.asm`) and compiles it for `params`: the
    /// instructions refresh by that parameter set's noise budget.
    pub fn assemble(src: &str, params: &DigitParameters) -> Result<Program> {
        let program = encint_isa::asm::assemble(src)?;
        let compiled = vm::compile(&program, params.max_quadratic_weight())?;
        Ok(Program::from_compiled(compiled))
    }

    /// A program compiled elsewhere (e.g. by [`vm::compile`]).
    pub fn from_compiled(compiled: Compiled) -> Program {
        let plan = compiled.circuit.plan();
        Program { compiled, plan }
    }

    /// The compiled program: circuit, inputs and outputs.
    pub fn compiled(&self) -> &Compiled {
        &self.compiled
    }

    /// The cost of an encrypted run (blind rotations, packing keyswitches, depth).
    pub fn cost(&self) -> Cost {
        self.plan.cost(&self.compiled.circuit)
    }

    /// Runs the program on plain data: the outputs an encrypted run returns, and its cost.
    pub fn run_clear(&self, data: &HashMap<String, Datum>) -> Result<(Outputs, Cost)> {
        Ok(vm::run_clear(&self.compiled, data)?)
    }

    /// Client side: encrypts the inputs (every input of the program, by name) as one seeded
    /// LWE list (one seed and one body per nibble). The bare nibbles say nothing of the
    /// program: [`Program::encrypt_uplink`] adds the inputs' signature, which
    /// [`Program::run_uplink`] checks.
    pub fn encrypt_inputs(
        &self,
        client: &ClientKey,
        data: &HashMap<String, Datum>,
    ) -> Result<SeededNibbles> {
        let nibbles = vm::encode_inputs(&self.compiled, data)?;
        let values: Vec<u8> = nibbles.iter().map(|&v| v as u8).collect();
        Ok(client.encrypt_nibbles_seeded(&values)?)
    }

    /// Server side: expands the uplink, runs the program's circuit on the current rayon
    /// pool (tree backend, budget checked first) and packs the outputs for the downlink.
    /// Keys or an uplink of another key set are refused before any work; the bare nibbles
    /// cannot say which program they were encrypted for ([`Program::run_uplink`] checks).
    pub fn run(&self, keys: &ProcessorKeys, inputs: &SeededNibbles) -> Result<PackedNibbles> {
        self.run_on(&keys.backend(), keys, inputs)
    }

    /// [`Program::run`] with another backend for the circuit (e.g.
    /// `encint::backend::mpi::MpiBackend` with the tree key, feature `mpi`); `keys` expand the
    /// uplink and pack the downlink, and must be the backend's.
    pub fn run_on<B: exec::Backend<Value = encint_tfhe::Digit, Error = Error>>(
        &self,
        backend: &B,
        keys: &ProcessorKeys,
        inputs: &SeededNibbles,
    ) -> Result<PackedNibbles> {
        keys.check_key_sets()?;
        let digits = inputs.expand_for(&keys.server)?;
        let refs: Vec<_> = digits.iter().collect();
        let out = exec::run(backend, &self.compiled.circuit, &self.plan, &refs)?;
        Ok(keys.packing.pack(&out)?)
    }

    /// Client side: decrypts the downlink into named outputs.
    pub fn decrypt_outputs(&self, client: &ClientKey, packed: &PackedNibbles) -> Result<Outputs> {
        let values: Vec<i64> = client
            .decrypt_packed(packed)?
            .into_iter()
            .map(i64::from)
            .collect();
        if values.len() != self.compiled.circuit.outputs().len() {
            return Err(Error::ShapeMismatch(format!(
                "the downlink holds {} nibbles, the program has {} output nibbles",
                values.len(),
                self.compiled.circuit.outputs().len()
            )));
        }
        Ok(vm::decode_outputs(&self.compiled, &values)?)
    }
}
