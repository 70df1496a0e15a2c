//! Stage 2 (not yet implemented).
