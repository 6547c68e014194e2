//! `read_note`: numbered lines of one note, so a client can read a hit without file access.
//!
//! The path comes from the model, so it is untrusted: only a vault-relative `.md` path that
//! resolves (symlinks followed) to a file inside the vault is read. Output is capped so one
//! call cannot flood the conversation; the text says where it was cut and how to go on. The
//! reading is bounded too: a file over [`MAX_FILE_BYTES`] is refused with its size, and past
//! the window only [`COUNT_AHEAD_BYTES`] are read to count lines (the header then says "of at
//! least N"), so a huge note costs a call what it returns, not its size.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::Path;

use rmcp::model::{CallToolResult, ContentBlock};
use schemars::JsonSchema;
use serde::Deserialize;

use super::args;
use super::tools::tool_error;
use crate::read::{resolve, visible};

/// Most lines one call returns.
pub(crate) const MAX_LINES: u64 = 400;
/// Most bytes of note text one call returns.
pub(crate) const MAX_BYTES: usize = 64 * 1024;
/// Largest file read: past the window only lines are counted, but reaching a window far into
/// a file reads everything before it (a 3 GB note took 14 s a call). The index's own cap for a
/// note is 10 MB by default; this leaves room for a raised one.
pub(crate) const MAX_FILE_BYTES: u64 = 64 << 20;
/// Bytes read past the window to count the note's lines for the header's "of N": a note
/// longer than that says "of at least N" (the lines counted so far) rather than being read
/// to its end for a number.
const COUNT_AHEAD_BYTES: u64 = 1 << 20;
/// Lines either side of `line` when `context` is not given.
const DEFAULT_CONTEXT: u64 = 20;

args::whole_arg!(line_arg, "line");
args::whole_arg!(context_arg, "context");
args::whole_arg!(from_line_arg, "from_line");
args::whole_arg!(max_lines_arg, "max_lines");

/// `read_note` arguments; an unknown one is refused, as `search_notes` does.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(transform = args::no_formats)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadParams {
    /// Vault-relative path of a note, as search_notes returns it
    #[serde(default)]
    pub(crate) path: String,
    /// Several notes at once instead of path (up to 20; 64 KB in all)
    #[serde(default)]
    pub(crate) paths: Vec<String>,
    /// Line to center on (1-based), e.g. a hit's line
    #[serde(default, deserialize_with = "line_arg")]
    #[schemars(range(min = 1))]
    pub(crate) line: Option<u64>,
    /// With line: lines before and after it (default 20)
    #[serde(default, deserialize_with = "context_arg")]
    pub(crate) context: Option<u64>,
    /// First line to return (1-based; without line)
    #[serde(default, deserialize_with = "from_line_arg")]
    #[schemars(range(min = 1))]
    pub(crate) from_line: Option<u64>,
    /// Lines from from_line (max 400)
    #[serde(default, deserialize_with = "max_lines_arg")]
    #[schemars(range(min = 1, max = 400))]
    pub(crate) max_lines: Option<u64>,
    /// Also a note Obsidian's "Excluded files" hide from search
    #[serde(default)]
    pub(crate) include_ignored: bool,
    /// With path: list its links and backlinks too (default true)
    #[serde(default = "yes")]
    pub(crate) links: bool,
    /// Read the section under this heading
    #[serde(default)]
    pub(crate) heading: String,
    /// List its headings (lines, sizes), not its text
    #[serde(default)]
    pub(crate) outline: bool,
}

fn yes() -> bool {
    true
}

/// Runs `read_note` (blocking: call it on a blocking thread).
pub(crate) fn read_note(vault: &Path, cache_dir: Option<&Path>, p: &ReadParams) -> CallToolResult {
    if p.outline || !p.heading.trim().is_empty() {
        return match by_heading(vault, p) {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(why) => tool_error(why),
        };
    }
    if p.paths.is_empty() {
        return match read(vault, &p.path, p, MAX_BYTES) {
            Ok(mut text) => {
                if p.links {
                    text.push_str(&super::note_links::section(cache_dir, vault, &p.path));
                }
                CallToolResult::success(vec![ContentBlock::text(text)])
            }
            Err(why) => tool_error(why),
        };
    }
    if !p.path.is_empty() {
        return tool_error("give either path or paths, not both");
    }
    if p.paths.len() > MAX_PATHS {
        return tool_error(format!(
            "at most {MAX_PATHS} paths per call, not {}",
            p.paths.len()
        ));
    }
    read_several(vault, p)
}

/// `outline`: the note's headings, one line each (`first-last  ## Title  (size)`); `heading`:
/// the section under it, read as `from_line` and `max_lines` would read it.
fn by_heading(vault: &Path, p: &ReadParams) -> Result<String, String> {
    if !p.paths.is_empty() {
        return Err("heading and outline read one note: give path, not paths".into());
    }
    if p.line.is_some() || p.from_line.is_some() || p.context.is_some() || p.max_lines.is_some() {
        return Err("give heading or outline, or a line window, not both".into());
    }
    let text = crate::read::note_text(vault, &p.path, p.include_ignored)?;
    if p.outline {
        return Ok(crate::read::outline_text(&p.path, &text, MAX_BYTES));
    }
    let (path, first, last) = crate::read::section(&text, &p.heading)?;
    let window = ReadParams {
        from_line: Some(first),
        max_lines: Some(last - first + 1),
        heading: String::new(),
        ..p.clone()
    };
    let body = read(vault, &p.path, &window, MAX_BYTES)?;
    Ok(format!(
        "section {} (lines {first}-{last}):\n{body}",
        crate::text::terminal::escape_controls(&path)
    ))
}

/// Most notes one call reads.
pub(crate) const MAX_PATHS: usize = 20;

/// Each of `p.paths` with the same window, [`MAX_BYTES`] in all: a note that does not fit is
/// named, so the model reads it in a call of its own. A note that can't be read is said so in
/// its place; the call fails only when none could be.
fn read_several(vault: &Path, p: &ReadParams) -> CallToolResult {
    let mut out = String::new();
    let mut read_any = false;
    for path in &p.paths {
        let left = MAX_BYTES.saturating_sub(out.len());
        if left < 1024 {
            let _ = writeln!(
                out,
                "{path}: not read, this call's {} KB are used up; read it on its own",
                MAX_BYTES / 1024
            );
            continue;
        }
        match read(vault, path, p, left) {
            Ok(text) => {
                read_any = true;
                out.push_str(&text);
            }
            Err(why) => {
                let _ = writeln!(out, "{path}: {why}");
            }
        }
        out.push('\n');
    }
    if read_any {
        CallToolResult::success(vec![ContentBlock::text(out)])
    } else {
        tool_error(out)
    }
}

/// The first line and how many lines the call asks for.
fn window(p: &ReadParams) -> Result<(u64, u64), String> {
    match (p.line, p.from_line) {
        (Some(_), Some(_)) => Err("give either line (with context) or from_line, not both".into()),
        (Some(0), _) | (_, Some(0)) => Err("lines are numbered from 1".into()),
        (Some(line), None) => {
            if p.max_lines.is_some() {
                return Err("max_lines goes with from_line; with line, use context".into());
            }
            let ctx = p.context.unwrap_or(DEFAULT_CONTEXT);
            // A context beyond the cap still centers on `line`; the cut is reported.
            let from = line.saturating_sub(ctx.min(MAX_LINES / 2)).max(1);
            Ok((from, line.saturating_add(ctx) - from + 1))
        }
        (None, from) => {
            if p.context.is_some() {
                return Err("context goes with line".into());
            }
            // No max_lines: the rest of the note (so a longer note is reported as cut).
            let n = p.max_lines.unwrap_or(u64::MAX);
            if n == 0 {
                return Err("max_lines must be at least 1".into());
            }
            Ok((from.unwrap_or(1), n))
        }
    }
}

/// Reads one line into `buf`, keeping at most `keep` bytes of it (the rest is consumed, not
/// stored), so a note that is one line of gigabytes costs `keep` bytes of memory.
fn read_line_capped(
    r: &mut impl BufRead,
    buf: &mut Vec<u8>,
    keep: usize,
) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(total);
        }
        let (used, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = keep.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..used.min(room)]);
        r.consume(used);
        total += used;
        if done {
            return Ok(total);
        }
    }
}

/// One note's window, at most `budget` bytes of its text.
fn read(vault: &Path, path: &str, p: &ReadParams, budget: usize) -> Result<String, String> {
    let (from, requested) = window(p)?;
    let want = requested.min(MAX_LINES);
    resolve(vault, path)?;
    visible(vault, path, p.include_ignored)?;
    // Opened from the vault's handle, following no symlink on the way, and checked on the
    // handle: a swap of the note or a folder for a symlink after `resolve` looked is refused.
    let rel = path.replace('\\', "/");
    let (f, md) = crate::fsread::open_beneath(vault, &rel).map_err(|e| match e {
        crate::fsread::Refused::NotRegular => {
            format!("{path:?} is not a note file, or a folder on its way is a symlink")
        }
        e => format!("cannot read {path:?}: {e}"),
    })?;
    if md.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{path} is {} MB, larger than read_note reads ({} MB): it is no note to read \
             in a conversation",
            md.len() >> 20,
            MAX_FILE_BYTES >> 20
        ));
    }
    let mut reader = BufReader::new(f);
    let mut body = String::new();
    let mut buf = Vec::new();
    let mut n: u64 = 0;
    let mut last = 0;
    let mut cut_by_bytes = false;
    // Bytes read past the window, only to count lines: bounded, see [`COUNT_AHEAD_BYTES`].
    let mut ahead: u64 = 0;
    let mut counted_all = true;
    loop {
        buf.clear();
        let got = read_line_capped(&mut reader, &mut buf, budget + 1)
            .map_err(|e| format!("cannot read {:?}: {e}", path))?;
        if got == 0 {
            break;
        }
        n += 1;
        if n < from {
            continue;
        }
        if n >= from.saturating_add(want) || cut_by_bytes {
            // Past the window the loop only counts lines, for the "of N" in the header.
            ahead += got as u64;
            if ahead > COUNT_AHEAD_BYTES {
                counted_all = false;
                break;
            }
            continue;
        }
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim_end_matches(['\n', '\r']);
        if body.len() + text.len() > budget {
            cut_by_bytes = true;
            if body.is_empty() {
                // One line longer than the cap: its start, rather than nothing.
                let mut end = budget;
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                let _ = writeln!(body, "{n}\t{}[…]", &text[..end]);
                last = n;
            }
            continue;
        }
        let _ = writeln!(body, "{n}\t{text}");
        last = n;
    }
    let total = n;
    if total == 0 {
        return Ok(format!("{} is empty\n", path));
    }
    if from > total {
        return Err(format!(
            "{path} has {total} lines: nothing at line {}",
            p.line.unwrap_or(from)
        ));
    }
    let of = if counted_all {
        total.to_string()
    } else {
        format!("at least {total}")
    };
    let mut out = format!("{} (lines {from}-{last} of {of})\n{body}", path);
    if !counted_all && !cut_by_bytes && requested <= want {
        writeln!(out, "[more lines; from_line={} reads on]", last + 1).ok();
    } else if last < total {
        let cap = if cut_by_bytes {
            Some(format!("{} KB", budget / 1024))
        } else {
            (requested > want).then(|| format!("{MAX_LINES} lines"))
        };
        match cap {
            Some(cap) => writeln!(
                out,
                "[cut after line {last} ({cap} per call); continue with from_line={}]",
                last + 1
            ),
            None => writeln!(
                out,
                "[{} more lines; from_line={} reads on]",
                total - last,
                last + 1
            ),
        }
        .ok();
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_paths_that_leave_the_vault() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let v = dir.path();
        for bad in [
            "/etc/passwd.md",
            "../x.md",
            "a/../../x.md",
            "C:/x.md",
            "a.txt",
            "",
        ] {
            assert!(resolve(v, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_note_deeper_than_260_characters_resolves() {
        // On Windows the note's real path is verbatim (`\\?\C:\…`, the only spelling past
        // 260 characters) while the vault's is plain: both must be compared alike.
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let deep: Vec<String> = (0..8)
            .map(|i| format!("level-{i:02}-of-a-deeply-nested-archive"))
            .collect();
        let rel = format!("{}/the bottom.md", deep.join("/"));
        let file = crate::paths::join_rel(dir.path(), &rel);
        assert!(file.as_os_str().len() > 260);
        std::fs::create_dir_all(file.parent().unwrap_or(dir.path()))
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&file, "abyssal\n").unwrap_or_else(|e| panic!("{e}"));
        let real = resolve(dir.path(), &rel).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(std::fs::read(real).unwrap_or_default(), b"abyssal\n");
    }

    #[test]
    fn windows() {
        let p = |line, context, from_line, max_lines| ReadParams {
            path: "a.md".into(),
            paths: Vec::new(),
            line,
            context,
            from_line,
            max_lines,
            include_ignored: false,
            links: true,
            heading: String::new(),
            outline: false,
        };
        assert_eq!(window(&p(Some(30), Some(5), None, None)), Ok((25, 11)));
        assert_eq!(window(&p(Some(2), None, None, None)), Ok((1, 22)));
        assert_eq!(window(&p(None, None, Some(10), Some(5))), Ok((10, 5)));
        assert_eq!(window(&p(None, None, None, None)), Ok((1, u64::MAX)));
        assert_eq!(
            window(&p(Some(1000), Some(500), None, None)),
            Ok((800, 701))
        );
        assert!(window(&p(Some(1), None, Some(1), None)).is_err());
        assert!(window(&p(Some(0), None, None, None)).is_err());
    }
}

#[cfg(test)]
mod line_tests {
    use super::read_line_capped;

    #[test]
    fn a_long_line_is_consumed_but_not_kept() {
        let text = format!("{}\nsecond\n", "x".repeat(100_000));
        let mut r = std::io::BufReader::with_capacity(64, text.as_bytes());
        let mut buf = Vec::new();
        assert_eq!(read_line_capped(&mut r, &mut buf, 10).unwrap(), 100_001);
        assert_eq!(buf.len(), 10);
        buf.clear();
        assert_eq!(read_line_capped(&mut r, &mut buf, 10).unwrap(), 7);
        assert_eq!(buf, b"second\n");
        buf.clear();
        assert_eq!(read_line_capped(&mut r, &mut buf, 10).unwrap(), 0);
    }
}
