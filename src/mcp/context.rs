//! What every tool call shares: the server's resolved options and the background indexer.
//! Apart from the server in `mod.rs`, so the tools read it without importing the server.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::background::Indexer;
use super::config_snippets::Client;

/// Everything the server needs, resolved by the command line.
#[derive(Debug, Clone)]
pub(crate) struct McpOptions {
    /// Canonical vault directory.
    pub(crate) vault: PathBuf,
    /// User cache directory (the index lives below it); `None`: each search indexes in memory.
    pub(crate) cache_dir: Option<PathBuf>,
    /// Omnisearch HTTP port.
    pub(crate) port: u16,
    /// How long a search waits for the first index build.
    pub(crate) index_wait: Duration,
    /// Print this client's setup snippet instead of serving.
    pub(crate) print_config: Option<Client>,
    /// How PDFs are indexed: as the CLI does, or its updates would drop the CLI's PDFs.
    pub(crate) pdf: crate::core::PdfLimits,
}

/// State shared by all tool calls.
#[derive(Debug)]
pub(crate) struct Ctx {
    pub(crate) opts: McpOptions,
    pub(crate) indexer: Arc<Indexer>,
}
