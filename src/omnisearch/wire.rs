//! The plugin's reply format, written once: the client parses replies into these types and
//! `serve` builds them to answer as the plugin does, so both sides speak the same JSON.
//!
//! The shape (see [`crate::omnisearch`]): a JSON array of `{score, vault, path, basename,
//! foundWords, matches: [{match, offset}], excerpt}`. Parsing asks only for `path`: a field
//! that is missing or of another type takes its default, and unknown fields are ignored, so
//! another plugin version's reply still reads; what is read is cleaned by `reply`.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::core::EngineError;

/// One result as the plugin sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct OmniResult {
    #[serde(default, deserialize_with = "lenient")]
    pub(crate) score: f64,
    /// The vault's folder name (the client does not read it).
    #[serde(default, deserialize_with = "lenient")]
    pub(crate) vault: String,
    pub(crate) path: String,
    /// `None` only when a reply leaves it out (the client then takes the file stem).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) basename: Option<String>,
    /// The index words the plugin matched; a word that is not a string is skipped.
    #[serde(rename = "foundWords", default, deserialize_with = "strings")]
    pub(crate) found_words: Vec<String>,
    /// In the order of the text, except that a multi-word query found verbatim comes first
    /// (the plugin's excerpt is built around the first); an entry that is not a match object
    /// reads as one without an offset.
    #[serde(default, deserialize_with = "each_lenient")]
    pub(crate) matches: Vec<OmniMatch>,
    /// HTML-escaped, `<br>` for newlines, as the plugin sends it.
    #[serde(default, deserialize_with = "lenient")]
    pub(crate) excerpt: String,
}

/// One matched word of a result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct OmniMatch {
    #[serde(rename = "match", default, deserialize_with = "lenient")]
    pub(crate) text: String,
    /// UTF-16 code units into the note's text, as JavaScript string indices count; `None`
    /// only when a reply leaves it out or sends something else than a whole number.
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) offset: Option<usize>,
}

/// Parses a reply body; anything but a JSON array of objects that each have a string `path`
/// is an error.
pub(crate) fn parse(body: &[u8]) -> Result<Vec<OmniResult>, EngineError> {
    let bad = |why: String| EngineError::OmnisearchUnavailable(why);
    let text = std::str::from_utf8(body).map_err(|_| bad("reply is not UTF-8".into()))?;
    let value: Value =
        serde_json::from_str(text).map_err(|e| bad(format!("reply is not JSON: {e}")))?;
    let Value::Array(items) = value else {
        return Err(bad("reply is not a JSON array of results".into()));
    };
    items
        .into_iter()
        .map(|item| {
            if !item.is_object() {
                return Err(bad("a result is not a JSON object".into()));
            }
            // Every other field reads leniently: only a missing or non-string `path` fails.
            OmniResult::deserialize(item).map_err(|_| bad("a result has no \"path\"".into()))
        })
        .collect()
}

/// The value as `T`, or `T`'s default when it is of another type.
fn lenient<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    let v = Value::deserialize(d)?;
    Ok(T::deserialize(v).unwrap_or_default())
}

/// The strings of an array; nothing when it is not one.
fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let v = Value::deserialize(d)?;
    let Value::Array(items) = v else {
        return Ok(Vec::new());
    };
    Ok(items
        .into_iter()
        .filter_map(|w| match w {
            Value::String(s) => Some(s),
            _ => None,
        })
        .collect())
}

/// Each element of an array read leniently as `T`; nothing when it is not an array.
fn each_lenient<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    let v = Value::deserialize(d)?;
    let Value::Array(items) = v else {
        return Ok(Vec::new());
    };
    Ok(items
        .into_iter()
        .map(|m| T::deserialize(m).unwrap_or_default())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_writes() {
        let r = OmniResult {
            score: 2.5,
            vault: "Vault".into(),
            path: "a/b.md".into(),
            basename: Some("b".into()),
            found_words: vec!["kotlin".into()],
            matches: vec![OmniMatch {
                text: "Kotlin".into(),
                offset: Some(7),
            }],
            excerpt: "a &amp; b".into(),
        };
        let json = serde_json::to_string(&[&r]).unwrap_or_default();
        assert_eq!(
            json,
            r#"[{"score":2.5,"vault":"Vault","path":"a/b.md","basename":"b","foundWords":["kotlin"],"matches":[{"match":"Kotlin","offset":7}],"excerpt":"a &amp; b"}]"#
        );
        assert_eq!(parse(json.as_bytes()).ok(), Some(vec![r]));
    }

    #[test]
    fn fields_of_another_type_take_their_default() {
        let body = br#"[{"path":"x.md","score":"high","basename":3,"foundWords":["a",1,"b"],
                         "matches":[7,{"offset":3}],"excerpt":null,"extra":true}]"#;
        let got = parse(body).unwrap_or_default();
        assert_eq!(got.len(), 1);
        let r = &got[0];
        assert_eq!((r.score, r.basename.as_deref()), (0.0, None));
        assert_eq!(r.found_words, ["a", "b"]);
        assert_eq!(r.matches[0].offset, None);
        assert_eq!(r.matches[1].offset, Some(3));
        assert_eq!(r.excerpt, "");
        let fractional = parse(br#"[{"path":"x.md","matches":[{"offset":1.5}]}]"#);
        assert_eq!(fractional.unwrap_or_default()[0].matches[0].offset, None);
    }
}
