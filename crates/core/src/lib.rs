//! encint core.
