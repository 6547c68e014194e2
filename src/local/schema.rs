//! The Tantivy schema, built from the human-readable definition in `index-schema/schema.json`.
//!
//! The JSON is embedded at compile time, so the definition a reader sees in the repository is
//! exactly the one the binary uses.

use std::sync::OnceLock;

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use tantivy::schema::{
    BytesOptions, Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions,
};

use super::analyzer;

/// The embedded definition.
pub(crate) const DEFINITION: &str = include_str!("../../index-schema/schema.json");

#[derive(Debug, Deserialize)]
struct Definition {
    version: u32,
    fields: Vec<FieldDef>,
}

#[derive(Debug, Deserialize)]
struct FieldDef {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    tokenizer: Option<String>,
    #[serde(default)]
    record: Option<String>,
    #[serde(default)]
    stored: bool,
    #[serde(default)]
    fast: bool,
}

/// The schema and a handle for every field the code uses.
#[derive(Debug, Clone)]
pub(crate) struct Fields {
    pub(crate) schema: Schema,
    pub(crate) version: u32,
    pub(crate) path: Field,
    pub(crate) folders: Field,
    pub(crate) ext: Field,
    pub(crate) skipped: Field,
    pub(crate) skip_reason: Field,
    pub(crate) title: Field,
    pub(crate) aliases: Field,
    pub(crate) tags: Field,
    pub(crate) tag_paths: Field,
    pub(crate) properties: Field,
    pub(crate) headings: Field,
    pub(crate) body: Field,
    pub(crate) size: Field,
    pub(crate) mtime_ns: Field,
    pub(crate) hash: Field,
    pub(crate) stub: Field,
    pub(crate) checkpoints: Field,
    pub(crate) links: Field,
    pub(crate) link_keys: Field,
    pub(crate) name_key: Field,
}

/// The schema version together with the analyzer version: what a stored index must match.
pub(crate) fn index_format() -> String {
    format!(
        "schema-{}+analyzer-{}",
        fields().version,
        analyzer::ANALYZER_VERSION
    )
}

/// The process-wide schema (parsed once).
pub(crate) fn fields() -> &'static Fields {
    static FIELDS: OnceLock<Fields> = OnceLock::new();
    FIELDS.get_or_init(|| match build(DEFINITION) {
        Ok(f) => f,
        // The definition is compiled in and checked by a unit test: this can't happen in a
        // released binary.
        Err(e) => panic!("index-schema/schema.json is invalid: {e:#}"),
    })
}

fn build(json: &str) -> Result<Fields> {
    let def: Definition = serde_json::from_str(json).context("parsing schema.json")?;
    let mut b = Schema::builder();
    for f in &def.fields {
        match f.kind.as_str() {
            "text" => {
                let record = match f.record.as_deref().unwrap_or("basic") {
                    "basic" => IndexRecordOption::Basic,
                    "freqs" => IndexRecordOption::WithFreqs,
                    "positions" => IndexRecordOption::WithFreqsAndPositions,
                    other => bail!("field {}: unknown record {other:?}", f.name),
                };
                let tokenizer = match f.tokenizer.as_deref().unwrap_or(analyzer::NAME) {
                    "raw" => "raw",
                    t if t == analyzer::NAME => analyzer::NAME,
                    other => bail!("field {}: unknown tokenizer {other:?}", f.name),
                };
                let mut o = TextOptions::default().set_indexing_options(
                    TextFieldIndexing::default()
                        .set_tokenizer(tokenizer)
                        .set_index_option(record),
                );
                if f.stored {
                    o = o.set_stored();
                }
                if f.fast {
                    o = o.set_fast("raw");
                }
                b.add_text_field(&f.name, o);
            }
            "u64" | "i64" => {
                let mut o = NumericOptions::default();
                if f.stored {
                    o = o.set_stored();
                }
                if f.fast {
                    o = o.set_fast();
                }
                if f.kind == "u64" {
                    b.add_u64_field(&f.name, o);
                } else {
                    b.add_i64_field(&f.name, o);
                }
            }
            "bytes" => {
                let mut o = BytesOptions::default();
                if f.stored {
                    o = o.set_stored();
                }
                if f.fast {
                    o = o.set_fast();
                }
                b.add_bytes_field(&f.name, o);
            }
            other => bail!("field {}: unknown type {other:?}", f.name),
        }
    }
    let schema = b.build();
    let get = |name: &str| {
        schema
            .get_field(name)
            .with_context(|| format!("schema.json lacks the field {name:?}"))
    };
    Ok(Fields {
        version: def.version,
        path: get("path")?,
        folders: get("folders")?,
        ext: get("ext")?,
        skipped: get("skipped")?,
        skip_reason: get("skip_reason")?,
        title: get("title")?,
        aliases: get("aliases")?,
        tags: get("tags")?,
        tag_paths: get("tag_paths")?,
        properties: get("properties")?,
        headings: get("headings")?,
        body: get("body")?,
        size: get("size")?,
        mtime_ns: get("mtime_ns")?,
        hash: get("hash")?,
        stub: get("stub")?,
        checkpoints: get("checkpoints")?,
        links: get("links")?,
        link_keys: get("link_keys")?,
        name_key: get("name_key")?,
        schema,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_definition_builds() {
        let f = build(DEFINITION).unwrap();
        assert!(f.version >= 1);
        assert!(f.schema.get_field_entry(f.body).is_stored());
    }

    #[test]
    fn rejects_unknown_options() {
        assert!(build(r#"{"version":1,"fields":[{"name":"x","type":"float"}]}"#).is_err());
    }
}
