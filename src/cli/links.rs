//! `vault-search links` as text: a note's outgoing links and backlinks, the broken links
//! grouped by target, or the orphans, one line each (paths and note text sanitised).

use std::io::{self, Write};

use crate::core::{IncomingLink, LinksResponse, OutgoingLink, UnresolvedTarget};
use crate::text::terminal::sanitize_for_terminal as clean;

/// Runs `links`; the write of its answer (`--json`: the response object) is returned apart,
/// as the caller treats a closed pipe.
pub(super) fn run(
    config: &super::Config,
    query: &crate::core::LinksQuery,
    refresh: bool,
    out: &mut dyn Write,
) -> anyhow::Result<io::Result<()>> {
    let opts = crate::LinksOptions {
        vault: config.vault.clone(),
        cache_dir: config.cache_dir.clone(),
        limits: crate::Limits {
            max_note_bytes: None,
            pdf: config.pdf,
        },
        query: query.clone(),
        refresh,
    };
    let response = crate::links(&opts)?;
    super::warn_all(&response.warnings);
    Ok(if config.json {
        super::print::write_json(out, &response)
    } else {
        write_text(out, &response)
    })
}

/// Writes the human-readable form of a `links` answer.
pub(crate) fn write_text(w: &mut dyn Write, r: &LinksResponse) -> io::Result<()> {
    if let Some(note) = &r.note {
        writeln!(w, "=== Links: {} ===", clean(note))?;
        // A link to one of the note's own headings or blocks is no way out of it.
        let (within, out): (Vec<&OutgoingLink>, Vec<&OutgoingLink>) = r
            .outgoing
            .as_deref()
            .unwrap_or_default()
            .iter()
            .partition(|l| l.target.is_empty());
        writeln!(w, "Outgoing ({}):", out.len())?;
        for l in out {
            writeln!(w, "  {}", outgoing(l))?;
        }
        if !within.is_empty() {
            writeln!(w, "Within the note ({}):", within.len())?;
            for l in within {
                writeln!(w, "  {}", outgoing(l))?;
            }
        }
        incoming_by_note(w, r.incoming.as_deref().unwrap_or_default())?;
    }
    if let Some(groups) = &r.unresolved {
        let links: usize = groups.iter().map(|g| g.links).sum();
        writeln!(
            w,
            "=== Unresolved links: {links} to {} missing targets ===",
            groups.len()
        )?;
        for (kind, title) in [
            ("note", "Missing notes"),
            ("attachment", "Missing attachments"),
        ] {
            unresolved_kind(w, groups, kind, title)?;
        }
    }
    if let Some(orphans) = &r.orphans {
        writeln!(
            w,
            "=== Orphans: {} notes with no link in or out ===",
            orphans.len()
        )?;
        for o in orphans {
            writeln!(w, "{}", clean(o))?;
        }
    }
    Ok(())
}

/// The missing targets of one kind, under a title with their counts (nothing when none).
fn unresolved_kind(
    w: &mut dyn Write,
    groups: &[UnresolvedTarget],
    kind: &str,
    title: &str,
) -> io::Result<()> {
    let of_kind: Vec<&UnresolvedTarget> = groups.iter().filter(|g| g.kind == kind).collect();
    if of_kind.is_empty() {
        return Ok(());
    }
    let links: usize = of_kind.iter().map(|g| g.links).sum();
    writeln!(w, "{title} ({} targets, {links} links):", of_kind.len())?;
    for g in of_kind {
        let also = if g.variants.is_empty() {
            String::new()
        } else {
            let v: Vec<String> = g.variants.iter().map(|v| clean(v)).collect();
            format!("; also written {}", v.join(", "))
        };
        writeln!(
            w,
            "{} ({}, {}{also})",
            clean(&g.target),
            count(g.notes, "note"),
            count(g.links, "link")
        )?;
        for s in &g.sources {
            writeln!(w, "  {}:{}", clean(&s.source), s.line)?;
        }
    }
    Ok(())
}

/// `1 note`, `3 notes`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The incoming links grouped by linking note (in path order), each note with its count and
/// each of its lines once (a line holding two links to the note is one line).
fn incoming_by_note(w: &mut dyn Write, inc: &[IncomingLink]) -> io::Result<()> {
    let mut notes: Vec<(&str, Vec<&IncomingLink>)> = Vec::new();
    for l in inc {
        match notes.last_mut() {
            Some((source, links)) if *source == l.source => links.push(l),
            _ => notes.push((&l.source, vec![l])),
        }
    }
    writeln!(
        w,
        "Incoming ({} from {}):",
        count(inc.len(), "link"),
        count(notes.len(), "note")
    )?;
    for (source, links) in notes {
        writeln!(w, "  {} ({})", clean(source), count(links.len(), "link"))?;
        let mut last_line = None;
        for l in links {
            if last_line != Some(l.line) {
                writeln!(w, "    {}", incoming(l))?;
            }
            last_line = Some(l.line);
        }
    }
    Ok(())
}

/// `:12 [[Target#Heading]] -> Folder/Target.md`, `embed` and `unresolved` said so.
fn outgoing(l: &OutgoingLink) -> String {
    let sub = subpath(l.heading.as_deref(), l.block.as_deref());
    let sub = if l.target.is_empty() {
        sub.trim_start()
    } else {
        &sub
    };
    let to = match &l.resolved {
        Some(p) => format!("-> {}", clean(p)),
        None => "(unresolved)".to_string(),
    };
    let kind = if l.kind == "embed" { "embed " } else { "" };
    format!("line {}: {kind}{}{sub} {to}", l.line, clean(&l.target))
}

/// `line 7 (embed) #Heading  the sentence around the link`.
fn incoming(l: &IncomingLink) -> String {
    let sub = subpath(l.heading.as_deref(), l.block.as_deref());
    let kind = if l.kind == "embed" { " (embed)" } else { "" };
    format!("line {}{kind}{sub}  {}", l.line, clean(&l.context))
}

fn subpath(heading: Option<&str>, block: Option<&str>) -> String {
    match (heading, block) {
        (Some(h), _) => format!(" #{}", clean(h)),
        (None, Some(b)) => format!(" #^{}", clean(b)),
        _ => String::new(),
    }
}
