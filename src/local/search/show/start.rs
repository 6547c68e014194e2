//! Where a hit's passage starts, as a body position: the same choice for a passage read from
//! the index and one read from the file ([`super::disk`]).

use crate::local::search::window::{best_window, window_tokens, Occ};

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
/// `known` is the start of the best window over all of `occs` when the caller has it: one at
/// `min_pos` or later is also the best window from `min_pos` on (the windows from there are
/// a subset that holds it; the earliest wins ties), so it is taken without a second scan.
pub(crate) fn passage_pos(
    phrases: &[&[String]],
    positions: &std::collections::HashMap<String, Vec<u32>>,
    occs: &mut [Occ],
    known: Option<u32>,
    rarity: &[f32],
    min_pos: u32,
) -> Option<u32> {
    let width = window_tokens();
    phrases
        .iter()
        .filter(|p| p.len() >= 2)
        .find_map(|p| phrase_at(positions, p, min_pos))
        .or_else(|| known.filter(|&first| first >= min_pos))
        .or_else(|| best_window(occs, rarity, width, min_pos).map(|w| w.first))
        .or_else(|| best_window(occs, rarity, width, 0).map(|w| w.first))
}
