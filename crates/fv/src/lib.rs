//! encint-fv (work in progress).
