//! The search vocabulary every layer speaks: what a search asks (options, scope, source), what
//! it answers (response, hits, warnings), and the few errors code branches on.
//!
//! It is the ground floor: no clap, no printing, no I/O, no engine. The engines build on it,
//! the dispatcher picks among them, and the front-ends (CLI, MCP, HTTP) map their own inputs
//! onto these types and print what comes back.

mod budget;
mod error;
mod filters;
mod kind;
mod links;
mod options;
mod related;
// What the front-ends ask: the command line's, MCP's and serve's searches, one type.
#[cfg(feature = "cli")]
pub(crate) mod request;
mod response;
mod scope;
mod vaults;
mod when;

pub use budget::{fit as fit_to_budget, MAX_BUDGET, MIN_BUDGET};
pub use error::EngineError;
pub use kind::FileKind;
pub use links::{
    IncomingLink, LinkSource, LinksOptions, LinksQuery, LinksResponse, OutgoingLink, TargetKinds,
    UnresolvedTarget,
};
pub use options::{
    passage_bytes_within, IndexOptions, IndexProgress, Limits, PdfLimits, SearchOptions, Source,
    DEFAULT_MAX_NOTE_BYTES, DEFAULT_MAX_PDF_BYTES, DEFAULT_PASSAGE_BYTES, DEFAULT_PORT,
    DEFAULT_SEARCH_PDF_BUDGET,
};
pub(crate) use options::{Caps, NoProgress};
#[cfg(feature = "mcp")]
pub(crate) use related::{LinkCounts, NoteLinks};
pub use related::{
    RelatedHit, RelatedOptions, RelatedResponse, DEFAULT_RELATED_LIMIT, MAX_RELATED_LIMIT,
};
#[cfg(feature = "cli")]
pub(crate) use response::escape_json_controls;
pub(crate) use response::{
    round_to, ENGINE_BOTH, ENGINE_LOCAL, ENGINE_MIXED, ENGINE_OFFLINE, ENGINE_OMNISEARCH,
};
pub use response::{Comparison, IndexReport, Passage, SearchHit, SearchResponse, SkippedFile};
pub use scope::{normalize_folder, Scope};
pub use vaults::{Vault, VaultAnswer};

pub(crate) use filters::{property_terms, tag_terms};
pub use filters::{property_value, tag_key, Filters, PropertyFilter, Sort};
pub use when::parse_time;
pub(crate) use when::rfc3339;
