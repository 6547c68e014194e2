//! Every signal's points for one candidate, added in one function ([`points`]): the words,
//! the name, the phrases, the lead, BM25, the length prior and the feedback. A signal is a
//! weight in [`Weights`](crate::local::weights::Weights), which says what it counts and its
//! default, and its term here; what it reads comes from the candidate's features.

use std::collections::HashMap;

use super::context::RankContext;
use super::features::Features;
use super::proximity;
use crate::local::search::window::Window;
use crate::local::weights::weights;

/// Does the body hold `phrase` (consecutive positions)?
pub(super) fn has_phrase(positions: &HashMap<String, Vec<u32>>, phrase: &[String]) -> bool {
    let Some(first) = phrase.first().and_then(|t| positions.get(t)) else {
        return false;
    };
    first.iter().any(|&p| {
        phrase[1..].iter().enumerate().all(|(k, t)| {
            positions
                .get(t)
                .is_some_and(|v| v.binary_search(&(p + k as u32 + 1)).is_ok())
        })
    })
}

/// The score of one candidate: the sum of every signal's points, from its features (its name
/// match and feedback share included), its BM25 score and its best window.
pub(super) fn points(cx: &RankContext, f: &Features, bm25: f32, window: Option<&Window>) -> f64 {
    let w = weights();
    let mut points = 0.0f32;
    // Only the content words of a sentence count ([`super::reading`]); a query of filler
    // alone gets no word, name or phrase points.
    let n = cx.content_words;
    if n > 0 {
        let mut min_match = 1.0f32;
        let mut sum_match = 0.0f32;
        let mut tf = 0.0f32;
        for (k, (h, t)) in f.terms.iter().zip(cx.terms).enumerate() {
            if t.filler {
                continue;
            }
            if cx.sentence {
                // A question is answered by the note whose first lines hold its words.
                let in_lead = f.lead.get(k).copied().unwrap_or(0.0);
                points += w.s_lead * in_lead * t.rarity;
            }
            let title = h.title.max(h.alias);
            // In the text, a word counts where the best passage holds it, not anywhere.
            let (body, head, body_tf) = proximity::near(h.body, h.head, h.body_tf, window, k);
            let matched = title.max(body).max(head).max(h.tags);
            min_match = min_match.min(matched);
            sum_match += matched * t.rarity;
            tf += body_tf;
            let r = if w.rar_term > 0.0 { t.rarity } else { 1.0 };
            points += w.s_term * matched * r
                + w.s_title * title
                + w.s_head * h.head_tf.min(3.0) * proximity::focus(f.body_len);
        }
        if min_match > 0.0 {
            points += w.s_all * min_match;
        } else {
            let frac = sum_match / n as f32;
            points += w.s_part * frac.powf(w.cov_pow);
        }
        points += tf.min(w.s_tf);
        // The query as the file name (or an alias), scaled by how they cover each other; the
        // same words earn more; otherwise the query as a phrase in the body.
        points += w.s_ptitle * f.name;
        let q = cx.query;
        if f.name >= 0.999 {
            points += w.s_exact_title;
        } else if q.sequence.len() >= 2 && has_phrase(&f.positions, &q.sequence) {
            points += w.s_pbody;
        }
        for p in &q.phrases {
            if has_phrase(&f.positions, p) {
                points += w.s_qphrase;
            }
        }
    }
    // A long note's BM25 says less about it: the same factor as its heading matches.
    points += bm25_part(bm25, cx.max_bm25) * proximity::focus(f.body_len).powf(w.focus_bm25);
    points -= proximity::length_prior(f.body_len, n);
    // The feedback share comes after a first ranking (0 until then): added in f64, as the
    // first ranking's score was ordered by.
    f64::from(points) + f64::from(w.s_fb * f.feedback)
}

/// BM25 scaled to `bm25norm` × BM25 ÷ the best candidate's (or × `bm25`, unscaled).
fn bm25_part(bm25: f32, max: f32) -> f32 {
    let norm = weights().bm25norm;
    if norm > 0.0 {
        if max > 0.0 {
            norm * bm25 / max
        } else {
            0.0
        }
    } else {
        weights().bm25 * bm25
    }
}

#[cfg(test)]
mod tests {
    //! Each signal's points ([`crate::local::weights`] holds the defaults), on hand-made
    //! features.
    use super::*;
    use crate::local::analyzer;
    use crate::local::schema;
    use crate::local::search::query::{self, ParsedQuery};
    use crate::local::search::rank::features::TermHits;
    use crate::local::search::rank::terms::{ExpandedTerm, Variants};

    fn q(text: &str) -> ParsedQuery {
        query::parse(&mut analyzer::text_analyzer(), text)
    }

    fn terms(q: &ParsedQuery) -> Vec<ExpandedTerm> {
        q.terms
            .iter()
            .map(|t| ExpandedTerm {
                text: t.text.clone(),
                variants: Variants::default(),
                rarity: 1.0,
                filler: false,
            })
            .collect()
    }

    /// The points of a candidate of no BM25 score whose name matches the query by `name`.
    fn bonus(
        q: &ParsedQuery,
        terms: &[ExpandedTerm],
        f: &Features,
        name: f32,
        window: Option<&Window>,
    ) -> f32 {
        let index = tantivy::Index::create_in_ram(schema::fields().schema.clone());
        let searcher = index.reader().unwrap().searcher();
        let vault = std::path::Path::new("");
        let cx = RankContext::new(&searcher, schema::fields(), q, terms, &[], vault);
        let f = Features { name, ..f.clone() };
        super::points(&cx, &f, 0.0, window) as f32
    }

    fn body(weight: f32, tf: f32) -> TermHits {
        TermHits {
            body: weight,
            body_tf: tf,
            ..TermHits::default()
        }
    }

    fn feats(hits: Vec<TermHits>) -> Features {
        Features {
            path: String::new(),
            terms: hits,
            positions: HashMap::new(),
            occs: Vec::new(),
            body_len: 0,
            lead: Vec::new(),
            name: 0.0,
            feedback: 0.0,
        }
    }

    /// The passage as if every body match of the features stood together in it.
    fn together(f: &Features) -> Window {
        Window {
            per_term: f.terms.iter().map(|h| h.body).collect(),
            tf: f.terms.iter().map(|h| h.body_tf).collect(),
            ..Window::default()
        }
    }

    fn points(query: &str, f: &Features, name: f32) -> f32 {
        let pq = q(query);
        bonus(&pq, &terms(&pq), f, name, Some(&together(f)))
    }

    #[test]
    fn each_matched_word_all_words_and_term_frequency() {
        // One word, in the text once: +20 (matched) +80 (all matched) +1 (tf).
        assert_eq!(points("daemon", &feats(vec![body(1.0, 1.0)]), 0.0), 101.0);
        // Through a variant of weight 0.5: both word signals scale.
        assert_eq!(points("daemon", &feats(vec![body(0.5, 0.5)]), 0.0), 50.5);
        // Term frequency stops at +5.
        assert_eq!(points("daemon", &feats(vec![body(1.0, 40.0)]), 0.0), 105.0);
    }

    #[test]
    fn words_count_in_the_passage_only() {
        // Both words are in the text, but the best passage holds only the first: scored as a
        // partial match (+20, +40 × (1/2)², +1 tf), not as all words.
        let pq = q("stale lock");
        let f = feats(vec![body(1.0, 1.0), body(1.0, 1.0)]);
        let mut w = together(&f);
        w.per_term[1] = 0.0;
        w.tf[1] = 0.0;
        assert_eq!(bonus(&pq, &terms(&pq), &f, 0.0, Some(&w)), 31.0);
        assert_eq!(points("stale lock", &f, 0.0), 20.0 * 2.0 + 80.0 + 2.0);
    }

    #[test]
    fn partial_matches_get_the_squared_share() {
        // Two words, one matched: +20, +40 × (1/2)² = +10, +1 tf.
        let f = feats(vec![body(1.0, 1.0), TermHits::default()]);
        assert_eq!(points("stale lock", &f, 0.0), 31.0);
    }

    #[test]
    fn words_in_the_name_and_in_headings() {
        let base = points("daemon", &feats(vec![body(1.0, 1.0)]), 0.0);
        let titled = TermHits {
            title: 1.0,
            ..body(1.0, 1.0)
        };
        assert_eq!(points("daemon", &feats(vec![titled]), 0.0) - base, 8.0);
        let headed = TermHits {
            head: 1.0,
            head_tf: 7.0,
            ..body(1.0, 1.0)
        };
        // +2 per occurrence in headings, up to 3 occurrences...
        assert_eq!(points("daemon", &feats(vec![headed]), 0.0) - base, 6.0);
        // ...scaled down in a note far longer than an article (2,000 tokens).
        let mut long = feats(vec![headed]);
        long.body_len = 8000;
        assert_eq!(points("daemon", &long, 0.0) - base, 1.5);
    }

    #[test]
    fn the_query_as_the_name() {
        let f = feats(vec![body(1.0, 1.0)]);
        let base = points("daemon", &f, 0.0);
        assert_eq!(points("daemon", &f, 0.5) - base, 40.0);
        // Identical: +80 and +40 more.
        assert_eq!(points("daemon", &f, 1.0) - base, 120.0);
    }

    #[test]
    fn phrases_in_the_text() {
        let mut f = feats(vec![body(1.0, 1.0), body(1.0, 1.0)]);
        let scattered = points("stale lock", &f, 0.0);
        f.positions.insert("stale".into(), vec![3]);
        f.positions.insert("lock".into(), vec![9]);
        assert_eq!(points("stale lock", &f, 0.0), scattered);
        f.positions.insert("lock".into(), vec![4, 9]);
        // The query as a phrase: +30.
        assert_eq!(points("stale lock", &f, 0.0) - scattered, 30.0);
        // A quoted phrase present: +60 on top (the unquoted sequence still counts).
        assert_eq!(points("\"stale lock\"", &f, 0.0) - scattered, 90.0);
        // A name match replaces the body-phrase bonus.
        assert_eq!(points("stale lock", &f, 1.0) - scattered, 120.0);
    }

    #[test]
    fn a_sentence_counts_its_content_words_and_their_place_in_the_lead() {
        // "how do I mount usb": `how`, `do`, `i` are filler, `mount` and `usb` carry it.
        let pq = q("how do I mount usb");
        let mut t = terms(&pq);
        for w in &mut t[..3] {
            w.filler = true;
        }
        let mut hits = vec![TermHits::default(); 3];
        hits.extend([body(1.0, 1.0), body(1.0, 1.0)]);
        let mut f = feats(hits);
        // Filler words missing from the note cost nothing: both content words, all matched.
        let plain = bonus(&pq, &t, &f, 0.0, Some(&together(&f)));
        assert_eq!(plain, 20.0 * 2.0 + 80.0 + 2.0);
        // `mount` in the lead: +20 × its weight × its rarity.
        f.lead = vec![0.0, 0.0, 0.0, 1.0, 0.0];
        assert_eq!(bonus(&pq, &t, &f, 0.0, Some(&together(&f))) - plain, 20.0);
        // A keyword query has no lead signal.
        let kw = q("mount usb");
        let mut k = feats(vec![body(1.0, 1.0), body(1.0, 1.0)]);
        let before = bonus(&kw, &terms(&kw), &k, 0.0, Some(&together(&k)));
        k.lead = vec![1.0, 1.0];
        assert_eq!(
            bonus(&kw, &terms(&kw), &k, 0.0, Some(&together(&k))),
            before
        );
    }
}
