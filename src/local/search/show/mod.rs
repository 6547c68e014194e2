//! Passages: which spot of a note a hit shows (a quoted phrase, else the best window), located
//! through the checkpoint table ([`crate::local::checkpoint`]) so the work per hit is bounded
//! by the passage, not the note; a giant note's passage is read from its file ([`disk`]).

use crate::local::checkpoint::{locate, spot_from_start, table_text_start, text_start_pos, Spot};
use crate::local::search::window::Occ;
use crate::text::note;
use start::passage_pos;
pub(crate) use start::Cues;
use tantivy::tokenizer::TextAnalyzer;

/// What a hit shows: where its excerpt starts, and the end of its frontmatter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shown {
    pub(crate) spot: Spot,
    pub(crate) text_start: usize,
}

/// The spot a hit shows: the first quoted phrase (or the query as a phrase), else the best
/// window of the text after the frontmatter, else the best window of the frontmatter, else
/// the start of the text.
pub(crate) fn show(
    analyzer: &mut TextAnalyzer,
    text: &str,
    table: &[u8],
    cues: &Cues,
    occs: &mut [Occ],
) -> Shown {
    let text_start = match table_text_start(table) {
        Some(s) if s <= text.len() => s,
        // A small note (or an index without a table): parsing it is bounded by its size.
        _ => note::parse(text).body_start,
    };
    let min_pos = text_start_pos(analyzer, text, table, text_start);
    let pos = passage_pos(cues, occs, min_pos);
    let spot = match pos {
        Some(pos) => locate(text, table, text_start, pos),
        None => {
            let offset = text[text_start..]
                .find(|c: char| !c.is_whitespace())
                .map_or(text_start, |i| text_start + i);
            spot_from_start(text, text_start, offset)
        }
    };
    Shown { spot, text_start }
}

pub(crate) mod disk;
mod start;
