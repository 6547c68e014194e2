//! Which notes a search may return by what they are, beyond where they are ([`super::Scope`]):
//! tags, modification time, frontmatter properties — and how results are ordered.
//!
//! Every front-end maps its own inputs onto one [`Filters`] (the CLI's `--tag`, `--since`,
//! `--until`, `--where`, `--links-to`, `--linked-from`), so the engines see the same thing
//! whoever asks. The link filters are kept as the names given: the local engine resolves
//! them against its index (`crate::local::links`); Omnisearch can't answer them. The normalisation
//! here is shared by the indexer (which writes one exact term per tag and per property value)
//! and by the Omnisearch engine (which checks the plugin's hits against the notes on disk), so
//! both engines agree on what matches:
//!
//! - a tag is compared lowercased without its `#`; `project` matches `project` and
//!   `project/alpha`, never `projects`;
//! - a property key is lowercased; a value is trimmed, unquoted and lowercased, and a number
//!   is written canonically (`2`, `2.0` and `02` are the same); a list matches when one of its
//!   items does; `--where key` asks only that the property exists.

use anyhow::{bail, Result};

/// How results are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
    /// Best match first (the ranking of docs/ranking.md).
    #[default]
    Relevance,
    /// Most recently modified first: among the best matches of a query, or among all notes
    /// that pass the filters when there is no query.
    Modified,
}

/// One `--where` condition, normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropertyFilter {
    /// Lowercased key.
    pub key: String,
    /// Normalised value ([`property_value`]); `None`: the note only needs the property.
    pub value: Option<String>,
}

impl PropertyFilter {
    /// `KEY=VALUE` or `KEY`; an empty key is an error.
    pub fn parse(text: &str) -> Result<PropertyFilter> {
        let (key, value) = match text.split_once('=') {
            Some((k, v)) => (k, Some(property_value(v))),
            None => (text, None),
        };
        let key = key.trim().to_lowercase();
        if key.is_empty() {
            bail!("--where {text:?}: the property name is empty (use KEY=VALUE or KEY)");
        }
        Ok(PropertyFilter { key, value })
    }

    /// The index term that holds exactly when this condition does.
    pub(crate) fn term(&self) -> String {
        match &self.value {
            Some(v) => property_term(&self.key, v),
            None => self.key.clone(),
        }
    }
}

/// What a note must be to be returned; every condition must hold. The default lets all
/// notes through.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    /// Normalised tags ([`tag_key`]); each must be on the note, itself or nested below.
    pub tags: Vec<String>,
    /// Modified at or after this instant (nanoseconds since the Unix epoch).
    pub since_ns: Option<i64>,
    /// Modified at or before this instant.
    pub until_ns: Option<i64>,
    /// Frontmatter conditions.
    pub properties: Vec<PropertyFilter>,
    /// Notes named as `vault-search links NOTE` names them (a vault-relative path, `.md`
    /// optional, or a file name only one file has): a note must link to each (`--links-to`).
    /// Only the local index can answer these (links are resolved against the paths it holds).
    pub links_to: Vec<String>,
    /// Notes named so: a note must be the target of a link in each (`--linked-from`).
    pub linked_from: Vec<String>,
}

impl Filters {
    /// Builds filters from user text (`--tag`, `--since`, `--until`, `--where`); relative
    /// dates count back from now. Bad input is an error naming the flag.
    pub fn parse(
        tags: &[String],
        since: Option<&str>,
        until: Option<&str>,
        wheres: &[String],
    ) -> Result<Filters> {
        let now = super::when::now_ns();
        let mut f = Filters::default();
        for t in tags {
            let k = tag_key(t);
            if k.is_empty() {
                bail!("--tag {t:?}: the tag is empty");
            }
            if k.chars().any(char::is_whitespace) {
                bail!("--tag {t:?}: a tag has no spaces");
            }
            f.tags.push(k);
        }
        let at = |flag: &str, v: &str| {
            super::when::parse_time(v, now).map_err(|e| anyhow::anyhow!("{flag} {v:?}: {e:#}"))
        };
        f.since_ns = since.map(|s| at("--since", s)).transpose()?;
        f.until_ns = until.map(|s| at("--until", s)).transpose()?;
        if let (Some(s), Some(u)) = (f.since_ns, f.until_ns) {
            if s > u {
                bail!("--since is after --until: nothing could match");
            }
        }
        for w in wheres {
            f.properties.push(PropertyFilter::parse(w)?);
        }
        Ok(f)
    }

    /// Adds `--links-to` and `--linked-from` notes; an empty name is an error naming the flag.
    pub fn with_links(mut self, links_to: &[String], linked_from: &[String]) -> Result<Filters> {
        for (flag, names, into) in [
            ("--links-to", links_to, &mut self.links_to),
            ("--linked-from", linked_from, &mut self.linked_from),
        ] {
            for n in names {
                if n.trim().is_empty() {
                    bail!("{flag} {n:?}: name a note (its vault-relative path, or a file name only one note has)");
                }
                into.push(n.trim().to_string());
            }
        }
        Ok(self)
    }

    /// No condition at all.
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
            && self.since_ns.is_none()
            && self.until_ns.is_none()
            && self.properties.is_empty()
            && !self.follows_links()
    }

    /// A `--links-to` or `--linked-from` condition: what only the local index can answer.
    pub fn follows_links(&self) -> bool {
        !self.links_to.is_empty() || !self.linked_from.is_empty()
    }

    /// Does a note with these tags (as written), properties and modification time pass?
    /// An unknown time fails a date condition.
    pub(crate) fn admits(
        &self,
        tags: &[String],
        properties: &[(String, Vec<String>)],
        mtime_ns: Option<i64>,
    ) -> bool {
        if !self.tags.is_empty() {
            let have = tag_terms(tags);
            if !self.tags.iter().all(|t| have.contains(t)) {
                return false;
            }
        }
        if self.since_ns.is_some() || self.until_ns.is_some() {
            let Some(m) = mtime_ns else { return false };
            if self.since_ns.is_some_and(|s| m < s) || self.until_ns.is_some_and(|u| m > u) {
                return false;
            }
        }
        if !self.properties.is_empty() {
            let have = property_terms(properties);
            if !self.properties.iter().all(|p| have.contains(&p.term())) {
                return false;
            }
        }
        true
    }
}

/// A tag as compared: lowercased, without its leading `#` and trailing `/`.
pub fn tag_key(tag: &str) -> String {
    tag.trim()
        .trim_start_matches('#')
        .trim_end_matches('/')
        .to_lowercase()
}

/// The exact terms that stand for a note's tags: each tag and each of its ancestors
/// (`project/alpha` → `project`, `project/alpha`), normalised, without repeats.
pub(crate) fn tag_terms(tags: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in tags {
        let k = tag_key(t);
        for (i, _) in k.match_indices('/').chain(std::iter::once((k.len(), ""))) {
            let prefix = &k[..i];
            if !prefix.is_empty() && !out.iter().any(|o| o == prefix) {
                out.push(prefix.to_string());
            }
        }
    }
    out
}

/// A property value as compared: trimmed, unquoted, lowercased; numbers canonical.
pub fn property_value(v: &str) -> String {
    let v = v.trim();
    let v = v
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| v.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
        .unwrap_or(v)
        .trim();
    let looks_numeric = v
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
        && v.bytes().any(|b| b.is_ascii_digit());
    if looks_numeric {
        if let Ok(n) = v.parse::<f64>() {
            if n.is_finite() {
                return if n.fract() == 0.0 && n.abs() < 1e15 {
                    format!("{}", n as i64)
                } else {
                    format!("{n}")
                };
            }
        }
    }
    v.to_lowercase()
}

fn property_term(key: &str, value: &str) -> String {
    format!("{key}={value}")
}

/// Longest property value that gets a term of its own (longer ones only count as present).
const MAX_VALUE_BYTES: usize = 512;

/// The exact terms that stand for a note's properties: `key` for each, and `key=value` for
/// each (list item) value. Keys holding `=` are left out: `--where` could not name them.
pub(crate) fn property_terms(properties: &[(String, Vec<String>)]) -> Vec<String> {
    let mut out = Vec::new();
    for (key, values) in properties {
        let key = key.trim().to_lowercase();
        if key.is_empty() || key.contains('=') {
            continue;
        }
        for v in values {
            if v.len() <= MAX_VALUE_BYTES {
                out.push(property_term(&key, &property_value(v)));
            }
        }
        out.push(key);
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_tags() {
        let terms = tag_terms(&["Project/Alpha".into(), "#meeting".into(), "a/b/c/".into()]);
        assert_eq!(
            terms,
            ["project", "project/alpha", "meeting", "a", "a/b", "a/b/c"]
        );
        let f = Filters {
            tags: vec!["project".into()],
            ..Filters::default()
        };
        assert!(f.admits(&["project/alpha".into()], &[], None));
        assert!(!f.admits(&["projects".into()], &[], None));
        assert!(!f.admits(&["alpha/project".into()], &[], None));
    }

    #[test]
    fn property_values_normalise() {
        assert_eq!(property_value(" \"Done\" "), "done");
        assert_eq!(property_value("2.0"), "2");
        assert_eq!(property_value("02"), "2");
        assert_eq!(property_value("2.5"), "2.5");
        assert_eq!(property_value("TRUE"), "true");
        assert_eq!(property_value("2026-11-30"), "2026-11-30");
        assert_eq!(property_value("-"), "-");
        let p = PropertyFilter::parse("Status = Done").unwrap();
        assert_eq!(p.term(), "status=done");
        assert_eq!(PropertyFilter::parse("draft").unwrap().term(), "draft");
        assert!(PropertyFilter::parse(" =x").is_err());
        assert!(PropertyFilter::parse("").is_err());
    }

    #[test]
    fn property_terms_cover_lists_and_presence() {
        let props = vec![
            ("Status".to_string(), vec!["Done".to_string()]),
            ("authors".to_string(), vec!["Ann".into(), "Bob".into()]),
            ("a=b".to_string(), vec!["x".into()]),
            ("empty".to_string(), vec![]),
        ];
        let t = property_terms(&props);
        assert_eq!(
            t,
            [
                "authors",
                "authors=ann",
                "authors=bob",
                "empty",
                "status",
                "status=done"
            ]
        );
    }

    #[test]
    fn bad_filters_are_errors() {
        assert!(Filters::parse(&["#".into()], None, None, &[]).is_err());
        assert!(Filters::parse(&["a b".into()], None, None, &[]).is_err());
        assert!(Filters::parse(&[], Some("1d"), Some("2d"), &[]).is_err());
        assert!(Filters::parse(&[], Some("someday"), None, &[]).is_err());
        assert!(Filters::parse(&[], None, None, &["=v".into()]).is_err());
        assert!(Filters::default().with_links(&[" ".into()], &[]).is_err());
        let linked = Filters::default()
            .with_links(&[], &[" a/b.md ".into()])
            .unwrap();
        assert_eq!(linked.linked_from, ["a/b.md"]);
        assert!(!linked.is_empty() && linked.follows_links());
        let ok = Filters::parse(&["#A/".into()], Some("2d"), Some("1d"), &["k".into()]).unwrap();
        assert_eq!(ok.tags, ["a"]);
        assert!(!ok.is_empty());
    }

    #[test]
    fn dates_are_inclusive() {
        let f = Filters {
            since_ns: Some(10),
            until_ns: Some(20),
            ..Filters::default()
        };
        assert!(f.admits(&[], &[], Some(10)));
        assert!(f.admits(&[], &[], Some(20)));
        assert!(!f.admits(&[], &[], Some(9)));
        assert!(!f.admits(&[], &[], Some(21)));
        assert!(!f.admits(&[], &[], None));
    }
}
