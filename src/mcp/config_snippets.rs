//! `vault-search mcp --print-config CLIENT`: the snippet that registers this server with an
//! MCP client, with this binary's absolute path and the resolved vault filled in, so setup is
//! one paste rather than hand-editing paths.

use std::path::Path;

use clap::ValueEnum;

use crate::paths::slashed;

/// The MCP clients `--print-config` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Client {
    /// `claude mcp add …` (a command to run)
    ClaudeCode,
    /// claude_desktop_config.json
    ClaudeDesktop,
    /// ~/.codex/config.toml
    Codex,
    /// .cursor/mcp.json (or ~/.cursor/mcp.json)
    Cursor,
}

/// The snippet for `client`, ending in a newline.
pub(crate) fn snippet(client: Client, bin: &Path, vault: &Path) -> String {
    let bin = bin.display().to_string();
    let vault = vault.display().to_string();
    let args = ["mcp".to_string(), "--vault".to_string(), vault.clone()];
    match client {
        // Typed into whatever shell the user has: on Windows `/` separators need no quoting in
        // Git Bash, PowerShell or `cmd` (single quotes, which guard `\`, are not quotes in `cmd`).
        Client::ClaudeCode => format!(
            "claude mcp add --scope user vault-search -- {} mcp --vault {}\n",
            shell_quote(&slashed(&bin, cfg!(windows))),
            shell_quote(&slashed(&vault, cfg!(windows)))
        ),
        Client::ClaudeDesktop | Client::Cursor => {
            let value = serde_json::json!({
                "mcpServers": { "vault-search": { "command": bin, "args": args } }
            });
            let mut s = serde_json::to_string_pretty(&value).unwrap_or_default();
            s.push('\n');
            s
        }
        Client::Codex => {
            // A JSON string is a valid TOML basic string (same escapes for quotes, backslashes
            // and control characters).
            let q = |s: &str| serde_json::Value::from(s).to_string();
            let list: Vec<String> = args.iter().map(|a| q(a)).collect();
            format!(
                "[mcp_servers.vault-search]\ncommand = {}\nargs = [{}]\n",
                q(&bin),
                list.join(", ")
            )
        }
    }
}

/// Quotes a word for a POSIX shell when it needs it.
fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%=,".contains(&b));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_for_the_shell() {
        assert_eq!(
            shell_quote("/usr/bin/vault-search"),
            "/usr/bin/vault-search"
        );
        assert_eq!(shell_quote("/srv/a b/it's"), r"'/srv/a b/it'\''s'");
    }

    #[test]
    fn json_snippets_parse() {
        let s = snippet(
            Client::Cursor,
            Path::new("/opt/v s/vault-search"),
            Path::new("/srv/notes/Vault \"x\""),
        );
        let v: serde_json::Value = serde_json::from_str(&s).unwrap_or_default();
        let server = &v["mcpServers"]["vault-search"];
        assert_eq!(server["command"], "/opt/v s/vault-search");
        assert_eq!(server["args"][2], "/srv/notes/Vault \"x\"");
    }
}
