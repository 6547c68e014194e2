//! The index-writing side: [`walk`] lists the vault, [`manifest`] is what the index knows,
//! [`plan`] is their difference, [`write`] commits it ([`budget`] bounds the text it holds,
//! [`merge`] says when segments are merged), [`refresh`] ties those together once
//! ([`refresh_paths`] for the few paths a watcher names, each seen by [`at_path`]);
//! [`read`] reads a file within its cap, [`document`] is what the index stores of it;
//! [`intact`] checks a commit's files against their checksums before one is trusted;
//! [`store`] owns the index directory and the writer lock ([`unsynced`]: its files written
//! without fsync; [`replace`]: a file replaced whole), [`private`] refuses one that is not this user's alone; [`extract`] gets a PDF's text (a
//! cache, else a child process under limits) and [`pdf`] is what that child runs. Nothing here
//! imports the search side.

mod at_path;
mod budget;
mod cloud;
mod document;
pub(crate) mod extract;
mod filestat;
mod intact;
#[cfg(windows)]
mod job;
mod manifest;
mod merge;
pub(crate) mod pdf;
mod plan;
mod private;
mod read;
pub(in crate::local) mod refresh;
pub(in crate::local) mod refresh_paths;
pub(in crate::local) mod replace;
pub(crate) mod store;
mod sweep;
mod unsynced;
mod walk;
mod write;

use anyhow::Result;
use tantivy::Searcher;

use crate::local::{schema, stored};

pub(crate) use plan::changed_by_stat;

/// The placeholders of files that could not be indexed, with the reason (at most 10,000); one
/// over its size cap is named with `caps`, the commit's (its document keeps the cap of the run
/// that made it).
pub(crate) fn skipped_files(
    searcher: &Searcher,
    caps: crate::core::Caps,
) -> Result<Vec<crate::core::SkippedFile>> {
    use tantivy::schema::IndexRecordOption;
    let f = schema::fields();
    let q = tantivy::query::TermQuery::new(
        tantivy::Term::from_field_text(f.skipped, stored::PLACEHOLDER),
        IndexRecordOption::Basic,
    );
    let top = searcher.search(
        &q,
        &tantivy::collector::TopDocs::with_limit(10_000).order_by_score(),
    )?;
    let mut out = Vec::with_capacity(top.len());
    for (_, addr) in top {
        let mut placeholder = stored::placeholder(searcher, addr)?;
        let ff = searcher.segment_reader(addr.segment_ord).fast_fields();
        let stub = ff.column_opt::<u64>(f.schema.get_field_name(f.stub))?;
        let size = ff.u64(f.schema.get_field_name(f.size))?.first(addr.doc_id);
        let kind = read::kind_of(&placeholder.path);
        let cap = caps.max_bytes(kind);
        let over = stub.and_then(|c| c.first(addr.doc_id)) == Some(manifest::STUB_TOO_LARGE)
            && size.is_some_and(|n| n > cap);
        if over {
            placeholder.reason = read::too_large(cap, kind);
        }
        out.push(placeholder);
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Does the index hold any PDF (text or placeholder)?
pub(crate) fn has_pdfs(searcher: &Searcher) -> Result<bool> {
    let term = tantivy::Term::from_field_text(schema::fields().ext, "pdf");
    Ok(searcher.doc_freq(&term)? > 0)
}
