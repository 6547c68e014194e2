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
    let nl = levels.len();
    let mut counts = vec![0u32; n * nl];
    let score_of = |counts: &[u32]| -> f32 {
        (0..n)
            .map(|t| {
                let row = &counts[t * nl..(t + 1) * nl];
                row.iter()
                    .position(|&c| c > 0)
                    .map_or(0.0, |l| levels[l] * rarity[t])
            })
            .sum()
    };
    // The most any window can hold: every term at its best variant. The first window that
    // holds it is the answer (the earliest wins ties), so a giant note stops scanning there.
    let mut best_weight = vec![0.0f32; n];
    for o in occs.iter().filter(|o| usize::from(o.term) < n) {
        let t = usize::from(o.term);
        best_weight[t] = best_weight[t].max(o.weight);
    }
    let ceiling: f32 = (0..n).map(|t| best_weight[t] * rarity[t]).sum();
    // The score changes only when a count of a term's best level goes from or to 0: only
    // then is it summed again (the same sum, so the same float as summing every step).
    let mut score = 0.0f32;
    let mut best: Option<(f32, usize, usize)> = None;
    let mut lo = 0usize;
    for hi in 0..occs.len() {
        let o = occs[hi];
        if usize::from(o.term) >= n {
            continue;
        }
        let slot = usize::from(o.term) * nl + level_of(o.weight);
        counts[slot] += 1;
        let mut changed = counts[slot] == 1;
        while occs[hi].pos - occs[lo].pos >= width {
            let r = occs[lo];
            if usize::from(r.term) < n {
                let slot = usize::from(r.term) * nl + level_of(r.weight);
                counts[slot] -= 1;
                changed |= counts[slot] == 0;
            }
            lo += 1;
        }
        if changed {
            score = score_of(&counts);
        }
        if best.is_none_or(|(b, _, _)| score > b + 1e-6) {
            best = Some((score, lo, hi));
            if score >= ceiling - 1e-6 {
                break;
            }
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
    /// Every window scored from scratch: what `best_window`'s incremental score and early stop
    /// must agree with.
    fn naive(occs: &mut [Occ], rarity: &[f32], width: u32) -> Option<(u32, u32, f32)> {
        occs.sort_by(|a, b| a.pos.cmp(&b.pos).then(a.term.cmp(&b.term)));
        let mut best: Option<(u32, u32, f32)> = None;
        for hi in 0..occs.len() {
            let lo = occs[..=hi]
                .iter()
                .position(|o| occs[hi].pos - o.pos < width)
                .unwrap_or(hi);
            let mut per = vec![0.0f32; rarity.len()];
            for o in &occs[lo..=hi] {
                per[usize::from(o.term)] = per[usize::from(o.term)].max(o.weight);
            }
            let s: f32 = (0..rarity.len()).map(|t| per[t] * rarity[t]).sum();
            if best.is_none_or(|b| s > b.2 + 1e-6) {
                best = Some((occs[lo].pos, occs[hi].pos, s));
            }
        }
        best
    }

    #[test]
    fn the_incremental_scan_finds_what_scoring_every_window_finds() {
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let weights = [1.0, 0.8, 0.5];
        for round in 0..300 {
            let terms = 1 + next(4) as usize;
            let rarity: Vec<f32> = (0..terms).map(|_| 0.5 + next(8) as f32 / 4.0).collect();
            let mut occs: Vec<Occ> = (0..1 + next(60))
                .map(|_| {
                    occ(
                        next(400) as u32,
                        next(terms as u64) as u16,
                        weights[next(3) as usize],
                    )
                })
                .collect();
            occs.dedup_by(|a, b| a.pos == b.pos && a.term == b.term);
            let want = naive(&mut occs.clone(), &rarity, 20);
            let got = best_window(&mut occs, &rarity, 20, 0).map(|w| (w.first, w.last, w.score));
            assert_eq!(got, want, "round {round}");
        }
    }
}
