//! What one line from the client is, judged before rmcp sees it.
//!
//! rmcp answers some malformed messages with the wrong code (`tools/call` without a tool name
//! is "method not found"), some not at all (invalid UTF-8 inside a string, JSON nested past
//! serde's recursion limit, a batch), and takes `ping` away once a request has carried the
//! 2026 inline protocol metadata. So each line is parsed here once: what rmcp would get wrong
//! is answered here, in JSON-RPC's own codes, and every other message goes on unchanged with
//! what the framing needs to know about it (its id, to count requests in flight).

use serde_json::Value;

/// Deepest nesting of arrays and objects accepted. Real requests nest a few levels; serde's
/// recursion limit (128) would otherwise make rmcp drop the line without an answer.
pub(crate) const MAX_DEPTH: usize = 64;

/// What to do with one line of input.
#[derive(Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Blank: nothing to say.
    Skip,
    /// A message for rmcp.
    Forward(Message),
    /// The answer to send back, without rmcp.
    Reply(Value),
    /// A JSON-RPC batch (an array): each member judged on its own.
    Batch(Vec<Value>),
}

/// A message rmcp is to handle.
#[derive(Debug, PartialEq)]
pub(crate) struct Message {
    pub(crate) value: Value,
    /// A request's id as JSON text: rmcp answers it exactly once (unless it is cancelled).
    pub(crate) request: Option<String>,
    /// `notifications/cancelled` names this request (as JSON text): rmcp will not answer it.
    pub(crate) cancels: Option<String>,
    /// An `initialize` request (its answer carries the protocol version).
    pub(crate) initialize: bool,
}

/// Judges one line (without its newline).
pub(crate) fn judge_line(line: &[u8]) -> Verdict {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let body = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    let Ok(text) = std::str::from_utf8(body) else {
        return Verdict::Reply(error(
            Value::Null,
            -32700,
            "Parse error: the message is not valid UTF-8",
        ));
    };
    if too_deep(text.as_bytes()) {
        return Verdict::Reply(error(
            Value::Null,
            -32700,
            &format!("Parse error: the message nests more than {MAX_DEPTH} levels deep"),
        ));
    }
    // A big call is judged for its arguments' caps before it becomes a tree: that tree of a
    // list of millions is what costs (see `args`). A small one is judged in `judge`.
    if text.len() > PEEK_ABOVE {
        if let Some((id, why)) = super::caps::oversized_call(text) {
            if matches!(id, Value::String(_) | Value::Number(_)) {
                return Verdict::Reply(tool_error(id, &why));
            }
        }
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(members)) => Verdict::Batch(members),
        Ok(value) => judge(value),
        Err(e) => Verdict::Reply(error(Value::Null, -32700, &format!("Parse error: {e}"))),
    }
}

/// Whether arrays and objects nest deeper than [`MAX_DEPTH`] (brackets inside strings aside).
fn too_deep(json: &[u8]) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in json {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Messages longer than this are read for their arguments' shapes before they are parsed.
const PEEK_ABOVE: usize = 64 * 1024;

/// A tool's answer that it refuses its arguments (`isError`), as rmcp would send it: the model
/// reads it and corrects the call.
fn tool_error(id: Value, why: &str) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id,
        "result": {"content": [{"type": "text", "text": why}], "isError": true}})
}

/// The first of `tool`'s arguments over its cap, and why.
fn over_caps(tool: &str, params: Option<&Value>) -> Option<String> {
    let args = params?.get("arguments")?.as_object()?;
    args.iter()
        .find_map(|(k, v)| super::caps::over_cap(tool, k, super::caps::Shape::of(v)))
}

/// A JSON-RPC error response.
pub(crate) fn error(id: Value, code: i64, message: &str) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Judges one message (a line, or a member of a batch).
pub(crate) fn judge(value: Value) -> Verdict {
    let Value::Object(m) = &value else {
        return Verdict::Reply(error(
            Value::Null,
            -32600,
            "Invalid Request: a message is a JSON object",
        ));
    };
    let id = m.get("id").cloned();
    let id_ok = matches!(id, None | Some(Value::String(_) | Value::Number(_)));
    let invalid = |why: &str| {
        let id = if id_ok { id.clone() } else { None };
        Verdict::Reply(error(
            id.unwrap_or(Value::Null),
            -32600,
            &format!("Invalid Request: {why}"),
        ))
    };
    if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("\"jsonrpc\" must be \"2.0\"");
    }
    if !id_ok {
        return invalid("an id is a string or a number");
    }
    let method = match m.get("method") {
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return invalid("\"method\" must be a string"),
        // An answer to a request of the server's own.
        None if id.is_some() && (m.contains_key("result") || m.contains_key("error")) => {
            return forward(value, None, None, false)
        }
        None => return invalid("a message needs a \"method\" (or is a response)"),
    };
    let params = m.get("params");
    if !matches!(params, None | Some(Value::Object(_) | Value::Array(_))) {
        return invalid("\"params\" must be an object");
    }
    let Some(id) = id else {
        let cancels = (method == "notifications/cancelled")
            .then(|| {
                params
                    .and_then(|p| p.get("requestId"))
                    .map(Value::to_string)
            })
            .flatten();
        return forward(value, None, cancels, false);
    };
    let key = id.to_string();
    match method {
        // Always answered: a liveness check must not depend on the session's state.
        "ping" => Verdict::Reply(serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}})),
        "tools/call" => match call_params(params) {
            Ok(name) if !TOOLS.contains(&name) => Verdict::Reply(error(
                id,
                -32602,
                &format!("Unknown tool: {name} (the tools are {})", TOOLS.join(", ")),
            )),
            Ok(name) => match over_caps(name, params) {
                Some(why) => Verdict::Reply(tool_error(id, &why)),
                None => forward(value, Some(key), None, false),
            },
            Err(why) => Verdict::Reply(error(id, -32602, &format!("Invalid params: {why}"))),
        },
        // The tool list is one page: no cursor names a page of it.
        "tools/list"
            if params
                .and_then(|p| p.get("cursor"))
                .is_some_and(|c| !c.is_null()) =>
        {
            Verdict::Reply(error(
                id,
                -32602,
                "Invalid params: unknown cursor (the tool list has a single page)",
            ))
        }
        "initialize" => forward(value, Some(key), None, true),
        _ => forward(value, Some(key), None, false),
    }
}

fn forward(value: Value, request: Option<String>, cancels: Option<String>, init: bool) -> Verdict {
    Verdict::Forward(Message {
        value,
        request,
        cancels,
        initialize: init,
    })
}

/// The server's tools, as `tools/list` names them (a unit test in `mcp` holds the two
/// together): a call to another is answered with their names, where rmcp says "tool not
/// found".
pub(crate) const TOOLS: [&str; 5] = [
    "search_notes",
    "read_note",
    "related_notes",
    "index_status",
    "vault_overview",
];

/// `tools/call` needs the tool's name and, if any, its arguments as an object; the name.
fn call_params(params: Option<&Value>) -> Result<&str, &'static str> {
    let Some(Value::Object(p)) = params else {
        return Err("tools/call needs params with the tool's \"name\" and its \"arguments\"");
    };
    let Some(name) = p.get("name").and_then(Value::as_str) else {
        return Err("tools/call needs the tool's \"name\" as a string");
    };
    match p.get("arguments") {
        None | Some(Value::Null | Value::Object(_)) => Ok(name),
        Some(_) => Err("a tool's \"arguments\" are an object of named values"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn code(v: Verdict) -> i64 {
        match v {
            Verdict::Reply(r) => r["error"]["code"].as_i64().unwrap_or(0),
            other => panic!("not answered: {other:?}"),
        }
    }

    #[test]
    fn lines_are_forwarded_answered_or_skipped() {
        let ping = judge_line(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        assert_eq!(
            ping,
            Verdict::Reply(json!({"jsonrpc": "2.0", "id": 1, "result": {}}))
        );
        let list = judge_line(
            b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\"}\r",
        );
        let Verdict::Forward(m) = list else {
            panic!("{list:?}")
        };
        assert_eq!(m.request.as_deref(), Some("\"a\""));
        assert_eq!(judge_line(b"  \r"), Verdict::Skip);
        assert_eq!(code(judge_line(b"this is not json")), -32700);
        assert_eq!(
            code(judge_line(b"{\"jsonrpc\":\"2.0\",\"x\":\"\xff\xfe\"}")),
            -32700
        );
        let deep = format!("{}{}", "[".repeat(128), "]".repeat(128));
        assert_eq!(code(judge_line(deep.as_bytes())), -32700);
        // Brackets inside strings don't count.
        let text = format!(
            r#"{{"jsonrpc":"2.0","method":"x","params":{{"q":"{}"}}}}"#,
            "[".repeat(100)
        );
        assert!(matches!(judge_line(text.as_bytes()), Verdict::Forward(_)));
    }

    #[test]
    fn malformed_calls_are_invalid_params() {
        for params in [
            None,
            Some(json!({"arguments": {}})),
            Some(json!({"name": "x", "arguments": "s"})),
        ] {
            let mut v = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call"});
            if let Some(p) = params {
                v["params"] = p;
            }
            assert_eq!(code(judge(v)), -32602);
        }
        let v =
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": "x"}});
        assert_eq!(code(judge(v)), -32602);
        let v = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                       "params": {"name": "delete_note", "arguments": {}}});
        let Verdict::Reply(r) = judge(v) else {
            panic!()
        };
        assert_eq!(r["error"]["code"], -32602);
        let m = r["error"]["message"].as_str().unwrap();
        assert!(
            m.contains("delete_note") && m.contains("search_notes"),
            "{m}"
        );
        let v = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                       "params": {"name": "read_note", "arguments": {}}});
        assert!(matches!(judge(v), Verdict::Forward(_)));
        assert_eq!(code(judge(json!({"hello": "world"}))), -32600);
        assert_eq!(code(judge(json!(42))), -32600);
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": 7}});
        let Verdict::Forward(m) = judge(cancel) else {
            panic!()
        };
        assert_eq!(m.cancels.as_deref(), Some("7"));
    }

    #[test]
    fn the_tools_named_are_the_routers() {
        let mut listed: Vec<String> = crate::mcp::Server::tool_router()
            .list_all()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        listed.sort();
        let mut named = TOOLS.map(String::from).to_vec();
        named.sort();
        assert_eq!(listed, named);
    }
}
