//! encint-tfhe (work in progress).
