//! JSON Canvas 1.0 (`.canvas` boards) as searchable Markdown: one part per card (see
//! [`super::parts`]), so an excerpt never mixes two cards.
//!
//! Text cards give their Markdown, link cards their URL, file cards the file they show, edges
//! their label. Groups become headings over the cards they enclose, nested groups one level
//! deeper, so a hit's `heading` names the group its card sits in. Cards come in reading order
//! (top to bottom, left to right) inside their group. Which group encloses a card is read
//! from the geometry, as Obsidian draws it: the smallest group whose rectangle holds the
//! card's.

use serde_json::Value;

use super::parts;

/// More groups than this and nesting is not worked out (it costs groups × nodes); the cards
/// are still all indexed.
const MAX_NESTED_GROUPS: usize = 2_000;

#[derive(Debug)]
struct Node {
    kind: String,
    text: String,
    rect: (f64, f64, f64, f64),
    /// A file card's file and subpath, or a link card's URL: what it links to.
    link: Option<Card>,
}

/// What a file card (`file`, `subpath`) or a link card (`url`) points to, and the line of the
/// card in the board's Markdown (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Card {
    /// A file card (else a link card).
    pub(crate) file: bool,
    pub(crate) target: String,
    pub(crate) subpath: String,
    pub(crate) line: u32,
}

impl Node {
    fn area(&self) -> f64 {
        self.rect.2 * self.rect.3
    }

    fn holds(&self, other: &Node) -> bool {
        let (x, y, w, h) = self.rect;
        let (ox, oy, ow, oh) = other.rect;
        ox >= x && oy >= y && ox + ow <= x + w && oy + oh <= y + h
    }
}

/// The board as Markdown parts; an error (one line) when it is not a JSON Canvas.
#[cfg(test)]
pub(crate) fn to_markdown(json: &str) -> Result<String, String> {
    to_markdown_with_cards(json).map(|(md, _)| md)
}

/// [`to_markdown`], with the file and link cards the board holds.
pub(crate) fn to_markdown_with_cards(json: &str) -> Result<(String, Vec<Card>), String> {
    let v: Value = serde_json::from_str(json).map_err(|e| format!("not a JSON Canvas: {e}"))?;
    let obj = v
        .as_object()
        .ok_or_else(|| "not a JSON Canvas: not a JSON object".to_string())?;
    let nodes: Vec<Node> = match obj.get("nodes") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.iter().filter_map(node).collect(),
        Some(_) => return Err("not a JSON Canvas: \"nodes\" is not a list".into()),
    };
    let n = nodes.len();
    let groups: Vec<usize> = (0..n).filter(|&i| nodes[i].kind == "group").collect();
    // parent[i]: the smallest group holding node i. Ties in area go to the earlier group, and
    // a group's parent is strictly larger (or equal and earlier), so there are no cycles.
    let mut parent: Vec<Option<usize>> = vec![None; n];
    if groups.len() <= MAX_NESTED_GROUPS {
        for (i, node) in nodes.iter().enumerate() {
            let mut best: Option<usize> = None;
            for &g in &groups {
                if g == i || !nodes[g].holds(node) {
                    continue;
                }
                let ga = nodes[g].area();
                if node.kind == "group" && (ga < node.area() || (ga == node.area() && g > i)) {
                    continue;
                }
                if best.is_none_or(|b| ga < nodes[b].area()) {
                    best = Some(g);
                }
            }
            parent[i] = best;
        }
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, p) in parent.iter().enumerate() {
        match *p {
            Some(p) => children[p].push(i),
            None => roots.push(i),
        }
    }
    let order = |list: &mut Vec<usize>| {
        list.sort_by(|&a, &b| {
            let (ra, rb) = (nodes[a].rect, nodes[b].rect);
            // Cards before subgroups, so a card's nearest heading above is its own group.
            (nodes[a].kind == "group")
                .cmp(&(nodes[b].kind == "group"))
                .then(ra.1.total_cmp(&rb.1))
                .then(ra.0.total_cmp(&rb.0))
        })
    };
    order(&mut roots);
    for c in &mut children {
        order(c);
    }
    let mut out: Vec<String> = Vec::new();
    // (part number, card) of each file and link card.
    let mut linked: Vec<(usize, Card)> = Vec::new();
    // Depth-first with an explicit stack: a board is user data, its depth is not bounded.
    let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&r| (r, 0)).collect();
    while let Some((i, depth)) = stack.pop() {
        let node = &nodes[i];
        if node.kind == "group" {
            let label = node.text.trim();
            if !label.is_empty() {
                out.push(format!(
                    "{} {}",
                    "#".repeat((depth + 1).min(6)),
                    flat(label)
                ));
            }
            stack.extend(children[i].iter().rev().map(|&c| (c, depth + 1)));
        } else if !node.text.trim().is_empty() {
            if let Some(card) = &node.link {
                linked.push((out.len(), card.clone()));
            }
            out.push(node.text.clone());
        }
    }
    if let Some(Value::Array(edges)) = obj.get("edges") {
        for e in edges {
            if let Some(label) = e.get("label").and_then(Value::as_str) {
                if !label.trim().is_empty() {
                    out.push(label.to_string());
                }
            }
        }
    }
    // A part starts on the line after the previous part's last line and the separator's.
    let mut starts = Vec::with_capacity(out.len());
    let mut line = 1u32;
    for part in &out {
        starts.push(line);
        let newlines = memchr::memchr_iter(b'\n', part.as_bytes()).count() as u32;
        line = line.saturating_add(newlines + 2);
    }
    let cards = linked
        .into_iter()
        .map(|(part, mut card)| {
            card.line = starts[part];
            card
        })
        .collect();
    Ok((parts::join(&out), cards))
}

fn node(v: &Value) -> Option<Node> {
    let kind = v.get("type")?.as_str()?.to_string();
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let mut link = None;
    let text = match kind.as_str() {
        "text" => s("text"),
        "group" => s("label"),
        "link" => {
            let url = s("url");
            link = Some(Card {
                file: false,
                target: url.clone(),
                subpath: String::new(),
                line: 0,
            });
            url
        }
        "file" => {
            let (file, sub) = (s("file"), s("subpath"));
            let text = format!("{file}{sub}");
            link = Some(Card {
                file: true,
                target: file,
                subpath: sub,
                line: 0,
            });
            text
        }
        _ => return None,
    };
    let num = |k: &str| {
        v.get(k)
            .and_then(Value::as_f64)
            .filter(|x| x.is_finite())
            .unwrap_or(0.0)
    };
    Some(Node {
        kind,
        text,
        rect: (
            num("x"),
            num("y"),
            num("width").max(0.0),
            num("height").max(0.0),
        ),
        link,
    })
}

/// A label on one line (a heading can't span lines).
fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::note;

    #[test]
    fn nested_groups_become_headings_over_their_cards() {
        let json = r#"{"nodes":[
            {"id":"c","type":"text","text":"inner card about kangaroos","x":20,"y":120,"width":50,"height":50},
            {"id":"g1","type":"group","label":"Outer","x":0,"y":0,"width":500,"height":500},
            {"id":"g2","type":"group","label":"Inner","x":10,"y":100,"width":100,"height":100},
            {"id":"a","type":"text","text":"outer card","x":200,"y":10,"width":50,"height":50},
            {"id":"l","type":"link","url":"https://example.org/wombat","x":900,"y":0,"width":10,"height":10},
            {"id":"f","type":"file","file":"Notes/x.md","x":900,"y":50,"width":10,"height":10}
        ],"edges":[{"id":"e","fromNode":"a","toNode":"c","label":"leads to"}]}"#;
        let md = to_markdown(json).unwrap();
        let meta = note::parse(&md);
        let heads: Vec<_> = meta
            .headings
            .iter()
            .map(|h| (h.level, h.text.as_str()))
            .collect();
        assert_eq!(heads, [(1, "Outer"), (2, "Inner")]);
        let pos = md.find("kangaroos").unwrap();
        assert_eq!(note::heading_at(&meta, pos).as_deref(), Some("Inner"));
        let pos = md.find("outer card").unwrap();
        assert_eq!(note::heading_at(&meta, pos).as_deref(), Some("Outer"));
        assert!(md.find("wombat").unwrap() < md.find("Outer").unwrap());
        assert!(md.contains("Notes/x.md"));
        assert!(md.ends_with("leads to"));
        let (_, cards) = to_markdown_with_cards(json).unwrap();
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(cards.len(), 2);
        for c in &cards {
            assert_eq!(lines[c.line as usize - 1], c.target);
        }
        assert!(cards[0].target.contains("wombat") && !cards[0].file);
        assert!(cards[1].file);
    }

    #[test]
    fn identical_groups_do_not_loop_and_bad_json_is_an_error() {
        let json = r#"{"nodes":[
            {"id":"a","type":"group","label":"A","x":0,"y":0,"width":10,"height":10},
            {"id":"b","type":"group","label":"B","x":0,"y":0,"width":10,"height":10}]}"#;
        let md = to_markdown(json).unwrap();
        assert!(md.contains("# A") && md.contains("## B"));
        assert!(to_markdown("{nope").is_err());
        assert!(to_markdown("[1]").is_err());
        assert!(to_markdown(r#"{"nodes":{}}"#).is_err());
        assert_eq!(to_markdown("{}").unwrap(), "");
    }
}
