//! `vault-search related` as text: one line per note to read next, with its reasons (paths
//! and reasons sanitised).

use std::io::{self, Write};

use crate::core::RelatedResponse;
use crate::text::terminal::sanitize_for_terminal as clean;

/// Runs `related NOTE -n N`; the write of its answer (`--json`: the response object) is
/// returned apart, as the caller treats a closed pipe.
pub(super) fn run(
    config: &super::Config,
    note: &str,
    limit: usize,
    refresh: bool,
    out: &mut dyn Write,
) -> anyhow::Result<io::Result<()>> {
    let opts = crate::RelatedOptions {
        vault: config.vault.clone(),
        cache_dir: config.cache_dir.clone(),
        limits: crate::Limits {
            max_note_bytes: None,
            pdf: config.pdf,
        },
        note: note.to_string(),
        limit,
        refresh,
    };
    let response = crate::related(&opts)?;
    super::warn_all(&response.warnings);
    Ok(if config.json {
        super::print::write_json(out, &response)
    } else {
        write_text(out, &response)
    })
}

/// Writes the human-readable form of a `related` answer.
pub(crate) fn write_text(w: &mut dyn Write, r: &RelatedResponse) -> io::Result<()> {
    writeln!(
        w,
        "=== Related to {}: {} notes ===",
        clean(&r.note),
        r.results.len()
    )?;
    for h in &r.results {
        writeln!(
            w,
            "{}  ({:.2}; {})",
            clean(&h.path),
            h.score,
            clean(&h.reasons.join("; "))
        )?;
    }
    Ok(())
}
