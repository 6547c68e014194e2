use super::table::{Kind, OPTIONS};
use super::*;

fn base() -> SearchOptions {
    SearchOptions::new("/vault", "")
}

fn words(q: &str) -> SearchRequest {
    SearchRequest {
        query: q.into(),
        ..SearchRequest::default()
    }
}

#[test]
fn every_row_is_a_field_of_the_request_and_every_field_a_row() {
    // The fields, as `Debug` names them: `SearchRequest { query: "", limit: None, … }`.
    let shown = format!("{:?}", SearchRequest::default());
    let inner = shown
        .trim_start_matches("SearchRequest {")
        .trim_end_matches('}');
    let fields: Vec<&str> = inner
        .split(", ")
        .filter_map(|f| f.split_once(':'))
        .map(|(name, _)| name.trim().trim_end_matches('_'))
        .collect();
    let rows: Vec<&str> = OPTIONS.iter().map(|o| o.name).collect();
    assert_eq!(
        fields, rows,
        "SearchRequest's fields and the table's rows, in order"
    );
}

#[test]
fn every_row_says_what_it_is_on_each_front_end() {
    for o in OPTIONS {
        assert!(!o.help.is_empty(), "{}: no help", o.name);
        for front in Front::ALL {
            match o.on(front) {
                Spelling::As(n) => assert!(!n.is_empty(), "{}: empty name", o.name),
                Spelling::Absent(why) => assert!(!why.is_empty(), "{}: absent, why?", o.name),
            }
        }
        if o.named(Front::Mcp).is_some() {
            assert!(!o.mcp_help.is_empty(), "{}: no MCP description", o.name);
        }
        assert_eq!(
            o.bounds.is_some(),
            o.kind == Kind::Number,
            "{}: a number has bounds, nothing else does",
            o.name
        );
        if let Some(c) = o.cap {
            assert!(c.items >= 1 && c.bytes >= 1, "{}", o.name);
        }
        if matches!(o.kind, Kind::Text | Kind::List) && o.named(Front::Mcp).is_some() {
            assert!(
                o.cap.is_some(),
                "{}: an MCP text or list argument has a cap",
                o.name
            );
        }
    }
}

#[test]
fn a_filter_without_words_lists_notes_on_every_front_end() {
    for front in Front::ALL {
        let by_folder = SearchRequest {
            folder: Some("Projects".into()),
            ..SearchRequest::default()
        };
        let r = by_folder.resolve(front, &base()).unwrap();
        assert_eq!(r.options.sort, Sort::Modified, "{front:?}");
        assert_eq!(r.options.scope.folder.as_deref(), Some("Projects"));
        let by_tag = SearchRequest {
            tags: vec!["meeting".into()],
            sort: Some(Sort::Relevance),
            ..SearchRequest::default()
        };
        let r = by_tag.resolve(front, &base()).unwrap();
        assert_eq!(r.options.sort, Sort::Modified, "no words, no relevance");
        let err = words("  ").resolve(front, &base()).unwrap_err().to_string();
        assert!(err.starts_with("the query is empty"), "{front:?}: {err}");
        let folder = spelt(front, "folder");
        assert!(err.contains(&folder), "{front:?} names its {folder}: {err}");
    }
    let err = words("").resolve(Front::Cli, &base()).unwrap_err();
    assert!(err.to_string().contains("--links-to"), "{err}");
}

#[test]
fn bounds_are_the_table_s_on_every_front_end() {
    let with = |limit, budget| SearchRequest {
        limit,
        budget,
        ..words("kotlin")
    };
    for front in Front::ALL {
        let r = with(None, None).resolve(front, &base()).unwrap();
        assert_eq!(r.options.limit, 10);
        assert_eq!(r.budget, (front == Front::Mcp).then_some(1500));
        // Identical budget bounds everywhere.
        for ok in [100, 1_000_000] {
            let r = with(None, Some(ok)).resolve(front, &base()).unwrap();
            assert_eq!(r.budget, Some(ok as usize));
            assert_eq!(
                r.options.passage_bytes,
                crate::core::passage_bytes_within(ok as usize)
            );
        }
        for bad in [99, 1_000_001] {
            let err = with(None, Some(bad)).resolve(front, &base()).unwrap_err();
            let want = format!("{} must be 100-1000000, not {bad}", spelt(front, "budget"));
            assert_eq!(err.to_string(), want);
        }
        assert!(with(Some(0), None).resolve(front, &base()).is_err());
        assert!(with(Some(50), None).resolve(front, &base()).is_ok());
    }
    // MCP's limit is its own, on purpose.
    let err = with(Some(51), None)
        .resolve(Front::Mcp, &base())
        .unwrap_err();
    assert_eq!(err.to_string(), "limit must be 1-50, not 51");
    let r = with(Some(1000), None)
        .resolve(Front::Serve, &base())
        .unwrap();
    assert_eq!(r.options.limit, 1000);
    let err = with(Some(1001), None)
        .resolve(Front::Cli, &base())
        .unwrap_err();
    assert_eq!(err.to_string(), "--limit must be 1-1000, not 1001");
}

#[test]
fn the_base_decides_what_the_request_leaves_out() {
    let mut served = base();
    served.source = Source::Local;
    served.refresh = false;
    served.port = 1;
    let r = words("a").resolve(Front::Serve, &served).unwrap().options;
    assert_eq!((r.source, r.refresh, r.port), (Source::Local, false, 1));
    let asked = SearchRequest {
        no_refresh: true,
        port: Some(7),
        source: Some(Source::Both),
        include_ignored: true,
        ..words("a  b")
    };
    let r = asked.resolve(Front::Cli, &base()).unwrap().options;
    assert_eq!(r.query, "a b");
    assert_eq!((r.source, r.refresh, r.port), (Source::Both, false, 7));
    assert!(r.include_ignored);
    let both = SearchRequest {
        source: Some(Source::Both),
        budget: Some(500),
        ..words("a")
    };
    let err = both.resolve(Front::Cli, &base()).unwrap_err().to_string();
    assert!(
        err.starts_with("--budget does not go with --source both"),
        "{err}"
    );
}

#[test]
fn a_long_query_is_cut_with_a_warning() {
    let long = "word ".repeat(MAX_QUERY_WORDS + 10);
    let r = words(&long).resolve(Front::Serve, &base()).unwrap();
    assert_eq!(r.options.query.split(' ').count(), MAX_QUERY_WORDS);
    assert_eq!(r.warnings.len(), 1);
    assert!(r.warnings[0].starts_with("the query was cut to its first 256 words"));
    let one = "x".repeat(MAX_QUERY_BYTES + 5);
    let (q, cut) = capped_query(&one);
    assert_eq!(q.len(), MAX_QUERY_BYTES);
    assert!(cut.is_some());
    assert_eq!(capped_query(" a   b "), ("a b".to_string(), None));
}
