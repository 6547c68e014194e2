//! One ranked list from several vaults' lists.
//!
//! BM25 scores of two indexes don't compare (each has its own term statistics), so the merge
//! reads ranks, not scores: a vault's hit at rank r (0-based) is worth w / (r + 1), where w is
//! the vault's top score divided by the best top score of the vaults its engine answered
//! (1 for that best vault; never below [`MIN_WEIGHT`]). Within a vault w is one number, so
//! its hits keep the order that vault's own search gave them; across vaults, a vault whose
//! best hit is far weaker than another's (a word it only mentions) ranks below that one's
//! first hits, and a small vault's strong hit stands beside a big vault's, never under its
//! tail. Results sorted by date merge by date.

use crate::core::{SearchHit, Sort};

/// The least weight a vault's list gets: its best hit then still comes before any other
/// vault's tenth (1/10 < w / 1), so each vault that answered has its best hit in a top 10 of
/// two vaults.
pub(crate) const MIN_WEIGHT: f64 = 0.1;

/// One vault's answer to merge: its engine and its hits in its own order.
#[derive(Debug)]
pub(crate) struct Ranked {
    pub(crate) engine: String,
    pub(crate) hits: Vec<SearchHit>,
}

/// The merged list of `lists` (in the order the vaults were named), at most `limit` hits.
pub(crate) fn merge(lists: Vec<Ranked>, sort: Sort, limit: usize) -> Vec<SearchHit> {
    let weights = weights(&lists);
    // (key, weight, rank, vault): sorted by key, then rank (a vault's best hit before another
    // vault's tail), then the stronger vault, then the order the vaults were named: a total
    // order, so the merge is the same every time.
    let mut keyed: Vec<(f64, f64, usize, usize, SearchHit)> = Vec::new();
    for (v, (list, w)) in lists.into_iter().zip(weights).enumerate() {
        for (rank, hit) in list.hits.into_iter().enumerate() {
            let key = match sort {
                Sort::Relevance => w / (rank as f64 + 1.0),
                Sort::Modified => hit.modified_ns.map_or(f64::MIN, |ns| ns as f64),
            };
            keyed.push((key, w, rank, v, hit));
        }
    }
    keyed.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(a.2.cmp(&b.2))
            .then(b.1.total_cmp(&a.1))
            .then(a.3.cmp(&b.3))
    });
    keyed.truncate(limit);
    keyed.into_iter().map(|k| k.4).collect()
}

/// Each list's weight: its top score over the best top score among the lists of its engine.
fn weights(lists: &[Ranked]) -> Vec<f64> {
    let top = |l: &Ranked| {
        l.hits
            .iter()
            .map(|h| h.score)
            .filter(|s| s.is_finite())
            .fold(f64::NEG_INFINITY, f64::max)
    };
    lists
        .iter()
        .map(|l| {
            let mine = top(l);
            let best = lists
                .iter()
                .filter(|o| o.engine == l.engine)
                .map(top)
                .fold(f64::NEG_INFINITY, f64::max);
            if mine >= best {
                1.0
            } else if mine > 0.0 && best > 0.0 {
                (mine / best).max(MIN_WEIGHT)
            } else {
                MIN_WEIGHT
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(vault: &str, path: &str, score: f64) -> SearchHit {
        SearchHit {
            vault: Some(vault.into()),
            path: path.into(),
            basename: path.into(),
            kind: crate::core::FileKind::Note,
            page: None,
            score,
            excerpt: String::new(),
            engine: "local".into(),
            line: None,
            heading: None,
            passages: Vec::new(),
            tags: Vec::new(),
            aliases: Vec::new(),
            modified: None,
            modified_ns: None,
            matched: Vec::new(),
            highlight: Vec::new(),
            links_in: None,
        }
    }

    fn list(vault: &str, scores: &[f64]) -> Ranked {
        Ranked {
            engine: "local".into(),
            hits: scores
                .iter()
                .enumerate()
                .map(|(i, &s)| hit(vault, &format!("{vault}{i}"), s))
                .collect(),
        }
    }

    fn paths(hits: &[SearchHit]) -> Vec<&str> {
        hits.iter().map(|h| h.path.as_str()).collect()
    }

    #[test]
    fn each_vault_keeps_its_order_and_ranks_interleave_by_weight() {
        // Equal tops: rank by rank, the vault named first first.
        let m = merge(
            vec![list("a", &[10.0, 9.0, 1.0]), list("b", &[10.0, 2.0])],
            Sort::Relevance,
            10,
        );
        assert_eq!(paths(&m), ["a0", "b0", "a1", "b1", "a2"]);
        // b's best is half a's: its first hit is worth a's second (and goes first, a rank 0).
        let m = merge(
            vec![list("a", &[10.0, 9.0, 8.0]), list("b", &[5.0, 4.0])],
            Sort::Relevance,
            10,
        );
        assert_eq!(paths(&m), ["a0", "b0", "a1", "a2", "b1"]);
    }

    #[test]
    fn a_weak_vault_keeps_its_best_hit_in_the_top_ten() {
        let big: Vec<f64> = (0..20).map(|i| 100.0 - f64::from(i)).collect();
        let m = merge(
            vec![list("big", &big), list("small", &[0.5])],
            Sort::Relevance,
            10,
        );
        assert_eq!(m.len(), 10);
        assert_eq!(m[9].path, "small0");
        // Alone, the small vault's hit comes first.
        let m = merge(
            vec![list("big", &[]), list("small", &[0.5])],
            Sort::Relevance,
            10,
        );
        assert_eq!(paths(&m), ["small0"]);
    }

    #[test]
    fn engines_are_weighed_apart() {
        let mut omni = list("o", &[300.0, 200.0]);
        omni.engine = "omnisearch".into();
        let m = merge(vec![list("l", &[3.0, 2.0]), omni], Sort::Relevance, 10);
        assert_eq!(paths(&m), ["l0", "o0", "l1", "o1"]);
    }

    #[test]
    fn dated_results_merge_by_date() {
        let mut a = list("a", &[1.0, 1.0]);
        let mut b = list("b", &[1.0]);
        a.hits[0].modified_ns = Some(30);
        a.hits[1].modified_ns = Some(10);
        b.hits[0].modified_ns = Some(20);
        let m = merge(vec![a, b], Sort::Modified, 10);
        assert_eq!(paths(&m), ["a0", "b0", "a1"]);
    }
}
