//! The seed of a randomised test binary: replayable from an environment variable.

/// The seed of this run: the environment variable `var`, or one drawn now; printed
/// either way as `{name}: seed N ({var}=N replays it)`.
pub fn seed(var: &str, name: &str) -> u64 {
    let seed = std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("{name}: seed {seed} ({var}={seed} replays it)");
    seed
}
