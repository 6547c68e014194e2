//! Feedback for a sentence: the words the best-ranked notes share.
//!
//! A question is worded in the asker's vocabulary ("which program is using port 3000", "each
//! subfolder"), a note in its own ("the process that opened a port", "subdirectories"). The
//! first ranking of a question mostly puts notes on the right topic near the top even when the
//! note that answers it ranks lower; the words that several of those notes hold, and few
//! other notes do, name that topic in the vault's own vocabulary (pseudo-relevance feedback).
//! Every candidate then gains points for the share of those words it holds: a note that
//! speaks the topic's language rises over one that merely shares a word of the question.
//!
//! Only the re-ranked candidates are scored again (no second search), so the feedback costs
//! reading a few stored notes and one posting list per feedback word.

use std::collections::{HashMap, HashSet};

use anyhow::Result;
use tantivy::schema::IndexRecordOption;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{DocAddress, Searcher, Term};

use super::features::for_each_hit;
use super::reading::is_filler_word;
use crate::local::analyzer;
use crate::local::schema::Fields;
use crate::local::stored::Stored;
use crate::local::weights::weights;

/// At most this many bytes of a feedback note are read: its topic is in its first pages.
const READ_BYTES: usize = 16 * 1024;

/// The feedback words of the notes at `top` (best first), each with its weight (the best 1):
/// words held by at least two of them, not words of the query, not stop words, weighted by
/// how many of the notes hold them and by their rarity in the vault.
pub(super) fn words(
    searcher: &Searcher,
    fields: &Fields,
    analyzer: &mut TextAnalyzer,
    top: &[DocAddress],
    query_words: &HashSet<&str>,
) -> Result<Vec<(String, f32)>> {
    let mut support: HashMap<String, f32> = HashMap::new();
    for (rank, &addr) in top.iter().enumerate() {
        let doc = Stored::read(searcher, addr)?;
        let body = doc.body();
        let mut cut = body.len().min(READ_BYTES);
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        let mut seen: HashSet<String> = HashSet::new();
        for tok in analyzer::analyze(analyzer, &body[..cut]) {
            // A compound's whole form (`position_length` > 1) is a name; its parts count.
            if tok.position_length > 1 || !is_topic_word(&tok.text) {
                continue;
            }
            if query_words.contains(tok.text.as_str()) {
                continue;
            }
            seen.insert(tok.text);
        }
        // A better-ranked note says more about the topic.
        let w = 1.0 / (1.0 + rank as f32 * weights().fb_decay);
        for s in seen {
            *support.entry(s).or_insert(0.0) += w;
        }
    }
    let n = searcher.num_docs().max(1) as f32;
    let min_support = weights().fb_min_docs;
    let mut scored: Vec<(String, f32)> = Vec::new();
    for (s, sup) in support {
        if sup < min_support {
            continue;
        }
        let df = searcher.doc_freq(&Term::from_field_text(fields.body, &s))? as f32;
        let idf = (n / (df + 1.0)).ln();
        if idf > 0.0 {
            scored.push((s, sup * idf));
        }
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    scored.truncate(weights().fb_words.max(0.0) as usize);
    let best = scored.first().map_or(1.0, |s| s.1);
    for s in &mut scored {
        s.1 /= best;
    }
    Ok(scored)
}

/// A word that can name a topic: three characters or more, not a number, not a stop word.
fn is_topic_word(w: &str) -> bool {
    w.chars().count() >= 3 && !w.bytes().all(|b| b.is_ascii_digit()) && !is_filler_word(w)
}

/// For each candidate, the weighted share of the feedback `words` its text or name holds.
pub(super) fn shares(
    searcher: &Searcher,
    fields: &Fields,
    words: &[(String, f32)],
    candidates: &[(f32, DocAddress)],
) -> Result<Vec<f32>> {
    let mut out = vec![0.0f32; candidates.len()];
    let total: f32 = words.iter().map(|w| w.1).sum();
    if total <= 0.0 {
        return Ok(out);
    }
    let mut by_segment: HashMap<u32, Vec<(usize, u32)>> = HashMap::new();
    for (i, (_, addr)) in candidates.iter().enumerate() {
        by_segment
            .entry(addr.segment_ord)
            .or_default()
            .push((i, addr.doc_id));
    }
    for (seg_ord, mut docs) in by_segment {
        docs.sort_by_key(|d| d.1);
        let seg = searcher.segment_reader(seg_ord);
        for (s, w) in words {
            let mut held = vec![false; candidates.len()];
            for field in [fields.body, fields.title] {
                let inv = seg.inverted_index(field)?;
                let term = Term::from_field_text(field, s);
                for_each_hit(&inv, &term, IndexRecordOption::Basic, &docs, |i, _| {
                    held[i] = true;
                })?;
            }
            for (o, h) in out.iter_mut().zip(held) {
                if h {
                    *o += w / total;
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_words_are_neither_short_numbers_nor_stop_words() {
        assert!(is_topic_word("process"));
        assert!(!is_topic_word("to"));
        assert!(!is_topic_word("3000"));
        assert!(!is_topic_word("which"));
    }
}
