//! The integration tests: one binary (compiled and linked once), one module per area, shared
//! helpers in `util`.
// A test/example crate: its `pub` items are for its own modules, not an API.
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used)]

mod agent;
mod caps;
mod comments;
mod extract;
mod filters;
mod giant;
mod giant_disk;
mod hardening;
mod layout;
mod link_filters;
mod link_rules;
mod link_storage;
mod link_views;
mod links;
mod local;
mod mcp;
mod mcp_clients;
mod omnisearch;
mod passages;
mod portability;
mod ranking;
mod readme;
mod related;
mod scan;
mod serve;
mod skipped;
mod trust;
mod trust_files;
mod trust_links;
mod trust_names;
mod util;
mod vaults;
mod version;
