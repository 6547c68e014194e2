//! The entry point of the PDF extraction child, in the library and behind no feature: the
//! indexer extracts each PDF in a child process (see `local::extract` for why a process), and
//! that child is whatever program [`crate::PdfLimits::extractor`] names. The `vault-search`
//! binary is one (its hidden `__extract-pdf MAX_MEMORY_BYTES FILE` subcommand); a program that
//! embeds the library, with or without the `cli` feature, is another when it calls
//! [`extract_pdf_main`] as soon as its first argument is `__extract-pdf`.
//!
//! The child caps its own memory, extracts, and prints one JSON object (`{"pages": [...]}` or
//! `{"error": "..."}`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::local::pdf;

/// Runs the extracting child: `argv[2]` is the memory cap in bytes, `argv[3]` the PDF. Call it
/// when `argv[1]` is `__extract-pdf`, and exit with the code it returns.
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
