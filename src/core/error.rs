//! The few errors that code branches on; everything else is an `anyhow` chain.

use std::fmt;

/// Errors that change what the program does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// Omnisearch did not give a usable answer: `auto` falls back to the local engine,
    /// `omnisearch` reports the engine as offline.
    OmnisearchUnavailable(String),
    /// The index on disk was written by another schema or analyzer version, or can't be opened:
    /// it is rebuilt from scratch.
    IndexIncompatible(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::OmnisearchUnavailable(why) => write!(f, "Omnisearch unavailable: {why}"),
            EngineError::IndexIncompatible(why) => write!(f, "index incompatible: {why}"),
        }
    }
}

impl std::error::Error for EngineError {}
