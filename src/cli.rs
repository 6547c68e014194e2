//! Command-line flags, exactly as the user types them.
//!
//! Nothing here reads the environment or the disk: [`crate::config`] resolves these raw flags
//! (plus environment variables and defaults) into the one [`crate::config::Config`] that the
//! rest of the program sees.

use std::path::PathBuf;

use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};

const EXAMPLES: &str = r#"
Examples:
  vault-search gradle kotlin bootstrap           ranked hits, Omnisearch first, local index offline
  vault-search --json -- '"exact phrase" -stale'  a phrase and an excluded word, JSON for agents
  vault-search --folder Meta --exclude Meta/claude-sessions cleanupPeriodDays
  vault-search --source local -n 5 typo tolerent  force the offline engine
  vault-search search index                      a query that equals a subcommand name
  vault-search index                             build or refresh the offline index (cron, hooks)"#;

/// Ranked full-text search over an Obsidian vault, for people and AI coding agents.
#[derive(Debug, Parser)]
#[command(
    name = "vault-search",
    version,
    about,
    after_help = EXAMPLES,
    subcommand_negates_reqs = true,
    help_expected = true
)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub search: SearchArgs,

    #[command(flatten)]
    pub global: GlobalArgs,
}

/// Flags accepted before or after any subcommand.
#[derive(Debug, Clone, Default, ClapArgs)]
pub struct GlobalArgs {
    /// Vault directory [default: $OBSIDIAN_VAULT, else $OBSIDIAN_VAULT_PATH, else ~/Vault]
    #[arg(long, global = true, value_name = "DIR")]
    pub vault: Option<PathBuf>,

    /// Where the offline index lives [default: $VAULT_SEARCH_CACHE_DIR, else the user cache dir]
    #[arg(long, global = true, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,

    /// Print one JSON object instead of text
    #[arg(long, global = true)]
    pub json: bool,

    /// Highlight matched words in text output [auto: on a terminal, unless $NO_COLOR is set]
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

/// When to color text output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    /// On a terminal, unless $NO_COLOR is set
    #[default]
    Auto,
    /// Always
    Always,
    /// Never
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Search the vault (the explicit form, for a query that equals a subcommand name)
    Search(SearchArgs),
    /// Build or update the offline index (meant for cron or an agent's hook)
    Index(IndexArgs),
    /// Show the index and Omnisearch status of the vault
    Status(StatusArgs),
    /// Print (or install) the Claude Code skill that lets agents use this tool
    Skill(SkillArgs),
    /// Print a shell completion script
    Completions(CompletionsArgs),
    /// Watch the vault, keep its index current, and answer Omnisearch's HTTP API on loopback
    Serve(ServeArgs),
}

#[derive(Debug, Clone, ClapArgs)]
pub struct ServeArgs {
    /// HTTP port on 127.0.0.1 and [::1] (0: any free port; 51361 stands in for the plugin)
    #[arg(long, value_name = "P", default_value_t = crate::serve::DEFAULT_SERVE_PORT)]
    pub port: u16,

    /// Answer browser requests from this origin, e.g. http://localhost:3000 (repeatable)
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,

    /// Walk the whole vault this often even without events, in seconds (catches what the OS missed)
    #[arg(long, value_name = "SECS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    pub rescan_secs: u64,
}

#[derive(Debug, Clone, ClapArgs)]
pub struct StatusArgs {
    /// Omnisearch HTTP port (1-65535) [default: $OMNISEARCH_PORT, else 51361]
    #[arg(long, value_name = "P", value_parser = clap::value_parser!(u16).range(1..))]
    pub port: Option<u16>,
}

#[derive(Debug, Clone, ClapArgs)]
pub struct SkillArgs {
    /// Write the skill to ~/.claude/skills/vault-search/SKILL.md instead of printing it
    #[arg(long)]
    pub install: bool,

    /// With --install: the skills directory to write into [default: ~/.claude/skills]
    #[arg(long, value_name = "DIR", requires = "install")]
    pub dir: Option<PathBuf>,

    /// With --install: overwrite a SKILL.md that vault-search did not write
    #[arg(long, requires = "install")]
    pub force: bool,

    /// Print the one-paragraph directive for AGENTS.md / CLAUDE.md instead
    #[arg(long, conflicts_with = "install")]
    pub agents_md: bool,
}

#[derive(Debug, Clone, ClapArgs)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Which engine answers a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Source {
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

#[derive(Debug, Clone, ClapArgs)]
pub struct SearchArgs {
    /// Words to search for; several words are joined with spaces. Supports "quoted phrases" and -exclusions
    #[arg(value_name = "QUERY", required = true, num_args = 1.., allow_hyphen_values = false)]
    pub query: Vec<String>,

    /// How many results to print (1-1000)
    #[arg(short = 'n', long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub limit: u16,

    /// Only notes below this vault-relative folder
    #[arg(long, value_name = "F")]
    pub folder: Option<String>,

    /// Skip notes below this vault-relative folder (repeatable)
    #[arg(long, value_name = "X")]
    pub exclude: Vec<String>,

    /// Which engine answers
    #[arg(long, value_enum, default_value_t = Source::Auto)]
    pub source: Source,

    /// Omnisearch HTTP port (1-65535) [default: $OMNISEARCH_PORT, else 51361]
    #[arg(long, value_name = "P", value_parser = clap::value_parser!(u16).range(1..))]
    pub port: Option<u16>,

    /// Search the index as it is, without the freshness check (for cron-maintained indexes)
    #[arg(long)]
    pub no_refresh: bool,

    /// Also search the files Obsidian's "Excluded files" setting hides (local engine)
    #[arg(long)]
    pub include_ignored: bool,
}

#[derive(Debug, Clone, ClapArgs)]
pub struct IndexArgs {
    /// Throw the index away and build it again from scratch
    #[arg(long)]
    pub rebuild: bool,

    /// Skip notes larger than this many bytes (they are counted and named in --json)
    #[arg(long, value_name = "BYTES", default_value_t = crate::config::DEFAULT_MAX_NOTE_BYTES)]
    pub max_note_bytes: u64,
}

/// Parses `std::env::args`; help and version print and exit 0, a usage error prints one line
/// `vault-search: …` and exits 2.
pub fn parse_args() -> Result<Args, std::process::ExitCode> {
    use clap::error::ErrorKind;
    match <Args as Parser>::try_parse() {
        Ok(a) => Ok(a),
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
