//! Reading one note for a client that names it by a path (an agent over MCP, a person on the
//! command line): the checks that keep the path inside the vault and to what search shows, and
//! a note's outline and sections ([`crate::text::outline`]).

use std::path::{Component, Path, PathBuf};

use crate::paths;

/// Resolves a model-given path to a note file inside the vault, or says why not.
pub(crate) fn resolve(vault: &Path, raw: &str) -> Result<PathBuf, String> {
    if raw.trim().is_empty() {
        return Err(
            "path is empty: give a vault-relative note path, as search_notes returns".into(),
        );
    }
    let unified = raw.replace('\\', "/");
    let rel = Path::new(&unified);
    // `C:/x` has no root on Unix but names another drive on Windows: refuse it everywhere.
    let drive = unified.as_bytes().get(1) == Some(&b':');
    if rel.has_root() || drive {
        return Err(format!(
            "{raw:?} is absolute: give the path relative to the vault"
        ));
    }
    if rel.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(format!(
            "{raw:?} contains '..': paths must stay inside the vault"
        ));
    }
    let is_md = rel
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"));
    if !is_md {
        return Err(format!("{raw:?} is not a note: only .md files can be read"));
    }
    let root = paths::real_root(vault)
        .map_err(|e| format!("cannot open the vault {}: {e}", vault.display()))?;
    let real = paths::real_inside(&root, &unified)
        .map_err(|_| {
            // On Windows a name that is no Unicode (an unpaired surrogate) is listed with
            // U+FFFD for it, which names no file; on Unix every listed spelling reads back to
            // its name (see `paths::namebytes`).
            let why = if cfg!(not(unix)) && raw.contains('\u{fffd}') {
                ": a U+FFFD in a listed path stands for a file name that is not Unicode, \
                 which read_note can't open"
            } else {
                ""
            };
            format!("no note {raw:?} in the vault{why}")
        })?
        .ok_or_else(|| format!("{raw:?} leads out of the vault through a symlink: not read"))?;
    let is_md = real
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"));
    if !is_md || !real.is_file() {
        return Err(format!("{raw:?} is not a note file"));
    }
    Ok(real)
}

/// Search's visibility rules, so read_note shows no note that search hides: nothing in a
/// dot folder (`.obsidian`, `.git`, `.trash`) or dot file, which the index walk skips, and,
/// unless `include_ignored`, nothing Obsidian's "Excluded files" leave out.
pub(crate) fn visible(vault: &Path, raw: &str, include_ignored: bool) -> Result<(), String> {
    let unified = raw.replace('\\', "/");
    let rel = unified.trim_start_matches("./");
    if rel.split('/').any(|c| c.starts_with('.') && c != ".") {
        return Err(format!(
            "{raw:?} is in a hidden folder or file (its name starts with '.'): search never \
             shows it, so it is not read"
        ));
    }
    if !include_ignored && crate::dispatch::excluded_by_obsidian(vault, rel) {
        return Err(format!(
            "{raw:?} is in Obsidian's Excluded files, which search leaves out; \
             include_ignored=true reads it"
        ));
    }
    Ok(())
}

/// Largest note read whole for its outline or a section.
pub(crate) const MAX_FILE_BYTES: u64 = 64 << 20;

/// The text of the note a client names, after [`resolve`] and [`visible`].
pub(crate) fn note_text(vault: &Path, raw: &str, include_ignored: bool) -> Result<String, String> {
    resolve(vault, raw)?;
    visible(vault, raw, include_ignored)?;
    let rel = raw.replace('\\', "/");
    let (bytes, _) = crate::fsread::read_beneath(vault, &rel, MAX_FILE_BYTES)
        .map_err(|e| format!("cannot read {raw:?}: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A note's outline as text, one heading a line (`first-last ## Title (size)`), at most
/// `max_bytes` (cut with a count).
pub(crate) fn outline_text(path: &str, text: &str, max_bytes: usize) -> String {
    use std::fmt::Write as _;
    let sections = crate::text::outline::outline(text);
    let lines = text.lines().count();
    let mut out = format!(
        "{path} ({lines} lines): {} headings; read one by its heading\n",
        sections.len()
    );
    for (i, s) in sections.iter().enumerate() {
        let row = format!(
            "{}-{} {} {} ({})\n",
            s.line,
            s.end_line,
            "#".repeat(usize::from(s.level)),
            crate::text::terminal::escape_controls(&s.title),
            size(s.bytes)
        );
        if out.len() + row.len() > max_bytes {
            let _ = writeln!(out, "(cut: {} more headings)", sections.len() - i);
            break;
        }
        out.push_str(&row);
    }
    out
}

/// The section of `text` under `heading` (see [`crate::text::outline::find`]): its heading
/// path and its first and last lines.
pub(crate) fn section(text: &str, heading: &str) -> Result<(String, u64, u64), String> {
    let sections = crate::text::outline::outline(text);
    let s = crate::text::outline::find(&sections, heading)?;
    Ok((s.path.clone(), s.line, s.end_line))
}

/// A size as people read it.
fn size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    }
}
