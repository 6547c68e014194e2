//! The few errors that code branches on; everything else is an `anyhow` chain.

use std::fmt;

/// Errors that change what the program does next. (An index the local engine can't use is
/// the local engine's own error: it never leaves it.)
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EngineError {
    /// Omnisearch did not give a usable answer: `auto` falls back to the local engine,
    /// `omnisearch` reports the engine as offline.
    OmnisearchUnavailable(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::OmnisearchUnavailable(why) => write!(f, "Omnisearch unavailable: {why}"),
        }
    }
}

impl std::error::Error for EngineError {}
