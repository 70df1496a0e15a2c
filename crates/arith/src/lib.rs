//! encint-arith (work in progress).
