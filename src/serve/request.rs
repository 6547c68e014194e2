//! `GET /api/search`'s query parameters read into a search request: the parameters are the
//! request table's serve spellings (a parameter not there is refused, naming the ones there
//! are), so every search option `serve` takes is the command line's, with its bounds.

use super::http::Request;
use crate::core::request::table::{self, Front, OPTIONS};
use crate::core::request::SearchRequest;
use crate::core::{Sort, Source};

/// The request of `/api/search`'s parameters, or why they can't make one.
pub(crate) fn read(req: &Request) -> Result<SearchRequest, String> {
    for (k, _) in &req.params {
        if table::spelled(Front::Serve, k).is_none() {
            let known: Vec<&str> = OPTIONS
                .iter()
                .filter_map(|o| o.named(Front::Serve))
                .collect();
            return Err(format!(
                "unknown parameter {k:?}; /api/search takes {}",
                known.join(", ")
            ));
        }
    }
    let p = Params(req);
    Ok(SearchRequest {
        query: p.all("query").join(" "),
        limit: p.number("limit")?,
        folder: p.one("folder")?,
        exclude: p.all("exclude"),
        tags: p.all("tags"),
        since: p.one("since")?,
        until: p.one("until")?,
        where_: p.all("where"),
        links_to: p.all("links_to"),
        linked_from: p.all("linked_from"),
        sort: match p.one("sort")?.as_deref() {
            None => None,
            Some("relevance") => Some(Sort::Relevance),
            Some("modified") => Some(Sort::Modified),
            Some(v) => return Err(format!("sort is relevance or modified, not {v:?}")),
        },
        // Its own index, current: the engine and the freshness walk are `serve`'s.
        source: None::<Source>,
        port: None,
        no_refresh: false,
        include_ignored: p.switch("include_ignored")?,
        budget: p.number("budget")?,
        passages: false,
    })
}

/// The parameters, by the table's names of the options.
struct Params<'a>(&'a Request);

impl Params<'_> {
    fn spelling(name: &str) -> &'static str {
        let o = table::option(name);
        o.named(Front::Serve).unwrap_or(o.name)
    }

    /// Every value given (empty ones left out).
    fn all(&self, name: &str) -> Vec<String> {
        self.0
            .params_named(Self::spelling(name))
            .filter(|v| !v.trim().is_empty())
            .map(str::to_string)
            .collect()
    }

    /// The one value given, if any; twice is an error.
    fn one(&self, name: &str) -> Result<Option<String>, String> {
        let mut all = self.all(name);
        if all.len() > 1 {
            return Err(format!(
                "{} is given {} times",
                Self::spelling(name),
                all.len()
            ));
        }
        Ok(all.pop())
    }

    fn number(&self, name: &str) -> Result<Option<u64>, String> {
        let Some(v) = self.one(name)? else {
            return Ok(None);
        };
        v.trim()
            .parse()
            .map(Some)
            .map_err(|_| format!("{} must be a whole number, not {v:?}", Self::spelling(name)))
    }

    fn switch(&self, name: &str) -> Result<bool, String> {
        match self.one(name)?.as_deref() {
            None | Some("0" | "false") => Ok(false),
            Some("1" | "true") => Ok(true),
            Some(v) => Err(format!(
                "{} is 1, true, 0 or false, not {v:?}",
                Self::spelling(name)
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::request::table::Kind;

    fn get(query: &str) -> Request {
        Request {
            method: "GET".into(),
            path: "/api/search".into(),
            params: query
                .split('&')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            headers: Vec::new(),
        }
    }

    #[test]
    fn every_parameter_is_a_row_and_every_row_serve_spells_is_read() {
        // Each row serve spells, given once with a value that reads: it lands in the request.
        for o in OPTIONS {
            let Some(p) = o.named(Front::Serve) else {
                continue;
            };
            let value = match o.kind {
                Kind::Number => "100",
                Kind::Switch => "true",
                Kind::Choice(v) => v[v.len() - 1],
                _ => "x",
            };
            let asked = read(&get(&format!("{p}={value}"))).unwrap();
            assert_ne!(asked, SearchRequest::default(), "{p}={value} is read");
        }
        let err = read(&get("q=a&tags=x")).unwrap_err();
        assert!(err.starts_with("unknown parameter \"tags\""), "{err}");
        assert!(err.contains("tag, since"), "{err}");
        let err = read(&get("q=a&folder=x&folder=y")).unwrap_err();
        assert_eq!(err, "folder is given 2 times");
        let err = read(&get("limit=ten")).unwrap_err();
        assert_eq!(err, "limit must be a whole number, not \"ten\"");
        let asked = read(&get("tag=a&tag=b&exclude=&q=x")).unwrap();
        assert_eq!(asked.tags, ["a", "b"]);
        assert!(asked.exclude.is_empty());
    }
}
