//! Extracts each PDF given with one crate (`lopdf`, `pdf-extract` or `pdf`) and prints pages,
//! characters, words, time, pages/s, MB/s and the first words: the comparison of BENCHMARKS.md.

use std::time::Instant;
fn lopdf_pages(bytes: &[u8]) -> Result<Vec<String>, String> {
    let doc = lopdf::Document::load_mem(bytes).map_err(|e| e.to_string())?;
    let pages = doc.get_pages();
    let mut out = Vec::new();
    for (n, _) in pages.iter() {
        out.push(doc.extract_text(&[*n]).map_err(|e| e.to_string())?);
    }
    Ok(out)
}
fn pdf_extract_pages(bytes: &[u8]) -> Result<Vec<String>, String> {
    pdf_extract::extract_text_from_mem_by_pages(bytes).map_err(|e| e.to_string())
}
fn pdfrs_pages(bytes: &[u8]) -> Result<Vec<String>, String> {
    use pdf::file::FileOptions;
    let file = FileOptions::cached().load(bytes.to_vec()).map_err(|e| e.to_string())?;
    let resolver = file.resolver();
    let mut out = Vec::new();
    for page in file.pages() {
        let page = page.map_err(|e| e.to_string())?;
        let mut s = String::new();
        if let Some(content) = &page.contents {
            let ops = content.operations(&resolver).map_err(|e| e.to_string())?;
            for op in ops {
                match op {
                    pdf::content::Op::TextDraw { text } => { s.push_str(&text.to_string_lossy()); s.push(' '); }
                    pdf::content::Op::TextDrawAdjusted { array } => {
                        for a in array { if let pdf::content::TextDrawAdjusted::Text(t) = a { s.push_str(&t.to_string_lossy()); } }
                        s.push(' ');
                    }
                    pdf::content::Op::TextNewline | pdf::content::Op::MoveTextPosition { .. } => s.push('\n'),
                    _ => {}
                }
            }
        }
        out.push(s);
    }
    Ok(out)
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = &args[1];
    for path in &args[2..] {
        let bytes = std::fs::read(path).unwrap();
        let t = Instant::now();
        let r = std::panic::catch_unwind(|| match which.as_str() {
            "lopdf" => lopdf_pages(&bytes),
            "pdf-extract" => pdf_extract_pages(&bytes),
            "pdf" => pdfrs_pages(&bytes),
            _ => panic!("?"),
        });
        let secs = t.elapsed().as_secs_f64();
        let name = path.rsplit('/').next().unwrap();
        match r {
            Ok(Ok(pages)) => {
                let chars: usize = pages.iter().map(|p| p.chars().count()).sum();
                let words: usize = pages.iter().map(|p| p.split_whitespace().count()).sum();
                let first: String = pages.iter().find(|p| !p.trim().is_empty()).map(|p| p.split_whitespace().take(12).collect::<Vec<_>>().join(" ")).unwrap_or_default();
                println!("{which}\t{name}\tok\t{} pages\t{chars} chars\t{words} words\t{secs:.3}s\t{:.1} pages/s\t{:.2} MB/s\t| {first}", pages.len(), pages.len() as f64/secs, bytes.len() as f64/1e6/secs);
            }
            Ok(Err(e)) => println!("{which}\t{name}\terror\t{secs:.3}s\t{}", e.chars().take(100).collect::<String>()),
            Err(_) => println!("{which}\t{name}\tPANIC\t{secs:.3}s"),
        }
    }
}
