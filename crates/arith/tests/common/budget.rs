//! The noise budget the typed tests check circuits against.

/// The smallest noise budget of the shipped parameter sets (the quadratic weight a
/// bootstrap input may have), which the executors check every circuit against.
pub fn noise_budget() -> u64 {
    [
        encint_tfhe::DEFAULT_PARAMETERS,
        encint_tfhe::KS64_PARAMETERS,
    ]
    .iter()
    .map(|p| p.max_quadratic_weight())
    .min()
    .expect("two parameter sets")
}
