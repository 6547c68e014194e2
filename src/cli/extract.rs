//! The hidden `__extract-pdf MAX_MEMORY_BYTES FILE` subcommand: the child process in which
//! the indexer extracts one PDF (see `local::extract` for why a process). It caps its own
//! memory, extracts, and prints one JSON object (`{"pages": [...]}` or `{"error": "..."}`).
//!
//! A program that embeds the library and points [`crate::PdfLimits::extractor`] at its own
//! binary calls [`extract_pdf_main`] when its first argument is `__extract-pdf`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::local::{extract, pdf};

/// Is this process the extracting child?
pub(crate) fn is_extractor_call() -> bool {
    std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == extract::SUBCOMMAND)
}

/// Runs the extracting child: `argv[2]` is the memory cap in bytes, `argv[3]` the PDF.
pub fn extract_pdf_main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(2).collect();
    let (Some(mem), Some(path)) = (args.first(), args.get(1)) else {
        eprintln!("vault-search: usage: __extract-pdf MAX_MEMORY_BYTES FILE");
        return ExitCode::from(2);
    };
    let Some(mem) = mem.to_str().and_then(|m| m.parse::<u64>().ok()) else {
        eprintln!("vault-search: __extract-pdf: MAX_MEMORY_BYTES must be a number");
        return ExitCode::from(2);
    };
    pdf::limit_memory(mem);
    let extracted = pdf::extract_file(&PathBuf::from(path));
    let mut out = std::io::stdout().lock();
    match serde_json::to_writer(&mut out, &extracted).map(|()| out.flush()) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    }
}

/// This binary, as the extractor of [`crate::PdfLimits`] (`None` when it can't be found: PDFs
/// are then not indexed).
pub(crate) fn this_binary() -> Option<&'static std::path::Path> {
    use std::sync::OnceLock;
    static EXE: OnceLock<Option<PathBuf>> = OnceLock::new();
    EXE.get_or_init(|| std::env::current_exe().ok()).as_deref()
}
