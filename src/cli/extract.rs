//! The binary as the PDF extraction child: it recognises the hidden `__extract-pdf` call (the
//! child's work is [`crate::extract_pdf_main`], in the library) and names itself as the
//! extractor of [`crate::PdfLimits`].

use std::path::PathBuf;

use crate::local::extract;

/// Is this process the extracting child?
pub(crate) fn is_extractor_call() -> bool {
    std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == extract::SUBCOMMAND)
}

/// This binary, as the extractor of [`crate::PdfLimits`] (`None` when it can't be found: PDFs
/// are then not indexed).
pub(crate) fn this_binary() -> Option<&'static std::path::Path> {
    use std::sync::OnceLock;
    static EXE: OnceLock<Option<PathBuf>> = OnceLock::new();
    EXE.get_or_init(|| std::env::current_exe().ok()).as_deref()
}
