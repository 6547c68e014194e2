//! Tool arguments as a model writes them: numbers checked in plain words, and input schemas
//! without the integer formats of Rust's types.
//!
//! serde's own error for `"limit": "a"` names the Rust type (`expected u16`), and schemars
//! writes `format: uint16`, which strict JSON-Schema validators (Ajv) refuse. So every whole
//! number a tool takes is read by [`whole`], and each arguments struct drops the formats with
//! [`no_formats`].

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A whole number ≥ 0, or absent; anything else is refused naming the argument.
pub(crate) fn whole<'de, D: Deserializer<'de>>(name: &str, d: D) -> Result<Option<u64>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64()),
        Some(Value::Number(n)) if n.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0) => {
            // `5.0`: a whole number written as a float. Larger than any note, so the cap.
            Ok(n.as_f64().map(|f| f.min(u64::MAX as f64) as u64))
        }
        Some(v) => Err(D::Error::custom(format!(
            "{name} must be a whole number of 0 or more, not {v}"
        ))),
    }
}

/// Defines a serde `deserialize_with` function reading one named whole-number argument.
macro_rules! whole_arg {
    ($fn_name:ident, $arg:literal) => {
        pub(crate) fn $fn_name<'de, D: serde::Deserializer<'de>>(
            d: D,
        ) -> Result<Option<u64>, D::Error> {
            $crate::mcp::args::whole($arg, d)
        }
    };
}
pub(crate) use whole_arg;

/// Removes `format` (and `$schema`) everywhere in a schema.
pub(crate) fn no_formats(schema: &mut schemars::Schema) {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("format");
                m.remove("$schema");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    if let Some(m) = schema.as_object_mut() {
        m.values_mut().for_each(strip);
        m.remove("$schema");
    }
}

/// A tool's input schema as rmcp makes it, without what tells a model nothing: the
/// `$schema` URL, the Rust type's name and doc comment, and the defaults of empty or false
/// values (an optional argument is one not `required`; a default that matters is in its
/// description). Tool definitions are sent in every conversation.
pub(crate) fn input_schema<T: schemars::JsonSchema + std::any::Any>(
) -> std::sync::Arc<rmcp::model::JsonObject> {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                let empty = |d: &Value| match d {
                    Value::Null => true,
                    Value::Bool(b) => !b,
                    Value::String(s) => s.is_empty(),
                    Value::Array(a) => a.is_empty(),
                    _ => false,
                };
                if m.get("default").is_some_and(empty) {
                    m.remove("default");
                }
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v = Value::Object((*rmcp::handler::server::common::schema_for_type::<T>()).clone());
    strip(&mut v);
    match v {
        Value::Object(mut m) => {
            for k in ["$schema", "title", "description"] {
                m.remove(k);
            }
            std::sync::Arc::new(m)
        }
        _ => rmcp::handler::server::common::schema_for_type::<T>(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_judged_in_plain_words() {
        let read = |v: Value| whole("limit", v).map_err(|e| e.to_string());
        assert_eq!(read(Value::from(5)), Ok(Some(5)));
        assert_eq!(read(serde_json::json!(5.0)), Ok(Some(5)));
        assert_eq!(read(Value::Null), Ok(None));
        for bad in [
            serde_json::json!("a"),
            serde_json::json!(-1),
            serde_json::json!(1.5),
        ] {
            let e = read(bad).unwrap_err();
            assert!(e.starts_with("limit must be a whole number"), "{e}");
        }
    }
}
