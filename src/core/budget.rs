//! A response fitted to a token budget: what an agent reads costs it context, so a caller
//! that names a budget gets a response that never exceeds it, spent where it pays.
//!
//! The front-end renders (JSON, text, MCP's two views) and so knows what a response costs;
//! it hands that cost in. The rule, in order:
//! 0. every hit keeps what shows its note (path, basename, kind, score, excerpt, engine, line,
//!    passages) and drops what it says about it beside: tags, aliases, matched words, the link
//!    count and the time, and a heading its passage already names;
//! 1. as many hits as fit at their leanest: path, score, line and a short excerpt (the tail of
//!    the list keeps a line);
//! 2. in rank order, each hit whole with its passage while it fits (its excerpt cut to the
//!    lean length: the passage shows what it says);
//! 3. the best hit's passage before the tail: the last hits are left out (down to
//!    [`KEEP_HITS`]) to make room for it;
//! 4. a passage that still does not fit whole is cut to the lines around the hit's line that
//!    fit (and says `cut`), or left out when fewer than [`MIN_PASSAGE_TOKENS`] are left;
//! 5. whatever still does not fit is left out from the end, and a warning says how many hits
//!    were shown. A budget below what the answer's frame costs leaves no hits.

use super::{Passage, SearchHit, SearchResponse};

/// Hits kept for the sake of the best hit's passage (rule 3).
pub(crate) const KEEP_HITS: usize = 5;
/// A passage cut to fewer tokens than this is left out instead.
pub(crate) const MIN_PASSAGE_TOKENS: usize = 24;
/// The smallest budget a caller may name: the frame of an answer and one hit.
pub const MIN_BUDGET: usize = 100;
/// The largest budget a caller may name.
pub const MAX_BUDGET: usize = 1_000_000;

/// Fits `r` to `budget` tokens as `cost` counts them (the whole rendered response). Returns
/// true when anything was left out or cut.
pub fn fit(r: &mut SearchResponse, budget: usize, cost: &dyn Fn(&SearchResponse) -> usize) -> bool {
    if cost(r) <= budget {
        return false;
    }
    let total = r.results.len();
    // The warning is part of the frame: counted with its widest numbers, filled in at the end.
    r.warnings.push(note(total, total, budget));
    // A hit that shows a passage says what its excerpt says, and more: its excerpt is cut to
    // the lean one's length.
    let hits: Vec<SearchHit> = std::mem::take(&mut r.results)
        .into_iter()
        .map(bare)
        .map(|h| match h.passages.is_empty() {
            true => h,
            false => SearchHit {
                excerpt: short_excerpt(&h.excerpt),
                ..h
            },
        })
        .collect();
    // Warnings that would take half the budget leave room for the hits instead.
    while cost(r) > budget / 2 && r.warnings.len() > 1 {
        r.warnings.remove(0);
    }
    let frame = cost(r);
    let one = |r: &mut SearchResponse, h: &SearchHit| -> usize {
        r.results.push(h.clone());
        let c = cost(r).saturating_sub(frame);
        r.results.clear();
        c
    };
    let leanest: Vec<SearchHit> = hits.iter().map(lean).collect();
    let min: Vec<usize> = leanest.iter().map(|h| one(r, h)).collect();
    let full: Vec<usize> = hits.iter().map(|h| one(r, h)).collect();
    let avail = budget.saturating_sub(frame);
    // Rule 1: the hits that fit with a line each.
    let mut k = 0;
    let mut used = 0;
    while k < hits.len() && used + min[k] <= avail {
        used += min[k];
        k += 1;
    }
    let mut chosen: Vec<SearchHit> = leanest[..k].to_vec();
    let mut i = 0;
    while i < chosen.len() {
        i += 1;
        let i = i - 1;
        let extra = full[i].saturating_sub(min[i]);
        if extra == 0 {
            continue;
        }
        // Rule 3: the best hit's passage before the tail.
        while i == 0 && used + extra > avail && chosen.len() > KEEP_HITS {
            let gone = chosen.len() - 1;
            chosen.pop();
            used -= min[gone];
        }
        if used + extra <= avail {
            chosen[i] = hits[i].clone();
            used += extra;
            continue;
        }
        // Rule 4: the lines that fit.
        let left = avail - used;
        let mut base = SearchHit {
            passages: Vec::new(),
            ..hits[i].clone()
        };
        if let Some((p, c)) = cut_to(r, &hits[i], &mut base, left, frame, min[i], cost) {
            base.passages = vec![p];
            chosen[i] = base;
            used += c;
        }
    }
    r.results = chosen;
    finish(r, budget, total, cost)
}

/// Rule 5, and the warning's numbers.
fn finish(
    r: &mut SearchResponse,
    budget: usize,
    total: usize,
    cost: &dyn Fn(&SearchResponse) -> usize,
) -> bool {
    // Rule 5: the estimate per hit is close, not exact (a list's commas, a count's digits).
    while cost(r) > budget {
        match r.results.last_mut() {
            Some(h) if !h.passages.is_empty() => h.passages.clear(),
            Some(_) => {
                r.results.pop();
            }
            None => break,
        }
    }
    r.total_results = r.results.len();
    if let Some(w) = r.warnings.last_mut() {
        *w = note(r.results.len(), total, budget);
    }
    // The frame alone over the budget: its other warnings go, the last one stays.
    while cost(r) > budget && r.warnings.len() > 1 {
        r.warnings.remove(0);
    }
    true
}

fn note(shown: usize, total: usize, budget: usize) -> String {
    format!("cut to the {budget}-token budget: {shown} of {total} hits")
}

/// Rule 0: a hit without the fields that describe its note beside its text (they cost tokens
/// on every hit and seldom answer), nor a heading its first passage names (the passage's
/// heading path ends with it).
fn bare(h: SearchHit) -> SearchHit {
    let named = |p: &Passage| {
        let (Some(path), Some(heading)) = (&p.heading, &h.heading) else {
            return false;
        };
        path == heading || path.ends_with(&format!(" > {heading}"))
    };
    let heading = match h.passages.first().is_some_and(named) {
        true => None,
        false => h.heading.clone(),
    };
    SearchHit {
        tags: Vec::new(),
        aliases: Vec::new(),
        matched: Vec::new(),
        modified: None,
        links_in: None,
        heading,
        ..h
    }
}

/// A hit at its leanest: path, score, line and a short excerpt; no passages nor heading (for a
/// budget that has no room for even one whole hit).
fn lean(h: &SearchHit) -> SearchHit {
    SearchHit {
        passages: Vec::new(),
        heading: None,
        excerpt: short_excerpt(&h.excerpt),
        ..h.clone()
    }
}

/// An excerpt cut to a lean hit's length.
fn short_excerpt(excerpt: &str) -> String {
    const EXCERPT_TOKENS: usize = 16;
    let end = crate::text::tokens::prefix_within(excerpt, EXCERPT_TOKENS);
    let mut short = excerpt[..end].to_string();
    if end < excerpt.len() {
        short.push_str("...");
    }
    short
}

/// The first passage of `hit` cut to the lines around the hit's line whose cost fits in
/// `left` tokens beside the bare hit: the passage and the tokens it adds.
fn cut_to(
    r: &mut SearchResponse,
    hit: &SearchHit,
    bare: &mut SearchHit,
    left: usize,
    frame: usize,
    min: usize,
    cost: &dyn Fn(&SearchResponse) -> usize,
) -> Option<(Passage, usize)> {
    if left < MIN_PASSAGE_TOKENS {
        return None;
    }
    let p = hit.passages.first()?;
    let lines: Vec<&str> = p.text.split('\n').collect();
    let best = match (hit.line, p.line) {
        (Some(h), Some(first)) => h.saturating_sub(first) as usize,
        _ => 0,
    }
    .min(lines.len() - 1);
    let mut price = |a: usize, b: usize| -> (Passage, usize) {
        let q = shortened(p, &lines, a, b);
        bare.passages = vec![q.clone()];
        r.results.push(bare.clone());
        let c = cost(r).saturating_sub(frame).saturating_sub(min);
        r.results.clear();
        bare.passages.clear();
        (q, c)
    };
    let first = price(best, best);
    if first.1 > left {
        return None;
    }
    // Grow a line at a time, two below for one above: an answer mostly follows its cue.
    let mut last = first;
    crate::text::passage::grow_around(lines.len(), best, 2, |a, b| {
        let next = price(a, b);
        let fits = next.1 <= left;
        if fits {
            last = next;
        }
        fits
    });
    Some(last)
}

/// Lines `a..=b` of passage `p` (split into `lines`), marked cut when any were left out.
fn shortened(p: &Passage, lines: &[&str], a: usize, b: usize) -> Passage {
    let shift = |n: Option<u64>, by: usize| n.map(|n| n + by as u64);
    Passage {
        line: shift(p.line, a),
        end_line: shift(p.line, b),
        page: p.page,
        heading: p.heading.clone(),
        text: lines[a..=b].join("\n"),
        cut: p.cut || a > 0 || b + 1 < lines.len(),
    }
}

#[cfg(test)]
#[path = "budget_tests.rs"]
mod tests;
