//! Where a hit's passage starts, as a body position: the same choice for a passage read from
//! the index and one read from the file ([`super::disk`]).

use crate::local::search::window::{best_window, window_tokens, Occ};

/// What a hit's passage is found by: the phrases to show first, the body positions of their
/// words, the start of the re-rank's window over the whole body when it has one, and each
/// query word's rarity (for the best window, with the occurrences of the words).
pub(crate) struct Cues<'a> {
    pub(crate) phrases: &'a [&'a [String]],
    pub(crate) positions: &'a std::collections::HashMap<String, Vec<u32>>,
    pub(crate) known: Option<u32>,
    pub(crate) rarity: &'a [f32],
    /// Most bytes of the hit's passage (0: none).
    pub(crate) passage_bytes: usize,
}

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
///
/// `cues.known` is the start of the best window over all of `occs` when the caller has it: one
/// at `min_pos` or later is also the best window from `min_pos` on (the windows from there are
/// a subset that holds it; the earliest wins ties), so it is taken without a second scan.
pub(crate) fn passage_pos(cues: &Cues, occs: &mut [Occ], min_pos: u32) -> Option<u32> {
    let width = window_tokens();
    let rarity = cues.rarity;
    cues.phrases
        .iter()
        .filter(|p| p.len() >= 2)
        .find_map(|p| phrase_at(cues.positions, p, min_pos))
        .or_else(|| cues.known.filter(|&first| first >= min_pos))
        .or_else(|| best_window(occs, rarity, width, min_pos).map(|w| w.first))
        .or_else(|| best_window(occs, rarity, width, 0).map(|w| w.first))
}
