//! Passages: which spot of a note a hit shows (a quoted phrase, else the best window), located
//! through the checkpoint table ([`crate::local::checkpoint`]) so the work per hit is bounded
//! by the passage, not the note; a giant note's passage is read from its file ([`disk`]).

use crate::local::checkpoint::{locate, spot_from_start, table_text_start, text_start_pos, Spot};
use crate::local::search::window::{best_window, window_tokens, Occ};
use crate::text::note;
use tantivy::tokenizer::TextAnalyzer;

/// The first position at `min_pos` or later where `phrase` starts (consecutive positions).
fn phrase_at(
    positions: &std::collections::HashMap<String, Vec<u32>>,
    phrase: &[String],
    min_pos: u32,
) -> Option<u32> {
    let first = positions.get(phrase.first()?)?;
    first.iter().copied().filter(|&p| p >= min_pos).find(|&p| {
        phrase[1..].iter().enumerate().all(|(k, t)| {
            positions
                .get(t)
                .is_some_and(|v| v.binary_search(&(p + k as u32 + 1)).is_ok())
        })
    })
}

/// Where a passage starts: a quoted phrase in the body, else its best window, else any.
pub(crate) fn passage_pos(
    phrases: &[&[String]],
    positions: &std::collections::HashMap<String, Vec<u32>>,
    occs: &mut [Occ],
    rarity: &[f32],
    min_pos: u32,
) -> Option<u32> {
    let width = window_tokens();
    phrases
        .iter()
        .filter(|p| p.len() >= 2)
        .find_map(|p| phrase_at(positions, p, min_pos))
        .or_else(|| best_window(occs, rarity, width, min_pos).map(|w| w.first))
        .or_else(|| best_window(occs, rarity, width, 0).map(|w| w.first))
}

/// What a hit shows: where its excerpt starts, and the end of its frontmatter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shown {
    pub(crate) spot: Spot,
    pub(crate) text_start: usize,
}

/// The spot a hit shows: the first quoted phrase (or the query as a phrase), else the best
/// window of the text after the frontmatter, else the best window of the frontmatter, else
/// the start of the text.
#[allow(clippy::too_many_arguments)]
pub(crate) fn show(
    analyzer: &mut TextAnalyzer,
    text: &str,
    table: &[u8],
    phrases: &[&[String]],
    positions: &std::collections::HashMap<String, Vec<u32>>,
    occs: &mut [Occ],
    rarity: &[f32],
) -> Shown {
    let text_start = match table_text_start(table) {
        Some(s) if s <= text.len() => s,
        // A small note (or an index without a table): parsing it is bounded by its size.
        _ => note::parse(text).body_start,
    };
    let min_pos = text_start_pos(analyzer, text, table, text_start);
    let pos = passage_pos(phrases, positions, occs, rarity, min_pos);
    let spot = match pos {
        Some(pos) => locate(analyzer, text, table, text_start, pos),
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
