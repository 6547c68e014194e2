//! What both engines need to know about a note's text: its frontmatter, headings and tags
//! ([`note`]), and how to cut a one-line excerpt and find a line ([`excerpt`]).
//!
//! It sits beside the core, below the engines, so the local engine never has to import the
//! Omnisearch client (or the other way round) for a helper.

mod blocks;
pub(crate) mod canvas;
pub(crate) mod comments;
mod destination;
pub(crate) mod excerpt;
pub(crate) mod links;
pub(crate) mod note;
#[cfg(any(feature = "mcp", feature = "cli"))]
pub(crate) mod outline;
pub(crate) mod parts;
pub(crate) mod passage;
pub(crate) mod properties;
mod property_links;
pub(crate) mod scan;
pub(crate) mod terminal;
pub(crate) mod tokens;
pub(crate) mod walk;

/// File name without its extension, from a `/`-separated path.
pub(crate) fn stem_of(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rfind('.') {
        Some(i) if i > 0 => name[..i].to_string(),
        _ => name.to_string(),
    }
}
