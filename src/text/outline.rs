//! A note's outline: its headings with the lines and size of the section each opens, so an
//! agent that needs more than a passage reads one section, not the whole note.
//!
//! Headings are read as Obsidian shows them: `#` to `######` and a space, after the
//! frontmatter, not inside a fenced code block. A section runs to the next heading of its
//! level or a higher one (its sub-sections are part of it).

use super::walk::Walk;

/// One heading of a note and the section it opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    pub(crate) level: u8,
    pub(crate) title: String,
    /// The headings above it and its own title, joined with ` > ` (as a passage names them).
    pub(crate) path: String,
    /// 1-based line of the heading.
    pub(crate) line: u64,
    /// Last line of the section (inclusive).
    pub(crate) end_line: u64,
    /// Bytes of the section, its heading line included.
    pub(crate) bytes: usize,
}

/// The sections of `text` in the order of their headings.
pub(crate) fn outline(text: &str) -> Vec<Section> {
    let body_start = super::note::parse(text).body_start;
    let first_line = text[..body_start].matches('\n').count() as u64 + 1;
    let mut out: Vec<Section> = Vec::new();
    // Offsets of each section's start, to size it when it closes.
    let mut starts: Vec<usize> = Vec::new();
    let mut stack: Vec<(u8, String)> = Vec::new();
    let mut walk = Walk::new(text, body_start);
    let mut line = first_line;
    let mut last_end = (first_line, body_start);
    while let Some((s, e, code)) = walk.next_line(text.len()) {
        if let Some((level, title)) = (!code).then(|| super::note::heading(&text[s..e])).flatten() {
            // Close the open sections of this level or deeper.
            for (i, sec) in out.iter_mut().enumerate() {
                if sec.end_line == 0 && sec.level >= level {
                    sec.end_line = line - 1;
                    // Up to the newline that ends its last line.
                    sec.bytes = s.saturating_sub(1).saturating_sub(starts[i]);
                }
            }
            while stack.last().is_some_and(|(l, _)| *l >= level) {
                stack.pop();
            }
            stack.push((level, title.to_string()));
            let path: Vec<&str> = stack.iter().map(|(_, t)| t.as_str()).collect();
            out.push(Section {
                level,
                title: title.to_string(),
                path: path.join(" > "),
                line,
                end_line: 0,
                bytes: 0,
            });
            starts.push(s);
        }
        last_end = (line, e);
        line += 1;
    }
    for (i, sec) in out.iter_mut().enumerate() {
        if sec.end_line == 0 {
            sec.end_line = last_end.0;
            sec.bytes = last_end.1.saturating_sub(starts[i]);
        }
    }
    out
}

/// The section a caller names: its heading path (`A > B`) or its title, in any case, `#`s
/// optional; else the one title that contains the words. An error names the headings there
/// are (at most a few) when none or several fit.
pub(crate) fn find<'a>(sections: &'a [Section], wanted: &str) -> Result<&'a Section, String> {
    let want = norm(wanted.trim().trim_start_matches('#'));
    if want.is_empty() {
        return Err("heading is empty: give a heading's text, as the outline lists it".into());
    }
    let exact: Vec<&Section> = sections
        .iter()
        .filter(|s| norm(&s.path) == want || norm(&s.title) == want)
        .collect();
    if let Some(first) = exact.first() {
        return Ok(first);
    }
    let partial: Vec<&Section> = sections
        .iter()
        .filter(|s| norm(&s.path).contains(&want))
        .collect();
    match partial.as_slice() {
        [one] => Ok(one),
        [] => Err(format!(
            "no heading {wanted:?} in the note; it has: {}",
            names(sections.iter())
        )),
        many => Err(format!(
            "{} headings contain {wanted:?}: {}; give the whole heading",
            many.len(),
            names(many.iter().copied())
        )),
    }
}

fn names<'a>(s: impl Iterator<Item = &'a Section>) -> String {
    const SHOWN: usize = 12;
    let all: Vec<&Section> = s.collect();
    let mut out: Vec<String> = all
        .iter()
        .take(SHOWN)
        .map(|s| format!("{:?} (line {})", s.title, s.line))
        .collect();
    if all.is_empty() {
        return "no headings".into();
    }
    if all.len() > SHOWN {
        out.push(format!("and {} more", all.len() - SHOWN));
    }
    out.join(", ")
}

/// Lowercase, white space folded: headings are matched as a person types them.
fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "---\ntitle: x\n---\n# Guide\nintro\n## Install\nsteps\n```sh\n# not one\n```\n### Linux\napt\n## Usage\nuse\n";

    #[test]
    fn sections_run_to_the_next_heading_of_their_level() {
        let o = outline(NOTE);
        let got: Vec<(&str, u64, u64)> = o
            .iter()
            .map(|s| (s.path.as_str(), s.line, s.end_line))
            .collect();
        assert_eq!(
            got,
            [
                ("Guide", 4, 14),
                ("Guide > Install", 6, 12),
                ("Guide > Install > Linux", 11, 12),
                ("Guide > Usage", 13, 14),
            ]
        );
        assert_eq!(o[2].bytes, "### Linux\napt".len());
    }

    #[test]
    fn a_section_is_found_by_path_title_or_a_unique_part() {
        let o = outline(NOTE);
        assert_eq!(find(&o, "## install").unwrap().line, 6);
        assert_eq!(find(&o, "Guide > Usage").unwrap().line, 13);
        assert_eq!(find(&o, "linu").unwrap().line, 11);
        assert!(find(&o, "nothing")
            .unwrap_err()
            .contains("\"Install\" (line 6)"));
        assert!(find(&o, "n").unwrap_err().contains("headings contain"));
    }
}
