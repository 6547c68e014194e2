//! The best window of a note: where in its body the query's words stand together.
//!
//! Vaults collect giant notes (web clippings, running logs, exported dumps) that hold nearly
//! every word of the vault, far apart. Counted over the whole note, such a note matches every
//! query "with all its words"; counted within one passage, it matches only where its text
//! really holds the words together. So the re-rank scores the best *window* of
//! [`window_tokens`] body positions (the one holding the most distinct query words, rarer
//! words counting more), taken from the postings' positions it reads anyway; a hit is shown
//! from the same window.

use crate::local::weights::weights;

/// Body positions per window: a passage of a few sentences.
pub(crate) fn window_tokens() -> u32 {
    weights().passage.max(1.0) as u32
}

/// One occurrence of a query term (through one of its variants) in a note's body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Occ {
    pub(crate) pos: u32,
    /// Index of the query term.
    pub(crate) term: u16,
    /// Weight of the variant (1 exact, below for inflections, prefixes, typos).
    pub(crate) weight: f32,
}

/// The best window of a note.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Window {
    /// First and last position of an occurrence in the window.
    pub(crate) first: u32,
    pub(crate) last: u32,
    /// Best variant weight of each query term inside the window (0 when absent).
    pub(crate) per_term: Vec<f32>,
    /// Weighted occurrences of each term inside the window.
    pub(crate) tf: Vec<f32>,
    /// Σ rarity × best weight.
    pub(crate) score: f32,
}

/// Finds the window of `width` positions that holds the most of the query: the highest sum of
/// `rarity[t] × best weight of t` over the distinct terms in it; the earliest on ties. Only
/// occurrences at `min_pos` or later are considered. `occs` is sorted here.
pub(crate) fn best_window(
    occs: &mut [Occ],
    rarity: &[f32],
    width: u32,
    min_pos: u32,
) -> Option<Window> {
    occs.sort_by(|a, b| a.pos.cmp(&b.pos).then(a.term.cmp(&b.term)));
    let start = occs.partition_point(|o| o.pos < min_pos);
    let occs = &occs[start..];
    if occs.is_empty() {
        return None;
    }
    let n = rarity.len();
    // Weight levels: the few distinct variant weights, so a term's best weight in the window
    // is kept as counts per level and survives removals.
    let mut levels: Vec<f32> = Vec::new();
    for o in occs {
        if !levels.contains(&o.weight) {
            levels.push(o.weight);
        }
    }
    levels.sort_by(|a, b| b.partial_cmp(a).unwrap_or(std::cmp::Ordering::Equal));
    let level_of = |w: f32| levels.iter().position(|&l| l == w).unwrap_or(0);
    let mut counts = vec![0u32; n * levels.len()];
    let score_of = |counts: &[u32]| -> f32 {
        (0..n)
            .map(|t| {
                let row = &counts[t * levels.len()..(t + 1) * levels.len()];
                row.iter()
                    .position(|&c| c > 0)
                    .map_or(0.0, |l| levels[l] * rarity[t])
            })
            .sum()
    };
    let mut best: Option<(f32, usize, usize)> = None;
    let mut lo = 0usize;
    for hi in 0..occs.len() {
        let o = occs[hi];
        if usize::from(o.term) >= n {
            continue;
        }
        counts[usize::from(o.term) * levels.len() + level_of(o.weight)] += 1;
        while occs[hi].pos - occs[lo].pos >= width {
            let r = occs[lo];
            if usize::from(r.term) < n {
                counts[usize::from(r.term) * levels.len() + level_of(r.weight)] -= 1;
            }
            lo += 1;
        }
        let s = score_of(&counts);
        if best.is_none_or(|(b, _, _)| s > b + 1e-6) {
            best = Some((s, lo, hi));
        }
    }
    let (score, lo, hi) = best?;
    let mut w = Window {
        first: occs[lo].pos,
        last: occs[hi].pos,
        per_term: vec![0.0; n],
        tf: vec![0.0; n],
        score,
    };
    for o in &occs[lo..=hi] {
        let t = usize::from(o.term);
        if t < n {
            w.per_term[t] = w.per_term[t].max(o.weight);
            w.tf[t] += o.weight;
        }
    }
    Some(w)
}

/// Appends the positions of the term the postings are on (in their current document).
pub(crate) fn collect(
    postings: &mut tantivy::postings::SegmentPostings,
    term: usize,
    weight: f32,
    out: &mut Vec<Occ>,
) {
    let mut pos = Vec::new();
    tantivy::postings::Postings::positions(postings, &mut pos);
    let term = u16::try_from(term).unwrap_or(u16::MAX);
    out.extend(pos.into_iter().map(|pos| Occ { pos, term, weight }));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occ(pos: u32, term: u16, weight: f32) -> Occ {
        Occ { pos, term, weight }
    }

    #[test]
    fn the_best_window_holds_the_most_distinct_terms() {
        // Term 0 everywhere, terms 0+1+2 together only at 1000..1010.
        let mut occs = vec![occ(0, 0, 1.0), occ(3, 1, 1.0), occ(500, 2, 1.0)];
        occs.extend([occ(1000, 2, 1.0), occ(1004, 0, 1.0), occ(1010, 1, 1.0)]);
        let w = best_window(&mut occs, &[1.0, 1.0, 1.0], 40, 0).expect("a window");
        assert_eq!((w.first, w.last), (1000, 1010));
        assert_eq!(w.per_term, vec![1.0, 1.0, 1.0]);
        assert!((w.score - 3.0).abs() < 1e-6);
        // Too narrow a window for all three: the best pair, the earliest on ties.
        let w = best_window(&mut occs, &[1.0, 1.0, 1.0], 5, 0).expect("a window");
        assert_eq!((w.first, w.last), (0, 3));
    }

    #[test]
    fn rarer_terms_and_better_variants_win() {
        let mut occs = vec![occ(0, 0, 1.0), occ(100, 1, 1.0), occ(200, 1, 0.5)];
        let w = best_window(&mut occs, &[1.0, 3.0], 10, 0).expect("a window");
        assert_eq!(w.first, 100);
        assert_eq!(w.per_term, vec![0.0, 1.0]);
        // Occurrences before `min_pos` (the frontmatter) are left out.
        let w = best_window(&mut occs, &[1.0, 3.0], 10, 150).expect("a window");
        assert_eq!(w.first, 200);
        assert_eq!(w.per_term, vec![0.0, 0.5]);
        assert!(best_window(&mut occs, &[1.0, 3.0], 10, 999).is_none());
    }
}
