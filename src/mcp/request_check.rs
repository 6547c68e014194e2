//! `search_notes`' arguments against the request table: each argument a row, each row MCP
//! spells an argument, with the row's description, bounds, values and caps.

use serde_json::Value;

use crate::core::request::table::{Front, Kind, Spelling, OPTIONS};

fn properties() -> serde_json::Map<String, Value> {
    let schema = super::tools::search_schema();
    match schema.get("properties") {
        Some(Value::Object(p)) => p.clone(),
        other => panic!("search_notes' schema has no properties: {other:?}"),
    }
}

#[test]
fn every_argument_is_a_row_and_every_row_an_argument() {
    let props = properties();
    for (name, prop) in &props {
        let row = crate::core::request::table::spelled(Front::Mcp, name)
            .unwrap_or_else(|| panic!("search_notes takes {name}, which the table doesn't have"));
        let about = prop["description"].as_str().unwrap_or_default();
        assert!(about.starts_with(row.mcp_help), "{name}: {about}");
    }
    for o in OPTIONS {
        match o.mcp {
            Spelling::As(n) => assert!(
                props.contains_key(n),
                "the table's {} is no argument",
                o.name
            ),
            Spelling::Absent(_) => assert!(!props.contains_key(o.name), "{}", o.name),
        }
    }
}

#[test]
fn each_argument_has_the_bounds_values_and_caps_of_its_row() {
    let props = properties();
    for o in OPTIONS {
        let Some(name) = o.named(Front::Mcp) else {
            continue;
        };
        let prop = &props[name];
        if let (Some(b), Some(max)) = (o.bounds, o.max(Front::Mcp)) {
            assert_eq!(prop["minimum"], b.min, "{name}");
            assert_eq!(prop["maximum"], max, "{name}");
        }
        if let Kind::Choice(values) = o.kind {
            // MCP's values are the table's, `both` aside (side by side is for people).
            let text = prop.to_string();
            let def = text
                .split_once("#/$defs/")
                .and_then(|(_, rest)| rest.split_once('"'))
                .map(|(def, _)| def)
                .unwrap_or_else(|| panic!("{name}: no enum in {text}"));
            let schema = super::tools::search_schema();
            let taken: Vec<&str> = schema["$defs"][def]["enum"]
                .as_array()
                .unwrap_or_else(|| panic!("{name}: {def} is no enum"))
                .iter()
                .filter_map(Value::as_str)
                .collect();
            let want: Vec<&str> = values.iter().copied().filter(|v| *v != "both").collect();
            assert_eq!(taken, want, "{name}");
        }
        if matches!(o.kind, Kind::Text | Kind::List) {
            let (items, bytes) = super::caps::cap_of("search_notes", name)
                .unwrap_or_else(|| panic!("{name} has no cap"));
            let cap = o.cap.unwrap();
            assert_eq!((items, bytes), (cap.items, cap.bytes), "{name}");
        }
    }
}
