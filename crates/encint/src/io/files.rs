//! Safe file input and output: the one writer and the one bounded reader behind every file
//! the library, the command-line tool and the Python package write or read.
//!
//! Writing ([`write_all`], [`write_one`]) never loses what is already stored:
//!
//! - an existing destination is never replaced unless the caller passes `force`
//!   (checked before any work by [`check_new`], and again atomically when the file is
//!   moved into place);
//! - each file is first written to a temporary in the destination's directory, created
//!   exclusively (`O_CREAT | O_EXCL`: a planted file or symlink makes the create fail
//!   instead of being followed) under a short unpredictable name (`.` + 16 hex digits +
//!   `.tmp`, so any valid destination name works), with its final mode from the start
//!   (0600 for secrets), then flushed to disk (`fsync`);
//! - all temporaries of one call are written before any is moved into place (so a key
//!   generation never leaves a new client key beside an old server key); with `force` a
//!   temporary replaces the destination by `rename` (atomic: a symlink at the destination
//!   is replaced, never followed, and a replaced file takes the new mode); without `force`
//!   a temporary is moved by hard-linking it to the destination (which fails if the
//!   destination exists) and unlinking it;
//! - on any failure (a full disk, a file size limit) every temporary is removed and every
//!   file already moved by this call without `force` is removed again: an existing
//!   destination keeps its old content, never a truncated one;
//! - every error names the path ([`FileError`]);
//! - an output that is one of the command's inputs is refused, with or without `force`
//!   ([`check_distinct`]): `--out client.key --force` would otherwise replace the only copy
//!   of a secret key with what was derived from it.
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
#[derive(Clone, Copy, Debug)]
pub struct Output<'a> {
    /// Destination path.
    pub path: &'a Path,
    /// Content.
    pub bytes: &'a [u8],
    /// Permissions.
    pub mode: Mode,
}

/// Errors of this module; each names the path it is about.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The destination exists and replacing it was not asked for.
    #[error(
        "{} already exists (replaced only when asked: --force, overwrite=True)",
        path.display()
    )]
    Exists {
        /// The destination.
        path: PathBuf,
    },
    /// An output is the same file as an input (writing it would replace the input).
    #[error(
        "{} is the same file as the input {}: writing it would replace the input (choose \
         another output path)",
        output.display(),
        input.display()
    )]
    SameFile {
        /// The output path.
        output: PathBuf,
        /// The input path it is the same file as.
        input: PathBuf,
    },
    /// The path names no file (it ends in `..` or is a root).
    #[error("{} is not a file path", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// A file to read is larger than allowed.
    #[error("{} is larger than the {limit} bytes allowed for it", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit in bytes.
        limit: u64,
    },
    /// The operating system refused a read or a write.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done (`read`, `write`, `create a temporary for`).
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> FileError + 'a {
    move |source| FileError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// Errors ([`FileError::Exists`]) unless every destination is new (or `force` is given).
/// Call it before expensive work so that a refusal costs nothing; [`write_all`] checks
/// again atomically.
///
/// # Examples
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("encint-doc-{}-new", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use encint::io::files::{check_new, FileError};
///
/// let key = dir.join("server.key");
/// check_new(&[&key], false)?; // nothing there yet
/// std::fs::write(&key, b"old").unwrap();
/// assert!(matches!(check_new(&[&key], false), Err(FileError::Exists { .. })));
/// check_new(&[&key], true)?; // replacing is asked for
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), encint::io::files::FileError>(())
/// ```
pub fn check_new(paths: &[&Path], force: bool) -> Result<(), FileError> {
    if force {
        return Ok(());
    }
    for p in paths {
        // symlink_metadata: a dangling symlink counts as existing too.
        if p.symlink_metadata().is_ok() {
            return Err(FileError::Exists {
                path: p.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// Errors ([`FileError::SameFile`]) when an output is one of the inputs: the same file
/// (device and inode, whether reached through a symlink or a hard link), or, for paths
/// that do not exist yet, the same path once the directory is resolved. Call it before any
/// work, with or without `force`: a forced write replaces the input.
///
/// # Examples
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("encint-doc-{}-distinct", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use encint::io::files::{check_distinct, FileError};
///
/// let input = dir.join("client.key");
/// std::fs::write(&input, b"secret").unwrap();
/// let same = dir.join(".").join("client.key"); // another spelling of the input
/// let err = check_distinct(&[&same], &[&input]).unwrap_err();
/// assert!(matches!(err, FileError::SameFile { .. }));
/// check_distinct(&[&dir.join("server.key")], &[&input])?;
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), encint::io::files::FileError>(())
/// ```
pub fn check_distinct(outputs: &[&Path], inputs: &[&Path]) -> Result<(), FileError> {
    for out in outputs {
        let (out_ids, out_path) = (identities(out), resolved(out));
        for input in inputs {
            let shared = identities(input).iter().any(|i| out_ids.contains(i));
            let same_path = out_path.is_some() && out_path == resolved(input);
            if shared || same_path {
                return Err(FileError::SameFile {
                    output: out.to_path_buf(),
                    input: input.to_path_buf(),
                });
            }
        }
    }
    Ok(())
}

/// The files `p` names: the file a symlink leads to and the link itself (device and
/// inode; none for a path that does not exist).
#[cfg(unix)]
fn identities(p: &Path) -> Vec<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    [std::fs::metadata(p), std::fs::symlink_metadata(p)]
        .into_iter()
        .flatten()
        .map(|m| (m.dev(), m.ino()))
        .collect()
}

/// Elsewhere the canonical path stands for the file.
#[cfg(not(unix))]
fn identities(p: &Path) -> Vec<PathBuf> {
    std::fs::canonicalize(p).into_iter().collect()
}

/// `p` with its directory resolved (symlinks, `..`), whether or not the file exists.
fn resolved(p: &Path) -> Option<PathBuf> {
    if let Ok(c) = std::fs::canonicalize(p) {
        return Some(c);
    }
    let name = p.file_name()?;
    Some(std::fs::canonicalize(parent_dir(p)).ok()?.join(name))
}

/// The directory of `dest` (`.` for a bare name).
fn parent_dir(dest: &Path) -> &Path {
    match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// A fresh temporary name beside `dest`: 13 bytes, whatever the length of `dest`'s name.
fn temp_path(dest: &Path) -> Result<PathBuf, FileError> {
    if dest.file_name().is_none() {
        return Err(FileError::NotAFile {
            path: dest.to_path_buf(),
        });
    }
    let nonce: u64 = rand::random();
    Ok(parent_dir(dest).join(format!(".{nonce:016x}.tmp")))
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

fn write_temp(out: &Output) -> Result<PathBuf, FileError> {
    // A name already taken (by chance or planted) is skipped: a few fresh tries.
    let mut tries = 0;
    let (tmp, mut f) = loop {
        let tmp = temp_path(out.path)?;
        match create_exclusive(&tmp, out.mode) {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 8 => tries += 1,
            Err(e) => return Err(io("create a temporary for", out.path)(e)),
        }
    };
    let written = f.write_all(out.bytes).and_then(|()| f.sync_all());
    if let Err(e) = written {
        drop(f);
        let _ = std::fs::remove_file(&tmp);
        return Err(io("write", out.path)(e));
    }
    Ok(tmp)
}

/// Moves `tmp` to `dest`; without `force` an existing `dest` is an error and stays as is.
fn commit(tmp: &Path, dest: &Path, force: bool) -> Result<(), FileError> {
    let moved = if force {
        std::fs::rename(tmp, dest)
    } else {
        std::fs::hard_link(tmp, dest).and_then(|()| std::fs::remove_file(tmp))
    };
    moved.map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            FileError::Exists {
                path: dest.to_path_buf(),
            }
        } else {
            io("write", dest)(e)
        }
    })
}

fn sync_dir(dest: &Path) {
    // Best effort: make the new directory entry durable (not supported everywhere).
    if let Ok(d) = File::open(parent_dir(dest)) {
        let _ = d.sync_all();
    }
}

/// Writes every file of `outputs` as described in the module docs: all or (as far as the
/// file system allows) nothing, never replacing an existing file unless `force`.
///
/// # Examples
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("encint-doc-{}-all", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use encint::io::files::{write_all, Mode, Output};
///
/// let (client, server) = (dir.join("client.key"), dir.join("server.key"));
/// std::fs::write(&server, b"old").unwrap();
/// let outputs = [
///     Output { path: &client, bytes: b"new client", mode: Mode::Secret },
///     Output { path: &server, bytes: b"new server", mode: Mode::Public },
/// ];
/// assert!(write_all(&outputs, false).is_err()); // server.key exists
/// assert!(!client.exists()); // nothing was written
/// assert_eq!(std::fs::read(&server).unwrap(), b"old");
/// write_all(&outputs, true)?;
/// assert_eq!(std::fs::read(&client).unwrap(), b"new client");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), encint::io::files::FileError>(())
/// ```
pub fn write_all(outputs: &[Output], force: bool) -> Result<(), FileError> {
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
///
/// # Examples
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("encint-doc-{}-one", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use encint::io::files::{write_one, Mode};
///
/// let path = dir.join("x.ct");
/// write_one(&path, b"first", Mode::Public, false)?;
/// assert!(write_one(&path, b"second", Mode::Public, false).is_err()); // kept
/// assert_eq!(std::fs::read(&path).unwrap(), b"first");
/// write_one(&path, b"second", Mode::Public, true)?; // replaced when asked
/// assert_eq!(std::fs::read(&path).unwrap(), b"second");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), encint::io::files::FileError>(())
/// ```
pub fn write_one(path: &Path, bytes: &[u8], mode: Mode, force: bool) -> Result<(), FileError> {
    write_all(&[Output { path, bytes, mode }], force)
}

/// Reads a whole file of at most `limit` bytes; larger files (and endless ones such as
/// `/dev/zero`) are refused after reading at most `limit + 1` bytes.
///
/// # Examples
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("encint-doc-{}-read", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use encint::io::files::{read_bounded, FileError};
///
/// let path = dir.join("data");
/// std::fs::write(&path, [7u8; 100]).unwrap();
/// assert_eq!(read_bounded(&path, 100)?, vec![7u8; 100]);
/// let err = read_bounded(&path, 99).unwrap_err();
/// assert!(matches!(err, FileError::TooLarge { limit: 99, .. }));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), encint::io::files::FileError>(())
/// ```
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let f = File::open(path).map_err(io("read", path))?;
    let too_big = || FileError::TooLarge {
        path: path.to_path_buf(),
        limit,
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
        .map_err(io("read", path))?;
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
            "encint-files-{name}-{}-{:x}",
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
        .unwrap_err();
        assert!(matches!(err, FileError::Exists { .. }), "{err}");
        assert!(err.to_string().contains(&b.display().to_string()), "{err}");
        assert_eq!(std::fs::read(&b).unwrap(), b"old");
        assert_eq!(entries(&d), ["b"]);
        write_one(&b, b"forced", Mode::Public, true).unwrap();
        assert_eq!(std::fs::read(&b).unwrap(), b"forced");
        assert_eq!(entries(&d), ["b"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// The permission bits of the file at `p`.
    #[cfg(unix)]
    fn mode(p: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[cfg(unix)]
    #[test]
    fn secret_mode_from_the_start_and_symlinks_not_followed() {
        let d = dir("mode");
        let k = d.join("client.key");
        write_one(&k, b"secret", Mode::Secret, false).unwrap();
        assert_eq!(mode(&k), 0o600);
        // A dangling symlink at the destination counts as existing and is left alone.
        let target = d.join("target");
        let link = d.join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(write_one(&link, b"x", Mode::Secret, false).is_err());
        assert!(!target.exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn forced_replace_takes_the_new_mode_and_replaces_a_symlink_not_its_target() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("force");
        // An existing world-readable file replaced by a secret: 0600 afterwards.
        let k = d.join("client.key");
        std::fs::write(&k, b"old").unwrap();
        std::fs::set_permissions(&k, std::fs::Permissions::from_mode(0o666)).unwrap();
        write_one(&k, b"secret", Mode::Secret, true).unwrap();
        assert_eq!(mode(&k), 0o600);
        assert_eq!(std::fs::read(&k).unwrap(), b"secret");
        // A symlink at the destination: the link is replaced, its target keeps its bytes.
        let target = d.join("target");
        std::fs::write(&target, b"keep me").unwrap();
        let link = d.join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_one(&link, b"new", Mode::Secret, true).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
        assert!(!link.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&link).unwrap(), b"new");
        assert_eq!(entries(&d), ["client.key", "link", "target"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_output_that_is_an_input_is_refused() {
        let d = dir("distinct");
        let key = d.join("client.key");
        std::fs::write(&key, b"secret").unwrap();
        let other = d.join("public.key");
        let same = |out: &Path| check_distinct(&[out], &[&key]);
        assert!(matches!(same(&key), Err(FileError::SameFile { .. })));
        // The same file through `..` and through a directory symlink.
        let sub = d.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        assert!(same(&sub.join("..").join("client.key")).is_err());
        assert!(check_distinct(&[&other], &[&key]).is_ok());
        assert!(check_distinct(&[&key], &[&other, &key]).is_err());
        #[cfg(unix)]
        {
            let link = d.join("link.key");
            std::os::unix::fs::symlink(&key, &link).unwrap();
            assert!(same(&link).is_err(), "a symlink to the input");
            assert!(
                check_distinct(&[&key], &[&link]).is_err(),
                "an input through a symlink"
            );
            let hard = d.join("hard.key");
            std::fs::hard_link(&key, &hard).unwrap();
            assert!(same(&hard).is_err(), "a hard link to the input");
            let dir_link = d.join("dir-link");
            std::os::unix::fs::symlink(&d, &dir_link).unwrap();
            assert!(same(&dir_link.join("client.key")).is_err());
            // An output and an input that do not exist yet, at one resolved path.
            let new = d.join("new.ct");
            assert!(check_distinct(&[&dir_link.join("new.ct")], &[&new]).is_err());
        }
        let err = same(&key).unwrap_err().to_string();
        assert!(
            err.contains("client.key") && err.contains("same file"),
            "{err}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_name_of_255_bytes_is_written() {
        let d = dir("long");
        let name = "k".repeat(255);
        let p = d.join(&name);
        write_one(&p, b"long", Mode::Public, false).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"long");
        write_one(&p, b"longer", Mode::Public, true).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"longer");
        assert_eq!(entries(&d), [name]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_failed_write_names_the_path_and_leaves_the_old_file() {
        let d = dir("fail");
        let p = d.join("missing-dir").join("server.key");
        let err = write_one(&p, b"x", Mode::Public, true).unwrap_err();
        assert!(matches!(err, FileError::Io { .. }), "{err}");
        assert!(err.to_string().contains("server.key"), "{err}");
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
