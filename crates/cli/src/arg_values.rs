//! The value parsers of the numeric arguments every command shares, so that a bad count
//! is a usage error when the arguments are parsed, before any work: thread counts
//! (`--threads`, at most the facade's limit), counts that must be at least 1 (`--runs`,
//! `--trials`, `--images`, `--batch`, ...) and widths (`--bits`) from a command's set.

/// `--threads` of a command that runs a thread pool: 1 to the facade's limit
/// ([`encint::check_threads`]: 4 per core).
pub fn threads(s: &str) -> Result<usize, String> {
    let n = number(s)?;
    encint::check_threads(n).map_err(|e| e.to_string())
}

/// A thread count a command only models (`encint cost --threads`: no thread is started):
/// 1 to 65536.
pub fn modelled_threads(s: &str) -> Result<usize, String> {
    in_range(s, 1, 1 << 16)
}

/// `--machine P`: a built-in profile (`cpu:N`, `h100`, `h200`), `calibrated` (the profile
/// `encint calibrate` saved) or a profile file's path ([`encint::machine::profile`]).
pub fn machine(s: &str) -> Result<encint::Machine, String> {
    encint::machine::profile(s).map_err(|e| e.to_string())
}

/// A count of at least 1 (`--runs`, `--trials`, `--images`, `--batch`, `--slots`).
pub fn count(s: &str) -> Result<usize, String> {
    in_range(s, 1, usize::MAX)
}

/// A count of at least 1 as a `u64` (`--max-nodes`).
pub fn count_u64(s: &str) -> Result<u64, String> {
    let n: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a whole number"))?;
    if n == 0 {
        return Err("must be at least 1".into());
    }
    Ok(n)
}

/// A count of at least 1 as a `u32` (`--nodes`).
pub fn count_u32(s: &str) -> Result<u32, String> {
    let n = in_range(s, 1, u32::MAX as usize)?;
    u32::try_from(n).map_err(|e| e.to_string())
}

/// A number from `lo` to `hi`.
pub fn in_range(s: &str, lo: usize, hi: usize) -> Result<usize, String> {
    let n = number(s)?;
    match (n < lo, n > hi) {
        (true, _) if lo == 1 => Err("must be at least 1".into()),
        (false, false) => Ok(n),
        _ => Err(format!("{n} is outside {lo}..={hi}")),
    }
}

/// A width in bits that is one of `allowed` (`what` says why: whose widths they are).
pub fn width_in(s: &str, allowed: &[usize], what: &str) -> Result<usize, String> {
    let n = number(s)?;
    if allowed.contains(&n) {
        return Ok(n);
    }
    let list: Vec<String> = allowed.iter().map(ToString::to_string).collect();
    Err(format!("width {n}: {what} are {}", list.join(", ")))
}

fn number(s: &str) -> Result<usize, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a whole number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_threads_and_widths() {
        assert_eq!(count("3"), Ok(3));
        assert!(count("0").unwrap_err().contains("at least 1"));
        assert!(count("-1").is_err() && count("x").is_err());
        assert_eq!(threads("1"), Ok(1));
        assert!(threads("0").is_err());
        assert!(threads("100000").unwrap_err().contains("100000"));
        assert_eq!(modelled_threads("64"), Ok(64));
        assert!(modelled_threads("0").is_err());
        assert_eq!(width_in("16", &[8, 16], "the rows' widths"), Ok(16));
        let e = width_in("12", &[8, 16], "the rows' widths").unwrap_err();
        assert!(e.contains("12") && e.contains("8, 16"), "{e}");
        assert_eq!(in_range("4", 4, 128), Ok(4));
        assert!(in_range("3", 4, 128).unwrap_err().contains("4..=128"));
        assert_eq!(count_u64("5"), Ok(5));
        assert!(count_u64("0").is_err());
        assert_eq!(count_u32("2"), Ok(2));
    }
}
