//! Caps on the tools' list and text arguments, judged before the arguments are parsed into a
//! tree ([`oversized_call`] reads the raw message and keeps only counts): a message near the
//! 8 MiB cap holding two million `exclude` entries would otherwise take hundreds of megabytes
//! as JSON values, again as rmcp's copy, and again as the search's own lists.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

#[cfg(test)]
use crate::core::request::table::MAX_LIST_ITEMS;
pub(crate) use crate::core::request::table::MAX_PATH_BYTES;
use crate::core::request::table::{self, Front};

/// One capped argument of a tool other than `search_notes` (whose caps are the request
/// table's, [`table::Opt::cap`]): its tool, its name, most items (1: a single value, not a
/// list) and most bytes of each of its strings. `query` is not capped: it is cut to its first
/// words with a warning, not refused.
pub(crate) const CAPS: &[(&str, &str, usize, usize)] = &[
    ("read_note", "path", 1, MAX_PATH_BYTES),
    ("read_note", "heading", 1, MAX_PATH_BYTES),
    ("related_notes", "path", 1, MAX_PATH_BYTES),
    (
        "read_note",
        "paths",
        super::read_note::MAX_PATHS,
        MAX_PATH_BYTES,
    ),
];

/// The caps of `tool`'s argument `name`: most items, most bytes of each string.
pub(crate) fn cap_of(tool: &str, name: &str) -> Option<(usize, usize)> {
    if tool == "search_notes" {
        let cap = table::spelled(Front::Mcp, name)?.cap?;
        return Some((cap.items, cap.bytes));
    }
    CAPS.iter()
        .find(|c| c.0 == tool && c.1 == name)
        .map(|c| (c.2, c.3))
}

/// Most argument names read from one call: a tool has about ten; the rest is refused by name
/// later, and is not kept here.
const MAX_NAMES: usize = 64;

/// What an argument's value is, without keeping it: a string's length, or a list's length and
/// its longest string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Text(usize),
    List { items: usize, longest: usize },
    Other,
}

impl Shape {
    /// The shape of a JSON value already parsed (a batch member).
    pub(crate) fn of(v: &Value) -> Shape {
        match v {
            Value::String(s) => Shape::Text(s.len()),
            Value::Array(a) => Shape::List {
                items: a.len(),
                longest: a
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::len)
                    .max()
                    .unwrap_or(0),
            },
            _ => Shape::Other,
        }
    }
}

/// Why `tool`'s argument `name` of this shape is refused, if it is over its cap.
pub(crate) fn over_cap(tool: &str, name: &str, shape: Shape) -> Option<String> {
    let (items, bytes) = cap_of(tool, name)?;
    match shape {
        Shape::List { items: n, .. } if n > items => {
            Some(format!("{name} takes at most {items} items, not {n}"))
        }
        Shape::List { longest, .. } if longest > bytes => Some(format!(
            "each of {name} is at most {bytes} bytes, not {longest}"
        )),
        Shape::Text(n) if n > bytes => Some(format!("{name} is at most {bytes} bytes, not {n}")),
        _ => None,
    }
}

/// A `tools/call` read from the raw message for its arguments' shapes only.
#[derive(Deserialize)]
struct PeekCall {
    id: Option<Value>,
    method: Option<String>,
    params: Option<PeekParams>,
}

#[derive(Deserialize)]
struct PeekParams {
    name: Option<String>,
    arguments: Option<Shapes>,
}

/// Argument names and shapes (the first [`MAX_NAMES`]).
struct Shapes(Vec<(String, Shape)>);

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Shape, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Shape;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any value")
            }
            fn visit_str<E>(self, s: &str) -> Result<Shape, E> {
                Ok(Shape::Text(s.len()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Shape, A::Error> {
                let (mut items, mut longest) = (0, 0);
                while let Some(item) = a.next_element::<Shape>()? {
                    items += 1;
                    if let Shape::Text(n) = item {
                        longest = longest.max(n);
                    }
                }
                Ok(Shape::List { items, longest })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Shape, A::Error> {
                while a
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Shape::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Shape, E> {
                Ok(Shape::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Shape, E> {
                Ok(Shape::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Shape, E> {
                Ok(Shape::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Shape, E> {
                Ok(Shape::Other)
            }
            fn visit_unit<E>(self) -> Result<Shape, E> {
                Ok(Shape::Other)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Shapes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Shapes, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Shapes;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Shapes, A::Error> {
                let mut out = Vec::new();
                while let Some(name) = a.next_key::<std::borrow::Cow<'de, str>>()? {
                    let shape = a.next_value::<Shape>()?;
                    if out.len() < MAX_NAMES {
                        out.push((name.into_owned(), shape));
                    }
                }
                Ok(Shapes(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// For one raw message (not a batch): when it is a `tools/call` with an argument over its
/// cap, the request's id and why. Reads the message without building its tree; anything it
/// can't read this way is left to the full parse.
pub(crate) fn oversized_call(text: &str) -> Option<(Value, String)> {
    let call: PeekCall = serde_json::from_str(text).ok()?;
    if call.method.as_deref() != Some("tools/call") {
        return None;
    }
    let params = call.params?;
    let tool = params.name?;
    let why = params
        .arguments?
        .0
        .into_iter()
        .find_map(|(name, shape)| over_cap(&tool, &name, shape))?;
    Some((call.id?, why))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_over_their_caps_are_found_without_a_tree() {
        let call = |args: Value| {
            serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": {"name": "search_notes", "arguments": args}})
            .to_string()
        };
        let many = vec!["a"; MAX_LIST_ITEMS + 1];
        let (id, why) = oversized_call(&call(serde_json::json!({"exclude": many}))).unwrap();
        assert_eq!(id, 7);
        assert_eq!(
            why,
            format!("exclude takes at most {MAX_LIST_ITEMS} items, not 65")
        );
        let long = "x".repeat(MAX_PATH_BYTES + 1);
        let (_, why) = oversized_call(&call(serde_json::json!({"folder": long}))).unwrap();
        assert!(why.starts_with("folder is at most 4096 bytes"), "{why}");
        let (_, why) = oversized_call(&call(serde_json::json!({"tags": ["a", long]}))).unwrap();
        assert!(why.starts_with("each of tags is at most"), "{why}");
        let fine = vec!["a"; MAX_LIST_ITEMS];
        assert_eq!(
            oversized_call(&call(serde_json::json!({"exclude": fine, "q": {"x": [1]}}))),
            None
        );
        assert_eq!(oversized_call("not json"), None);
        // The link filters and a heading are capped too.
        for (tool, name) in [
            ("search_notes", "links_to"),
            ("search_notes", "linked_from"),
            ("read_note", "heading"),
        ] {
            let text = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": tool, "arguments": {name: long}}})
            .to_string();
            let (_, why) = oversized_call(&text).unwrap();
            assert_eq!(why, format!("{name} is at most 4096 bytes, not 4097"));
        }
    }
}
