//! Safe file input and output for every command that reads or writes a file.
//!
//! Writing ([`write_all`]) never loses what is already stored:
//!
//! - an existing destination is never replaced unless the caller passes `force`
//!   (checked before any work, and again atomically when the file is moved into place);
//! - each file is first written to a temporary in the destination's directory, created
//!   exclusively (`O_CREAT | O_EXCL`: a planted file or symlink makes the create fail
//!   instead of being followed) under an unpredictable name, with its final mode from the
//!   start (0600 for secrets), then flushed to disk (`fsync`);
//! - all temporaries of one call are written before any is moved into place (so `keygen`
//!   never leaves a new client key beside an old server key), and without `force` a
//!   temporary is moved by hard-linking it to the destination (which fails if the
//!   destination exists) and unlinking it;
//! - on any failure every temporary is removed and every file already moved by this
//!   call is removed again;
//! - every error names the path.
//!
//! Reading ([`read_bounded`]) refuses files larger than a stated limit before reading
//! them, and never reads more than the limit plus one byte (so `/dev/zero` fails fast).

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Who may read a file this module writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Secret material (client keys): owner read/write only (0600).
    Secret,
    /// Anything else: 0644 (less the process umask).
    Public,
}

impl Mode {
    #[cfg(unix)]
    fn bits(self) -> u32 {
        match self {
            Mode::Secret => 0o600,
            Mode::Public => 0o644,
        }
    }
}

/// One file to write.
pub struct Output<'a> {
    /// Destination path.
    pub path: &'a Path,
    /// Content.
    pub bytes: &'a [u8],
    /// Permissions.
    pub mode: Mode,
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Errors unless every destination is new (or `force` is given). Call it before
/// expensive work so that a refusal costs nothing; [`write_all`] checks again atomically.
pub fn check_new(paths: &[&Path], force: bool) -> Res<()> {
    if force {
        return Ok(());
    }
    for p in paths {
        // symlink_metadata: a dangling symlink counts as existing too.
        if p.symlink_metadata().is_ok() {
            return Err(format!(
                "{} already exists (pass --force to replace it)",
                p.display()
            )
            .into());
        }
    }
    Ok(())
}

fn temp_path(dest: &Path) -> Res<PathBuf> {
    let name = dest
        .file_name()
        .ok_or_else(|| format!("{} is not a file path", dest.display()))?;
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let nonce: u128 = rand::random();
    let mut tmp = std::ffi::OsString::from(".");
    tmp.push(name);
    tmp.push(format!(".{nonce:032x}.tmp"));
    Ok(dir.join(tmp))
}

fn create_exclusive(path: &Path, mode: Mode) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(mode.bits());
    }
    #[cfg(not(unix))]
    let _ = mode;
    o.open(path)
}

fn write_temp(out: &Output) -> Res<PathBuf> {
    let tmp = temp_path(out.path)?;
    let mut f = create_exclusive(&tmp, out.mode)
        .map_err(|e| format!("cannot create a temporary for {}: {e}", out.path.display()))?;
    let written = f.write_all(out.bytes).and_then(|()| f.sync_all());
    if let Err(e) = written {
        drop(f);
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("cannot write {}: {e}", out.path.display()).into());
    }
    Ok(tmp)
}

/// Moves `tmp` to `dest`; without `force` an existing `dest` is an error and stays as is.
fn commit(tmp: &Path, dest: &Path, force: bool) -> Res<()> {
    let moved = if force {
        std::fs::rename(tmp, dest)
    } else {
        std::fs::hard_link(tmp, dest).and_then(|()| std::fs::remove_file(tmp))
    };
    moved.map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            format!(
                "{} already exists (pass --force to replace it)",
                dest.display()
            )
            .into()
        } else {
            format!("cannot write {}: {e}", dest.display()).into()
        }
    })
}

fn sync_dir(dest: &Path) {
    // Best effort: make the new directory entry durable (not supported everywhere).
    if let Some(dir) = dest.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

/// Writes every file of `outputs` as described in the module docs: all or (as far as the
/// file system allows) nothing, never replacing an existing file unless `force`.
pub fn write_all(outputs: &[Output], force: bool) -> Res<()> {
    let paths: Vec<&Path> = outputs.iter().map(|o| o.path).collect();
    check_new(&paths, force)?;
    let mut temps: Vec<PathBuf> = Vec::with_capacity(outputs.len());
    for out in outputs {
        match write_temp(out) {
            Ok(t) => temps.push(t),
            Err(e) => {
                temps.iter().for_each(|t| {
                    let _ = std::fs::remove_file(t);
                });
                return Err(e);
            }
        }
    }
    for (i, (tmp, out)) in temps.iter().zip(outputs).enumerate() {
        if let Err(e) = commit(tmp, out.path, force) {
            for t in &temps[i..] {
                let _ = std::fs::remove_file(t);
            }
            if !force {
                // The files moved so far were created by this call: take them back.
                for done in &outputs[..i] {
                    let _ = std::fs::remove_file(done.path);
                }
            }
            return Err(e);
        }
        sync_dir(out.path);
    }
    Ok(())
}

/// [`write_all`] for one file.
pub fn write_one(path: &Path, bytes: &[u8], mode: Mode, force: bool) -> Res<()> {
    write_all(&[Output { path, bytes, mode }], force)
}

/// Reads a whole file of at most `limit` bytes; larger files (and endless ones such as
/// `/dev/zero`) are refused after reading at most `limit + 1` bytes.
pub fn read_bounded(path: &Path, limit: u64) -> Res<Vec<u8>> {
    let f = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let too_big = || -> Box<dyn std::error::Error> {
        format!(
            "{} is larger than the {limit} bytes allowed for it",
            path.display()
        )
        .into()
    };
    let size_hint = match f.metadata() {
        Ok(m) if m.is_file() => {
            if m.len() > limit {
                return Err(too_big());
            }
            m.len()
        }
        _ => 0,
    };
    let mut bytes = Vec::with_capacity(usize::try_from(size_hint).unwrap_or(0));
    f.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() as u64 > limit {
        return Err(too_big());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "encint-safe-{name}-{}-{:x}",
            std::process::id(),
            rand::random::<u64>()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn entries(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn never_replaces_without_force_and_leaves_no_temporary() {
        let d = dir("keep");
        let a = d.join("a");
        let b = d.join("b");
        std::fs::write(&b, b"old").unwrap();
        let err = write_all(
            &[
                Output {
                    path: &a,
                    bytes: b"new a",
                    mode: Mode::Secret,
                },
                Output {
                    path: &b,
                    bytes: b"new b",
                    mode: Mode::Public,
                },
            ],
            false,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains(&b.display().to_string()), "{err}");
        assert_eq!(std::fs::read(&b).unwrap(), b"old");
        assert_eq!(entries(&d), ["b"]);
        write_one(&b, b"forced", Mode::Public, true).unwrap();
        assert_eq!(std::fs::read(&b).unwrap(), b"forced");
        assert_eq!(entries(&d), ["b"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn secret_mode_from_the_start_and_symlinks_not_followed() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("mode");
        let k = d.join("client.key");
        write_one(&k, b"secret", Mode::Secret, false).unwrap();
        let mode = std::fs::metadata(&k).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // A dangling symlink at the destination counts as existing and is left alone.
        let target = d.join("target");
        let link = d.join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(write_one(&link, b"x", Mode::Secret, false).is_err());
        assert!(!target.exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn bounded_read_refuses_large_and_endless_files() {
        let d = dir("read");
        let f = d.join("f");
        std::fs::write(&f, [7u8; 100]).unwrap();
        assert_eq!(read_bounded(&f, 100).unwrap().len(), 100);
        let err = read_bounded(&f, 99).unwrap_err().to_string();
        assert!(err.contains("larger than the 99 bytes"), "{err}");
        #[cfg(target_os = "linux")]
        assert!(read_bounded(Path::new("/dev/zero"), 1 << 20).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
