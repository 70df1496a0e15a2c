//! Machine profiles: what the planner knows of the machine a circuit runs on.
//!
//! The planner estimates a circuit's time on a [`Machine`] (a level of `w` bootstraps takes
//! `latency + ⌈w / lanes⌉ · round` seconds) and chooses circuits by it. A profile comes
//! from one of three places:
//!
//! - a built-in one ([`Machine::parse`]: `cpu:N`, `h100`, `h200`);
//! - a measurement of this machine ([`calibrate`]), saved to a profile file
//!   ([`save_profile`]) and read back ([`load_profile`]), by default at [`cached_path`];
//! - [`profile`], which takes any of these by name: a built-in name, `calibrated` (the
//!   file at [`cached_path`]) or the path of a profile file.
//!
//! A profile is given to a server with [`Server::set_machine`], to a compiled function
//! with [`compile_on`](crate::fhe::compile_on), and to the command line as `--machine P`.
//!
//! # Examples
//!
//! ```
//! use encint::machine::{calibrate, load_profile, save_profile, Calibration};
//! use encint::{ClientKey, Server, DEFAULT_PARAMETERS};
//!
//! let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
//! let server = Server::with_threads(server_key, 2)?;
//! let quick = Calibration { repeats: 1, levels: 2 };
//! let measured = calibrate(&client, &server, &quick)?;
//! assert_eq!(measured.machine.lanes, 2);
//! assert!(measured.machine.round_s > 0.0 && measured.machine.latency_s >= 0.0);
//!
//! let dir = std::env::temp_dir().join(format!("encint-doc-profile-{}", std::process::id()));
//! let path = dir.join("machine.json");
//! save_profile(&measured.machine, &path)?;
//! assert_eq!(load_profile(&path)?, measured.machine);
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), encint::Error>(())
//! ```

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use encint_core::circuit::Builder;
use encint_core::lut::NegacyclicLut;
use encint_tfhe::Digit;
use serde::{Deserialize, Serialize};

pub use encint_arith::machine::{
    Machine, MachineError, CPU_BOOTSTRAP_S, GPU_PLAN_LANES, MAX_CPU_THREADS,
};

pub use crate::error::ProfileError;
use crate::{BackendKind, ClientKey, Error, Result, Server};

/// The environment variable that names the profile file of `calibrated` (overriding
/// [`cached_path`]'s default place).
pub const PROFILE_ENV: &str = "ENCINT_MACHINE_PROFILE";

/// The largest profile file read (bytes); a larger one is refused unread.
pub const MAX_PROFILE_BYTES: u64 = 64 * 1024;

/// The longest profile name kept in a file (characters).
pub const MAX_NAME_CHARS: usize = 64;

/// The most seconds a profile's round or latency may state.
pub const MAX_PROFILE_SECONDS: f64 = 10.0;

/// The most threads [`calibrate`] measures: its widest level must take more rounds than
/// its narrowest.
pub const MAX_CALIBRATED_LANES: usize = 144;

/// What identifies a profile file.
const FORMAT: &str = "encint-machine-profile";
const VERSION: u32 = 1;

/// A profile file's contents (times in seconds, as the model holds them: a file read back
/// is the same machine).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    format: String,
    version: u32,
    name: String,
    lanes: usize,
    round_s: f64,
    latency_s: f64,
    plan_threads: usize,
    gpu: bool,
}

/// The profile named `name`: a built-in one ([`Machine::parse`]), `calibrated` (the file
/// at [`cached_path`]), or a path to a profile file (one containing `/` or `\` or ending in
/// `.json`).
///
/// # Examples
///
/// ```
/// use encint::machine::{profile, ProfileError};
/// use encint::{Error, Machine};
///
/// assert_eq!(profile("cpu:16")?, Machine::cpu(16));
/// assert_eq!(profile("h100")?, Machine::h100());
/// assert!(matches!(profile("tpu"), Err(Error::Profile(ProfileError::Name(_)))));
/// let missing = profile("/nonexistent/machine.json");
/// assert!(matches!(missing, Err(Error::Profile(ProfileError::Io { .. }))));
/// # Ok::<(), encint::Error>(())
/// ```
pub fn profile(name: &str) -> Result<Machine> {
    let name = name.trim();
    if name.eq_ignore_ascii_case("calibrated") {
        let path = cached_path()?;
        if !path.exists() {
            return Err(ProfileError::NotCalibrated { path }.into());
        }
        return load_profile(&path);
    }
    if name.contains('/') || name.contains('\\') || name.to_ascii_lowercase().ends_with(".json") {
        return load_profile(Path::new(name));
    }
    Ok(Machine::parse(name).map_err(ProfileError::from)?)
}

/// Where `calibrated` lives: `$ENCINT_MACHINE_PROFILE` if set, else
/// `$XDG_CACHE_HOME/encint/machine.json`, else `$HOME/.cache/encint/machine.json`.
///
/// # Examples
///
/// ```
/// let path = encint::machine::cached_path()?;
/// assert!(path.ends_with("machine.json") || std::env::var_os("ENCINT_MACHINE_PROFILE").is_some());
/// # Ok::<(), encint::Error>(())
/// ```
pub fn cached_path() -> Result<PathBuf> {
    let set = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty());
    if let Some(p) = set(PROFILE_ENV) {
        return Ok(PathBuf::from(p));
    }
    let base = match (set("XDG_CACHE_HOME"), set("HOME")) {
        (Some(cache), _) => PathBuf::from(cache),
        (None, Some(home)) => PathBuf::from(home).join(".cache"),
        (None, None) => return Err(ProfileError::NoCacheDir.into()),
    };
    Ok(base.join("encint").join("machine.json"))
}

/// Reads a profile file written by [`save_profile`]. Refused with
/// [`ProfileError::Malformed`]: a file over [`MAX_PROFILE_BYTES`], not JSON of the profile's
/// fields, of another format or version, a name that is empty, longer than
/// [`MAX_NAME_CHARS`] or not printable, lanes or planned threads outside 1 to
/// [`MAX_CPU_THREADS`], a round not in (0, [`MAX_PROFILE_SECONDS`]] or a latency not in
/// [0, [`MAX_PROFILE_SECONDS`]] seconds.
///
/// # Examples
///
/// ```
/// use encint::machine::{load_profile, ProfileError};
/// use encint::Error;
///
/// let path = std::env::temp_dir().join(format!("encint-doc-bad-{}.json", std::process::id()));
/// std::fs::write(&path, r#"{"format": "encint-machine-profile", "version": 1}"#)?;
/// assert!(matches!(load_profile(&path), Err(Error::Profile(ProfileError::Malformed { .. }))));
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_profile(path: &Path) -> Result<Machine> {
    let io = |e: std::io::Error| ProfileError::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    let malformed = |reason: String| ProfileError::Malformed {
        path: path.to_path_buf(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(MAX_PROFILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_PROFILE_BYTES {
        return Err(malformed(format!("larger than {MAX_PROFILE_BYTES} bytes")).into());
    }
    let f: ProfileFile = serde_json::from_slice(&bytes)
        .map_err(|e| malformed(format!("not a machine profile ({e})")))?;
    if f.format != FORMAT || f.version != VERSION {
        return Err(malformed(format!(
            "format {:?} version {}, expected {FORMAT:?} version {VERSION}",
            f.format, f.version
        ))
        .into());
    }
    let machine = Machine {
        name: f.name,
        lanes: f.lanes,
        round_s: f.round_s,
        latency_s: f.latency_s,
        plan_threads: f.plan_threads,
        gpu: f.gpu,
    };
    check(&machine).map_err(malformed)?;
    Ok(machine)
}

/// Why `m` is not a machine, if it is not.
fn check(m: &Machine) -> std::result::Result<(), String> {
    let name_ok = !m.name.is_empty()
        && m.name.chars().count() <= MAX_NAME_CHARS
        && m.name.chars().all(|c| c.is_ascii_graphic() || c == ' ');
    if !name_ok {
        return Err(format!(
            "the name must be 1 to {MAX_NAME_CHARS} printable ASCII characters"
        ));
    }
    for (what, v) in [("lanes", m.lanes), ("plan_threads", m.plan_threads)] {
        if !(1..=MAX_CPU_THREADS).contains(&v) {
            return Err(format!("{what} {v} is not from 1 to {MAX_CPU_THREADS}"));
        }
    }
    if !(m.round_s.is_finite() && m.round_s > 0.0 && m.round_s <= MAX_PROFILE_SECONDS) {
        return Err(format!(
            "a round of {} s is not in (0, {MAX_PROFILE_SECONDS}] s",
            m.round_s
        ));
    }
    if !(m.latency_s.is_finite() && (0.0..=MAX_PROFILE_SECONDS).contains(&m.latency_s)) {
        return Err(format!(
            "a latency of {} s is not in [0, {MAX_PROFILE_SECONDS}] s",
            m.latency_s
        ));
    }
    Ok(())
}

/// Writes `machine` to `path` (creating its folder), replacing the file only if it is a
/// machine profile already ([`ProfileError::WouldOverwrite`] otherwise); the new file is
/// written beside it and renamed into place, so a failed write leaves the old one.
///
/// # Examples
///
/// ```
/// use encint::machine::{save_profile, ProfileError};
/// use encint::{Error, Machine};
///
/// let path = std::env::temp_dir().join(format!("encint-doc-keep-{}.txt", std::process::id()));
/// std::fs::write(&path, "my notes")?;
/// let refused = save_profile(&Machine::cpu(4), &path);
/// assert!(matches!(refused, Err(Error::Profile(ProfileError::WouldOverwrite { .. }))));
/// assert_eq!(std::fs::read_to_string(&path)?, "my notes");
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn save_profile(machine: &Machine, path: &Path) -> Result<()> {
    let io = |e: std::io::Error| ProfileError::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    check(machine).map_err(ProfileError::Calibration)?;
    if path.exists() && load_profile(path).is_err() {
        return Err(ProfileError::WouldOverwrite {
            path: path.to_path_buf(),
        }
        .into());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let file = ProfileFile {
        format: FORMAT.into(),
        version: VERSION,
        name: machine.name.clone(),
        lanes: machine.lanes,
        round_s: machine.round_s,
        latency_s: machine.latency_s,
        plan_threads: machine.plan_threads,
        gpu: machine.gpu,
    };
    let text = serde_json::to_string_pretty(&file)
        .map_err(|e| Error::Internal(format!("a machine profile as JSON: {e}")))?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp-{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text + "\n").map_err(io)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        std::fs::remove_file(&tmp).ok();
        io(e)
    })?;
    Ok(())
}

/// How long [`calibrate`] measures: each level width is run `repeats` times (after one
/// run that is not timed) as a chain of `levels` levels, and the median is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Calibration {
    /// Timed runs of each width, 1 to 100.
    pub repeats: usize,
    /// Levels in each run, 1 to 64.
    pub levels: usize,
}

impl Default for Calibration {
    /// Seven runs of eight levels (about two seconds on a 2-core CPU, after the keys).
    fn default() -> Self {
        Calibration {
            repeats: 7,
            levels: 8,
        }
    }
}

/// One level width as [`calibrate`] timed it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelTime {
    /// Bootstraps in the level.
    pub width: usize,
    /// The rounds the model gives the level (`⌈width / lanes⌉`).
    pub rounds: usize,
    /// The median seconds of one level.
    pub seconds: f64,
}

/// A measured profile and the timings it was fitted to.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibrated {
    /// The profile: the server's lanes, with round and latency fitted to the two widths.
    pub machine: Machine,
    /// The narrow level (one round: as many bootstraps as lanes).
    pub narrow: LevelTime,
    /// The wide level (more rounds).
    pub wide: LevelTime,
}

/// Times levels of bootstraps on `server` (its backend and threads) and fits the machine
/// model to them: on a CPU the lanes are the server's threads and the levels are one and
/// two rounds wide; on a GPU one lane, levels of 1 and 288 bootstraps. The round is the
/// slope between the two widths, the latency what the narrow level costs beyond its
/// rounds (at least 0; when the wide level is not measurably slower, the round is the
/// narrow level's whole time). The profile is named `measured:cpu:N` or `measured:gpu`.
///
/// The levels bootstrap a digit `client` encrypts through distinct tables: the same work
/// as any circuit's bootstraps (a noiseless digit would not do: a blind rotation by a zero
/// mask skips its work). Errors: [`ProfileError::Calibration`] on options out of range or
/// more than [`MAX_CALIBRATED_LANES`] threads, [`Error::KeySetMismatch`] when `client`
/// and `server` are of two key sets.
pub fn calibrate(client: &ClientKey, server: &Server, opts: &Calibration) -> Result<Calibrated> {
    if !(1..=100).contains(&opts.repeats) || !(1..=64).contains(&opts.levels) {
        return Err(ProfileError::Calibration(format!(
            "{} repeats of {} levels: repeats must be 1 to 100, levels 1 to 64",
            opts.repeats, opts.levels
        ))
        .into());
    }
    if client.key_set() != server.key().key_set() {
        return Err(Error::KeySetMismatch {
            position: 0,
            expected: server.key().key_set(),
            found: client.key_set(),
        });
    }
    let input = crate::encrypt(client, 0, 1)?;
    let input = &input.digits()[0];
    let gpu = server.backend() == BackendKind::Gpu;
    let threads = server.threads();
    if !gpu && threads > MAX_CALIBRATED_LANES {
        return Err(ProfileError::Calibration(format!(
            "{threads} threads: at most {MAX_CALIBRATED_LANES} are measured"
        ))
        .into());
    }
    let (lanes, narrow, wide) = if gpu {
        (1, 1, 2 * MAX_CALIBRATED_LANES)
    } else {
        (threads, threads, 2 * threads)
    };
    let time = |width: usize| -> Result<LevelTime> {
        Ok(LevelTime {
            width,
            rounds: width.div_ceil(lanes),
            seconds: time_levels(server, input, width, opts)?,
        })
    };
    let (narrow, wide) = (time(narrow)?, time(wide)?);
    let slope = (wide.seconds - narrow.seconds) / (wide.rounds - narrow.rounds) as f64;
    let (round_s, latency_s) = if slope > 0.0 {
        let latency = (narrow.seconds - narrow.rounds as f64 * slope).max(0.0);
        (slope, latency)
    } else {
        (narrow.seconds / narrow.rounds as f64, 0.0)
    };
    let (name, plan_threads) = if gpu {
        // The lanes a GPU's level is worth: its latency at its throughput.
        let worth = (latency_s / round_s).round() as usize;
        ("measured:gpu".to_string(), worth.clamp(1, MAX_CPU_THREADS))
    } else {
        (format!("measured:cpu:{threads}"), threads)
    };
    let machine = Machine {
        name,
        lanes,
        round_s: round_s.clamp(1e-9, MAX_PROFILE_SECONDS),
        latency_s: latency_s.min(MAX_PROFILE_SECONDS),
        plan_threads,
        gpu,
    };
    Ok(Calibrated {
        machine,
        narrow,
        wide,
    })
}

/// The median seconds of one level of `width` bootstraps of `input` on `server`, over
/// `opts.repeats` runs of `opts.levels` chained levels (after one untimed run).
fn time_levels(server: &Server, input: &Digit, width: usize, opts: &Calibration) -> Result<f64> {
    // Distinct bootstraps: an input shifted by one of 18 offsets (sign and constant) through
    // one of 16 indicator tables; each level reads one output of the level before.
    let tables: Vec<NegacyclicLut> = (0..16)
        .map(|t| NegacyclicLut::from_fn(-8..=7, |v| i64::from(v == t - 8)))
        .collect::<std::result::Result<_, _>>()?;
    let mut b = Builder::new();
    let mut feed = b.input();
    let mut outputs = Vec::with_capacity(width * opts.levels);
    for _ in 0..opts.levels {
        let inputs: Vec<_> = (0..18)
            .map(|k: i64| b.linear(&[(feed, if k < 9 { 1 } else { -1 })], k % 9 - 4))
            .collect();
        let level: Vec<_> = (0..width)
            .map(|i| b.lut(inputs[i / 16 % 18], &tables[i % 16]))
            .collect();
        feed = level[0];
        outputs.extend(level);
    }
    let circuit = b.finish(outputs);
    if circuit.cost().bootstraps != (width * opts.levels) as u64 {
        return Err(Error::Internal(format!(
            "the calibration circuit has {} bootstraps, not {}",
            circuit.cost().bootstraps,
            width * opts.levels
        )));
    }
    server.run_circuit(&circuit, &[input])?;
    let mut times = Vec::with_capacity(opts.repeats);
    for _ in 0..opts.repeats {
        let start = Instant::now();
        server.run_circuit(&circuit, &[input])?;
        times.push(start.elapsed().as_secs_f64() / opts.levels as f64);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}
