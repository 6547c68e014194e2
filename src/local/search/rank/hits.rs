//! The hits of the re-ranked notes: each read back for its excerpt, line and heading, from the
//! file for a giant note unchanged on disk, else from the stored document.

use anyhow::{Context, Result};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::DocAddress;

use super::context::RankContext;
use super::features::{Features, TermHits};
use super::terms::ExpandedTerm;
use crate::core::{round_to, FileKind, Passage, SearchHit, ENGINE_LOCAL};
use crate::local::search::show;
use crate::local::search::window::{Occ, Window};
use crate::local::stored::{self, Stored};
use crate::text::{passage, stem_of};

/// The hit of each `scored` candidate, in that order.
pub(super) fn build(
    cx: &RankContext,
    scored: &[(f64, usize)],
    feats: &mut [Features],
    windows: &[Option<Window>],
    analyzer: &mut TextAnalyzer,
) -> Result<Vec<SearchHit>> {
    let (searcher, fields, candidates) = (cx.searcher, cx.fields, cx.candidates);
    let q = cx.query;
    let phrases: Vec<&[String]> = q
        .phrases
        .iter()
        .chain(std::iter::once(&q.sequence))
        .map(Vec::as_slice)
        .collect();
    let mut out = Vec::with_capacity(scored.len());
    for &(score, i) in scored {
        let f = &mut feats[i];
        // The re-rank's window over all the body (when it has one as wide as a passage's): the
        // passage's too unless it starts in the frontmatter (a giant note's occurrences are
        // not scanned a second time).
        let known = windows.get(i).and_then(Option::as_ref).map(|w| w.first);
        let cues = show::Cues {
            phrases: &phrases,
            positions: &f.positions,
            known,
            rarity: &cx.rarity,
            passage_bytes: cx.passage_bytes,
        };
        let addr = candidates[i].1;
        // A giant note unchanged on disk: its passage comes from the file, not the doc store.
        if let Some(d) = show::disk::show(searcher, fields, cx.vault, addr, &cues, &mut f.occs)? {
            let (matched, highlight) = matched_terms(cx.terms, &f.terms);
            let modified_ns = stored::mtime_of(searcher, fields, candidates[i].1);
            out.push(SearchHit {
                vault: None,
                basename: stem_of(&d.path),
                path: d.path,
                // Only a note's text is its file's bytes: the others never take this path.
                kind: FileKind::Note,
                page: None,
                score: round_to(score, 2),
                engine: ENGINE_LOCAL.into(),
                excerpt: d.excerpt,
                line: Some(d.spot.line),
                heading: d.spot.heading,
                passages: d.passage.into_iter().collect(),
                tags: d.tags,
                aliases: d.aliases,
                modified: modified_ns.and_then(crate::core::rfc3339),
                modified_ns,
                matched,
                highlight,
                links_in: None,
            });
            continue;
        }
        out.push(stored_hit(
            cx,
            addr,
            score,
            &cues,
            &mut f.occs,
            &f.terms,
            analyzer,
        )?);
    }
    Ok(out)
}

/// The hit of a note read back from its stored document.
fn stored_hit(
    cx: &RankContext,
    addr: DocAddress,
    score: f64,
    cues: &show::Cues,
    occs: &mut [Occ],
    hits: &[TermHits],
    analyzer: &mut TextAnalyzer,
) -> Result<SearchHit> {
    let (searcher, fields) = (cx.searcher, cx.fields);
    let doc = Stored::read(searcher, addr).context("reading a stored note")?;
    let body = doc.body();
    let table = doc.checkpoints();
    // The best passage (a phrase first), located through the checkpoint table: the work
    // is bounded by the passage, not the note.
    let shown = show::show(analyzer, body, &table, cues, occs);
    let pos = shown.spot.offset;
    let path = doc.path().to_string();
    let modified_ns = stored::mtime_of(searcher, fields, addr);
    let (matched, highlight) = matched_terms(cx.terms, hits);
    let kind = FileKind::of_name(&path).unwrap_or_default();
    let passages = passage_of(kind, body, &shown, cues.passage_bytes);
    Ok(SearchHit {
        vault: None,
        basename: stem_of(&path),
        path,
        kind,
        page: kind.page_at(body, pos),
        score: round_to(score, 2),
        engine: ENGINE_LOCAL.into(),
        excerpt: kind.excerpt(body, pos, shown.text_start),
        line: kind.text_is_file().then_some(shown.spot.line),
        heading: shown.spot.heading.filter(|_| kind.has_headings()),
        passages,
        // From the stored fields: parsing the note again would read all of it.
        tags: doc.tags(),
        aliases: doc.aliases().map(str::to_string).collect(),
        modified: modified_ns.and_then(crate::core::rfc3339),
        modified_ns,
        matched,
        highlight,
        links_in: None,
    })
}

/// The passage of a hit shown at `shown` of `body`: within the part an excerpt may show (a
/// note's text after its frontmatter, one canvas card, one PDF page), with line numbers only
/// where the text is the file's own (a PDF's names its page).
fn passage_of(kind: FileKind, body: &str, shown: &show::Shown, max_bytes: usize) -> Vec<Passage> {
    if max_bytes == 0 {
        return Vec::new();
    }
    let pos = shown.spot.offset;
    let (from, to) = kind.excerpt_bounds(body, pos, shown.text_start);
    let src = passage::Source {
        text: &body[..to],
        floor: from,
        at: pos,
        line_at: shown.spot.line,
        markdown: kind.is_markdown(),
        heading_above: None,
    };
    let Some(mut p) = passage::passage(&src, max_bytes) else {
        return Vec::new();
    };
    if !kind.text_is_file() {
        (p.line, p.end_line) = (None, None);
        if !kind.has_headings() {
            p.heading = None;
        }
        p.page = kind.page_at(body, pos);
        return vec![p];
    }
    passage::with_lead(body, shown.text_start, kind.is_markdown(), p)
}

/// The query terms a note matched, and every variant of them to highlight.
fn matched_terms(terms: &[ExpandedTerm], hits: &[TermHits]) -> (Vec<String>, Vec<String>) {
    let mut matched = Vec::new();
    let mut highlight = Vec::new();
    // A sentence's filler words ("how", "the") match nearly every note: not worth naming.
    for (t, h) in terms.iter().zip(hits).filter(|(t, _)| !t.filler) {
        if h.title.max(h.alias).max(h.head).max(h.body).max(h.tags) > 0.0 {
            matched.push(t.text.clone());
            highlight.extend(t.variants.all.keys().cloned());
        }
    }
    (matched, highlight)
}
