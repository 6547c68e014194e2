//! Obsidian's "Excluded files" (`.obsidian/app.json`, `userIgnoreFilters`), honoured by the
//! local engine unless `--include-ignored`.
//!
//! Obsidian treats a filter as a path prefix (`Archive/`, `Templates`), or as a regular
//! expression when it is written `/…/`, tested anywhere in the path. The filters become
//! exclusions inside the query (regex queries over the raw path), so they never cut results
//! after the top candidates. A filter that is not a valid expression is skipped with a warning.
//!
//! `app.json` is a vault file like the notes, read on every search: it is read through
//! [`crate::fsread`] (not through a symlink, a regular file on the handle, non-blocking), so a
//! FIFO there can't hang a search nor a symlink to a device grow the process. Refused or
//! unreadable, it is a warning and the search goes on without exclusions.

use std::path::Path;

use serde_json::Value;
use tantivy::query::{Query, RegexQuery};
use tantivy::schema::Field;

/// Most bytes of `app.json` read: Obsidian writes a few hundred bytes of settings there, and
/// even thousands of exclusion filters are far below a mebibyte; a larger file is no settings
/// file of Obsidian's, and reading it would cost every search its size.
const MAX_APP_JSON_BYTES: u64 = 1 << 20;

/// The filters of a vault (none when `app.json` is missing; none, and a warning in
/// `warnings`, when it is refused or is not JSON).
pub(in crate::local) fn filters(vault: &Path, warnings: &mut Vec<String>) -> Vec<String> {
    use crate::fsread::Refused;
    // The `.obsidian` folder may be a symlink (a settings folder shared between vaults);
    // `app.json` itself is opened as it is (see the module doc).
    let path = vault.join(".obsidian").join("app.json");
    let bytes = match crate::fsread::read_regular(&path, MAX_APP_JSON_BYTES) {
        Ok((bytes, _)) => bytes,
        Err(Refused::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(why) => {
            let why = match why {
                Refused::TooLarge(_) => format!("larger than {MAX_APP_JSON_BYTES} bytes"),
                why => why.to_string(),
            };
            warnings.push(format!(
                "not reading .obsidian/app.json ({why}): Obsidian's Excluded files are not \
                 applied"
            ));
            return Vec::new();
        }
    };
    let Ok(json) = serde_json::from_slice::<Value>(&bytes) else {
        return Vec::new();
    };
    json.get("userIgnoreFilters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(str::to_string)
        .collect()
}

/// The regular expression (over the whole vault-relative path) a filter stands for.
pub(in crate::local) fn to_regex(filter: &str) -> String {
    match filter
        .strip_prefix('/')
        .and_then(|f| f.strip_suffix('/'))
        .filter(|f| !f.is_empty())
    {
        Some(re) => format!(".*(?:{re}).*"),
        None => format!("{}.*", escape(filter.trim_start_matches('/'))),
    }
}

/// Escapes the regex meta characters of a literal (those of `regex-syntax`, and `"`; `<` and
/// `>` stay as they are, escaped they would be word boundaries).
pub(in crate::local) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~\"".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Exclusion queries for the filters, over the raw `path` field.
/// A filter that is not a valid expression is left out, and said so in `warnings`.
pub(in crate::local) fn queries(
    filters: &[String],
    path_field: Field,
    warnings: &mut Vec<String>,
) -> Vec<Box<dyn Query>> {
    filters
        .iter()
        .filter_map(
            |f| match RegexQuery::from_pattern(&to_regex(f), path_field) {
                Ok(q) => Some(Box::new(q) as Box<dyn Query>),
                Err(e) => {
                    warnings.push(format!("ignoring the excluded-files filter {f:?}: {e}"));
                    None
                }
            },
        )
        .collect()
}

/// The filters compiled once, to test many paths as the exclusion queries would (a note's
/// backlinks, related notes).
pub(crate) struct Excluded(Vec<tantivy_fst::Regex>);

impl std::fmt::Debug for Excluded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Excluded({} filters)", self.0.len())
    }
}

impl Excluded {
    /// The filters that are valid expressions (the others exclude nothing, as in a search).
    pub(in crate::local) fn new(filters: &[String]) -> Excluded {
        Excluded(
            filters
                .iter()
                .filter_map(|f| tantivy_fst::Regex::new(&to_regex(f)).ok())
                .collect(),
        )
    }

    /// The filters of the vault at `vault` (see [`filters`]).
    pub(in crate::local) fn of_vault(vault: &Path) -> Excluded {
        Excluded::new(&filters(vault, &mut Vec::new()))
    }

    /// Whether no filter is set.
    #[cfg(feature = "mcp")]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether a filter hides the vault-relative path `rel` (spelt as the index spells it).
    pub(crate) fn hides(&self, rel: &str) -> bool {
        use tantivy_fst::Automaton as _;
        self.0.iter().any(|re| {
            let mut state = re.start();
            for &b in rel.as_bytes() {
                state = re.accept(&state, b);
            }
            re.is_match(&state)
        })
    }
}

/// Whether a filter hides the vault-relative path `rel`, as the exclusion queries would.
#[cfg(all(test, feature = "mcp"))]
fn excludes(filters: &[String], rel: &str) -> bool {
    Excluded::new(filters).hides(rel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_forms() {
        assert_eq!(to_regex("Archive/"), "Archive/.*");
        assert_eq!(to_regex("a.b (x)"), "a\\.b \\(x\\).*");
        assert_eq!(to_regex("/draft-\\d+/"), ".*(?:draft-\\d+).*");
    }

    #[cfg(feature = "mcp")]
    #[test]
    fn paths_the_filters_hide() {
        let f = ["Archive/".to_string(), "/draft-\\d+/".to_string()];
        assert!(excludes(&f, "Archive/old.md"));
        assert!(excludes(&f, "Dev/draft-12.md"));
        assert!(!excludes(&f, "Dev/archive.md"));
    }
}
