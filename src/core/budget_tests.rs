use super::*;

/// A cost as a front-end would count it (here a quarter of the JSON's bytes; the front-ends
/// use `text::tokens`).
fn json_cost(r: &SearchResponse) -> usize {
    serde_json::to_string(r).unwrap().len().div_ceil(4)
}

fn hit(i: usize, lines: usize) -> SearchHit {
    let text: Vec<String> = (0..lines)
        .map(|l| format!("line {l} of note {i} says something useful"))
        .collect();
    SearchHit {
        vault: None,
        path: format!("folder/note {i}.md"),
        basename: format!("note {i}"),
        kind: crate::core::FileKind::Note,
        page: None,
        score: 10.0 - i as f64,
        excerpt: format!("an excerpt of note {i}"),
        engine: "local".into(),
        line: Some(12),
        heading: None,
        passages: vec![Passage {
            line: Some(10),
            end_line: Some(10 + lines as u64 - 1),
            page: None,
            heading: Some("Section".into()),
            text: text.join("\n"),
            cut: false,
        }],
        tags: Vec::new(),
        aliases: Vec::new(),
        modified: None,
        modified_ns: None,
        matched: Vec::new(),
        highlight: Vec::new(),
        links_in: None,
    }
}

fn response(n: usize, lines: usize) -> SearchResponse {
    SearchResponse {
        query: "something useful".into(),
        engine: "local".into(),
        elapsed_seconds: 0.01,
        vault: "/vault".into(),
        total_results: n,
        results: (0..n).map(|i| hit(i, lines)).collect(),
        error: None,
        stale: false,
        watched: false,
        fallback_reason: None,
        omnisearch_hits: None,
        comparison: None,
        warnings: Vec::new(),
        vaults: Vec::new(),
    }
}

#[test]
fn a_response_within_its_budget_is_left_as_it_is() {
    let mut r = response(3, 2);
    let before = r.clone();
    assert!(!fit(&mut r, 100_000, &json_cost));
    assert_eq!(r, before);
}

#[test]
fn no_budget_is_ever_exceeded() {
    for n in [1, 5, 100] {
        for budget in [100, 150, 200, 400, 1000, 3000, 20_000] {
            let mut r = response(n, 30);
            fit(&mut r, budget, &json_cost);
            assert!(
                json_cost(&r) <= budget,
                "{n} hits, budget {budget}: {}",
                json_cost(&r)
            );
            assert_eq!(r.total_results, r.results.len());
        }
    }
}

#[test]
fn the_best_hit_gets_its_passage_before_the_tail_and_cuts_say_so() {
    let mut r = response(10, 30);
    fit(&mut r, 450, &json_cost);
    assert!(!r.results.is_empty());
    let top = &r.results[0];
    assert_eq!(top.passages.len(), 1, "{r:?}");
    let p = &top.passages[0];
    assert!(p.cut, "{p:?}");
    // The cut passage holds the hit's line, and its numbers still name its lines.
    let (a, b) = (p.line.unwrap(), p.end_line.unwrap());
    assert!(a <= 12 && 12 <= b, "{p:?}");
    assert_eq!(p.text.split('\n').count() as u64, b - a + 1);
    assert!(p.text.contains("line 2 of note 0"), "{p:?}");
    assert!(r.warnings.last().unwrap().contains("budget"));
    // A large budget shows every passage whole.
    let mut r = response(10, 30);
    fit(&mut r, 20_000, &json_cost);
    assert!(r.results.iter().all(|h| !h.passages[0].cut));
}

#[test]
fn a_hit_with_its_passage_keeps_only_a_short_excerpt() {
    let mut r = response(3, 4);
    for h in &mut r.results {
        h.excerpt = "words of the excerpt, ".repeat(20);
    }
    let long = r.results[0].excerpt.len();
    fit(&mut r, 500, &json_cost);
    let top = &r.results[0];
    assert!(!top.passages.is_empty(), "{r:?}");
    assert!(top.excerpt.len() < long / 4, "{}", top.excerpt);
    assert!(top.excerpt.ends_with("..."), "{}", top.excerpt);
}
