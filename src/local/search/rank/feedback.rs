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
use tantivy::tokenizer::{TextAnalyzer, TokenStream};
use tantivy::{DocAddress, Searcher, Term};

use super::features::{by_segment, for_each_hit};
use super::reading::is_filler_word;
use crate::local::schema::Fields;
use crate::local::stored::Stored;
use crate::local::weights::weights;

/// At most this many bytes of a feedback note are tokenized: its topic is in its first
/// paragraphs, and 16 KiB of eight long notes cost a question a quarter more (2 KiB: a tenth).
const READ_BYTES: usize = 2 * 1024;

/// The feedback words of the notes at `top`, each with its weight (the best 1): words held by
/// at least `fb_min_docs` of them, not words of the query (nor their variants), not stop
/// words, weighted by how many of the notes hold them and by their rarity in the vault.
pub(super) fn words(
    searcher: &Searcher,
    fields: &Fields,
    analyzer: &mut TextAnalyzer,
    top: &[DocAddress],
    query_words: &HashSet<&str>,
) -> Result<Vec<(String, f32)>> {
    let mut support: HashMap<String, f32> = HashMap::new();
    let mut verdict: HashMap<String, bool> = HashMap::new();
    for &addr in top {
        let doc = Stored::read(searcher, addr)?;
        let body = doc.body();
        let mut cut = body.len().min(READ_BYTES);
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        let text = &body[..cut];
        let links = link_spans(text);
        let mut seen: HashSet<String> = HashSet::new();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            let tok = stream.token();
            // A compound's whole form (`position_length` > 1) is a name; its parts count.
            if tok.position_length > 1 || seen.contains(&tok.text) {
                continue;
            }
            // A web address names a site (`https`, `github`, `org`), not the note's topic.
            if links
                .iter()
                .any(|&(a, b)| a <= tok.offset_from && tok.offset_from < b)
            {
                continue;
            }
            // Judged once per word of the query's feedback (the stop list is a linear scan).
            let topic = match verdict.get(&tok.text) {
                Some(&v) => v,
                None => {
                    let v = is_topic_word(&tok.text) && !query_words.contains(tok.text.as_str());
                    verdict.insert(tok.text.clone(), v);
                    v
                }
            };
            if topic {
                seen.insert(tok.text.clone());
            }
        }
        for s in seen {
            *support.entry(s).or_insert(0.0) += 1.0;
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

/// Byte ranges of the web addresses in `text`: from the scheme to the next space, `>`, `)` or
/// quote.
fn link_spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = text[from..].find("://") {
        let at = from + k;
        let start = text[..at]
            .rfind(|c: char| !c.is_ascii_alphanumeric())
            .map_or(0, |i| i + 1);
        let end = text[at..]
            .find(|c: char| c.is_whitespace() || matches!(c, '>' | ')' | '"' | '\''))
            .map_or(text.len(), |i| at + i);
        out.push((start, end));
        from = end.max(at + 3);
    }
    out
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
    for (seg_ord, mut docs) in by_segment(candidates) {
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
    use crate::core::Limits;
    use crate::local::analyzer;
    use crate::local::index::refresh;
    use crate::local::schema;

    /// The feedback words of every note of a vault made of `notes`, for a query of `query`.
    fn feedback_of(notes: &[(&str, &str)], query: &[&str]) -> Vec<(String, f32)> {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in notes {
            std::fs::write(dir.path().join(path), text).unwrap();
        }
        let index = refresh::build_in_memory(dir.path(), Limits::default()).unwrap();
        let searcher = index.reader().unwrap().searcher();
        let top: Vec<DocAddress> = (0..searcher.segment_readers().len() as u32)
            .flat_map(|s| {
                let n = searcher.segment_reader(s).max_doc();
                (0..n).map(move |d| DocAddress::new(s, d))
            })
            .collect();
        let q: HashSet<&str> = query.iter().copied().collect();
        let mut a = analyzer::text_analyzer();
        words(&searcher, schema::fields(), &mut a, &top, &q).unwrap()
    }

    #[test]
    fn the_words_several_top_notes_share_and_few_others_hold() {
        let mut notes = vec![
            ("a.md", "Find the process on a port."),
            ("b.md", "Kill the process by its port."),
            ("c.md", "List every process with its socket."),
            ("d.md", "The socket of a process."),
        ];
        // Notes holding `socket` too, making it common in the vault.
        let filler: Vec<(String, &str)> = (0..8)
            .map(|i| (format!("s{i}.md"), "A socket here."))
            .collect();
        notes.extend(filler.iter().map(|(p, t)| (p.as_str(), *t)));
        let fb = feedback_of(&notes, &["port"]);
        // `process`: four notes hold it; `socket` is shared too, but common; `port` is the
        // query's own word and `the`, `its` are stop words.
        assert_eq!(fb[0], ("process".to_string(), 1.0));
        assert!(fb
            .iter()
            .all(|(w, _)| !matches!(w.as_str(), "port" | "the" | "its")));
        let socket = fb.iter().find(|(w, _)| w == "socket").unwrap();
        assert!(socket.1 < 1.0);
    }

    #[test]
    fn a_word_of_one_or_two_notes_is_no_feedback() {
        let mut notes = vec![
            ("a.md", "zebra process"),
            ("b.md", "zebra process"),
            ("c.md", "process"),
        ];
        notes.extend([("d.md", "pony"), ("e.md", "kite"), ("f.md", "lamp")]);
        // Three notes hold `process`, two `zebra`, one each of the rest.
        let fb = feedback_of(&notes, &[]);
        assert_eq!(fb, [("process".to_string(), 1.0)]);
    }

    #[test]
    fn web_addresses_are_found_whole() {
        let t = "See <https://manned.org/lsof> or (http://a.b/c) and ftp://x y.";
        let spans: Vec<&str> = link_spans(t).iter().map(|&(a, b)| &t[a..b]).collect();
        assert_eq!(
            spans,
            ["https://manned.org/lsof", "http://a.b/c", "ftp://x"]
        );
        assert!(link_spans("plain text").is_empty());
    }

    #[test]
    fn words_of_web_addresses_are_no_feedback() {
        let notes: Vec<(String, String)> = (0..4)
            .map(|i| {
                let text = format!("Process {i}. More: <https://manned.org/p{i}>");
                (format!("{i}.md"), text)
            })
            .chain((0..4).map(|i| (format!("x{i}.md"), "other".to_string())))
            .collect();
        let notes: Vec<(&str, &str)> = notes
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let fb = feedback_of(&notes, &[]);
        assert_eq!(fb, [("process".to_string(), 1.0)]);
    }

    #[test]
    fn topic_words_are_neither_short_numbers_nor_stop_words() {
        assert!(is_topic_word("process"));
        assert!(!is_topic_word("to"));
        assert!(!is_topic_word("3000"));
        assert!(!is_topic_word("which"));
    }
}
