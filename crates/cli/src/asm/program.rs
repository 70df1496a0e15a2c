//! Byte-processor programs from files: loading, inputs, and the encrypted run through the
//! library's [`encint::processor`] API.

use std::collections::HashMap;
use std::time::Instant;

use encint::processor::asm::assemble;
use encint::processor::vm::{self, compile, Compiled, Datum};
use encint::processor::{Downlink, Outputs, Program, Uplink};

use crate::backend::{Exec, ProcessorSession};
use crate::error::{file, usage};
use crate::progress::spinner;
use crate::AnyResult;

/// Wall-clock times of an encrypted run, in seconds (key generation: the session's).
pub struct Timing {
    /// Encryption of the inputs (seeded uplink form, then expanded by the server).
    pub encrypt_s: f64,
    /// Evaluation of the program's circuit, with the packing of the downlink.
    pub eval_s: f64,
    /// Decryption of the outputs.
    pub decrypt_s: f64,
}

/// Loads, assembles and compiles a program file.
pub fn load(path: &std::path::Path) -> AnyResult<Compiled> {
    let bytes =
        encint::io::files::read_bounded(path, encint::processor::asm::MAX_SOURCE_BYTES as u64)?;
    let src = String::from_utf8(bytes).map_err(|_| file(path, "cannot read: not UTF-8 text"))?;
    let prog = assemble(&src).map_err(|e| file(path, e))?;
    let budget = encint::DEFAULT_PARAMETERS.max_quadratic_weight();
    compile(&prog, budget).map_err(|e| file(path, e))
}

/// Parses `--input` arguments; inputs not given get random values from `seed`.
pub fn inputs_from_args(
    c: &Compiled,
    args: &[String],
    seed: u64,
) -> AnyResult<HashMap<String, Datum>> {
    use rand::{Rng, SeedableRng};
    let mut data = HashMap::new();
    for a in args {
        vm::parse_input_arg(c, a, &mut data).map_err(usage)?;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for (name, kind) in &c.inputs {
        data.entry(name.clone()).or_insert_with(|| match kind {
            encint::processor::instr::Kind::Fixed => Datum::Fixed(rng.gen_range(-256..=256)),
            _ => Datum::Byte(rng.gen()),
        });
    }
    Ok(data)
}

/// Runs a compiled program on encrypted inputs with the session's fresh keys through the
/// library's [`Program`] on `exec`: seeded uplink, packed downlink, both links (with their
/// signatures) serialized and read back as they would be between two machines.
pub fn run_encrypted(
    c: &Compiled,
    data: &HashMap<String, Datum>,
    session: &ProcessorSession,
    exec: &dyn Exec,
) -> AnyResult<(Outputs, Timing)> {
    let program = Program::from_compiled(c.clone());
    let params = session.client.params();
    let t = Instant::now();
    let uplink = program
        .encrypt_uplink(&session.client, data)?
        .to_bytes(params)?;
    let encrypt_s = t.elapsed().as_secs_f64();
    let sp = spinner(&format!(
        "evaluating {} blind rotations on {} thread(s)",
        program.cost().blind_rotations,
        session.pool.current_num_threads()
    ));
    let t = Instant::now();
    let uplink = Uplink::from_bytes(&uplink)?;
    let downlink = exec
        .run_program(&program, session, &uplink)?
        .to_bytes(params)?;
    let eval_s = t.elapsed().as_secs_f64();
    sp.finish_and_clear();
    let t = Instant::now();
    let out = program.decrypt_downlink(&session.client, &Downlink::from_bytes(&downlink)?)?;
    let decrypt_s = t.elapsed().as_secs_f64();
    Ok((
        out,
        Timing {
            encrypt_s,
            eval_s,
            decrypt_s,
        },
    ))
}
