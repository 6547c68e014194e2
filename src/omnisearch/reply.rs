//! The plugin's reply: parsed, cleaned, and checked to stay inside the vault.

use std::path::{Component, Path};

use serde_json::Value;

use super::client::OmniHit;
use crate::core::EngineError;
use crate::text::{excerpt, stem_of};

/// Parses and cleans the reply; any other shape than the documented one is an error.
pub(crate) fn parse_reply(body: &[u8]) -> Result<Vec<OmniHit>, EngineError> {
    let bad = |why: String| EngineError::OmnisearchUnavailable(why);
    let text = std::str::from_utf8(body).map_err(|_| bad("reply is not UTF-8".into()))?;
    let value: Value =
        serde_json::from_str(text).map_err(|e| bad(format!("reply is not JSON: {e}")))?;
    let items = value
        .as_array()
        .ok_or_else(|| bad("reply is not a JSON array of results".into()))?;
    let mut seen = std::collections::HashSet::new();
    let mut hits = Vec::with_capacity(items.len());
    for item in items {
        let obj = item
            .as_object()
            .ok_or_else(|| bad("a result is not a JSON object".into()))?;
        let path = obj
            .get("path")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("a result has no \"path\"".into()))?;
        if !is_safe_relative(path) {
            continue; // a path that would leave the vault is never reported or read
        }
        if !seen.insert(path.to_string()) {
            continue; // embeds are appended with score 0 after their target: keep the first
        }
        let basename = obj
            .get("basename")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| stem_of(path));
        let score = obj.get("score").and_then(Value::as_f64).unwrap_or(0.0);
        let excerpt = obj
            .get("excerpt")
            .and_then(Value::as_str)
            .map(excerpt::clean_html_excerpt)
            .unwrap_or_default();
        let offset_utf16 = obj
            .get("matches")
            .and_then(Value::as_array)
            .and_then(|m| m.first())
            .and_then(|m| m.get("offset"))
            .and_then(Value::as_u64)
            .and_then(|o| usize::try_from(o).ok());
        let mut found_words: Vec<String> = Vec::new();
        for w in obj
            .get("foundWords")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            let w = w.to_lowercase();
            if !found_words.contains(&w) {
                found_words.push(w);
            }
        }
        hits.push(OmniHit {
            path: path.to_string(),
            basename,
            score,
            excerpt,
            offset_utf16,
            found_words,
        });
    }
    Ok(hits)
}

/// A vault-relative path that stays inside the vault.
pub(crate) fn is_safe_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\0')
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        && !path.split(['/', '\\']).any(|seg| seg == "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_dedups() {
        let body = br#"[{"score":2.5,"path":"a/b.md","basename":"b","excerpt":"x &amp; y<br>z","matches":[{"match":"x","offset":3}]},
                        {"score":0,"path":"a/b.md","basename":"b","excerpt":""},
                        {"score":1,"path":"../etc/passwd","excerpt":""},
                        {"score":1,"path":"c.md"}]"#;
        let hits = parse_reply(body).unwrap();
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].excerpt, "x & y z");
        assert_eq!(hits[0].offset_utf16, Some(3));
        assert_eq!(hits[1].basename, "c");
    }

    #[test]
    fn rejects_other_shapes() {
        assert!(parse_reply(b"{}").is_err());
        assert!(parse_reply(b"<html>").is_err());
        assert!(parse_reply(b"[1,2]").is_err());
        assert!(parse_reply(b"[{\"score\":1}]").is_err());
        assert!(parse_reply(&[0xff, 0xfe]).is_err());
    }
}
