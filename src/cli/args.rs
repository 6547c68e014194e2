//! Command-line flags, exactly as the user types them.
//!
//! Nothing here reads the environment or the disk: [`super::config`] resolves these raw flags
//! (plus environment variables and defaults) into the one [`super::config::Config`] that the
//! rest of the program sees.

use std::path::PathBuf;

use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};

use crate::core::request::table::{cli_help, MAX_LIMIT};
use crate::core::{MAX_BUDGET, MIN_BUDGET};

const EXAMPLES: &str = r#"
Examples:
  vault-search gradle kotlin bootstrap           ranked hits, Omnisearch first, local index offline
  vault-search --json -- '"exact phrase" -stale'  a phrase and an excluded word, JSON for agents
  vault-search --folder Meta --exclude Meta/claude-sessions cleanupPeriodDays
  vault-search --source local -n 5 typo tolerent  force the offline engine
  vault-search --tag meeting --since 7d          this week's meeting notes, newest first
  vault-search --where status=draft path:Projects kotlin  a property, and a path as in Omnisearch
  vault-search search index                      a query that equals a subcommand name
  vault-search index                             build or refresh the offline index (cron, hooks)"#;

/// Ranked full-text search over an Obsidian vault, for people and AI coding agents.
#[derive(Debug, Parser)]
#[command(
    name = "vault-search",
    // The version, the commit and the target (build.rs): what a bug report needs to name.
    version = env!("VAULT_SEARCH_VERSION"),
    about,
    after_help = EXAMPLES,
    subcommand_negates_reqs = true,
    help_expected = true
)]
pub(crate) struct Args {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,

    #[command(flatten)]
    pub(crate) search: SearchArgs,

    #[command(flatten)]
    pub(crate) global: GlobalArgs,
}

/// Flags accepted before or after any subcommand.
#[derive(Debug, Clone, Default, ClapArgs)]
pub(crate) struct GlobalArgs {
    /// Vault directory; repeat it to search several vaults as one [default: $OBSIDIAN_VAULT (a path list), else $OBSIDIAN_VAULT_PATH, else ~/Vault]
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) vault: Vec<PathBuf>,

    /// Where the offline index lives [default: $VAULT_SEARCH_CACHE_DIR, else the user cache dir]
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) cache_dir: Option<PathBuf>,

    /// Print one JSON object instead of text
    #[arg(long, global = true)]
    pub(crate) json: bool,

    /// Leave PDFs out of the local index (searches and `index`)
    #[arg(long, global = true)]
    pub(crate) no_pdf: bool,

    /// Skip PDFs larger than this many bytes, from now on: the index records the cap (named in
    /// `index --json` and `status`) [default: the index's recorded cap, else 50 MiB]
    #[arg(long, global = true, value_name = "BYTES")]
    pub(crate) max_pdf_bytes: Option<u64>,

    /// Seconds one PDF's extraction may take before it is stopped and the PDF skipped
    #[arg(long, global = true, value_name = "SECS", default_value_t = 20.0)]
    pub(crate) pdf_timeout: f64,

    /// Highlight matched words in text output [auto: on a terminal, unless $NO_COLOR is set]
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub(crate) color: ColorChoice,
}

/// When to color text output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum ColorChoice {
    /// On a terminal, unless $NO_COLOR is set
    #[default]
    Auto,
    /// Always
    Always,
    /// Never
    Never,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Search the vault (the explicit form, for a query that equals a subcommand name)
    Search(SearchArgs),
    /// Build or update the offline index (meant for cron or an agent's hook)
    Index(IndexArgs),
    /// Show the index and Omnisearch status of the vault
    Status(StatusArgs),
    /// A note's links and backlinks, or the vault's broken links (--unresolved) or orphans
    Links(LinksArgs),
    /// What to read after a note: its link neighbours and the notes sharing its words, ranked
    Related(RelatedArgs),
    /// Read a note by section: its outline, the section under a heading, or a range of lines
    Read(ReadArgs),
    /// Print (or install) the Claude Code skill that lets agents use this tool
    Skill(SkillArgs),
    /// Print a shell completion script
    Completions(CompletionsArgs),
    /// Serve the search as an MCP server on stdin/stdout (for Claude, Codex, Cursor)
    #[cfg(feature = "mcp")]
    Mcp(McpArgs),
    /// Watch the vault, keep its index current, and answer Omnisearch's HTTP API on loopback
    #[cfg(feature = "serve")]
    Serve(ServeArgs),
}

/// `vault-search mcp` flags.
#[cfg(feature = "mcp")]
#[derive(Debug, Clone, ClapArgs)]
pub(crate) struct McpArgs {
    /// Omnisearch HTTP port (1-65535) [default: $OMNISEARCH_PORT, else 51361]
    #[arg(long, value_name = "P", value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) port: Option<u16>,

    /// How long a search waits for the first index build of a vault before it says to retry
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub(crate) index_wait: u64,

    /// Print the setup snippet for an MCP client (with this binary's path) and exit
    #[arg(long, value_enum, value_name = "CLIENT")]
    pub(crate) print_config: Option<crate::mcp::Client>,
}

#[cfg(feature = "serve")]
#[derive(Debug, Clone, ClapArgs)]
pub(crate) struct ServeArgs {
    /// HTTP port on 127.0.0.1 and [::1] (0: any free port; 51361 stands in for the plugin)
    #[arg(long, value_name = "P", default_value_t = crate::serve::DEFAULT_SERVE_PORT)]
    pub(crate) port: u16,

    /// Answer browser requests from this origin: a page (https://www.google.com), a local tool (http://localhost:3000) or an extension (chrome-extension://ID, moz-extension://UUID); repeatable, never *
    #[arg(long, value_name = "ORIGIN")]
    pub(crate) allow_origin: Vec<String>,

    /// Walk the whole vault this often even without events, in seconds (catches what the OS missed)
    #[arg(long, value_name = "SECS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) rescan_secs: u64,
}

/// `vault-search links` flags: one note, `--unresolved` or `--orphans`.
#[derive(Debug, Clone, ClapArgs)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["note", "unresolved", "orphans"])))]
pub(crate) struct LinksArgs {
    /// The note: its vault-relative path as search prints it, or a file name only one file has
    #[arg(value_name = "NOTE")]
    pub(crate) note: Option<String>,

    /// Every link that names no file, by how many notes write it: all, or only missing notes or attachments
    #[arg(long, value_enum, value_name = "KIND", num_args = 0..=1, require_equals = true,
          default_missing_value = "all", conflicts_with_all = ["note", "orphans"])]
    pub(crate) unresolved: Option<UnresolvedArg>,

    /// Every note and canvas that no link leads to or from, by folder
    #[arg(long, conflicts_with = "note")]
    pub(crate) orphans: bool,

    /// Answer from the index as it is, without the freshness check (for cron-maintained indexes)
    #[arg(long)]
    pub(crate) no_refresh: bool,
}

/// The kinds of missing targets `links --unresolved` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum UnresolvedArg {
    All,
    Notes,
    Attachments,
}

/// `vault-search related` flags.
#[derive(Debug, Clone, ClapArgs)]
pub(crate) struct RelatedArgs {
    /// The note: its vault-relative path as search prints it, or a file name only one file has
    #[arg(value_name = "NOTE")]
    pub(crate) note: String,

    /// How many related notes to print (1-100)
    #[arg(short = 'n', long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=100))]
    pub(crate) limit: u16,

    /// Answer from the index as it is, without the freshness check (for cron-maintained indexes)
    #[arg(long)]
    pub(crate) no_refresh: bool,
}

/// `vault-search read` flags.
#[derive(Debug, Clone, ClapArgs)]
pub(crate) struct ReadArgs {
    /// The note's vault-relative path, as search prints it
    #[arg(value_name = "NOTE")]
    pub(crate) note: String,

    /// The section under this heading (a hit's heading path, a heading's text, or a unique part of one)
    #[arg(long, value_name = "H", conflicts_with_all = ["outline", "lines"])]
    pub(crate) heading: Option<String>,

    /// List the note's headings, each with its lines and size
    #[arg(long, conflicts_with = "lines")]
    pub(crate) outline: bool,

    /// Lines A to B (1-based, inclusive), e.g. a passage's `line:end_line`
    #[arg(long, value_name = "A:B")]
    pub(crate) lines: Option<String>,

    /// Also a note Obsidian's "Excluded files" hide from search
    #[arg(long)]
    pub(crate) include_ignored: bool,
}

#[derive(Debug, Clone, ClapArgs)]
pub(crate) struct StatusArgs {
    /// Omnisearch HTTP port (1-65535) [default: $OMNISEARCH_PORT, else 51361]
    #[arg(long, value_name = "P", value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) port: Option<u16>,
}

#[derive(Debug, Clone, ClapArgs)]
pub(crate) struct SkillArgs {
    /// Write the skill to ~/.claude/skills/vault-search/SKILL.md instead of printing it
    #[arg(long)]
    pub(crate) install: bool,

    /// With --install: the skills directory to write into [default: ~/.claude/skills]
    #[arg(long, value_name = "DIR", requires = "install")]
    pub(crate) dir: Option<PathBuf>,

    /// With --install: overwrite a SKILL.md that vault-search did not write
    #[arg(long, requires = "install")]
    pub(crate) force: bool,

    /// Print the one-paragraph directive for AGENTS.md / CLAUDE.md instead
    #[arg(long, conflicts_with = "install")]
    pub(crate) agents_md: bool,
}

#[derive(Debug, Clone, ClapArgs)]
pub(crate) struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

/// Which engine answers a search (the flag's values; [`crate::core::Source`] is what the
/// engines see).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum SourceArg {
    /// Omnisearch when Obsidian answers, else the local index
    #[default]
    Auto,
    /// Only the Omnisearch plugin's HTTP API
    Omnisearch,
    /// Only the local index
    Local,
    /// Both engines side by side, for ranking comparisons
    Both,
}

/// How results are ordered (the flag's values; [`crate::core::Sort`] is what the engines see).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum SortArg {
    /// Best match first
    #[default]
    Relevance,
    /// Most recently modified first
    Modified,
}

/// A search's flags: their names, help and bounds are the rows of the request table
/// ([`crate::core::request::table`]; `request_check` holds the two together).
#[derive(Debug, Clone, ClapArgs)]
pub(crate) struct SearchArgs {
    #[arg(value_name = "QUERY", num_args = 0.., allow_hyphen_values = false, help = cli_help("query"))]
    pub(crate) query: Vec<String>,

    #[arg(short = 'n', long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=MAX_LIMIT as i64), help = cli_help("limit"))]
    pub(crate) limit: u16,

    #[arg(long, value_name = "F", help = cli_help("folder"))]
    pub(crate) folder: Option<String>,

    #[arg(long, value_name = "X", help = cli_help("exclude"))]
    pub(crate) exclude: Vec<String>,

    #[arg(long, value_name = "T", help = cli_help("tags"))]
    pub(crate) tag: Vec<String>,

    #[arg(long, value_name = "WHEN", help = cli_help("since"))]
    pub(crate) since: Option<String>,

    #[arg(long, value_name = "WHEN", help = cli_help("until"))]
    pub(crate) until: Option<String>,

    #[arg(long = "where", value_name = "KEY[=VALUE]", help = cli_help("where"))]
    pub(crate) where_: Vec<String>,

    #[arg(long, value_name = "NOTE", help = cli_help("links_to"))]
    pub(crate) links_to: Vec<String>,

    #[arg(long, value_name = "NOTE", help = cli_help("linked_from"))]
    pub(crate) linked_from: Vec<String>,

    #[arg(long, value_enum, help = cli_help("sort"))]
    pub(crate) sort: Option<SortArg>,

    #[arg(long, value_enum, default_value_t = SourceArg::Auto, help = cli_help("source"))]
    pub(crate) source: SourceArg,

    #[arg(long, value_name = "P", value_parser = clap::value_parser!(u16).range(1..), help = cli_help("port"))]
    pub(crate) port: Option<u16>,

    #[arg(long, help = cli_help("no_refresh"))]
    pub(crate) no_refresh: bool,

    #[arg(long, help = cli_help("include_ignored"))]
    pub(crate) include_ignored: bool,

    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u32).range(MIN_BUDGET as i64..=MAX_BUDGET as i64), help = cli_help("budget"))]
    pub(crate) budget: Option<u32>,

    #[arg(long, help = cli_help("passages"))]
    pub(crate) passages: bool,
}

#[derive(Debug, Clone, ClapArgs)]
pub(crate) struct IndexArgs {
    /// Throw the index away and build it again from scratch
    #[arg(long)]
    pub(crate) rebuild: bool,

    /// Skip notes larger than this many bytes, from now on: the index records the cap (they are
    /// counted and named in --json) [default: the index's recorded cap, else 10 MiB]
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_note_bytes: Option<u64>,
}

/// Parses `std::env::args`; help and version print and exit 0, a usage error prints one line
/// `vault-search: …` and exits 2.
pub(crate) fn parse_args() -> Result<Args, std::process::ExitCode> {
    use clap::error::ErrorKind;
    if let Some(missing) = left_out_subcommand(std::env::args_os().nth(1).as_deref()) {
        eprintln!(
            "vault-search: this build has no `{missing}` (built without the `{missing}` feature); \
             to search for the word, put `--` before it"
        );
        return Err(std::process::ExitCode::from(2));
    }
    let parsed = <Args as clap::CommandFactory>::command()
        .try_get_matches()
        .and_then(|m| Ok((<Args as clap::FromArgMatches>::from_arg_matches(&m)?, m)));
    match parsed {
        Ok((mut a, matches)) => match search_flags_before(&matches, &mut a) {
            Ok(()) => Ok(a),
            Err(why) => {
                eprintln!("vault-search: {why}");
                Err(std::process::ExitCode::from(2))
            }
        },
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                let _ = e.print();
                Err(std::process::ExitCode::SUCCESS)
            }
            _ => {
                eprintln!("vault-search: {} (see --help)", first_line(&e.to_string()));
                Err(std::process::ExitCode::from(2))
            }
        },
    }
}

/// A search's flags given before a subcommand (`--port P status`): clap takes them for the
/// top-level search, which a subcommand never runs, so without this they would be ignored
/// without a word. `--port` before `status` or `mcp` means the same port there and is
/// honoured; every other one, and `--port` before `serve` (whose own `--port` is the port it
/// listens on), is refused with where it goes.
fn search_flags_before(matches: &clap::ArgMatches, args: &mut Args) -> Result<(), String> {
    use clap::parser::ValueSource;
    let Some((sub, _)) = matches.subcommand() else {
        return Ok(());
    };
    let search_flags = SearchArgs::augment_args(clap::Command::new("search"));
    for flag in search_flags.get_arguments() {
        let id = flag.get_id().as_str();
        if matches.value_source(id) != Some(ValueSource::CommandLine) {
            continue;
        }
        let name = match (flag.get_long(), flag.get_short()) {
            (Some(long), Some(short)) => format!("-{short}/--{long}"),
            (Some(long), None) => format!("--{long}"),
            (None, Some(short)) => format!("-{short}"),
            (None, None) => "a search's words".to_string(),
        };
        if id == "port" {
            if let Some(before) = args.search.port {
                if let Some(after) = subcommand_port(&mut args.command) {
                    match *after {
                        None => *after = Some(before),
                        Some(p) if p == before => {}
                        Some(p) => {
                            return Err(format!(
                                "--port {before} before `{sub}` and --port {p} after it: give one"
                            ))
                        }
                    }
                    continue;
                }
            }
        }
        return Err(if sub == "search" {
            format!("{name} goes after `search`, not before it")
        } else {
            format!(
                "{name} before `{sub}` is a search's flag, which `{sub}` doesn't take; a \
                 subcommand's own flags go after it (see `vault-search {sub} --help`)"
            )
        });
    }
    Ok(())
}

/// The Omnisearch port of a subcommand that asks the plugin (`status`, `mcp`).
fn subcommand_port(command: &mut Option<Command>) -> Option<&mut Option<u16>> {
    match command.as_mut()? {
        Command::Status(s) => Some(&mut s.port),
        #[cfg(feature = "mcp")]
        Command::Mcp(m) => Some(&mut m.port),
        _ => None,
    }
}

/// A subcommand of the full build that this build was compiled without, named as the first
/// argument: an error, not a search for the word, so a script never mistakes one for the other.
fn left_out_subcommand(first: Option<&std::ffi::OsStr>) -> Option<&'static str> {
    let first = first?.to_str()?;
    let left_out: &[&'static str] = &[
        #[cfg(not(feature = "mcp"))]
        "mcp",
        #[cfg(not(feature = "serve"))]
        "serve",
    ];
    left_out.iter().copied().find(|&name| name == first)
}

fn first_line(s: &str) -> String {
    // clap's message may continue on indented lines (the missing argument's name): keep them,
    // stop at the usage block.
    let text: Vec<&str> = s
        .lines()
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let line = text.join(" ");
    let line = line.trim_start_matches("error: ");
    if line.is_empty() {
        "invalid arguments".to_string()
    } else {
        line.to_string()
    }
}
