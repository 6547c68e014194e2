//! The text of a PDF, page by page, in pure Rust (lopdf; BENCHMARKS.md says why this crate).
//! This runs only inside the extracting child process (see [`super::extract`]), which first
//! caps its own memory with [`limit_memory`].
//!
//! lopdf's own `extract_text` looks the page tree up again for every page it is asked for,
//! which is quadratic in the page count (a 10,000-page PDF took over a minute); here the page
//! tree is read once and each page's content stream is decoded with the page's fonts.

use std::collections::BTreeMap;
use std::path::Path;

use lopdf::content::Content;
use lopdf::{Document, Encoding, Object};

use super::extract::Extracted;

/// A page's decompressed content stream may not exceed this (a small stream can inflate to
/// gigabytes).
const MAX_PAGE_CONTENT_BYTES: usize = 64 * 1024 * 1024;

/// Caps the memory of this process: its address space on Unix (`RLIMIT_AS`), its committed
/// memory on Windows (a Job Object, see `job`). Elsewhere nothing is set: the parent's time
/// limit still applies.
pub(crate) fn limit_memory(bytes: u64) {
    #[cfg(unix)]
    {
        use rustix::process::{setrlimit, Resource, Rlimit};
        let _ = setrlimit(
            Resource::As,
            Rlimit {
                current: Some(bytes),
                maximum: Some(bytes),
            },
        );
    }
    // Failing to cap is not fatal: the time limit and the output cap still hold.
    #[cfg(windows)]
    let _ = super::job::cap_this_process(bytes);
    #[cfg(not(any(unix, windows)))]
    let _ = bytes;
}

/// Extracts the PDF at `path`; every failure (unreadable, malformed, encrypted, a panic in
/// the parser) is a reason in [`Extracted::error`].
pub(crate) fn extract_file(path: &Path) -> Extracted {
    let failed = |why: String| Extracted {
        pages: None,
        error: Some(why),
        ..Extracted::default()
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return failed(format!("cannot read: {e}")),
    };
    // The parent hashed the file before; it keeps this text only if the bytes are the same.
    let read_hash = Some(blake3::hash(&bytes).to_hex().to_string());
    let mut out = match std::panic::catch_unwind(|| pages(&bytes)) {
        Ok(Ok(pages)) => Extracted {
            pages: Some(pages),
            ..Extracted::default()
        },
        Ok(Err(why)) => failed(why),
        Err(_) => failed("the PDF parser failed on this file".into()),
    };
    out.read_hash = read_hash;
    out
}

/// The text of every page.
pub(crate) fn pages(bytes: &[u8]) -> Result<Vec<String>, String> {
    let doc = Document::load_mem(bytes).map_err(|e| format!("not a readable PDF: {e}"))?;
    if doc.is_encrypted() {
        // lopdf opens a PDF whose user password is empty by itself; this one needs a password.
        return Err("encrypted (needs a password)".into());
    }
    let pages = doc.get_pages();
    let mut out = Vec::with_capacity(pages.len());
    for &page_id in pages.values() {
        // A page that can't be read is an empty page: the others still count.
        out.push(page_text(&doc, page_id).unwrap_or_default());
    }
    Ok(out)
}

fn page_text(doc: &Document, page_id: lopdf::ObjectId) -> lopdf::Result<String> {
    let encodings: BTreeMap<Vec<u8>, Encoding> = doc
        .get_page_fonts(page_id)?
        .into_iter()
        .filter_map(|(name, font)| Some((name, font.get_font_encoding(doc).ok()?)))
        .collect();
    let content =
        Content::decode(&doc.get_page_content_with_limit(page_id, MAX_PAGE_CONTENT_BYTES)?)?;
    let mut text = String::new();
    let mut encoding: Option<&Encoding> = None;
    let newline = |text: &mut String| {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
    };
    for op in &content.operations {
        match op.operator.as_str() {
            "Tf" => {
                encoding = op
                    .operands
                    .first()
                    .and_then(|o| o.as_name().ok())
                    .and_then(|n| encodings.get(n));
            }
            "Tj" | "TJ" => {
                if let Some(enc) = encoding {
                    collect(&mut text, enc, &op.operands);
                }
            }
            "'" => {
                newline(&mut text);
                if let Some(enc) = encoding {
                    collect(&mut text, enc, &op.operands);
                }
            }
            "\"" => {
                newline(&mut text);
                if let (Some(enc), Some(s)) = (encoding, op.operands.get(2)) {
                    collect(&mut text, enc, std::slice::from_ref(s));
                }
            }
            "T*" | "ET" | "Td" | "TD" => newline(&mut text),
            _ => {}
        }
    }
    Ok(text)
}

/// Appends shown strings; a large negative kerning inside `TJ` is a word space.
fn collect(text: &mut String, enc: &Encoding, operands: &[Object]) {
    for o in operands {
        match o {
            Object::String(bytes, _) => {
                if let Ok(s) = Document::decode_text(enc, bytes) {
                    text.push_str(&s);
                }
            }
            Object::Array(items) => {
                // Nested no deeper than one level: a `TJ` array holds strings and numbers.
                for it in items {
                    match it {
                        Object::String(bytes, _) => {
                            if let Ok(s) = Document::decode_text(enc, bytes) {
                                text.push_str(&s);
                            }
                        }
                        Object::Integer(i) if *i < -100 => text.push(' '),
                        Object::Real(r) if *r < -100.0 => text.push(' '),
                        _ => {}
                    }
                }
                text.push(' ');
            }
            _ => {}
        }
    }
}
