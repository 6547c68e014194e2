//! `vault-search links` as text: a note's outgoing links and backlinks, the broken links
//! grouped by target, or the orphans, one line each (paths and note text sanitised).

use std::io::{self, Write};

use crate::core::{IncomingLink, LinksResponse, OutgoingLink};
use crate::text::terminal::sanitize_for_terminal as clean;

/// Writes the human-readable form of a `links` answer.
pub(crate) fn write_text(w: &mut dyn Write, r: &LinksResponse) -> io::Result<()> {
    if let Some(note) = &r.note {
        writeln!(w, "=== Links: {} ===", clean(note))?;
        let out = r.outgoing.as_deref().unwrap_or_default();
        writeln!(w, "Outgoing ({}):", out.len())?;
        for l in out {
            writeln!(w, "  {}", outgoing(l))?;
        }
        let inc = r.incoming.as_deref().unwrap_or_default();
        writeln!(w, "Incoming ({}):", inc.len())?;
        for l in inc {
            writeln!(w, "  {}", incoming(l))?;
        }
    }
    if let Some(groups) = &r.unresolved {
        let links: usize = groups.iter().map(|g| g.sources.len()).sum();
        writeln!(
            w,
            "=== Unresolved links: {links} to {} missing targets ===",
            groups.len()
        )?;
        for g in groups {
            writeln!(w, "{}", clean(&g.target))?;
            for s in &g.sources {
                writeln!(w, "  {}:{}", clean(&s.source), s.line)?;
            }
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

/// `:12 [[Target#Heading]] -> Folder/Target.md`, `embed` and `unresolved` said so.
fn outgoing(l: &OutgoingLink) -> String {
    let sub = subpath(l.heading.as_deref(), l.block.as_deref());
    let to = match &l.resolved {
        Some(p) => format!("-> {}", clean(p)),
        None => "(unresolved)".to_string(),
    };
    let kind = if l.kind == "embed" { "embed " } else { "" };
    format!("line {}: {kind}{}{sub} {to}", l.line, clean(&l.target))
}

/// `Folder/Source.md:7 the sentence around the link`.
fn incoming(l: &IncomingLink) -> String {
    let sub = subpath(l.heading.as_deref(), l.block.as_deref());
    let kind = if l.kind == "embed" { " (embed)" } else { "" };
    format!(
        "{}:{}{kind}{sub}  {}",
        clean(&l.source),
        l.line,
        clean(&l.context)
    )
}

fn subpath(heading: Option<&str>, block: Option<&str>) -> String {
    match (heading, block) {
        (Some(h), _) => format!(" #{}", clean(h)),
        (None, Some(b)) => format!(" #^{}", clean(b)),
        _ => String::new(),
    }
}
