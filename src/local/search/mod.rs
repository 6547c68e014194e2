//! The search side: [`run`] answers one search on an opened index ([`query`] parses what is
//! asked, [`filter`] turns scope and filters into clauses of the index query, [`ignore`] applies
//! Obsidian's excluded files, [`rank`] ranks, [`list`] answers a search without words), and
//! [`show`] shows a hit's passage, found through the best [`window`].

mod docs;
mod filter;
pub(in crate::local) mod ignore;
mod list;
#[cfg(feature = "mcp")]
pub(in crate::local) mod names;
pub(crate) mod query;
mod rank;
mod run;
mod show;
mod window;

pub(in crate::local) use run::run;
