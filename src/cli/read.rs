//! `vault-search read NOTE`: a note by section, as MCP's `read_note` reads it — its outline,
//! the section under a heading, or a range of lines — so an agent that needs more than a
//! passage reads a section, not the note. Text: numbered lines; `--json`: the lines as a
//! passage object (`line`, `end_line`, `heading`, `text`, `cut`).

use std::io::{self, Write};

use anyhow::{bail, Result};

use super::args::ReadArgs;
use crate::core::Passage;
use crate::text::terminal::sanitize_for_terminal;

/// Most lines one call prints.
const MAX_LINES: u64 = 400;
/// Most bytes of note text one call prints.
const MAX_BYTES: usize = 64 * 1024;

/// Runs `read`; the write of its answer is returned apart, as the caller treats a closed pipe.
pub(super) fn run(
    config: &super::Config,
    r: &ReadArgs,
    out: &mut dyn Write,
) -> Result<io::Result<()>> {
    let text = crate::read::note_text(&config.vault, &r.note, r.include_ignored)
        .map_err(anyhow::Error::msg)?;
    if r.outline {
        return Ok(out.write_all(crate::read::outline_text(&r.note, &text, MAX_BYTES).as_bytes()));
    }
    let total = text.lines().count() as u64;
    let (heading, first, last) = match (&r.heading, &r.lines) {
        (Some(h), _) => {
            let (path, a, b) = crate::read::section(&text, h).map_err(anyhow::Error::msg)?;
            (Some(path), a, b)
        }
        (None, Some(range)) => {
            let (a, b) = parse_range(range)?;
            (None, a, b.min(total))
        }
        (None, None) => (None, 1, total),
    };
    if first > total.max(1) {
        bail!("{} has {total} lines: line {first} is past its end", r.note);
    }
    let passage = window(&text, first, last, heading);
    Ok(if config.json {
        super::print::write_json(out, &passage)
    } else {
        write_text(out, &r.note, total, &passage)
    })
}

/// `A:B` as two 1-based line numbers, A at most B.
fn parse_range(s: &str) -> Result<(u64, u64)> {
    let parsed = s
        .split_once(':')
        .and_then(|(a, b)| Some((a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?)));
    match parsed {
        Some((a, b)) if a >= 1 && a <= b => Ok((a, b)),
        _ => bail!("--lines takes A:B, two line numbers from 1 with A at most B, not {s:?}"),
    }
}

/// Lines `first..=last` of `text`, at most [`MAX_LINES`] and [`MAX_BYTES`] of them (`cut`
/// when fewer were taken).
fn window(text: &str, first: u64, last: u64, heading: Option<String>) -> Passage {
    let mut kept = Vec::new();
    let mut bytes = 0;
    let mut cut = false;
    for line in text
        .lines()
        .skip(first as usize - 1)
        .take((last + 1 - first) as usize)
    {
        if kept.len() as u64 == MAX_LINES || bytes + line.len() > MAX_BYTES {
            cut = true;
            break;
        }
        bytes += line.len() + 1;
        kept.push(line.trim_end());
    }
    let end = first + (kept.len() as u64).max(1) - 1;
    Passage {
        line: Some(first),
        end_line: Some(end),
        page: None,
        heading,
        text: kept.join("\n"),
        cut,
    }
}

/// `NOTE, lines A-B of N (under H)`, then each line numbered.
fn write_text(w: &mut dyn Write, note: &str, total: u64, p: &Passage) -> io::Result<()> {
    let (a, b) = (p.line.unwrap_or(1), p.end_line.unwrap_or(1));
    let under = p
        .heading
        .as_deref()
        .map(|h| format!(", under {}", sanitize_for_terminal(h)))
        .unwrap_or_default();
    writeln!(
        w,
        "{}, lines {a}-{b} of {total}{under}",
        sanitize_for_terminal(note)
    )?;
    for (i, line) in p.text.split('\n').enumerate() {
        writeln!(w, "{:>6}  {}", a + i as u64, sanitize_for_terminal(line))?;
    }
    if p.cut {
        writeln!(
            w,
            "(cut at {MAX_LINES} lines / {} KB: go on with --lines {}:{})",
            MAX_BYTES / 1024,
            b + 1,
            b + MAX_LINES
        )?;
    }
    Ok(())
}
