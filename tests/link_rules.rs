//! Obsidian's rules for what a link is and which file it names, one case per rule, through the
//! binary (`links NOTE --json`). Each note here was read otherwise before the rule was kept.
//! The sources: Obsidian's `metadataCache.getFirstLinkpathDest` (observed behaviour) and its
//! Help vault ("Internal links", "Properties"); the CommonMark spec 0.31.2 for code blocks,
//! block quotes and list items, which Obsidian's Markdown follows.

use vault_search::LinksResponse;

use crate::util::{assert_ok, Env};

/// (target, resolved path) of each outgoing link of `note`.
fn resolved(env: &Env, note: &str) -> Vec<(String, Option<String>)> {
    let out = env.run(&["--json", "links", note]);
    assert_ok(&out);
    let r: LinksResponse = serde_json::from_slice(&out.stdout).unwrap();
    r.outgoing
        .unwrap()
        .into_iter()
        .map(|l| (l.target, l.resolved))
        .collect()
}

fn to(target: &str, path: Option<&str>) -> (String, Option<String>) {
    (target.to_string(), path.map(str::to_string))
}

/// The targets `note` links, in order.
fn targets(env: &Env, note: &str) -> Vec<String> {
    resolved(env, note).into_iter().map(|(t, _)| t).collect()
}

/// getFirstLinkpathDest: of the files a name names, those under the linking note's folder
/// (sub-folders too) first, the shortest path of them.
#[test]
fn a_shared_name_prefers_files_under_the_linking_folder() {
    let env = Env::new();
    env.write("Projects/Alpha/Plan.md", "[[Spec]]\n");
    env.write("Projects/Alpha/Design/Specs/Spec.md", "deep but under\n");
    env.write("Archive/Spec.md", "shorter, elsewhere\n");
    env.write("Elsewhere.md", "[[Spec]]\n");
    assert_eq!(
        resolved(&env, "Projects/Alpha/Plan.md"),
        [to("Spec", Some("Projects/Alpha/Design/Specs/Spec.md"))]
    );
    assert_eq!(
        resolved(&env, "Elsewhere.md"),
        [to("Spec", Some("Archive/Spec.md"))]
    );
}

/// getFirstLinkpathDest compares `path.length`: JavaScript's UTF-16 units, not bytes.
#[test]
fn path_lengths_are_counted_in_utf16_units() {
    let env = Env::new();
    // Seven bytes each; `é` is one unit, so `é/Glyph.md` is the shorter.
    env.write("ab/Glyph.md", "two letters\n");
    env.write("é/Glyph.md", "one letter\n");
    env.write("Index.md", "[[Glyph]]\n");
    assert_eq!(
        resolved(&env, "Index.md"),
        [to("Glyph", Some("é/Glyph.md"))]
    );
}

/// A name with a dot is looked up as written before `.md` is added: `[[report.pdf]]` is the
/// PDF even when a note `report.pdf.md` annotates it; `[[v1.2 notes]]` is still the note.
#[test]
fn a_dotted_name_is_looked_up_as_written_first() {
    let env = Env::new();
    env.write_bytes("report.pdf", b"%PDF-1.4\n");
    env.write("report.pdf.md", "annotations\n");
    env.write("v1.2 notes.md", "release notes\n");
    env.write("Index.md", "[[report.pdf]] [[v1.2 notes]]\n");
    assert_eq!(
        resolved(&env, "Index.md"),
        [
            to("report.pdf", Some("report.pdf")),
            to("v1.2 notes", Some("v1.2 notes.md")),
        ]
    );
}

/// A relative path's `..` at the vault's root stays at the root.
#[test]
fn dot_dot_stops_at_the_root() {
    let env = Env::new();
    env.write("Top.md", "top\n");
    env.write("Deep/Note.md", "[[../../Top]] [up](../../../Top.md)\n");
    assert_eq!(
        resolved(&env, "Deep/Note.md"),
        [
            to("../../Top", Some("Top.md")),
            to("../../../Top.md", Some("Top.md"))
        ]
    );
}

/// A target's surrounding white space is no part of it (JavaScript's `trim`: U+FEFF too).
#[test]
fn surrounding_whitespace_is_trimmed() {
    let env = Env::new();
    env.write("Spaced Name.md", "x\n");
    env.write("Index.md", "[[  Spaced Name  ]] [[\u{feff}Spaced Name]]\n");
    let got = resolved(&env, "Index.md");
    assert_eq!(got.len(), 2);
    assert!(
        got.iter()
            .all(|(_, r)| r.as_deref() == Some("Spaced Name.md")),
        "{got:?}"
    );
}

/// CommonMark 4.5: a fence closes only on a fence of its own character at least as long, with
/// no info string; so a four-backtick fence holding a three-backtick one is code to its end.
#[test]
fn a_fence_closes_on_its_own_kind_and_length_only() {
    let env = Env::new();
    env.write(
        "Fences.md",
        "````md\n```\n[[InFour]]\n```\n````\n~~~\n```\n[[InTilde]]\n~~~\n\
         ```js\n``` not a closing fence\n[[InInfo]]\n```\n[[After]]\n",
    );
    assert_eq!(targets(&env, "Fences"), ["After"]);
}

/// CommonMark 5.1 and 5.2: a fence inside a block quote (an Obsidian callout) or opened on a
/// list item's line is code, and ends with its container.
#[test]
fn fences_in_callouts_and_list_items_are_code() {
    let env = Env::new();
    env.write(
        "Containers.md",
        "> [!example]\n> ```\n> [[InCallout]]\n> ```\n> [[QuoteText]]\n\n\
         - ```sh\n  [[InItem]]\n  ```\n- [[ItemText]]\n\n\
         > ```\n> [[QuoteCode]]\n[[QuoteEnded]]\n",
    );
    assert_eq!(
        targets(&env, "Containers"),
        ["QuoteText", "ItemText", "QuoteEnded"]
    );
}

/// CommonMark 4.4: four columns of indent after a blank line is code; a paragraph's
/// continuation line and a list item's nested text are not.
#[test]
fn indented_code_is_code() {
    let env = Env::new();
    env.write(
        "Indented.md",
        "Text\n\n    [[InCode]]\n\t[[InTabCode]]\n\nText\n    [[Continued]]\n\n- item\n    [[Nested]]\n",
    );
    assert_eq!(targets(&env, "Indented"), ["Continued", "Nested"]);
}

/// Obsidian Help, "Properties": a link in a property is quoted. Unquoted, `[[X]]` is a YAML
/// sequence, not text; a YAML comment is not text either; a plain string value is.
#[test]
fn property_links_are_quoted_strings() {
    let env = Env::new();
    env.write(
        "Props.md",
        "---\nup: [[Unquoted]]\nrelated: \"[[Quoted]]\"\nsee:\n  - [[ItemUnquoted]]\n  - '[[ItemQuoted]]'\n\
         # [[Commented]]\nnote: plain [[Plain]] # [[Trailing]]\nmany: [\"[[InFlow]]\", [[FlowBare]]]\n---\nbody\n",
    );
    assert_eq!(
        targets(&env, "Props"),
        ["Quoted", "ItemQuoted", "Plain", "InFlow"]
    );
}
