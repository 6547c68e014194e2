//! The integration tests: one binary (compiled and linked once), one module per area, shared
//! helpers in `util`.
#![allow(clippy::unwrap_used)]

mod agent;
mod giant;
mod giant_disk;
mod hardening;
mod local;
mod omnisearch;
mod skipped;
mod util;
