//! Byte-processor programs from files: loading, inputs, and the encrypted run through the
//! library's [`encint::processor`] API (shared by `encint asm run` and `encint asm bench`).

use std::collections::HashMap;
use std::time::Instant;

use encint::processor::{Outputs, ProcessorKeys, Program};
use encint_isa::asm::assemble;
use encint_isa::vm::{self, compile, Compiled, Datum};
use encint_tfhe::{PackedNibbles, SeededNibbles, DEFAULT_PARAMETERS};

use crate::crypto_cmds::spinner;

/// Wall-clock times of an encrypted run, in seconds.
pub struct Timing {
    /// Key generation (client, server, tree and packing keys).
    pub keys_s: f64,
    /// Encryption of the inputs (seeded uplink form, then expanded by the server).
    pub encrypt_s: f64,
    /// Evaluation of the program's circuit, with the packing of the downlink.
    pub eval_s: f64,
    /// Decryption of the outputs.
    pub decrypt_s: f64,
}

/// Loads, assembles and compiles a program file.
pub fn load(path: &std::path::Path) -> Result<Compiled, Box<dyn std::error::Error>> {
    let bytes = encint::files::read_bounded(path, encint_isa::asm::MAX_SOURCE_BYTES as u64)?;
    let src = String::from_utf8(bytes)
        .map_err(|_| format!("cannot read {}: not UTF-8 text", path.display()))?;
    let prog = assemble(&src).map_err(|e| format!("{}: {e}", path.display()))?;
    let budget = encint_tfhe::DEFAULT_PARAMETERS.max_quadratic_weight();
    Ok(compile(&prog, budget).map_err(|e| format!("{}: {e}", path.display()))?)
}

/// Parses `--input` arguments; inputs not given get random values from `seed`.
pub fn inputs_from_args(
    c: &Compiled,
    args: &[String],
    seed: u64,
) -> Result<HashMap<String, Datum>, Box<dyn std::error::Error>> {
    use rand::{Rng, SeedableRng};
    let mut data = HashMap::new();
    for a in args {
        vm::parse_input_arg(c, a, &mut data)?;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for (name, kind) in &c.inputs {
        data.entry(name.clone()).or_insert_with(|| match kind {
            encint_isa::instr::Kind::Fixed => Datum::Fixed(rng.gen_range(-256..=256)),
            _ => Datum::Byte(rng.gen()),
        });
    }
    Ok(data)
}

/// Runs a compiled program on encrypted inputs (fresh keys) through the library's
/// [`Program`]: seeded uplink, tree backend, packed downlink, both links serialized and
/// read back as they would be between two machines.
pub fn run_encrypted(
    c: &Compiled,
    data: &HashMap<String, Datum>,
    threads: Option<usize>,
) -> Result<(Outputs, Timing), Box<dyn std::error::Error>> {
    let pool = pool(threads)?;
    let program = Program::from_compiled(c.clone());
    let sp = spinner("generating client, server, tree and packing keys");
    let t = Instant::now();
    let (client, keys) = ProcessorKeys::generate(&DEFAULT_PARAMETERS);
    let keys_s = t.elapsed().as_secs_f64();
    sp.finish_and_clear();
    let t = Instant::now();
    let uplink = program.encrypt_inputs(&client, data)?.to_bytes();
    let encrypt_s = t.elapsed().as_secs_f64();
    let sp = spinner(&format!(
        "evaluating {} blind rotations on {} thread(s)",
        program.cost().blind_rotations,
        pool.current_num_threads()
    ));
    let t = Instant::now();
    let uplink = SeededNibbles::from_bytes(&uplink)?;
    let downlink = pool.install(|| program.run(&keys, &uplink))?.to_bytes();
    let eval_s = t.elapsed().as_secs_f64();
    sp.finish_and_clear();
    let t = Instant::now();
    let out = program.decrypt_outputs(&client, &PackedNibbles::from_bytes(&downlink)?)?;
    let decrypt_s = t.elapsed().as_secs_f64();
    Ok((
        out,
        Timing {
            keys_s,
            encrypt_s,
            eval_s,
            decrypt_s,
        },
    ))
}

/// A rayon pool of `threads` threads (default: all cores).
pub fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, Box<dyn std::error::Error>> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        b = b.num_threads(encint::check_threads(t)?);
    }
    Ok(b.build()?)
}
