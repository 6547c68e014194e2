//! What a note says about itself first: its lead.
//!
//! The first lines of a note — the frontmatter's title and description, the H1, the first
//! paragraph, the `> ...` description of a tldr page — name what the note is about. A
//! question is answered by the note whose lead holds its words more often than by a long note
//! that holds more of them somewhere, so a content word of a sentence found in the lead counts
//! extra ([`super::bonus`]). The lead is read from the body positions the re-rank already
//! collects: no field of its own in the index.

use crate::local::search::window::Occ;
use crate::local::weights::weights;

/// The lead: this many token positions from the start of the body.
pub(super) fn lead_tokens() -> u32 {
    weights().lead_tok.max(0.0) as u32
}

/// The best variant weight of each of `n` query terms among the occurrences in the first
/// `lead` positions of the body (0 when a term is not there).
pub(super) fn lead_hits(occs: &[Occ], n: usize, lead: u32) -> Vec<f32> {
    let mut out = vec![0.0f32; n];
    for o in occs.iter().filter(|o| o.pos < lead) {
        if let Some(w) = out.get_mut(usize::from(o.term)) {
            *w = w.max(o.weight);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occ(pos: u32, term: u16, weight: f32) -> Occ {
        Occ { pos, term, weight }
    }

    #[test]
    fn only_the_first_positions_count() {
        let occs = [
            occ(3, 0, 0.5),
            occ(7, 0, 1.0),
            occ(12, 1, 1.0),
            occ(90, 2, 1.0),
        ];
        assert_eq!(lead_hits(&occs, 3, 40), [1.0, 1.0, 0.0]);
        assert_eq!(lead_hits(&occs, 3, 5), [0.5, 0.0, 0.0]);
        // A term index beyond the query (never made) is ignored.
        assert_eq!(lead_hits(&[occ(1, 9, 1.0)], 2, 40), [0.0, 0.0]);
    }
}
