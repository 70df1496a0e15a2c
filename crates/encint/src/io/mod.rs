//! Everything that leaves or enters a process: files and their envelopes, uploads and
//! downloads.
//!
//! - [`files`]: the one writer and the one bounded reader behind every file.
//! - [`contents`]: what a file holds, named from its header ([`contents::identify`]).
//! - [`wire`]: ciphertext files of every value (exact integers, typed values, arrays).
//! - [`seeded`]: seeded uploads (one CSPRNG seed for every mask, one body per digit).
//! - [`public`]: public-key encryption and its compact uploads.
//! - [`packed`]: packed results, a few bytes per digit on the way back.

pub mod contents;
pub mod files;
pub mod packed;
pub mod public;
pub mod seeded;
pub mod wire;
