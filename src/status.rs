//! The status of a vault: what the index holds, how stale it is, and whether Omnisearch
//! answers — the first thing to run when results look wrong.

use std::fmt;
use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::core::SkippedFile;
use crate::local::{self, schema, Store};
use crate::omnisearch;
use crate::text::terminal::sanitize_for_terminal;

/// The status report (`--json`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Status {
    pub vault: String,
    /// The per-vault index directory (`null` without a cache directory).
    pub index_dir: Option<String>,
    /// True when a usable index exists.
    pub indexed: bool,
    /// Notes in the index.
    pub notes: u64,
    /// Bytes on disk of the live index.
    pub index_bytes: u64,
    /// When the last committed run started (UTC, RFC 3339).
    pub last_indexed_at: Option<String>,
    /// Notes added, modified or removed on disk since (by size and mtime; a stat walk).
    pub changed_since: Option<u64>,
    /// Files the index remembers as not indexable — over the size cap, a PDF that failed to
    /// extract, a malformed canvas — and why: the index holds only their stat and reads them
    /// again once they change. Not counted in `notes`.
    #[serde(default)]
    pub skipped: u64,
    #[serde(default)]
    pub skipped_files: Vec<SkippedFile>,
    /// The note size cap in effect: the one the index recorded (the last `--max-note-bytes`
    /// given to an update), else the default. Updates not given a cap keep to it.
    #[serde(default = "default_max_note_bytes")]
    pub max_note_bytes: u64,
    /// The PDF size cap in effect, likewise (`--max-pdf-bytes`).
    #[serde(default = "default_max_pdf_bytes")]
    pub max_pdf_bytes: u64,
    /// The format this binary writes (`schema-N+analyzer-M`).
    pub schema: String,
    /// Why the index is unusable, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_error: Option<String>,
    pub omnisearch_port: u16,
    pub omnisearch_answers: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omnisearch_error: Option<String>,
    /// The `vault-search serve` process watching this vault, when one runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerStatus>,
}

fn default_max_note_bytes() -> u64 {
    crate::core::DEFAULT_MAX_NOTE_BYTES
}

fn default_max_pdf_bytes() -> u64 {
    crate::core::DEFAULT_MAX_PDF_BYTES
}

/// A running `serve` as its heartbeat describes it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ServerStatus {
    pub pid: Option<u32>,
    pub port: Option<u16>,
    /// Searches skip their freshness walk (the watcher is healthy and caught up).
    pub live: bool,
    pub last_event_at: Option<String>,
    pub last_update_at: Option<String>,
    pub heartbeat_at: Option<String>,
}

/// The report as text, one `key  value` line each, as `vault-search status` and the MCP
/// server's `index_status` show it; every value (paths, file names, errors) is made safe for a
/// terminal.
impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let st = self;
        let mut line = |k: &str, v: String| writeln!(f, "{k:<18}{}", sanitize_for_terminal(&v));
        line("vault", st.vault.clone())?;
        line(
            "index",
            st.index_dir
                .clone()
                .unwrap_or_else(|| "(no cache directory)".into()),
        )?;
        if let Some(e) = &st.index_error {
            line(
                "index error",
                format!("{e} (the next search or `index` rebuilds it)"),
            )?;
        } else if st.indexed {
            line("notes indexed", st.notes.to_string())?;
            line(
                "index size",
                format!("{:.1} MiB", st.index_bytes as f64 / 1048576.0),
            )?;
            line(
                "last indexed",
                st.last_indexed_at.clone().unwrap_or_default(),
            )?;
            line(
                "changed since",
                st.changed_since
                    .map_or("?".into(), |n| format!("{n} notes")),
            )?;
            if st.skipped > 0 {
                let names: Vec<String> = st
                    .skipped_files
                    .iter()
                    .map(|f| sanitize_for_terminal(&f.path))
                    .collect();
                line(
                    "skipped",
                    format!(
                        "{} too large or unreadable: {}",
                        st.skipped,
                        names.join(", ")
                    ),
                )?;
            }
        } else {
            line(
                "notes indexed",
                "none yet (the first search or `index` builds it)".into(),
            )?;
        }
        let cap = |n: u64, default: u64| {
            let note = if n == default { " (default)" } else { "" };
            format!("{n} bytes{note}")
        };
        line(
            "size caps",
            format!(
                "notes {}, PDFs {}",
                cap(st.max_note_bytes, crate::core::DEFAULT_MAX_NOTE_BYTES),
                cap(st.max_pdf_bytes, crate::core::DEFAULT_MAX_PDF_BYTES)
            ),
        )?;
        if !st.skipped_files.is_empty() {
            line(
                "not indexable",
                format!("{} files (see status --json)", st.skipped_files.len()),
            )?;
        }
        line("schema", st.schema.clone())?;
        let omni = if st.omnisearch_answers {
            "answers".to_string()
        } else {
            format!(
                "no answer ({})",
                st.omnisearch_error.clone().unwrap_or_default()
            )
        };
        line("omnisearch", format!("port {}: {omni}", st.omnisearch_port))?;
        if let Some(s) = &st.server {
            let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "never".into());
            line(
                "serve",
                format!(
                    "pid {}, port {}: {} (last event {}, last update {})",
                    s.pid.map_or("?".into(), |p| p.to_string()),
                    s.port.map_or("?".into(), |p| p.to_string()),
                    if s.live {
                        "watching, searches skip the walk"
                    } else {
                        "behind or not responding"
                    },
                    opt(&s.last_event_at),
                    opt(&s.last_update_at)
                ),
            )?;
        }
        Ok(())
    }
}

/// Gathers the status of `vault`.
pub(crate) fn status(vault: &Path, cache_dir: Option<&Path>, port: u16) -> Result<Status> {
    let mut st = Status {
        vault: vault.display().to_string(),
        index_dir: None,
        indexed: false,
        notes: 0,
        index_bytes: 0,
        last_indexed_at: None,
        changed_since: None,
        skipped: 0,
        skipped_files: Vec::new(),
        max_note_bytes: crate::core::DEFAULT_MAX_NOTE_BYTES,
        max_pdf_bytes: crate::core::DEFAULT_MAX_PDF_BYTES,
        schema: schema::index_format(),
        index_error: None,
        omnisearch_port: port,
        omnisearch_answers: false,
        omnisearch_error: None,
        server: None,
    };
    if let Some(cache) = cache_dir {
        let store = Store::new(cache, vault);
        st.server = crate::local::liveness::observe(&store.root, vault).map(|o| {
            let hb = o.heartbeat.as_ref();
            ServerStatus {
                pid: hb.map(|h| h.pid),
                port: hb.map(|h| h.port),
                live: o.live,
                last_event_at: hb.and_then(|h| h.last_event_ns).map(rfc3339),
                last_update_at: hb.and_then(|h| h.last_update_ns).map(rfc3339),
                heartbeat_at: hb.map(|h| rfc3339(h.beat_ns)),
            }
        });
        st.index_dir = Some(store.root.display().to_string());
        // Read even from an index of another format: the next update (a rebuild) keeps them.
        let caps = store.recorded_caps();
        st.max_note_bytes = caps.max_note_bytes;
        st.max_pdf_bytes = caps.max_pdf_bytes;
        match store.open_current_reader() {
            Ok(Some((_, payload, reader))) => {
                st.indexed = true;
                st.last_indexed_at = Some(rfc3339(payload.run_started_ns));
                if let Some(dir) = store.current_dir() {
                    st.index_bytes = dir_bytes(&dir);
                }
                let searcher = reader.searcher();
                st.skipped_files = local::skipped_files(&searcher, payload.caps)?;
                st.skipped = st.skipped_files.len() as u64;
                st.notes = searcher.num_docs().saturating_sub(st.skipped);
                // PDFs count as changed only when this index holds some (`--no-pdf` runs
                // leave them out).
                let pdf = local::has_pdfs(&searcher)?;
                let (changed, unreadable) = local::changed_by_stat(&searcher, vault, pdf)?;
                st.changed_since = Some(changed);
                st.skipped += unreadable.len() as u64;
                st.skipped_files.extend(unreadable);
                st.skipped_files.sort_by(|a, b| a.path.cmp(&b.path));
            }
            Ok(None) => {}
            Err(e) => st.index_error = Some(e.to_string()),
        }
    }
    match omnisearch::query(port, "vault-search status", vault) {
        Ok(_) => st.omnisearch_answers = true,
        Err(e) => st.omnisearch_error = Some(e.to_string()),
    }
    Ok(st)
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Nanoseconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub(crate) fn rfc3339(ns: i64) -> String {
    let secs = ns.div_euclid(1_000_000_000);
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        tod / 3600,
        tod % 3600 / 60,
        tod % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_996_800_000_000_000), "2026-11-30T00:00:00Z");
        assert_eq!(rfc3339(951_782_400_000_000_000), "2000-02-29T00:00:00Z");
    }
}
