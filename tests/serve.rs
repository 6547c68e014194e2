//! `serve` through the binary.
