//! Every search option, once: what it is, its bounds and caps, and how each front-end spells it
//! (or why it leaves it out). The command line's flags, the MCP tool's input schema and caps,
//! and `serve`'s query parameters are made from these rows or checked against them by a test
//! (`cli::request_check`, `mcp::request_check`, the serve tests); the guide's option table and
//! the agents page's arguments are generated from them.

/// A front-end that asks for searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Front {
    /// The command line (`vault-search [search] …`).
    Cli,
    /// The MCP server's `search_notes` tool.
    Mcp,
    /// `serve`'s `GET /api/search` (its `/search` is the plugin's API: `q` only).
    Serve,
}

impl Front {
    #[cfg(test)]
    pub(crate) const ALL: [Front; 3] = [Front::Cli, Front::Mcp, Front::Serve];
}

/// How a front-end takes an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spelling {
    /// Under this name: a long flag without its dashes (the words: the positional `query`),
    /// an MCP argument, a query parameter.
    As(&'static str),
    /// Left out on purpose; why, in a few words.
    Absent(&'static str),
}

/// What values an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The words searched for.
    Words,
    /// A whole number within [`Opt::bounds`].
    Number,
    /// One string.
    Text,
    /// Strings, repeatable (a list over MCP, the flag or parameter again elsewhere).
    List,
    /// One of these values.
    Choice(&'static [&'static str]),
    /// On or off.
    Switch,
}

/// The least and most a number may be, everywhere but where `mcp_max` says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub(crate) min: u64,
    pub(crate) max: u64,
    /// MCP's own maximum, and why it differs.
    pub(crate) mcp_max: Option<(u64, &'static str)>,
}

/// Most items of a list and most bytes of each string, checked before a front-end that takes
/// input from another program (MCP) parses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cap {
    pub(crate) items: usize,
    pub(crate) bytes: usize,
}

/// One search option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Opt {
    /// Its name in [`super::SearchRequest`].
    pub(crate) name: &'static str,
    pub(crate) kind: Kind,
    pub(crate) cli: Spelling,
    pub(crate) mcp: Spelling,
    pub(crate) serve: Spelling,
    pub(crate) bounds: Option<Bounds>,
    /// The value when it is not given, as a user would write it ("" when none).
    pub(crate) default: &'static str,
    /// MCP's own default, and why it differs.
    pub(crate) mcp_default: Option<(&'static str, &'static str)>,
    pub(crate) cap: Option<Cap>,
    /// The command line's help (and the guide's "meaning").
    pub(crate) help: &'static str,
    /// The MCP argument's description: short, every conversation pays for it.
    pub(crate) mcp_help: &'static str,
}

impl Opt {
    /// Its spelling on `front`.
    pub(crate) fn on(&self, front: Front) -> Spelling {
        match front {
            Front::Cli => self.cli,
            Front::Mcp => self.mcp,
            Front::Serve => self.serve,
        }
    }

    /// Its name on `front`, if it takes it.
    pub(crate) fn named(&self, front: Front) -> Option<&'static str> {
        match self.on(front) {
            Spelling::As(n) => Some(n),
            Spelling::Absent(_) => None,
        }
    }

    /// Its default on `front` ("" when none).
    pub(crate) fn default_on(&self, front: Front) -> &'static str {
        match (front, self.mcp_default) {
            (Front::Mcp, Some((d, _))) => d,
            _ => self.default,
        }
    }

    /// The most a number may be on `front`.
    pub(crate) fn max(&self, front: Front) -> Option<u64> {
        let b = self.bounds?;
        Some(match (front, b.mcp_max) {
            (Front::Mcp, Some((max, _))) => max,
            _ => b.max,
        })
    }
}

/// Bytes of a vault-relative path, a folder, a note's name or one list item (Linux's
/// `PATH_MAX`).
pub(crate) const MAX_PATH_BYTES: usize = 4096;
/// Items of a list: a search names a few; none needs more.
pub(crate) const MAX_LIST_ITEMS: usize = 64;
/// Bytes of `since` or `until` (`2026-11-30T14:00` is 16).
pub(crate) const MAX_WHEN_BYTES: usize = 64;
/// Most results a search may ask for.
pub(crate) const MAX_LIMIT: u64 = 1000;
/// Most results one MCP call may ask for.
pub(crate) const MAX_MCP_LIMIT: u64 = 50;
/// The results of a search that names no limit.
pub(crate) const DEFAULT_LIMIT: u64 = 10;
/// The token budget of an MCP answer that names none: the five best hits' passages (the best
/// ones whole) and a line for the rest, chosen by measurement (docs/agents.md, "Passages").
pub(crate) const DEFAULT_MCP_BUDGET: u64 = 1500;

const PATH: Option<Cap> = Some(Cap {
    items: 1,
    bytes: MAX_PATH_BYTES,
});
const LIST: Option<Cap> = Some(Cap {
    items: MAX_LIST_ITEMS,
    bytes: MAX_PATH_BYTES,
});
const WHEN: Option<Cap> = Some(Cap {
    items: 1,
    bytes: MAX_WHEN_BYTES,
});

const fn opt(name: &'static str, kind: Kind) -> Opt {
    Opt {
        name,
        kind,
        cli: Spelling::As(name),
        mcp: Spelling::As(name),
        serve: Spelling::As(name),
        bounds: None,
        default: "",
        mcp_default: None,
        cap: None,
        help: "",
        mcp_help: "",
    }
}

/// Every search option, in the order the help lists them.
pub(crate) const OPTIONS: &[Opt] = &[
    Opt {
        serve: Spelling::As("q"),
        help: "Words to search for; several words are joined with spaces. Supports \"quoted \
               phrases\", -exclusions, path:X and ext:md. May be left out when a filter is given",
        mcp_help: "Keywords or a sentence; \"a phrase\", -word to exclude; empty with a filter \
                   or sort: notes, newest first",
        ..opt("query", Kind::Words)
    },
    Opt {
        bounds: Some(Bounds {
            min: 1,
            max: MAX_LIMIT,
            mcp_max: Some((MAX_MCP_LIMIT, "more would flood the conversation")),
        }),
        default: "10",
        help: "How many results to print",
        mcp_help: "Max hits",
        ..opt("limit", Kind::Number)
    },
    Opt {
        cap: PATH,
        help: "Only notes below this vault-relative folder",
        mcp_help: "Only notes below this folder",
        ..opt("folder", Kind::Text)
    },
    Opt {
        cap: LIST,
        help: "Skip notes below this vault-relative folder (repeatable)",
        mcp_help: "Skip notes below these folders",
        ..opt("exclude", Kind::List)
    },
    Opt {
        cli: Spelling::As("tag"),
        serve: Spelling::As("tag"),
        cap: LIST,
        help: "Only notes with this tag, `#` optional; `project` also matches `project/alpha` \
               (repeatable: all must hold)",
        mcp_help: "All these tags (\"a\" also matches \"a/b\")",
        ..opt("tags", Kind::List)
    },
    Opt {
        cap: WHEN,
        help: "Only notes modified at or after WHEN: 2026-11-30, 2026-11-30T14:00, 7d, 12h, \
               30m, today, yesterday (local time)",
        mcp_help: "Modified since: 2026-11-30[T14:00], 7d, 12h, today",
        ..opt("since", Kind::Text)
    },
    Opt {
        cap: WHEN,
        help: "Only notes modified at or before WHEN (same forms as --since)",
        mcp_help: "Modified until (same forms)",
        ..opt("until", Kind::Text)
    },
    Opt {
        cap: LIST,
        help: "Only notes whose frontmatter property KEY is VALUE (any case; a list: one of its \
               items), or that have KEY at all (repeatable)",
        mcp_help: "Frontmatter \"key=value\" or \"key\" (has it)",
        ..opt("where", Kind::List)
    },
    Opt {
        cli: Spelling::As("links-to"),
        cap: PATH,
        help: "Only notes with a link (or embed) to NOTE: its vault-relative path, or a file \
               name only one file has (repeatable: all must hold)",
        mcp_help: "Notes that link to this note",
        ..opt("links_to", Kind::List)
    },
    Opt {
        cli: Spelling::As("linked-from"),
        cap: PATH,
        help: "Only the notes NOTE links to (same forms as --links-to; repeatable)",
        mcp_help: "Notes this note links to",
        ..opt("linked_from", Kind::List)
    },
    Opt {
        default: "relevance",
        help: "Order of the results [default: relevance; without words: modified]",
        mcp_help: "Default relevance; modified: newest first",
        ..opt("sort", Kind::Choice(&["relevance", "modified"]))
    },
    Opt {
        serve: Spelling::Absent("serve answers from the index it keeps current"),
        default: "auto",
        help: "Which engine answers",
        mcp_help: "Engine (default auto)",
        ..opt(
            "source",
            Kind::Choice(&["auto", "omnisearch", "local", "both"]),
        )
    },
    Opt {
        mcp: Spelling::Absent("the server's own --port, set once"),
        serve: Spelling::Absent("serve never asks the plugin"),
        bounds: Some(Bounds {
            min: 1,
            max: 65535,
            mcp_max: None,
        }),
        default: "$OMNISEARCH_PORT, else 51361",
        help: "Omnisearch HTTP port (1-65535) [default: $OMNISEARCH_PORT, else 51361]",
        ..opt("port", Kind::Number)
    },
    Opt {
        cli: Spelling::As("no-refresh"),
        mcp: Spelling::Absent(
            "the server refreshes in the background and says when it answered from the last commit",
        ),
        serve: Spelling::Absent("its watcher keeps the index current"),
        help:
            "Search the index as it is, without the freshness check (for cron-maintained indexes)",
        ..opt("no_refresh", Kind::Switch)
    },
    Opt {
        cli: Spelling::As("include-ignored"),
        help: "Also search the files Obsidian's \"Excluded files\" setting hides (local engine)",
        mcp_help: "Also notes Excluded files hide",
        ..opt("include_ignored", Kind::Switch)
    },
    Opt {
        bounds: Some(Bounds {
            min: super::super::MIN_BUDGET as u64,
            max: super::super::MAX_BUDGET as u64,
            mcp_max: None,
        }),
        mcp_default: Some((
            "1500",
            "a model's context is paid for: five passages and a line for the rest",
        )),
        help: "Fit the whole output to this many tokens (estimated so as never to count too \
               few): the best hits' passages first, a line for the rest, fewer hits before a cut \
               passage; JSON is then printed on one line",
        mcp_help: "Tokens for the answer",
        ..opt("budget", Kind::Number)
    },
    Opt {
        mcp: Spelling::Absent("its text view always shows them"),
        serve: Spelling::Absent("its JSON always has them"),
        help: "Text output: show each hit's passage (the lines that answer, numbered) instead \
               of its one-line excerpt",
        ..opt("passages", Kind::Switch)
    },
];

/// The row of `name`; a name not in the table is a bug the tests catch.
pub(crate) fn option(name: &str) -> &'static Opt {
    OPTIONS
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no search option {name:?} in the request table"))
}

/// The row `front` spells `spelled`.
pub(crate) fn spelled(front: Front, spelled: &str) -> Option<&'static Opt> {
    OPTIONS.iter().find(|o| o.named(front) == Some(spelled))
}

/// The help of `name`, with its bounds and default where the help doesn't say them: the
/// command line's `--help`.
pub(crate) fn cli_help(name: &str) -> String {
    let o = option(name);
    match o.bounds {
        Some(b) if !o.help.contains(&format!("({}-", b.min)) => {
            format!("{} ({}-{})", o.help, b.min, b.max)
        }
        _ => o.help.to_string(),
    }
}
