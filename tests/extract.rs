//! Canvases and PDFs in the local index, through the real binary: text, kinds, pages, the
//! extraction budget of a search, the cache, and files that must be skipped, never crash.
//! Every PDF here is written by [`pdf`], a minimal PDF writer.

use std::collections::HashMap;

use crate::util::{assert_ok, Env};
use vault_search::{FileKind, Status};

/// A PDF with one page per entry, each showing its lines in Helvetica.
pub fn pdf(pages: &[&str]) -> Vec<u8> {
    let n = pages.len();
    // Objects: 1 catalog, 2 page tree, 3 font, then per page: page, content.
    let mut objects: Vec<String> = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".into(),
        {
            let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
            format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" "))
        },
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".into(),
    ];
    for (i, text) in pages.iter().enumerate() {
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
            5 + 2 * i
        ));
        let mut content = String::new();
        if text.is_empty() {
            // No text at all: a drawn rectangle, as a scan's page has only an image.
            content.push_str("0 0 1 rg 72 72 200 200 re f");
        } else {
            content.push_str("BT /F1 12 Tf 72 720 Td 14 TL");
            for line in text.lines() {
                let esc = line
                    .replace('\\', "\\\\")
                    .replace('(', "\\(")
                    .replace(')', "\\)");
                content.push_str(&format!(" ({esc}) Tj T*"));
            }
            content.push_str(" ET");
        }
        objects.push(format!(
            "<< /Length {} >>\nstream\n{content}\nendstream",
            content.len()
        ));
    }
    write_objects(&objects, "")
}

/// The PDF file around numbered objects (1..), with `trailer_extra` in the trailer.
fn write_objects(objects: &[String], trailer_extra: &str) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R {trailer_extra}>>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// A PDF whose trailer says it is encrypted (standard security handler, AES-256) with a key
/// no empty password opens.
fn encrypted_pdf() -> Vec<u8> {
    let objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [] /Count 0 >>".to_string(),
        format!(
            "<< /Filter /Standard /V 5 /R 6 /Length 256 /P -4 /O <{o}> /U <{u}> /OE <{e}> /UE <{e}> /Perms <{p}> >>",
            o = "11".repeat(48),
            u = "22".repeat(48),
            e = "33".repeat(32),
            p = "44".repeat(16)
        ),
    ];
    write_objects(&objects, "/Encrypt 3 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>] ")
}

/// Deterministic noise.
fn random_bytes(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn local(env: &Env, query: &str) -> vault_search::SearchResponse {
    env.search_json(&["--source", "local", "-n", "20", "--", query])
}

#[test]
fn canvas_cards_groups_and_links_are_searchable() {
    let env = Env::new();
    env.write(
        "Boards/zoo.canvas",
        r#"{"nodes":[
          {"id":"g1","type":"group","label":"Marsupials","x":0,"y":0,"width":800,"height":800},
          {"id":"g2","type":"group","label":"Burrowers","x":20,"y":300,"width":300,"height":300},
          {"id":"c1","type":"text","text":"The wombat digs a burrow with its claws.","x":40,"y":320,"width":100,"height":100},
          {"id":"c2","type":"text","text":"A kangaroo hops; unrelated card about quokkas.","x":400,"y":20,"width":100,"height":100},
          {"id":"l1","type":"link","url":"https://example.org/platypus-facts","x":1000,"y":0,"width":100,"height":100}
        ],"edges":[{"id":"e1","fromNode":"c1","toNode":"c2","label":"cousins"}]}"#,
    );
    env.write("Boards/broken.canvas", "{\"nodes\": [ not json");
    env.write("note.md", "# A note\n\nNothing about marsupials.\n");
    // A commit of a run's start would read as a retry of the broken board below.
    env.backdate(&["Boards/zoo.canvas", "Boards/broken.canvas", "note.md"]);

    let report = env.index_json(&[]);
    let broken: Vec<_> = report
        .skipped_files
        .iter()
        .filter(|s| s.path == "Boards/broken.canvas")
        .collect();
    assert_eq!(broken.len(), 1, "{report:?}");
    assert!(broken[0].reason.contains("JSON"), "{}", broken[0].reason);

    let r = local(&env, "wombat claws");
    let hit = &r.results[0];
    assert_eq!(hit.path, "Boards/zoo.canvas");
    assert_eq!(hit.kind, FileKind::Canvas);
    assert_eq!(hit.basename, "zoo");
    assert_eq!(
        hit.heading.as_deref(),
        Some("Burrowers"),
        "the innermost group"
    );
    assert!(hit.excerpt.contains("wombat"), "{}", hit.excerpt);
    assert!(
        !hit.excerpt.contains("kangaroo"),
        "one card: {}",
        hit.excerpt
    );
    assert_eq!(hit.page, None);

    let r = local(&env, "kangaroo");
    assert_eq!(r.results[0].heading.as_deref(), Some("Marsupials"));
    assert_eq!(local(&env, "platypus").results[0].path, "Boards/zoo.canvas");
    assert_eq!(local(&env, "cousins").results[0].path, "Boards/zoo.canvas");
    assert_eq!(
        local(&env, "marsupials").results[0].path,
        "Boards/zoo.canvas",
        "group labels count as headings"
    );
    // The note's kind is in the JSON too.
    let r = local(&env, "nothing");
    assert_eq!(r.results[0].kind, FileKind::Note);

    // The malformed board is remembered, not retried (no commit), named again on every run,
    // and status names it.
    let meta = env.live_index_dir().join("meta.json");
    let before = std::fs::read(&meta).unwrap();
    let again = env.index_json(&[]);
    assert_eq!(again.skipped_files, report.skipped_files, "{again:?}");
    assert_eq!((again.added, again.unchanged), (0, 2), "{again:?}");
    assert_eq!(
        std::fs::read(&meta).unwrap(),
        before,
        "an index run committed"
    );
    let out = env.run(&["status", "--json"]);
    assert_ok(&out);
    let st: Status = serde_json::from_slice(&out.stdout).unwrap();
    assert!(st
        .skipped_files
        .iter()
        .any(|s| s.path == "Boards/broken.canvas"));
    // Fixed, it is indexed.
    env.write(
        "Boards/broken.canvas",
        r#"{"nodes":[{"id":"a","type":"text","text":"repaired numbat","x":0,"y":0,"width":1,"height":1}]}"#,
    );
    assert_eq!(
        local(&env, "numbat").results[0].path,
        "Boards/broken.canvas"
    );
}

#[test]
fn pdf_pages_kinds_and_filters() {
    let env = Env::new();
    env.write_bytes(
        "Papers/marsupials.pdf",
        &pdf(&[
            "Marsupials of Australia\nAn introduction",
            "The wombat digs burrows at night.\nWombat teeth never stop growing.",
            "The quokka smiles for photographs.",
        ]),
    );
    env.write("wombat-note.md", "# Wombat\n\nA note about the wombat.\n");
    let r = local(&env, "quokka photographs");
    let hit = &r.results[0];
    assert_eq!(hit.path, "Papers/marsupials.pdf");
    assert_eq!(hit.kind, FileKind::Pdf);
    assert_eq!(hit.page, Some(3));
    assert_eq!(hit.line, None);
    assert_eq!(hit.basename, "marsupials");
    assert!(hit.excerpt.contains("quokka"), "{}", hit.excerpt);
    assert!(!hit.excerpt.contains("wombat"), "one page: {}", hit.excerpt);

    let r = local(&env, "wombat teeth");
    assert_eq!(r.results[0].page, Some(2));

    let kinds =
        |q: &str| -> Vec<FileKind> { local(&env, q).results.iter().map(|h| h.kind).collect() };
    assert_eq!(kinds("wombat ext:pdf"), [FileKind::Pdf]);
    assert_eq!(kinds("wombat -ext:pdf"), [FileKind::Note]);
    assert_eq!(kinds("wombat ext:md"), [FileKind::Note]);
    let r = env.search_json(&["--source", "local", "--folder", "Papers", "wombat"]);
    assert!(r.results.iter().all(|h| h.path.starts_with("Papers/")));
    let r = env.search_json(&["--source", "local", "--exclude", "Papers", "wombat"]);
    assert!(r.results.iter().all(|h| !h.path.starts_with("Papers/")));

    // --no-pdf leaves them out entirely.
    let r = env.search_json(&["--source", "local", "--no-pdf", "quokka"]);
    assert!(r.results.iter().all(|h| h.kind != FileKind::Pdf), "{r:?}");
}

#[test]
fn bad_pdfs_are_skipped_with_their_reason() {
    let env = Env::new();
    let good = pdf(&["A readable page about the echidna.", "Second page, bilby."]);
    env.write_bytes("good.pdf", &good);
    env.write_bytes("truncated.pdf", &good[..good.len() / 2]);
    env.write_bytes("random.pdf", &random_bytes(5_000));
    env.write_bytes("scan.pdf", &pdf(&["", ""]));
    env.write_bytes("encrypted.pdf", &encrypted_pdf());
    env.write_bytes("huge.pdf", &pdf(&["echidna ".repeat(2000).as_str()]));
    let report = env.index_json(&["--max-pdf-bytes", "10000"]);
    let reasons: HashMap<&str, &str> = report
        .skipped_files
        .iter()
        .map(|s| (s.path.as_str(), s.reason.as_str()))
        .collect();
    for bad in ["random.pdf", "scan.pdf", "encrypted.pdf", "huge.pdf"] {
        assert!(reasons.contains_key(bad), "{bad} not skipped: {report:?}");
    }
    assert!(
        reasons["scan.pdf"].contains("text layer"),
        "{}",
        reasons["scan.pdf"]
    );
    assert!(
        reasons["random.pdf"].contains("not a PDF"),
        "{}",
        reasons["random.pdf"]
    );
    assert!(
        reasons["huge.pdf"].contains("--max-pdf-bytes"),
        "{}",
        reasons["huge.pdf"]
    );
    assert!(!reasons.contains_key("good.pdf"), "{report:?}");
    // Cut in half, the file keeps its first page: the parser recovers what it can, or the file
    // is skipped with its reason; either way the run goes on.
    if !reasons.contains_key("truncated.pdf") {
        let r = env.search_json(&["--source", "local", "--no-refresh", "echidna"]);
        assert!(r.results.iter().any(|h| h.path == "truncated.pdf"), "{r:?}");
    }
    // A file cut before any page can't be read at all.
    env.write_bytes("stub.pdf", &good[..40]);
    let report = env.index_json(&["--max-pdf-bytes", "10000"]);
    let stub = report.skipped_files.iter().find(|s| s.path == "stub.pdf");
    assert!(stub.is_some_and(|s| s.reason.contains("PDF")), "{report:?}");

    let r = env.search_json(&["--source", "local", "--max-pdf-bytes", "10000", "bilby"]);
    assert_eq!(r.results[0].path, "good.pdf");
    assert_eq!(r.results[0].page, Some(2));
    let out = env.run(&["status", "--json"]);
    assert_ok(&out);
    let st: Status = serde_json::from_slice(&out.stdout).unwrap();
    let mut named: Vec<&str> = st.skipped_files.iter().map(|s| s.path.as_str()).collect();
    named.retain(|p| *p != "truncated.pdf");
    assert_eq!(
        named,
        [
            "encrypted.pdf",
            "huge.pdf",
            "random.pdf",
            "scan.pdf",
            "stub.pdf"
        ]
    );
}

#[test]
fn ten_thousand_pages_finish_or_are_skipped() {
    let env = Env::new();
    let texts: Vec<String> = (1..=10_000)
        .map(|i| match i {
            9_999 => "The zanzibar appendix.".to_string(),
            _ => format!("Page {i} of the long manual, section s{i}."),
        })
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    env.write_bytes("manual.pdf", &pdf(&refs));
    let report = env.index_json(&[]);
    match report.skipped_files.iter().find(|s| s.path == "manual.pdf") {
        Some(s) => assert!(s.reason.contains("longer than"), "{s:?}"),
        None => {
            let r = env.search_json(&["--source", "local", "--no-refresh", "zanzibar"]);
            assert_eq!(r.results[0].path, "manual.pdf");
            assert_eq!(r.results[0].page, Some(9999));
        }
    }
}

#[test]
fn a_search_extracts_a_few_pdfs_and_the_cache_spares_the_rest() {
    let env = Env::new();
    for i in 0..5 {
        env.write_bytes(
            &format!("p{i}.pdf"),
            &pdf(&[&format!("The platypus paper number {i}.")]),
        );
    }
    let r = local(&env, "platypus");
    let pdfs = r.results.iter().filter(|h| h.kind == FileKind::Pdf).count();
    assert!(pdfs <= 2, "{r:?}");
    assert!(
        r.warnings.iter().any(|w| w.contains("not extracted yet")),
        "{:?}",
        r.warnings
    );
    let report = env.index_json(&[]);
    assert_eq!(report.pending, 0);
    assert_eq!(local(&env, "platypus").results.len(), 5);

    // The cache holds each text once; a rebuild reads it instead of extracting again.
    let cache = env.store_dir().join("pdf-text");
    let stamps = |dir: &std::path::Path| -> Vec<(String, std::time::SystemTime)> {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    e.metadata().unwrap().modified().unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let before = stamps(&cache);
    assert_eq!(before.len(), 5);
    let rebuilt = env.index_json(&["--rebuild"]);
    assert!(rebuilt.rebuilt);
    assert_eq!(stamps(&cache), before);
    assert_eq!(local(&env, "platypus").results.len(), 5);
}

/// A PDF over `--max-pdf-bytes` is remembered as such, and indexed once a new cap admits it.
#[test]
fn a_raised_pdf_cap_indexes_what_was_too_large() {
    let env = Env::new();
    env.write("note.md", "a plain note\n");
    env.write_bytes("manual.pdf", &pdf(&["the platypus chapter"]));
    let out = env.run(&["--max-pdf-bytes", "100", "index", "--json"]);
    assert_ok(&out);
    let r: vault_search::IndexReport = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r.skipped, 1, "{r:?}");
    let small = env.search_json(&["--max-pdf-bytes", "100", "--source", "local", "platypus"]);
    assert!(small.results.is_empty(), "{small:?}");
    let out = env.run(&["--max-pdf-bytes", "1000000", "index", "--json"]);
    assert_ok(&out);
    let r: vault_search::IndexReport = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((r.skipped, r.added), (0, 1), "{r:?}");
    assert_eq!(local(&env, "platypus").results[0].path, "manual.pdf");
}
